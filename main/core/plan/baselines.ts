/**
 * The two GAS-backbone baselines of SAGAS Appendix E, on the same graph, oracle and node-level
 * forbidden-label screen as SAGAS; they differ only in how they choose automaton transitions.
 *
 * - LF-GAS (logic first): the accepting lasso of the automaton alone with the fewest transitions
 *   (prefix hops + cycle hops), then each transition realised on the graph by the cheapest path to a
 *   node that enables it, through nodes that keep the automaton where it is (its self-loop enabled).
 *   Graph costs never influence which automaton lasso is chosen; when one cannot be realised, the
 *   next in hop order is tried.
 * - GA-GAS (greedy anchor): from the current product state, take the outgoing automaton transition
 *   whose enabling node is cheapest to reach now (a positive-free transition enabled where the
 *   robot stands costs nothing and is taken in place); repeat until an accepting state, then build
 *   the suffix the same way, required to return to the same node and automaton state. No
 *   backtracking: a dead end or a repeated product state is a failure. A move between two of the
 *   initial automaton states (a start inside a region the formula names gives more than one) is
 *   not a choice at all, and is never taken.
 */
import { EXPAND, SKIP, STOP, ShortestPaths } from './shortest-path.js';
import { type Product, dwellTransition, enabled } from './product.js';
import type { Candidate, ProductPath, SearchStats } from './search.js';
import type { PlanContext } from './plan.js';
import type { SearchOutcome } from './diagnose.js';

export interface BaselineResult extends SearchOutcome {
  readonly best: Candidate | null;
  readonly stats: SearchStats;
}

interface Segment {
  readonly states: number[];
  readonly transitions: number[];
  readonly cost: number;
}

/** The first self-loop transition of q enabled at v, or −1. */
function selfLoop(p: Product, q: number, v: number): number {
  for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) if (p.tTo[t] === q && enabled(p, t, v)) return t;
  return -1;
}

/** A baseline run's count of expanded graph nodes, and the shortest-path space its segments share. */
interface Segments {
  n: number;
  readonly space: ShortestPaths;
}

function segments(p: Product): Segments {
  return { n: 0, space: new ShortestPaths(p.n, 64) };
}

/**
 * The cheapest way from node u (automaton in q) to a node where `target` returns a transition:
 * intermediate nodes must enable a self-loop of q. In place (a stay at u) when `target(u)` holds.
 */
function segment(p: Product, u: number, q: number, target: (v: number) => number, stats: Segments): Segment | null {
  const nq = p.nq;
  const t0 = target(u);
  if (t0 >= 0) return { states: [u * nq + p.tTo[t0]!], transitions: [t0], cost: 0 };
  const g = p.g;
  const sp = stats.space;
  let end = -1,
    endT = -1,
    cost = 0;
  sp.start({
    // Only nodes that keep q (or end the segment) are entered. The transition screen costs more than
    // the cost test, so it is asked only of edges that would improve y.
    successors: (x, visit) => {
      for (let e = g.outStart[x]!; e < g.outStart[x + 1]!; e++) {
        const y = g.outTo[e]!;
        if (cost + g.outW[e]! < sp.distance(y) && (selfLoop(p, q, y) >= 0 || target(y) >= 0)) visit(y, g.outW[e]!, -1);
      }
    },
    // Every settled node counts as expanded; the first target node ends the segment; a node that
    // was entered only as a target (no self-loop of q) is not expanded further.
    onPop: (x, d) => {
      stats.n++;
      cost = d;
      if (x === u) return EXPAND;
      const t = target(x);
      if (t >= 0) {
        end = x;
        endT = t;
        return STOP;
      }
      return selfLoop(p, q, x) < 0 ? SKIP : EXPAND;
    },
  });
  sp.source(u, 0);
  sp.run();
  if (end < 0) return null;
  const nodes: number[] = [];
  for (let y = sp.predecessor(end); y !== u; y = sp.predecessor(y)) nodes.push(y);
  nodes.reverse();
  const states = nodes.map((y) => y * nq + q);
  const transitions = nodes.map((y) => selfLoop(p, q, y));
  return { states: [...states, end * nq + p.tTo[endT]!], transitions: [...transitions, endT], cost: sp.distance(end) };
}

/** Target filter: some transition q → q2 enabled at v (and v = only, when given). */
function towards(p: Product, q: number, q2: number, only?: number): (v: number) => number {
  return (v) => {
    if (only !== undefined && v !== only) return -1;
    for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) if (p.tTo[t] === q2 && enabled(p, t, v)) return t;
    return -1;
  };
}

const emptyStats = (): SearchStats => ({ expandedPrefix: 0, expandedSuffix: 0, endpoints: 0, withSuffix: 0 });

function join(a: Segment, b: Segment): Segment {
  return {
    states: [...a.states, ...b.states],
    transitions: [...a.transitions, ...b.transitions],
    cost: a.cost + b.cost,
  };
}

