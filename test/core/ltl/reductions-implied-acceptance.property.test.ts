/**
 * Size reductions, each on its own against the lasso evaluator (seeded, with a non-vacuity count and
 * a mutant that must fail): the X release
 * rewrite (rewrite-more.ts), every disjunction under X as one alternating state (vwaa.ts),
 * acceptance implied by every cycle (reduce.ts withImpliedAcceptance), and trial merges proved with
 * the negation's automaton (merge.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf, type Node } from '../../../main/core/ltl/nnf.js';
import { RewriteMoreFactory } from '../../../main/core/ltl/rewrite-more.js';
import { moreNnf } from './more-nnf.js';
import { nodeToFormula, translateFormula } from '../../../main/core/ltl/translate.js';
import { type Vwaa, buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { buildGba } from '../../../main/core/ltl/gba.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from '../../../main/core/ltl/degeneralize.js';
import {
  type MutableBuchi,
  emptyBuchi,
  reduceBuchi,
  toAutomaton,
  withImpliedAcceptance,
} from '../../../main/core/ltl/reduce.js';
import { MERGE_MAX_STATES, provedMerges } from '../../../main/core/ltl/merge.js';
import { type Term, termAnd } from '../../../main/core/ltl/guard.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { stronglyConnected } from '../../../main/core/ltl/scc.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import {
  F,
  G,
  R,
  U,
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

const lit = litArb;

/** Releases with an X on the left (as the hkrss patterns write `!Xp1 U p2` negated), and unshaped formulas. */
function nextReleaseArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 2, true);
  const shaped = fc
    .tuple(fc.integer({ min: 0, max: 5 }), lit, lit, sub, sub, lit)
    .map(([k, l, m, x, y, n]): Formula => {
      switch (k) {
        case 0:
          return X(F(and(n, F(l), R(X(l), m))));
        case 1:
          return G(or(not(n), G(l), U(X(l), m)));
        case 2:
          return R(X(x), y);
        case 3:
          return and(F(x), R(X(X(l)), m));
        case 4:
          return G(or(n, R(X(or(l, x)), and(m, y))));
        default:
          return R(X(l), R(X(m), n));
      }
    });
  return fc.oneof(shaped, shaped, shaped, sub);
}

