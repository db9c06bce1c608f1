/**
 * The latent reachability graph of SAGAS Appendix B.1 (after GAS), from the latents ψ(s) of a
 * dataset: temporal-efficiency filtering, greedy leader clustering with radius H_TD/2 (node = cluster
 * mean), edges both ways between nodes within H_TD (weight = latent L2), disconnected components
 * joined through their nearest pair, and the raw-state support D_v of every node (B.4). Pure.
 */
import { GRAPH_DEFAULTS } from '../../contract/defaults.js';
import { trajectoryEnds } from '../data/dataset.js';

export interface GraphParams {
  readonly H_TD: number;
  /** Temporal-efficiency cosine threshold for keeping a state (GAS: 0.99). */
  readonly teThreshold: number;
}

export const DEFAULT_GRAPH: GraphParams = { ...GRAPH_DEFAULTS };

export interface LatentGraph {
  readonly dim: number;
  /** Node latents, nodes × dim. */
  readonly nodes: Float32Array;
  readonly nodeCount: number;
  /** Edges as parallel arrays (u < v listed once; the graph is symmetric). */
  readonly edgeU: Int32Array;
  readonly edgeV: Int32Array;
  readonly edgeW: Float32Array;
  /** For every dataset state, the node whose support it belongs to. */
  readonly support: Int32Array;
  /** States kept by the temporal-efficiency filter. */
  readonly retained: number;
  /** Edges added to join components. */
  readonly bridges: number;
  /** Connected components before joining. */
  readonly componentsBefore: number;
}

export interface BuildProgress {
  (stage: string, done: number, total: number): void;
}

function sqdist(a: Float32Array, i: number, b: Float32Array, j: number, dim: number): number {
  let s = 0;
  for (let q = 0; q < dim; q++) {
    const d = a[i * dim + q]! - b[j * dim + q]!;
    s += d * d;
  }
  return s;
}

/** Below this share of a large dataset's states kept by the filter, the graph cannot cover the world. */
const SPARSE_FILTER_SHARE = 0.001;

/**
 * A warning when the temporal-efficiency filter kept almost nothing of a large dataset (null when the
 * graph is usable): ψ rarely moves H_TD latent units along a recorded trajectory in one direction,
 * so nearly every state is dropped and the graph is a node or a few — every mission then fails in
 * planning for a reason the planner cannot name. A healthy graph keeps a far larger share (docs/BENCHMARKS.md).
 */
export function sparseFilterWarning(
  g: Pick<LatentGraph, 'retained' | 'support' | 'nodeCount'>,
  H_TD: number,
): string | null {
  const states = g.support.length;
  if (states < 10_000 || g.retained >= SPARSE_FILTER_SHARE * states) return null;
  return (
    `the temporal-efficiency filter kept ${g.retained} of ${states} states (${((100 * g.retained) / states).toPrecision(2)} %), a graph of ${g.nodeCount} node(s): ` +
    `along the recorded trajectories ψ seldom moves H_TD = ${H_TD} latent units in one direction, so the models do not fit this dataset ` +
    `(check them with \`witness backbone eval\`; a healthy graph keeps a far larger share of the states)`
  );
}

/** θ_TE(s_t) = cos(ψ(F(s_t, H)) − ψ(s_t), ψ(s_{t+H}) − ψ(s_t)); states without both are dropped. */
export function temporalEfficiency(latent: Float32Array, dim: number, terminals: Uint8Array, H: number): Float32Array {
  const n = terminals.length;
  const te = new Float32Array(n).fill(-2);
  const ends = trajectoryEnds(terminals);
  const steps = Math.max(1, Math.round(H));
  for (let t = 0; t < n; t++) {
    const e = ends[t]!;
    if (t + steps > e) continue;
    let f = t + 1;
    while (f < e && sqdist(latent, f, latent, t, dim) < H * H) f++;
    if (sqdist(latent, f, latent, t, dim) < H * H) continue;
    const h = t + steps;
    let dot = 0,
      na = 0,
      nb = 0;
    for (let q = 0; q < dim; q++) {
      const a = latent[f * dim + q]! - latent[t * dim + q]!;
      const b = latent[h * dim + q]! - latent[t * dim + q]!;
      dot += a * b;
      na += a * a;
      nb += b * b;
    }
    if (na > 0 && nb > 0) te[t] = dot / Math.sqrt(na * nb);
  }
  return te;
}