/** Realises a sequence of automaton states on the graph from product state z; the last hop may be pinned to a node. */
function realise(p: Product, z: number, hops: readonly number[], stats: Segments, pinLast?: number): Segment | null {
  let acc: Segment = { states: [], transitions: [], cost: 0 };
  let cur = z;
  for (let i = 0; i < hops.length; i++) {
    const q = cur % p.nq;
    const u = (cur - q) / p.nq;
    const seg = segment(p, u, q, towards(p, q, hops[i]!, i === hops.length - 1 ? pinLast : undefined), stats);
    if (seg === null) return null;
    acc = join(acc, seg);
    cur = seg.states[seg.states.length - 1]!;
  }
  return acc;
}

/** Transitions some node of the graph enables (node-level support, no costs). */
function supported(p: Product): Uint8Array {
  const ok = new Uint8Array(p.tTo.length);
  for (let t = 0; t < ok.length; t++) {
    for (let v = 0; v < p.n && ok[t] === 0; v++) if (enabled(p, t, v)) ok[t] = 1;
  }
  return ok;
}

/** LF-GAS tries automaton prefixes and cycles in increasing hop count, at most this many of each. */
const LF_GAS_PATHS = 20;

/**
 * Simple paths of the working automaton over supported transitions, from `roots`, in nondecreasing
 * number of hops, ending where `isEnd` holds: each as the states after every hop. For a cycle, the
 * root is the cycle's state and may appear again only at the end.
 */
function* hopPaths(
  p: Product,
  roots: readonly number[],
  isEnd: (q: number) => boolean,
  ok: Uint8Array,
  cycle: boolean,
): Generator<{ root: number; hops: number[] }> {
  let layer: { root: number; hops: number[] }[] = roots.map((root) => ({ root, hops: [] }));
  let expansions = 0;
  if (!cycle) for (const r of roots) if (isEnd(r)) yield { root: r, hops: [] };
  while (layer.length > 0 && expansions < 20000) {
    const next: { root: number; hops: number[] }[] = [];
    for (const path of layer) {
      const q = path.hops.length > 0 ? path.hops[path.hops.length - 1]! : path.root;
      const seenTargets = new Set<number>();
      for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) {
        const q2 = p.tTo[t]!;
        if (ok[t] !== 1 || seenTargets.has(q2) || q2 === q) continue;
        seenTargets.add(q2);
        expansions++;
        const hops = [...path.hops, q2];
        if (isEnd(q2)) {
          yield { root: path.root, hops };
          if (cycle) continue;
        }
        if (q2 === path.root || path.hops.includes(q2)) continue;
        next.push({ root: path.root, hops });
      }
    }
    layer = next;
  }
}

export function lfGas(ctx: PlanContext, lambda: number): BaselineResult {
  const p = ctx.product;
  const g = ctx.graph;
  const stats = emptyStats();
  const counter = segments(p);
  const reachedStates = new Uint8Array(p.nq);
  const endpoints: number[] = [];
  const ok = supported(p);
  let failure = 'no accepting lasso of the automaton could be realised on the graph';
  let prefixes = 0;
  for (const opt of hopPaths(
    p,
    ctx.work.init.map((i) => i.state),
    (q) => p.w.accepting[q] === 1,
    ok,
    false,
  )) {
    if (++prefixes > LF_GAS_PATHS) break;
    const z0 = g.start * p.nq + opt.root;
    const before = counter.n;
    const pre = realise(p, z0, opt.hops, counter);
    stats.expandedPrefix += counter.n - before;
    if (pre === null) continue;
    const zf = pre.states.length > 0 ? pre.states[pre.states.length - 1]! : z0;
    for (const z of [z0, ...pre.states]) reachedStates[z % p.nq] = 1;
    endpoints.push(zf);
    const qf = zf % p.nq;
    const uf = (zf - qf) / p.nq;
    const prefix: ProductPath = { states: [z0, ...pre.states], transitions: [-1, ...pre.transitions], cost: pre.cost };
    let suffix: ProductPath | null = null;
    let dwell = false;
    const dt = dwellTransition(p, zf);
    if (dt >= 0) {
      suffix = { states: [zf], transitions: [dt], cost: 0 };
      dwell = true;
    } else {
      let cycles = 0;
      for (const cyc of hopPaths(p, [qf], (q) => q === qf, ok, true)) {
        if (++cycles > LF_GAS_PATHS) break;
        const b = counter.n;
        const s = realise(p, zf, cyc.hops, counter, uf);
        stats.expandedSuffix += counter.n - b;
        if (s !== null) {
          suffix = s;
          break;
        }
      }
    }
    if (suffix === null) {
      failure = `no automaton cycle through state ${ctx.work.origin[qf]} (of the ${LF_GAS_PATHS} with the fewest hops) could be closed at ${g.ids[uf]}`;
      continue;
    }
    stats.endpoints = endpoints.length;
    stats.withSuffix = 1;
    return {
      best: { prefix, suffix, dwell, objective: lambda * prefix.cost + (1 - lambda) * suffix.cost },
      stats,
      endpoints,
      reachedStates,
    };
  }
  stats.endpoints = endpoints.length;
  return { best: null, stats, endpoints, reachedStates, failure: `LF-GAS: ${failure}` };
}

