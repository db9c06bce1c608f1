/**
 * The differential suite on Spot's pattern families (spot-patterns.ts, Spot 2.9.6's
 * `genltl --dac --eh --sb --hkrss --p` and negations, X included): every automaton against the
 * lasso evaluator, on seeded random lassos and on lassos read off the automaton of the formula
 * (each must satisfy it) and of its negation (each must falsify it); then our sizes against the
 * recorded table spot-guard.ts (no formula may grow), with the count above / equal / below Spot's
 * `ltl2tgba -B` reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso, type Lasso, type Letter } from '../../../main/core/ltl/lasso.js';
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import type { BuchiAutomaton } from '../../../main/core/ltl/automaton.js';
import { lassoArb, letterArb, showLasso } from './arbitraries.js';
import { SPOT_PATTERNS, patternName } from './spot-patterns.js';
import { measurePatterns, summaries } from './spot-sizes.js';
import { OUR_STATES } from './spot-guard.js';
import { createRng } from '../../../main/core/random/rng.js';


/**
 * Up to `count` lassos the automaton accepts: a random accepting state on a cycle, a random
 * shortest path to it and a random shortest cycle back, each edge read as a random letter of a
 * random term of its guard.
 */
function acceptedLassos(a: BuchiAutomaton, count: number, seed: number): Lasso[] {
  const r = createRng(seed);
  const random = (): number => r.next();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: { to: number; guard: BuchiAutomaton['edges'][number]['guard'] }[][] = a.states.map(() => []);
  for (const e of a.edges) out[e.from]!.push({ to: e.to, guard: e.guard });
  const letterOf = (guard: BuchiAutomaton['edges'][number]['guard']): Letter => {
    const t = pick(guard);
    const letter = new Set<string>();
    a.aps.forEach((name, i) => {
      const bit = 1n << BigInt(i);
      if ((t.pos & bit) !== 0n || ((t.neg & bit) === 0n && random() < 0.5)) letter.add(name);
    });
    return letter;
  };
  /** Letters along a random shortest path from `from` (after one step when `step`) to `to`; null when none. */
  const path = (from: number, to: number, step: boolean): Letter[] | null => {
    const prev = new Map<number, [number, Letter]>();
    let frontier = [from];
    const seen = new Set<number>(step ? [] : [from]);
    if (!step && from === to) return [];
    while (frontier.length > 0) {
      const next: number[] = [];
      for (const q of [...frontier].sort(() => random() - 0.5)) {
        for (const e of [...out[q]!].sort(() => random() - 0.5)) {
          if (seen.has(e.to)) continue;
          seen.add(e.to);
          prev.set(e.to, [q, letterOf(e.guard)]);
          if (e.to === to) {
            const letters: Letter[] = [];
            let v = to;
            do {
              const [p, l] = prev.get(v)!;
              letters.unshift(l);
              v = p;
            } while (v !== from);
            return letters;
          }
          next.push(e.to);
        }
      }
      frontier = next;
    }
    return null;
  };
  const lassos: Lasso[] = [];
  const initial = a.initial[0]!;
  const candidates = a.states.flatMap((s, q) => (s.accepting ? [q] : []));
  for (let k = 0; k < count * 4 && lassos.length < count && candidates.length > 0; k++) {
    const q = pick(candidates);
    const prefix = path(initial, q, false);
    const cycle = prefix === null ? null : path(q, q, true);
    if (prefix !== null && cycle !== null && cycle.length > 0) lassos.push({ prefix, cycle });
  }
  return lassos;
}

const negate = (f: Formula): Formula => ({ kind: 'not', arg: f });

test('every pattern and negation agrees with the lasso evaluator (random and automaton-guided lassos)', () => {
  SPOT_PATTERNS.forEach((p, i) => {
    const f = parseLtl(p.formula, { allowNext: true });
    const a = translateFormula(f).automaton;
    const words = fc.sample(lassoArb(letterArb(atomicPropositions(f))), { numRuns: 24, seed: 1000 + i });
    for (const w of words) {
      assert.equal(acceptsLasso(a, w), evaluateLasso(f, w), `${patternName(p)} ${p.formula} on ${showLasso(w)}`);
    }
    for (const w of acceptedLassos(a, 12, 2000 + i)) {
      assert.ok(evaluateLasso(f, w), `${patternName(p)} ${p.formula}: automaton accepts ${showLasso(w)}, a word the formula rejects`);
    }
    const na = translateFormula(negate(f)).automaton;
    for (const w of acceptedLassos(na, 12, 3000 + i)) {
      assert.ok(!evaluateLasso(f, w), `${patternName(p)} ${p.formula}: negation's automaton accepts ${showLasso(w)}, a word the formula accepts`);
      assert.ok(!acceptsLasso(a, w), `${patternName(p)} ${p.formula}: automaton accepts ${showLasso(w)}, a word the negation's automaton accepts too`);
    }
  });
});

test('sizes: no pattern grows past the recorded table; the count against Spot -B is reported', (t) => {
  const sizes = measurePatterns();
  const grown: string[] = [];
  for (const s of sizes) {
    const recorded = OUR_STATES[s.name];
    assert.notEqual(recorded, undefined, `${s.name} has no recorded size: regenerate spot-guard.ts`);
    if (typeof s.states !== 'number') {
      if (recorded !== null) grown.push(`${s.name}: ${s.states}, recorded ${recorded}`);
    } else if (recorded !== null && recorded !== undefined && s.states > recorded) {
      grown.push(`${s.name}: ${s.states} states, recorded ${recorded} (${s.pattern.formula})`);
    }
  }
  assert.deepEqual(grown, [], 'automata larger than recorded');
  for (const r of summaries(sizes)) {
    t.diagnostic(`${r.label}: ${r.formulas} formulas, ours ${r.ours} vs Spot -B ${r.spot} states; larger ${r.larger}, equal ${r.equal}, smaller ${r.smaller}${r.failed > 0 ? `, ${r.failed} not finished` : ''}`);
  }
});
