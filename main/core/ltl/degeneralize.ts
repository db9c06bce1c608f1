/**
 * Generalized Büchi → Büchi: quotient of the generalized automaton, then the counter construction
 * of Gastin & Oddoux (§5): state (q, i) waits for acceptance set i+1; level r is accepting.
 */
import { type Term, simplifyGuard } from './guard.js';
import { removeDominated } from './dominance.js';
import { refinePartition } from './partition.js';
import type { Gba, GbaEdge } from './gba.js';
import type { Budget } from './budget.js';
import { stronglyConnected } from './scc.js';

export interface RawBuchi {
  readonly accepting: boolean[];
  readonly names: string[];
  readonly initial: number;
  /** Edges keyed by from → to → DNF terms. */
  readonly edges: Map<number, Map<number, Term[]>>;
}

/** Merges generalized states with the same edges (by block, guard and marks). */
export function reduceGba(gba: Gba, budget: Budget): Gba {
  budget.checkTime('generalized automaton reduction');
  const n = gba.sets.length;
  const edgeKey = (e: GbaEdge, block: Int32Array): string => `${e.g.pos}/${e.g.neg}>${block[e.to]}@${e.acc}`;
  const block = refinePartition(
    n,
    () => '',
    (s, b) => {
      budget.tick('generalized automaton reduction', gba.edges[s]!.length);
      return [...new Set(gba.edges[s]!.map((e) => edgeKey(e, b)))].sort().join(';');
    },
    () => budget.tick('generalized automaton reduction'),
  );
  const blocks = Math.max(-1, ...block) + 1;
  if (blocks === n) return gba;
  const rep = new Array<number>(blocks).fill(-1);
  for (let s = 0; s < n; s++) if (rep[block[s]!] === -1) rep[block[s]!] = s;
  const edges: GbaEdge[][] = [];
  const sets: bigint[] = [];
  for (let b = 0; b < blocks; b++) {
    const s = rep[b]!;
    sets.push(gba.sets[s]!);
    const moves = gba.edges[s]!.map((e) => ({
      g: e.g,
      to: 1n << BigInt(block[e.to]!),
      acc: e.acc,
      target: block[e.to]!,
    }));
    edges.push(removeDominated(moves, budget).map((m) => ({ g: m.g, to: m.target, acc: m.acc })));
  }
  return { ...gba, sets, edges, initial: block[gba.initial]! };
}

/** Drops acceptance sets that every edge is in, and duplicates; keeps the order of the rest. */
export function pruneAcceptanceSets(gba: Gba, budget?: Budget): Gba {
  budget?.checkTime('acceptance set pruning');
  const all = gba.edges.flat();
  const keep: number[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < gba.nAcc; k++) {
    const bit = 1n << BigInt(k);
    const member = new Uint8Array(all.length);
    let missing = false;
    budget?.tick('acceptance set pruning', all.length);
    all.forEach((e, i) => {
      if ((e.acc & bit) !== 0n) member[i] = 1;
      else missing = true;
    });
    const key = member.join('');
    if (!missing || seen.has(key)) continue;
    seen.add(key);
    keep.push(k);
  }
  if (keep.length === gba.nAcc) return gba;
  return withSets(gba, keep);
}

/** The automaton whose acceptance set i is `gba`'s set order[i] (sets left out are dropped). */
export function withSets(gba: Gba, order: readonly number[]): Gba {
  const remap = (acc: bigint): bigint =>
    order.reduce((r, k, i) => ((acc >> BigInt(k)) & 1n ? r | (1n << BigInt(i)) : r), 0n);
  return {
    ...gba,
    nAcc: order.length,
    accSource: order.map((k) => gba.accSource[k]!),
    edges: gba.edges.map((es) => es.map((e) => ({ ...e, acc: remap(e.acc) }))),
  };
}

/**
 * SCC-aware: acceptance only matters on edges inside a strongly connected component that holds
 * every acceptance set (a good component). Entering a component (or starting) begins at a level of
 * our choosing (see `enter`), and inside a bad component the counter stays at 0, so those states
 * get one copy instead of r + 1.
 */
