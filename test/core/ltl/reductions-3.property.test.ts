/**
 * The size reductions of issue 22's third round (branch ltl-sizes-3), each on its own against the
 * lasso evaluator (seeded, with a non-vacuity count and a mutant that must fail): the true
 * self-loop on a transient initial state of an eventuality.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf } from '../../../main/core/ltl/nnf.js';
import { buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { buildGba } from '../../../main/core/ltl/gba.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from '../../../main/core/ltl/degeneralize.js';
import { type MutableBuchi, reduceBuchi, toAutomaton, withInitialLoop } from '../../../main/core/ltl/reduce.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { formulaArb, lassoArb, letterArb, nextArb, showLasso, temporalArb } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });

/** The reduced Büchi automaton of f as the translator builds it first, and whether f's NNF is an eventuality. */
function reduced(f: Formula): { ba: MutableBuchi; aps: string[]; eventual: boolean } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const gba = pruneAcceptanceSets(reduceGba(buildGba(buildVwaa(root, nf, { gfLoops: true }, budget), budget), budget), budget);
  const raw = degeneralize(gba, () => '', budget, 'zero');
  const ba = { accepting: raw.accepting, names: raw.names, initial: raw.initial, out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()) };
  return { ba: reduceBuchi(ba, budget, true, aps.length), aps, eventual: nf.eventual(root) };
}

/** Whether the automaton agrees with the evaluator on every word; the first disagreement when not. */
function disagreement(a: MutableBuchi, aps: string[], f: Formula, ws: readonly Lasso[]): string | null {
  const automaton = toAutomaton(a, aps, printLtl(f));
  for (const w of ws) if (acceptsLasso(automaton, w) !== evaluateLasso(f, w)) return `${printLtl(f)} on ${showLasso(w)}`;
  return null;
}

/** Eventualities (F x, G F x, F G x, and Boolean combinations of them) and arbitrary formulas. */
function eventualArb(): fc.Arbitrary<Formula> {
  const sub = fc.oneof(formulaArb(['a', 'b', 'c'], 3, true), nextArb(), temporalArb());
  const ev = fc.tuple(fc.constantFrom('F', 'GF', 'FG', 'FX'), sub).map(([k, x]): Formula => {
    switch (k) {
      case 'F': return { kind: 'F', arg: x };
      case 'GF': return { kind: 'G', arg: { kind: 'F', arg: x } };
      case 'FG': return { kind: 'F', arg: { kind: 'G', arg: x } };
      default: return { kind: 'F', arg: { kind: 'X', arg: x } };
    }
  });
  const combo = fc.tuple(fc.constantFrom('and' as const, 'or' as const), fc.array(ev, { minLength: 2, maxLength: 3 }))
    .map(([kind, args]): Formula => ({ kind, args }));
  return fc.oneof(ev, combo, sub);
}

test('a true self-loop on the transient initial state of an eventuality, before and after reduction, against the evaluator (3000 cases)', () => {
  let looped = 0, shrunk = 0;
  fc.assert(fc.property(eventualArb(), words, (f, ws) => {
    const { ba, aps, eventual } = reduced(f);
    const l = withInitialLoop(ba, eventual);
    if (l === null) return;
    assert.ok(eventual);
    looped++;
    const r = reduceBuchi(l, new Budget(), true, aps.length);
    if (r.accepting.length < ba.accepting.length) shrunk++;
    for (const a of [l, r]) {
      const bad = disagreement(a, aps, f, ws);
      assert.equal(bad, null, bad ?? '');
    }
  }), { numRuns: 3000, seed: 231 });
  assert.ok(looped > 200, `only ${looped} of 3000 automata got the loop`);
  assert.ok(shrunk > 100, `only ${shrunk} of 3000 automata shrank with the loop`);
});

test('mutant: the loop on formulas that are not eventualities changes some languages (1000 cases)', () => {
  let wrong = 0;
  fc.assert(fc.property(fc.oneof(nextArb(), temporalArb()), words, (f, ws) => {
    const { ba, aps, eventual } = reduced(f);
    if (eventual) return;
    const l = withInitialLoop(ba, true);
    if (l !== null && disagreement(l, aps, f, ws) !== null) wrong++;
  }), { numRuns: 1000, seed: 232 });
  assert.ok(wrong > 50, `the mutant was caught on only ${wrong} formulas`);
});
