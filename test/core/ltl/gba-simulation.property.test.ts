/**
 * The generalized automaton's reductions before degeneralization (gba-acceptance.ts,
 * gba-simulation.ts): acceptance marks simplified SCC by SCC, forward and backward simulation
 * quotients with little brothers dropped, iterated. Each keeps the language (checked through the
 * degeneralized automaton against the lasso evaluator), and so does numbering the acceptance sets
 * the other way round, or outside in (TranslateOptions.setOrder); the quotients without their mark
 * or initial conditions do not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf } from '../../../main/core/ltl/nnf.js';
import { buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { type Gba, buildGba } from '../../../main/core/ltl/gba.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from '../../../main/core/ltl/degeneralize.js';
import { toAutomaton } from '../../../main/core/ltl/reduce.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { reversedMarks, simplifyAcceptanceBySccs } from '../../../main/core/ltl/gba-acceptance.js';
import { gbaSimulationQuotient, iteratedGbaSimulation, simulatedGba } from '../../../main/core/ltl/gba-simulation.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso } from '../../../main/core/ltl/lasso.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { formulaArb, lassoArb, letterArb, nextArb, temporalArb } from './arbitraries.js';
import { paperSuite } from '../../../main/bench/ltl-suites.js';

const words = fc.array(lassoArb(letterArb()), { minLength: 8, maxLength: 8 });
const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());

/** The generalized automaton of f as the translator builds it before these reductions. */
function generalized(f: Formula): { gba: Gba; aps: string[] } {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  const vwaa = buildVwaa(root, nf, { gfLoops: true, disjunctionStates: false }, budget);
  return { gba: pruneAcceptanceSets(reduceGba(buildGba(vwaa, budget), budget), budget), aps };
}

/**
 * Whether the generalized automaton, degeneralized, agrees with the evaluator on every word; the first disagreement
 * when not.
 */
function disagreement(g: Gba, aps: string[], f: Formula, ws: readonly Lasso[]): string | null {
  const raw = degeneralize(g, () => '', new Budget(), 'zero');
  const ba = {
    accepting: raw.accepting,
    names: raw.names,
    initial: raw.initial,
    out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
  };
  const automaton = toAutomaton(ba, aps, printLtl(f));
  for (const w of ws) if (acceptsLasso(automaton, w) !== evaluateLasso(f, w)) return `${printLtl(f)} on ${showWord(w)}`;
  return null;
}

function showWord(w: Lasso): string {
  const l = (s: ReadonlySet<string>): string => `{${[...s].join(',')}}`;
  return `${w.prefix.map(l).join(' ')} (${w.cycle.map(l).join(' ')})ω`;
}

const edgeCount = (g: Gba): number => g.edges.reduce((n, l) => n + l.length, 0);

test('marks simplified SCC by SCC, each simulation quotient, the iterated one, with guards refined, against the evaluator (3000 cases)', () => {
  const changed = { scc: 0, forward: 0, backward: 0, iterated: 0, refined: 0 };
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { gba, aps } = generalized(f);
      const budget = new Budget();
      const scc = simplifyAcceptanceBySccs(gba, budget);
      if (scc !== gba) changed.scc++;
      const candidates: [string, Gba | null][] = [['scc', scc]];
      for (const direction of ['forward', 'backward'] as const) {
        const q = gbaSimulationQuotient(scc, aps.length, budget, direction);
        if (q !== null && (q.sets.length < scc.sets.length || edgeCount(q) < edgeCount(scc))) changed[direction]++;
        candidates.push([direction, q]);
      }
      const it = iteratedGbaSimulation(scc, aps.length, budget);
      if (it !== scc) changed.iterated++;
      const simulated = simulatedGba(gba, aps.length, budget);
      const refined = simulatedGba(gba, aps.length, budget, true);
      if (refined !== simulated && edgeCount(refined) !== edgeCount(simulated)) changed.refined++;
      candidates.push(
        ['iterated', it],
        ['simulated', simulated],
        ['simulated, sets reversed', reversedMarks(simulated)],
        ['simulated, guards refined', refined],
      );
      for (const [name, g] of candidates) {
        if (g === null) continue;
        const bad = disagreement(g, aps, f, ws);
        assert.equal(bad, null, `${name}: ${bad}`);
      }
    }),
    { numRuns: 3000, seed: 261 },
  );
  // non-vacuity: each reduction changed many of the automata
  for (const [name, n] of Object.entries(changed))
    assert.ok(n > (name === 'refined' ? 30 : 150), `${name} changed only ${n} of 3000 automata`);
});