/** The good components of `gba` (those whose internal edges carry every acceptance set), per state. */
function goodStates(gba: Gba): { comp: Int32Array; good: (q: number) => boolean } {
  const all = (1n << BigInt(gba.nAcc)) - 1n;
  const comp = stronglyConnected(gba.sets.length, (q) => gba.edges[q]!.map((e) => e.to));
  const internalMarks = new Map<number, bigint>();
  gba.edges.forEach((es, q) => {
    for (const e of es) {
      if (comp[e.to] === comp[q]) internalMarks.set(comp[q]!, (internalMarks.get(comp[q]!) ?? 0n) | e.acc);
    }
  });
  return { comp, good: (q) => internalMarks.has(comp[q]!) && internalMarks.get(comp[q]!) === all };
}

/**
 * Whether degeneralize's two entry choices can build different automata: only when the initial
 * state lies in a good component or an edge enters one without every acceptance mark (with all of
 * them, the Gastin–Oddoux count lands on the accepting level too); otherwise both build the same
 * automaton, state for state.
 */
export function entryChoiceMatters(gba: Gba): boolean {
  const r = gba.nAcc;
  if (r === 0) return false;
  const all = (1n << BigInt(r)) - 1n;
  const { comp, good } = goodStates(gba);
  if (good(gba.initial)) return true;
  return gba.edges.some((es, q) => es.some((e) => comp[e.to] !== comp[q] && good(e.to) && (e.acc & all) !== all));
}

export function degeneralize(
  gba: Gba,
  gbaName: (s: number) => string,
  budget: Budget,
  entry: 'accepting' | 'zero' = 'zero',
): RawBuchi {
  budget.checkTime('degeneralization');
  const r = gba.nAcc;
  const { comp, good } = goodStates(gba);
  const index = new Map<number, number>();
  const accepting: boolean[] = [];
  const names: string[] = [];
  const edges = new Map<number, Map<number, Term[]>>();
  const queue: [number, number][] = [];
  const intern = (q: number, level: number): number => {
    const key = q * (r + 1) + level;
    let id = index.get(key);
    if (id === undefined) {
      id = accepting.length;
      index.set(key, id);
      accepting.push(level === r);
      names.push(r === 0 ? gbaName(q) : `${gbaName(q)} #${level}`);
      queue.push([q, level]);
      budget.states(accepting.length, 'degeneralization');
    }
    return id;
  };
  // Entering a good component (and starting) may begin at any level: the count only matters on
  // the cycles inside it, which a run enters once. With `entry` 'accepting', level r (accepting,
  // and counting afresh from 0 like level 0), where the component's accepting cycles come back to,
  // so the copy is often one needed anyway; with 'zero', level 0 advanced by the entering edge's marks (Gastin &
  // Oddoux). Neither is always smaller, so the translator may build both.
  const entryLevel = new Map<number, number>();
  const enter = (q: number): number => {
    if (!good(q)) return intern(q, 0);
    let level = entryLevel.get(q);
    if (level === undefined) entryLevel.set(q, (level = entry === 'accepting' ? r : 0));
    return intern(q, level);
  };
  let held = 0;
  const initial = enter(gba.initial);
  while (queue.length > 0) {
    const [q, level] = queue.shift()!;
    const from = index.get(q * (r + 1) + level)!;
    const start = level === r ? 0 : level;
    const out = new Map<number, Term[]>();
    edges.set(from, out);
    for (const e of gba.edges[q]!) {
      let to: number;
      if (good(e.to) && (comp[e.to] === comp[q] || entry === 'zero')) {
        let j = comp[e.to] === comp[q] ? start : 0;
        while (j < r && ((e.acc >> BigInt(j)) & 1n) !== 0n) j++;
        to = intern(e.to, j);
      } else {
        to = enter(e.to);
      }
      let terms = out.get(to);
      if (terms === undefined) out.set(to, (terms = []));
      terms.push(e.g);
      budget.edges(++held, 'degeneralization');
      budget.tick('degeneralization');
    }
  }
  for (const out of edges.values()) {
    for (const [to, terms] of out) {
      out.set(to, simplifyGuard(terms));
      budget.tick('degeneralization', terms.length);
    }
  }
  return { accepting, names, initial, edges };
}
