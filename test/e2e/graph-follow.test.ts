/**
 * Issue 17 items 4, 5 and 8 in Chromium: a second plan over other regions draws (and a plan that
 * cannot be drawn is neither kept nor runnable), the robot's trail lies in the maze's own frame in
 * every view that draws it, and the Graph tab follows a running mission and finds nodes by id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { type AppUnderTest, STUCK, onlyAuditKind, openApp } from './harness.js';
import type { ApiEvent, MissionEvent } from '../../main/contract/api.js';
import { MAZES, cellAt, isFree, mazeBounds } from '../../main/core/world/maze.js';

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

interface MissionHook {
  graph: {
    cy: { edges(s: string): { length: number }; nodes(s: string): { length: number } };
    setPlan(p: unknown): void;
  };
}

test('graph follow: a second plan over other regions draws; a plan that cannot be drawn is reported, not kept and not runnable', async () => {
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
    assert.deepEqual(
      app.pageErrors.filter((e) => !/favicon/.test(e)),
      [],
    );

    // A drawing failure: reported, the views cleared, the plan not kept, Run disabled, Plan usable again.
    await page.evaluate(() => {
      const g = (globalThis as unknown as { __witnessTest: { mission: MissionHook } }).__witnessTest.mission.graph;
      g.setPlan = () => {
        throw new Error('injected drawing failure');
      };
    });
    await plan(app);
    assert.equal(await planSettled(page), 'No plan.');
    assert.match(
      (await page.textContent('#mission-error')) ?? '',
      /the plan could not be drawn, so it was not kept and cannot be run: injected drawing failure/,
    );
    assert.ok(await page.isDisabled('#run'), 'a plan that is not drawn cannot be run');
    assert.ok(await page.isEnabled('#plan'));
    assert.equal(await page.getAttribute('#mission-graph', 'data-nodes'), '0');
    await app.screenshot('graph-follow-draw-failure');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

/**
 * Runs the planned mission with R = 0 until it escalates (a tracking timeout: the app opened with STUCK), as the
 * console test does.
 */
async function runToEscalation(app: AppUnderTest): Promise<void> {
  const { page } = app;
  await page.fill('#replans', '0');
  await page.fill('#speed', '0');
  await page.click('#run');
  await page.waitForSelector('#escalation[open]', { timeout: 90_000 });
}

async function abortAndWaitEnd(app: AppUnderTest, reason: string): Promise<void> {
  const { page } = app;
  await page.fill('#escalation-reason', reason);
  await page.click('#decide-abort');
  await page.waitForSelector('#mission-log li.failed', { timeout: 60_000 });
}

/** The mission.end event of the app's bus (the whole driven path). */
function endOf(app: AppUnderTest): Promise<Extract<MissionEvent, { topic: 'mission.end' }>> {
  return new Promise((resolve) => {
    const off = app.api.context.bus.subscribe((e: ApiEvent) => {
      if (e.topic === 'mission.end') {
        off();
        resolve(e);
      }
    });
  });
}

const MAZE = MAZES.medium;
const BOUNDS = mazeBounds(MAZE);

/**
 * Where a view draws the trail, checked against the maze picture under it: for each world point,
 * the screen point that the picture's own frame gives it (x right, rows down from the picture's
 * top-left corner) must have trail-coloured pixels within 2 px on the view's trail canvas. Returns
 * the fraction of points that do, and the picture's box.
 */
async function trailOnPicture(page: Page, root: string, points: [number, number][]): Promise<{ hit: number }> {
  // (A string, as console.test.ts does: this file is compiled without the DOM's types.) The overlay
  // draws at the next animation frame (overlays.ts): its pixels are read two frames on.
  return page.evaluate<{
    hit: number;
  }>(`((root, points, b) => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok((() => {
    const view = document.querySelector(root);
    const pic = view.querySelector('.gv-picture').getBoundingClientRect();
    const canvas = view.querySelector('.gv-over canvas');
    const c = canvas.getBoundingClientRect();
    const ctx = canvas.getContext('2d');
    let hit = 0;
    for (const [x, y] of points) {
      const sx = pic.left + ((x - b.minX) / (b.maxX - b.minX)) * pic.width;
      const sy = pic.top + ((y - b.minY) / (b.maxY - b.minY)) * pic.height;
      const px = ctx.getImageData(Math.round(sx - c.left) - 2, Math.round(sy - c.top) - 2, 5, 5).data;
      let red = false;
      for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && px[i] > 120 && px[i] > px[i + 1] + 60) red = true;
      if (red) hit++;
    }
    return { hit: hit / Math.max(1, points.length) };
  })())))))(${JSON.stringify(root)}, ${JSON.stringify(points)}, ${JSON.stringify(BOUNDS)})`);
}

