/**
 * AP-HIQL's planner (SAGAS Appendix E, "automaton path"): an accepting prefix–suffix label sequence
 * found on the Büchi automaton alone, with no graph. A robot in a world of disjoint regions realises
 * a word of blocks — a run of steps inside one region p, or a run of steps in no region — where
 * two different regions never follow each other (a robot passes through no region between them);
 * a block of letter ℓ takes the automaton from q to any state some ℓ^k (k ≥ 1) reaches. A block may
 * repeat the letter before it (staying: ∅^ω after the last goal, or p^ω for "eventually always p").
 * The search is over (automaton state, letter of the last block), from the start's own letter, for
 * the accepting lasso (a prefix, then a cycle back to the same node through an accepting state) with
 * the fewest goal letters (a block entering a region), ties broken by the fewest blocks, then by
 * state order.
 * Each block records the k of its shortest witness, so the plan implies one concrete label word
 * (`impliedWord`) that the automaton accepts. The searches run on the shortest-path engine. Pure and deterministic.
 */
import { type BuchiAutomaton, type BuchiEdge, letterBits, outgoing } from '../ltl/automaton.js';
import { guardHolds } from '../ltl/guard.js';
import type { Lasso, Letter } from '../ltl/lasso.js';
import { EXPAND, STOP, ShortestPaths } from './shortest-path.js';

/** A run of one letter: inside `region` (null: in no region), `repeat` ≥ 1 letters in the implied word. */
export interface LabelBlock {
  readonly region: string | null;
  readonly repeat: number;
}

export type LabelLasso =
  | {
      readonly status: 'ok';
      readonly prefix: readonly LabelBlock[];
      readonly cycle: readonly LabelBlock[];
      /** Goal letters (blocks entering a region) in prefix + cycle. */ readonly goals: number;
    }
  | { readonly status: 'none'; readonly reason: string };

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
export function labelLasso(a: BuchiAutomaton, regions: readonly string[], start: string | null = null): LabelLasso {
  if (start !== null && !regions.includes(start))
    throw new RangeError(`the start region ${start} is not one of the regions`);
  const p = blockProduct(a, [null, ...[...new Set(regions)].sort()]);
  const prefix = prefixSearch(p, a, p.letters.indexOf(start), start === null ? 1 : BIG + 1);
  // The cheapest cycle through each reachable node, on one reused space of (node, accepting seen).
  const cycles = new ShortestPaths(2 * p.size);
  let best: { total: number; v: number; cycle: LabelBlock[] } | null = null;
  for (let v = 0; v < p.size; v++) {
    const toV = prefix.distance(v);
    if (!Number.isFinite(toV) || (best !== null && toV >= best.total)) continue;
    const goal = shortestCycle(p, cycles, v);
    if (goal === -1) continue;
    const total = toV + cycles.distance(goal);
    if (best === null || total < best.total) best = { total, v, cycle: blocksTo(p, cycles, goal) };
  }
  if (best === null) {
    return {
      status: 'none',
      reason: `the automaton of ${a.formula} has no accepting lasso whose letters hold at most one region at a time (from ${start === null ? 'outside every region' : `inside ${start}`})`,
    };
  }
  const blocks = blocksTo(p, prefix, best.v);
  return { status: 'ok', prefix: blocks, cycle: best.cycle, goals: goalCount(blocks, best.cycle) };
}

/**
 * The search space: product nodes v = q·L + (index of the last block's letter), and for each letter
 * and state every block that letter can make (`block[li][q]`).
 */
interface BlockProduct {
  readonly letters: readonly (string | null)[];
  readonly size: number;
  readonly block: readonly (readonly (readonly BlockEdge[])[])[];
}

function blockProduct(a: BuchiAutomaton, letters: readonly (string | null)[]): BlockProduct {
  const out = outgoing(a);
  const block = letters.map((l) => {
    const bits = letterBits(a, l === null ? [] : [l]);
    return a.states.map((_, q) => closure(a, out, q, bits));
  });
  return { letters, size: a.states.length * letters.length, block };
}

/** Every (q', acc) some ℓ^k reaches from q, with the least such k: a BFS over (state, acc seen) by single ℓ steps. */
function closure(a: BuchiAutomaton, out: readonly (readonly BuchiEdge[])[], q: number, bits: bigint): BlockEdge[] {
  const Q = a.states.length;
  const seen = new Int32Array(2 * Q).fill(-1);
  let frontier = [2 * q];
  for (let k = 1; frontier.length > 0; k++) {
    const next: number[] = [];
    for (const id of frontier) {
      const acc = (id & 1) === 1;
      for (const e of out[id >> 1]!)
        if (guardHolds(e.guard, bits)) {
          const nid = 2 * e.to + (acc || a.states[e.to]!.accepting ? 1 : 0);
          if (seen[nid] === -1) {
            seen[nid] = k;
            next.push(nid);
          }
        }
    }
    frontier = next;
  }
  const edges: BlockEdge[] = [];
  for (let id = 0; id < 2 * Q; id++) if (seen[id]! > 0) edges.push({ to: id >> 1, acc: (id & 1) === 1, k: seen[id]! });
  return edges;
}

