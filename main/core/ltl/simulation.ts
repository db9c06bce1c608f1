/**
 * Direct-simulation reduction of a Büchi automaton, letter by letter (used while the alphabet is
 * small enough to enumerate). p simulates q when p is accepting whenever q is and every move of q
 * can be matched by a move of p into a state that simulates q's target. Mutually simulating
 * states are merged, and an edge is dropped when a sibling edge with a weaker guard leads to a
 * state that simulates its target (or, in the second result, when sibling edges into such states
 * read all its letters together). Both keep the language (direct simulation is Büchi-sound).
 */
import { type Term, simplifyGuard, termImplies } from './guard.js';
import type { MutableBuchi } from './reduce.js';
import type { Budget } from './budget.js';

/** Largest alphabet (in propositions) enumerated letter by letter. */
export const SIMULATION_MAX_APS = 10;
/** Largest candidate pairs × letter words one refinement may hold; bigger automata keep the bisimulation quotient. */
const SIMULATION_MAX_WORK = 64_000_000;

/**
 * The quotient with little brothers dropped two ways: `plain`, an edge covered by one sibling's
 * guard (as earlier versions did); `letters`, an edge whose every letter some sibling edge into a
 * state simulating its target reads (the siblings together cover it), or null when that drops no
 * edge more. Dropping every such edge at once keeps the language: "u dominates t" (u simulates
 * t, and t simulates u only if u < t) is a strict order, so on each letter the chain of
 * dominating edges ends at one that stays, and simulation is transitive.
 */
export function simulationReductions(
  a: MutableBuchi,
  apCount: number,
  budget: Budget,
): { plain: MutableBuchi; letters: MutableBuchi | null } {
  budget.checkTime('simulation reduction');
  if (apCount > SIMULATION_MAX_APS) return { plain: a, letters: null };
  const n = a.accepting.length;
  const L = 1 << apCount;
  const LW = (L + 31) >>> 5;
  const { edges, enabled } = edgeLetters(a, apCount, budget);
  const acc = a.accepting;
  // Start from: p accepting when q is, and p able to move on every letter q can.
  const has = simulationRelation(edges, LW, (p, q) => !(acc[q] && !acc[p]) && subset(enabled, q, p, LW), budget);
  if (has === null) return { plain: a, letters: null };
  const sim = { get: has };
  // Merge mutually simulating states into their smallest member.
  const rep = new Int32Array(n);
  for (let q = 0; q < n; q++) {
    rep[q] = q;
    budget.tick('simulation reduction');
    for (let p = 0; p < q; p++) {
      if (rep[p] === p && sim.get(p, q) && sim.get(q, p)) {
        rep[q] = p;
        break;
      }
    }
  }
  const out: Map<number, Term[]>[] = a.out.map(() => new Map<number, Term[]>());
  const outL: Map<number, Term[]>[] = a.out.map(() => new Map<number, Term[]>());
  let more = false;
  const dominates = (u: number, t: number): boolean => u !== t && sim.get(u, t) && !(sim.get(t, u) && u > t);
  for (let q = 0; q < n; q++) {
    if (rep[q] !== q) continue;
    const merged = new Map<number, Term[]>();
    const letters = new Map<number, Uint32Array>();
    const list = a.out[q]!;
    let k = 0;
    for (const [to, g] of list) {
      const r = rep[to]!;
      merged.set(r, [...(merged.get(r) ?? []), ...g]);
      let l = letters.get(r);
      if (l === undefined) letters.set(r, (l = new Uint32Array(LW)));
      const own = edges[q]![k++]!.letters;
      for (let v = 0; v < LW; v++) l[v]! |= own[v]!;
    }
    // little brothers: drop q→t when a sibling q→u has a guard covering it and u simulates t
    const entries = [...merged.entries()].map(([to, g]) => [to, simplifyGuard(g)] as const);
    const union = new Uint32Array(LW);
    for (const [t, gt] of entries) {
      budget.tick('simulation reduction', entries.length);
      const covered = entries.some(
        ([u, gu]) => dominates(u, t) && gt.every((term) => gu.some((other) => termImplies(term, other))),
      );
      if (!covered) out[q]!.set(t, gt);
      // … or when the dominating siblings together read every letter q→t reads
      let coveredL = covered;
      if (!covered) {
        union.fill(0);
        for (const [u] of entries) {
          if (!dominates(u, t)) continue;
          const lu = letters.get(u)!;
          for (let v = 0; v < LW; v++) union[v]! |= lu[v]!;
        }
        const lt = letters.get(t)!;
        coveredL = true;
        for (let v = 0; v < LW && coveredL; v++) if ((lt[v]! & ~union[v]!) !== 0) coveredL = false;
        if (coveredL) more = true;
      }
      if (!coveredL) outL[q]!.set(t, gt);
    }
  }
  const plain = { accepting: [...a.accepting], names: [...a.names], initial: rep[a.initial]!, out };
  return {
    plain,
    letters: more ? { accepting: [...a.accepting], names: [...a.names], initial: rep[a.initial]!, out: outL } : null,
  };
}

