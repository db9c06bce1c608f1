/**
 * The planner against the exhaustive reference on small random labelled graphs and formulas:
 * exact mode finds the reference optimum; every returned plan's label word satisfies the formula
 * (lasso evaluator) and its certificate checks; the A* heuristic never overestimates. The same on
 * graphs with cluster nodes whose soft labels lie around τ_soft.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { labelledGraph, type GraphJson } from '../../../main/core/plan/labelled-graph.js';
import { type Method, type Plan, drivenSteps, plan, planContext, DEFAULT_PLAN } from '../../../main/core/plan/plan.js';
import { referenceOptimum } from '../../../main/core/plan/exhaustive.js';
import type { NodeKind, SemanticGraph } from '../../../main/core/plan/semantic.js';
import { checkCertificate } from '../../../main/core/plan/certificate.js';
import { buildChainHeuristic, buildHeuristic, hValue } from '../../../main/core/plan/heuristic.js';
import { forEachSuccessor } from '../../../main/core/plan/product.js';
import { MinHeap } from '../../../main/core/plan/heap.js';
import { temporalArb } from '../ltl/arbitraries.js';

const PROPS = ['a', 'b', 'c'];

const graphArb: fc.Arbitrary<GraphJson> = fc.integer({ min: 1, max: 6 }).chain((n) => {
  const id = fc.integer({ min: 0, max: n - 1 }).map((i) => `n${i}`);
  return fc.record({
    nodes: fc.tuple(
      ...Array.from({ length: n }, (_, i) => fc.subarray(PROPS).map((labels) => ({ id: `n${i}`, labels }))),
    ),
    edges: fc.array(fc.record({ from: id, to: id, weight: fc.integer({ min: 0, max: 6 }) }), { maxLength: 2 * n }),
    start: id,
    directed: fc.boolean(),
  });
});

const show = (g: GraphJson, f: Formula): string => `${printLtl(f)} on ${JSON.stringify(g)}`;

/**
 * The same graphs with some nodes (never the start) turned into cluster nodes: no exact labels, a
 * soft label P̂ per proposition drawn around τ_soft = 0.05 (or none: unknown, as for a proposition
 * the graph has no evidence of).
 */
interface SoftCase {
  readonly gj: GraphJson;
  readonly cluster: readonly boolean[];
  readonly soft: readonly (readonly number[] | undefined)[];
}
const softGraphArb: fc.Arbitrary<SoftCase> = graphArb.chain((gj) => {
  const n = gj.nodes.length;
  const perNode = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T[]> => fc.array(a, { minLength: n, maxLength: n });
  return fc.record({
    gj: fc.constant(gj),
    cluster: perNode(fc.boolean()),
    soft: fc.tuple(
      ...PROPS.map(() =>
        fc.option(perNode(fc.constantFrom(0, 0, 0.01, 0.049, 0.05, 0.3, 1)), { nil: undefined, freq: 6 }),
      ),
    ),
  });
});

function softGraph(c: SoftCase): SemanticGraph {
  const g = labelledGraph(c.gj, 'g.json');
  const isCluster = (v: number): boolean => v !== g.start && c.cluster[v] === true;
  const kinds: NodeKind[] = g.kinds.map((k, v) => (isCluster(v) ? 'cluster' : k));
  const labels = g.labels.map((l, v) => (isCluster(v) ? [] : l));
  const soft = new Map<string, Float64Array>();
  PROPS.forEach((ap, i) => {
    const p = c.soft[i];
    if (p !== undefined) soft.set(ap, Float64Array.from(p));
  });
  return { ...g, kinds, labels, soft };
}

const showSoft = (c: SoftCase, f: Formula): string =>
  `${show(c.gj, f)} with clusters ${JSON.stringify(c.cluster)} and P̂ ${JSON.stringify(c.soft)}`;

function wordOf(p: Plan): { prefix: Set<string>[]; cycle: Set<string>[] } {
  const letters = p.steps.map((s) => new Set(s.letter));
  return { prefix: letters.slice(0, p.prefixLength), cycle: letters.slice(p.prefixLength) };
}

