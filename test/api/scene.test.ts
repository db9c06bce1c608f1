import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { WitnessError, errorReport } from '../../main/contract/errors.js';
import type { ApiError } from '../../main/contract/api.js';
import { gridGraph } from '../fixtures/graphs/grid.js';

function workspace(files: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-scene-'));
  const ws = path.join(dir, 'ws');
  mkdirSync(path.join(ws, 'graphs'), { recursive: true });
  for (const [name, value] of Object.entries(files))
    writeFileSync(path.join(ws, name), typeof value === 'string' ? value : JSON.stringify(value));
  return ws;
}

/** The ApiError a call rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof WitnessError, String(e));
    return errorReport(e);
  }
  assert.fail('expected the call to fail');
}

const SMALL = {
  name: 'corridor',
  nodes: [
    { id: 's', pos: [0, 0] },
    { id: 'a', labels: ['a'], pos: [1, 0] },
    { id: 'b', labels: ['b'], pos: [2, 0.5] },
  ],
  edges: [
    { from: 's', to: 'a', weight: 2 },
    { from: 'a', to: 'b', weight: 3 },
  ],
  start: 's',
};

test('sceneFromGraph: a graph file as a scene with its own positions, no plan without a spec', async () => {
  const api = createDirectApi({ workspace: workspace({ 'small.json': SMALL }) });
  const r = await api.sceneFromGraph({ path: 'small.json' });
  assert.equal(r.plan, null);
  assert.equal(r.automaton, null);
  assert.equal(r.scene.world, 'corridor');
  assert.equal(r.scene.start, 's');
  assert.deepEqual(r.scene.propositions, ['a', 'b']);
  assert.deepEqual(
    r.scene.nodes.map((n) => [n.id, n.x, n.y, n.labels]),
    [
      ['s', 0, 0, []],
      ['a', 1, 0, ['a']],
      ['b', 2, 0.5, ['b']],
    ],
  );
  assert.deepEqual(r.scene.edges, [
    [0, 1, 2],
    [1, 2, 3],
  ]);
  assert.equal(r.scene.picture, null);
});

test('sceneFromGraph with a spec: the exact plan as prefix and suffix with product states, and the automaton', async () => {
  const api = createDirectApi({ workspace: workspace({ 'small.json': SMALL }) });
  const r = await api.sceneFromGraph({ path: 'small.json', spec: 'G F a & G F b' });
  assert.ok(r.plan !== null && r.automaton !== null);
  assert.equal(r.plan.status, 'ok');
  // The search cuts the lasso where it accepts (s a b, then b a b: objective 5.5); the plan is
  // rotated back to where its cycle begins: s a, then a b a (the same path, objective 4).
  assert.deepEqual(r.plan.prefix, ['s', 'a']);
  assert.deepEqual(r.plan.suffix, ['b', 'a']);
  assert.deepEqual(r.plan.cost, { prefix: 2, suffix: 6, objective: 4 });
  assert.equal(r.plan.prefixStates.length, r.plan.prefix.length);
  assert.equal(r.plan.suffixStates.length, r.plan.suffix.length);
  assert.ok(r.automaton.states.some((s) => s.initial) && r.automaton.states.some((s) => s.accepting));
  assert.ok(r.automaton.edges.every((e) => typeof e.guard === 'string' && e.guard.length > 0));
  const inf = await api.sceneFromGraph({ path: 'small.json', spec: 'F c' });
  assert.equal(inf.plan?.status, 'infeasible');
  assert.equal(inf.plan?.reason?.kind, 'unavailable-propositions');
});

test('sceneFromGraph: a graph without positions gets a deterministic layout with every node placed', async () => {
  const bare = { nodes: SMALL.nodes.map(({ id }) => ({ id })), edges: SMALL.edges, start: 's' };
  const grid = gridGraph({ cols: 40, rows: 30, positions: false });
  const partial = {
    ...SMALL,
    nodes: [...SMALL.nodes, { id: 'c' }, { id: 'lonely' }],
    edges: [...SMALL.edges, { from: 'b', to: 'c' }],
  };
  const api = createDirectApi({
    workspace: workspace({ 'bare.json': bare, 'grid.json': grid, 'partial.json': partial }),
  });
  for (const file of ['bare.json', 'grid.json', 'partial.json']) {
    const one = await api.sceneFromGraph({ path: file });
    const two = await api.sceneFromGraph({ path: file });
    assert.deepEqual(one.scene.nodes, two.scene.nodes, file);
    const pts = new Set(one.scene.nodes.map((n) => `${n.x.toFixed(6)},${n.y.toFixed(6)}`));
    assert.equal(pts.size, one.scene.nodes.length, `${file}: nodes on top of each other`);
    assert.ok(
      one.scene.nodes.every((n) => Number.isFinite(n.x) && Number.isFinite(n.y)),
      file,
    );
  }
  const p = await api.sceneFromGraph({ path: 'partial.json' });
  assert.deepEqual(
    p.scene.nodes.slice(0, 3).map((n) => [n.x, n.y]),
    [
      [0, 0],
      [1, 0],
      [2, 0.5],
    ],
    'known positions kept',
  );
});

test('sceneFromGraph plans on a 3000-node graph (its time is printed, not asserted)', async () => {
  const api = createDirectApi({ workspace: workspace({ 'graphs/grid-3000.json': gridGraph() }) });
  const t0 = performance.now();
  const r = await api.sceneFromGraph({ path: 'graphs/grid-3000.json', spec: 'G F a & G F b & G !c' });
  const ms = performance.now() - t0;
  assert.equal(r.scene.nodes.length, 3000);
  assert.equal(r.plan?.status, 'ok');
  assert.ok(r.plan && r.plan.prefix.length > 10 && r.plan.suffix.length > 10);
  console.log(`sceneFromGraph(3000 nodes, plan G F a & G F b & G !c): ${ms.toFixed(0)} ms`);
});

test('sceneFromGraph refuses paths outside the workspace and reports missing files', async () => {
  const ws = workspace({ 'small.json': SMALL });
  const outside = path.join(path.dirname(ws), 'secret.json');
  writeFileSync(outside, JSON.stringify(SMALL));
  symlinkSync(outside, path.join(ws, 'link.json'));
  const api = createDirectApi({ workspace: ws });
  for (const p of ['../secret.json', 'graphs/../../secret.json', outside, 'link.json']) {
    const e = await rejection(api.sceneFromGraph({ path: p }));
    assert.equal(e.code, 'forbidden', `${p}: ${JSON.stringify(e)}`);
    assert.equal(e.path, '$.path');
  }
  const missing = await rejection(api.sceneFromGraph({ path: 'nope.json' }));
  assert.equal(missing.code, 'not-found');
  assert.match(missing.message, /no file "nope\.json"/);
  const dir = await rejection(api.sceneFromGraph({ path: 'graphs' }));
  assert.equal(dir.code, 'not-found');
});

test('sceneFromGraph reports bad graph files with the JSON path or the line and column', async () => {
  const api = createDirectApi({
    workspace: workspace({
      'syntax.json': '{\n  "nodes": [\n    { "id": "s" },\n  ]\n}',
      'start.json': { ...SMALL, start: 'x' },
      'edge.json': { ...SMALL, edges: [{ from: 's', to: 'zz' }] },
      'field.json': { ...SMALL, nodes: [{ id: 's', colour: 'red' }] },
    }),
  });
  const syntax = await rejection(api.sceneFromGraph({ path: 'syntax.json' }));
  assert.equal(syntax.code, 'invalid-graph');
  assert.equal(syntax.line, 4);
  assert.equal(syntax.path, 'syntax.json');
  assert.match(syntax.message, /^syntax\.json: 4:\d+: not valid JSON/);
  const start = await rejection(api.sceneFromGraph({ path: 'start.json' }));
  assert.deepEqual(start, { code: 'invalid-graph', message: 'start.json: $.start: unknown node "x"', path: '$.start' });
  const edge = await rejection(api.sceneFromGraph({ path: 'edge.json' }));
  assert.equal(edge.path, '$.edges[0].to');
  const field = await rejection(api.sceneFromGraph({ path: 'field.json' }));
  assert.equal(field.path, '$.nodes[0]');
  assert.match(field.message, /unknown field "colour"/);
});

test('sceneFromGraph and automatonView report spec syntax errors with line and column', async () => {
  const api = createDirectApi({ workspace: workspace({ 'small.json': SMALL }) });
  const e = await rejection(api.sceneFromGraph({ path: 'small.json', spec: 'G F a &\n  (b' }));
  assert.equal(e.code, 'invalid-spec');
  assert.equal(e.path, '$.spec');
  assert.equal(e.line, 2);
  assert.ok(typeof e.column === 'number' && e.column > 1);
  const a = await rejection(api.automatonView({ spec: 'F (a' }));
  assert.equal(a.code, 'invalid-spec');
  assert.equal(a.line, 1);
  const budget = await rejection(api.automatonView({ spec: 'a & '.repeat(3000) + 'a' }));
  assert.equal(budget.code, 'budget');
});

test('automatonView: states with initial and accepting flags and printed guards', async () => {
  const api = createDirectApi();
  const a = await api.automatonView({ spec: 'G F a' });
  assert.equal(a.formula.length > 0, true);
  assert.ok(a.states.length >= 1);
  assert.deepEqual(
    a.states.map((s) => s.id),
    a.states.map((_, i) => i),
  );
  assert.ok(a.states.some((s) => s.initial));
  assert.ok(a.states.some((s) => s.accepting));
  assert.ok(a.edges.some((e) => /a/.test(e.guard)));
  for (const e of a.edges) assert.ok(e.from < a.states.length && e.to < a.states.length);
});

test('the dispatcher checks scene parameters against the contract', async () => {
  const dispatch = createDispatcher(createDirectApi({ workspace: workspace({}) }));
  const extra = await dispatch('sceneFromGraph', { path: 'x.json', evil: 1 });
  assert.ok(!extra.ok && extra.error.code === 'invalid-params');
  const empty = await dispatch('sceneFromGraph', { path: '' });
  assert.ok(!empty.ok && empty.error.code === 'invalid-params' && empty.error.path === '$.path');
  const spec = await dispatch('automatonView', {});
  assert.ok(!spec.ok && spec.error.code === 'invalid-params');
  const forbidden = await dispatch('sceneFromGraph', { path: '../x.json' });
  assert.ok(!forbidden.ok && forbidden.error.code === 'forbidden');
});
