/**
 * The semantic graph planned over (SAGAS §3.3, Appendix B.5): nodes with outgoing weighted edges
 * and the semantic evidence the successor oracle reads. A node's evidence is either exact — a
 * known label set (a node of a hand-built labelled graph, an anchor's witness label set, the start
 * node's observed label) — or soft: the empirical label estimates P̂(ℓ | v) of a latent cluster node.
 */
import type { EdgeRows } from './shortest-path.js';

export type NodeKind = 'labelled' | 'cluster' | 'anchor' | 'start';

export interface SemanticGraph {
  readonly ids: readonly string[];
  readonly kinds: readonly NodeKind[];
  /** Task-space position per node (x, y), NaN where unknown. */
  readonly positions: Float64Array;
  /** Out-edges in compressed rows: node v's edges are outTo/outW[outStart[v] .. outStart[v+1]). */
  readonly outStart: Int32Array;
  readonly outTo: Int32Array;
  readonly outW: Float64Array;
  /** Exact label sets (names) of exact nodes; empty for cluster nodes. */
  readonly labels: readonly (readonly string[])[];
  /** P̂(ℓ | v) for cluster nodes, per proposition (entries of other nodes are ignored). */
  readonly soft: ReadonlyMap<string, Float64Array>;
  readonly start: number;
  /** Every node may also stay where it is at zero cost (labelled graphs; the contract of `witness plan`). */
  readonly stay: boolean;
  readonly directed: boolean;
  /** Labelled regions are pairwise disjoint, so guard terms with two positive literals can be pruned. */
  readonly disjoint: boolean;
  /** Latent graphs: ψ of every node (nodes × latentDim), for execution and replanning. */
  readonly latents?: Float32Array;
  readonly latentDim?: number;
}

export interface EdgeInput {
  readonly from: number;
  readonly to: number;
  readonly weight: number;
}

/** Compressed out-edge rows; undirected edges are stored both ways. Parallel edges keep the cheapest. */
export function buildRows(
  n: number,
  edges: readonly EdgeInput[],
  directed: boolean,
): { outStart: Int32Array; outTo: Int32Array; outW: Float64Array } {
  const best = new Map<number, number>();
  const put = (a: number, b: number, w: number): void => {
    const key = a * n + b;
    const old = best.get(key);
    if (old === undefined || w < old) best.set(key, w);
  };
  for (const e of edges) {
    // A self-edge is never needed: staying is modelled by stays and dwells, at zero cost.
    if (e.from === e.to) continue;
    put(e.from, e.to, e.weight);
    if (!directed) put(e.to, e.from, e.weight);
  }
  const keys = [...best.keys()].sort((x, y) => x - y);
  const outStart = new Int32Array(n + 1);
  const outTo = new Int32Array(keys.length);
  const outW = new Float64Array(keys.length);
  keys.forEach((key, i) => {
    const a = Math.floor(key / n);
    outStart[a + 1]!++;
    outTo[i] = key - a * n;
    outW[i] = best.get(key)!;
  });
  for (let v = 0; v < n; v++) outStart[v + 1]! += outStart[v]!;
  return { outStart, outTo, outW };
}

/** The weight of edge u → v, or undefined when there is none. */
export function edgeWeight(g: SemanticGraph, u: number, v: number): number | undefined {
  for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) if (g.outTo[e] === v) return g.outW[e]!;
  return undefined;
}

/** Reverse rows (in-edges: v's rows list the nodes u with an edge u → v), for distances *to* a set of nodes. */
export function reverseRows(g: SemanticGraph): EdgeRows {
  const n = g.ids.length;
  const start = new Int32Array(n + 1);
  for (let e = 0; e < g.outTo.length; e++) start[g.outTo[e]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const to = new Int32Array(g.outTo.length);
  const weight = new Float64Array(g.outTo.length);
  for (let u = 0; u < n; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      const at = fill[v]!++;
      to[at] = u;
      weight[at] = g.outW[e]!;
    }
  }
  return { start, to, weight };
}
