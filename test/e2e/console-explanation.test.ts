/**
 * The Mission tab says why a mission cannot be planned: the conjuncts that cannot hold together,
 * listed under the planner's reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.js';

test('console: an infeasible mission lists the conjuncts that conflict', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    await page.fill('#spec', 'G F e1 & F e2 & G !e2');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.infeasible', { timeout: 120_000 });
    assert.equal(
      await page.textContent('#plan-why'),
      'Why: these 2 conjuncts contradict each other: no graph can meet them together',
    );
    assert.deepEqual(await page.locator('.plan-why-items li').allTextContents(), [
      'conjunct 2: F e2',
      'conjunct 3: G !e2',
    ]);
    await app.screenshot('console-explanation');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});
