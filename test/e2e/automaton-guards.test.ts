/**
 * Issue 17 item 10, the automaton's guards readable, in Chromium: for automata of the shipped
 * specifications (the README's, two Dwyer-style response patterns, the patrol and avoid-until specs
 * of assets/specs, a sequence whose every state loops), in the Graph tab (at two window sizes) and
 * in the mission console, no edge label overlaps another or a state, every label is inside the
 * picture at a readable size, and it says its guard — on the edge, or as a number that the
 * transitions list under the picture explains. Screenshots of each picture are saved for a person.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { Core } from 'cytoscape';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SCREENSHOTS, openApp } from './harness.js';
import type { AutomatonView, GraphScene } from '../../main/contract/api.js';

const SPECS: readonly { name: string; spec: string }[] = [
  { name: 'readme', spec: 'F e2 & G F e1 & G F e4 & G !e0' },
  { name: 'response', spec: 'G(e1 -> F e2) & G F e3 & G !e0' },
  { name: 'two-responses', spec: 'G(e1 -> F e2) & G(e3 -> F e4) & G !e0' },
  { name: 'patrol', spec: 'G F (e1 & F (e2 & F e3))' },
  { name: 'avoid-until', spec: 'G !e6 & (!e4 U (e1 | e2)) & F e4 & G (F e3 & F e5)' },
  { name: 'sequence', spec: 'F(e1 & F(e2 & F(e3 & F e4)))' },
  // assets/specs/case-study.ltl: 29 states, 301 edges — too many for labels of any readable size.
  { name: 'case-study', spec: 'G (F (e1 & F (e2 & F e3))) & F (e4 & F (e5 & F e6)) & (!e5 U e7)' },
];

/** Guards on the edges are at least this big on the screen (CSS px), numbers at least NUMBERS_PX. */
const GUARDS_PX = 9;
const NUMBERS_PX = 8;

interface Box {
  id: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
interface Drawn {
  mode: 'guards' | 'numbers' | 'list';
  labels: Box[];
  states: Box[];
  area: Box;
  fontPx: number;
  texts: Record<string, string>;
  list: { edge: string; text: string; visible: boolean }[];
}
interface AutomatonHook {
  cy: Core;
  setAutomaton(a: AutomatonView | null): void;
  labelBoxes(): Pick<Drawn, 'mode' | 'labels' | 'states' | 'area' | 'fontPx'>;
}
type Pane = 'graph' | 'mission';
const ROOT: Record<Pane, string> = { graph: '#automaton-view', mission: '#mission-automaton' };

/** What the pane's automaton view draws: its handle's boxes, each edge's label text and the transitions list. */
async function drawn(page: Page, pane: Pane): Promise<Drawn> {
  return page.evaluate(
    ({ pane, root }) => {
      const a = (globalThis as unknown as { __witnessTest: Record<string, { automaton: AutomatonHook }> })
        .__witnessTest[pane]!.automaton;
      const texts: Record<string, string> = {};
      a.cy.edges('.transition').forEach((e) => {
        texts[e.id()] = String(e.style('label'));
      });
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(s: string): ArrayLike<{
              dataset: Record<string, string>;
              textContent: string;
              getBoundingClientRect(): { width: number; height: number };
            }>;
          };
        }
      ).document;
      const list = Array.from(doc.querySelectorAll(`${root} .av-list li`)).map((li) => {
        const r = li.getBoundingClientRect();
        return { edge: li.dataset.edge ?? '', text: li.textContent, visible: r.width > 20 && r.height > 5 };
      });
      return { ...a.labelBoxes(), texts, list };
    },
    { pane, root: ROOT[pane] },
  );
}

const overlap = (a: Box, b: Box): boolean => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
const inside = (a: Box, area: Box): boolean => a.x1 >= area.x1 && a.x2 <= area.x2 && a.y1 >= area.y1 && a.y2 <= area.y2;

/** Everything wrong with a drawing of `a`, as sentences (none when the guards are readable). */
function problems(d: Drawn, a: AutomatonView): string[] {
  const out: string[] = [];
  const labelled = d.mode === 'list' ? 0 : a.edges.length;
  if (d.labels.length !== labelled)
    out.push(`${d.labels.length} labels for ${a.edges.length} edges with ${d.mode} on them`);
  d.labels.forEach((l, i) => {
    for (const m of d.labels.slice(i + 1)) if (overlap(l, m)) out.push(`label ${l.id} overlaps label ${m.id}`);
    for (const s of d.states) if (overlap(l, s)) out.push(`label ${l.id} overlaps state ${s.id}`);
    if (!inside(l, d.area)) out.push(`label ${l.id} is outside the picture`);
  });
  const min = d.mode === 'guards' ? GUARDS_PX : d.mode === 'numbers' ? NUMBERS_PX : 0;
  if (d.fontPx < min) out.push(`${d.mode} drawn ${d.fontPx.toFixed(1)} px high, under ${min} px`);
  // Each guard can be read: on its edge (a disjunction stacked a term a line), or by its number in the list.
  a.edges.forEach((e, k) => {
    const id = `t${k}`;
    const want = d.mode === 'guards' ? e.guard.split(' | ').join(' |\n') : d.mode === 'numbers' ? String(k + 1) : '';
    if (d.texts[id] !== want) out.push(`edge ${id} says ${JSON.stringify(d.texts[id])}, not ${JSON.stringify(want)}`);
    const item = d.list.find((li) => li.edge === id);
    if (item?.text !== `${k + 1}q${e.from} → q${e.to}${e.guard}`)
      out.push(`the list says ${JSON.stringify(item?.text)} for ${id}`);
    // Shown under the picture unless the guards are on the edges (then only in the page, for search and screen
    // readers).
    if (k === 0 && item !== undefined && item.visible !== (d.mode !== 'guards'))
      out.push(`the list is ${item.visible ? 'shown' : 'hidden'} with ${d.mode} on the edges`);
  });
  return out;
}