test('mutants: the quotients without the acceptance marks change some languages (1000 cases each)', () => {
  for (const direction of ['forward', 'backward'] as const) {
    let wrong = 0;
    fc.assert(
      fc.property(shapes, words, (f, ws) => {
        const { gba, aps } = generalized(f);
        const q = gbaSimulationQuotient(gba, aps.length, new Budget(), direction, { marks: false, initial: true });
        if (q !== null && disagreement(q, aps, f, ws) !== null) wrong++;
      }),
      { numRuns: 1000, seed: 262 },
    );
    assert.ok(wrong > 10, `the mutant ${direction} without marks was caught on only ${wrong} formulas`);
  }
});

test("backward: a state with the initial state's pasts but the empty one is not merged with it (the mutant without the initial condition is)", () => {
  // q (initial) and p both read a from q or p, so only the empty past tells them apart; p alone reads b into r, which
  // loops accepting
  const a = { pos: 1n, neg: 0n },
    b = { pos: 2n, neg: 0n },
    t = { pos: 0n, neg: 0n };
  const gba: Gba = {
    sets: [1n, 2n, 4n],
    edges: [
      [
        { g: a, to: 0, acc: 0n },
        { g: a, to: 1, acc: 0n },
      ],
      [
        { g: a, to: 1, acc: 0n },
        { g: a, to: 0, acc: 0n },
        { g: b, to: 2, acc: 1n },
      ],
      [{ g: t, to: 2, acc: 1n }],
    ],
    nAcc: 1,
    accSource: [0],
    initial: 0,
  };
  const f = parseLtl('a & X(a U b)', { allowNext: true }); // a, then a until a b, then anything
  const bFirst: Lasso = { prefix: [new Set(['b'])], cycle: [new Set()] };
  const aThenB: Lasso = { prefix: [new Set(['a']), new Set(['b'])], cycle: [new Set()] };
  assert.equal(evaluateLasso(f, bFirst), false);
  assert.equal(evaluateLasso(f, aThenB), true);
  assert.equal(disagreement(gba, ['a', 'b'], f, [bFirst, aThenB]), null);
  assert.equal(gbaSimulationQuotient(gba, 2, new Budget(), 'backward')?.sets.length, 3, 'nothing merged');
  const mutant = gbaSimulationQuotient(gba, 2, new Budget(), 'backward', { marks: true, initial: false });
  assert.ok(mutant !== null && mutant.sets.length === 2);
  assert.notEqual(disagreement(mutant, ['a', 'b'], f, [bFirst]), null);
});

test('mutant: every accepting SCC taken for one where every cycle accepts changes some languages (1000 cases)', () => {
  let wrong = 0;
  fc.assert(
    fc.property(shapes, words, (f, ws) => {
      const { gba, aps } = generalized(f);
      const s = simplifyAcceptanceBySccs(gba, new Budget(), { cycles: false });
      if (disagreement(s, aps, f, ws) !== null) wrong++;
    }),
    { numRuns: 1000, seed: 263 },
  );
  assert.ok(wrong > 10, `the mutant was caught on only ${wrong} formulas`);
});