/**
 * An exact nearest-within-radius index: points are bucketed by their projections on a few fixed
 * directions (a projection moves no more than the distance), so only neighbouring buckets are read.
 */
class LeaderIndex {
  private readonly buckets = new Map<number, number[]>();
  private readonly dirs: Float32Array[];
  readonly points: number[] = [];
  private readonly cellBuf: number[];
  constructor(
    private readonly latent: Float32Array,
    private readonly dim: number,
    private readonly r: number,
    k = 3,
  ) {
    this.dirs = Array.from({ length: Math.min(k, dim) }, (_, j) => {
      const v = new Float32Array(dim);
      // fixed, deterministic, roughly spread directions
      for (let q = 0; q < dim; q++) v[q] = Math.cos((q + 1) * (j + 1) * 1.7) + (q % (j + 2) === 0 ? 0.5 : 0);
      const len = Math.hypot(...v);
      return v.map((x) => x / len);
    });
    this.cellBuf = new Array<number>(this.dirs.length).fill(0);
  }
  private cell(src: Float32Array, i: number): number[] {
    for (let j = 0; j < this.dirs.length; j++) {
      const d = this.dirs[j]!;
      let s = 0;
      for (let q = 0; q < this.dim; q++) s += d[q]! * src[i * this.dim + q]!;
      this.cellBuf[j] = Math.floor(s / this.r);
    }
    return this.cellBuf;
  }
  /** A numeric bucket key (cells are small integers; 2^17 per axis is far beyond any latent range). */
  private static key(c: readonly number[], offs: readonly number[]): number {
    let k = 0;
    for (let j = 0; j < c.length; j++) k = k * 131072 + ((c[j]! + offs[j]! + 65536) & 131071);
    return k;
  }
  /** Adds point `id` (the next id) whose coordinates are row id of `leaders`. */
  add(leaderRow: number, leaders: Float32Array): void {
    const id = this.points.length;
    this.points.push(leaderRow);
    const key = LeaderIndex.key(this.cell(leaders, id), ZERO);
    const list = this.buckets.get(key);
    if (list) list.push(id);
    else this.buckets.set(key, [id]);
  }
  /** Nearest leader within r of latent row i, or -1. */
  nearest(i: number, leaders: Float32Array): number {
    const c = this.cell(this.latent, i);
    let best = -1,
      bestD = this.r * this.r;
    const k = c.length;
    const offs = [-1, -1, -1].slice(0, k);
    for (;;) {
      const bucket = this.buckets.get(LeaderIndex.key(c, offs));
      if (bucket) {
        for (const id of bucket) {
          const d = sqdist(this.latent, i, leaders, id, this.dim);
          if (d <= bestD) {
            bestD = d;
            best = id;
          }
        }
      }
      let j = 0;
      while (j < k && offs[j] === 1) offs[j++] = -1;
      if (j === k) break;
      offs[j]!++;
    }
    return best;
  }
}

/**
 * Every leader's fellow leaders within `reach`, kept as leaders are added (one pass over the others
 * each time), so a nearest-leader query can start from a guess g: a leader within r of state s is
 * within ‖s − g‖ + r of g (triangle inequality), so when that bound is inside the reach, g and its
 * list are all the candidates and the answer is exact; otherwise the query is UNDECIDED.
 */
class LeaderNeighbours {
  static readonly UNDECIDED = -2;
  private readonly ids: number[][] = [];
  private readonly dists: number[][] = [];
  constructor(
    private readonly latent: Float32Array,
    private readonly dim: number,
    private readonly r: number,
    private readonly reach: number,
  ) {}
  /** Adds leader `id` (the next id), whose coordinates are row id of `leaders`. */
  add(id: number, leaders: Float32Array): void {
    const mine: number[] = [],
      mineD: number[] = [];
    const reach2 = this.reach * this.reach;
    for (let u = 0; u < id; u++) {
      const d2 = sqdist(leaders, u, leaders, id, this.dim);
      if (d2 > reach2) continue;
      const d = Math.sqrt(d2);
      mine.push(u);
      mineD.push(d);
      this.ids[u]!.push(id);
      this.dists[u]!.push(d);
    }
    this.ids.push(mine);
    this.dists.push(mineD);
  }
  /** The nearest leader within r of latent row i (ties: the lowest id), -1 when none, or UNDECIDED. */
  nearest(i: number, g: number, leaders: Float32Array): number {
    const d0sq = sqdist(this.latent, i, leaders, g, this.dim);
    const bound = Math.sqrt(d0sq) + this.r;
    if (bound > this.reach) return LeaderNeighbours.UNDECIDED;
    let best = -1,
      bestD = this.r * this.r;
    if (d0sq <= bestD) {
      best = g;
      bestD = d0sq;
    }
    const ids = this.ids[g]!,
      dists = this.dists[g]!;
    for (let k = 0; k < ids.length; k++) {
      if (dists[k]! > bound) continue;
      const c = ids[k]!;
      const d = sqdist(this.latent, i, leaders, c, this.dim);
      if (d < bestD || (d === bestD && (best === -1 || c < best))) {
        bestD = d;
        best = c;
      }
    }
    return best;
  }
}

