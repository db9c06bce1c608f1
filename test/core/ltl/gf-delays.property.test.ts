/**
 * Recurrences whose operand looks a bounded k ≥ 2 steps ahead (vwaa.ts VwaaOptions.gfDelays): the
 * recurrence's marked move goes to a chain of k - 1 delay states that brings it back, so tries of
 * ψ never overlap. Translations against the lasso evaluator (seeded), the alternating automaton's
 * shape, and the sizes on Spot's families.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf } from '../../../main/core/ltl/nnf.js';
import { buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { F, G, U, X, and, formulaArb, lassoArb, letterArb, litArb, not, or, showLasso } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb(), 5, 7), { minLength: 10, maxLength: 10 });
const iff = (left: Formula, right: Formula): Formula => ({ kind: 'iff', left, right });
const xs = (n: number, f: Formula): Formula => (n === 0 ? f : X(xs(n - 1, f)));

/** ψ with literals under X chains of length 0…3, joined by &, | and <->. */
function boundedArb(): fc.Arbitrary<Formula> {
  const atom = fc.tuple(fc.integer({ min: 0, max: 3 }), litArb).map(([n, l]) => xs(n, l));
  const { f } = fc.letrec<{ f: Formula }>((tie) => ({
    f: fc.oneof(
      { maxDepth: 3 },
      atom,
      fc
        .tuple(fc.constantFrom('and', 'or', 'iff'), tie('f'), tie('f'))
        .map(([k, a, b]): Formula => (k === 'and' ? and(a, b) : k === 'or' ? or(a, b) : iff(a, b))),
      tie('f').map((a) => X(a)),
    ),
  }));
  return f;
}

/** G F ψ alone, beside other recurrences and persistences, under U and inside a random formula. */
function recurrenceArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  return fc
    .tuple(fc.integer({ min: 0, max: 5 }), boundedArb(), boundedArb(), litArb, sub)
    .map(([k, p, q, l, x]): Formula => {
      switch (k) {
        case 0:
          return G(F(p));
        case 1:
          return and(G(F(p)), G(F(q)));
        case 2:
          return or(G(F(p)), F(G(l)));
        case 3:
          return U(x, G(F(p)));
        case 4:
          return and(x, not(G(F(p))));
        default:
          return G(or(l, F(and(p, X(q)))));
      }
    });
}

test('recurrences with delay states: translations agree with the evaluator (800 cases)', () => {
  fc.assert(
    fc.property(recurrenceArb(), words, (f, ws) => {
      const a = translateFormula(f).automaton;
      for (const w of ws) assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
    }),
    { numRuns: 800, seed: 291 },
  );
});

test('G F (a <-> X X X a): the marked move goes to a chain of two delay states that returns to the recurrence', () => {
  const f = parseLtl('GF(a <-> XXXa)', { allowNext: true });
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, new Budget());
  const root = toNnf(f, new Map(aps.map((p, i) => [p, i] as const)), nf);
  const name = (s: number): string => (s === 0 ? 'init' : printLtl(nodeToFormula(vwaa.states[s]!.node!, aps)!));
  const vwaa = buildVwaa(root, nf, { gfLoops: true, gfDelays: true }, new Budget());
  const gf = vwaa.states.findIndex((s) => s.node === root);
  const marked = vwaa.accepting[gf]!;
  assert.ok(marked.length > 0);
  const targets = (s: number, to: bigint): string[] =>
    [...Array(vwaa.states.length).keys()]
      .filter((i) => (to >> BigInt(i)) & 1n)
      .map(name)
      .filter((n) => n.includes('G F'));
  // every marked move leaves the recurrence for X X (the recurrence) …
  for (const m of marked) assert.deepEqual(targets(gf, m.to), [`X X ${name(gf)}`]);
  // … which moves to X (the recurrence), which moves back to it, on every letter
  const x2 = vwaa.states.findIndex((_, i) => name(i) === `X X ${name(gf)}`);
  const x1 = vwaa.states.findIndex((_, i) => name(i) === `X ${name(gf)}`);
  assert.deepEqual(
    vwaa.delta[x2]!.map((m) => m.to),
    [1n << BigInt(x1)],
  );
  assert.deepEqual(
    vwaa.delta[x1]!.map((m) => m.to),
    [1n << BigInt(gf)],
  );
  // without the option, the recurrence stays beside its try (every mix of pending tries)
  const plain = buildVwaa(root, nf, { gfLoops: true }, new Budget());
  for (const m of plain.accepting[gf]!) assert.ok((m.to >> BigInt(gf)) & 1n);
});

test('sizes: gf-equiv-xn=3 7 states (Spot 8, before 19); ms-example=3,1…3 4, 5, 6 (before 5, 6, 7)', () => {
  const size = (s: string): number => translateFormula(parseLtl(s, { allowNext: true })).automaton.states.length;
  assert.equal(size('GF(a <-> XXXa)'), 7);
  assert.equal(size('Fb1 & GF(a1 & X(a2 & Xa3))'), 4);
  assert.equal(size('F(b1 & Fb2) & GF(a1 & X(a2 & Xa3))'), 5);
  assert.equal(size('F(b1 & F(b2 & Fb3)) & GF(a1 & X(a2 & Xa3))'), 6);
});
