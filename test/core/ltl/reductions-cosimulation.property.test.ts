/**
 * Size reductions, each on its own against the lasso evaluator (seeded, with a non-vacuity count and
 * a mutant that must fail): the true
 * self-loop on a transient initial state of an eventuality; the second set of rewrites
 * (rewrite-more.ts); propositional disjunctions under X as one alternating state; the quotient by
 * backward simulation (cosimulation.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf, type Node } from '../../../main/core/ltl/nnf.js';
import { type MoreRule, RewriteMoreFactory } from '../../../main/core/ltl/rewrite-more.js';
import { moreNnf } from './more-nnf.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { buildGba } from '../../../main/core/ltl/gba.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from '../../../main/core/ltl/degeneralize.js';
import { type MutableBuchi, reduceBuchi, toAutomaton, withInitialLoop } from '../../../main/core/ltl/reduce.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { cosimulationQuotient } from '../../../main/core/ltl/cosimulation.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import {
  F,
  G,
  X,
  and,
  formulaArb,
  lassoArb,
  letterArb,
  litArb,
  nextArb,
  not,
  or,
  showLasso,
  temporalArb,
} from './arbitraries.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });

/** The reduced Büchi automaton of f as the translator builds it first, and whether f's NNF is an eventuality. */
function reduced(
  f: Formula,
  disjunctionStates = false,
): { ba: MutableBuchi; aps: string[]; eventual: boolean; joined: number; raw: MutableBuchi } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const vwaa = buildVwaa(root, nf, { gfLoops: true, disjunctionStates }, budget);
  const gba = pruneAcceptanceSets(reduceGba(buildGba(vwaa, budget), budget), budget);
  const raw = degeneralize(gba, () => '', budget, 'zero');
  const ba = {
    accepting: raw.accepting,
    names: raw.names,
    initial: raw.initial,
    out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
  };
  return {
    ba: reduceBuchi(ba, budget, true, aps.length),
    aps,
    eventual: nf.eventual(root),
    joined: vwaa.disjunctionStates,
    raw: ba,
  };
}

/** Whether the automaton agrees with the evaluator on every word; the first disagreement when not. */
function disagreement(a: MutableBuchi, aps: string[], f: Formula, ws: readonly Lasso[]): string | null {
  const automaton = toAutomaton(a, aps, printLtl(f));
  for (const w of ws)
    if (acceptsLasso(automaton, w) !== evaluateLasso(f, w)) return `${printLtl(f)} on ${showLasso(w)}`;
  return null;
}

/** Eventualities (F x, G F x, F G x, and Boolean combinations of them) and arbitrary formulas. */
function eventualArb(): fc.Arbitrary<Formula> {
  const sub = fc.oneof(formulaArb(['a', 'b', 'c'], 3, true), nextArb(), temporalArb());
  const ev = fc.tuple(fc.constantFrom('F', 'GF', 'FG', 'FX'), sub).map(([k, x]): Formula => {
    switch (k) {
      case 'F':
        return { kind: 'F', arg: x };
      case 'GF':
        return { kind: 'G', arg: { kind: 'F', arg: x } };
      case 'FG':
        return { kind: 'F', arg: { kind: 'G', arg: x } };
      default:
        return { kind: 'F', arg: { kind: 'X', arg: x } };
    }
  });
  const combo = fc
    .tuple(fc.constantFrom('and' as const, 'or' as const), fc.array(ev, { minLength: 2, maxLength: 3 }))
    .map(([kind, args]): Formula => ({ kind, args }));
  return fc.oneof(ev, combo, sub);
}

test('a true self-loop on the transient initial state of an eventuality, before and after reduction, against the evaluator (3000 cases)', () => {
  let looped = 0,
    shrunk = 0;
  fc.assert(
    fc.property(eventualArb(), words, (f, ws) => {
      const { ba, aps, eventual } = reduced(f);
      const l = withInitialLoop(ba, eventual);
      if (l === null) return;
      assert.ok(eventual);
      looped++;
      const r = reduceBuchi(l, new Budget(), true, aps.length);
      if (r.accepting.length < ba.accepting.length) shrunk++;
      for (const a of [l, r]) {
        const bad = disagreement(a, aps, f, ws);
        assert.equal(bad, null, bad ?? '');
      }
    }),
    { numRuns: 3000, seed: 231 },
  );
  assert.ok(looped > 200, `only ${looped} of 3000 automata got the loop`);
  assert.ok(shrunk > 100, `only ${shrunk} of 3000 automata shrank with the loop`);
});

test('mutant: the loop on formulas that are not eventualities changes some languages (1000 cases)', () => {
  let wrong = 0;
  fc.assert(
    fc.property(fc.oneof(nextArb(), temporalArb()), words, (f, ws) => {
      const { ba, aps, eventual } = reduced(f);
      if (eventual) return;
      const l = withInitialLoop(ba, true);
      if (l !== null && disagreement(l, aps, f, ws) !== null) wrong++;
    }),
    { numRuns: 1000, seed: 232 },
  );
  assert.ok(wrong > 50, `the mutant was caught on only ${wrong} formulas`);
});

