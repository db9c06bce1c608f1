/**
 * Issue 17 items 4, 5 and 8 in Chromium: a second plan over other regions draws (and a plan that
 * cannot be drawn is neither kept nor runnable), the robot's trail lies in the maze's own frame in
 * every view that draws it, and the Graph tab follows a running mission and finds nodes by id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { type AppUnderTest, openApp } from './harness.js';

const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';
/** Other regions than the default spec's: e3 and e5 instead of e2 and e4 (other anchors, another plan). */
const OTHER_SPEC = 'G F e3 & G F e5 & G F e1 & G !e0';

async function plan(app: AppUnderTest, spec = SPEC): Promise<void> {
  const { page } = app;
  await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'pointmaze-medium');
  await page.fill('#spec', spec);
  await page.fill('#start', '4,20');
  await page.fill('#dataset-steps', '50000');
  await page.click('#plan');
}

/** Waits until the plan summary has settled (a plan, or "No plan."), failing if it stays "Planning…". */
async function planSettled(page: Page): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const t = (await page.textContent('#plan-summary')) ?? '';
    if (!t.startsWith('Planning')) return t;
    await page.waitForTimeout(100);
  }
  throw new Error(`the plan summary still says "${await page.textContent('#plan-summary')}" after 60 s`);
}

interface MissionHook { graph: { cy: { edges(s: string): { length: number }; nodes(s: string): { length: number } }; setPlan(p: unknown): void } }

test('graph follow 4: a second plan over other regions draws; a plan that cannot be drawn is reported, not kept and not runnable', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await plan(app);
    assert.match(await planSettled(page), /Plan found/);
    const first = await page.getAttribute('#mission-graph', 'data-suffix-edges');
    await plan(app, OTHER_SPEC);
    const second = await planSettled(page);
    assert.match(second, /Plan found/, `second plan: ${second} ${await page.textContent('#mission-error')}`);
    assert.equal(await page.textContent('#mission-error'), '');
    // The new plan is drawn: its overlay edges are on the view and its anchors are the new regions'.
    const drawn = await page.evaluate(() => {
      const g = (globalThis as unknown as { __witnessTest: { mission: MissionHook } }).__witnessTest.mission.graph;
      return { prefix: g.cy.edges('.plan-prefix').length, suffix: g.cy.edges('.plan-suffix').length };
    });
    assert.ok(drawn.prefix > 0 && drawn.suffix > 0, JSON.stringify(drawn));
    assert.equal(String(drawn.suffix), await page.getAttribute('#mission-graph', 'data-suffix-edges'));
    assert.notEqual(await page.getAttribute('#mission-graph', 'data-suffix-edges'), first);
    assert.ok(await page.isEnabled('#run'));
    await app.screenshot('graph-follow-second-plan');
    assert.deepEqual(app.pageErrors.filter((e) => !/favicon/.test(e)), []);

    // A drawing failure: reported, the views cleared, the plan not kept, Run disabled, Plan usable again.
    await page.evaluate(() => {
      const g = (globalThis as unknown as { __witnessTest: { mission: MissionHook } }).__witnessTest.mission.graph;
      g.setPlan = () => { throw new Error('injected drawing failure'); };
    });
    await plan(app);
    assert.equal(await planSettled(page), 'No plan.');
    assert.match((await page.textContent('#mission-error')) ?? '', /the plan could not be drawn, so it was not kept and cannot be run: injected drawing failure/);
    assert.ok(await page.isDisabled('#run'), 'a plan that is not drawn cannot be run');
    assert.ok(await page.isEnabled('#plan'));
    assert.equal(await page.getAttribute('#mission-graph', 'data-nodes'), '0');
    await app.screenshot('graph-follow-draw-failure');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});
