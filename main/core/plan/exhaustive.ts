/**
 * The reference planner: the explicit product of the graph with the *original* automaton, one
 * Dijkstra from the start set and then one Dijkstra per reachable accepting product state for its
 * cheapest return cycle — the classic algorithm of optimal LTL planners such as P_MAS_TG. Simple
 * and slow on purpose: tests compare the exact mode against it and the benchmark uses it as the
 * in-process baseline. Node evidence follows the same rules as the oracle (exact label sets;
 * soft labels screened by τ_soft), but none of the oracle's code; it shares only the shortest-path
 * engine (shortest-path.ts, tested on its own against Bellman–Ford).
 */
import { type BuchiAutomaton, letterBits } from '../ltl/automaton.js';
import { guardHolds, termHolds } from '../ltl/guard.js';
import type { SemanticGraph } from './semantic.js';
import { EXPAND, STOP, ShortestPaths } from './shortest-path.js';

export interface ReferenceResult {
  /** Infinity when there is no accepting lasso. */
  readonly objective: number;
  readonly prefix: number;
  readonly suffix: number;
  readonly reachable: number;
  readonly accepting: number;
  readonly dijkstras: number;
}

export function referenceOptimum(g: SemanticGraph, a: BuchiAutomaton, lambda: number, tauSoft = 0.05): ReferenceResult {
  const nq = a.states.length;
  // A term is usable at v when v's evidence enables it; positive literals only at exact nodes.
  const usable = (pos: bigint, neg: bigint, v: number): boolean => {
    if (g.kinds[v] === 'cluster') {
      if (pos !== 0n) return false;
      return a.aps.every((ap, i) => ((neg >> BigInt(i)) & 1n) === 0n || (g.soft.get(ap)?.[v] ?? 1) < tauSoft);
    }
    return termHolds({ pos, neg }, letterBits(a, g.labels[v]!));
  };
  const disjointOk = (pos: bigint): boolean => {
    if (!g.disjoint) return true;
    let c = 0;
    for (let x = pos; x !== 0n; x &= x - 1n) c++;
    return c <= 1;
  };
  const trans = (q: number, v: number): number[] => {
    const out: number[] = [];
    for (const e of a.edges) {
      if (e.from !== q) continue;
      if (e.guard.some((t) => disjointOk(t.pos) && usable(t.pos, t.neg, v))) out.push(e.to);
    }
    return out;
  };
  const succ = (z: number): [number, number][] => {
    const q = z % nq,
      v = (z - q) / nq;
    const res: [number, number][] = [];
    if (g.stay) for (const q2 of trans(q, v)) res.push([v * nq + q2, 0]);
    for (let e = g.outStart[v]!; e < g.outStart[v + 1]!; e++) {
      const v2 = g.outTo[e]!;
      for (const q2 of trans(q, v2)) res.push([v2 * nq + q2, g.outW[e]!]);
    }
    return res;
  };
  const startBits = letterBits(a, g.labels[g.start]!);
  const init = new Set<number>();
  for (const e of a.edges)
    if (a.initial.includes(e.from) && guardHolds(e.guard, startBits)) init.add(g.start * nq + e.to);
  const cache = new Map<number, [number, number][]>();
  const adj = (z: number): [number, number][] => {
    let r = cache.get(z);
    if (r === undefined) {
      r = succ(z);
      cache.set(z, r);
    }
    return r;
  };
  // One space for the search from the start set, whose costs are read while a second space, reused
  // epoch by epoch, runs the return-cycle searches. Product states are v·nq + q.
  const size = g.ids.length * nq;
  const forward = new ShortestPaths(size, 64);
  // States in the order they were first reached, as the classic algorithm enumerates them.
  const reached: number[] = [];
  forward.start({
    successors: (z, visit) => {
      for (const [z2, c] of adj(z)) {
        const fresh = !forward.reached(z2);
        visit(z2, c, -1);
        if (fresh && forward.reached(z2)) reached.push(z2);
      }
    },
  });
  for (const z of init) {
    if (!forward.reached(z)) reached.push(z);
    forward.source(z, 0);
  }
  forward.run();
  const cycles = new ShortestPaths(size, 64);
  let best = { objective: Infinity, prefix: Infinity, suffix: Infinity };
  let accepting = 0,
    dijkstras = 1;
  for (const z of reached) {
    const pre = forward.distance(z);
    const q = z % nq,
      v = (z - q) / nq;
    if (!a.states[q]!.accepting) continue;
    accepting++;
    // A dwell: the automaton's self-loop at q enabled by v's evidence.
    const self = a.edges.find((e) => e.from === q && e.to === q);
    let cyc = Infinity;
    if (self && self.guard.some((t) => disjointOk(t.pos) && usable(t.pos, t.neg, v))) cyc = 0;
    else {
      dijkstras++;
      // The cheapest return: leave z by its successors, stop when z is popped again.
      cycles.start({
        successors: (x, visit) => {
          for (const [x2, c] of adj(x)) visit(x2, c, -1);
        },
        onPop: (x) => (x === z ? STOP : EXPAND),
      });
      cycles.relaxFrom(z, 0);
      cycles.run();
      cyc = cycles.distance(z);
    }
    const objective = lambda * pre + (1 - lambda) * cyc;
    if (objective < best.objective) best = { objective, prefix: pre, suffix: cyc };
  }
  return { ...best, reachable: reached.length, accepting, dijkstras };
}
