/**
 * Direct-simulation reduction of a Büchi automaton, letter by letter (used while the alphabet is
 * small enough to enumerate). p simulates q when p is accepting whenever q is and every move of q
 * can be matched by a move of p into a state that simulates q's target. Mutually simulating
 * states are merged, and an edge is dropped when a sibling edge with a weaker guard leads to a
 * state that simulates its target. Both keep the language (direct simulation is Büchi-sound).
 */
import { type Term, simplifyGuard, termImplies } from './guard.js';
import type { MutableBuchi } from './reduce.js';
import type { Budget } from './budget.js';

/** Largest alphabet (in propositions) enumerated letter by letter. */
export const SIMULATION_MAX_APS = 10;
/** Largest candidate pairs·letters·words one refinement round may cost; bigger automata keep the bisimulation quotient. */
export const SIMULATION_MAX_WORK = 64_000_000;

export function simulationReduce(a: MutableBuchi, apCount: number, budget: Budget): MutableBuchi {
  if (apCount > SIMULATION_MAX_APS) return a;
  const n = a.accepting.length;
  const L = 1 << apCount;
  const W = (n + 31) >>> 5;
  // succ[(q * L + σ) * W ..]: bitset of q's targets on letter σ
  const succ = new Uint32Array(n * L * W);
  for (let q = 0; q < n; q++) {
    for (const [to, g] of a.out[q]!) {
      for (const t of g) {
        const pos = Number(t.pos), neg = Number(t.neg);
        const free = (L - 1) & ~(pos | neg);
        for (let sub = free; ; sub = (sub - 1) & free) {
          succ[(q * L + (pos | sub)) * W + (to >>> 5)]! |= 1 << (to & 31);
          if (sub === 0) break;
        }
      }
    }
    budget.tick('simulation reduction');
  }
  // A state's moves depend only on the propositions its guards mention (its mask): a pair (p, q)
  // is checked on the subsets of mask(p) ∪ mask(q) instead of on every letter.
  const mask = new Int32Array(n);
  for (let q = 0; q < n; q++) {
    for (const g of a.out[q]!.values()) for (const t of g) mask[q]! |= Number(t.pos | t.neg);
  }
  const nonEmpty = (base: number): boolean => {
    for (let w = 0; w < W; w++) if (succ[base + w] !== 0) return true;
    return false;
  };
  // simRow[p * W ..]: bitset of the states p simulates. Start from: p accepting when q is, and p
  // can move on every letter q can.
  const simRow = new Uint32Array(n * W);
  let candidates = 0;
  for (let p = 0; p < n; p++) {
    for (let q = 0; q < n; q++) {
      if (a.accepting[q] && !a.accepting[p]) continue;
      let ok = true;
      if (p !== q) {
        const m = mask[p]! | mask[q]!;
        for (let sub = m; ok; sub = (sub - 1) & m) {
          if (nonEmpty((q * L + (sub & mask[q]!)) * W) && !nonEmpty((p * L + (sub & mask[p]!)) * W)) ok = false;
          if (sub === 0) break;
        }
      }
      if (ok) {
        simRow[p * W + (q >>> 5)]! |= 1 << (q & 31);
        candidates++;
      }
    }
    budget.tick('simulation reduction');
  }
  if (candidates * L * W > SIMULATION_MAX_WORK) return a;
  const has = (p: number, q: number): boolean => (simRow[p * W + (q >>> 5)]! & (1 << (q & 31))) !== 0;
  // Round-based refinement. A pair (p, q) depends only on the rows of p's successors, so a round
  // rechecks only the states p with a successor whose row changed (this round or the last).
  const covered = new Uint32Array(n * L * W);
  const succAny: number[][] = [];
  for (let p = 0; p < n; p++) succAny.push([...a.out[p]!.keys()]);
  let changedRow = new Uint8Array(n).fill(1);
  for (;;) {
    const nextChanged = new Uint8Array(n);
    let any = false;
    for (let p = n - 1; p >= 0; p--) {
      if (!succAny[p]!.some((x) => changedRow[x] === 1 || nextChanged[x] === 1)) continue;
      const mp = mask[p]!;
      for (let sub = mp; ; sub = (sub - 1) & mp) {
        const base = (p * L + sub) * W;
        for (let v = 0; v < W; v++) covered[base + v] = 0;
        for (let w = 0; w < W; w++) {
          for (let bits = succ[base + w]!; bits !== 0; bits &= bits - 1) {
            const p2 = (w << 5) + (31 - Math.clz32(bits & -bits));
            for (let v = 0; v < W; v++) covered[base + v]! |= simRow[p2 * W + v]!;
          }
        }
        if (sub === 0) break;
      }
      for (let q = 0; q < n; q++) {
        if (p === q || !has(p, q)) continue;
        const mq = mask[q]!;
        const m = mp | mq;
        let ok = true;
        for (let sub = m; ok; sub = (sub - 1) & m) {
          const bq = (q * L + (sub & mq)) * W, bp = (p * L + (sub & mp)) * W;
          for (let w = 0; w < W; w++) {
            if ((succ[bq + w]! & ~covered[bp + w]!) !== 0) {
              ok = false;
              break;
            }
          }
          if (sub === 0) break;
        }
        if (!ok) {
          simRow[p * W + (q >>> 5)]! &= ~(1 << (q & 31));
          nextChanged[p] = 1;
          any = true;
        }
      }
      budget.tick('simulation reduction');
    }
    if (!any) break;
    changedRow = nextChanged;
  }
  const sim = { get: has };
  // Merge mutually simulating states into their smallest member.
  const rep = new Int32Array(n);
  for (let q = 0; q < n; q++) {
    rep[q] = q;
    for (let p = 0; p < q; p++) {
      if (rep[p] === p && sim.get(p, q) && sim.get(q, p)) {
        rep[q] = p;
        break;
      }
    }
  }
  const out: Map<number, Term[]>[] = a.out.map(() => new Map<number, Term[]>());
  for (let q = 0; q < n; q++) {
    if (rep[q] !== q) continue;
    const merged = new Map<number, Term[]>();
    for (const [to, g] of a.out[q]!) {
      const r = rep[to]!;
      merged.set(r, [...(merged.get(r) ?? []), ...g]);
    }
    // little brothers: drop q→t when a sibling q→u has a guard covering it and u simulates t
    const entries = [...merged.entries()].map(([to, g]) => [to, simplifyGuard(g)] as const);
    for (const [t, gt] of entries) {
      const covered = entries.some(([u, gu]) =>
        u !== t && sim.get(u, t) && !(sim.get(t, u) && u > t) &&
        gt.every((term) => gu.some((other) => termImplies(term, other))));
      if (!covered) out[q]!.set(t, gt);
    }
  }
  return { accepting: [...a.accepting], names: [...a.names], initial: rep[a.initial]!, out };
}

