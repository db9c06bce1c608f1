import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LatentGraph } from '../../../main/core/graph/build.js';
import {
  anchorCandidates,
  augmentGraph,
  softLabels,
  stateLabels,
  DEFAULT_AUGMENT,
  type AugmentParams,
} from '../../../main/core/graph/augment.js';
import type { Region } from '../../../main/core/world/regions.js';
import { createRng } from '../../../main/core/random/rng.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { plan, DEFAULT_PLAN } from '../../../main/core/plan/plan.js';

/**
 * A line of four cluster nodes at latent x = 0, 4, 8, 12 (ψ is the identity on task positions),
 * each supported by ten dataset states around it.
 */
function fixture() {
  const nodes = Float32Array.from([0, 0, 4, 0, 8, 0, 12, 0]);
  const graph: LatentGraph = {
    dim: 2,
    nodes,
    nodeCount: 4,
    edgeU: Int32Array.from([0, 1, 2]),
    edgeV: Int32Array.from([1, 2, 3]),
    edgeW: Float32Array.from([4, 4, 4]),
    support: new Int32Array(40).map((_, i) => Math.floor(i / 10)),
    retained: 40,
    bridges: 0,
    componentsBefore: 1,
  };
  // Node 3's support: 4 of its 10 states lie at x = 12.5 (inside e0), the rest at x = 14.
  const obs = new Float32Array(40 * 4);
  for (let i = 0; i < 40; i++) {
    const v = Math.floor(i / 10);
    obs[i * 4] = v === 3 ? (i % 10 < 4 ? 12.5 : 14) : v * 4;
    obs[i * 4 + 1] = 0;
  }
  const states = { observations: obs, obsDim: 4, count: 40 };
  const regions: Region[] = [
    { name: 'e0', kind: 'disk', center: [12.5, 0], radius: 1 },
    { name: 'e1', kind: 'disk', center: [100, 100], radius: 1 },
  ];
  return { graph, states, regions, positions: nodes };
}

const params: AugmentParams = { ...DEFAULT_AUGMENT, H_TD: 8 };

test("soft labels are the weighted share of a node's support inside the region (Eq. B.8)", () => {
  const f = fixture();
  const masks = stateLabels(f.states, f.regions);
  const soft = softLabels({ graph: f.graph, states: f.states, masks, regions: f.regions, params });
  assert.deepEqual([...soft.get('e0')!], [0, 0, 0, 0.4]);
  assert.deepEqual([...soft.get('e1')!], [0, 0, 0, 0]);
  // Gaussian kernel: the in-region states (at 12.5) are nearer the node (at 12) than the rest (at 14).
  const latents = new Float32Array(80);
  for (let i = 0; i < 40; i++) latents[2 * i] = f.states.observations[i * 4]!;
  const g = softLabels({
    graph: f.graph,
    states: f.states,
    masks,
    regions: f.regions,
    stateLatents: latents,
    params: { ...params, kernel: { kind: 'gaussian', sigma: 1 } },
  });
  assert.ok(g.get('e0')![3]! > 0.4);
  assert.throws(
    () =>
      softLabels({
        graph: f.graph,
        states: f.states,
        masks,
        regions: f.regions,
        params: { ...params, kernel: { kind: 'gaussian', sigma: 1 } },
      }),
    /latent of every dataset state/,
  );
});

test('anchors: up to N_s connected witnesses per proposition; unavailable ones say why; the start falls back to the nearest node', () => {
  const f = fixture();
  const masks = stateLabels(f.states, f.regions);
  const candidates = anchorCandidates(masks, f.regions, 50, createRng(1));
  assert.equal(candidates.pool.get('e0'), 4);
  assert.equal(candidates.byRegion.get('e1')!.length, 0);
  const latentsOf = (idx: readonly number[]) =>
    Float32Array.from(idx.flatMap((s) => [f.states.observations[s * 4]!, 0]));
  const candidateLatents = new Map([...candidates.byRegion].map(([k, idx]) => [k, latentsOf(idx)] as const));
  const { graph, report } = augmentGraph({
    graph: f.graph,
    nodePositions: f.positions,
    states: f.states,
    masks,
    regions: f.regions,
    candidates,
    candidateLatents,
    start: { latent: Float32Array.from([40, 0]), position: [0, 0] },
    params,
  });
  assert.deepEqual(
    report.anchors.map((a) => [a.proposition, a.accepted, a.unavailable ?? null]),
    [
      ['e0', 3, null],
      ['e1', 0, 'no-dataset-state'],
    ],
  );
  assert.deepEqual(report.unavailable, ['e1']);
  assert.deepEqual(report.start.fallback, { node: 'c3', distance: 28 });
  assert.equal(graph.ids.length, 4 + 3 + 1);
  assert.deepEqual(graph.kinds.slice(4), ['anchor', 'anchor', 'anchor', 'start']);
  assert.deepEqual(graph.labels[4], ['e0']);
  assert.equal(graph.disjoint, true);
  // Anchors connect to every cluster node within H_TD = 8 of ψ(s) = (12.5, 0): nodes 2 and 3.
  const a0 = graph.outTo.subarray(graph.outStart[4], graph.outStart[5]);
  assert.deepEqual([...a0].sort(), [2, 3]);
  // Candidates too far from every node are not connectable.
  const far = new Map([
    ['e0', latentsOf(candidates.byRegion.get('e0')!).map((x, i) => (i % 2 === 1 ? 50 : x))],
    ['e1', new Float32Array(0)],
  ]);
  const r2 = augmentGraph({
    graph: f.graph,
    nodePositions: f.positions,
    states: f.states,
    masks,
    regions: f.regions,
    candidates,
    candidateLatents: far,
    start: { latent: Float32Array.from([0, 0]), position: [0, 0] },
    params,
  });
  assert.equal(r2.report.anchors[0]!.unavailable, 'not-connectable');
  assert.equal(r2.report.start.fallback, null);
});

