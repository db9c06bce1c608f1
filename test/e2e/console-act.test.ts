/**
 * The tool loop in the console: `act` on the tabletop and on a ROS 2 robot (the
 * simulated ROS 2 graph) from the UI, with the step view (each call: arguments, preconditions,
 * execution, postcondition evidence, failure record, replan), the same escalation dialog as missions,
 * the audit link, bad input where it was typed, and Stop cancelling the running skill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { userInfo } from 'node:os';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { setup } from '../ros2-sim/lab.js';
import { type AppUnderTest, openApp } from './harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function openTab(app: AppUnderTest): Promise<void> {
  await app.page.click('#tab-act');
  await app.page.waitForSelector('#act-world option[value="tabletop"]', { state: 'attached' });
  await app.page.waitForSelector('#act-plan option[value="shipped:plans/warehouse.json"]', { state: 'attached' });
}

function events(app: AppUnderTest, run: string, kind: string): Record<string, unknown>[] {
  const db = openAuditReadOnly(app.api.context.auditFile);
  try {
    return (
      db.prepare('SELECT body FROM events WHERE run_id = ? AND kind = ? ORDER BY seq').all(run, kind) as {
        body: string;
      }[]
    ).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

test('tool loop in the console: the warehouse on the tabletop, a failure and its replan in the step view, the audit link; bad input where it was typed', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await openTab(app);
    assert.equal(await page.inputValue('#act-goal'), 'objects.red_bin.on == "shelf_c4"');
    assert.equal(await page.inputValue('#act-tools'), 'shipped:tools');

    // A goal verifier that does not type-check: said where, and nothing runs or is recorded.
    await page.fill('#act-goal', 'objects.red_bin.on ==');
    await page.click('#act-run');
    await page.waitForSelector('#act-error:not(:empty)');
    assert.match((await page.textContent('#act-error')) ?? '', /goal/);
    assert.equal((await app.api.auditRuns({})).runs.length, 0, 'nothing was recorded');

    await page.fill('#act-goal', 'objects.red_bin.on == "shelf_c4"');
    await page.click('#act-run');
    await page.waitForSelector('#act-outcome', { timeout: 120_000 });
    assert.match((await page.textContent('#act-outcome')) ?? '', /^SUCCESS: the goal verifier confirms the goal/);
    assert.equal(await page.getAttribute('#act-tree > .act-goal', 'data-status'), 'ok');
    const failed = page.locator('.act-call[data-status="failed"]');
    assert.ok(
      (await failed.count()) >= 1,
      'the warehouse at seed 0 fails once (the bin is over the payload) and recovers',
    );
    assert.ok((await page.locator('.act-replan').count()) >= 1);
    assert.ok((await page.locator('.act-call[data-status="ok"]').count()) >= 2);
    // The failed call, opened: its arguments, preconditions, postcondition evidence and failure record.
    const f = failed.first();
    assert.equal(await f.getAttribute('aria-expanded'), 'true', 'a failed call opens itself');
    const details = (await f.locator('.act-details').textContent()) ?? '';
    assert.match(details, /Arguments \(schema-checked\)/);
    assert.match(details, /Preconditions/);
    assert.match(details, /Postconditions \(sensor evidence\)/);
    assert.match(details, /Failure record.*weight-limit \(permanent\)/s);
    assert.match((await page.textContent('#act-tool-list')) ?? '', /pick → pick; pre: .*; post: .*holding_target/);
    await app.screenshot('act-warehouse');

    // The audit link opens this run in the audit browser.
    await page.click('#act-audit');
    await page.waitForSelector('#tab-audit[aria-selected="true"]');
    const runs = (await app.api.auditRuns({})).runs;
    assert.equal(runs.length, 1);
    await page.waitForSelector(`#panel-audit li[data-run="${runs[0]!.id}"][aria-selected="true"]`);
    assert.equal(events(app, runs[0]!.id, 'run_end')[0]!['outcome'], 'success');
    await app.screenshot('act-audit-link');

    // A tool folder or plan the console does not offer is refused by the server too.
    await assert.rejects(
      app.api.actRun({ world: 'tabletop', tools: '../../etc', goal: 'true' }),
      (e: Error & { code?: string }) => e.code === 'not-found' && /no tool folder/.test(e.message),
    );
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

test('tool loop in the console: an escalation opens the same dialog (with skip), the decision and its reason are recorded', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await openTab(app);
    await page.selectOption('#act-planner', 'scripted');
    await page.fill('#act-replans', '0');
    await page.click('#act-run');
    await page.waitForSelector('#escalation[open]', { timeout: 120_000 });
    assert.match((await page.textContent('#escalation-message')) ?? '', /permanent failure "weight-limit" of pick/);
    assert.ok(await page.isVisible('#decide-skip'), 'the tool loop offers skip');
    assert.equal(await page.getAttribute('#act-state', 'data-state'), 'escalated');
    await page.fill('#escalation-reason', 'bin overloaded: unload it by hand first');
    await app.screenshot('act-escalation');
    await page.click('#decide-abort');
    await page.waitForSelector('#act-outcome');
    assert.match((await page.textContent('#act-outcome')) ?? '', /^ESCALATED: .*aborted by .*bin overloaded/);
    assert.ok(
      (await page.locator('.act-escalation').count()) === 1 && (await page.locator('.act-decision').count()) === 1,
    );
    const run = (await app.api.auditRuns({})).runs[0]!.id;
    const d = events(app, run, 'operator_decision');
    assert.deepEqual(
      [d[0]!['decision'], d[0]!['reason'], d[0]!['operator']],
      ['abort', 'bin overloaded: unload it by hand first', userInfo().username],
    );
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('tool loop in the console on a ROS 2 robot: Stop cancels the running navigation goal; the run ends stopped; the E-STOP latch refuses a new run', async () => {
  const lab = setup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3], speedup: 1, speed_m_s: 0.5 });
  const app = await openApp({ ros2: g.open.ros2! });
  try {
    const { page } = app;
    const ws = app.workspace;
    mkdirSync(path.join(ws, 'ros2'), { recursive: true });
    mkdirSync(path.join(ws, 'tools', 'lab'), { recursive: true });
    mkdirSync(path.join(ws, 'plans'), { recursive: true });
    copyFileSync(lab.regions, path.join(ws, 'ros2', 'regions.json'));
    writeFileSync(path.join(ws, 'ros2', 'lab-sim.json'), readFileSync(path.join(lab.dir, 'robot.json')));
    for (const t of ['navigate', 'grip'])
      copyFileSync(path.join(ROOT, 'assets', 'ros2', 'tools', `${t}.json`), path.join(ws, 'tools', 'lab', `${t}.json`));
    writeFileSync(
      path.join(ws, 'plans', 'shelf.json'),
      JSON.stringify({
        steps: [
          { tool: 'navigate', args: { x: 7.5, y: 4.5, yaw: 0 } },
          { tool: 'grip', args: { position_m: 0.035 } },
        ],
      }),
    );
    const robot = `ros2:${path.join(ws, 'ros2', 'lab-sim.json')}`;
    await openTab(app);
    await page.waitForSelector(`#act-world option[value="${robot}"]`, { state: 'attached' });
    await page.selectOption('#act-world', robot);
    await page.selectOption('#act-tools', 'tools/lab');
    await page.selectOption('#act-plan', 'plans/shelf.json');
    await page.fill('#act-goal', 'at.shelf && gripper.width_cm > 6.0');
    await page.fill('#act-task', 'open the gripper at the shelf');
    await page.click('#act-run');
    await page.waitForSelector('.act-call[data-tool="navigate"][data-status="running"]', { timeout: 30_000 });
    for (let i = 0; i < 100 && g.goals.length === 0; i++) await page.waitForTimeout(20);
    await page.waitForTimeout(300);
    await app.screenshot('act-robot-running');
    await page.click('#act-stop');
    await page.waitForSelector('#act-outcome', { timeout: 30_000 });
    assert.match(
      (await page.textContent('#act-outcome')) ?? '',
      /^STOPPED: stopped by the operator; the running navigate was cancelled/,
    );
    assert.ok(
      g.fake.log.some((l) => l.startsWith('cancel /navigate_to_pose')),
      g.fake.log.slice(-5).join('\n'),
    );
    assert.ok(Math.hypot(g.position[0] - 7.5, g.position[1] - 4.5) > 1, 'the robot did not get to the shelf');
    const run = (await app.api.auditRuns({})).runs[0]!.id;
    assert.equal(events(app, run, 'run_end')[0]!['outcome'], 'stopped');
    assert.deepEqual(
      events(app, run, 'operator_decision').map((d) => d['decision']),
      ['stop'],
    );
    await app.screenshot('act-robot-stopped');

    // The E-STOP latches for the tool loop too.
    await page.keyboard.press('F9');
    await page.waitForSelector('#estop-latch:not([hidden])');
    assert.ok(await page.isDisabled('#act-run'));
    await assert.rejects(
      app.api.actRun({ world: robot, tools: 'tools/lab', plan: 'plans/shelf.json', goal: 'at.shelf' }),
      (e: Error & { code?: string }) => e.code === 'estop-latched',
    );
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
    g.stop();
  }
});