export interface LetterEdge {
  readonly to: number;
  readonly letters: Uint32Array;
}

/**
 * Each edge of `a` as the set of letters it reads (a 2^apCount-bit set), and each state's readable letters (LW words
 * per state).
 */
export function edgeLetters(
  a: MutableBuchi,
  apCount: number,
  budget: Budget,
): { edges: LetterEdge[][]; enabled: Uint32Array } {
  const n = a.accepting.length;
  const L = 1 << apCount;
  const LW = (L + 31) >>> 5;
  const edges: LetterEdge[][] = [];
  const enabled = new Uint32Array(n * LW);
  for (let q = 0; q < n; q++) {
    const list: LetterEdge[] = [];
    for (const [to, g] of a.out[q]!) {
      const letters = new Uint32Array(LW);
      for (const t of g) {
        const pos = Number(t.pos),
          neg = Number(t.neg);
        const free = (L - 1) & ~(pos | neg);
        for (let sub = free; ; sub = (sub - 1) & free) {
          const x = pos | sub;
          letters[x >>> 5]! |= 1 << (x & 31);
          if (sub === 0) break;
        }
      }
      for (let w = 0; w < LW; w++) enabled[q * LW + w]! |= letters[w]!;
      list.push({ to, letters });
    }
    edges.push(list);
    budget.tick('simulation reduction', list.length);
  }
  return { edges, enabled };
}

/** Whether row q of `sets` is a subset of row p (LW words per row). */
export function subset(sets: Uint32Array, q: number, p: number, LW: number): boolean {
  for (let w = 0; w < LW; w++) if ((sets[q * LW + w]! & ~sets[p * LW + w]!) !== 0) return false;
  return true;
}

/**
 * The greatest simulation on a graph with letter-set edges, within `candidate`: p simulates q
 * when every edge q → q2 reads only letters on which p has an edge into a state simulating q2.
 * With `demands` (the same edges, in the same order, with other letter sets), q's edge must be
 * matched on its demanded letters by p's edges' letters (their offers): a transition-based
 * acceptance mark is a letter an edge offers with every smaller mark set and demands exactly.
 * Null when the candidate pairs times the letter words exceed SIMULATION_MAX_WORK.
 */
