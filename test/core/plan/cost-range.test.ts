/**
 * Costs stay finite: weights whose sums could overflow are refused as a cost overflow before searching, never read as
 * "infeasible".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { DEFAULT_PLAN, METHODS, plan } from '../../../main/core/plan/plan.js';
import { CostOverflowError, HEADROOM, checkCostRange, checkPlanCost } from '../../../main/core/plan/cost-range.js';
import { buildRows, type SemanticGraph } from '../../../main/core/plan/semantic.js';

const automaton = (spec: string) => translateFormula(parseLtl(spec)).automaton;

/** A ring of n nodes (a on node 1, b on node n−1), undirected, with these weights. */
function ring(weights: readonly number[]): SemanticGraph {
  const n = weights.length;
  return labelledGraph(
    {
      nodes: Array.from({ length: n }, (_, i) => ({
        id: `v${i}`,
        ...(i === 1 ? { labels: ['a'] } : i === n - 1 ? { labels: ['b'] } : {}),
      })),
      edges: weights.map((w, i) => ({ from: `v${i}`, to: `v${(i + 1) % n}`, weight: w })),
      start: 'v0',
    },
    'ring.json',
  );
}

test('checkCostRange: the bound Σw · Q · HEADROOM against the largest double, with the cause in the message', () => {
  const g = ring([1, 1, 1, 1]);
  checkCostRange(g, 3);
  const limit = Number.MAX_VALUE / (8 * 3 * HEADROOM); // 8 directed edges (undirected: both ways), 3 automaton states
  checkCostRange(ring([limit * 0.99, limit * 0.99, limit * 0.99, limit * 0.99]), 3);
  assert.throws(
    () => checkCostRange(ring([limit * 1.01, limit * 1.01, limit * 1.01, limit * 1.01]), 3),
    (e: unknown) =>
      e instanceof CostOverflowError &&
      e.code === 'invalid-graph' &&
      /^cost overflow: the graph's 8 directed edge weights \(largest [\d.]+e\+306\) sum to [\d.]+e\+307, so a path through the product with 3 automaton state\(s\) could cost more than 1\.798e\+308; scale the edge weights down/.test(
        e.message,
      ),
  );
  assert.throws(() => checkCostRange(ring([1e308, 1e308, 1, 1]), 1), /sum to more than the largest finite number/);
});

test('checkCostRange: a weight that is not a finite non-negative number is named (graphs built in code, not only from JSON)', () => {
  for (const bad of [NaN, -1, Infinity]) {
    const rows = buildRows(2, [{ from: 0, to: 1, weight: bad }], true);
    const g: SemanticGraph = { ...ring([1, 1]), ...rows };
    assert.throws(
      () => checkCostRange(g, 1),
      (e: unknown) =>
        e instanceof Error &&
        'code' in e &&
        e.code === 'invalid-graph' &&
        e.message === `edge v0 → v1 has weight ${bad}: weights must be finite and non-negative`,
    );
  }
});

test('checkPlanCost: a non-finite cost is a cost overflow naming which', () => {
  checkPlanCost({ prefix: 1, suffix: 2, objective: 1.5 });
  assert.throws(
    () => checkPlanCost({ prefix: Infinity, suffix: 2, objective: Infinity }),
    /^CostOverflowError: cost overflow: the plan's prefix cost is Infinity/,
  );
});

test('plan: every method, on weights right under the bound, plans with finite costs; over it, refuses before searching', () => {
  const a = automaton('G F a & G F b');
  const q = a.states.length;
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { minLength: 3, maxLength: 9 }),
      fc.constantFrom(...METHODS),
      (raw, method) => {
        // Shares of the directed weights' sum (each undirected edge counts twice), scaled to just under or over the
        // bound.
        const sum = 2 * raw.reduce((x, y) => x + y, 0);
        const target = Number.MAX_VALUE / (q * HEADROOM);
        const weights = (f: number): number[] => raw.map((w) => (w / sum) * target * f);
        const r = plan(ring(weights(0.999)), a, { ...DEFAULT_PLAN, method, k: Infinity });
        assert.equal(r.status, 'ok');
        if (r.status === 'ok')
          assert.ok(
            Number.isFinite(r.cost.objective) && Number.isFinite(r.cost.prefix) && Number.isFinite(r.cost.suffix),
          );
        assert.throws(() => plan(ring(weights(1.01)), a, { ...DEFAULT_PLAN, method, k: Infinity }), CostOverflowError);
      },
    ),
    { seed: 18, numRuns: 60 },
  );
});
