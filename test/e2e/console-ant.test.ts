import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type AppUnderTest, openApp } from './harness.js';

/** Picks the Ant's medium maze and waits for its shipped regions to load. */
async function chooseAntMaze(page: AppUnderTest['page']): Promise<void> {
  await page.waitForSelector('#world option[value="antmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'antmaze-medium');
  await page.waitForFunction(`(document.querySelector('#regions')?.value ?? '').includes('"antmaze-medium"')`);
}

/** Asks for a plan of `spec` from (4, 20) over a 20 000-transition dataset of the chosen maze. */
async function planAnt(page: AppUnderTest['page'], spec: string): Promise<void> {
  await page.fill('#spec', spec);
  await page.fill('#start', '4,20');
  await page.fill('#dataset-steps', '20000');
  await page.click('#plan');
}

test('console: the Ant maze like any world — its regions and bundle, a plan the operator sees, a run with the trail and a recorded outcome', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    // Every Ant maze ships its regions: picking the large one replaces the editor's regions with its own
    // (they used to stay the previous maze's, and labelled the wrong places).
    await page.waitForSelector('#world option[value="antmaze-large"]', { state: 'attached' });
    await page.selectOption('#world', 'antmaze-large');
    await page.waitForFunction(`(document.querySelector('#regions')?.value ?? '').includes('"antmaze-large"')`);
    assert.match(await page.inputValue('#regions'), /"center": \[36, 24\]/);
    // The shipped regions and the example specification of the Ant maze load with the world.
    await chooseAntMaze(page);
    assert.equal(await page.inputValue('#spec'), 'F e2 & G F e1 & G F e4 & G !e0');
    await planAnt(page, 'F e2 & G !e0');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
    assert.ok(Number(await page.getAttribute('#mission-graph', 'data-nodes')) > 20);
    await app.screenshot('console-ant-planned');
    await page.fill('#replans', '0');
    await page.fill('#speed', '0');
    await page.click('#run');
    await page.waitForSelector('#escalation[open], #mission-log li.ok, #mission-log li.failed', { timeout: 120_000 });
    if (await page.isVisible('#escalation[open]')) {
      // Past R = 0 the operator is asked: the log names the failure and how far the Ant moved.
      assert.match(
        (await page.textContent('#mission-log')) ?? '',
        /(tracking-timeout|missed-anchor|forbidden-label).*|overturned/,
      );
      await app.screenshot('console-ant-escalation');
      await page.fill('#escalation-reason', 'the Ant lost its way; looking at the trail');
      await page.click('#decide-abort');
      await page.waitForSelector('#mission-log li.failed');
    }
    // Whatever the outcome, the Ant moved and its trail is drawn from where it started.
    assert.ok(Number(await page.getAttribute('#mission-graph', 'data-trail')) > 10);
    assert.ok(((await page.getAttribute('#mission-graph', 'data-robot')) ?? '') !== '');
    assert.match((await page.textContent('#mission-log')) ?? '', /SUCCESS|FAILED/);
    await app.screenshot('console-ant-run');
    const db = openAuditReadOnly(app.api.context.auditFile);
    try {
      const runs = db.prepare('SELECT world FROM runs').all() as { world: string }[];
      assert.deepEqual(
        runs.map((r) => r.world),
        ['antmaze-medium'],
      );
    } finally {
      db.close();
    }
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

test('console: a stalled Ant walks back and says so — the recovery line in the event list, then the mission goes on (seed 0, 20 000 transitions)', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await chooseAntMaze(page);
    await page.fill('#replans', '0');
    await page.fill('#speed', '0');
    await planAnt(page, 'G F e2 & G F e3 & G F e5');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 180_000 });
    await page.click('#run');
    await page.waitForSelector('#escalation[open], #mission-log li.ok, #mission-log li.failed', { timeout: 300_000 });
    // On this seed the Ant stalls once on its way (t = 363), walks back 1 m along its own path, and completes the
    // patrol.
    const text = (await page.textContent('body')) ?? '';
    assert.match(text, /stalled on the way to c\d+ \(moved 0\.\d\d m\): walking back to -?\d+\.\d\d, -?\d+\.\d\d/);
    await app.screenshot('console-ant-recovery');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});
