import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type AppUnderTest, STUCK, STUCK_AT, openApp } from './harness.js';
import { userInfo } from 'node:os';

async function plan(app: AppUnderTest, o: { spec?: string; steps?: string } = {}): Promise<void> {
  const { page } = app;
  await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'pointmaze-medium');
  if (o.spec !== undefined) await page.fill('#spec', o.spec);
  await page.fill('#start', '4,20');
  await page.fill('#dataset-steps', o.steps ?? '50000');
  await page.click('#plan');
}

test('console: plan a mission, see it on the graph view and the automaton, run it, escalate (the robot stuck on cue) and record the operator’s decision', async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    assert.equal(await page.inputValue('#spec'), 'F e2 & G F e1 & G F e4 & G !e0');
    assert.match(await page.inputValue('#regions'), /"regions"/);
    await plan(app);
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
    assert.match((await page.textContent('#plan-summary')) ?? '', /prefix \d+ waypoints, suffix \d+/);
    assert.ok(Number(await page.getAttribute('#mission-graph', 'data-nodes')) > 50);
    assert.ok(Number(await page.getAttribute('#mission-automaton', 'data-states')) > 0);
    await app.screenshot('console-planned');
    await page.fill('#replans', '0');
    await page.fill('#speed', '0');
    await page.click('#run');
    await page.waitForSelector('#escalation[open]', { timeout: 60_000 });
    assert.equal(await page.textContent('#run-state'), 'escalated');
    assert.match((await page.textContent('#escalation-message')) ?? '', /replanning budget R = 0 exhausted/);
    assert.ok(await page.isDisabled('#decide-abort'), 'a decision needs a reason');
    await page.fill('#escalation-reason', 'robot keeps timing out near c347; inspecting');
    await app.screenshot('console-escalation');
    await page.click('#decide-abort');
    await page.waitForSelector('#escalation', { state: 'hidden' });
    await page.waitForSelector('#mission-log li.failed');
    assert.match(
      (await page.textContent('#mission-log')) ?? '',
      /FAILED \(escalated\).*operator aborted: robot keeps timing out/,
    );
    assert.ok(((await page.getAttribute('#mission-graph', 'data-robot')) ?? '') !== '');
    // The failed, escalated and aborted run is labelled by how it ended, not as finished.
    await page.waitForSelector('#run-state[data-outcome="failed"]');
    assert.equal(await page.textContent('#run-state'), 'failed (escalated)');
    await app.screenshot('console-aborted');
    // The driven trail ends under the robot marker (the maze picture is y-down: a trail drawn y-up
    // would run off the maze).
    const trailAtRobot = await page.evaluate<number>(`(() => {
      const marker = document.querySelector('#mission-graph .gv-robot');
      const canvas = marker.previousElementSibling;
      const m = marker.getBoundingClientRect(), c = canvas.getBoundingClientRect();
      const x = Math.round((m.left + m.right) / 2 - c.left), y = Math.round((m.top + m.bottom) / 2 - c.top);
      const px = canvas.getContext('2d').getImageData(x - 2, y - 2, 5, 5).data;
      let drawn = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && px[i] > px[i + 1]) drawn++;
      return drawn;
    })()`);
    assert.ok(trailAtRobot > 0, 'no trail under the robot marker');
    // A new plan takes the last one off the screen while it builds: nothing drawn belongs to an earlier plan.
    assert.notEqual(await page.getAttribute('#mission-graph', 'data-nodes'), '0');
    await page.fill('#dataset-steps', '1000000');
    await page.click('#plan');
    assert.equal(await page.textContent('#plan-summary'), 'Planning…');
    assert.equal(await page.getAttribute('#mission-graph', 'data-nodes'), '0', 'the earlier plan is not drawn');
    assert.equal(await page.getAttribute('#mission-automaton', 'data-states'), '0');
    await page.waitForSelector('#jobs .job button.cancel');
    await app.screenshot('console-replanning');
    await page.click('#jobs .job button.cancel');
    await page.waitForSelector('#plan-summary:text("No plan.")');
    const db = openAuditReadOnly(app.api.context.auditFile);
    try {
      const d = db.prepare("SELECT body FROM events WHERE kind = 'operator_decision'").all() as { body: string }[];
      assert.equal(d.length, 1);
      // The decision, its reason, who decided, and which escalation it answers (the contract's one shape).
      const body = JSON.parse(d[0]!.body) as Record<string, unknown> & {
        escalation: { n: number; cause: string; label: string; reason: string };
      };
      assert.deepEqual(
        { ...body, escalation: null },
        {
          decision: 'abort',
          reason: 'robot keeps timing out near c347; inspecting',
          operator: userInfo().username,
          escalation: null,
        },
      );
      assert.deepEqual(
        [body.escalation.n, body.escalation.cause, body.escalation.label],
        [1, 'replan-budget', 'tracking-timeout'],
      );
      assert.match(body.escalation.reason, /replanning budget R = 0 exhausted/);
      // The failure is the one the test caused: one record, after the robot stuck, and no replan.
      const failures = db.prepare("SELECT step, failure_label FROM events WHERE kind = 'failure_record'").all() as {
        step: number;
        failure_label: string;
      }[];
      assert.equal(failures.length, 1);
      assert.equal(failures[0]!.failure_label, 'tracking-timeout');
      assert.ok(failures[0]!.step >= STUCK_AT, `failure at step ${failures[0]!.step}, the robot stuck at ${STUCK_AT}`);
      assert.equal((db.prepare("SELECT count(*) AS n FROM events WHERE kind = 'replan'").get() as { n: number }).n, 0);
    } finally {
      db.close();
    }
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('console: pause and resume a run, the E-STOP key stops it, bad input and cancelled planning are reported', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    // A specification and regions saved in the workspace load into the console.
    mkdirSync(path.join(app.workspace, 'specs'), { recursive: true });
    writeFileSync(path.join(app.workspace, 'specs', 'patrol.ltl'), 'G F e1 & G F e4');
    await page.click('#tab-editors');
    await page.click('#tab-mission');
    await page.waitForSelector('#spec-file option[value="specs/patrol.ltl"]', { state: 'attached' });
    await page.selectOption('#spec-file', 'specs/patrol.ltl');
    // (Polled from here: a string predicate would be eval'd in the page, which our CSP refuses.)
    for (let i = 0; i < 100 && (await page.inputValue('#spec')) !== 'G F e1 & G F e4'; i++)
      await page.waitForTimeout(50);
    assert.equal(await page.inputValue('#spec'), 'G F e1 & G F e4');
    // A specification error is shown at the specification, and goes once the specification is edited.
    await plan(app, { spec: 'F (e1 &' });
    await page.waitForSelector('#spec-error:not(:empty)');
    assert.match((await page.textContent('#spec-error')) ?? '', /spec:1:\d+/);
    assert.equal(await page.textContent('#mission-error'), '');
    await app.screenshot('console-spec-error');
    await page.fill('#spec', 'F (e1 & e2)');
    assert.equal(await page.textContent('#spec-error'), '');
    await plan(app, { spec: 'F e2 & G F e1 & G F e4 & G !e0', steps: '1000000' });
    await page.waitForSelector('#jobs .job button.cancel');
    await app.screenshot('console-planning-progress');
    await page.click('#jobs .job button.cancel');
    await page.waitForSelector('#status[data-kind="info"]');
    assert.match((await page.textContent('#status')) ?? '', /cancelled/);
    await plan(app);
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
    await page.fill('#speed', '100');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    // The keyboard operator's focus goes to Pause, not to the page.
    const focused = (): Promise<string | undefined> => page.evaluate<string | undefined>('document.activeElement?.id');
    for (let i = 0; i < 100 && (await focused()) !== 'pause'; i++) await page.waitForTimeout(20);
    assert.equal(await focused(), 'pause');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#run-state[data-state="paused"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#run-state[data-state="running"]');
    await page.click('#pause');
    await page.waitForSelector('#run-state[data-state="paused"]');
    const live = await page.textContent('#run-live');
    // A pause is steps NOT happening. The web server runs in this process and paces the run with timers of this
    // event loop (one per 10 ms at speed 100): once 60 such intervals have passed here, a run that was not held
    // would have sent ticks, however loaded the machine. The server sent none, and the page shows none.
    const sent = (await app.api.missionLive()).mission?.seq;
    for (let i = 0; i < 60; i++) await new Promise((r) => setTimeout(r, 1000 / 100));
    assert.equal((await app.api.missionLive()).mission?.seq, sent, 'no event while paused');
    assert.equal(await page.textContent('#run-live'), live, 'the robot holds while paused');
    await page.click('#pause');
    await page.waitForSelector('#run-state[data-state="running"]');
    await page.click('#spec'); // focus in a text field: the E-STOP key still works
    await page.keyboard.press('F9');
    await page.waitForSelector('#run-state[data-state="estopped"]');
    await page.waitForSelector('#mission-log li.stopped');
    assert.match((await page.textContent('#status')) ?? '', /E-STOP|emergency stop/);
    await app.screenshot('console-estopped');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

test('console: train a model bundle from the UI with progress; it joins the world’s models', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await page.waitForSelector('#models option[value="pointmaze-medium"]', { state: 'attached' });
    await page.click('#train-open');
    await page.fill('#train-name', 'bad name!');
    await page.click('#train-start');
    assert.match((await page.textContent('#train-error')) ?? '', /Name: letters, digits/);
    await page.fill('#train-name', 'tiny');
    await page.fill('#train-dataset-steps', '2000');
    await page.fill('#train-embed-steps', '3');
    await page.fill('#train-policy-steps', '3');
    await page.click('#train-start');
    await page.waitForSelector('#jobs .job');
    await app.screenshot('console-training');
    await page.waitForSelector('#models option[value="workspace/tiny"]', { state: 'attached', timeout: 60_000 });
    assert.equal(await page.inputValue('#models'), 'workspace/tiny');
    assert.match((await page.textContent('#status')) ?? '', /Trained workspace\/tiny/);
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});