const scene: GraphScene = {
  world: 'guards',
  picture: null,
  bounds: { minX: 0, minY: 0, maxX: 1, maxY: 1 },
  propositions: [],
  nodes: [
    { id: 'a', x: 0, y: 0, kind: 'labelled', labels: [], soft: {}, support: 0 },
    { id: 'b', x: 1, y: 1, kind: 'labelled', labels: [], soft: {}, support: 0 },
  ],
  edges: [[0, 1, 1]],
};

async function show(page: Page, pane: Pane, a: AutomatonView): Promise<Locator> {
  if (pane === 'graph') {
    // As the mission console sends it to the Graph tab.
    await page.evaluate(
      (m) =>
        (globalThis as unknown as { __witnessTest: { graph: { post(m: unknown): void } } }).__witnessTest.graph.post(m),
      { kind: 'scene', scene, plan: null, automaton: a },
    );
  } else {
    await page.evaluate(
      (x) =>
        (
          globalThis as unknown as { __witnessTest: { mission: { automaton: AutomatonHook } } }
        ).__witnessTest.mission.automaton.setAutomaton(x),
      a,
    );
  }
  const root = page.locator(`${ROOT[pane]}[data-states="${a.states.length}"][data-labels]`);
  await root.waitFor();
  assert.equal(await root.getAttribute('data-formula'), a.formula);
  return root;
}

test('automaton guards: every edge label clear of the others and of the states, readable, and saying its guard', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    const automata = await Promise.all(
      SPECS.map(async (s) => ({ ...s, a: await app.api.automatonView({ spec: s.spec }) })),
    );
    mkdirSync(SCREENSHOTS, { recursive: true });
    const found: string[] = [];
    const modes: string[] = [];
    const check = async (pane: Pane, size: string): Promise<void> => {
      for (const { name, a } of automata) {
        const root = await show(page, pane, a);
        const d = await drawn(page, pane);
        modes.push(
          `${pane} ${size} ${name}: ${a.states.length} states, ${a.edges.length} edges, ${d.mode} at ${d.fontPx.toFixed(1)} px`,
        );
        found.push(...problems(d, a).map((p) => `${pane} ${size} ${name}: ${p}`));
        await root.screenshot({ path: path.join(SCREENSHOTS, `automaton-guards-${pane}-${size}-${name}.png`) });
        if (name === 'patrol') await app.screenshot(`automaton-guards-${pane}-${size}`);
      }
    };
    await page.click('#tab-graph');
    await check('graph', '1440');
    await page.click('#tab-mission');
    await check('mission', '1440');
    // A smaller window: the Graph tab's picture is smaller and laid out again.
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.click('#tab-graph');
    await check('graph', '1024');
    console.log(modes.join('\n'));
    // A list item and its edge light up together while the pointer is on the item.
    const numbered = automata.find((x) => x.name === 'two-responses')!.a;
    await show(page, 'graph', numbered);
    const lit = (): Promise<boolean> =>
      page.evaluate(() =>
        (
          globalThis as unknown as { __witnessTest: { graph: { automaton: AutomatonHook } } }
        ).__witnessTest.graph.automaton.cy
          .getElementById('t2')
          .hasClass('lit'),
      );
    await page.hover('#automaton-view .av-list li[data-edge="t2"]');
    assert.equal(await lit(), true);
    assert.match((await page.getAttribute('#automaton-view .av-list li[data-edge="t2"]', 'class')) ?? '', /\blit\b/);
    await page.mouse.move(5, 5);
    assert.equal(await lit(), false);
    assert.deepEqual(found, []);
    // The README's automaton has room for its guards on the edges, a larger one for numbers, the case study for the
    // list alone.
    assert.ok(
      modes.some((m) => /^graph 1440 readme: .* guards at/.test(m)),
      modes.join('\n'),
    );
    assert.ok(
      modes.some((m) => /^graph 1440 two-responses: .* numbers at/.test(m)),
      modes.join('\n'),
    );
    assert.ok(
      modes.some((m) => /^mission 1440 case-study: .* list at/.test(m)),
      modes.join('\n'),
    );
    assert.deepEqual(
      app.pageErrors.filter((e) => !/favicon/.test(e)),
      [],
    );
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});
