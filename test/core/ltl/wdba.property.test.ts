/**
 * The last translation stage (trivial languages, WDBA minimisation of obligations, proved merges) against the
 * lasso evaluator and against the automaton it replaces: on random formulas the final automaton
 * accepts exactly the lassos the formula's semantics and the unminimised automaton accept, and
 * never has more states. Formulas the stage changed get three times as many words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { outgoing, type BuchiAutomaton } from '../../../main/core/ltl/automaton.js';
import { guardHolds } from '../../../main/core/ltl/guard.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { formulaArb, lassoArb, letterArb, nextArb, showLasso, temporalArb } from './arbitraries.js';

/** At most one successor per letter (the alphabet enumerated: the arbitraries use three propositions). */
function deterministic(a: BuchiAutomaton): boolean {
  const out = outgoing(a);
  for (let x = 0n; x < 1n << BigInt(a.aps.length); x++) {
    for (const es of out) if (es.filter((e) => guardHolds(e.guard, x)).length > 1) return false;
  }
  return a.initial.length === 1;
}

let changed = 0;
/** States summed over every formula checked, without and with the last stage. */
let statesBefore = 0,
  statesAfter = 0;

function check(f: Formula, words: readonly Lasso[]): void {
  const before = translateFormula(f, { minimize: false });
  const after = translateFormula(f);
  const name = printLtl(f);
  statesBefore += before.automaton.states.length;
  statesAfter += after.automaton.states.length;
  assert.ok(
    after.automaton.states.length <= before.automaton.states.length,
    `${name}: ${after.automaton.states.length} states after, ${before.automaton.states.length} before`,
  );
  const ws = after.stats.minimized === null ? words.slice(0, 8) : words;
  if (after.stats.minimized !== null) {
    changed++;
    assert.ok(after.automaton.states.length < before.automaton.states.length, `${name}: replaced without shrinking`);
    if (after.stats.minimized === 'wdba')
      assert.ok(deterministic(after.automaton), `${name}: the WDBA is not deterministic`);
    // 'merged': states merged, each merge proved with the negation's automaton (merge.ts, formulas with X)
    else if (after.stats.minimized === 'true') assert.equal(after.automaton.states.length, 1);
  }
  for (const w of ws) {
    const expected = evaluateLasso(f, w);
    assert.equal(
      acceptsLasso(after.automaton, w),
      expected,
      `${name} on ${showLasso(w)}: minimised automaton disagrees with the semantics (${expected})`,
    );
    assert.equal(
      acceptsLasso(before.automaton, w),
      expected,
      `${name} on ${showLasso(w)}: unminimised automaton disagrees`,
    );
  }
}

const words = fc.array(lassoArb(letterArb()), { minLength: 24, maxLength: 24 });

test('random next-free formulas: same lassos as the semantics and as before, never more states (800 cases)', () => {
  fc.assert(fc.property(formulaArb(), words, check), { numRuns: 800, seed: 31 });
});

test('temporal shapes (F, G, U, G F, F G nestings) (800 cases)', () => {
  fc.assert(fc.property(temporalArb(), words, check), { numRuns: 800, seed: 32 });
});

test('random formulas with X, M and xor (800 cases)', () => {
  fc.assert(fc.property(formulaArb(['a', 'b', 'c'], 4, true), words, check), { numRuns: 800, seed: 33 });
});

test('next-heavy shapes (X chains, G (a -> X b), M) (800 cases)', () => {
  fc.assert(fc.property(nextArb(), words, check), { numRuns: 800, seed: 34 });
});

test('the stage changed a fair share of those formulas (the properties above are not vacuous)', (t) => {
  t.diagnostic(`${changed} of 3200 formulas minimised; states summed ${statesBefore} before, ${statesAfter} after`);
  // 73 since the simulation's letter cover and the transient states' acceptance (reduce.ts,
  // translate.ts) shrink some automata before this stage; 38 since the backward-simulation
  // quotient (cosimulation.ts, formulas with X) does more before it
  assert.ok(changed >= 30, `only ${changed} formulas were minimised`);
});
