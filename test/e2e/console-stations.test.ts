/**
 * Every window is an operator station: the header's E-STOP button is clicked (the real button, not
 * F9) above every modal dialog of the workbench while a mission runs, and stops it; every window
 * shows the latch, and a reset from another window clears the first window's status; a window
 * opened mid-run joins the run (state, plan, trail, plots, events) and pauses, resumes and stops it;
 * the E-STOP's record names the audit runs it stopped; an audit run's node link opens that run's
 * own scene, not the live mission's graph at a node of the same id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type AppUnderTest, SCREENSHOTS, STUCK, onlyAuditKind, openApp, stepsPast } from './harness.js';

const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

async function plan(page: Page, start = '4,20'): Promise<void> {
  await page.click('#tab-mission');
  await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
  await page.selectOption('#world', 'pointmaze-medium');
  await page.fill('#spec', SPEC);
  await page.fill('#start', start);
  await page.fill('#dataset-steps', '50000');
  await page.click('#plan');
  await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
}

/**
 * Another window of the same workbench: a second tab of the operator's browser (it remembers the
 * last plan), or with `fresh` one that remembers nothing (another operator's browser).
 */
async function secondWindow(app: AppUnderTest, fresh = false): Promise<{ page: Page; errors: string[] }> {
  const page = await app.page.context().newPage();
  if (fresh) await page.addInitScript('localStorage.clear()');
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(app.server.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return { page, errors };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

const state = (page: Page): Promise<string | null> => page.getAttribute('#run-state', 'data-state');

/** Waits until `ok` holds (checked every 100 ms), or fails saying what was awaited. */
async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const numberAt = async (page: Page, selector: string, attr: string): Promise<number> =>
  Number(await page.getAttribute(selector, attr));

/**
 * Starts the planned mission; with `seeRunning` waits until the window shows it running (a run at
 * full speed into a stuck robot may already wait for a decision before one could look).
 */
async function startRun(page: Page, speed: string, replans = '3', seeRunning = true): Promise<void> {
  await page.click('#tab-mission');
  await page.fill('#speed', speed);
  await page.fill('#replans', replans);
  await page.waitForSelector('#run:not([disabled])');
  await page.click('#run');
  if (seeRunning) await page.waitForSelector('#run-state[data-state="running"]', { state: 'attached' });
}

/** The latch shows in the window and the mission there stopped. */
async function latchedIn(page: Page, what: string): Promise<void> {
  await page.waitForSelector('#run-state[data-state="estopped"]', { state: 'attached', timeout: 10_000 });
  await page.waitForSelector('#estop-latch:not([hidden])', { timeout: 10_000 });
  assert.equal(await page.getAttribute('body', 'data-estop'), 'latched', what);
}

async function resetFrom(page: Page, reason: string): Promise<void> {
  await page.click('#estop-reset-open');
  await page.waitForSelector('#estop-reset-dialog[open]');
  await page.check('#estop-ack');
  await page.fill('#estop-reset-reason', reason);
  await page.click('#estop-reset');
  await page.waitForSelector('#estop-latch', { state: 'hidden' });
}

/** The header's E-STOP is what a pointer at its centre hits, above the open dialog and its backdrop. */
async function clickEstop(page: Page, dialog: string): Promise<void> {
  await page.waitForSelector(dialog);
  assert.ok(await page.isVisible('#modal-backdrop'), `${dialog}: the window behind the dialog is dimmed`);
  const hit = await page.evaluate(`(() => {
    const b = document.querySelector('#estop').getBoundingClientRect();
    return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)?.id ?? null;
  })()`);
  assert.equal(hit, 'estop', `${dialog}: the E-STOP is on top`);
  // A real click: it fails if anything intercepts the pointer.
  await page.click('#estop', { timeout: 5000 });
}

interface Dialog {
  name: string;
  /** Opens it (a mission runs meanwhile); resolves to its selector. */
  open(page: Page): Promise<string>;
  /** Closes it, leaving nothing changed. */
  close(page: Page): Promise<void>;
}

const EDITOR_FILE = 'specs/patrol.ltl';
const editorsDialog = 'dialog.editors-dialog[open]';
const cancelEditors = async (page: Page): Promise<void> => {
  await page.click(`${editorsDialog} [data-choice="cancel"]`);
  await page.waitForSelector(editorsDialog, { state: 'detached' });
};
/** The editors with the file open and an unsaved edit in it. */
async function dirtyFile(page: Page): Promise<void> {
  await page.click('#tab-editors');
  await page.click(`.editors-file[data-path="${EDITOR_FILE}"]`);
  await page.waitForSelector(`.editors-tab[data-path="${EDITOR_FILE}"][aria-selected="true"]`);
  await page.waitForSelector('#editors-host .monaco-editor .view-lines');
  if ((await page.locator(`.editors-tab.dirty[data-path="${EDITOR_FILE}"]`).count()) > 0) return;
  await page.click('#editors-host .view-lines');
  await page.keyboard.press('End');
  await page.keyboard.type(' & F e3');
  await page.waitForSelector(`.editors-tab.dirty[data-path="${EDITOR_FILE}"]`);
}

function dialogs(workspace: string): Dialog[] {
  return [
    {
      name: 'editors-new-file',
      open: async (page) => {
        await page.click('#tab-editors');
        await page.click('#editors-new');
        return editorsDialog;
      },
      close: cancelEditors,
    },
    {
      name: 'editors-discard-changes',
      open: async (page) => {
        await dirtyFile(page);
        await page.click('#editors-reload');
        return editorsDialog;
      },
      close: cancelEditors,
    },
    {
      name: 'editors-unsaved-changes',
      open: async (page) => {
        await dirtyFile(page);
        await page.click(`.editors-tab[data-path="${EDITOR_FILE}"] .close`);
        return editorsDialog;
      },
      close: cancelEditors,
    },
    {
      name: 'editors-changed-on-disk',
      open: async (page) => {
        await dirtyFile(page);
        writeFileSync(path.join(workspace, EDITOR_FILE), `G F e4 ${Date.now()}\n`);
        await page.click('#editors-save');
        await page.locator(editorsDialog, { hasText: 'changed on disk' }).waitFor();
        return editorsDialog;
      },
      close: cancelEditors,
    },
    {
      name: 'editors-save-as',
      open: async (page) => {
        await dirtyFile(page);
        writeFileSync(path.join(workspace, EDITOR_FILE), `G F e1 ${Date.now()}\n`);
        await page.click('#editors-save');
        await page.locator(editorsDialog, { hasText: 'changed on disk' }).waitFor();
        await page.click(`${editorsDialog} [data-choice="save-as"]`);
        await page.waitForSelector(`${editorsDialog} input.path-input`);
        return `${editorsDialog}:has(input.path-input)`;
      },
      close: cancelEditors,
    },
    {
      name: 'mission-train-models',
      open: async (page) => {
        await page.click('#tab-mission');
        await page.click('#train-open');
        return '#train[open]';
      },
      close: async (page) => {
        await page.click('#train-close');
        await page.waitForSelector('#train', { state: 'hidden' });
      },
    },
  ];
}

test("the header E-STOP is clicked above every dialog and stops the running mission; every window shows the latch; a reset from another window clears the first window's status", async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    mkdirSync(path.join(app.workspace, 'specs'), { recursive: true });
    writeFileSync(path.join(app.workspace, EDITOR_FILE), 'G F e1 & G F e4');
    await plan(page);
    const other = await secondWindow(app);
    const second = other.page;

    for (const d of dialogs(app.workspace)) {
      // A slow run: the injected fault (the robot stuck at its 150th step) is far away.
      await startRun(page, '10');
      await second.waitForSelector('#run-state[data-state="running"]');
      const dialog = await d.open(page);
      assert.equal(await state(page), 'running', `${d.name}: the mission runs while the dialog is open`);
      await shot(page, `stations-${d.name}-open`);
      await clickEstop(page, dialog);
      await latchedIn(page, d.name);
      await latchedIn(second, `${d.name}, second window`);
      assert.ok(
        await page.isVisible(dialog),
        `${d.name}: the dialog stays as it was (nothing the operator typed is lost)`,
      );
      await page
        .locator('#status', { hasText: /stopped 1 run\(s\); latched until reset/ })
        .waitFor({ timeout: 10_000 });
      await shot(page, `stations-${d.name}-estopped`);
      await d.close(page);
      assert.equal(await page.isVisible('#modal-backdrop'), false, `${d.name}: the backdrop goes with the dialog`);
      // Reset from the other window: the first window's status follows.
      await resetFrom(second, `checked after ${d.name}`);
      await page.waitForSelector('#estop-latch', { state: 'hidden' });
      await page.locator('#status', { hasText: 'E-STOP reset' }).waitFor({ timeout: 5000 });
      assert.doesNotMatch(
        (await page.textContent('#status')) ?? '',
        /latched until reset/,
        `${d.name}: the first window's status follows the reset`,
      );
      assert.equal(await page.getAttribute('body', 'data-estop'), 'clear');
    }

    // The escalation dialog: the mission waits for a decision; the header's E-STOP answers it.
    await startRun(page, '0', '0', false);
    await page.waitForSelector('#escalation[open]', { timeout: 60_000 });
    await second.waitForSelector('#escalation[open]');
    await page.fill('#escalation-reason', 'the robot does not move');
    await shot(page, 'stations-escalation-open');
    await clickEstop(page, '#escalation[open]');
    await latchedIn(page, 'escalation');
    await latchedIn(second, 'escalation, second window');
    await page.waitForSelector('#escalation', { state: 'hidden' });
    await second.waitForSelector('#escalation', { state: 'hidden' });
    await page.locator('#status', { hasText: 'your note is kept in the record' }).waitFor({ timeout: 10_000 });

    // The reset dialog itself: the E-STOP still answers above it (nothing runs: it says so), and the
    // reset done from the dialog is seen by the other window.
    await page.click('#estop-reset-open');
    await clickEstop(page, '#estop-reset-dialog[open]');
    await page.locator('#status', { hasText: 'nothing was running; latched until reset' }).waitFor({ timeout: 5000 });
    await shot(page, 'stations-reset-dialog-estop');
    await page.check('#estop-ack');
    await page.fill('#estop-reset-reason', 'escalation checked');
    await page.click('#estop-reset');
    await second.waitForSelector('#estop-latch', { state: 'hidden' });
    await second.locator('#status', { hasText: 'E-STOP reset' }).waitFor({ timeout: 5000 });

    // A later run: nothing says the E-STOP is latched.
    await startRun(page, '10');
    // The new run has ticked in both windows: whatever they say about the E-STOP, they say it by now.
    await stepsPast(page, -1, 3);
    await stepsPast(second, -1, 3);
    assert.doesNotMatch((await page.textContent('#status')) ?? '', /latched/);
    assert.doesNotMatch((await second.textContent('#status')) ?? '', /latched/);
    await page.click('#stop');
    await page.waitForSelector('#run-state[data-state="stopped"]');

    // Each latch's record names the audit runs it stopped: runs of the audit log, mission runs.
    const db = openAuditReadOnly(app.api.context.auditFile);
    try {
      const runs = db.prepare('SELECT id, world, meta FROM runs ORDER BY started_ms').all() as {
        id: string;
        world: string;
        meta: string;
      }[];
      const missions = new Set(runs.filter((r) => r.world === 'pointmaze-medium').map((r) => r.id));
      const latches = runs.filter((r) => r.world === 'console');
      assert.equal(latches.length, dialogs(app.workspace).length + 1);
      for (const l of latches) {
        const stopped = (JSON.parse(l.meta) as { stopped: string[] }).stopped;
        assert.equal(stopped.length, 1, l.meta);
        assert.ok(missions.has(stopped[0]!), `the latch ${l.id} names ${stopped[0]}, a mission run of the audit log`);
        const reason = (
          JSON.parse(
            (
              db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'operator_decision'").get(l.id) as {
                body: string;
              }
            ).body,
          ) as { reason: string }
        ).reason;
        assert.match(reason, new RegExp(`stopped audit run ${stopped[0]}`));
      }
    } finally {
      db.close();
    }
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(other.errors, []);
  } finally {
    await app.close();
  }
});

