/**
 * Prefix–suffix search over the implicit product (SAGAS Appendix B.6, Algorithm B.2): A* from the
 * start set to accepting product states keeping the first K popped (one predecessor chain per
 * product state), then for each endpoint a dwell (an enabled automaton self-loop at the endpoint)
 * or the cheapest return cycle (Dijkstra over the same oracle). With K = all, every reachable
 * accepting endpoint is considered and the result is the exact optimum of λ·prefix + (1 − λ)·suffix
 * over accepting product lassos; endpoints are taken in order of prefix cost and the cycle searches
 * are cut off by the best objective found so far, which keeps that exact mode fast.
 */
import { type Heuristic, type ReverseGraph, chainBound, distancesTo, hValue, reverseGraph } from './heuristic.js';
import { EXPAND, STOP, ShortestPaths, type Successors, type Visit } from './shortest-path.js';
import { type Product, dwellTransition, forEachSuccessor } from './product.js';

/** A path through the product: states z0 … zk and, for i ≥ 1, the transition that entered z_i. */
export interface ProductPath {
  readonly states: readonly number[];
  /** transitions[i] entered states[i]; transitions[0] is −1 (prefix: entered from Q0 by the start letter). */
  readonly transitions: readonly number[];
  readonly cost: number;
}

export interface Candidate {
  readonly prefix: ProductPath;
  /** Suffix states after the endpoint, ending at the endpoint; for a dwell, just the endpoint. */
  readonly suffix: ProductPath;
  readonly dwell: boolean;
  readonly objective: number;
}

export interface SearchStats {
  /** Product states expanded (popped and expanded) by the prefix search and all suffix searches. */
  expandedPrefix: number;
  expandedSuffix: number;
  /** Accepting endpoints retained by the prefix search, and those with a suffix. */
  endpoints: number;
  withSuffix: number;
}

export interface SearchResult {
  readonly best: Candidate | null;
  readonly stats: SearchStats;
  /** Endpoints (product states) the prefix search retained, for diagnostics. */
  readonly endpoints: readonly number[];
  /** Working automaton states seen by the prefix search (for the "no accepting prefix" diagnosis). */
  readonly reachedStates: Uint8Array;
}

export interface SearchOptions {
  /** Prefix candidates to keep; Infinity for the exact mode. */
  readonly k: number;
  readonly lambda: number;
  readonly heuristic: Heuristic | null;
  /** Cancellation / time budget: called now and then, throws to stop. */
  readonly check?: () => void;
}

/** The path to `end` read back along predecessors until `stop` holds. */
function trace(
  sp: ShortestPaths,
  end: number,
  stop: (z: number) => boolean,
): { states: number[]; transitions: number[] } {
  const states: number[] = [];
  const transitions: number[] = [];
  let z = end;
  for (;;) {
    states.push(z);
    transitions.push(sp.tag(z));
    if (stop(z)) break;
    z = sp.predecessor(z);
  }
  return { states: states.reverse(), transitions: transitions.reverse() };
}

export function searchPlan(p: Product, start: readonly number[], o: SearchOptions): SearchResult {
  const size = p.n * p.nq;
  const successors = (z: number, visit: Visit): void => forEachSuccessor(p, z, visit);
  // The return-cycle space is only needed when some endpoint has no dwell; it is reused, epoch by
  // epoch, by every cycle search of this plan.
  let cycles: ShortestPaths | null = null;
  const cycleSpace = (): ShortestPaths => (cycles ??= new ShortestPaths(size, 256));
  const back = new Reverse(p, o.heuristic?.reverse ?? null);
  const stats: SearchStats = { expandedPrefix: 0, expandedSuffix: 0, endpoints: 0, withSuffix: 0 };
  const reachedStates = new Uint8Array(p.nq);
  const lambda = o.lambda;
  const heuristic = o.heuristic;
  // Prefix: A* (Dijkstra when there is no heuristic) from Z0, keeping the first K accepting pops.
  // Each endpoint's suffix is built as soon as it is popped, so the search can stop once no later
  // endpoint can beat the best candidate: a later endpoint's prefix costs at least the popped key,
  // and its objective at least λ times that. The candidate set is the paper's; only hopeless
  // endpoints are skipped, so the selected plan is the same.
  const endpoints: number[] = [];
  let best: Candidate | null = null;
  const prefix = new ShortestPaths(size);
  prefix.start({
    successors,
    heuristic: heuristic === null ? undefined : (z) => hValue(heuristic, p, z),
    onPop: (z, g, f) => {
      if (!(endpoints.length < o.k)) return STOP;
      if (best !== null && lambda > 0 && lambda * f >= best.objective) return STOP;
      const q = z % p.nq;
      reachedStates[q] = 1;
      if (p.w.accepting[q] !== 1) return EXPAND;
      endpoints.push(z);
      const bound = best === null || lambda >= 1 ? Infinity : (best.objective - lambda * g) / (1 - lambda);
      const suf = suffixFor(p, cycleSpace, successors, z, bound, stats, back, heuristic, o.check);
      if (suf !== null) {
        stats.withSuffix++;
        const objective = lambda * g + (1 - lambda) * suf.path.cost;
        if (best === null || objective < best.objective) {
          best = {
            prefix: { ...trace(prefix, z, (x) => prefix.predecessor(x) === -1), cost: g },
            suffix: suf.path,
            dwell: suf.dwell,
            objective,
          };
        }
      }
      return endpoints.length >= o.k ? STOP : EXPAND;
    },
    check: o.check,
  });
  for (const z of start) prefix.source(z, 0);
  stats.expandedPrefix = prefix.run();
  stats.endpoints = endpoints.length;
  return { best, stats, endpoints, reachedStates };
}

