/**
 * Size budgets bound the automaton a translation returns, not the alternatives it builds only to
 * keep a smaller one (the formula with constant subformulas replaced, the second rewrites, the
 * other degeneralization, the keepSmaller candidates, the last stage's proofs): one that runs past
 * a size budget is skipped. A state budget just big enough for the plain translation never fails
 * it, and the automaton keeps the language; time and cancellation still end the translation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { LtlBudgetError } from '../../../main/core/ltl/errors.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { translateFormula, type TranslateOptions } from '../../../main/core/ltl/translate.js';
import { F, G, X, and, formulaArb, lassoArb, letterArb, nextArb, showLasso } from './arbitraries.js';

/** Sizes are under test: a time limit far beyond them, so a loaded machine cannot trip the default. */
const UNTIMED: TranslateOptions = { timeLimit_ms: 600_000 };
/**
 * The scan formulas below were found with the acceptance sets counted as built (the default before
 * 'outer-first'), where the other degeneralization runs past the plain one's budget; counted outside
 * in, their automata are smaller and it no longer does. They keep testing that case.
 */
const AS_FOUND: TranslateOptions = { ...UNTIMED, setOrder: 'as-built' };

/**
 * Most states one stage of the plain translation makes: alternating, generalized (before its
 * reduction) and degeneralized automata, none of them an alternative (minimize: false runs no
 * formula-level alternative; the stats are the plain automata's).
 */
function plainStates(f: Formula, options = UNTIMED): number {
  const s = translateFormula(f, { ...options, minimize: false }).stats;
  return Math.max(s.alternatingStates, s.generalizedStates, s.degeneralizedStates);
}

const PROPS4 = ['a', 'b', 'c', 'd'];

/**
 * Conjunctions of mission-like parts (reach, patrol in order, stay, avoid until, respond with X)
 * over four propositions: several acceptance sets, so the other degeneralization is tried and is
 * often larger than the plain one.
 */
function missionArb(): fc.Arbitrary<Formula> {
  const ap = fc.constantFrom(...PROPS4).map((name): Formula => ({ kind: 'ap', name }));
  const part = fc.tuple(fc.integer({ min: 0, max: 7 }), ap, ap, ap, nextArb(PROPS4)).map(([k, x, y, z, n]): Formula => {
    switch (k) {
      case 0:
        return F(x);
      case 1:
        return G(F(and(x, F(y))));
      case 2:
        return G(F(and(x, F(and(y, F(z))))));
      case 3:
        return F(G(x));
      case 4:
        return { kind: 'U', left: { kind: 'not', arg: x }, right: y };
      case 5:
        return G({ kind: 'implies', left: x, right: X(F(y)) });
      case 6:
        return F(and(x, X(F(y))));
      default:
        return n;
    }
  });
  return fc.array(part, { minLength: 2, maxLength: 4 }).map((args): Formula => ({ kind: 'and', args }));
}

test('property: under a state budget equal to what the plain translation needs, no size-budget error, and the language of the unbudgeted translation (900 cases)', () => {
  let skippedCases = 0;
  const words = fc.array(lassoArb(letterArb(PROPS4)), { minLength: 8, maxLength: 8 });
  const shapes = fc.oneof(missionArb(), missionArb(), nextArb(PROPS4), formulaArb(PROPS4, 4, true));
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const m = plainStates(f);
      let budgeted;
      try {
        budgeted = translateFormula(f, { ...UNTIMED, maxStates: m });
      } catch (e) {
        assert.fail(`${printLtl(f)} under ${m} states: ${String(e)}`);
      }
      const free = translateFormula(f, UNTIMED);
      if (budgeted.stats.skipped.alternatives > 0) skippedCases++;
      // the budget only takes alternatives away: never a larger automaton than the budget's
      assert.ok(
        budgeted.automaton.states.length <= m,
        `${printLtl(f)}: ${budgeted.automaton.states.length} states > ${m}`,
      );
      for (const w of ws) {
        const want = evaluateLasso(f, w);
        assert.equal(acceptsLasso(budgeted.automaton, w), want, `${printLtl(f)} under ${m} states on ${showLasso(w)}`);
        assert.equal(acceptsLasso(free.automaton, w), want, `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 900, seed: 2401 },
  );
  // non-vacuity: alternatives ran past the budget (each such case failed the translation before)
  assert.ok(skippedCases > 100, `alternatives ran past the budget in only ${skippedCases} of 900 cases`);
});

test('the scan formulas that failed before: an alternative past the state budget is skipped', () => {
  // a budget just big enough for the plain translation; the other degeneralization needs more
  for (const [text, m, states] of [
    ['F e4 & F e7 & G F (e2 & F (e3 & F e0))', 21, 21],
    ['F (e1 | e5) & G F (e3 & F e5) & F (e0 & F e4) & G !e6', 8, 5],
    // dac 45 of Spot's patterns
    [
      '[] (p1 -> (p3 & X(!p2 U p4) -> X(!p2 U (p4 & <> p0))) U (p2 |[] (p3 & X(!p2 U p4) -> X(!p2 U (p4 & <> p0)))))',
      24,
      6,
    ],
  ] as const) {
    const f = parseLtl(text, { allowNext: true });
    assert.equal(plainStates(f, AS_FOUND), m, text);
    const t = translateFormula(f, { ...AS_FOUND, maxStates: m });
    assert.ok(t.stats.skipped.alternatives > 0, text);
    assert.equal(t.automaton.states.length, states, text);
    assert.equal(translateFormula(f, AS_FOUND).stats.skipped.alternatives, 0, text);
    // one state less is the plain translation's own budget error, as before
    assert.throws(
      () => translateFormula(f, { ...AS_FOUND, maxStates: m - 1 }),
      (e: unknown) => e instanceof LtlBudgetError && e.budget === 'states' && e.limit === m - 1,
    );
  }
});

test('cancellation is not skipped with an alternative: cancelled at any check, the translation is', () => {
  // the signal turns aborted after k readings; a translation that still finishes must never have
  // read it aborted (an alternative that swallowed 'cancelled' would finish after reading it)
  const f = parseLtl('F e4 & F e7 & G F (e2 & F (e3 & F e0))');
  for (const maxStates of [21, undefined]) {
    let finished = false;
    for (let k = 0; !finished; k += 1 + (k >> 4)) {
      let reads = 0;
      const signal = {
        get aborted(): boolean {
          return ++reads > k;
        },
      };
      try {
        translateFormula(f, { ...AS_FOUND, maxStates, signal });
        finished = true;
        assert.ok(reads <= k, `finished after reading the signal aborted (${reads} readings, aborted after ${k})`);
      } catch (e) {
        assert.ok(e instanceof LtlBudgetError && e.budget === 'cancelled', String(e));
      }
    }
  }
});