/**
 * The blocks that may follow product node v, each with its cost and the tag its search edge keeps
 * (k·L + letter index). Two different regions never follow each other; entering a region is a goal letter.
 */
function forEachBlock(p: BlockProduct, v: number, f: (to: number, cost: number, tag: number, e: BlockEdge) => void) {
  const L = p.letters.length,
    last = v % L,
    q = (v - last) / L;
  for (let li = 0; li < L; li++) {
    if (li !== last && li !== 0 && last !== 0) continue;
    const cost = li !== 0 && li !== last ? BIG + 1 : 1;
    for (const e of p.block[li]![q]!) f(e.to * L + li, cost, e.k * L + li, e);
  }
}

/**
 * The searches' order, as a key added to the cost: among equal costs the smaller node is settled
 * first. Costs are integers and the key is below 1, so it is consistent and changes no distance.
 */
const smallerFirst =
  (size: number) =>
  (v: number): number =>
    v / size;

/**
 * Sources for a search: each node once, at its least cost, the block with the least k among equal
 * costs (the first found for equal k).
 */
function addSources(space: ShortestPaths, seeds: readonly { v: number; cost: number; tag: number; k: number }[]) {
  const chosen = new Map<number, { cost: number; tag: number; k: number }>();
  for (const s of seeds) {
    const c = chosen.get(s.v);
    if (c === undefined || s.cost < c.cost || (s.cost === c.cost && s.k < c.k)) chosen.set(s.v, s);
  }
  for (const [v, s] of chosen) space.source(v, s.cost, -1, s.tag);
}

/** The prefix: the start block (of cost `startCost`) from every initial state, then the cheapest blocks on. */
function prefixSearch(p: BlockProduct, a: BuchiAutomaton, startLi: number, startCost: number): ShortestPaths {
  const L = p.letters.length;
  const space = new ShortestPaths(p.size);
  space.start({
    successors: (u, visit) => forEachBlock(p, u, (to, cost, tag) => visit(to, cost, tag)),
    heuristic: smallerFirst(p.size),
  });
  const seeds = [...a.initial]
    .sort((x, y) => x - y)
    .flatMap((q0) =>
      p.block[startLi]![q0]!.map((e) => ({ v: e.to * L + startLi, cost: startCost, tag: e.k * L + startLi, k: e.k })),
    );
  addSources(space, seeds);
  space.run();
  return space;
}

/**
 * The cheapest cycle from product node v back to itself through an accepting state, with at least
 * one block: a search over x = 2·u + (accepting seen) from v's successors to 2·v + 1. Returns that
 * goal node (its cost and blocks are in `space`), or −1 when there is none.
 */
function shortestCycle(p: BlockProduct, space: ShortestPaths, v: number): number {
  const goal = 2 * v + 1;
  const expand = (x: number, visit: (to: number, cost: number, tag: number, e: BlockEdge) => void) =>
    forEachBlock(p, x >> 1, (to, cost, tag, e) => visit(2 * to + ((x & 1) === 1 || e.acc ? 1 : 0), cost, tag, e));
  space.start({
    successors: (x, visit) => expand(x, (to, cost, tag) => visit(to, cost, tag)),
    heuristic: smallerFirst(2 * p.size),
    onPop: (x) => (x === goal ? STOP : EXPAND),
  });
  const seeds: { v: number; cost: number; tag: number; k: number }[] = [];
  expand(2 * v, (to, cost, tag, e) => seeds.push({ v: to, cost, tag, k: e.k }));
  addSources(space, seeds);
  space.run();
  return space.settled(goal) ? goal : -1;
}

/** The blocks of the search's path to `node`, read back through the predecessors and their tags. */
function blocksTo(p: BlockProduct, space: ShortestPaths, node: number): LabelBlock[] {
  const L = p.letters.length;
  const blocks: LabelBlock[] = [];
  for (let x = node; x !== -1; x = space.predecessor(x)) {
    const tag = space.tag(x);
    blocks.push({ region: p.letters[tag % L]!, repeat: Math.floor(tag / L) });
  }
  return blocks.reverse();
}

/** Goal letters of a lasso: blocks entering a region (not staying in the one before, the cycle wrapping around). */
export function goalCount(prefix: readonly LabelBlock[], cycle: readonly LabelBlock[]): number {
  let n = 0;
  prefix.forEach((b, i) => {
    if (b.region !== null && (i === 0 || prefix[i - 1]!.region !== b.region)) n++;
  });
  cycle.forEach((b, i) => {
    const before = i === 0 ? prefix[prefix.length - 1] : cycle[i - 1];
    if (b.region !== null && before?.region !== b.region) n++;
  });
  return n;
}

/** The label word a plan implies: each block's letter `repeat` times, the prefix then the cycle. */
export function impliedWord(p: Extract<LabelLasso, { status: 'ok' }>): Lasso {
  const expand = (bs: readonly LabelBlock[]): Letter[] =>
    bs.flatMap((b) => Array.from({ length: b.repeat }, () => new Set(b.region === null ? [] : [b.region])));
  return { prefix: expand(p.prefix), cycle: expand(p.cycle) };
}
