/**
 * X out of U and R (rewrite-more.ts): X a U X b = X (a U b) and X a R X b = X (a R b), where
 * true, false and suspendable formulas count as their own X. Against the lasso evaluator (seeded),
 * with a non-vacuity count and a mutant that must fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import type { Node } from '../../../main/core/ltl/nnf.js';
import { RewriteMoreFactory } from '../../../main/core/ltl/rewrite-more.js';
import { moreNnf } from './more-nnf.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { F, G, R, U, X, and, formulaArb, lassoArb, letterArb, litArb, or, showLasso } from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });

/**
 * Untils and releases between X formulas, suspendable formulas, true and false; beside other operands; unshaped
 * formulas.
 */
function nextUntilArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  const shaped = fc.tuple(fc.integer({ min: 0, max: 10 }), litArb, litArb, sub, sub).map(([k, l, m, x, y]): Formula => {
    switch (k) {
      case 0:
        return U(X(x), X(y));
      case 1:
        return R(X(x), X(y));
      case 2:
        return U(G(F(l)), X(X(m)));
      case 3:
        return U(G(F(l)), G(U(F(G(m)), X(X(y)))));
      case 4:
        return F(X(or(x, X(y))));
      case 5:
        return R(F(G(l)), X(y));
      case 6:
        return G(or(l, U(X(m), X(and(x, y)))));
      case 7:
        return R(X(x), G(F(m)));
      // an X beside an operand that is not its own X: the rule must leave these alone
      case 8:
        return U(l, X(m));
      case 9:
        return R(X(l), and(m, x));
      default:
        return U(x, X(X(y)));
    }
  });
  return fc.oneof(shaped, shaped, shaped, sub);
}

test('X out of U and R: the rewritten formula and the translation agree with the evaluator (2000 cases)', (t) => {
  let fired = 0;
  fc.assert(
    fc.property(nextUntilArb(), words, (f, ws) => {
      const nf = new RewriteMoreFactory(true, new Budget());
      const { root, aps } = moreNnf(f, nf);
      fired += nf.fires.get('X out of U/R') ?? 0;
      const g = nodeToFormula(root, aps)!;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(g)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 2000, seed: 251 },
  );
  t.diagnostic(`X out of U/R fired ${fired} times`);
  assert.ok(fired > 1000, `the rule fired only ${fired} times`);
});

test('mutant: X pulled out of U and R past any operand (not only X, true, false and suspendable ones) changes some languages (1000 cases)', (t) => {
  class AnyOperand extends RewriteMoreFactory {
    protected override underNext(n: Node): Node | null {
      return n.op === 'X' ? n.kids[0]! : n;
    }
  }
  let wrong = 0;
  fc.assert(
    fc.property(nextUntilArb(), words, (f, ws) => {
      const { root, aps } = moreNnf(f, new AnyOperand(true, new Budget()));
      const g = nodeToFormula(root, aps)!;
      if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
    }),
    { numRuns: 1000, seed: 252 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 50, `the mutant was caught on only ${wrong} formulas`);
});

test("sejk-f's X chains come out of the untils: G F a1 U G (G F a0 U X X b) is X X (G F a1 U G (G F a0 U b)), 14 states", () => {
  const f = parseLtl('GFa1 U G(GFa0 U XXb)', { allowNext: true });
  const nf = new RewriteMoreFactory(true, new Budget());
  const { root, aps } = moreNnf(f, nf);
  assert.equal(printLtl(nodeToFormula(root, aps)!), printLtl(parseLtl('XX(GFa1 U G(GFa0 U b))', { allowNext: true })));
  assert.equal(translateFormula(f).automaton.states.length, 14);
});