test('the simulated generalized automaton degeneralizes into a smaller Büchi automaton where ltl2tgba -B is smaller than ours was', () => {
  // rand-nx 138 of spot-measured.ts: marks simplified SCC by SCC take the automaton from 15 states
  // to Spot's 9, and the simulation's candidates read against what edges offer (not only what they
  // demand) to 7
  const f = parseLtl('G((Gp2 U Fp2) xor ((!p2 & Fp0) W Gp1))', { allowNext: true });
  const { gba, aps } = generalized(f);
  const s = simulatedGba(gba, aps.length, new Budget());
  assert.ok(s.nAcc < gba.nAcc, `acceptance sets ${gba.nAcc} → ${s.nAcc}`);
  assert.equal(translateFormula(f).automaton.states.length, 7);
  // rand-nx 126, the last row larger than Spot: 14 → Spot's 13 with the same candidates
  assert.equal(
    translateFormula(parseLtl('((p2 | (p2 -> p1)) -> p1) <-> (Gp0 <-> F(p1 W p2))')).automaton.states.length,
    13,
  );
  // pps-arbiter-standard=2: simulation on the generalized automaton (little brothers letter by letter) gives Spot's 19
  const arbiter = parseLtl(
    '(!r1 & !r2) -> (!g1 & !g2 & ((G(((r1 ^ g1) -> (r1 <-> Xr1)) & ((r2 ^ g2) -> (r2 <-> Xr2))) & GF!(r1 & g1) & GF!(r2 & g2)) -> (G(((r1 <-> g1) -> (g1 <-> Xg1)) & !(g2 & g1) & ((r2 <-> g2) -> (g2 <-> Xg2))) & GF(r1 <-> g1) & GF(r2 <-> g2))))',
    { allowNext: true },
  );
  const ga = generalized(arbiter);
  const sa = simulatedGba(ga.gba, ga.aps.length, new Budget());
  assert.ok(edgeCount(sa) < edgeCount(ga.gba), `edges ${edgeCount(ga.gba)} → ${edgeCount(sa)}`);
  assert.equal(translateFormula(arbiter).automaton.states.length, 19);
});

test('outer-first acceptance sets: the language kept (2000 cases), and on the bench suites no automaton larger, many smaller', () => {
  let reordered = 0;
  const nested = fc
    .tuple(
      fc.constantFrom('a', 'b', 'c'),
      fc.constantFrom('a', 'b', 'c'),
      fc.constantFrom('a', 'b', 'c'),
      formulaArb(['a', 'b', 'c'], 2, false),
    )
    .map(([x, y, z, rest]) => parseLtl(`G F (${x} & F (${y} & F ${z})) & (${printLtl(rest)})`));
  fc.assert(
    fc.property(fc.oneof(shapes, nested), words, (f, ws) => {
      const built = translateFormula(f, { minimize: false, setOrder: 'as-built' });
      const outer = translateFormula(f, { minimize: false, setOrder: 'outer-first' });
      if (outer.automaton.states.length !== built.automaton.states.length) reordered++;
      for (const w of ws)
        assert.equal(acceptsLasso(outer.automaton, w), evaluateLasso(f, w), `${printLtl(f)} on ${showWord(w)}`);
    }),
    { numRuns: 2000, seed: 264 },
  );
  assert.ok(reordered > 100, `the order changed the automaton of only ${reordered} of 2000 formulas`);
  // The `bench translate` suites (their formulas are the mission templates'): measured 31 of 300 smaller, none larger.
  let smaller = 0;
  for (const d of ['easy', 'medium', 'hard'] as const) {
    for (const { formula } of paperSuite(d, 100, 1)) {
      const x = translateFormula(formula, { setOrder: 'outer-first' }).automaton.states.length;
      const y = translateFormula(formula, { setOrder: 'as-built' }).automaton.states.length;
      assert.ok(x <= y, `${printLtl(formula)}: ${x} states outer-first, ${y} as built`);
      if (x < y) smaller++;
    }
  }
  assert.ok(smaller >= 25, `outer-first smaller on only ${smaller} of 300`);
  // a patrol of three regions, and two patrols with a persistence (hard suite): the levels follow the visits
  assert.deepEqual(
    [7, 4],
    ['as-built', 'outer-first'].map(
      (o) => translateFormula(parseLtl('G F (a & F (b & F c))'), { setOrder: o as 'as-built' }).automaton.states.length,
    ),
  );
  const two = parseLtl('G F (e7 & F (e5 & F (e0 & F e3))) & G F (e4 & F (e6 & F e2)) & F G e1');
  assert.deepEqual(
    [168, 9],
    ['as-built', 'outer-first'].map(
      (o) => translateFormula(two, { setOrder: o as 'as-built' }).automaton.states.length,
    ),
  );
});
