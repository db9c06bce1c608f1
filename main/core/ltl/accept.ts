/**
 * Does a Büchi automaton accept the lasso word u·v^ω? The product of the automaton with the
 * cycle positions is searched for a reachable cycle through an accepting state.
 */
import { type BuchiAutomaton, letterBits, outgoing } from './automaton.js';
import { guardHolds } from './guard.js';
import type { Lasso } from './lasso.js';
import { canReachGoodCycle } from './scc.js';

export function acceptsLasso(a: BuchiAutomaton, word: Lasso): boolean {
  if (word.cycle.length === 0) throw new RangeError('the cycle of a lasso word must not be empty');
  const out = outgoing(a);
  const step = (states: ReadonlySet<number>, letter: bigint): Set<number> => {
    const next = new Set<number>();
    for (const q of states) for (const e of out[q]!) if (guardHolds(e.guard, letter)) next.add(e.to);
    return next;
  };
  let cur = new Set(a.initial);
  for (const l of word.prefix) cur = step(cur, letterBits(a, l));
  const k = word.cycle.length;
  const bits = word.cycle.map((l) => letterBits(a, l));
  const nq = a.states.length;
  // node (q, i): in state q before reading cycle letter i.
  const succ = (v: number): number[] => {
    const q = Math.floor(v / k), i = v % k;
    const res: number[] = [];
    for (const e of out[q]!) if (guardHolds(e.guard, bits[i]!)) res.push(e.to * k + ((i + 1) % k));
    return res;
  };
  const live = canReachGoodCycle(nq * k, succ, (v) => a.states[Math.floor(v / k)]!.accepting);
  for (const q of cur) if (live[q * k] === 1) return true;
  return false;
}
