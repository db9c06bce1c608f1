/**
 * The translator against the lasso evaluator: the automaton accepts exactly the words the
 * formula's semantics accepts. Over 10 000 (formula, word-set) cases across shapes, next-free and
 * with Spot's whole syntax (X, M, xor): the evaluator is exact on lassos for X too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula, type TranslateOptions } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { pruneAutomaton } from '../../../main/core/ltl/prune.js';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { disjointLetterArb, formulaArb, lassoArb, letterArb, nextArb, showLasso, temporalArb } from './arbitraries.js';

function agree(f: Formula, words: readonly Lasso[], options: TranslateOptions = {}): void {
  const { automaton } = translateFormula(f, options);
  for (const w of words) {
    const expected = evaluateLasso(f, w);
    const got = acceptsLasso(automaton, w);
    assert.equal(
      got,
      expected,
      `formula ${printLtl(f)} on ${showLasso(w)}: automaton says ${got}, semantics ${expected}`,
    );
  }
}

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });
const disjointWords = fc.array(lassoArb(disjointLetterArb()), { minLength: 8, maxLength: 8 });

test('random formulas, letters with several propositions at once (3000 cases)', () => {
  fc.assert(
    fc.property(formulaArb(), words, (f, ws) => agree(f, ws)),
    { numRuns: 3000, seed: 1 },
  );
});

test('temporal shapes, letters with several propositions at once (3000 cases)', () => {
  fc.assert(
    fc.property(temporalArb(), words, (f, ws) => agree(f, ws)),
    { numRuns: 3000, seed: 2 },
  );
});

test('temporal shapes, at most one proposition per letter (2000 cases)', () => {
  fc.assert(
    fc.property(temporalArb(), disjointWords, (f, ws) => agree(f, ws)),
    { numRuns: 2000, seed: 3 },
  );
});

test('plain Gastin–Oddoux path (no recurrence loops, no rewriting, no bisimulation) agrees too (1000 cases)', () => {
  const plain = { gfLoops: false, rewrite: false, bisimulation: false };
  fc.assert(
    fc.property(temporalArb(), words, (f, ws) => agree(f, ws, plain)),
    { numRuns: 1000, seed: 4 },
  );
});

test('random formulas with X, M and xor (2000 cases)', () => {
  fc.assert(
    fc.property(formulaArb(['a', 'b', 'c'], 4, true), words, (f, ws) => agree(f, ws)),
    { numRuns: 2000, seed: 7 },
  );
});

test('next-heavy shapes (X chains, G (a -> X b), G F X a, M), letters with several propositions (2000 cases)', () => {
  fc.assert(
    fc.property(nextArb(), words, (f, ws) => agree(f, ws)),
    { numRuns: 2000, seed: 8 },
  );
});

test('next-heavy shapes on the plain Gastin–Oddoux path agree too (1000 cases)', () => {
  const plain = { gfLoops: false, rewrite: false, bisimulation: false };
  fc.assert(
    fc.property(nextArb(), words, (f, ws) => agree(f, ws, plain)),
    { numRuns: 1000, seed: 9 },
  );
});

test('next-heavy shapes with disjoint-mode pruning (500 cases)', () => {
  fc.assert(
    fc.property(nextArb(), disjointWords, (f, ws) => {
      const pruned = pruneAutomaton(translateFormula(f).automaton, { disjoint: true }).automaton;
      for (const w of ws)
        assert.equal(acceptsLasso(pruned, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
    }),
    { numRuns: 500, seed: 10 },
  );
});

test('disjoint-mode pruning keeps exactly the words with at most one proposition per letter (1000 cases)', () => {
  fc.assert(
    fc.property(temporalArb(), disjointWords, (f, ws) => {
      const { automaton } = translateFormula(f);
      const pruned = pruneAutomaton(automaton, { disjoint: true }).automaton;
      for (const w of ws) {
        assert.equal(acceptsLasso(pruned, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1000, seed: 5 },
  );
});

test('pruning an unavailable proposition keeps exactly the words where it never holds (1000 cases)', () => {
  const noC = fc.array(lassoArb(letterArb(['a', 'b'])), { minLength: 6, maxLength: 6 });
  fc.assert(
    fc.property(temporalArb(), noC, words, (f, ws, any) => {
      const { automaton } = translateFormula(f);
      const pruned = pruneAutomaton(automaton, { unavailable: ['c'] }).automaton;
      for (const w of ws)
        assert.equal(acceptsLasso(pruned, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      // never more than the original language
      for (const w of any)
        if (acceptsLasso(pruned, w)) assert.ok(evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
    }),
    { numRuns: 1000, seed: 6 },
  );
});