/** Where the robot marker of a view sits, as a world point read through the picture's frame. */
async function markerInMaze(page: Page, root: string): Promise<[number, number]> {
  return page.evaluate<[number, number]>(`((root, b) => {
    const view = document.querySelector(root);
    const pic = view.querySelector('.gv-picture').getBoundingClientRect();
    const m = view.querySelector('.gv-robot').getBoundingClientRect();
    const cx = (m.left + m.right) / 2, cy = (m.top + m.bottom) / 2;
    return [b.minX + ((cx - pic.left) / pic.width) * (b.maxX - b.minX), b.minY + ((cy - pic.top) / pic.height) * (b.maxY - b.minY)];
  })(${JSON.stringify(root)}, ${JSON.stringify(BOUNDS)})`);
}

/** Every k-th point of a path, in free cells of the maze (the positions are the maze's own). */
function sample(path: [number, number][], n: number): [number, number][] {
  const k = Math.max(1, Math.floor(path.length / n));
  const out = path.filter((_, i) => i % k === 0);
  for (const [x, y] of out) {
    const c = cellAt(MAZE, x, y);
    assert.ok(c !== null && isFree(MAZE, c.i, c.j), `(${x}, ${y}) is not in a free cell of the maze`);
  }
  return out;
}

test('graph follow: the trail and the robot lie in the maze’s own frame in the console, the Graph tab and the audit replay', async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    await plan(app);
    assert.match(await planSettled(page), /Plan found/);
    const ended = endOf(app);
    await runToEscalation(app);
    await abortAndWaitEnd(app, 'trail check');
    const end = await ended;
    const path: [number, number][] = [];
    for (let i = 0; i + 1 < end.trajectory.length; i += 2) path.push([end.trajectory[i]!, end.trajectory[i + 1]!]);
    assert.ok(path.length > 20, `a driven path of ${path.length} points`);
    const pts = sample(path, 60);
    const last = path[path.length - 1]!;

    // The console's own view, once it has drawn the whole driven path.
    await page.waitForSelector(`#mission-graph[data-trail="${path.length}"]`, { state: 'attached' });
    const live = await trailOnPicture(page, '#mission-graph', pts);
    assert.ok(live.hit >= 0.95, `console: ${Math.round(live.hit * 100)}% of the path drawn where the maze has it`);
    const mk = await markerInMaze(page, '#mission-graph');
    assert.ok(
      Math.hypot(mk[0] - last[0], mk[1] - last[1]) < 0.3,
      `console marker at ${mk.join(', ')}, robot at ${last.join(', ')}`,
    );

    // The Graph tab, following the mission.
    await page.click('#tab-graph');
    await page.waitForSelector('#graph-view[data-source="console"]');
    await page.waitForSelector(`#graph-view[data-trail="${path.length}"]`, { state: 'attached' });
    const tab = await trailOnPicture(page, '#graph-view', pts);
    assert.ok(tab.hit >= 0.95, `Graph tab: ${Math.round(tab.hit * 100)}% of the path drawn where the maze has it`);
    const mk2 = await markerInMaze(page, '#graph-view');
    assert.ok(
      Math.hypot(mk2[0] - last[0], mk2[1] - last[1]) < 0.3,
      `Graph tab marker at ${mk2.join(', ')}, robot at ${last.join(', ')}`,
    );
    await app.screenshot('graph-follow-trail-graph-tab');

    // The audit replay, scrubbed to the end of the run: its recorded positions, the same frame.
    await page.click('#tab-audit');
    await page.waitForSelector('#audit-runs li');
    await page.click('#audit-runs li');
    await page.waitForSelector('#audit-replay[data-axis="step"]', { state: 'attached' });
    const runId = await page.getAttribute('#audit-runs li.selected', 'data-run');
    const replay = await app.api.auditReplay({ run: runId! });
    const recorded: [number, number][] = replay.positions.x.map((x, i) => [x, replay.positions.y[i]!]);
    await page.evaluate(`(() => {
      const r = document.querySelector('#audit-scrub');
      r.value = r.max;
      r.dispatchEvent(new Event('input'));
    })()`);
    await page.waitForSelector(`#audit-graph[data-trail="${recorded.length}"]`, { state: 'attached' });
    assert.ok(recorded.length > 5, `${recorded.length} recorded positions`);
    const audit = await trailOnPicture(page, '#audit-graph', sample(recorded, 60));
    assert.ok(
      audit.hit >= 0.95,
      `audit replay: ${Math.round(audit.hit * 100)}% of the recorded path drawn where the maze has it`,
    );
    const rl = recorded[recorded.length - 1]!;
    const mk3 = await markerInMaze(page, '#audit-graph');
    assert.ok(
      Math.hypot(mk3[0] - rl[0], mk3[1] - rl[1]) < 0.3,
      `audit marker at ${mk3.join(', ')}, robot at ${rl.join(', ')}`,
    );
    await app.screenshot('graph-follow-trail-audit');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});

