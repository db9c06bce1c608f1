import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { type Plan, DEFAULT_PLAN, plan } from '../../../main/core/plan/plan.js';
import { buildRows, type SemanticGraph } from '../../../main/core/plan/semantic.js';
import { methodRun } from '../../../main/bench/ablations.js';
import { ABLATION_METHODS, BASELINE_METHODS, BENCH_METHODS, MISSION_METHODS } from '../../../main/contract/defaults.js';

/**
 * start — risky — anchor a (short), start — safe1 — safe2 — anchor a (long). The cluster node
 * `risky` has the soft label P̂(b) = 0.6, over τ_soft; the safe ones P̂(b) = 0.
 */
function graph(): SemanticGraph {
  const edges = [
    { from: 0, to: 1, weight: 1 },
    { from: 1, to: 4, weight: 1 },
    { from: 0, to: 2, weight: 2 },
    { from: 2, to: 3, weight: 2 },
    { from: 3, to: 4, weight: 2 },
  ];
  return {
    ids: ['start', 'risky', 'safe1', 'safe2', 'anchor:a:0'],
    kinds: ['start', 'cluster', 'cluster', 'cluster', 'anchor'],
    positions: Float64Array.from([0, 0, 1, 1, 1, -1, 2, -1, 2, 0]),
    ...buildRows(5, edges, false),
    labels: [[], [], [], [], ['a']],
    soft: new Map([
      ['a', Float64Array.from([0, 0, 0, 0, 0])],
      ['b', Float64Array.from([0, 0.6, 0, 0, 0])],
    ]),
    start: 0,
    stay: false,
    directed: false,
    disjoint: true,
  };
}

const route = (g: SemanticGraph, r: Plan): string[] => r.steps.slice(0, r.prefixLength).map((s) => g.ids[s.node]!);

test('methodRun: the mission methods run as they are; the Appendix H ablations are SAGAS with one component off', () => {
  for (const m of MISSION_METHODS) assert.deepEqual(methodRun(m), { method: m });
  assert.deepEqual(methodRun('sagas-nosoft'), { method: 'sagas', tauSoft: Infinity });
  assert.deepEqual(methodRun('sagas-nosteer'), { method: 'sagas', steering: false });
  assert.deepEqual(methodRun('sagas-nodelatent'), { method: 'sagas', targets: 'node' });
  assert.deepEqual([...BENCH_METHODS], [...MISSION_METHODS, ...ABLATION_METHODS, ...BASELINE_METHODS]);
  assert.deepEqual([...BASELINE_METHODS], ['ap-hiql', 'ap-hiql-pilow']);
});

test('w/o soft labels: the product search no longer screens negative literals on cluster nodes by P̂', () => {
  const g = graph();
  const a = translateFormula(parseLtl('!b U a')).automaton;
  const tau = (m: 'sagas' | 'sagas-nosoft'): number => methodRun(m).tauSoft ?? DEFAULT_PLAN.tauSoft;
  const full = plan(g, a, { ...DEFAULT_PLAN, method: 'sagas', tauSoft: tau('sagas') });
  const nosoft = plan(g, a, { ...DEFAULT_PLAN, method: 'sagas', tauSoft: tau('sagas-nosoft') });
  assert.equal(full.status, 'ok');
  assert.equal(nosoft.status, 'ok');
  assert.deepEqual(route(g, full), ['start', 'safe1', 'safe2', 'anchor:a:0'], 'SAGAS avoids the node where b may hold');
  assert.deepEqual(
    route(g, nosoft),
    ['start', 'risky', 'anchor:a:0'],
    'without the soft screen the shorter route through it is taken',
  );
  // Anchors keep their witness-label test: an anchor labelled b stays forbidden under ¬b.
  const anchored: SemanticGraph = {
    ...graph(),
    kinds: ['start', 'anchor', 'cluster', 'cluster', 'anchor'],
    labels: [[], ['b'], [], [], ['a']],
  };
  assert.deepEqual(
    route(anchored, plan(anchored, a, { ...DEFAULT_PLAN, method: 'sagas', tauSoft: Infinity }) as Plan),
    ['start', 'safe1', 'safe2', 'anchor:a:0'],
  );
});