test('planning on the augmented graph: positive literals only at anchors, negative literals screened by τ_soft', () => {
  const f = fixture();
  const masks = stateLabels(f.states, f.regions);
  const candidates = anchorCandidates(masks, f.regions, 50, createRng(1));
  const candidateLatents = new Map(
    [...candidates.byRegion].map(
      ([k, idx]) => [k, Float32Array.from(idx.flatMap((s) => [f.states.observations[s * 4]!, 0]))] as const,
    ),
  );
  const { graph } = augmentGraph({
    graph: f.graph,
    nodePositions: f.positions,
    states: f.states,
    masks,
    regions: f.regions,
    candidates,
    candidateLatents,
    start: { latent: Float32Array.from([0, 0]), position: [0, 0] },
    params,
  });
  const reach = plan(graph, translateFormula(parseLtl('F e0')).automaton, { ...DEFAULT_PLAN, method: 'sagas' });
  assert.equal(reach.status, 'ok');
  if (reach.status === 'ok') assert.match(graph.ids[reach.steps[reach.prefixLength - 1]!.node]!, /^anchor:e0:/);
  // G !e0 with node 3 at P̂ = 0.4 ≥ τ_soft: the plan never uses node 3; at τ_soft = 0.5 it may.
  const avoid = plan(graph, translateFormula(parseLtl('G !e0 & G F e1')).automaton, {
    ...DEFAULT_PLAN,
    method: 'sagas',
  });
  assert.equal(avoid.status, 'infeasible');
  assert.equal(avoid.status === 'infeasible' && avoid.reason.kind, 'unavailable-propositions');
  const safe = plan(graph, translateFormula(parseLtl('G !e0')).automaton, { ...DEFAULT_PLAN, method: 'sagas' });
  assert.equal(safe.status, 'ok');
  if (safe.status === 'ok')
    assert.ok(safe.steps.every((s) => graph.ids[s.node] !== 'c3' && graph.kinds[s.node] !== 'anchor'));
  // Screening at work: from a start at x = 16.5 whose one neighbour (within H_TD) is node 3, reaching e2 around
  // node 0 while never entering e0 has to pass node 3, where P̂(e0) = 0.4. τ_soft = 0.05 (the default) screens
  // node 3 out and the mission is infeasible; τ_soft = 0.5 lets the plan through node 3.
  const regions2: Region[] = [f.regions[0]!, { name: 'e2', kind: 'disk', center: [0, 0], radius: 1 }];
  const masks2 = stateLabels(f.states, regions2);
  const candidates2 = anchorCandidates(masks2, regions2, 50, createRng(1));
  const candidateLatents2 = new Map(
    [...candidates2.byRegion].map(
      ([k, idx]) => [k, Float32Array.from(idx.flatMap((s) => [f.states.observations[s * 4]!, 0]))] as const,
    ),
  );
  const beside = augmentGraph({
    graph: f.graph,
    nodePositions: f.positions,
    states: f.states,
    masks: masks2,
    regions: regions2,
    candidates: candidates2,
    candidateLatents: candidateLatents2,
    start: { latent: Float32Array.from([16.5, 0]), position: [16.5, 0] },
    params,
  }).graph;
  const mission = translateFormula(parseLtl('G !e0 & F e2')).automaton;
  const screened = plan(beside, mission, { ...DEFAULT_PLAN, method: 'sagas' });
  assert.equal(screened.status, 'infeasible');
  const open = plan(beside, mission, { ...DEFAULT_PLAN, tauSoft: 0.5, method: 'sagas' });
  assert.equal(open.status, 'ok');
  if (open.status === 'ok') {
    assert.ok(
      open.steps.some((s) => beside.ids[s.node] === 'c3'),
      'through node 3',
    );
    assert.match(beside.ids[open.steps[open.prefixLength - 1]!.node]!, /^anchor:e2:/);
  }
});
