/**
 * Does a Büchi automaton accept the lasso word u·v^ω? The product of the automaton with the cycle
 * positions is explored from the states reached after u — only its reachable part, which for a
 * given word is small — and searched for a cycle through an accepting state.
 */
import { type BuchiAutomaton, letterBits, outgoing } from './automaton.js';
import { guardHolds } from './guard.js';
import type { Lasso } from './lasso.js';
import { stronglyConnected } from './scc.js';
import { denseGraph } from './dense-graph.js';

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
  // node (q, i): in state q before reading cycle letter i; numbered densely as discovered.
  const { nodes, succ, visit } = denseGraph();
  for (const q of cur) visit(q * k);
  // Successor states per (state, letter), memoized: a lasso repeats few distinct letters.
  const memo = new Map<string, number[]>();
  const targets = (q: number, letter: bigint): number[] => {
    const mk = `${q}:${letter.toString(36)}`;
    let r = memo.get(mk);
    if (r === undefined) {
      r = [];
      for (const e of out[q]!) if (guardHolds(e.guard, letter)) r.push(e.to);
      memo.set(mk, r);
    }
    return r;
  };
  for (let x = 0; x < nodes.length; x++) {
    const key = nodes[x]!;
    const q = Math.floor(key / k),
      i = key % k;
    for (const to of targets(q, bits[i]!)) succ[x]!.push(visit(to * k + ((i + 1) % k)));
  }
  const comp = stronglyConnected(nodes.length, (x) => succ[x]!);
  const size = new Map<number, number>();
  for (const c of comp) size.set(c, (size.get(c) ?? 0) + 1);
  return nodes.some(
    (key, x) => a.states[Math.floor(key / k)]!.accepting && (size.get(comp[x]!)! > 1 || succ[x]!.includes(x)),
  );
}
