// What the world view draws for an infeasible plan's explanation: the regions by role, the cut's nodes and the edges
// into them from outside the region, and the legend that names each (a region labelled nowhere only in words).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GraphScene, PlanExplanation, SceneNode } from '../../main/contract/api.js';
import { carriesRegion, whyDrawing } from '../../renderer/src/graph/why-model.js';
import { whyLegend } from '../../renderer/src/console/model.js';

const node = (id: string, labels: string[] = [], extra: Partial<SceneNode> = {}): SceneNode => ({
  id,
  x: 0,
  y: 0,
  kind: 'labelled',
  labels,
  soft: {},
  support: 1,
  ...extra,
});

// The door b (b1, b2) stands between the start s and the goal a; c is beside s; z is cut off from everything.
const scene: GraphScene = {
  world: 'door',
  bounds: { minX: 0, minY: 0, maxX: 2, maxY: 1 },
  picture: null,
  propositions: ['a', 'b', 'c', 'z'],
  start: 's',
  nodes: [node('s'), node('b1', ['b']), node('b2', ['b']), node('a', ['a']), node('c', ['c']), node('z', ['z'])],
  edges: [
    [0, 1, 1],
    [0, 2, 1],
    [1, 3, 1],
    [2, 3, 1],
    [0, 4, 1],
    [1, 2, 1],
    [1, 0, 1],
  ],
};

const explanation = (regions: PlanExplanation['regions']): PlanExplanation => ({
  conjuncts: ['F a', 'G !b'],
  conflict: [0, 1],
  minimal: true,
  contradiction: false,
  core: null,
  regions,
  checks: 3,
  message: 'the conjuncts F a and G !b cannot hold together on this graph',
});

test('a forbidden region is drawn on its nodes, with the cut and the edges that enter it from outside', () => {
  const d = whyDrawing(
    explanation([{ region: 'b', why: 'forbidden', node: 'b1', at: [1, 0.5], cut: ['b1', 'b2'] }]),
    scene,
  );
  assert.deepEqual(d?.regions, [{ region: 'b', role: 'forbidden', nodes: ['b1', 'b2'] }]);
  assert.deepEqual(d?.cutNodes, ['b1', 'b2']);
  // s–b1 and s–b2 cross from the start's side (b1–s, the same pair the other way, once); a–b1 and a–b2 come from the
  // far side, and b1–b2 lies inside the region: neither is the cut.
  assert.deepEqual(d?.cutEdges, [
    ['s', 'b1'],
    ['s', 'b2'],
  ]);
  assert.deepEqual(d?.missing, []);
});

test('an unreachable region is drawn on the nodes that carry it; one labelled nowhere has none to draw', () => {
  const d = whyDrawing(
    explanation([
      { region: 'z', why: 'unreachable' },
      { region: 'q', why: 'labelled-nowhere' },
    ]),
    scene,
  );
  assert.deepEqual(d?.regions, [
    { region: 'z', role: 'unreachable', nodes: ['z'] },
    { region: 'q', role: 'labelled-nowhere', nodes: [] },
  ]);
  assert.deepEqual(d?.cutNodes, []);
  assert.deepEqual(d?.cutEdges, []);
});

test('cut nodes the scene lacks are reported, not drawn; no explanation or no scene draws nothing', () => {
  const d = whyDrawing(explanation([{ region: 'b', why: 'forbidden', cut: ['b1', 'gone'] }]), scene);
  assert.deepEqual(d?.cutNodes, ['b1']);
  assert.deepEqual(d?.missing, ['gone']);
  // Without a start, every node outside the region borders the cut.
  const { start: _start, ...startless } = scene;
  const noStart = whyDrawing(explanation([{ region: 'b', why: 'forbidden', cut: ['b1'] }]), startless);
  assert.deepEqual(noStart?.cutEdges, [
    ['s', 'b1'],
    ['a', 'b1'],
  ]);
  assert.equal(whyDrawing(undefined, scene), null);
  assert.equal(whyDrawing(explanation([]), null), null);
  assert.deepEqual(whyDrawing(explanation([]), scene)?.regions, []);
});

test('a cluster node carries a region by its soft label at the planner threshold; an anchor by its region', () => {
  assert.equal(carriesRegion(node('k', [], { kind: 'cluster', soft: { b: 0.3 } }), 'b'), true);
  assert.equal(carriesRegion(node('k', [], { kind: 'cluster', soft: { b: 0.01 } }), 'b'), false);
  assert.equal(carriesRegion(node('k', [], { kind: 'cluster' }), 'b'), false);
  assert.equal(carriesRegion(node('k', [], { kind: 'labelled', soft: { b: 0.9 } }), 'b'), false);
  assert.equal(carriesRegion(node('k', [], { kind: 'anchor', anchorOf: 'b' }), 'b'), true);
});

test('the legend names each region by its role, says a region labelled nowhere has no place, and counts the cut', () => {
  const d = whyDrawing(
    explanation([
      { region: 'b', why: 'forbidden', cut: ['b1', 'b2', 'gone'] },
      { region: 'z', why: 'unreachable' },
      { region: 'q', why: 'labelled-nowhere' },
      { region: 'c', why: 'unreachable' },
    ]),
    { ...scene, nodes: scene.nodes.filter((n) => n.id !== 'c'), edges: scene.edges.filter(([, v]) => v !== 4) },
  );
  assert.deepEqual(whyLegend(d), [
    { key: 'forbidden', text: '"b" forbidden on every path: 2 nodes' },
    { key: 'unreachable', text: '"z" unreachable from the start: 1 node' },
    { key: 'labelled-nowhere', text: '"q" is labelled nowhere: no node of the graph to mark' },
    { key: 'unreachable', text: '"c" unreachable from the start: no node of this map carries it' },
    { key: 'cut', text: 'the cut: 2 nodes every plan would cross, 2 edges into them; 1 not on this map' },
  ]);
  assert.deepEqual(whyLegend(null), []);
  assert.deepEqual(whyLegend(whyDrawing(explanation([]), scene)), []);
});
