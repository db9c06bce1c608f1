import { test } from 'node:test';
import assert from 'node:assert/strict';
import { translateLtl } from '../../../main/core/ltl/translate.js';
import { CASE_STUDIES } from '../../../main/core/ltl/case-studies.js';
import { counts } from '../../../main/core/ltl/automaton.js';
import { LtlBudgetError } from '../../../main/core/ltl/errors.js';

const gf = (n: number): string => Array.from({ length: n }, (_, i) => `G F p${i}`).join(' & ');
const fn = (n: number): string => Array.from({ length: n }, (_, i) => `F p${i}`).join(' & ');

/** State counts of ltl2ba 1.1 on the same formulas, measured on this machine (see docs/BENCHMARKS.md). */
const LTL2BA_STATES: Record<string, number> = { eq6: 63, disj: 5, rec: 23, neg: 5, mix: 47, mode: 20, giant: 20 };

test('no more states than ltl2ba on the case-study formulas', () => {
  for (const cs of CASE_STUDIES) {
    const { states } = counts(translateLtl(cs.formula).automaton);
    assert.ok(states <= LTL2BA_STATES[cs.id]!, `${cs.id}: ${states} states, ltl2ba ${LTL2BA_STATES[cs.id]}`);
  }
});

test('GF-n is n+1 states (one generalized state, not 2^n); GF-12 translates', () => {
  for (const n of [2, 5, 8, 12]) {
    const t = translateLtl(gf(n));
    assert.equal(t.automaton.states.length, n + 1, `GF-${n}`);
    assert.ok(t.stats.generalizedStates <= 2, `GF-${n} generalized states ${t.stats.generalizedStates}`);
  }
});

test('F-n needs 2^n states, and gets no more', () => {
  for (const n of [2, 4, 6]) assert.equal(translateLtl(fn(n)).automaton.states.length, 2 ** n);
});

test('trivial formulas give the expected tiny automata', () => {
  const t = translateLtl('true').automaton;
  assert.equal(t.states.length, 1);
  assert.equal(t.states[0]!.accepting, true);
  assert.equal(translateLtl('false').automaton.edges.length, 0);
  assert.equal(translateLtl('a & !a').automaton.edges.length, 0);
  assert.equal(translateLtl('G a').automaton.states.length, 1);
  assert.equal(translateLtl('F G a').automaton.states.length, 2);
});

test('state budget: fails fast with the stage and the limit', () => {
  assert.throws(
    () => translateLtl(fn(10), { maxStates: 100 }),
    (e: unknown) =>
      e instanceof LtlBudgetError &&
      e.budget === 'states' &&
      e.limit === 100 &&
      /exceeded its state budget of 100 states during/.test(e.message),
  );
});

test('time budget: an injected clock that runs out stops the translation', () => {
  let now = 0;
  const clock = (): number => (now += 5);
  assert.throws(
    () => translateLtl(fn(9), { timeLimit_ms: 50, clock }),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'time' && /time budget of 50 ms/.test(e.message),
  );
});

test('cancellation: an aborted signal stops the translation', () => {
  const controller = new AbortController();
  controller.abort();
  assert.throws(
    () => translateLtl(fn(9), { signal: controller.signal }),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'cancelled',
  );
});

test('the length budget applies before any work', () => {
  const long = 'a & '.repeat(3000) + 'a';
  assert.throws(
    () => translateLtl(long),
    (e: unknown) => e instanceof LtlBudgetError && e.budget === 'length',
  );
});