/**
 * The suffix at endpoint z: a dwell when an enabled self-loop exists there, else the cheapest
 * return cycle strictly below `bound` (null when there is none). The return search is A* guided by
 * `returnGuide`, an admissible and consistent lower bound, so the cycle found is the cheapest, as
 * Dijkstra's would be, with far fewer product states expanded.
 */
function suffixFor(
  p: Product,
  space: () => ShortestPaths,
  successors: Successors,
  z: number,
  bound: number,
  stats: SearchStats,
  back: Reverse,
  heur: Heuristic | null,
  check?: () => void,
): { path: ProductPath; dwell: boolean } | null {
  const t = dwellTransition(p, z);
  if (t >= 0) return { path: { states: [z], transitions: [t], cost: 0 }, dwell: true };
  const nq = p.nq;
  const qf = z % nq;
  const u = (z - qf) / nq;
  const toU = back.distancesTo(u);
  const hz = heur === null ? (x: number): number => toU[(x - (x % nq)) / nq]! : returnGuide(p, qf, toU, heur);
  const sp = space();
  // The cycle leaves z by its successors and ends when z itself is popped.
  sp.start({ successors, heuristic: hz, bound, onPop: (x) => (x === z ? STOP : EXPAND), check });
  sp.relaxFrom(z, 0);
  stats.expandedSuffix += sp.run();
  return sp.settled(z) ? { path: { ...cycleFrom(sp, z), cost: sp.distance(z) }, dwell: false } : null;
}

/**
 * The return guide for endpoint (u, q_f): chainBound towards q_f, finishing at node u. Where q_f is
 * reachable from q without a positive literal the bound is dist(v, u).
 */
function returnGuide(p: Product, qf: number, toU: Float64Array, heur: Heuristic): (z: number) => number {
  const nq = p.nq;
  const pred: number[][] = Array.from({ length: nq }, () => []);
  for (let q = 0; q < nq; q++) for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) pred[p.tTo[t]!]!.push(q);
  const co = new Uint8Array(nq);
  const stack = [qf];
  co[qf] = 1;
  while (stack.length > 0) {
    for (const a of pred[stack.pop()!]!) {
      if (co[a] === 0) {
        co[a] = 1;
        stack.push(a);
      }
    }
  }
  const table = chainBound(p, heur.witnessDistances, co, (q) => q === qf, toU);
  return (z: number): number => {
    const q = z % nq;
    return table(q)[(z - q) / nq]!;
  };
}

/**
 * Graph distances to a node over the reversed semantic graph, cached per target node. It runs on
 * the heuristic's reversed graph when there is one (the same plan's), else builds its own on first use.
 */
class Reverse {
  private readonly cache = new Map<number, Float64Array>();
  constructor(
    private readonly p: Product,
    private graph: ReverseGraph | null,
  ) {}
  distancesTo(u: number): Float64Array {
    let d = this.cache.get(u);
    if (d === undefined) {
      this.graph ??= reverseGraph(this.p);
      d = distancesTo(this.p.n, [u], this.graph);
      this.cache.set(u, d);
    }
    return d;
  }
}

/** The cycle's states after the endpoint z up to and including z, read back from z's predecessor chain. */
function cycleFrom(sp: ShortestPaths, z: number): { states: number[]; transitions: number[] } {
  const states: number[] = [];
  const transitions: number[] = [];
  let x = z;
  do {
    states.push(x);
    transitions.push(sp.tag(x));
    x = sp.predecessor(x);
  } while (x !== z);
  return { states: states.reverse(), transitions: transitions.reverse() };
}