/** A node's place on the page and the graph view's box, read through the graph panel's hook. */
async function nodeOnScreen(
  page: Page,
  id: string,
): Promise<{
  node: { x: number; y: number } | null;
  box: { left: number; top: number; width: number; height: number };
}> {
  return page.evaluate<{
    node: { x: number; y: number } | null;
    box: { left: number; top: number; width: number; height: number };
  }>(`((id) => {
    const g = globalThis.__witnessTest.graph.view;
    const b = document.querySelector('#graph-view').getBoundingClientRect();
    return { node: g.screenOf(id), box: { left: b.left, top: b.top, width: b.width, height: b.height } };
  })(${JSON.stringify(id)})`);
}

/** The whole world picture lies inside the Graph tab's view, and fills it in one direction (fit to view). */
async function pictureInView(page: Page): Promise<void> {
  // A resize of the panel (a status line that wraps, a button shown, the status bar below) refits the
  // view in the ResizeObserver's callback, at a later rendering step than the resize itself: the
  // fit is read once the frames have settled — within a second, or the view never refitted.
  const read = (): Promise<{
    p: { l: number; t: number; r: number; b: number };
    v: { l: number; t: number; r: number; b: number };
  }> =>
    page.evaluate(`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const p = document.querySelector('#graph-view .gv-picture').getBoundingClientRect();
    const v = document.querySelector('#graph-view').getBoundingClientRect();
    ok({ p: { l: p.left, t: p.top, r: p.right, b: p.bottom }, v: { l: v.left, t: v.top, r: v.right, b: v.bottom } });
  })))`);
  const inside = (x: Awaited<ReturnType<typeof read>>): boolean =>
    x.p.l >= x.v.l - 1 && x.p.t >= x.v.t - 1 && x.p.r <= x.v.r + 1 && x.p.b <= x.v.b + 1;
  let r = await read();
  for (let tries = 0; !inside(r) && tries < 20; tries++) {
    await page.waitForTimeout(50);
    r = await read();
  }
  const { p, v } = r;
  assert.ok(inside(r), `picture ${JSON.stringify(p)} not inside the view ${JSON.stringify(v)}`);
  assert.ok(
    p.r - p.l > 0.8 * (v.r - v.l) || p.b - p.t > 0.8 * (v.b - v.t),
    `picture ${JSON.stringify(p)} does not fill the view ${JSON.stringify(v)}`,
  );
}

