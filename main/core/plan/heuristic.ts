/**
 * The prefix-search heuristic of SAGAS (B.13): h(v, q) = min over the first positive literals ℓ that
 * any accepting continuation from q must witness, of the graph distance from v to ℓ's witnesses
 * (anchors; on labelled graphs, the nodes carrying ℓ). Zero when q can reach acceptance without a
 * positive literal. Distances are multi-source Dijkstra runs on the reversed graph, once per
 * proposition, so evaluating h during A* is a table lookup.
 */
import { type EdgeRows, ShortestPaths } from './shortest-path.js';
import type { Product } from './product.js';
import { reverseRows } from './semantic.js';

export interface Heuristic {
  /** Per working state, the table over nodes, or null where h is 0. */
  readonly table: readonly (Float64Array | null)[];
  /** Propositions whose witness distances were computed. */
  readonly propositions: readonly string[];
  /** Distances from every node to the witnesses of proposition i (computed on first use). */
  readonly witnessDistances: (i: number) => Float64Array;
  /** The plan's reversed graph the distances run on, for the search to reuse. */
  readonly reverse: ReverseGraph;
}

/**
 * The reversed semantic graph of one plan and a search space over it: the heuristic's witness
 * distances and the search's return distances both run here, so the rows and the arrays are built
 * once per plan.
 */
export interface ReverseGraph {
  readonly rows: EdgeRows;
  readonly space: ShortestPaths;
}

export function reverseGraph(p: Product): ReverseGraph {
  return { rows: reverseRows(p.g), space: new ShortestPaths(p.n, p.n) };
}

/** Shortest distance from every node to the nearest node in `targets` (multi-source Dijkstra on the reversed graph). */
export function distancesTo(n: number, targets: Iterable<number>, r: ReverseGraph): Float64Array {
  const space = r.space;
  space.start({ successors: r.rows });
  for (const t of targets) space.source(t, 0);
  space.run();
  return space.distances(n);
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
  const { get: propDist, computed, reverse } = witnessDistances(p);
  const byMask = new Map<number, Float64Array>();
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
  return { table, propositions: computed().map((i) => p.w.aps[i]!), witnessDistances: propDist, reverse };
}

/** Distances from every node to the witnesses of proposition i, each computed on first use. */
function witnessDistances(p: Product): {
  get: (i: number) => Float64Array;
  computed: () => number[];
  reverse: ReverseGraph;
} {
  const reverse = reverseGraph(p);
  const perProp = new Map<number, Float64Array>();
  const get = (i: number): Float64Array => {
    let d = perProp.get(i);
    if (d === undefined) {
      const targets: number[] = [];
      for (let v = 0; v < p.n; v++) if ((p.has[v]! & (1 << i)) !== 0) targets.push(v);
      d = distancesTo(p.n, targets, reverse);
      perProp.set(i, d);
    }
    return d;
  };
  return { get, computed: () => [...perProp.keys()].sort((a, b) => a - b), reverse };
}

/**
 * A lower bound from a relaxation that keeps only positive literals: a run from automaton state q
 * to a goal state reads a chain of positive literals ℓ1 … ℓk, each at one of its witnesses, so from
 * node v it costs at least dist(v, A_ℓ1) + D(ℓ1, ℓ2) + … + D(ℓk−1, ℓk) + final(A_ℓk), D being the
 * least distance between two witness sets and `final` the least distance from a witness to where
 * the run must end (nothing, for the prefix; node u, for a return cycle). Where a goal state is
 * reachable from q without positive literals, the bound is final(v). The least chain is a shortest
 * path over (automaton state, literal) pairs, solved once. The bound is consistent: across every
 * product edge it drops by at most the edge's cost (triangle inequality on graph distances, and
 * closures only shrink along positive-free transitions), so A* with it pops states in order of
 * their true cost. Only states in `co` (those that can reach a goal) are followed.
 * Returns, per automaton state, the bound over all nodes (computed on first use).
 */
