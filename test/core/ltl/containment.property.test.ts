/**
 * Implications proved by automata (containment.ts): the NNF the containment factory makes, and the
 * translation, agree with the lasso evaluator on random formulas and on shapes where an implication
 * holds (seeded); the proofs do fire; and two mutants (implication read backwards, a prover that
 * proves everything the test words do not refute, with the words cut down) must fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { transitionCount } from '../../../main/core/ltl/automaton.js';
import { ContainmentFactory, type ContainmentProver } from '../../../main/core/ltl/containment.js';
import type { Node } from '../../../main/core/ltl/nnf.js';
import { moreNnf } from './more-nnf.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { F, G, R, U, X, and, formulaArb, lassoArb, letterArb, litArb, not, or, showLasso } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });
const M = (left: Formula, right: Formula): Formula => ({ kind: 'M', left, right });
const W = (left: Formula, right: Formula): Formula => ({ kind: 'W', left, right });
const iff = (left: Formula, right: Formula): Formula => ({ kind: 'iff', left, right });

/** Shapes where some implication between operands holds (and some where it does not), and unshaped formulas. */
function containmentArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  const shaped = fc.tuple(fc.integer({ min: 0, max: 11 }), litArb, litArb, sub).map(([k, l, m, x]): Formula => {
    switch (k) {
      case 0:
        return or(F(G(and(l, m))), G(F(or(l, x)))); // F G (l & m) ⇒ G F (l | x)
      case 1:
        return F(iff(M(m, G(l)), M(l, G(F(l))))); // rand-nx 158's shape
      case 2:
        return W(l, F(G(l)));
      case 3:
        return U(and(l, x), l); // a ⇒ b: a U b = b
      case 4:
        return U(not(l), or(l, x)); // ¬a ⇒ b: a U b = F b
      case 5:
        return R(or(l, x), l); // b ⇒ a: a R b = b
      case 6:
        return R(l, and(not(l), x)); // b ⇒ ¬a: a R b = G b
      case 7:
        return or(F(or(G(l), x)), G(F(l))); // a part of F that a sibling absorbs
      case 8:
        return and(G(and(F(l), x)), F(G(F(l)))); // … and of G that a sibling implies
      case 9:
        return and(G(F(l)), F(and(l, X(m))));
      case 10:
        return U(x, and(l, m)); // no implication in general
      default:
        return R(x, or(l, m));
    }
  });
  return fc.oneof(shaped, shaped, sub);
}

function prover(aps: readonly string[]): ContainmentProver {
  return {
    toFormula: (n) => nodeToFormula(n, aps),
    empty: (g) => transitionCount(translateFormula(g, { minimize: false }).automaton) === 0,
  };
}

function nnf(
  f: Formula,
  make: (aps: readonly string[]) => ContainmentFactory,
): { root: Node; aps: string[]; nf: ContainmentFactory } {
  const nf = make(atomicPropositions(f));
  return { ...moreNnf(f, nf), nf };
}

test('the containment NNF and the translation agree with the evaluator; proofs fire (1200 cases)', (t) => {
  let proofs = 0,
    proved = 0;
  fc.assert(
    fc.property(containmentArb(), words, (f, ws) => {
      const { root, aps, nf } = nnf(f, (aps) => new ContainmentFactory(aps, prover(aps)));
      proofs += nf.proofs;
      proved += nf.proved;
      const g = nodeToFormula(root, aps)!;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(g)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1200, seed: 281 },
  );
  t.diagnostic(`${proved} of ${proofs} proofs proved an implication`);
  assert.ok(proved > 300, `only ${proved} implications proved`);
  // the test words refute most pairs that do not imply: few proofs are spent in vain
  assert.ok(proved >= 0.8 * proofs, `${proofs - proved} of ${proofs} proofs failed`);
});

test('mutant: implication read backwards (a ⇒ b answered by b ⇒ a) changes some languages (600 cases)', (t) => {
  class Backwards extends ContainmentFactory {
    override implies(a: Node, b: Node): boolean {
      return this.provedEmpty(b, false, a, true);
    }
  }
  let wrong = 0;
  fc.assert(
    fc.property(containmentArb(), words, (f, ws) => {
      const { root, aps } = nnf(f, (aps) => new Backwards(aps, prover(aps)));
      const g = nodeToFormula(root, aps)!;
      if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
    }),
    { numRuns: 600, seed: 282 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 30, `the mutant was caught on only ${wrong} formulas`);
});

test('mutant: a prover that proves whatever it is asked changes some languages (600 cases)', (t) => {
  let wrong = 0;
  fc.assert(
    fc.property(containmentArb(), words, (f, ws) => {
      const { root, aps } = nnf(
        f,
        (aps) => new ContainmentFactory(aps, { toFormula: (n) => nodeToFormula(n, aps), empty: () => true }),
      );
      const g = nodeToFormula(root, aps)!;
      if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
    }),
    { numRuns: 600, seed: 283 },
  );
  // the test words stand between a lying prover and most wrong rewrites, but not all of them
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 0, 'a prover that proves everything was never caught');
});

test("Spot's rows that needed proved implications reach Spot's sizes: rand-nx 158 (5 → 3) and pps-arbiter-strict=1 (15 → 14)", () => {
  const size = (s: string): number => translateFormula(parseLtl(s, { allowNext: true })).automaton.states.length;
  assert.equal(size('F((p0 M Gp1) <-> (p1 M !F!GFp1))'), 3);
  assert.equal(
    size(
      '!r1 -> (!g1 & (((g1 <-> r1) -> (g1 <-> Xg1)) W !((g1 xor r1) -> (r1 <-> Xr1))) & ((GF!(g1 & r1) & G((g1 xor r1) -> (r1 <-> Xr1))) -> GF(g1 <-> r1)))',
    ),
    14,
  );
});