test('exact mode (K = all) finds the reference optimum with either heuristic; its plan satisfies the formula (1500 cases)', () => {
  fc.assert(
    fc.property(
      graphArb,
      temporalArb(PROPS),
      fc.constantFrom(0, 0.5, 1),
      fc.constantFrom('b13' as const, 'chain' as const),
      (gj, f, lambda, heuristic) => {
        const g = labelledGraph(gj, 'g.json');
        const a = translateFormula(f).automaton;
        const ref = referenceOptimum(g, a, lambda);
        const r = plan(g, a, { ...DEFAULT_PLAN, method: 'sagas', k: Infinity, lambda, heuristic });
        if (ref.objective === Infinity) {
          assert.equal(r.status, 'infeasible', `reference finds no lasso: ${show(gj, f)}`);
          return;
        }
        assert.equal(r.status, 'ok', `reference optimum ${ref.objective}, planner infeasible: ${show(gj, f)}`);
        const p = r;
        assert.equal(p.rotation.searchObjective, ref.objective, show(gj, f));
        assert.ok(p.cost.objective <= p.rotation.searchObjective + 1e-9, show(gj, f));
        assert.equal(evaluateLasso(f, wordOf(p)), true, show(gj, f));
      },
    ),
    { numRuns: 1500, seed: 5 },
  );
});

test('every method returns only plans whose label word satisfies the formula and whose certificate checks (3 × 1000 cases)', () => {
  for (const method of ['sagas', 'lf-gas', 'ga-gas'] as Method[]) {
    fc.assert(
      fc.property(graphArb, temporalArb(PROPS), fc.integer({ min: 1, max: 5 }), (gj, f, k) => {
        const g = labelledGraph(gj, 'g.json');
        const a = translateFormula(f).automaton;
        const r = plan(g, a, { ...DEFAULT_PLAN, method, k });
        if (r.status !== 'ok') return;
        assert.equal(evaluateLasso(f, wordOf(r)), true, `${method}: ${show(gj, f)}`);
        assert.equal(checkCertificate(a, g, r.certificate, DEFAULT_PLAN.tauSoft).ok, true);
        const ref = referenceOptimum(g, a, DEFAULT_PLAN.lambda);
        // The optimum is over lassos cut at accepting states (the reference's and the search's notion);
        // the returned lasso is that cut rotated back: never a larger objective, and not rotatable further.
        assert.ok(r.rotation.searchObjective >= ref.objective - 1e-9, `${method} beat the optimum: ${show(gj, f)}`);
        assert.ok(
          r.cost.objective <= r.rotation.searchObjective + 1e-9,
          `${method}: rotation raised the objective: ${show(gj, f)}`,
        );
        const n = r.steps.length,
          pl = r.prefixLength;
        if (!r.dwell && pl >= 2 && n - pl >= 2) {
          const a1 = r.steps[pl - 2]!,
            b1 = r.steps[n - 2]!;
          assert.ok(
            a1.node !== b1.node || a1.state !== b1.state,
            `${method}: the lasso could still be rotated: ${show(gj, f)}`,
          );
        }
        // The driven path's cut: the same infinite node path, its word satisfies the formula, it cannot be cut further.
        const d = drivenSteps(r);
        const unroll = (pre: readonly { node: number }[], cyc: readonly { node: number }[]): number[] =>
          Array.from(
            { length: 3 * n },
            (_, i) => (i < pre.length ? pre[i]! : cyc[(i - pre.length) % cyc.length]!).node,
          );
        assert.deepEqual(
          unroll(d.prefix, d.cycle),
          unroll(r.steps.slice(0, pl), r.steps.slice(pl)),
          `${method}: the cut changed the path: ${show(gj, f)}`,
        );
        assert.equal(
          evaluateLasso(f, {
            prefix: d.prefix.map((x) => new Set(x.letter)),
            cycle: d.cycle.map((x) => new Set(x.letter)),
          }),
          true,
          `${method}: ${show(gj, f)}`,
        );
        if (!r.dwell && d.prefix.length >= 2 && d.cycle.length >= 2) {
          assert.notEqual(
            d.prefix[d.prefix.length - 2]!.node,
            d.cycle[d.cycle.length - 2]!.node,
            `${method}: the path could still be cut earlier: ${show(gj, f)}`,
          );
        }
        assert.ok(
          r.cost.objective <=
            r.certificate.cost.prefix * DEFAULT_PLAN.lambda +
              r.certificate.cost.suffix * (1 - DEFAULT_PLAN.lambda) +
              1e-9,
        );
      }),
      { numRuns: 1000, seed: 7 },
    );
  }
});

