import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Core } from 'cytoscape';
import { openApp } from './harness.js';
import { gridGraph } from '../fixtures/graphs/grid.js';
import type { AutomatonView, GraphScene, PlanView } from '../../main/contract/api.js';

/** The mission console's messages to the graph panel (renderer/src/app.ts LocalMessage). */
type ConsoleMessage =
  | { kind: 'scene'; scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null }
  | { kind: 'robot'; x: number; y: number; states: number[] };

const SPEC = 'G F a & G F b & G !c';
const PREFIX_RGB = 'rgb(31,111,235)';
const SUFFIX_RGB = 'rgb(217,72,15)';

/** Consecutive distinct pairs, the overlay edges the view draws for a plan. */
function overlayCounts(p: PlanView): { prefix: number; suffix: number } {
  const steps = (ids: readonly string[], from: string | undefined): number => {
    let prev = from,
      k = 0;
    for (const id of ids) {
      if (prev !== undefined && prev !== id) k++;
      prev = id;
    }
    return k;
  };
  return { prefix: steps(p.prefix, undefined), suffix: steps(p.suffix, p.prefix[p.prefix.length - 1]) };
}

/** What the graph panel exposes as window.__witnessTest.graph (renderer/src/graph/panel.ts). */
interface Hook {
  view: {
    cy: Core;
    setScene(s: GraphScene | null): void;
    setRobot(p: { x: number; y: number } | null): void;
    setTrail(points: [number, number][]): void;
    robotPoint(): { x: number; y: number } | null;
    screenOf(id: string): { x: number; y: number } | null;
    pictureBox(): { left: number; right: number; top: number; bottom: number } | null;
  };
  automaton: { cy: Core; setActive(states: number[]): void };
  post(m: ConsoleMessage): void;
}

/** Evaluates `fn` in the page with the graph panel's views as `g` (no eval: the page's CSP forbids it). */
async function inPage<A, R>(page: Page, fn: (g: Hook, arg: A) => R | Promise<R>, arg: A): Promise<R> {
  const hook = await page.evaluateHandle(
    () => (globalThis as unknown as { __witnessTest: { graph: Hook } }).__witnessTest.graph,
  );
  try {
    return await hook.evaluate(fn as (g: Hook, arg: unknown) => R | Promise<R>, arg as unknown);
  } finally {
    await hook.dispose();
  }
}

/** A CSS colour as rgb(r,g,b): Cytoscape reports mapped colours as rgba(…, 1). */
const norm = (c: string): string => {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*1)?\)$/.exec(c.trim());
  return m ? `rgb(${m[1]},${m[2]},${m[3]})` : c;
};