/** Formulas shaped so that each rule of rewrite-more.ts has something to do, and unshaped ones. */
function moreArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  const lit = litArb;
  const shaped = fc
    .tuple(fc.integer({ min: 0, max: 11 }), lit, sub, sub, sub, lit)
    .map(([k, l, x, y, z, l2]): Formula => {
      switch (k) {
        case 0:
          return G(or(not(l), X(or(G(x), { kind: 'U', left: x, right: y }))));
        case 1:
          return G(or(not(x), X(G(not(l))), X(F(and(l, F(y))))));
        case 2:
          return and(G(x), G(F(and(y, X(F(and(z, X(F(l)))))))));
        case 3:
          return or(and(X(x), X(y)), or(X(z), X(l)));
        case 4:
          return and(x, or(and(x, y), z));
        case 5:
          return or(x, and(or(x, y), z));
        case 6:
          return or(G(l), F(y));
        case 7:
          return G(F(and(y, X(z))));
        case 8:
          return G(
            or(not(x), or({ kind: 'R', left: l2, right: l }, { kind: 'U', left: not(l2), right: and(not(l), F(y)) })),
          );
        case 9:
          return { kind: 'U', left: l, right: or(y, G(l)) };
        case 10:
          return { kind: 'U', left: x, right: or(y, G(x)) };
        default:
          return G(X(and(x, F(y))));
      }
    });
  return fc.oneof(shaped, shaped, shaped, sub);
}

test('second rewrites: the rewritten formula and the translation agree with the evaluator (1500 cases)', () => {
  const fires = new Map<MoreRule, number>();
  fc.assert(
    fc.property(moreArb(), words, (f, ws) => {
      const nf = new RewriteMoreFactory(true, new Budget());
      const { root, aps } = moreNnf(f, nf);
      for (const [rule, n] of nf.fires) fires.set(rule, (fires.get(rule) ?? 0) + n);
      const g = nodeToFormula(root, aps)!;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(g)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1500, seed: 233 },
  );
  for (const rule of ['G X', 'X junction', 'G F split', 'W', 'W from R', 'W from U', 'context'] as const) {
    assert.ok((fires.get(rule) ?? 0) > 40, `rule ${rule} fired only ${fires.get(rule) ?? 0} times`);
  }
});

test('mutant: the second rewrites without their side conditions change some languages (1000 cases)', () => {
  class Broken extends RewriteMoreFactory {
    protected override alwaysOnceInfinitelyOften(k: Node): boolean {
      return k.op === 'X';
    }
    protected override firstViolation(a: Node): boolean {
      return a.op === 'lit';
    }
  }
  let wrong = 0;
  fc.assert(
    fc.property(moreArb(), words, (f, ws) => {
      const { root, aps } = moreNnf(f, new Broken(true, new Budget()));
      const g = nodeToFormula(root, aps)!;
      if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
    }),
    { numRuns: 1000, seed: 234 },
  );
  assert.ok(wrong > 20, `the mutant was caught on only ${wrong} formulas`);
});

test('propositional disjunctions under X as one alternating state, before and after reduction, against the evaluator (3000 cases)', () => {
  let joined = 0;
  const lit = litArb;
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  // X (l1 | l2 & l3) beside a temporal operand, as Dwyer's and the hkrss patterns write them
  const nextOr = fc.tuple(sub, lit, lit, lit, sub, fc.boolean()).map(([x, l1, l2, l3, y, g]): Formula => {
    const step: Formula = { kind: 'X', arg: { kind: 'or', args: [l1, { kind: 'and', args: [l2, l3] }] } };
    const body: Formula = {
      kind: 'or',
      args: [
        { kind: 'not', arg: x },
        { kind: 'R', left: y, right: { kind: 'or', args: [l1, step] } },
      ],
    };
    return g ? { kind: 'G', arg: body } : { kind: 'F', arg: { kind: 'and', args: [x, step, { kind: 'X', arg: y }] } };
  });
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), moreArb(), nextOr);
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const r = reduced(f, true);
      if (r.joined === 0) return;
      joined++;
      for (const a of [r.raw, r.ba]) {
        const bad = disagreement(a, r.aps, f, ws);
        assert.equal(bad, null, bad ?? '');
      }
    }),
    { numRuns: 3000, seed: 235 },
  );
  assert.ok(joined > 250, `only ${joined} of 3000 formulas had a disjunction under X`);
});

test('the quotient by backward simulation, before and after reduction, against the evaluator (3000 cases)', () => {
  let merged = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb(), moreArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const r = reduced(f);
      const q = cosimulationQuotient(r.raw, r.aps.length, new Budget());
      const p = cosimulationQuotient(r.ba, r.aps.length, new Budget());
      if (p !== null) merged++;
      for (const a of [q, p, p && reduceBuchi(p, new Budget(), true, r.aps.length)]) {
        if (a === null) continue;
        const bad = disagreement(a, r.aps, f, ws);
        assert.equal(bad, null, bad ?? '');
      }
    }),
    { numRuns: 3000, seed: 236 },
  );
  assert.ok(merged > 100, `only ${merged} of 3000 reduced automata had states to merge`);
});

test('mutants: the backward quotient without its acceptance or its initial condition changes some languages (1000 cases)', () => {
  for (const conditions of [
    { acceptance: false, initial: true },
    { acceptance: true, initial: false },
  ]) {
    let wrong = 0;
    const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());
    fc.assert(
      fc.property(shapes, words, (f, ws) => {
        const r = reduced(f);
        const q = cosimulationQuotient(r.ba, r.aps.length, new Budget(), conditions);
        if (q !== null && disagreement(q, r.aps, f, ws) !== null) wrong++;
      }),
      { numRuns: 1000, seed: 237 },
    );
    assert.ok(wrong > 10, `the mutant ${JSON.stringify(conditions)} was caught on only ${wrong} formulas`);
  }
});

test('an alternative that runs past a size budget is skipped, not the translation failed', () => {
  // hkrss 29: the second rewrites' alternative needs more than 8 states in one stage, the
  // translation without it does not
  const f = parseLtl('G((p0 & p1 & !p2 & Xp2) -> X(p3 | X(!p1 | p3)))', { allowNext: true });
  assert.equal(translateFormula(f, { maxStates: 8 }).automaton.states.length, 3);
});
