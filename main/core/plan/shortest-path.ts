/**
 * The one Dijkstra / A* of the planner. Every shortest-path search runs here: the prefix A* and
 * the return-cycle searches of the SAGAS search, the heuristic's distances on the reversed graph,
 * the baselines' graph segments, the reference planner and the benchmark's exhaustive Dijkstra.
 * Each caller supplies only what differs: the sources, a successor enumeration, an optional
 * consistent heuristic, a per-pop decision (expand, settle without expanding, stop) and a key
 * bound; the queue, the relaxation and the bookkeeping are shared.
 *
 * Nodes are integers 0 … size−1. The arrays (cost, predecessor, the tag of the edge that entered a
 * node, and an epoch stamp) are typed, reused across searches and reset in O(1) by bumping the
 * epoch, which is what makes one cycle search per accepting endpoint affordable. They grow when a
 * search reaches a node beyond them, so a caller that does not know its node space can start small.
 * The inner loop allocates nothing: the callbacks are set once per search, never per pop, and the
 * relaxation handed to them is one function for every space and search (see `visit`).
 *
 * Semantics, which fix the order of equal-cost pops and so the plans chosen: a binary heap of
 * (key, node) with lazy deletion (an improved node is pushed again; entries of settled nodes are
 * skipped when popped); a node is settled when first popped; a relaxation improves a node only
 * when strictly cheaper (`<`), and one that reaches a settled node more cheaply (possible only
 * with negative weights or an inconsistent heuristic) reopens it.
 */
import { MinHeap } from './heap.js';

/** Relaxes the edge from the node being expanded to v, of weight w ≥ 0; `tag` is kept as v's entering tag. */
export type Visit = (v: number, w: number, tag: number) => void;

/** Calls visit(v, w, tag) for every out-edge of u. */
export type Successors = (u: number, visit: Visit) => void;

/** What the search does with a node it has just settled: the `onPop` callback's answer. */
export type PopAction = typeof EXPAND | typeof SKIP | typeof STOP;
/** Expand the node: relax its out-edges. */
export const EXPAND = 0;
/** Keep the node settled but do not expand it. */
export const SKIP = 1;
/** End the search now (the node stays settled and unexpanded). */
export const STOP = 2;

/** Out-edges in compressed rows: u's edges are to[i], weight[i] for i in start[u] … start[u+1)−1. */
export interface EdgeRows {
  readonly start: Int32Array;
  readonly to: Int32Array;
  readonly weight: Float64Array;
}

export interface ShortestPathSearch {
  /**
   * The out-edges: a callback, or compressed rows (each edge's tag is its index in the rows), which
   * the search reads in its own loop without a call per edge; the reversed-graph distances (the
   * heuristic's, one search per proposition per plan, and the return cycles' guides) use them.
   */
  readonly successors: Successors | EdgeRows;
  /**
   * A lower bound on the cost from v to the goal (A*; none: Dijkstra); queue keys are g + h.
   * Consistent bounds pop every node at its least cost. Infinity drops the node, unless it is a source.
   */
  readonly heuristic?: (v: number) => number;
  /**
   * Called once per settled node, in pop order, with its cost g and its key f (g + h): the place
   * for stop conditions ("K accepting pops", "target popped", "no key below the incumbent"). Absent: expand.
   */
  readonly onPop?: (u: number, g: number, f: number) => PopAction;
  /** Relaxations whose key would reach this bound are dropped (default Infinity). */
  readonly bound?: number;
  /**
   * Cancellation / time budget: called after every CHECK_EVERY-th expansion, counted over all the
   * searches run on the same space (so many small searches are checked too); it throws to stop.
   */
  readonly check?: () => void;
}

/** check() runs once per this many expansions (a power of two). */
export const CHECK_EVERY = 4096;

const noSuccessors: Successors = () => undefined;

/**
 * Reusable arrays and queue for repeated shortest-path searches over one node space (0 … size−1; it grows on demand).
 */
export class ShortestPaths {
  /**
   * The space whose search is running. A search started from inside another's callback (the
   * prefix's cycle searches, or a heuristic that computes distances on first use) restores it.
   */
  private static active: ShortestPaths | null = null;