test('graph view: a 3000-node graph, its plan in two colours, node detail, heat map, automaton, robot, picture', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    // What the page printed while loading (the shell's missing favicon) is not this panel's.
    const loadErrors = app.pageErrors.length;
    mkdirSync(path.join(app.workspace, 'graphs'), { recursive: true });
    writeFileSync(path.join(app.workspace, 'graphs', 'grid-3000.json'), JSON.stringify(gridGraph()));
    await page.click('#tab-graph');

    // Open the graph without a spec: 3000 nodes drawn, no plan.
    await page.fill('#graph-path', 'graphs/grid-3000.json');
    await page.click('#graph-open');
    await page.waitForSelector('#graph-view[data-nodes="3000"][data-frame-ms]');
    const setScene = {
      ms: Number(await page.getAttribute('#graph-view', 'data-scene-ms')),
      frame_ms: Number(await page.getAttribute('#graph-view', 'data-frame-ms')),
    };
    const bare = (await app.api.sceneFromGraph({ path: 'graphs/grid-3000.json' })).scene;
    const counts = {
      nodes: await inPage(page, (g) => g.view.cy.nodes('.scene').length, null),
      edges: Number(await page.getAttribute('#graph-view', 'data-edges')),
    };
    assert.deepEqual(counts, { nodes: 3000, edges: bare.edges.length });
    assert.ok(counts.edges > 5800, String(counts.edges));
    assert.match((await page.textContent('#graph-status')) ?? '', /3000 nodes/);
    const legend = await page.locator('#graph-legend [data-legend]').all();
    assert.deepEqual(await Promise.all(legend.map((l) => l.getAttribute('data-legend'))), [
      'a',
      'b',
      'c',
      'd',
      'start',
      'prefix',
      'suffix',
      'robot',
    ]);
    // Labelled nodes take their proposition's legend colour; plain ones do not.
    const swatch = ((await page.getAttribute('#graph-legend [data-legend="a"] .gp-swatch', 'style')) ?? '').replace(
      /\s+/g,
      '',
    );
    const inA = `n${bare.nodes.findIndex((n) => n.labels.includes('a'))}`;
    const nodeColours = await inPage(
      page,
      (g, id) => [
        g.view.cy.getElementById(id).style('background-color') as string,
        g.view.cy.getElementById('n0').style('background-color') as string,
      ],
      inA,
    );
    assert.equal(`background:${norm(nodeColours[0]!)};`, swatch);
    assert.notEqual(norm(nodeColours[1]!), norm(nodeColours[0]!));
    await app.screenshot('graph-3000');

    // Plan a spec: prefix and suffix drawn as overlay edges in the app's two plan colours.
    await page.fill('#graph-spec', SPEC);
    await page.click('#graph-open');
    await page.waitForSelector('#graph-view[data-prefix-edges]:not([data-prefix-edges="0"])');
    const expected = await app.api.sceneFromGraph({ path: 'graphs/grid-3000.json', spec: SPEC });
    assert.ok(expected.plan?.status === 'ok' && expected.automaton !== null);
    const want = overlayCounts(expected.plan);
    const drawn = await inPage(
      page,
      (g) => {
        const cy = g.view.cy;
        return {
          prefix: cy.edges('.plan-prefix').length,
          suffix: cy.edges('.plan-suffix').length,
          prefixColours: [...new Set(cy.edges('.plan-prefix').map((e) => e.style('line-color') as string))],
          suffixColours: [...new Set(cy.edges('.plan-suffix').map((e) => e.style('line-color') as string))],
        };
      },
      null,
    );
    assert.deepEqual({ prefix: drawn.prefix, suffix: drawn.suffix }, want);
    assert.ok(want.prefix > 10 && want.suffix > 10);
    assert.deepEqual(drawn.prefixColours.map(norm), [PREFIX_RGB]);
    assert.deepEqual(drawn.suffixColours.map(norm), [SUFFIX_RGB]);
    assert.equal(await page.getAttribute('#graph-view', 'data-suffix-edges'), String(want.suffix));
    assert.match((await page.textContent('#graph-status')) ?? '', /plan: prefix \d+ steps/);
    await app.screenshot('graph-plan');

    // The automaton: every state drawn, accepting ones double-circled, the initial set highlighted.
    const a = expected.automaton;
    assert.equal(await page.getAttribute('#automaton-view', 'data-states'), String(a.states.length));
    const initial = a.states
      .filter((s) => s.initial)
      .map((s) => s.id)
      .join(',');
    assert.equal(await page.getAttribute('#automaton-view', 'data-active'), initial);
    const auto = await inPage(
      page,
      (g) => ({
        states: g.automaton.cy.nodes('.state').length,
        double: g.automaton.cy.nodes('.accepting').map((n) => n.style('border-style') as string),
        guards: g.automaton.cy
          .edges()
          .not('.entry')
          .map((e) => e.data('guard') as string),
      }),
      null,
    );
    assert.equal(auto.states, a.states.length);
    assert.ok(auto.double.length > 0 && auto.double.every((s) => s === 'double'));
    assert.deepEqual(
      auto.guards,
      a.edges.map((e) => e.guard),
    );

    // Click a suffix node in region a (zoomed in on it): the detail pane shows its labels and product states.
    const target = expected.plan.suffix.find((id) =>
      expected.scene.nodes.find((n) => n.id === id)?.labels.includes('a'),
    )!;
    const states = [
      ...new Set(
        expected.plan.prefix
          .flatMap((id, i) => (id === target ? [expected.plan!.prefixStates[i]!] : []))
          .concat(expected.plan.suffix.flatMap((id, i) => (id === target ? [expected.plan!.suffixStates[i]!] : []))),
      ),
    ].sort((x, y) => x - y);
    const at = await inPage(
      page,
      (g, { id, element }) => {
        const node = g.view.cy.getElementById(element);
        g.view.cy.zoom({ level: 3, position: node.position() });
        g.view.cy.center(node);
        return g.view.screenOf(id);
      },
      { id: target, element: `n${expected.scene.nodes.findIndex((n) => n.id === target)}` },
    );
    assert.ok(at !== null);
    // Let Cytoscape replace its zoom texture with a sharp frame before clicking and the screenshot.
    await page.waitForTimeout(400);
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector(`#graph-detail[data-node="${target}"]`);
    assert.match((await page.textContent('#graph-detail [data-field="labels"]')) ?? '', /^a$/);
    assert.equal(
      await page.textContent('#graph-detail [data-field="product"]'),
      states.map((q) => `(${target}, q${q})`).join('  '),
    );
    assert.match((await page.textContent('#graph-detail [data-field="steps"]')) ?? '', /suffix step \d+ → q\d+/);
    assert.equal(await page.textContent('#graph-detail [data-field="kind"]'), 'labelled');
    assert.equal(
      await page.getAttribute('#automaton-view', 'data-active'),
      states.join(','),
      "the node's product states are highlighted",
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-selected'), target);
    await app.screenshot('graph-node-detail');

    // Heat map: nodes in region a hot, others cold.
    const outside = `n${expected.scene.nodes.findIndex((n) => n.labels.length === 0)}`;
    const inside = `n${expected.scene.nodes.findIndex((n) => n.id === target)}`;
    const colour = (id: string): Promise<string> =>
      inPage(page, (g, i) => g.view.cy.getElementById(i).style('background-color') as string, id);
    const before = await colour(outside);
    await page.selectOption('#graph-heat', 'a');
    assert.equal(await page.getAttribute('#graph-view', 'data-heat'), 'a');
    assert.equal(norm(await colour(inside)), 'rgb(179,0,0)');
    assert.equal(norm(await colour(outside)), 'rgb(230,225,238)');
    assert.notEqual(norm(before), 'rgb(230,225,238)');
    await inPage(
      page,
      (g) => {
        g.view.cy.fit(undefined, 20);
      },
      null,
    );
    await app.screenshot('graph-heat');
    await page.selectOption('#graph-heat', '');
    assert.equal(norm(await colour(outside)), norm(before));

    // The monitor's current set through the handle, and the robot marker with its trail.
    await inPage(page, (g) => g.automaton.setActive([1]), null);
    assert.equal(await page.getAttribute('#automaton-view', 'data-active'), '1');
    assert.equal(
      norm(await inPage(page, (g) => g.automaton.cy.getElementById('q1').style('background-color') as string, null)),
      'rgb(255,212,59)',
    );
    const robot = await inPage(
      page,
      (g) => {
        g.view.setTrail([
          [6, 2],
          [6.5, 2.5],
          [7, 3],
          [7.2, 4],
        ]);
        g.view.setRobot({ x: 7.2, y: 4 });
        return { marker: g.view.robotPoint(), node: g.view.screenOf('n36_20') };
      },
      null,
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-robot'), '7.200,4.000');
    assert.equal(await page.getAttribute('#graph-view', 'data-trail'), '4');
    // The marker sits on the node at the same world point (7.2, 4.0).
    assert.ok(robot.marker !== null && robot.node !== null);
    assert.ok(Math.hypot(robot.marker.x - robot.node.x, robot.marker.y - robot.node.y) < 1.5, JSON.stringify(robot));
    await app.screenshot('graph-robot');

    // Figures: setScene(3000) and 100 setRobot updates, timed in the page and printed (not asserted: timings
    // belong in benchmarks; this log line is where they are read).
    const figures = await inPage(
      page,
      async (g) => {
        const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): number };
        const frame = (): Promise<void> => new Promise((r) => w.requestAnimationFrame(() => r()));
        let t = performance.now();
        for (let k = 0; k < 100; k++) g.view.setRobot({ x: 1 + k * 0.05, y: 1 + k * 0.03 });
        const robot100_ms = performance.now() - t;
        t = performance.now();
        for (let k = 0; k < 100; k++) {
          g.view.setRobot({ x: 6 - k * 0.05, y: 1 + k * 0.03 });
          await frame();
        }
        const robot100Frames_ms = performance.now() - t;
        return { setScene_ms: 0, robot100_ms, robot100Frames_ms };
      },
      null,
    );
    figures.setScene_ms = setScene.ms;
    console.log(
      `graph view figures (3000 nodes, ${counts.edges} edges, headless Chromium, software rendering): ` +
        `setScene ${setScene.ms.toFixed(0)} ms (to the second frame ${setScene.frame_ms.toFixed(0)} ms); ` +
        `100× setRobot ${figures.robot100_ms.toFixed(1)} ms back to back, ${figures.robot100Frames_ms.toFixed(0)} ms with a frame drawn after each ` +
        `(${(figures.robot100Frames_ms / 100).toFixed(1)} ms per update)`,
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-robot'), '1.050,3.970');
    const moved = await inPage(page, (g) => g.view.robotPoint(), null);
    assert.ok(
      moved !== null && Math.hypot(moved.x - robot.marker.x, moved.y - robot.marker.y) > 10,
      'the marker moved',
    );

    // A world picture under the nodes: its corners land on the nodes at the viewBox's corners.
    const picture: GraphScene = {
      world: 'picture test',
      bounds: { minX: -0.5, minY: -0.5, maxX: 4.5, maxY: 2.5 },
      propositions: ['r'],
      picture:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2"><rect width="4" height="2" fill="#e7f5ff"/><rect x="3" y="1" width="1" height="1" fill="#4e79a7" fill-opacity="0.4"/></svg>',
      nodes: [
        [0, 0],
        [4, 0],
        [4, 2],
        [0, 2],
        [3.5, 1.5],
      ].map(([x, y], i) => ({
        id: `p${i}`,
        x: x!,
        y: y!,
        kind: 'labelled' as const,
        labels: i === 4 ? ['r'] : [],
        soft: {},
        support: 0,
      })),
      edges: [
        [0, 1, 1],
        [1, 2, 1],
        [2, 3, 1],
        [3, 0, 1],
      ],
      start: 'p0',
    };
    // It comes the way the mission console sends it: a scene message, then the robot's position
    // with the monitor's state set.
    const small: AutomatonView = {
      formula: 'F r',
      states: [
        { id: 0, initial: true, accepting: false },
        { id: 1, initial: false, accepting: true },
      ],
      edges: [
        { from: 0, to: 0, guard: '!r' },
        { from: 0, to: 1, guard: 'r' },
        { from: 1, to: 1, guard: 'true' },
      ],
    };
    const smallPlan: PlanView = {
      status: 'ok',
      prefix: ['p0', 'p1', 'p4'],
      suffix: ['p4'],
      prefixStates: [0, 0, 1],
      suffixStates: [1],
    };
    await inPage(page, (g, m: ConsoleMessage) => g.post(m), {
      kind: 'scene',
      scene: picture,
      plan: smallPlan,
      automaton: small,
    });
    await page.waitForSelector('#graph-view[data-nodes="5"]');
    assert.match((await page.textContent('#graph-status')) ?? '', /^from the mission console · picture test: 5 nodes/);
    // Its steps counted as the Mission tab counts them: the prefix's moves from the start node (p0 → p1 → p4).
    assert.match((await page.textContent('#graph-status')) ?? '', / · plan: prefix 2 steps, suffix 1 step$/);
    await inPage(page, (g, m: ConsoleMessage) => g.post(m), { kind: 'robot', x: 3.5, y: 1.5, states: [1] });
    assert.equal(await page.getAttribute('#graph-view', 'data-robot'), '3.500,1.500');
    assert.equal(await page.getAttribute('#automaton-view', 'data-active'), '1');
    await page.waitForSelector('#graph-view[data-picture="shown"]');
    const align = await inPage(
      page,
      async (g) => {
        // Laid out and drawn: two animation frames after the robot message (not a sleep).
        const frame = (): Promise<unknown> =>
          new Promise((r) =>
            (
              globalThis as unknown as { requestAnimationFrame: (f: (t: number) => void) => number }
            ).requestAnimationFrame(r),
          );
        await frame();
        await frame();
        const box = g.view.pictureBox()!;
        const rp = (id: string): { x: number; y: number } => g.view.screenOf(id)!;
        return {
          box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
          origin: rp('p0'),
          far: rp('p2'),
          robot: g.view.robotPoint(),
          r: rp('p4'),
        };
      },
      null,
    );
    assert.equal(await page.getAttribute('#graph-view', 'data-picture'), 'shown');
    // World (0, 0) is the picture's bottom-left on screen (y up), world (4, 2) its top-right.
    assert.ok(
      Math.abs(align.box.left - align.origin.x) < 2 && Math.abs(align.box.bottom - align.origin.y) < 2,
      JSON.stringify(align),
    );
    assert.ok(
      Math.abs(align.box.right - align.far.x) < 2 && Math.abs(align.box.top - align.far.y) < 2,
      JSON.stringify(align),
    );
    assert.ok(
      align.robot !== null && Math.hypot(align.robot.x - align.r.x, align.robot.y - align.r.y) < 1.5,
      JSON.stringify(align),
    );
    await app.screenshot('graph-picture');

    // Failures are shown where they belong: a spec error with its position, a forbidden path.
    await page.fill('#graph-spec', 'G F (a &');
    await page.click('#graph-open');
    await page.waitForSelector('#graph-error:not([hidden])');
    assert.match((await page.textContent('#graph-error')) ?? '', /line 1, column \d+/);
    assert.equal(await page.getAttribute('#graph-spec', 'aria-invalid'), 'true');
    await app.screenshot('graph-error');
    await page.fill('#graph-spec', '');
    await page.fill('#graph-path', '../outside.json');
    await page.click('#graph-open');
    await page.locator('#graph-error', { hasText: /outside\.json/ }).waitFor();
    assert.match((await page.textContent('#graph-error')) ?? '', /may not contain '\.\.'/);
    assert.equal(await page.getAttribute('#graph-view', 'data-nodes'), '5', 'the scene shown stays');

    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(app.pageErrors.slice(loadErrors), []);
  } finally {
    await app.close();
  }
});
