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
  // Letters that every state treats alike are one letter for simulation: keep one of each class.
  const classOf = new Map<string, number>();
  const reps: number[] = [];
  for (let s = 0; s < L; s++) {
    const col: number[] = [];
    for (let q = 0; q < n; q++) for (let w = 0; w < W; w++) col.push(succ[(q * L + s) * W + w]!);
    const key = col.join(',');
    if (!classOf.has(key)) {
      classOf.set(key, reps.length);
      reps.push(s);
    }
  }
  if (reps.length < L) {
    const packed = new Uint32Array(n * reps.length * W);
    for (let q = 0; q < n; q++) {
      reps.forEach((s, c) => {
        for (let w = 0; w < W; w++) packed[(q * reps.length + c) * W + w] = succ[(q * L + s) * W + w]!;
      });
    }
    return refine(a, n, reps.length, W, packed, budget);
  }
  return refine(a, n, L, W, succ, budget);
}

function refine(a: MutableBuchi, n: number, L: number, W: number, succ: Uint32Array, budget: Budget): MutableBuchi {
  // enabled[q * LW ..]: the letters q can read. p can only simulate q if it reads all of them.
  const LW = (L + 31) >>> 5;
  const enabled = new Uint32Array(n * LW);
  for (let q = 0; q < n; q++) {
    for (let s = 0; s < L; s++) {
      const base = (q * L + s) * W;
      for (let w = 0; w < W; w++) {
        if (succ[base + w] !== 0) {
          enabled[q * LW + (s >>> 5)]! |= 1 << (s & 31);
          break;
        }
      }
    }
  }
  const readsAll = (p: number, q: number): boolean => {
    for (let w = 0; w < LW; w++) if ((enabled[q * LW + w]! & ~enabled[p * LW + w]!) !== 0) return false;
    return true;
  };
  // simRow[p * W ..]: bitset of the states p simulates
  const simRow = new Uint32Array(n * W);
  let candidates = 0;
  for (let p = 0; p < n; p++) {
    for (let q = 0; q < n; q++) {
      if ((!a.accepting[q] || a.accepting[p]) && (p === q || readsAll(p, q))) {
        simRow[p * W + (q >>> 5)]! |= 1 << (q & 31);
        candidates++;
      }
    }
  }
  if (candidates * L * W > SIMULATION_MAX_WORK) return a;
  const has = (p: number, q: number): boolean => (simRow[p * W + (q >>> 5)]! & (1 << (q & 31))) !== 0;
  // Round-based refinement. A pair (p, q) depends only on the rows of p's successors, so a round
  // rechecks only the states p with a successor whose row changed in the previous round.
  const covered = new Uint32Array(n * L * W);
  const succAny: number[][] = Array.from({ length: n }, () => []);
  for (let p = 0; p < n; p++) {
    const seen = new Set<number>();
    for (let s = 0; s < L; s++) {
      const base = (p * L + s) * W;
      for (let w = 0; w < W; w++) {
        for (let bits = succ[base + w]!; bits !== 0; bits &= bits - 1) seen.add((w << 5) + (31 - Math.clz32(bits & -bits)));
      }
    }
    succAny[p] = [...seen];
  }
  let changedRow = new Uint8Array(n).fill(1);
  for (let round = 0; ; round++) {
    const nextChanged = new Uint8Array(n);
    let any = false;
    for (let p = 0; p < n; p++) {
      if (!succAny[p]!.some((x) => changedRow[x] === 1)) continue;
      for (let s = 0; s < L; s++) {
        const base = (p * L + s) * W;
        for (let v = 0; v < W; v++) covered[base + v] = 0;
        for (let w = 0; w < W; w++) {
          for (let bits = succ[base + w]!; bits !== 0; bits &= bits - 1) {
            const p2 = (w << 5) + (31 - Math.clz32(bits & -bits));
            for (let v = 0; v < W; v++) covered[base + v]! |= simRow[p2 * W + v]!;
          }
        }
      }
      for (let q = 0; q < n; q++) {
        if (p === q || !has(p, q)) continue;
        let ok = true;
        for (let s = 0; s < L && ok; s++) {
          const bq = (q * L + s) * W, bp = (p * L + s) * W;
          for (let w = 0; w < W; w++) {
            if ((succ[bq + w]! & ~covered[bp + w]!) !== 0) {
              ok = false;
              break;
            }
          }
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