export function chainBound(
  p: Product,
  wd: (i: number) => Float64Array,
  co: Uint8Array,
  goal: (q: number) => boolean,
  final: Float64Array | null,
): (q: number) => Float64Array {
  const nq = p.nq,
    n = p.n;
  const free = new Uint8Array(nq);
  const exits: [number, number][][] = [];
  for (let q = 0; q < nq; q++) {
    const seen = new Uint8Array(nq);
    const st = [q];
    seen[q] = 1;
    const out = new Set<number>();
    while (st.length > 0) {
      const a = st.pop()!;
      if (goal(a)) free[q] = 1;
      for (let t = p.tStart[a]!; t < p.tStart[a + 1]!; t++) {
        const b = p.tTo[t]!;
        if (co[b] === 0) continue;
        const pos = p.tPos[t]!;
        if (pos === 0) {
          if (seen[b] === 0) {
            seen[b] = 1;
            st.push(b);
          }
        } else {
          for (let i = 0; i < 31; i++) if ((pos & (1 << i)) !== 0) out.add(i * nq + b);
        }
      }
    }
    exits.push([...out].map((x) => [Math.floor(x / nq), x % nq]));
  }
  const lits = [...new Set(exits.flat().map(([i]) => i))];
  const witnesses = new Map(
    lits.map((i) => {
      const out: number[] = [];
      for (let v = 0; v < n; v++) if ((p.has[v]! & (1 << i)) !== 0) out.push(v);
      return [i, out] as const;
    }),
  );
  const L = 32;
  const D = new Float64Array(L * L).fill(Infinity);
  for (const j of lits) {
    const to = wd(j);
    for (const i of lits) for (const a of witnesses.get(i)!) if (to[a]! < D[i * L + j]!) D[i * L + j] = to[a]!;
  }
  const fin = new Float64Array(L);
  for (const i of lits) {
    let d = final === null ? 0 : Infinity;
    if (final !== null) for (const a of witnesses.get(i)!) if (final[a]! < d) d = final[a]!;
    fin[i] = d;
  }
  // R[q·L + i]: least cost from a witness of i, automaton in q, to the goal. Relax to a fixpoint.
  const R = new Float64Array(nq * L).fill(Infinity);
  for (let changed = true, rounds = 0; changed && rounds <= nq * (lits.length + 1); rounds++) {
    changed = false;
    for (let q = 0; q < nq; q++) {
      for (const i of lits) {
        let best = free[q] === 1 ? fin[i]! : Infinity;
        for (const [j, q2] of exits[q]!) {
          const c = D[i * L + j]! + R[q2 * L + j]!;
          if (c < best) best = c;
        }
        if (best < R[q * L + i]!) {
          R[q * L + i] = best;
          changed = true;
        }
      }
    }
  }
  const tables: (Float64Array | undefined)[] = new Array<Float64Array | undefined>(nq);
  return (q: number): Float64Array => {
    let h = tables[q];
    if (h !== undefined) return h;
    h = new Float64Array(n);
    for (let v = 0; v < n; v++) h[v] = free[q] === 1 ? (final === null ? 0 : final[v]!) : Infinity;
    const byLit = new Map<number, number>();
    for (const [j, q2] of exits[q]!) {
      const r = R[q2 * L + j]!;
      if (r < (byLit.get(j) ?? Infinity)) byLit.set(j, r);
    }
    for (const [j, r] of byLit) {
      if (r === Infinity) continue;
      const d = wd(j);
      for (let v = 0; v < n; v++) {
        const c = d[v]! + r;
        if (c < h[v]!) h[v] = c;
      }
    }
    tables[q] = h;
    return h;
  };
}

/**
 * Beyond the paper: the prefix heuristic from chainBound towards any accepting state. It dominates
 * B.13 (it adds the rest of the literal chain to B.13's first leg) and is as admissible.
 */
export function buildChainHeuristic(p: Product): Heuristic {
  const { get, computed, reverse } = witnessDistances(p);
  const all = new Uint8Array(p.nq).fill(1);
  const bound = chainBound(p, get, all, (q) => p.w.accepting[q] === 1, null);
  const table = Array.from({ length: p.nq }, (_, q): Float64Array | null => (p.w.accepting[q] === 1 ? null : bound(q)));
  return { table, propositions: computed().map((i) => p.w.aps[i]!), witnessDistances: get, reverse };
}

export function hValue(h: Heuristic, p: Product, z: number): number {
  const q = z % p.nq;
  const t = h.table[q];
  return t === null || t === undefined ? 0 : t[(z - q) / p.nq]!;
}