export function simulationRelation(
  edges: readonly (readonly LetterEdge[])[],
  LW: number,
  candidate: (p: number, q: number) => boolean,
  budget: Budget,
  demands?: readonly (readonly LetterEdge[])[],
): ((p: number, q: number) => boolean) | null {
  const n = edges.length;
  const W = (n + 31) >>> 5;
  // simRow[p * W ..]: the states p simulates.
  const simRow = new Uint32Array(n * W);
  let candidates = 0;
  for (let p = 0; p < n; p++) {
    budget.tick('simulation reduction', n);
    for (let q = 0; q < n; q++) {
      if (p === q || candidate(p, q)) {
        simRow[p * W + (q >>> 5)]! |= 1 << (q & 31);
        candidates++;
      }
    }
  }
  if (candidates * LW * 4 > SIMULATION_MAX_WORK) return null;
  const has = (p: number, q: number): boolean => (simRow[p * W + (q >>> 5)]! & (1 << (q & 31))) !== 0;
  // The edges flat: state p's edges are start[p] .. start[p + 1] - 1, each a target and LW letter words.
  const start = new Int32Array(n + 1);
  for (let p = 0; p < n; p++) start[p + 1] = start[p]! + edges[p]!.length;
  const m = start[n]!;
  const to = new Int32Array(m);
  const lettersOf = new Uint32Array(m * LW);
  for (let p = 0, k = 0; p < n; p++) {
    for (const e of edges[p]!) {
      to[k] = e.to;
      lettersOf.set(e.letters.subarray(0, LW), k * LW);
      k++;
    }
  }
  let demandOf = lettersOf;
  if (demands !== undefined) {
    demandOf = new Uint32Array(m * LW);
    for (let p = 0, k = 0; p < n; p++) {
      for (const e of demands[p]!) {
        if (e.to !== to[k]) throw new Error(`simulationRelation: demand ${k} leads to ${e.to}, its edge to ${to[k]}`);
        demandOf.set(e.letters.subarray(0, LW), k * LW);
        k++;
      }
    }
  }
  // Round-based refinement. For a state p, cover[q2] = letters on which p can move into a state
  // that simulates q2; p still simulates q iff every edge q → q2 reads only letters in cover[q2].
  // A pair depends only on the rows of p's successors, so a round revisits only the states p with
  // a successor whose row changed (this round or the last).
  // targets[q * W ..]: the states q's edges lead to; a state p needs cover[q2] only for the
  // targets q2 of the states q it may still simulate
  const targets = new Uint32Array(n * W);
  for (let q = 0; q < n; q++)
    for (let f = start[q]!; f < start[q + 1]!; f++) targets[q * W + (to[f]! >>> 5)]! |= 1 << (to[f]! & 31);
  const needed = new Uint32Array(W);
  const cover = new Uint32Array(n * LW);
  let changedRow = new Uint8Array(n).fill(1);
  let nextChanged = new Uint8Array(n);
  for (;;) {
    let any = false;
    for (let p = n - 1; p >= 0; p--) {
      const e0 = start[p]!,
        e1 = start[p + 1]!;
      let dirty = false;
      for (let e = e0; e < e1 && !dirty; e++) dirty = changedRow[to[e]!] === 1 || nextChanged[to[e]!] === 1;
      if (!dirty) continue;
      const prow = p * W;
      needed.fill(0);
      for (let w = 0; w < W; w++) {
        for (let bits = simRow[prow + w]!; bits !== 0; bits &= bits - 1) {
          const q = (w << 5) + (31 - Math.clz32(bits & -bits));
          if (q === p) continue;
          for (let x = 0; x < W; x++) needed[x]! |= targets[q * W + x]!;
        }
      }
      cover.fill(0);
      for (let e = e0; e < e1; e++) {
        const row = to[e]! * W;
        const le = e * LW;
        for (let w = 0; w < W; w++) {
          for (let bits = simRow[row + w]! & needed[w]!; bits !== 0; bits &= bits - 1) {
            const c = ((w << 5) + (31 - Math.clz32(bits & -bits))) * LW;
            for (let v = 0; v < LW; v++) cover[c + v]! |= lettersOf[le + v]!;
          }
        }
      }
      for (let w = 0; w < W; w++) {
        for (let bits = simRow[prow + w]!; bits !== 0; bits &= bits - 1) {
          const bit = bits & -bits;
          const q = (w << 5) + (31 - Math.clz32(bit));
          if (q === p) continue;
          let ok = true;
          for (let f = start[q]!, f1 = start[q + 1]!; f < f1 && ok; f++) {
            const c = to[f]! * LW;
            const lf = f * LW;
            for (let v = 0; v < LW; v++) {
              if ((demandOf[lf + v]! & ~cover[c + v]!) !== 0) {
                ok = false;
                break;
              }
            }
          }
          if (!ok) {
            simRow[prow + w]! &= ~bit;
            nextChanged[p] = 1;
            any = true;
          }
        }
      }
      // one state's work grows with its edges times the row width, and with n
      budget.tick('simulation reduction', (e1 - e0) * W + n);
    }
    if (!any) break;
    [changedRow, nextChanged] = [nextChanged, changedRow];
    nextChanged.fill(0);
  }
  return has;
}