test('a window opened mid-run joins it (state, plan, trail, plots, events) and pauses, resumes and stops it; a window open before a run shows it too', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    await plan(page);
    const before = await secondWindow(app);
    await startRun(page, '40');
    await until('20 ticks', async () => (await numberAt(page, '#mission-plots', 'data-received')) > 20);
    const { page: joined, errors } = await secondWindow(app, true);
    // It shows the run as it is: running, its plan, the path so far, the plots, the events.
    await joined.waitForSelector('#run-state[data-state="running"]');
    assert.ok(await joined.isDisabled('#run'), 'Run is disabled while the mission runs');
    assert.ok(await joined.isEnabled('#pause'));
    assert.ok(await joined.isEnabled('#stop'));
    assert.ok(Number(await joined.getAttribute('#mission-graph', 'data-nodes')) > 50, 'the plan is drawn');
    assert.ok(
      Number(await joined.getAttribute('#mission-graph', 'data-trail')) > 10,
      'the path driven before it opened is drawn',
    );
    assert.ok(Number(await joined.getAttribute('#mission-plots', 'data-points')) > 20, 'the plots hold the run so far');
    assert.equal(
      await joined.getAttribute('#mission-graph', 'data-prefix-edges'),
      await page.getAttribute('#mission-graph', 'data-prefix-edges'),
    );
    assert.match(
      (await joined.textContent('#plan-summary')) ?? '',
      /The mission running now.*planned in another window/s,
    );
    const { mission } = await app.api.missionLive();
    assert.ok(mission !== null && mission.auditRun !== null);
    assert.match(
      (await joined.textContent('#mission-log')) ?? '',
      new RegExp(`run started \\(audit run ${mission.auditRun}\\)`),
    );
    assert.match(
      (await page.textContent('#mission-log')) ?? '',
      new RegExp(`run started \\(audit run ${mission.auditRun}\\)`),
    );
    await until('the live line', async () => ((await joined.textContent('#run-live')) ?? '').startsWith('t='));
    await shot(joined, 'stations-joined-mid-run');
    // The window open before the run shows it as well.
    await before.page.waitForSelector('#run-state[data-state="running"]');
    assert.ok(Number(await before.page.getAttribute('#mission-graph', 'data-trail')) > 0);

    // The joined window holds the run: pause, resume, stop — every window follows.
    await joined.click('#pause');
    await page.waitForSelector('#run-state[data-state="paused"]');
    await before.page.waitForSelector('#run-state[data-state="paused"]');
    assert.equal(await joined.textContent('#pause'), 'Resume');
    await shot(page, 'stations-paused-from-another-window');
    await joined.click('#pause');
    await page.waitForSelector('#run-state[data-state="running"]');
    await joined.click('#stop');
    for (const p of [page, joined, before.page]) {
      await p.waitForSelector('#run-state[data-state="stopped"]');
      await p.waitForSelector('#mission-log li.stopped');
    }
    assert.match((await joined.textContent('#mission-log')) ?? '', /STOPPED: stopped by the operator/);
    // The plan is the first window's (and the tab of the same browser remembers it): it can run again.
    // The joined window has no plan of its own: it runs only one it makes.
    assert.ok(await page.isEnabled('#run'));
    assert.ok(await before.page.isEnabled('#run'));
    assert.ok(await joined.isDisabled('#run'), 'the joined window runs only a plan of its own');

    // A second run from the joined-window's neighbour: the E-STOP clicked in the joined window stops it.
    await startRun(page, '40');
    await joined.waitForSelector('#run-state[data-state="running"]');
    await joined.click('#estop');
    await latchedIn(page, 'the first window');
    await latchedIn(joined, 'the joined window');
    await shot(page, 'stations-estop-from-another-window');
    await resetFrom(page, 'test over');
    await joined.waitForSelector('#estop-latch', { state: 'hidden' });
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(before.errors, []);
  } finally {
    await app.close();
  }
});