/**
 * How far (in H_TD) each leader's list reaches: a query from the last state's leader needs
 * ‖s − g‖ + H_TD/2, and consecutive states are rarely more than a step or two apart in ψ.
 */
const LEADER_REACH_H = 2;

const ZERO = [0, 0, 0];
/**
 * How far (in H_TD) each node's neighbour list reaches for the supports' search: a state's bound is
 * about twice its distance to the previous state's node, itself within about H_TD/2 of it, so 2 H_TD
 * leaves nearly every state to its list.
 */
const SUPPORT_REACH_H = 2;

export function buildGraph(
  latent: Float32Array,
  dim: number,
  terminals: Uint8Array,
  p: GraphParams,
  progress?: BuildProgress,
): LatentGraph {
  const n = terminals.length;
  if (latent.length !== n * dim) throw new RangeError(`latents: expected ${n}×${dim} values, got ${latent.length}`);
  const te = temporalEfficiency(latent, dim, terminals, p.H_TD);
  progress?.('temporal efficiency', n, n);
  const radius = p.H_TD / 2;
  // Greedy leader clustering over the retained states, in dataset order. Consecutive states are
  // close, so the search starts from the last state's leader (LeaderNeighbours) and falls back to
  // the projection index only when that cannot decide.
  let cap = 1024;
  let leaders = new Float32Array(cap * dim);
  const index = new LeaderIndex(latent, dim, radius);
  const local = new LeaderNeighbours(latent, dim, radius, LEADER_REACH_H * p.H_TD);
  const sums: number[][] = [];
  const counts: number[] = [];
  let retained = 0;
  let guess = -1;
  for (let i = 0; i < n; i++) {
    if (!(te[i]! >= p.teThreshold)) continue;
    retained++;
    let c = guess >= 0 ? local.nearest(i, guess, leaders) : LeaderNeighbours.UNDECIDED;
    if (c === LeaderNeighbours.UNDECIDED) c = index.nearest(i, leaders);
    if (c === -1) {
      c = index.points.length;
      if (c >= cap) {
        cap *= 2;
        const grown = new Float32Array(cap * dim);
        grown.set(leaders);
        leaders = grown;
      }
      leaders.set(latent.subarray(i * dim, i * dim + dim), c * dim);
      index.add(i, leaders);
      local.add(c, leaders);
      sums.push(new Array<number>(dim).fill(0));
      counts.push(0);
    }
    guess = c;
    const s = sums[c]!;
    for (let q = 0; q < dim; q++) s[q]! += latent[i * dim + q]!;
    counts[c]!++;
    if ((i & 65535) === 0) progress?.('clustering', i, n);
  }
  const m = counts.length;
  if (m === 0)
    throw new RangeError(
      `no state passed the temporal-efficiency filter (threshold ${p.teThreshold}); the embedding or H_TD does not fit this dataset`,
    );
  const nodes = new Float32Array(m * dim);
  for (let c = 0; c < m; c++) for (let q = 0; q < dim; q++) nodes[c * dim + q] = sums[c]![q]! / counts[c]!;
  progress?.('clustering', n, n);

  // Edges within H_TD, both directions (stored once).
  const eu: number[] = [],
    ev: number[] = [],
    ew: number[] = [];
  for (let u = 0; u < m; u++) {
    for (let v = u + 1; v < m; v++) {
      const d = sqdist(nodes, u, nodes, v, dim);
      if (d <= p.H_TD * p.H_TD) {
        eu.push(u);
        ev.push(v);
        ew.push(Math.sqrt(d));
      }
    }
  }
  // Join components through their nearest pair until one remains.
  const parent = Int32Array.from({ length: m }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  for (let e = 0; e < eu.length; e++) parent[find(eu[e]!)] = find(ev[e]!);
  const comps = (): number => new Set(Array.from({ length: m }, (_, i) => find(i))).size;
  const componentsBefore = comps();
  let bridges = 0;
  while (comps() > 1) {
    const root0 = find(0);
    let best = Infinity,
      bu = -1,
      bv = -1;
    for (let u = 0; u < m; u++) {
      if (find(u) !== root0) continue;
      for (let v = 0; v < m; v++) {
        if (find(v) === root0) continue;
        const d = sqdist(nodes, u, nodes, v, dim);
        if (d < best) {
          best = d;
          bu = u;
          bv = v;
        }
      }
    }
    eu.push(Math.min(bu, bv));
    ev.push(Math.max(bu, bv));
    ew.push(Math.sqrt(best));
    parent[find(bv)] = root0;
    bridges++;
  }
  const support = assignSupports(latent, nodes, dim, terminals, SUPPORT_REACH_H * p.H_TD, progress);
  return {
    dim,
    nodes,
    nodeCount: m,
    edgeU: Int32Array.from(eu),
    edgeV: Int32Array.from(ev),
    edgeW: Float32Array.from(ew),
    support,
    retained,
    bridges,
    componentsBefore,
  };
}

/**
 * D_v: every dataset state belongs to its exact nearest node. Consecutive states are close, so the
 * previous state's node c0 is a good first guess; a node c can only beat it if
 * ‖c − c0‖ < best + ‖s − c0‖ (triangle inequality), so only c0's neighbours within that bound are
 * examined, nearest first. Each node keeps the list of its neighbours within `reach` (sorted by
 * distance), so memory and set-up grow with the graph's local density rather than with m²; a state
 * whose bound reaches past its guess's list (a trajectory's first state, a jump across the latent
 * space) is compared with every node. Exact either way.
 */
function assignSupports(
  latent: Float32Array,
  nodes: Float32Array,
  dim: number,
  terminals: Uint8Array,
  reach: number,
  progress?: BuildProgress,
): Int32Array {
  const n = terminals.length,
    m = nodes.length / dim;
  const support = new Int32Array(n);
  const near = neighbourLists(nodes, dim, m, reach);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const c0 = i > 0 && terminals[i - 1] === 0 ? prev : 0;
    const d0 = Math.sqrt(sqdist(latent, i, nodes, c0, dim));
    let best = d0,
      arg = c0;
    const list = near[c0]!;
    let k = 0;
    for (; k < list.ids.length; k++) {
      if (list.dist[k]! >= best + d0) break;
      const c = list.ids[k]!;
      const dc = Math.sqrt(sqdist(latent, i, nodes, c, dim));
      if (dc < best || (dc === best && c < arg)) {
        best = dc;
        arg = c;
      }
    }
    if (k === list.ids.length && best + d0 > reach) {
      // the bound passes the list's reach: a node beyond it may still be nearer
      for (let c = 0; c < m; c++) {
        if (c === c0) continue;
        const dc = Math.sqrt(sqdist(latent, i, nodes, c, dim));
        if (dc < best || (dc === best && c < arg)) {
          best = dc;
          arg = c;
        }
      }
    }
    support[i] = arg;
    prev = arg;
    if ((i & 65535) === 0) progress?.('supports', i, n);
  }
  progress?.('supports', n, n);
  return support;
}

/** For every node, the other nodes within `reach`, nearest first (ties by index). */
function neighbourLists(
  nodes: Float32Array,
  dim: number,
  m: number,
  reach: number,
): { ids: Int32Array; dist: Float32Array }[] {
  const ids: number[][] = Array.from({ length: m }, () => []);
  const dists: number[][] = Array.from({ length: m }, () => []);
  const r2 = reach * reach;
  for (let u = 0; u < m; u++) {
    for (let v = u + 1; v < m; v++) {
      const d2 = sqdist(nodes, u, nodes, v, dim);
      if (d2 > r2) continue;
      const d = Math.sqrt(d2);
      ids[u]!.push(v);
      dists[u]!.push(d);
      ids[v]!.push(u);
      dists[v]!.push(d);
    }
  }
  return ids.map((row, u) => {
    const dist = dists[u]!;
    const order = Int32Array.from(row.keys()).sort((a, b) => dist[a]! - dist[b]! || row[a]! - row[b]!);
    return { ids: Int32Array.from(order, (k) => row[k]!), dist: Float32Array.from(order, (k) => dist[k]!) };
  });
}