/**
 * One greedy phase from the product states `from` (the start set, or an endpoint): until `done`,
 * take the transition whose enabling node is cheapest to reach from where the run is now.
 */
function greedy(
  p: Product,
  from: readonly number[],
  stats: Segments,
  done: (z: number, steps: number) => boolean,
  pin: (q2: number) => number | undefined,
): { path: Segment; first: number; end: number } | string {
  let acc: Segment = { states: [], transitions: [], cost: 0 };
  let current = [...from];
  let first = from[0]!;
  const seen = new Set<number>(from);
  const starts = new Set<number>(from);
  for (let steps = 0; ; steps++) {
    const finished = current.find((z) => done(z, steps));
    if (finished !== undefined) return { path: acc, first: steps === 0 ? finished : first, end: finished };
    let best: { seg: Segment; z: number } | null = null;
    for (const cur of current) {
      const q = cur % p.nq;
      const u = (cur - q) / p.nq;
      const targets = new Set<number>();
      for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) if (p.tTo[t] !== q) targets.add(p.tTo[t]!);
      for (const q2 of targets) {
        const seg = segment(p, u, q, towards(p, q, q2, pin(q2)), stats);
        if (seg === null) continue;
        // A move from one initial automaton state into another (the start's own label can leave the
        // automaton in several) is no progress: the run starts there anyway. Not a loop, not a choice.
        const end = seg.states[seg.states.length - 1]!;
        if (starts.has(end) && !done(end, steps + 1)) continue;
        if (best === null || seg.cost < best.seg.cost) best = { seg, z: cur };
      }
    }
    if (best === null) {
      const z = current[0]!;
      return `greedy dead end at ${p.g.ids[(z - (z % p.nq)) / p.nq]} in automaton state ${p.w.origin[z % p.nq]}`;
    }
    if (steps === 0) first = best.z;
    acc = join(acc, best.seg);
    const next = best.seg.states[best.seg.states.length - 1]!;
    if (seen.has(next) && !done(next, steps + 1))
      return `greedy choice loops back to ${p.g.ids[(next - (next % p.nq)) / p.nq]} in automaton state ${p.w.origin[next % p.nq]}`;
    seen.add(next);
    current = [next];
  }
}

export function gaGas(ctx: PlanContext, lambda: number): BaselineResult {
  const p = ctx.product;
  const g = ctx.graph;
  const stats = emptyStats();
  const counter = segments(p);
  const reachedStates = new Uint8Array(p.nq);
  const starts = ctx.work.init.map((i) => g.start * p.nq + i.state);
  const pre = greedy(
    p,
    starts,
    counter,
    (z) => p.w.accepting[z % p.nq] === 1,
    () => undefined,
  );
  stats.expandedPrefix = counter.n;
  if (typeof pre === 'string') return { best: null, stats, endpoints: [], reachedStates, failure: `GA-GAS: ${pre}` };
  for (const z of [pre.first, ...pre.path.states]) reachedStates[z % p.nq] = 1;
  const zf = pre.end;
  stats.endpoints = 1;
  const qf = zf % p.nq;
  const uf = (zf - qf) / p.nq;
  const prefix: ProductPath = {
    states: [pre.first, ...pre.path.states],
    transitions: [-1, ...pre.path.transitions],
    cost: pre.path.cost,
  };
  const dt = dwellTransition(p, zf);
  if (dt >= 0) {
    stats.withSuffix = 1;
    return {
      best: {
        prefix,
        suffix: { states: [zf], transitions: [dt], cost: 0 },
        dwell: true,
        objective: lambda * prefix.cost,
      },
      stats,
      endpoints: [zf],
      reachedStates,
    };
  }
  const before = counter.n;
  const suf = greedy(
    p,
    [zf],
    counter,
    (z, steps) => steps > 0 && z === zf,
    (q2) => (q2 === qf ? uf : undefined),
  );
  stats.expandedSuffix = counter.n - before;
  if (typeof suf === 'string')
    return { best: null, stats, endpoints: [zf], reachedStates, failure: `GA-GAS: suffix: ${suf}` };
  stats.withSuffix = 1;
  const objective = lambda * prefix.cost + (1 - lambda) * suf.path.cost;
  return { best: { prefix, suffix: suf.path, dwell: false, objective }, stats, endpoints: [zf], reachedStates };
}
