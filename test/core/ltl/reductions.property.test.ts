/**
 * The size reductions of issue 22, each on its own against the lasso evaluator (seeded): both
 * choices of entry levels in degeneralization, before and after the Büchi-level reduction; and the
 * rewrite F a | F b = F (a | b) on disjunctions made to contain several F operands.
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
import { type MutableBuchi, reduceBuchi, toAutomaton } from '../../../main/core/ltl/reduce.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { formulaArb, lassoArb, letterArb, nextArb, showLasso, temporalArb } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });

function degeneralized(f: Formula, entry: 'accepting' | 'zero'): { ba: MutableBuchi; aps: string[] } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const gba = pruneAcceptanceSets(reduceGba(buildGba(buildVwaa(root, nf, { gfLoops: true }, budget), budget), budget), budget);
  const raw = degeneralize(gba, () => '', budget, entry);
  return {
    aps,
    ba: { accepting: raw.accepting, names: raw.names, initial: raw.initial, out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()) },
  };
}

function check(f: Formula, ws: readonly Lasso[]): void {
  for (const entry of ['accepting', 'zero'] as const) {
    const { ba, aps } = degeneralized(f, entry);
    for (const a of [ba, reduceBuchi(ba, new Budget(), true, aps.length)]) {
      const automaton = toAutomaton(a, aps, printLtl(f));
      for (const w of ws) {
        assert.equal(acceptsLasso(automaton, w), evaluateLasso(f, w), `${printLtl(f)} (entry ${entry}) on ${showLasso(w)}`);
      }
    }
  }
}

test('degeneralization entry levels: random formulas with X, M and xor (1500 cases)', () => {
  fc.assert(fc.property(formulaArb(['a', 'b', 'c'], 4, true), words, (f, ws) => check(f, ws)), { numRuns: 1500, seed: 221 });
});

test('degeneralization entry levels: temporal shapes (1500 cases)', () => {
  fc.assert(fc.property(temporalArb(), words, (f, ws) => check(f, ws)), { numRuns: 1500, seed: 222 });
});

test('degeneralization entry levels: next-heavy shapes (1000 cases)', () => {
  fc.assert(fc.property(nextArb(), words, (f, ws) => check(f, ws)), { numRuns: 1000, seed: 223 });
});

test('F a | F b = F (a | b): disjunctions of eventualities, with X, against the evaluator (1500 cases)', () => {
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  const disjunction = fc.tuple(fc.array(sub, { minLength: 2, maxLength: 3 }), fc.array(sub, { maxLength: 2 }))
    .map(([eventual, rest]): Formula => ({ kind: 'or', args: [...eventual.map((x): Formula => ({ kind: 'F', arg: x })), ...rest] }));
  const shaped = fc.oneof(disjunction, disjunction.map((f): Formula => ({ kind: 'G', arg: f })), disjunction.map((f): Formula => ({ kind: 'not', arg: f })));
  fc.assert(fc.property(shaped, words, (f, ws) => {
    const a = translateFormula(f).automaton;
    for (const w of ws) assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
  }), { numRuns: 1500, seed: 224 });
});
