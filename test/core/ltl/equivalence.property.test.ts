/**
 * Language containment by automata (equivalence.ts) against the lasso evaluator, an independent reading of the
 * semantics: when a ⊆ b is proved, no word satisfies a and violates b; when a word does, a ⊆ b is refuted. Every
 * formula contains itself and is contained in its disjunction with another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { languageContained, languageEquivalent } from '../../../main/core/ltl/equivalence.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { formulaArb, lassoArb, letterArb, nextArb, or, showLasso } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 24, maxLength: 24 });
const formula = fc.oneof(formulaArb(undefined, 3), nextArb());

test('containment agrees with the lasso evaluator on random formulas and words (300 cases)', () => {
  let proved = 0,
    refuted = 0,
    confirmed = 0;
  fc.assert(
    fc.property(formula, formula, words, (a, b, ws) => {
      const contained = languageContained(a, b);
      assert.notEqual(contained, null, `${printLtl(a)} ⊆ ${printLtl(b)} undecided`);
      const witness = ws.find((w) => evaluateLasso(a, w) && !evaluateLasso(b, w));
      if (contained) proved++;
      else refuted++;
      if (contained && witness !== undefined)
        assert.fail(`${printLtl(a)} ⊆ ${printLtl(b)} proved, but ${showLasso(witness)} satisfies a, not b`);
      // a refutation whose witness the sample missed is not checkable here; count those the sample confirms
      if (!contained && witness !== undefined) confirmed++;
    }),
    { numRuns: 300, seed: 7 },
  );
  assert.ok(proved > 20 && refuted > 20, `both answers occur: ${proved} proved, ${refuted} refuted`);
  assert.ok(confirmed > refuted / 2, `${confirmed} of ${refuted} refutations confirmed by a sampled word`);
});

test('every formula contains itself and is contained in its disjunction with another (100 cases)', () => {
  fc.assert(
    fc.property(formula, formula, (a, b) => {
      assert.equal(languageEquivalent(a, a), true, printLtl(a));
      assert.equal(languageContained(a, or(a, b)), true, `${printLtl(a)} ⊆ ${printLtl(a)} | ${printLtl(b)}`);
    }),
    { numRuns: 100, seed: 11 },
  );
});