test("an audit run's node link opens that run's own scene, not the live mission's graph at a node of the same id", async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    await plan(page);
    // The first run records failures that name nodes (the robot held stuck: tracking timeouts).
    await startRun(page, '0', '0', false);
    await page.waitForSelector('#escalation[open]', { timeout: 60_000 });
    await page.fill('#escalation-reason', 'recorded for the audit test');
    await page.click('#decide-abort');
    await page.waitForSelector('#mission-log li.failed');
    const first = {
      auditRun:
        /run started \(audit run ([0-9a-f-]{36})\)/.exec((await page.textContent('#mission-log')) ?? '')?.[1] ?? '',
    };
    assert.notEqual(first.auditRun, '', 'the run is recorded');
    // Another mission from another start: the live graph now is its own, over the same latent clusters.
    await plan(page, '4,19');
    await startRun(page, '40');

    await page.click('#tab-audit');
    await page.waitForSelector(`#audit-runs li[data-run="${first.auditRun}"]`);
    await page.click(`#audit-runs li[data-run="${first.auditRun}"]`);
    await page.waitForSelector('#audit-f-kinds input[value="failure_record"]');
    await onlyAuditKind(page, 'failure_record');
    await page.locator('#audit-count', { hasText: /^\d+ events?$/ }).waitFor();
    await page.click('#audit-table .ev-row:not([hidden])[data-kind="failure_record"]');
    await page.waitForSelector('#audit-detail[data-kind="failure_record"] .node-link');
    const node = (await page.locator('#audit-detail .node-link').first().getAttribute('data-node'))!;
    const liveIds = await page.evaluate<string[]>(
      `globalThis.__witnessTest.mission.graph.scene().nodes.map((n) => n.id)`,
    );
    assert.ok(liveIds.includes(node), `the live mission's graph has a node ${node} too`);
    const replay = await app.api.auditReplay({ run: first.auditRun });
    await page.locator('#audit-detail .node-link').first().click();
    await page.waitForSelector(`#graph-view[data-selected="${node}"]`);
    assert.equal(
      await page.getAttribute('#graph-view', 'data-source'),
      'other',
      "the audited run's scene, not the live mission's",
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-nodes'), String(replay.scene.nodes.length));
    assert.notEqual(replay.scene.nodes.length, liveIds.length);
    assert.match(
      (await page.textContent('#graph-status')) ?? '',
      new RegExp(`audit run ${first.auditRun.slice(0, 8)} \\(from the audit log\\)`),
    );
    assert.equal(await page.isChecked('#graph-follow'), false, 'following the live mission would replace it');
    await shot(page, 'stations-audit-node-own-scene');
    // A node the replay does not place (the log records where the robot went, not where nodes are):
    // the audit detail's link says it cannot show it, rather than show the live graph's node of that id.
    const unplaced = liveIds.find((id) => /^c\d+$/.test(id) && !replay.scene.nodes.some((n) => n.id === id))!;
    assert.ok(unplaced !== undefined);
    await page.evaluate(
      `globalThis.__witnessTest.graph.post(${JSON.stringify({ kind: 'focus-node', id: unplaced, scene: { scene: replay.scene, plan: replay.plans[0]?.plan ?? null, automaton: replay.automaton }, auditRun: first.auditRun })})`,
    );
    await page
      .locator('#graph-error', {
        hasText: `${unplaced} cannot be shown in audit run ${first.auditRun.slice(0, 8)}'s scene`,
      })
      .waitFor({ timeout: 5000 });
    assert.equal(await page.getAttribute('#graph-view', 'data-source'), 'other');
    assert.equal(await page.getAttribute('#graph-view', 'data-selected'), node, 'nothing else is selected');
    await shot(page, 'stations-audit-node-not-placed');
    await page.click('#tab-mission');
    await page.click('#stop');
    await page.waitForSelector('#run-state[data-state="stopped"]');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(
      app.pageErrors.filter((e) => !/favicon/.test(e)),
      [],
    );
  } finally {
    await app.close();
  }
});