test('X release: the rewritten formula and the translation agree with the evaluator (1500 cases)', (t) => {
  let fired = 0;
  fc.assert(
    fc.property(nextReleaseArb(), words, (f, ws) => {
      const nf = new RewriteMoreFactory(true, new Budget());
      const { root, aps } = moreNnf(f, nf);
      fired += nf.fires.get('X R') ?? 0;
      const g = nodeToFormula(root, aps)!;
      const a = translateFormula(f).automaton;
      for (const w of ws) {
        assert.equal(evaluateLasso(g, w), evaluateLasso(f, w), `${printLtl(f)} → ${printLtl(g)} on ${showLasso(w)}`);
        assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${printLtl(f)} on ${showLasso(w)}`);
      }
    }),
    { numRuns: 1500, seed: 241 },
  );
  t.diagnostic(`X release fired ${fired} times`);
  assert.ok(fired > 800, `the X release rule fired only ${fired} times`);
});

test('mutants: the X release rewrite without b now, or without a in the weak until, changes some languages (1000 cases)', (t) => {
  class NoNow extends RewriteMoreFactory {
    protected override nextRelease(a: Node, b: Node): Node {
      return this.X(this.R(a, this.or([a, b])));
    }
  }
  class NoExit extends RewriteMoreFactory {
    protected override nextRelease(a: Node, b: Node): Node {
      return this.and([b, this.X(this.R(a, b))]);
    }
  }
  for (const Broken of [NoNow, NoExit]) {
    let wrong = 0;
    fc.assert(
      fc.property(nextReleaseArb(), words, (f, ws) => {
        const { root, aps } = moreNnf(f, new Broken(true, new Budget()));
        const g = nodeToFormula(root, aps)!;
        if (ws.some((w) => evaluateLasso(g, w) !== evaluateLasso(f, w))) wrong++;
      }),
      { numRuns: 1000, seed: 242 },
    );
    t.diagnostic(`mutant ${Broken.name} caught on ${wrong} formulas`);
    assert.ok(wrong > 100, `the mutant ${Broken.name} was caught on only ${wrong} formulas`);
  }
});

/** Disjunctions under X that are not propositional: beside a G, a recurrence, an until, a release. */
function nextOrArb(): fc.Arbitrary<Formula> {
  const sub = formulaArb(['a', 'b', 'c'], 3, true);
  const shaped = fc.tuple(fc.integer({ min: 0, max: 4 }), lit, lit, sub, sub).map(([k, l, m, x, y]): Formula => {
    switch (k) {
      case 0:
        return G(or(not(l), X(or(m, U(l, or(m, x))))));
      case 1:
        return G(or(l, X(or(G(F(m)), x))));
      case 2:
        return F(and(l, X(or(not(m), G(y))), X(x)));
      case 3:
        return R(y, or(m, X(or(x, U(y, l)))));
      default:
        return G(or(not(and(l, X(m))), X(or(X(not(l)), U(m, U(not(m), or(not(l), x)))))));
    }
  });
  return fc.oneof(shaped, shaped, nextArb(), formulaArb(['a', 'b', 'c'], 4, true));
}

function vwaaOf(f: Formula): { vwaa: Vwaa; aps: string[] } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  return { vwaa: buildVwaa(root, nf, { gfLoops: true, disjunctionStates: true }, budget), aps };
}

/** The degeneralized automaton of an alternating one, and reduced. */
function buchiOf(vwaa: Vwaa, aps: readonly string[]): { raw: MutableBuchi; ba: MutableBuchi } {
  const budget = new Budget();
  const gba = pruneAcceptanceSets(reduceGba(buildGba(vwaa, budget), budget), budget);
  const d = degeneralize(gba, () => '', budget, 'zero');
  const raw = {
    accepting: d.accepting,
    names: d.names,
    initial: d.initial,
    out: d.accepting.map((_, i) => d.edges.get(i) ?? new Map<number, Term[]>()),
  };
  return { raw, ba: reduceBuchi(raw, budget, true, aps.length) };
}

function disagreement(a: MutableBuchi, aps: readonly string[], f: Formula, ws: readonly Lasso[]): string | null {
  const automaton = toAutomaton(a, aps, printLtl(f));
  for (const w of ws)
    if (acceptsLasso(automaton, w) !== evaluateLasso(f, w)) return `${printLtl(f)} on ${showLasso(w)}`;
  return null;
}

/** Whether some state of the alternating automaton stands for a disjunction that is not propositional. */
function temporalDisjunction(vwaa: Vwaa): boolean {
  const propositional = (n: Node): boolean =>
    n.op === 'lit' || ((n.op === 'and' || n.op === 'or') && n.kids.every(propositional));
  return vwaa.states.some((s) => s.node !== null && s.node.op === 'or' && !propositional(s.node));
}

test('every disjunction under X as one alternating state, before and after reduction, against the evaluator (3000 cases)', (t) => {
  let temporal = 0;
  fc.assert(
    fc.property(nextOrArb(), words, (f, ws) => {
      const { vwaa, aps } = vwaaOf(f);
      if (vwaa.disjunctionStates === 0) return;
      if (temporalDisjunction(vwaa)) temporal++;
      const { raw, ba } = buchiOf(vwaa, aps);
      for (const a of [raw, ba]) {
        const bad = disagreement(a, aps, f, ws);
        assert.equal(bad, null, bad ?? '');
      }
    }),
    { numRuns: 3000, seed: 243 },
  );
  t.diagnostic(`${temporal} formulas with a temporal disjunction under X`);
  assert.ok(temporal > 400, `only ${temporal} of 3000 formulas had a temporal disjunction under X`);
});

test('mutant: a disjunction state that reads its disjuncts at its own position changes some languages (1000 cases)', (t) => {
  let wrong = 0;
  fc.assert(
    fc.property(nextOrArb(), words, (f, ws) => {
      const { vwaa, aps } = vwaaOf(f);
      if (!temporalDisjunction(vwaa)) return;
      // the mutant: X (x | y) read as x | y, i.e. every move into a disjunction state replaced by that state's own
      // moves
      const or = new Set(vwaa.states.flatMap((s, i) => (s.node !== null && s.node.op === 'or' ? [i] : [])));
      const delta = vwaa.delta.map((ms) =>
        ms.flatMap((m) => {
          const into = [...or].filter((s) => ((m.to >> BigInt(s)) & 1n) !== 0n);
          if (into.length !== 1) return [m];
          const s = into[0]!;
          const rest = m.to & ~(1n << BigInt(s));
          return vwaa.delta[s]!.flatMap((n) => {
            const g = termAnd(m.g, n.g);
            return g === null ? [] : [{ g, to: rest | n.to, acc: m.acc | n.acc }];
          });
        }),
      );
      const { raw } = buchiOf({ ...vwaa, delta }, aps);
      if (disagreement(raw, aps, f, ws) !== null) wrong++;
    }),
    { numRuns: 1000, seed: 244 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 40, `the mutant was caught on only ${wrong} formulas`);
});

/** The reduced Büchi automaton of f as the translator builds it first. */
function reduced(f: Formula): { ba: MutableBuchi; aps: string[] } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const { ba } = buchiOf(buildVwaa(root, nf, { gfLoops: true }, budget), aps);
  return { ba, aps };
}

test('acceptance implied by every cycle, before and after reduction, against the evaluator (3000 cases)', (t) => {
  let changed = 0,
    cyclic = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb(), nextOrArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = reduced(f);
      const t = withImpliedAcceptance(ba);
      if (t === null) return;
      changed++;
      // non-vacuity beyond transient states: some state made accepting lies on a cycle
      if (t.accepting.some((acc, q) => acc && !ba.accepting[q] && onCycle(ba, q))) cyclic++;
      for (const a of [t, reduceBuchi(t, new Budget(), true, aps.length)]) {
        const bad = disagreement(a, aps, f, ws);
        assert.equal(bad, null, bad ?? '');
      }
    }),
    { numRuns: 3000, seed: 245 },
  );
  t.diagnostic(`${changed} automata changed, ${cyclic} of them on a cycle`);
  assert.ok(changed > 800, `only ${changed} automata had a state to make accepting`);
  assert.ok(cyclic > 100, `only ${cyclic} automata had such a state on a cycle`);
});

function onCycle(a: MutableBuchi, q: number): boolean {
  const seen = new Set<number>();
  const stack = [q];
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (const w of a.out[v]!.keys()) {
      if (w === q) return true;
      if (!seen.has(w)) {
        seen.add(w);
        stack.push(w);
      }
    }
  }
  return false;
}

test('mutant: acceptance given to every state in an SCC with an accepting state (not every cycle) changes some languages (1000 cases)', (t) => {
  let wrong = 0;
  const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb(), nextOrArb());
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = reduced(f);
      const comp = stronglyConnected(ba.accepting.length, (v) => ba.out[v]!.keys());
      const good = new Set(ba.accepting.flatMap((acc, q) => (acc ? [comp[q]] : [])));
      const accepting = ba.accepting.map((acc, q) => acc || good.has(comp[q]));
      if (accepting.every((acc, q) => acc === ba.accepting[q])) return;
      if (disagreement({ ...ba, accepting }, aps, f, ws) !== null) wrong++;
    }),
    { numRuns: 1000, seed: 246 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 80, `the mutant was caught on only ${wrong} formulas`);
});

test("trial merges proved with the negation's automaton, against the evaluator (2000 cases)", (t) => {
  let merged = 0,
    removed = 0;
  const shapes = fc.oneof(nextArb(), nextOrArb(), nextReleaseArb(), formulaArb(['a', 'b', 'c'], 4, true));
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = reduced(f);
      if (ba.accepting.length > MERGE_MAX_STATES) return;
      const neg = reduced(not(f));
      assert.deepEqual(neg.aps, aps);
      const m = provedMerges(ba, neg.ba, aps.length, new Budget());
      if (m === null) return;
      merged++;
      removed += ba.accepting.length - m.accepting.length;
      assert.ok(m.accepting.length < ba.accepting.length);
      const bad = disagreement(m, aps, f, ws);
      assert.equal(bad, null, bad ?? '');
    }),
    { numRuns: 2000, seed: 247 },
  );
  t.diagnostic(`${merged} automata merged, ${removed} states removed`);
  assert.ok(merged > 100, `only ${merged} of 2000 automata had a proved merge`);
  assert.ok(removed > merged, `${removed} states removed in ${merged} automata`);
});

test('mutant: merges "proved" with an empty negation change some languages (1000 cases)', (t) => {
  let wrong = 0;
  const shapes = fc.oneof(nextArb(), nextOrArb(), formulaArb(['a', 'b', 'c'], 4, true));
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { ba, aps } = reduced(f);
      if (ba.accepting.length > MERGE_MAX_STATES) return;
      const m = provedMerges(ba, emptyBuchi(), aps.length, new Budget());
      if (m !== null && disagreement(m, aps, f, ws) !== null) wrong++;
    }),
    { numRuns: 1000, seed: 248 },
  );
  t.diagnostic(`mutant caught on ${wrong} formulas`);
  assert.ok(wrong > 100, `the mutant was caught on only ${wrong} formulas`);
});
