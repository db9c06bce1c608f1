/**
 * The strong release with an X operand (nnf.ts nextAlongside): X a M b = b U (X a & b) =
 * b & X (b U a), and dually b W X a's release b R (X a | b) = b | X (b R a). Against the lasso
 * evaluator (seeded), with a count of how often the rule fired and a mutant that must fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, type Node } from '../../../main/core/ltl/nnf.js';
import { moreNnf } from './more-nnf.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { G, X, and, formulaArb, lassoArb, letterArb, litArb, or, showLasso } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });
const M = (left: Formula, right: Formula): Formula => ({ kind: 'M', left, right });
const W = (left: Formula, right: Formula): Formula => ({ kind: 'W', left, right });

/** Strong releases and weak untils with an X operand, X beside other operands, unshaped formulas. */
function nextStrongArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  const shaped = fc.tuple(fc.integer({ min: 0, max: 7 }), litArb, litArb, sub, sub).map(([k, l, m, x, y]): Formula => {
    switch (k) {
      case 0:
        return M(X(x), y);
      case 1:
        return W(y, X(x));
      case 2:
        return M(X(X(l)), or(and(l, m), y));
      case 3:
        return G(X(and(l, M(X(X(m)), y))));
      // X on the other side, or beside more than b: the rule must leave these alone
      case 4:
        return M(y, X(x));
      case 5:
        return W(X(x), y);
      case 6:
        return M(and(X(l), m), y);
      default:
        return W(y, or(X(l), m));
    }
  });
  return fc.oneof(shaped, shaped, shaped, sub);
}

class Counting extends NodeFactory {
  fired = 0;
  protected override nextAlongside(l: Node, r: Node, op: 'and' | 'or'): Node | null {
    const a = super.nextAlongside(l, r, op);
    if (a !== null) this.fired++;
    return a;
  }
}

test('X a M b = b & X (b U a) and its dual: the rewritten formula and the translation agree with the evaluator (1500 cases)', (t) => {
  let fired = 0;
  fc.assert(
    fc.property(nextStrongArb(), words, (f, ws) => {
      const nf = new Counting(true, new Budget());
      const { root, aps } = moreNnf(f, nf);
      fired += nf.fired;
      const g = nodeToFormula(root, aps)!;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(g)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1500, seed: 271 },
  );
  t.diagnostic(`the rule fired ${fired} times`);
  assert.ok(fired > 300, `the rule fired only ${fired} times`);
});

test('mutant: a one step late (b & X (b U X a)) changes some languages (800 cases)', (t) => {
  class OneStepLate extends NodeFactory {
    protected override nextAlongside(l: Node, r: Node, op: 'and' | 'or'): Node | null {
      const a = super.nextAlongside(l, r, op);
      return a === null ? null : this.X(a);
    }
  }
  let wrong = 0;
  fc.assert(
    fc.property(nextStrongArb(), words, (f, ws) => {
      const { root, aps } = moreNnf(f, new OneStepLate(true, new Budget()));
      const g = nodeToFormula(root, aps)!;
      if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
    }),
    { numRuns: 800, seed: 272 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 50, `the mutant was caught on only ${wrong} formulas`);
});

test('rand-x 168, G X (p0 & (p1 xor X (X X X p2 M (p0 xor p1)))), translates to 6 states', () => {
  const f = parseLtl('GX(p0 & (p1 xor X(XXXp2 M (p0 xor p1))))', { allowNext: true });
  assert.equal(translateFormula(f).automaton.states.length, 6);
});