  /**
   * The relaxation handed to every successor enumeration, on the running space. It is one function
   * object for all spaces and searches, so each enumeration calls a single known target that V8
   * inlines; a closure per space (many closures of one literal) was not inlined and made the
   * searches up to 1.5× slower (measured).
   */
  private static readonly visit: Visit = (v, w, tag) => ShortestPaths.active!.relax(v, w, tag);

  private dist: Float64Array;
  private pred: Int32Array;
  private predTag: Int32Array;
  /**
   * 2·epoch while a node is open in the current search and 2·epoch + 1 once it is settled: one
   * shift tells "reached in this search", and reopening a settled node is the same store.
   */
  private stamp: Int32Array;
  private epoch = 0;
  private open = 0;
  private closed = 1;
  private readonly heap: MinHeap;
  private expandedTotal = 0;
  // The search in progress (set by start).
  private successors: Successors = noSuccessors;
  private rows: EdgeRows | null = null;
  private heuristic: ((v: number) => number) | null = null;
  private onPop: ((u: number, g: number, f: number) => PopAction) | null = null;
  private bound = Infinity;
  private check: (() => void) | null = null;
  // The node being expanded and its cost, read by the relaxation.
  private from = -1;
  private fromCost = 0;

  /** `size`: the node space (it grows on demand); `queueCapacity`: the heap's initial capacity. */
  constructor(size: number, queueCapacity = 1024) {
    const n = Math.max(1, Math.ceil(size));
    this.dist = new Float64Array(n);
    this.pred = new Int32Array(n);
    this.predTag = new Int32Array(n);
    this.stamp = new Int32Array(n);
    this.heap = new MinHeap(queueCapacity);
  }

  /** Begins a new search on this space, forgetting the previous one in O(1), with the given callbacks. */
  start(search: ShortestPathSearch): void {
    if (this.epoch === 0x3fffffff) {
      // Epochs ran out: clear the stamps once so old ones cannot alias new epochs.
      this.stamp.fill(0);
      this.epoch = 0;
    }
    this.epoch++;
    this.open = 2 * this.epoch;
    this.closed = this.open + 1;
    this.heap.clear();
    const succ = search.successors;
    this.successors = typeof succ === 'function' ? succ : noSuccessors;
    this.rows = typeof succ === 'function' ? null : succ;
    this.heuristic = search.heuristic ?? null;
    this.onPop = search.onPop ?? null;
    this.bound = search.bound ?? Infinity;
    this.check = search.check ?? null;
  }

  /**
   * A source at `cost` (its predecessor and tag as given, −1 by default), queued at cost + h. A
   * source already reached at no more than `cost` is left alone; sources are screened neither by
   * the bound nor by an infinite heuristic.
   */
  source(v: number, cost: number, pred = -1, tag = -1): void {
    if (this.epoch === 0) throw new Error('shortest path: start() a search before adding sources');
    if (!(v >= 0)) throw new RangeError(`shortest path: node ${v} is not a node id`);
    if (v >= this.stamp.length) this.grow(v + 1);
    if (!(cost < this.distance(v))) return;
    this.stamp[v] = this.open;
    this.dist[v] = cost;
    this.pred[v] = pred;
    this.predTag[v] = tag;
    const h = this.heuristic;
    this.heap.push(h === null ? cost : cost + h(v), v);
  }

  /**
   * Relaxes u's out-edges as if u had been popped at `cost`, without settling u: the sources of a
   * search for the cheapest cycle back to u (its successors, entered from u, screened like any relaxation).
   */
  relaxFrom(u: number, cost: number): void {
    this.from = u;
    this.fromCost = cost;
    const outer = ShortestPaths.active;
    ShortestPaths.active = this;
    try {
      if (this.rows !== null) this.relaxRows(u, cost, this.rows);
      else this.successors(u, ShortestPaths.visit);
    } finally {
      ShortestPaths.active = outer;
    }
  }

  /** Runs the search until the queue is empty or onPop says STOP; returns the nodes it expanded. */
  run(): number {
    const outer = ShortestPaths.active;
    ShortestPaths.active = this;
    try {
      return this.loop();
    } finally {
      ShortestPaths.active = outer;
    }
  }

