/**
 * The console's safety journeys: the E-STOP latches until an acknowledged,
 * recorded reset and shows on every tab; its key is F9, and Esc (which closes the editor's popups)
 * never stops a robot; a plan is bound to its inputs and a stale plan cannot run; an operator's stop
 * is recorded as stopped; the reason typed in the escalation dialog survives an E-STOP.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { userInfo } from 'node:os';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type AppUnderTest, STUCK, liveStep, openApp, stepsPast } from './harness.js';

const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

async function plan(app: AppUnderTest): Promise<void> {
  const { page } = app;
  await page.click('#tab-mission');
  await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'pointmaze-medium');
  await page.fill('#spec', SPEC);
  await page.fill('#start', '4,20');
  await page.fill('#dataset-steps', '50000');
  await page.click('#plan');
  await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
}

interface Row {
  run_id: string;
  kind: string;
  body: string;
}

function auditRows(app: AppUnderTest): { runs: { id: string; world: string; operator: string }[]; events: Row[] } {
  const db = openAuditReadOnly(app.api.context.auditFile);
  try {
    return {
      runs: db.prepare('SELECT id, world, operator FROM runs ORDER BY started_ms').all() as {
        id: string;
        world: string;
        operator: string;
      }[],
      events: db.prepare('SELECT run_id, kind, body FROM events ORDER BY seq').all() as Row[],
    };
  } finally {
    db.close();
  }
}

const bodies = (rows: Row[], run: string, kind: string): Record<string, unknown>[] =>
  rows.filter((r) => r.run_id === run && r.kind === kind).map((r) => JSON.parse(r.body) as Record<string, unknown>);

test('console safety: Esc in an editor popup leaves the robot moving, F9 stops it and latches on every tab until an acknowledged reset, all recorded', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    mkdirSync(path.join(app.workspace, 'specs'), { recursive: true });
    writeFileSync(path.join(app.workspace, 'specs', 'patrol.ltl'), 'G F e1 & G F e4');
    await plan(app);
    await page.fill('#speed', '40');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');

    // In the editor, Esc closes the completion popup — and only that.
    await page.click('#tab-editors');
    await page.click('.editors-file[data-path="specs/patrol.ltl"]');
    await page.waitForSelector('#editors-host .monaco-editor .view-lines');
    await page.click('#editors-host .view-lines');
    await page.keyboard.press('End');
    await page.keyboard.type(' & F e');
    await page.keyboard.press('Control+Space');
    await page.waitForSelector('.suggest-widget.visible .monaco-list-row');
    await page.keyboard.press('Escape');
    await page
      .waitForSelector('.suggest-widget.visible', { state: 'detached', timeout: 5000 })
      .catch(() => page.waitForSelector('.suggest-widget.visible', { state: 'hidden' }));
    // The robot goes on after Esc (steps past the one on screen), and the mission still runs.
    await stepsPast(page, await liveStep(page), 2);
    assert.equal(await page.getAttribute('#run-state', 'data-state'), 'running', 'Esc must not stop the mission');
    assert.deepEqual(await app.api.estopState(), { latched: false });
    assert.match((await page.getAttribute('#estop', 'title')) ?? '', /F9/);
    assert.match((await page.textContent('#estop')) ?? '', /F9/);

    // F9 with the focus in the editor stops it, and the latch shows on every tab.
    await page.keyboard.press('F9');
    await page.waitForSelector('#run-state[data-state="estopped"]', { state: 'attached' });
    await page.waitForSelector('#estop-latch:not([hidden])');
    assert.match(
      (await page.textContent('#estop-latch')) ?? '',
      new RegExp(`E-STOP LATCHED since .* by ${userInfo().username}`),
    );
    await app.screenshot('safety-latched-editors');
    for (const tab of ['graph', 'audit', 'mission']) {
      await page.click(`#tab-${tab}`);
      assert.ok(await page.isVisible('#estop-latch'), `the latch shows on the ${tab} tab`);
    }
    await page.waitForSelector('#mission-log li.stopped');
    assert.match((await page.textContent('#mission-log')) ?? '', /STOPPED: emergency stop by the operator/);
    assert.ok(await page.isDisabled('#run'), 'nothing runs while latched');
    assert.match((await page.getAttribute('#run', 'title')) ?? '', /E-STOP is latched/);
    await app.screenshot('safety-latched-mission');

    // The server refuses too, whoever asks.
    const planned = await app.api.missionPlan({
      job: 'api-plan',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: await page.inputValue('#regions'),
      start: [4, 20],
      datasetSteps: 50000,
    });
    await assert.rejects(
      app.api.missionRun({ session: planned.session }),
      (e: Error & { code?: string }) => e.code === 'estop-latched' && /emergency stop is latched/.test(e.message),
    );

    // A reload (or another window) shows the latch: it lives in the workbench, not in the page.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#estop-latch:not([hidden])');

    // The reset needs the acknowledgement and a reason.
    await page.click('#estop-reset-open');
    await page.waitForSelector('#estop-reset-dialog[open]');
    assert.ok(await page.isDisabled('#estop-reset'));
    await page.check('#estop-ack');
    assert.ok(await page.isDisabled('#estop-reset'), 'a reason is required');
    // A reason that shows nothing (zero-width characters) or too little is not one.
    await page.fill('#estop-reset-reason', '\u200b\u200b\u200b\u200b');
    assert.ok(await page.isDisabled('#estop-reset'), 'zero-width characters are no reason');
    assert.match((await page.textContent('#estop-reset-error')) ?? '', /is empty/);
    await page.fill('#estop-reset-reason', 'ok');
    assert.ok(await page.isDisabled('#estop-reset'));
    assert.match((await page.textContent('#estop-reset-error')) ?? '', /says too little/);
    await page.fill('#estop-reset-reason', 'walked the maze: robot parked, nobody near it');
    assert.equal(await page.textContent('#estop-reset-error'), '');
    assert.ok(await page.isEnabled('#estop-reset'));
    await app.screenshot('safety-reset-dialog');
    await page.click('#estop-reset');
    await page.waitForSelector('#estop-latch', { state: 'hidden' });
    assert.deepEqual(await app.api.estopState(), { latched: false });
    assert.equal(await page.getAttribute('body', 'data-estop'), 'clear');

    const { runs, events } = auditRows(app);
    const latch = runs.find((r) => r.world === 'console');
    assert.ok(latch !== undefined, 'the latch has its own run in the audit log');
    const decisions = bodies(events, latch.id, 'operator_decision');
    assert.deepEqual(
      decisions.map((d) => d['decision']),
      ['estop', 'estop-reset'],
    );
    assert.match(String(decisions[0]!['reason']), /emergency stop by the operator \(stopped /);
    assert.deepEqual(
      { ...decisions[1] },
      {
        decision: 'estop-reset',
        reason: 'walked the maze: robot parked, nobody near it',
        operator: userInfo().username,
      },
    );
    assert.equal(bodies(events, latch.id, 'run_end')[0]!['outcome'], 'reset');
    const mission = runs.find((r) => r.world === 'pointmaze-medium')!;
    assert.equal(bodies(events, mission.id, 'run_end')[0]!['outcome'], 'stopped', 'an E-STOP is a stop, not a failure');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

test('console safety: a plan is bound to its inputs (editing any marks it stale and disables Run), a stop is recorded as stopped, and the escalation reason survives an E-STOP', async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    mkdirSync(path.join(app.workspace, 'specs'), { recursive: true });
    writeFileSync(path.join(app.workspace, 'specs', 'other.ltl'), 'G F e1 & G F e3');
    await plan(app);
    assert.ok(await page.isEnabled('#run'));
    assert.ok(await page.isHidden('#plan-stale'));

    await page.fill('#spec', `${SPEC} & F e3`);
    await page.waitForSelector('#plan-stale:not([hidden])');
    assert.match((await page.textContent('#plan-stale')) ?? '', /spec changed since it was made/);
    assert.ok(await page.isDisabled('#run'));
    await app.screenshot('safety-stale-plan');
    await page.fill('#spec', SPEC); // back to the inputs of the plan on the screen
    await page.waitForSelector('#plan-stale', { state: 'hidden' });
    assert.ok(await page.isEnabled('#run'));
    await page.fill('#start', '4,19');
    assert.match((await page.textContent('#plan-stale')) ?? '', /start changed/);
    await page.fill('#start', '4,20');
    await page.selectOption('#method', 'lf-gas');
    assert.match((await page.textContent('#plan-stale')) ?? '', /method changed/);
    await page.selectOption('#method', 'sagas');
    assert.ok(await page.isEnabled('#run'));

    // "Use in mission" from the editors changes the specification: stale as well.
    await page.click('#tab-editors');
    await page.click('.editors-file[data-path="specs/other.ltl"]');
    await page.waitForSelector('#editors-host .monaco-editor .view-lines');
    await page.click('#editors-use');
    await page.waitForSelector('#tab-mission[aria-selected="true"]');
    assert.equal(await page.inputValue('#spec'), 'G F e1 & G F e3');
    assert.match((await page.textContent('#plan-stale')) ?? '', /spec changed/);
    assert.ok(await page.isDisabled('#run'));
    await page.fill('#spec', SPEC);
    assert.ok(await page.isEnabled('#run'));

    // Stop is a stop, not a failure: in the console and in the record.
    await page.fill('#speed', '40');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    await page.click('#stop');
    await page.waitForSelector('#mission-log li.stopped');
    assert.equal(await page.getAttribute('#run-state', 'data-state'), 'stopped');
    assert.equal(await page.locator('#mission-log li.failed').count(), 0);
    assert.doesNotMatch((await page.textContent('#status')) ?? '', /failed/);

    // An escalation: the reason typed, then the E-STOP: the reason is kept.
    await page.fill('#replans', '0');
    await page.fill('#speed', '0');
    await page.click('#run');
    await page.waitForSelector('#escalation[open]', { timeout: 60_000 });
    assert.ok(await page.isVisible('#escalation-estop'), 'the modal dialog carries its own E-STOP');
    await page.fill('#escalation-reason', 'robot drifting toward e0, stopping it');
    await page.keyboard.press('F9');
    await page.waitForSelector('#escalation', { state: 'hidden' });
    await page.waitForSelector('#run-state[data-state="estopped"]');
    await page.waitForSelector('#estop-latch:not([hidden])');
    await page.waitForSelector('#mission-log li.stopped');
    assert.match(
      (await page.textContent('#mission-log')) ?? '',
      /STOPPED: emergency stop by the operator — operator's note: robot drifting toward e0, stopping it, while the mission waited for a decision/,
    );
    assert.match((await page.textContent('#status')) ?? '', /your note is kept/);
    await app.screenshot('safety-estop-during-escalation');

    const { runs, events } = auditRows(app);
    const missions = runs.filter((r) => r.world === 'pointmaze-medium');
    assert.equal(missions.length, 2);
    assert.equal(bodies(events, missions[0]!.id, 'run_end')[0]!['outcome'], 'stopped');
    assert.equal(bodies(events, missions[1]!.id, 'run_end')[0]!['outcome'], 'stopped');
    assert.deepEqual(
      bodies(events, missions[0]!.id, 'operator_decision').map((d) => [d['decision'], d['reason']]),
      [['stop', 'stopped by the operator']],
    );
    // The escalation came from the fault the test injected: one tracking timeout of the robot held in place.
    assert.deepEqual(
      bodies(events, missions[1]!.id, 'failure_record').map((f) => f['kind']),
      ['tracking-timeout'],
    );
    const second = bodies(events, missions[1]!.id, 'operator_decision');
    assert.ok(
      second.some(
        (d) =>
          d['decision'] === 'estop' &&
          /operator's note: robot drifting toward e0, stopping it/.test(String(d['reason'])),
      ),
      JSON.stringify(second),
    );
    const latch = runs.find((r) => r.world === 'console')!;
    assert.match(
      String(bodies(events, latch.id, 'operator_decision')[0]!['reason']),
      /operator's note: robot drifting toward e0/,
    );
    await app.api.estopReset({ acknowledged: true, reason: 'test over' });
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('console layout: the fields and the last plan survive a reload (and the plan stays bound to its inputs); the status line is per tab and clears when it no longer applies', async () => {
  // Opened with STUCK so that the run below escalates deterministically (a tracking timeout with R = 0),
  // rather than relying on the executor happening to fail.
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    await plan(app);
    const summary = (await page.textContent('#plan-summary')) ?? '';
    await page.fill('#replans', '0');
    await page.dispatchEvent('#replans', 'change');
    await page.fill('#speed', '0');
    await page.dispatchEvent('#speed', 'change');
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#plan-restored');
    assert.equal(await page.inputValue('#spec'), SPEC);
    assert.equal(await page.inputValue('#start'), '4,20');
    assert.equal(await page.inputValue('#dataset-steps'), '50000');
    assert.equal(await page.inputValue('#replans'), '0');
    assert.match(
      (await page.textContent('#plan-summary')) ?? '',
      new RegExp(summary.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    );
    assert.ok(Number(await page.getAttribute('#mission-graph', 'data-nodes')) > 50, 'the plan is drawn again');
    assert.ok(await page.isEnabled('#run'), 'the restored plan is bound to the restored inputs');
    await page.fill('#start', '4,19');
    assert.ok(await page.isDisabled('#run'), 'and goes stale like any plan');
    await page.fill('#start', '4,20');
    await app.screenshot('layout-restored-after-reload');

    // The mission's line stays with the mission tab.
    await page.click('#run');
    await page.waitForSelector('#escalation[open]', { timeout: 60_000 });
    await page.fill('#escalation-reason', 'checking the status line');
    await page.click('#decide-abort');
    await page.waitForSelector('#status[data-kind="error"]');
    assert.match((await page.textContent('#status')) ?? '', /^Mission failed/);
    await page.click('#tab-editors');
    assert.equal((await page.textContent('#status')) ?? '', '', 'the editors have nothing to say');
    await page.click('#tab-mission');
    assert.match((await page.textContent('#status')) ?? '', /^Mission failed/);
    await page.click('#plan');
    assert.equal((await page.textContent('#status')) ?? '', '', "a new plan: the old run's line no longer applies");
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('console safety: a workbench started again after it stopped while latched comes up latched, and says so on every tab', async () => {
  const first = await openApp();
  const workspace = first.workspace,
    auditFile = path.join(path.dirname(workspace), 'audit.sqlite');
  try {
    await first.page.keyboard.press('F9');
    await first.page.waitForSelector('#estop-latch:not([hidden])');
  } finally {
    await first.close();
  }
  const app = await openApp({ workspace, auditFile });
  try {
    const { page } = app;
    await page.waitForSelector('#estop-latch:not([hidden])');
    assert.match((await page.textContent('#estop-latch')) ?? '', /still latched when the workbench started/);
    for (const tab of ['#tab-mission', '#tab-act', '#tab-graph', '#tab-editors', '#tab-audit']) {
      await page.click(tab);
      assert.ok(await page.isVisible('#estop-latch'), `the latch shows on ${tab}`);
    }
    await page.click('#tab-mission');
    await page.click('#estop-reset-open');
    await page.waitForSelector('#estop-reset-dialog[open]');
    assert.match(
      (await page.textContent('#estop-reset-what')) ?? '',
      /stopped while it was latched, and starts latched/,
    );
    await app.screenshot('safety-restored-latch');
    await page.check('#estop-ack');
    await page.fill('#estop-reset-reason', 'restarted after the latch: robot checked');
    await page.click('#estop-reset');
    await page.waitForSelector('#estop-latch', { state: 'hidden' });
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});
