/**
 * The label planner as it was before it ran on the shortest-path engine: its own O(n²) Dijkstra (smallest node first
 * among equal costs, the first parent found kept at equal cost). The property test holds the planner to it on random
 * automata, plan for plan.
 */
import { type BuchiAutomaton, letterBits, outgoing } from '../../../main/core/ltl/automaton.js';
import { guardHolds } from '../../../main/core/ltl/guard.js';
import type { LabelBlock, LabelLasso } from '../../../main/core/plan/label-lasso.js';
import { goalCount } from '../../../main/core/plan/label-lasso.js';

interface BlockEdge {
  readonly to: number;
  /** The witness path of ℓ^k visits an accepting state (after its first letter). */
  readonly acc: boolean;
  readonly k: number;
}

/** Cost of a block: region blocks dominate, then the number of blocks. */
const BIG = 1 << 16;

/**
 * The shortest accepting lasso of alternating single-region / no-region blocks. `regions` are the
 * propositions a block may be inside (the task's regions; those the automaton does not name are
 * letters it reads as ∅); `start` is the region the robot starts in (null: none).
 */
export function referenceLabelLasso(
  a: BuchiAutomaton,
  regions: readonly string[],
  start: string | null = null,
): LabelLasso {
  const Q = a.states.length;
  if (start !== null && !regions.includes(start))
    throw new RangeError(`the start region ${start} is not one of the regions`);
  const letters: (string | null)[] = [null, ...[...new Set(regions)].sort()];
  const out = outgoing(a);
  // block[l][q]: every (q', acc) some ℓ^k reaches from q, with the least such k.
  const block: BlockEdge[][][] = letters.map((l) => {
    const bits = letterBits(a, l === null ? [] : [l]);
    return Array.from({ length: Q }, (_, q) => closure(q, bits));
  });
  function closure(q: number, bits: bigint): BlockEdge[] {
    // BFS over (state, acc seen) by single ℓ steps.
    const seen = new Int32Array(2 * Q).fill(-1);
    let frontier: number[] = [];
    for (const e of out[q]!)
      if (guardHolds(e.guard, bits)) {
        const id = 2 * e.to + (a.states[e.to]!.accepting ? 1 : 0);
        if (seen[id] === -1) {
          seen[id] = 1;
          frontier.push(id);
        }
      }
    for (let k = 2; frontier.length > 0; k++) {
      const next: number[] = [];
      for (const id of frontier) {
        const s = id >> 1,
          acc = id & 1;
        for (const e of out[s]!)
          if (guardHolds(e.guard, bits)) {
            const nid = 2 * e.to + (acc === 1 || a.states[e.to]!.accepting ? 1 : 0);
            if (seen[nid] === -1) {
              seen[nid] = k;
              next.push(nid);
            }
          }
      }
      frontier = next;
    }
    const edges: BlockEdge[] = [];
    for (let id = 0; id < 2 * Q; id++)
      if (seen[id]! > 0) edges.push({ to: id >> 1, acc: (id & 1) === 1, k: seen[id]! });
    return edges;
  }
  // Product nodes: v = q·L + (index of the last block's letter).
  const L = letters.length,
    N = Q * L;
  const successors = (v: number): { to: number; li: number; cost: number; e: BlockEdge }[] => {
    const last = v % L,
      q = (v - last) / L;
    const res: { to: number; li: number; cost: number; e: BlockEdge }[] = [];
    for (let li = 0; li < L; li++) {
      // Two different regions never follow each other; entering a region is a goal letter.
      if (li !== last && li !== 0 && last !== 0) continue;
      const cost = li !== 0 && li !== last ? BIG + 1 : 1;
      for (const e of block[li]![q]!) res.push({ to: e.to * L + li, li, cost, e });
    }
    return res;
  };

  // Prefix: the start block from every initial state, then Dijkstra.
  const startLi = letters.indexOf(start);
  const dist = new Float64Array(N).fill(Infinity);
  const prev: ({ from: number; li: number; k: number } | null)[] = new Array<{
    from: number;
    li: number;
    k: number;
  } | null>(N).fill(null);
  for (const q0 of [...a.initial].sort((x, y) => x - y)) {
    for (const e of block[startLi]![q0]!) {
      const v = e.to * L + startLi;
      const c = start === null ? 1 : BIG + 1;
      if (c < dist[v]! || (c === dist[v]! && e.k < prev[v]!.k)) {
        dist[v] = c;
        prev[v] = { from: -1, li: startLi, k: e.k };
      }
    }
  }
  dijkstra(N, dist, prev, (v) => successors(v).map((s) => ({ to: s.to, cost: s.cost, li: s.li, k: s.e.k })));

  // Cycle through each reachable node: Dijkstra over (node, accepting seen).
  let best: { total: number; v: number; cycle: LabelBlock[] } | null = null;
  for (let v = 0; v < N; v++) {
    if (!Number.isFinite(dist[v]!)) continue;
    if (best !== null && dist[v]! >= best.total) continue;
    const cycle = shortestCycle(v);
    if (cycle === null) continue;
    const total = dist[v]! + cycle.cost;
    if (best === null || total < best.total) best = { total, v, cycle: cycle.blocks };
  }
  if (best === null) {
    return {
      status: 'none',
      reason: `the automaton of ${a.formula} has no accepting lasso whose letters hold at most one region at a time (from ${start === null ? 'outside every region' : `inside ${start}`})`,
    };
  }
  const prefix: LabelBlock[] = [];
  for (let v = best.v; v !== -1;) {
    const p = prev[v]!;
    prefix.push({ region: letters[p.li]!, repeat: p.k });
    v = p.from;
  }
  prefix.reverse();
  return { status: 'ok', prefix, cycle: best.cycle, goals: goalCount(prefix, best.cycle) };

  function shortestCycle(v: number): { cost: number; blocks: LabelBlock[] } | null {
    // Nodes 2·u + seen; from (v, 0) to (v, 1) with at least one block.
    const M = 2 * N;
    const d = new Float64Array(M).fill(Infinity);
    const pr: ({ from: number; li: number; k: number } | null)[] = new Array<{
      from: number;
      li: number;
      k: number;
    } | null>(M).fill(null);
    const expand = (x: number): { to: number; cost: number; li: number; k: number }[] => {
      const u = x >> 1,
        s = x & 1;
      return successors(u).map((e) => ({
        to: 2 * e.to + (s === 1 || e.e.acc ? 1 : 0),
        cost: e.cost,
        li: e.li,
        k: e.e.k,
      }));
    };
    for (const e of expand(2 * v)) {
      if (e.cost < d[e.to]! || (e.cost === d[e.to]! && e.k < pr[e.to]!.k)) {
        d[e.to] = e.cost;
        pr[e.to] = { from: -1, li: e.li, k: e.k };
      }
    }
    dijkstra(M, d, pr, expand);
    const goal = 2 * v + 1;
    if (!Number.isFinite(d[goal]!)) return null;
    const blocks: LabelBlock[] = [];
    for (let x = goal; x !== -1;) {
      const p = pr[x]!;
      blocks.push({ region: letters[p.li]!, repeat: p.k });
      x = p.from;
    }
    return { cost: d[goal]!, blocks: blocks.reverse() };
  }
}

/** Dijkstra from the seeded distances (ties: smaller node first; equal cost keeps the first parent found). */
function dijkstra(
  n: number,
  dist: Float64Array,
  prev: ({ from: number; li: number; k: number } | null)[],
  next: (v: number) => readonly { to: number; cost: number; li: number; k: number }[],
): void {
  const done = new Uint8Array(n);
  for (;;) {
    let v = -1;
    for (let u = 0; u < n; u++)
      if (done[u] === 0 && Number.isFinite(dist[u]!) && (v === -1 || dist[u]! < dist[v]!)) v = u;
    if (v === -1) return;
    done[v] = 1;
    for (const e of next(v)) {
      const c = dist[v]! + e.cost;
      if (c < dist[e.to]!) {
        dist[e.to] = c;
        prev[e.to] = { from: v, li: e.li, k: e.k };
      }
    }
  }
}
