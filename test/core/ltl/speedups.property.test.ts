/**
 * The translation-time work skips work whose outcome is known; each skip is claimed
 * to leave the result as it was. These tests hold the claims:
 * - entryChoiceMatters: false only when both entry choices build the same automaton;
 * - sameBuchi: true exactly for automata equal state for state;
 * - the constant-subformula stage offers a subformula to its proof exactly when every test word
 *   finds it constant, although it stops reading words once no candidate is left;
 * - the simulation relation (rewritten on flat arrays, with only needed targets covered) is the
 *   greatest simulation, checked against a plain fixpoint written here.
 * All seeded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { atomicPropositions, type Formula, formulaChildren } from '../../../main/core/ltl/ast.js';
import { Budget } from '../../../main/core/ltl/budget.js';
import { NodeFactory, toNnf } from '../../../main/core/ltl/nnf.js';
import { buildVwaa } from '../../../main/core/ltl/vwaa.js';
import { buildGba } from '../../../main/core/ltl/gba.js';
import {
  degeneralize,
  entryChoiceMatters,
  pruneAcceptanceSets,
  reduceGba,
} from '../../../main/core/ltl/degeneralize.js';
import { type MutableBuchi, reduceBuchi } from '../../../main/core/ltl/reduce.js';
import { type LetterEdge, edgeLetters, simulationRelation } from '../../../main/core/ltl/simulation.js';
import type { Term } from '../../../main/core/ltl/guard.js';
import { sameBuchi } from '../../../main/core/ltl/translate.js';
import { replaceConstantSubformulas, testWords } from '../../../main/core/ltl/constant.js';
import { truthVectors } from '../../../main/core/ltl/lasso.js';
import { formulaArb, nextArb, temporalArb } from './arbitraries.js';

function gbaOf(f: Formula) {
  const budget = new Budget();
  const aps = atomicPropositions(f);
  const nf = new NodeFactory(true, budget);
  const root = toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf, budget);
  return {
    aps,
    gba: pruneAcceptanceSets(
      reduceGba(buildGba(buildVwaa(root, nf, { gfLoops: true }, budget), budget), budget),
      budget,
    ),
  };
}

function mutable(raw: ReturnType<typeof degeneralize>): MutableBuchi {
  return {
    accepting: raw.accepting,
    names: raw.names,
    initial: raw.initial,
    out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
  };
}

const shapes = fc.oneof(formulaArb(['a', 'b', 'c'], 4, true), nextArb(), temporalArb());

test('entryChoiceMatters is false only when both entry choices build the same automaton (2000 cases)', (t) => {
  let same = 0,
    differ = 0,
    flagged = 0;
  fc.assert(
    fc.property(shapes, (f) => {
      const { gba } = gbaOf(f);
      const zero = mutable(degeneralize(gba, () => '', new Budget(), 'zero'));
      const acc = mutable(degeneralize(gba, () => '', new Budget(), 'accepting'));
      const equal = sameBuchi(zero, acc);
      if (equal) same++;
      else differ++;
      if (entryChoiceMatters(gba)) flagged++;
      else assert.ok(equal, 'entryChoiceMatters said no, but the two automata differ');
    }),
    { numRuns: 2000, seed: 251 },
  );
  t.diagnostic(`${same} built alike, ${differ} differently, ${flagged} flagged`);
  // non-vacuity: both outcomes occur, and the predicate spares most of the alike ones
  assert.ok(differ > 100 && same > 100, `${same} alike, ${differ} different`);
  assert.ok(2000 - flagged > same / 2, `only ${2000 - flagged} of ${same} alike spared`);
});

test('sameBuchi: equal state for state, and any one change tells them apart', () => {
  const t = (pos: bigint, neg: bigint): Term => ({ pos, neg });
  const a = (): MutableBuchi => ({
    accepting: [false, true],
    names: ['x', 'y'],
    initial: 0,
    out: [
      new Map([
        [1, [t(1n, 0n)]],
        [0, [t(0n, 1n)]],
      ]),
      new Map([[1, [t(0n, 0n)]]]),
    ],
  });
  assert.equal(sameBuchi(a(), a()), true);
  assert.equal(sameBuchi(a(), { ...a(), names: ['p', 'q'] }), true, 'names do not count');
  assert.equal(sameBuchi(a(), { ...a(), accepting: [true, true] }), false, 'acceptance');
  assert.equal(sameBuchi(a(), { ...a(), initial: 1 }), false, 'initial state');
  const b = a();
  b.out[0]!.set(1, [t(2n, 0n)]);
  assert.equal(sameBuchi(a(), b), false, 'a guard');
  const c = a();
  c.out[1]!.set(0, [t(0n, 0n)]);
  assert.equal(sameBuchi(a(), c), false, 'an extra edge');
  const d = a();
  d.out[0] = new Map([
    [0, [t(0n, 1n)]],
    [1, [t(1n, 0n)]],
  ]);
  assert.equal(sameBuchi(a(), d), false, "the order of a state's edges (the reductions read it)");
});

test('constant subformulas: a subformula is offered to the proof exactly when every test word finds it constant (1500 cases)', () => {
  let offered = 0,
    formulas = 0;
  fc.assert(
    fc.property(shapes, (f) => {
      const aps = atomicPropositions(f);
      // every word read, with no early stop: the verdict the stage must act on
      const everywhere = new Map<Formula, boolean | null>();
      for (const w of testWords(aps)) {
        const tv = truthVectors(f, w);
        for (const [g, v] of tv) {
          const now = v.every((x) => x) ? true : v.every((x) => !x) ? false : null;
          const prev = everywhere.get(g);
          everywhere.set(g, prev === undefined ? now : prev === now ? now : null);
        }
      }
      const asked: Formula[] = [];
      replaceConstantSubformulas(f, aps, (g) => {
        asked.push(g);
        return false;
      });
      if (asked.length > 0) formulas++;
      for (const g of asked) {
        offered++;
        // g is offered as ¬ψ (to prove ψ true) or as ψ (to prove it false)
        const psi = g.kind === 'not' && everywhere.get(g.arg) === true ? g.arg : g;
        assert.notEqual(everywhere.get(psi) ?? null, null, 'a subformula offered that some word finds not constant');
      }
      // none offered although some temporal subformula below the root is constant on every word
      // would mean the stage stopped early wrongly (it offers up to CONSTANT_MAX_PROOFS)
      if (asked.length === 0) {
        for (const [g, v] of everywhere) {
          if (g === f || v === null || !isTemporal(g)) continue;
          assert.fail(`${JSON.stringify(g)} is constant on every word but was not offered`);
        }
      }
    }),
    { numRuns: 1500, seed: 252 },
  );
  assert.ok(
    offered > 20 && formulas > 10,
    `only ${offered} subformulas offered in ${formulas} formulas: the test checks little`,
  );
});

function isTemporal(f: Formula): boolean {
  switch (f.kind) {
    case 'true':
    case 'false':
    case 'ap':
      return false;
    case 'F':
    case 'G':
    case 'X':
    case 'U':
    case 'R':
    case 'W':
    case 'M':
      return true;
    default:
      return formulaChildren(f).some(isTemporal);
  }
}

/** The greatest simulation by the textbook fixpoint over pairs. */
function plainSimulation(
  edges: readonly (readonly LetterEdge[])[],
  LW: number,
  candidate: (p: number, q: number) => boolean,
): boolean[][] {
  const n = edges.length;
  const sim = Array.from({ length: n }, (_, p) => Array.from({ length: n }, (_, q) => p === q || candidate(p, q)));
  for (let changed = true; changed;) {
    changed = false;
    for (let p = 0; p < n; p++)
      for (let q = 0; q < n; q++) {
        if (p === q || !sim[p]![q]) continue;
        const ok = edges[q]!.every((f) => {
          for (let v = 0; v < LW; v++) {
            let cover = 0;
            for (const e of edges[p]!) if (sim[e.to]![f.to]) cover |= e.letters[v]!;
            if ((f.letters[v]! & ~cover) !== 0) return false;
          }
          return true;
        });
        if (!ok) {
          sim[p]![q] = false;
          changed = true;
        }
      }
  }
  return sim;
}

test('the simulation relation equals the plain greatest fixpoint (800 cases)', () => {
  let pairs = 0;
  fc.assert(
    fc.property(shapes, (f) => {
      const { gba, aps } = gbaOf(f);
      const ba = reduceBuchi(
        mutable(degeneralize(gba, () => '', new Budget(), 'zero')),
        new Budget(),
        false,
        aps.length,
      );
      const { edges } = edgeLetters(ba, aps.length, new Budget());
      const LW = ((1 << aps.length) + 31) >>> 5;
      const acc = ba.accepting;
      const candidate = (p: number, q: number): boolean => !(acc[q] && !acc[p]);
      const has = simulationRelation(edges, LW, candidate, new Budget())!;
      const ref = plainSimulation(edges, LW, candidate);
      for (let p = 0; p < edges.length; p++)
        for (let q = 0; q < edges.length; q++) {
          assert.equal(has(p, q), ref[p]![q], `p ${p}, q ${q}`);
          if (p !== q && ref[p]![q]) pairs++;
        }
    }),
    { numRuns: 800, seed: 253 },
  );
  assert.ok(pairs > 200, `only ${pairs} simulating pairs: the test checks little`);
});