  private loop(): number {
    const heap = this.heap;
    // The callbacks are fixed for the run (a reentrant start() on the same space is not supported).
    const expand = this.successors,
      rows = this.rows,
      decide = this.onPop,
      cancel = this.check,
      settled = this.closed,
      visit = ShortestPaths.visit;
    let expanded = 0;
    while (heap.size > 0) {
      const f = heap.peekKey();
      const u = heap.pop();
      const stamp = this.stamp;
      if (stamp[u] === settled) continue;
      stamp[u] = settled;
      const g = this.dist[u]!;
      if (decide !== null) {
        const action = decide(u, g, f);
        if (action !== EXPAND) {
          if (action === STOP) break;
          continue;
        }
      }
      expanded++;
      if ((++this.expandedTotal & (CHECK_EVERY - 1)) === 0 && cancel !== null) cancel();
      if (rows !== null) {
        this.relaxRows(u, g, rows);
      } else {
        this.from = u;
        this.fromCost = g;
        expand(u, visit);
      }
    }
    return expanded;
  }

  /** relax() over u's edges in compressed rows, with the search's state in locals. */
  private relaxRows(u: number, g: number, rows: EdgeRows): void {
    const { start, to, weight } = rows;
    const heap = this.heap,
      h = this.heuristic,
      bound = this.bound,
      epoch = this.epoch,
      open = this.open;
    for (let e = start[u]!; e < start[u + 1]!; e++) {
      const v = to[e]!;
      if (v >= this.stamp.length) this.grow(v + 1);
      const stamp = this.stamp,
        dist = this.dist;
      const nd = g + weight[e]!;
      if (!(nd < (stamp[v]! >> 1 === epoch ? dist[v]! : Infinity))) continue;
      const f = h === null ? nd : nd + h(v);
      if (f >= bound) continue;
      stamp[v] = open;
      dist[v] = nd;
      this.pred[v] = u;
      this.predTag[v] = e;
      heap.push(f, v);
    }
  }

  /** The relaxation of the edge from the node being expanded to v (through `visit`). */
  private relax(v: number, w: number, tag: number): void {
    if (v >= this.stamp.length) this.grow(v + 1);
    const stamp = this.stamp;
    const nd = this.fromCost + w;
    if (!(nd < (stamp[v]! >> 1 === this.epoch ? this.dist[v]! : Infinity))) return;
    const h = this.heuristic;
    const f = h === null ? nd : nd + h(v);
    if (f >= this.bound) return;
    stamp[v] = this.open;
    this.dist[v] = nd;
    this.pred[v] = this.from;
    this.predTag[v] = tag;
    this.heap.push(f, v);
  }

  /** Reached (queued at least once) in the current search. */
  reached(v: number): boolean {
    return this.epoch !== 0 && v >= 0 && v < this.stamp.length && this.stamp[v]! >> 1 === this.epoch;
  }

  /** Popped (settled) in the current search. */
  settled(v: number): boolean {
    return this.epoch !== 0 && v >= 0 && v < this.stamp.length && this.stamp[v] === this.closed;
  }

  /** The best cost found so far (final once settled); Infinity when unreached. */
  distance(v: number): number {
    return this.reached(v) ? this.dist[v]! : Infinity;
  }

  /** The node v was reached from (−1 for a source); meaningful only for reached nodes. */
  predecessor(v: number): number {
    return this.pred[v]!;
  }

  /** The tag of the edge that reached v (a source's own tag); meaningful only for reached nodes. */
  tag(v: number): number {
    return this.predTag[v]!;
  }

  /** The first n costs as a fresh array (Infinity where unreached), for callers that keep the result. */
  distances(n: number): Float64Array {
    const out = new Float64Array(n);
    const stamp = this.stamp,
      dist = this.dist,
      epoch = this.epoch,
      m = Math.min(n, stamp.length);
    for (let v = 0; v < m; v++) out[v] = stamp[v]! >> 1 === epoch ? dist[v]! : Infinity;
    out.fill(Infinity, m);
    return out;
  }

  private grow(min: number): void {
    const n = Math.max(min, 2 * this.stamp.length);
    const dist = new Float64Array(n),
      pred = new Int32Array(n),
      predTag = new Int32Array(n),
      stamp = new Int32Array(n);
    dist.set(this.dist);
    pred.set(this.pred);
    predTag.set(this.predTag);
    stamp.set(this.stamp);
    this.dist = dist;
    this.pred = pred;
    this.predTag = predTag;
    this.stamp = stamp;
  }
}