test('on graphs with cluster nodes and soft labels: exact mode finds the reference optimum, every method returns satisfying, certified plans never better than it (1000 cases)', () => {
  const tauSoft = DEFAULT_PLAN.tauSoft;
  let clusterPlans = 0;
  fc.assert(
    fc.property(
      softGraphArb,
      temporalArb(PROPS),
      fc.constantFrom(0, 0.5, 1),
      fc.integer({ min: 1, max: 5 }),
      (c, f, lambda, k) => {
        const g = softGraph(c);
        const a = translateFormula(f).automaton;
        const ref = referenceOptimum(g, a, lambda, tauSoft);
        const exact = plan(g, a, { ...DEFAULT_PLAN, method: 'sagas', k: Infinity, lambda, tauSoft });
        if (ref.objective === Infinity) {
          assert.equal(exact.status, 'infeasible', `reference finds no lasso: ${showSoft(c, f)}`);
        } else {
          assert.equal(exact.status, 'ok', `reference optimum ${ref.objective}, planner infeasible: ${showSoft(c, f)}`);
          if (exact.status === 'ok') {
            assert.equal(exact.rotation.searchObjective, ref.objective, showSoft(c, f));
            if (exact.steps.some((s) => g.kinds[s.node] === 'cluster')) clusterPlans++;
          }
        }
        for (const method of ['sagas', 'lf-gas', 'ga-gas'] as Method[]) {
          const r = plan(g, a, { ...DEFAULT_PLAN, method, k, lambda, tauSoft });
          if (r.status !== 'ok') continue;
          assert.equal(evaluateLasso(f, wordOf(r)), true, `${method}: ${showSoft(c, f)}`);
          assert.equal(checkCertificate(a, g, r.certificate, tauSoft).ok, true, `${method}: ${showSoft(c, f)}`);
          assert.ok(
            r.rotation.searchObjective >= ref.objective - 1e-9,
            `${method} beat the optimum: ${showSoft(c, f)}`,
          );
        }
      },
    ),
    { numRuns: 1000, seed: 13 },
  );
  // The generator exercises what it is for: optimal plans through cluster nodes.
  assert.ok(clusterPlans >= 20, `only ${clusterPlans} optimal plans pass a cluster node`);
});

test('the prefix heuristics never overestimate the cost to an accepting product state; chain dominates B.13 (1000 cases)', () => {
  fc.assert(
    fc.property(graphArb, temporalArb(PROPS), (gj, f) => {
      const g = labelledGraph(gj, 'g.json');
      const a = translateFormula(f).automaton;
      const ctx = planContext(g, a, DEFAULT_PLAN.tauSoft);
      if (ctx.work.empty) return;
      const p = ctx.product;
      const h = buildHeuristic(p);
      const chain = buildChainHeuristic(p);
      // True cost-to-go: Dijkstra on the reversed product from every accepting state.
      const size = p.n * p.nq;
      const preds: [number, number][][] = Array.from({ length: size }, () => []);
      for (let z = 0; z < size; z++) forEachSuccessor(p, z, (z2, c) => preds[z2]!.push([z, c]));
      const dist = new Float64Array(size).fill(Infinity);
      const heap = new MinHeap();
      for (let z = 0; z < size; z++)
        if (p.w.accepting[z % p.nq] === 1) {
          dist[z] = 0;
          heap.push(0, z);
        }
      while (heap.size > 0) {
        const d = heap.peekKey();
        const z = heap.pop();
        if (d > dist[z]!) continue;
        for (const [y, c] of preds[z]!)
          if (d + c < dist[y]!) {
            dist[y] = d + c;
            heap.push(d + c, y);
          }
      }
      for (let z = 0; z < size; z++) {
        assert.ok(hValue(h, p, z) <= dist[z]! + 1e-9, `h(${z}) = ${hValue(h, p, z)} > ${dist[z]}: ${show(gj, f)}`);
        assert.ok(
          hValue(chain, p, z) <= dist[z]! + 1e-9,
          `chain h(${z}) = ${hValue(chain, p, z)} > ${dist[z]}: ${show(gj, f)}`,
        );
        assert.ok(
          hValue(chain, p, z) >= hValue(h, p, z) - 1e-9 || dist[z] === Infinity,
          `chain below B.13 at ${z}: ${show(gj, f)}`,
        );
      }
    }),
    { numRuns: 1000, seed: 11 },
  );
});
