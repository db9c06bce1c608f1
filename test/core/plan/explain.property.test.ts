/**
 * Every explanation of an infeasible specification, on small random graphs, checked with the reference
 * planner (core/plan/exhaustive.ts, none of the product search's code): the reported conjuncts conflict,
 * dropping any one of them leaves a feasible set (when reported minimal), and the smallest failing part
 * is infeasible too and implied by the specification (spec ∧ ¬core accepts no word).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { labelledGraph, type GraphJson } from '../../../main/core/plan/labelled-graph.js';
import { DEFAULT_PLAN } from '../../../main/core/plan/plan.js';
import { referenceOptimum } from '../../../main/core/plan/exhaustive.js';
import type { SemanticGraph } from '../../../main/core/plan/semantic.js';
import { explainInfeasible } from '../../../main/core/plan/explain.js';
import { satisfiable } from '../../../main/core/plan/diagnose.js';
import { temporalArb } from '../ltl/arbitraries.js';

const PROPS = ['a', 'b', 'c'];

const graphArb: fc.Arbitrary<GraphJson> = fc.integer({ min: 1, max: 5 }).chain((n) => {
  const id = fc.integer({ min: 0, max: n - 1 }).map((i) => `n${i}`);
  return fc.record({
    nodes: fc.tuple(
      ...Array.from({ length: n }, (_, i) => fc.subarray(PROPS).map((labels) => ({ id: `n${i}`, labels }))),
    ),
    edges: fc.array(fc.record({ from: id, to: id, weight: fc.integer({ min: 0, max: 4 }) }), { maxLength: 2 * n }),
    start: id,
    directed: fc.boolean(),
  });
});

const feasible = (g: SemanticGraph, f: Formula): boolean =>
  referenceOptimum(g, translateFormula(f).automaton, DEFAULT_PLAN.lambda).objective < Infinity;

const conj = (fs: Formula[]): Formula =>
  fs.length === 0 ? { kind: 'true' } : fs.length === 1 ? fs[0]! : { kind: 'and', args: fs };

test('every reported conflict is infeasible and minimal by the reference planner (seeded)', () => {
  let explained = 0;
  fc.assert(
    fc.property(graphArb, fc.array(temporalArb(PROPS), { minLength: 2, maxLength: 4 }), (gj, parts) => {
      const g = labelledGraph(gj, 'g.json');
      const spec: Formula = { kind: 'and', args: parts };
      if (feasible(g, spec)) return;
      const e = explainInfeasible(g, spec, { plan: DEFAULT_PLAN, automaton: (f) => translateFormula(f).automaton });
      const show = `${printLtl(spec)} on ${JSON.stringify(gj)}`;
      // The reported conjuncts are the spec's, printed so they parse back.
      const conjuncts = e.conjuncts.map((t) => parseLtl(t));
      assert.ok(e.conflict.length > 0, show);
      const set = e.conflict.map((i) => conjuncts[i]!);
      assert.equal(feasible(g, conj(set)), false, `conflict ${e.conflict.join(',')} is feasible: ${show}`);
      if (e.minimal) {
        for (let i = 0; i < set.length; i++)
          assert.equal(feasible(g, conj(set.filter((_, j) => j !== i))), true, `not minimal at ${i}: ${show}`);
      } else assert.notEqual(e.bound, undefined, show);
      assert.notEqual(e.core, null, show);
      const core = parseLtl(e.core!);
      assert.equal(feasible(g, core), false, `core ${e.core} is feasible: ${show}`);
      // The core is implied by the specification: spec & !core accepts no word.
      const rest: Formula = { kind: 'and', args: [spec, { kind: 'not', arg: core }] };
      assert.equal(satisfiable(translateFormula(rest).automaton), false, `core ${e.core} not implied: ${show}`);
      assert.equal(e.contradiction, !satisfiable(translateFormula(conj(set)).automaton), show);
      explained++;
    }),
    { seed: 50, numRuns: 300 },
  );
  assert.ok(explained > 20, `only ${explained} infeasible cases`);
});