test('graph follow: the Graph tab follows a running mission, opens its latent and product graphs, fits, names nodes on zoom, finds them by id, and failure records link to them', async () => {
  const app = await openApp({ faults: [STUCK] });
  try {
    const { page } = app;
    await page.click('#tab-graph');
    assert.equal(await page.isDisabled('#graph-mission-view'), true, 'nothing planned yet');
    await page.click('#tab-mission');
    await plan(app);
    assert.match(await planSettled(page), /Plan found/);

    // Planned: the Graph tab shows the console's scene and plan.
    await page.click('#tab-graph');
    await page.waitForSelector('#graph-view[data-source="console"]');
    assert.equal(
      await page.getAttribute('#graph-view', 'data-nodes'),
      await page.getAttribute('#mission-graph', 'data-nodes'),
    );
    assert.equal(
      await page.getAttribute('#graph-view', 'data-suffix-edges'),
      await page.getAttribute('#mission-graph', 'data-suffix-edges'),
    );
    assert.match(
      (await page.textContent('#graph-status')) ?? '',
      /^from the mission console · pointmaze-medium: 441 nodes/,
    );
    assert.equal(await page.textContent('#graph-follow-status'), 'mission planned, not running');
    assert.equal(await page.getAttribute('#graph-view', 'data-names'), 'hidden', 'no names at the fitted zoom');

    // Running: the robot, its trail and the monitor's states follow on the Graph tab too.
    await page.click('#tab-mission');
    await runToEscalation(app);
    const consoleActive = await page.getAttribute('#mission-automaton', 'data-active');
    // (The escalation dialog is modal: the Graph tab is read, not clicked, until a node link is.)
    assert.notEqual(await page.getAttribute('#graph-view', 'data-robot'), '');
    assert.ok(Number(await page.getAttribute('#graph-view', 'data-trail')) > 0);
    assert.equal(await page.getAttribute('#automaton-view', 'data-active'), consoleActive);
    assert.match(
      (await page.textContent('#graph-follow-status')) ?? '',
      /^t=\d+ · robot \(\d+\.\d\d, \d+\.\d\d\) · monitor \{[\d, ]+\}/,
    );

    // The escalation names nodes: one click shows the node on the Graph tab, centred and named.
    await page.waitForSelector('#escalation[open] .node-link');
    const links = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#escalation-failures .node-link')].map((b) => b.getAttribute('data-node'))`,
    );
    assert.ok(links.length >= 2, `node links in the failure record: ${links.join(', ')}`);
    // Every link is a node of the mission's graph (nothing else in the text looks like one).
    const sceneIds = new Set(
      await page.evaluate<string[]>(`globalThis.__witnessTest.mission.graph.scene().nodes.map((n) => n.id)`),
    );
    assert.deepEqual(
      links.filter((id) => !sceneIds.has(id)),
      [],
      `failure records: ${await page.textContent('#escalation-failures')}`,
    );
    const target = links[links.length - 1]!;
    await page.click(`#escalation-failures .node-link[data-node="${target}"]`);
    await page.waitForSelector('#panel-graph:not([hidden])');
    await page.waitForSelector(`#graph-view[data-selected="${target}"]`);
    assert.equal(await page.getAttribute('#graph-view', 'data-names'), 'shown', 'zoomed in far enough to read names');
    const at = await nodeOnScreen(page, target);
    assert.ok(
      at.node !== null &&
        Math.abs(at.node.x - (at.box.left + at.box.width / 2)) < 3 &&
        Math.abs(at.node.y - (at.box.top + at.box.height / 2)) < 3,
      JSON.stringify(at),
    );
    assert.match((await page.textContent('#graph-detail')) ?? '', new RegExp(target));
    assert.equal(await page.isVisible('#graph-back'), true);
    await app.screenshot('graph-follow-node-from-escalation');
    // Back to the decision, which is still pending; then abort.
    await page.click('#graph-back');
    await page.waitForSelector('#escalation[open]');
    await abortAndWaitEnd(app, `inspected ${target} on the graph`);
    await page.click('#tab-graph');
    assert.match((await page.textContent('#graph-follow-status')) ?? '', / · ended$/);
    assert.equal(
      await page.getAttribute('#graph-view', 'data-trail'),
      await page.getAttribute('#mission-graph', 'data-trail'),
    );

    // Fit-to-view: the whole maze again, names hidden.
    await page.click('#graph-fit');
    assert.equal(await page.getAttribute('#graph-view', 'data-names'), 'hidden');
    await pictureInView(page);

    // The event log names nodes too.
    await page.click('#tab-mission');
    const logLink = page.locator('#mission-log .node-link').first();
    const logNode = await logLink.getAttribute('data-node');
    await logLink.click();
    await page.waitForSelector(`#graph-view[data-selected="${logNode}"]`);
    assert.equal(await page.isVisible('#graph-back'), false);

    // The latent graph: the clusters alone, the robot still in the same frame.
    await page.selectOption('#graph-mission-view', 'latent');
    await page.waitForSelector('#graph-view[data-source="latent"]');
    const clusters = await page.evaluate<number>(
      `globalThis.__witnessTest.mission.graph.scene().nodes.filter((n) => n.kind === 'cluster').length`,
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-nodes'), String(clusters));
    assert.match((await page.textContent('#graph-status')) ?? '', /latent graph: \d+ cluster nodes/);
    assert.notEqual(await page.getAttribute('#graph-view', 'data-robot'), '');
    await app.screenshot('graph-follow-latent');

    // The product graph: a copy of the maze per automaton state; a node id finds its product states.
    await page.selectOption('#graph-mission-view', 'product');
    await page.waitForSelector('#graph-view[data-source="product"]', { timeout: 30_000 });
    assert.ok(Number(await page.getAttribute('#graph-view', 'data-nodes')) > 441);
    assert.equal(await page.getAttribute('#graph-view', 'data-picture'), 'shown');
    assert.ok(Number(await page.getAttribute('#graph-view', 'data-suffix-edges')) > 0);
    assert.equal(await page.getAttribute('#graph-view', 'data-robot'), '', 'no single robot place in the product');
    await pictureInView(page);
    await app.screenshot('graph-follow-product');
    await page.fill('#graph-search', target);
    await page.press('#graph-search', 'Enter');
    await page.waitForSelector(`#graph-view[data-selected^="${target}@q"]`);
    const found = await page.inputValue('#graph-search');
    assert.match(found, new RegExp(`^${target}@q\\d+$`));
    assert.match(
      (await page.textContent('#graph-detail')) ?? '',
      /prefix step|suffix step/,
      `${found} is a product state on the plan`,
    );
    await app.screenshot('graph-follow-product-found');
    // Bad input: an id that is not there, and nothing typed.
    await page.fill('#graph-search', 'c99999');
    await page.click('#graph-find');
    assert.match(
      (await page.textContent('#graph-error')) ?? '',
      /^Find: no node "c99999" in this graph \(\d+ nodes; ids such as /,
    );
    assert.equal(await page.getAttribute('#graph-search', 'aria-invalid'), 'true');
    await page.fill('#graph-search', '');
    await page.click('#graph-find');
    assert.match((await page.textContent('#graph-error')) ?? '', /^Find: type a node id/);

    // Back to the live mission view: from the menu, or by ticking Follow again.
    await page.selectOption('#graph-mission-view', 'console');
    await page.waitForSelector('#graph-view[data-source="console"]');
    await page.selectOption('#graph-mission-view', 'latent');
    await page.waitForSelector('#graph-view[data-source="latent"]');
    await page.uncheck('#graph-follow');
    await page.check('#graph-follow');
    await page.waitForSelector('#graph-view[data-source="console"]');

    // The audit detail of the failure record links its nodes to the Graph tab.
    await page.click('#tab-audit');
    await page.waitForSelector('#audit-runs li');
    await page.click('#audit-runs li');
    await page.waitForSelector('#audit-f-kinds input[value="failure_record"]');
    await onlyAuditKind(page, 'failure_record');
    await page.locator('#audit-count', { hasText: /^1 event$/ }).waitFor();
    await page.click('#audit-table .ev-row:not([hidden])[data-kind="failure_record"]');
    await page.waitForSelector('#audit-detail[data-kind="failure_record"] .node-link');
    const auditNode = await page.locator('#audit-detail .node-link').first().getAttribute('data-node');
    await page.locator('#audit-detail .node-link').first().click();
    await page.waitForSelector(`#graph-view[data-selected="${auditNode}"]`);
    await app.screenshot('graph-follow-node-from-audit');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(
      app.pageErrors.filter((e) => !/favicon/.test(e)),
      [],
    );
  } finally {
    await app.close();
  }
});
