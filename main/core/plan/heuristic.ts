/**
 * The prefix-search heuristic of SAGAS (B.13): h(v, q) = min over the first positive literals ℓ that
 * any accepting continuation from q must witness, of the graph distance from v to ℓ's witnesses
 * (anchors; on labelled graphs, the nodes carrying ℓ). Zero when q can reach acceptance without a
 * positive literal. Distances are multi-source Dijkstra runs on the reversed graph, once per
 * proposition, so evaluating h during A* is a table lookup.
 */
import { MinHeap } from './heap.js';
import type { Product } from './product.js';
import { reverseRows } from './semantic.js';

export interface Heuristic {
  /** Per working state, the table over nodes, or null where h is 0. */
  readonly table: readonly (Float64Array | null)[];
  /** Propositions whose witness distances were computed. */
  readonly propositions: readonly string[];
  /** Distances from every node to the witnesses of proposition i (computed on first use). */
  readonly witnessDistances: (i: number) => Float64Array;
}

/** Shortest distance from every node to the nearest node in `targets`, on the given in-edge rows. */
export function distancesTo(n: number, targets: Iterable<number>, rows: { inStart: Int32Array; inFrom: Int32Array; inW: Float64Array }): Float64Array {
  const dist = new Float64Array(n).fill(Infinity);
  const heap = new MinHeap(n);
  for (const t of targets) {
    dist[t] = 0;
    heap.push(0, t);
  }
  while (heap.size > 0) {
    const d = heap.peekKey();
    const v = heap.pop();
    if (d > dist[v]!) continue;
    for (let e = rows.inStart[v]!; e < rows.inStart[v + 1]!; e++) {
      const u = rows.inFrom[e]!;
      const nd = d + rows.inW[e]!;
      if (nd < dist[u]!) {
        dist[u] = nd;
        heap.push(nd, u);
      }
    }
  }
  return dist;
}

export function buildHeuristic(p: Product): Heuristic {
  const { nq, n } = p;
  // C0(q): states reachable from q by positive-free transitions.
  const firstPositives = new Int32Array(nq);
  const zero = new Uint8Array(nq);
  for (let q = 0; q < nq; q++) {
    const seen = new Uint8Array(nq);
    const stack = [q];
    seen[q] = 1;
    let mask = 0;
    while (stack.length > 0) {
      const a = stack.pop()!;
      if (p.w.accepting[a] === 1) zero[q] = 1;
      for (let t = p.tStart[a]!; t < p.tStart[a + 1]!; t++) {
        if (p.tPos[t] === 0) {
          const b = p.tTo[t]!;
          if (seen[b] === 0) {
            seen[b] = 1;
            stack.push(b);
          }
        } else {
          mask |= p.tPos[t]!;
        }
      }
    }
    firstPositives[q] = mask;
    if (mask === 0) zero[q] = 1;
  }
  const rows = reverseRows(p.g);
  const perProp = new Map<number, Float64Array>();
  const byMask = new Map<number, Float64Array>();
  const propDist = (i: number): Float64Array => {
    let d = perProp.get(i);
    if (d === undefined) {
      const targets: number[] = [];
      for (let v = 0; v < n; v++) if ((p.has[v]! & (1 << i)) !== 0) targets.push(v);
      d = distancesTo(n, targets, rows);
      perProp.set(i, d);
    }
    return d;
  };
  const table = Array.from({ length: nq }, (_, q): Float64Array | null => {
    if (zero[q] === 1) return null;
    const mask = firstPositives[q]!;
    let t = byMask.get(mask);
    if (t === undefined) {
      t = new Float64Array(n).fill(Infinity);
      for (let i = 0; i < 31; i++) {
        if ((mask & (1 << i)) === 0) continue;
        const d = propDist(i);
        for (let v = 0; v < n; v++) if (d[v]! < t[v]!) t[v] = d[v]!;
      }
      byMask.set(mask, t);
    }
    return t;
  });
  return { table, propositions: [...perProp.keys()].sort((a, b) => a - b).map((i) => p.w.aps[i]!), witnessDistances: propDist };
}

export function hValue(h: Heuristic, p: Product, z: number): number {
  const q = z % p.nq;
  const t = h.table[q];
  return t === null || t === undefined ? 0 : t[(z - q) / p.nq]!;
}
