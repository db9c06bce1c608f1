/**
 * Transition-based generalized Büchi automaton from the alternating one (Gastin & Oddoux 2001, §4):
 * states are sets of alternating states, one acceptance set per final alternating state.
 */
import { TRUE_TERM, termAnd, termImplies } from './guard.js';
import { type Move, removeDominated } from './dominance.js';
import type { Vwaa } from './vwaa.js';
import type { Budget } from './budget.js';

export interface GbaEdge {
  readonly g: Move['g'];
  readonly to: number;
  /** Acceptance sets this edge belongs to (bit k: set k). */
  readonly acc: bigint;
}

export interface Gba {
  /** Per state: the set of alternating states it stands for. */
  readonly sets: bigint[];
  readonly edges: GbaEdge[][];
  /** Number of acceptance sets. */
  readonly nAcc: number;
  /** For each acceptance set, the alternating state it comes from. */
  readonly accSource: number[];
  readonly initial: number;
}

const STAGE = 'generalized Büchi construction';

export function buildGba(vwaa: Vwaa, budget: Budget): Gba {
  budget.checkTime(STAGE);
  const finals: number[] = [];
  vwaa.states.forEach((s, i) => {
    if (s.final) finals.push(i);
  });
  const sets: bigint[] = [];
  const index = new Map<bigint, number>();
  const edges: GbaEdge[][] = [];
  const queue: number[] = [];

  const intern = (set: bigint): number => {
    let id = index.get(set);
    if (id === undefined) {
      id = sets.length;
      sets.push(set);
      index.set(set, id);
      queue.push(id);
      budget.states(sets.length, STAGE);
    }
    return id;
  };

  /**
   * GO's acceptance: edge (e, α, e') is in the set of final state s when s ∉ e' or a move of s that discharges s is
   * implied.
   */
  const marksOf = (g: Move['g'], to: bigint): bigint => {
    let acc = 0n;
    budget.tick(STAGE, finals.length);
    for (let k = 0; k < finals.length; k++) {
      const s = finals[k]!;
      const inAcc =
        ((to >> BigInt(s)) & 1n) === 0n || vwaa.accepting[s]!.some((m) => termImplies(g, m.g) && (m.to & ~to) === 0n);
      if (inAcc) acc |= 1n << BigInt(k);
    }
    return acc;
  };

  // Which moves discharge each final state's obligation (bit k: acceptance set k).
  // A move also discharges every recurrence whose marked loop it was built from (GO's condition:
  // that loop's guard is implied and its target included).
  const accBit = new Map<number, bigint>();
  finals.forEach((s, k) => accBit.set(s, 1n << BigInt(k)));
  // Move objects can be shared between the lists of several states (memoized subformulas), so
  // bits are added, never overwritten; any bit set here also satisfies GO's condition.
  const discharge = new Map<Move, bigint>();
  finals.forEach((s, k) => {
    for (const m of vwaa.accepting[s]!) discharge.set(m, (discharge.get(m) ?? 0n) | (1n << BigInt(k)));
  });
  vwaa.delta.forEach((ms) => {
    for (const m of ms) {
      budget.tick(STAGE);
      let d = discharge.get(m) ?? 0n;
      for (let acc = m.acc, s = 0; acc !== 0n; acc >>= 1n, s++) if ((acc & 1n) !== 0n) d |= accBit.get(s) ?? 0n;
      if (d !== 0n) discharge.set(m, d);
    }
  });

  const initial = intern(1n);
  let held = 0;
  while (queue.length > 0) {
    const id = queue.shift()!;
    // Product of the members' moves. `acc` tracks which members discharged their obligation; a
    // partial product dominated on guard, target and discharges stays dominated whatever the
    // remaining members choose, so it is dropped early.
    let moves: Move[] = [{ g: TRUE_TERM, to: 0n, acc: 0n }];
    for (let rest = sets[id]!, s = 0; rest !== 0n; rest >>= 1n, s++) {
      if ((rest & 1n) === 0n) continue;
      const next: Move[] = [];
      for (const x of moves) {
        for (const y of vwaa.delta[s]!) {
          const g = termAnd(x.g, y.g);
          if (g !== null) {
            next.push({ g, to: x.to | y.to, acc: x.acc | (discharge.get(y) ?? 0n) });
            // the same limit removeDominated applies, checked before the list grows past it
            if ((next.length & 1023) === 0) budget.transitions(next.length, STAGE);
          }
          budget.tick(STAGE);
        }
      }
      moves = removeDominated(next, budget);
    }
    const marked = removeDominated(
      moves.map((m) => ({ ...m, acc: m.acc | marksOf(m.g, m.to) })),
      budget,
    );
    held += marked.length;
    budget.edges(held, STAGE);
    edges[id] = marked.map((m) => ({ g: m.g, to: intern(m.to), acc: m.acc }));
  }
  return { sets, edges, nAcc: finals.length, accSource: finals, initial };
}
