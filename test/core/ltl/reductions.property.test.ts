/**
 * Size reductions, each on its own against the lasso evaluator (seeded): both
 * choices of entry levels in degeneralization, before and after the Büchi-level reduction; and the
 * rewrite F a | F b = F (a | b) on disjunctions made to contain several F operands; and the
 * replacement of subformulas proved equivalent to true or false; and little brothers dropped when
 * several siblings cover them together; the rewrite F (a | F b) = F (a | b); and the acceptance
 * of transient states, which no run visits twice, and redundant acceptance marks.
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
import {
  type MutableBuchi,
  reduceBuchi,
  toAutomaton,
  withRedundantAcceptanceDropped,
  withTransientAcceptance,
} from '../../../main/core/ltl/reduce.js';
import { simulationReductions } from '../../../main/core/ltl/simulation.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { constantSubformulasReplaced, translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { formulaArb, lassoArb, letterArb, nextArb, showLasso, temporalArb } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });

function degeneralized(f: Formula, entry: 'accepting' | 'zero'): { ba: MutableBuchi; aps: string[] } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const gba = pruneAcceptanceSets(
    reduceGba(buildGba(buildVwaa(root, nf, { gfLoops: true }, budget), budget), budget),
    budget,
  );
  const raw = degeneralize(gba, () => '', budget, entry);
  return {
    aps,
    ba: {
      accepting: raw.accepting,
      names: raw.names,
      initial: raw.initial,
      out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
    },
  };
}

function check(f: Formula, ws: readonly Lasso[]): void {
  for (const entry of ['accepting', 'zero'] as const) {
    const { ba, aps } = degeneralized(f, entry);
    for (const a of [ba, reduceBuchi(ba, new Budget(), true, aps.length)]) {
      const automaton = toAutomaton(a, aps, printLtl(f));
      for (const w of ws) {
        assert.equal(
          acceptsLasso(automaton, w),
          evaluateLasso(f, w),
          `${printLtl(f)} (entry ${entry}) on ${showLasso(w)}`,
        );
      }
    }
  }
}

test('degeneralization entry levels: random formulas with X, M and xor (1500 cases)', () => {
  fc.assert(
    fc.property(formulaArb(['a', 'b', 'c'], 4, true), words, (f, ws) => check(f, ws)),
    { numRuns: 1500, seed: 221 },
  );
});

test('degeneralization entry levels: temporal shapes (1500 cases)', () => {
  fc.assert(
    fc.property(temporalArb(), words, (f, ws) => check(f, ws)),
    { numRuns: 1500, seed: 222 },
  );
});

test('degeneralization entry levels: next-heavy shapes (1000 cases)', () => {
  fc.assert(
    fc.property(nextArb(), words, (f, ws) => check(f, ws)),
    { numRuns: 1000, seed: 223 },
  );
});

test('F a | F b = F (a | b): disjunctions of eventualities, with X, against the evaluator (1500 cases)', () => {
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  const disjunction = fc
    .tuple(fc.array(sub, { minLength: 2, maxLength: 3 }), fc.array(sub, { maxLength: 2 }))
    .map(([eventual, rest]): Formula => ({
      kind: 'or',
      args: [...eventual.map((x): Formula => ({ kind: 'F', arg: x })), ...rest],
    }));
  const shaped = fc.oneof(
    disjunction,
    disjunction.map((f): Formula => ({ kind: 'G', arg: f })),
    disjunction.map((f): Formula => ({ kind: 'not', arg: f })),
  );
  fc.assert(
    fc.property(shaped, words, (f, ws) => {
      const a = translateFormula(f).automaton;
      for (const w of ws) assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
    }),
    { numRuns: 1500, seed: 224 },
  );
});

test('constant subformulas: replaced by true or false only when equivalent, with X, against the evaluator (1500 cases)', () => {
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  // a tautology or contradiction built around a random temporal g, beside a random f
  const shaped = fc.tuple(sub, sub, fc.integer({ min: 0, max: 4 })).map(([f, g, k]): Formula => {
    const ng: Formula = { kind: 'not', arg: g };
    const xg: Formula = { kind: 'X', arg: g };
    switch (k) {
      case 0:
        return { kind: 'and', args: [f, { kind: 'or', args: [g, ng] }] };
      case 1:
        return { kind: 'or', args: [f, { kind: 'and', args: [g, ng] }] };
      case 2:
        return {
          kind: 'G',
          arg: {
            kind: 'or',
            args: [f, { kind: 'implies', left: xg, right: { kind: 'X', arg: { kind: 'F', arg: g } } }],
          },
        };
      case 3:
        return {
          kind: 'U',
          left: { kind: 'iff', left: xg, right: { kind: 'not', arg: { kind: 'X', arg: ng } } },
          right: f,
        };
      default:
        return f;
    }
  });
  let replaced = 0;
  fc.assert(
    fc.property(shaped, words, (f, ws) => {
      const s = constantSubformulasReplaced(f);
      if (s !== f) replaced++;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(s, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(s)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1500, seed: 225 },
  );
  // the shapes above make the replacement happen often (not only on the unshaped fifth)
  assert.ok(replaced > 300, `only ${replaced} of 1500 formulas had a subformula replaced`);
});

test('little brothers covered by several siblings together: both simulation results against the evaluator (4000 cases)', () => {
  let more = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = degeneralized(f, 'zero');
      const { plain, letters } = simulationReductions(
        reduceBuchi(ba, new Budget(), false, aps.length),
        aps.length,
        new Budget(),
      );
      if (letters !== null) more++;
      for (const a of letters === null ? [plain] : [plain, letters]) {
        const automaton = toAutomaton(a, aps, printLtl(f));
        for (const w of ws)
          assert.equal(acceptsLasso(automaton, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 4000, seed: 226 },
  );
  assert.ok(more > 50, `only ${more} of 4000 automata had an edge covered by several siblings`);
});

test('F (a | F b) = F (a | b): eventualities of disjunctions holding eventualities, with X, against the evaluator (1500 cases)', () => {
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  const inner = fc
    .tuple(fc.array(sub, { minLength: 1, maxLength: 2 }), fc.array(sub, { maxLength: 2 }))
    .map(([eventual, rest]): Formula => ({
      kind: 'F',
      arg: { kind: 'or', args: [...eventual.map((x): Formula => ({ kind: 'F', arg: x })), ...rest] },
    }));
  const shaped = fc.oneof(
    inner,
    inner.map((f): Formula => ({ kind: 'G', arg: { kind: 'implies', left: { kind: 'ap', name: 'a' }, right: f } })),
    inner.map((f): Formula => ({ kind: 'not', arg: f })),
    inner.map((f): Formula => ({ kind: 'X', arg: f })),
  );
  fc.assert(
    fc.property(shaped, words, (f, ws) => {
      for (const options of [{}, { minimize: false }]) {
        const a = translateFormula(f, options).automaton;
        for (const w of ws) assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1500, seed: 227 },
  );
});

test('transient states made accepting or not, before and after reduction, against the evaluator (3000 cases)', () => {
  let changed = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = degeneralized(f, 'zero');
      for (const value of [true, false]) {
        const t = withTransientAcceptance(ba, value);
        if (t === null) continue;
        changed++;
        for (const a of [t, reduceBuchi(t, new Budget(), true, aps.length)]) {
          const automaton = toAutomaton(a, aps, printLtl(f));
          for (const w of ws)
            assert.equal(
              acceptsLasso(automaton, w),
              evaluateLasso(f, w),
              `${printLtl(f)} (transient ${value}) on ${showLasso(w)}`,
            );
        }
      }
    }),
    { numRuns: 3000, seed: 228 },
  );
  assert.ok(changed > 1000, `only ${changed} automata had a transient state to change`);
});

test('redundant acceptance marks dropped, before and after reduction, against the evaluator (3000 cases)', () => {
  let changed = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = degeneralized(f, 'zero');
      const t = withRedundantAcceptanceDropped(ba);
      if (t === null) return;
      changed++;
      for (const a of [t, reduceBuchi(t, new Budget(), true, aps.length)]) {
        const automaton = toAutomaton(a, aps, printLtl(f));
        for (const w of ws)
          assert.equal(acceptsLasso(automaton, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 3000, seed: 229 },
  );
  assert.ok(changed > 300, `only ${changed} automata had a redundant acceptance mark`);
});
