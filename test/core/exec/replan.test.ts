import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EDGE_PENALTY, classifyFailure, replanGraph, type FailureRecord } from '../../../main/core/exec/replan.js';
import { buildRows, edgeWeight, type SemanticGraph } from '../../../main/core/plan/semantic.js';

const timeout = (node: string, distance: number, checkpoint = false) => ({
  kind: 'timeout' as const,
  t: 5,
  stream: 'prefix' as const,
  index: 1,
  node,
  checkpoint,
  distance,
  term: 'true',
  labels: [],
});
const h = Float32Array.from([0, 0]);

test('failure classes: committed violations are unrecoverable; anchors are removed; edges penalised, then removed', () => {
  const v = classifyFailure(
    { kind: 'violation', t: 3, stream: 'prefix', index: 0, node: 'c1', literal: 'b', term: '!b', labels: ['b'] },
    'start',
    h,
    8,
    false,
    [],
  );
  assert.equal(v.unrecoverable, true);
  assert.equal(v.class, 'permanent');
  const soft = classifyFailure(
    { kind: 'violation', t: 3, stream: 'prefix', index: 0, node: 'c1', literal: 'b', term: '!b', labels: ['b'] },
    'start',
    h,
    8,
    true,
    [],
  );
  assert.deepEqual(
    [soft.kind, soft.class, soft.action, soft.unrecoverable],
    ['forbidden-label', 'transient', 'penalize-edge', false],
  );
  const anchor = classifyFailure(timeout('anchor:a:0', 5, true), 'c1', h, 8, true, []);
  assert.deepEqual([anchor.kind, anchor.action], ['missed-anchor', 'remove-anchor']);
  const first = classifyFailure(timeout('c2', 20), 'c1', h, 8, true, []);
  assert.deepEqual([first.class, first.action], ['transient', 'penalize-edge']);
  const second = classifyFailure(timeout('c2', 20), 'c1', h, 8, true, [first]);
  assert.deepEqual([second.class, second.action], ['permanent', 'remove-edge']);
  assert.match(second.rule, /second time/);
});

test('the replanned graph: edits in both directions, the anchor gone, the start moved to the current state', () => {
  // c0 — c1 — c2 (clusters at latent x = 0, 4, 8), anchor a at x = 9 joined to c2, start at x = 0.
  const n = 5;
  const e = [
    { from: 0, to: 1, weight: 4 },
    { from: 1, to: 2, weight: 4 },
    { from: 2, to: 3, weight: 1 },
    { from: 4, to: 0, weight: 0 },
  ];
  const g: SemanticGraph = {
    ids: ['c0', 'c1', 'c2', 'anchor:a:0', 'start'],
    kinds: ['cluster', 'cluster', 'cluster', 'anchor', 'start'],
    positions: Float64Array.from([0, 0, 4, 0, 8, 0, 9, 0, 0, 0]),
    ...buildRows(n, e, false),
    labels: [[], [], [], ['a'], []],
    soft: new Map([['a', Float64Array.from([0, 0, 0.2, 0, 0])]]),
    start: 4,
    stay: false,
    directed: false,
    disjoint: true,
    latents: Float32Array.from([0, 0, 4, 0, 8, 0, 9, 0, 0, 0]),
    latentDim: 2,
  };
  const rec = (action: FailureRecord['action'], from: string, to: string): FailureRecord => ({
    source: 'mission',
    t: 1,
    kind: 'tracking-timeout',
    label: 'tracking-timeout',
    stream: 'prefix',
    index: 0,
    from,
    to,
    term: 'true',
    violated: to,
    labels: [],
    latent: [0, 0],
    class: 'transient',
    rule: '',
    action,
    unrecoverable: false,
  });
  const start = { latent: Float32Array.from([4.5, 0]), position: [4.5, 0] as const, label: ['x'] };
  const p = replanGraph(g, rec('penalize-edge', 'c0', 'c1'), start, 8);
  assert.equal(edgeWeight(p, 0, 1), 4 * EDGE_PENALTY);
  assert.equal(edgeWeight(p, 1, 0), 4 * EDGE_PENALTY);
  assert.equal(edgeWeight(p, 1, 2), 4);
  assert.deepEqual(
    [...p.outTo.subarray(p.outStart[4], p.outStart[5])].sort(),
    [0, 1, 2],
    'the new start reaches clusters within H_TD',
  );
  assert.deepEqual(p.labels[4], ['x']);
  assert.equal(edgeWeight(replanGraph(g, rec('remove-edge', 'c1', 'c2'), start, 8), 2, 1), undefined);
  const noAnchor = replanGraph(g, rec('remove-anchor', 'c2', 'anchor:a:0'), start, 8);
  assert.equal(noAnchor.outStart[4]! - noAnchor.outStart[3]!, 0);
  assert.deepEqual(noAnchor.labels[3], []);
  assert.equal(noAnchor.kinds[3], 'cluster');
  // Far from every cluster: joined to the nearest.
  const far = replanGraph(g, null, { latent: Float32Array.from([30, 0]), position: [30, 0], label: [] }, 8);
  assert.deepEqual([...far.outTo.subarray(far.outStart[4], far.outStart[5])], [2]);
});
