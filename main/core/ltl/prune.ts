/**
 * Support-aware pruning (SAGAS Appendix B.4), as a separate step over a copy: the automaton given
 * is never changed. Every retained term implies a term of the original guard, so the pruned
 * automaton accepts a subset of the original language (Appendix C), and exactly the words of the
 * original that the pruning assumptions allow (at most one proposition per letter in disjoint mode;
 * unavailable propositions never true).
 */
import { type BuchiAutomaton, type BuchiEdge, freezeAutomaton } from './automaton.js';
import { type Term, bitIndices, popcount } from './guard.js';
import { canReachGoodCycle, reachable, stronglyConnected } from './scc.js';

export interface PruneOptions {
  /** Labelled regions are pairwise disjoint: drop terms with two or more positive literals. */
  readonly disjoint?: boolean;
  /** Propositions that no graph node can witness: drop terms that require one of them. */
  readonly unavailable?: Iterable<string>;
}

export interface DroppedTerm {
  readonly from: number;
  readonly to: number;
  readonly term: Term;
  readonly reason: 'disjoint' | 'unavailable';
  /** The positive propositions that made the term unusable. */
  readonly propositions: readonly string[];
}

interface PruneReport {
  readonly droppedTerms: readonly DroppedTerm[];
  /** Original accepting states that are no longer search targets, and why. */
  readonly droppedTargets: readonly { readonly state: number; readonly reason: 'unreachable' | 'no-cycle' }[];
  /** Original states removed because they can no longer lead to acceptance. */
  readonly removedStates: readonly number[];
  /** Names in `unavailable` the automaton does not mention (not an error; reported). */
  readonly unknownPropositions: readonly string[];
  /** No accepting run remains. */
  readonly empty: boolean;
}

export interface Pruned {
  readonly automaton: BuchiAutomaton;
  /** For each pruned state, the original state index. */
  readonly origin: readonly number[];
  readonly report: PruneReport;
}

/**
 * Splits every guard term into usable and dropped under the pruning rules (disjoint regions,
 * unavailable propositions), one transition per term. Shared by the pruner and the planner.
 */
export function classifyTerms(
  a: BuchiAutomaton,
  options: PruneOptions,
): { usable: { from: number; to: number; term: Term }[]; dropped: DroppedTerm[]; unknownPropositions: string[] } {
  const unavailableNames = [...(options.unavailable ?? [])];
  const unknownPropositions = unavailableNames.filter((n) => !a.aps.includes(n));
  let unavailable = 0n;
  for (const n of unavailableNames) {
    const i = a.aps.indexOf(n);
    if (i >= 0) unavailable |= 1n << BigInt(i);
  }
  const dropped: DroppedTerm[] = [];
  const usable: { from: number; to: number; term: Term }[] = [];
  const names = (bits: bigint): string[] => bitIndices(bits).map((i) => a.aps[i]!);
  for (const e of a.edges) {
    for (const t of e.guard) {
      if (options.disjoint && popcount(t.pos) >= 2) {
        dropped.push({ from: e.from, to: e.to, term: t, reason: 'disjoint', propositions: names(t.pos) });
      } else if ((t.pos & unavailable) !== 0n) {
        dropped.push({
          from: e.from,
          to: e.to,
          term: t,
          reason: 'unavailable',
          propositions: names(t.pos & unavailable),
        });
      } else {
        usable.push({ from: e.from, to: e.to, term: { pos: t.pos, neg: t.neg } });
      }
    }
  }
  return { usable, dropped, unknownPropositions };
}

export function pruneAutomaton(a: BuchiAutomaton, options: PruneOptions): Pruned {
  const { usable, dropped: droppedTerms, unknownPropositions } = classifyTerms(a, options);
  const byEdge = new Map<number, Term[]>();
  for (const u of usable) {
    const key = u.from * a.states.length + u.to;
    const list = byEdge.get(key);
    if (list === undefined) byEdge.set(key, [u.term]);
    else list.push(u.term);
  }
  const edges: BuchiEdge[] = [];
  for (const e of a.edges) {
    const kept = byEdge.get(e.from * a.states.length + e.to);
    if (kept !== undefined) edges.push({ from: e.from, to: e.to, guard: kept });
  }

  const n = a.states.length;
  const succ: number[][] = a.states.map(() => []);
  for (const e of edges) succ[e.from]!.push(e.to);
  const reach = reachable(n, a.initial, (q) => succ[q]!);
  const comp = stronglyConnected(n, (q) => succ[q]!);
  const compSize = new Map<number, number>();
  for (let q = 0; q < n; q++) compSize.set(comp[q]!, (compSize.get(comp[q]!) ?? 0) + 1);
  const onCycle = (q: number): boolean => succ[q]!.includes(q) || compSize.get(comp[q]!)! > 1;
  const droppedTargets: { state: number; reason: 'unreachable' | 'no-cycle' }[] = [];
  const accepting = a.states.map((s, q) => {
    if (!s.accepting) return false;
    if (reach[q] !== 1) {
      droppedTargets.push({ state: q, reason: 'unreachable' });
      return false;
    }
    if (!onCycle(q)) {
      droppedTargets.push({ state: q, reason: 'no-cycle' });
      return false;
    }
    return true;
  });
  const live = canReachGoodCycle(
    n,
    (q) => succ[q]!,
    (q) => accepting[q]!,
  );
  const keep = new Set<number>();
  for (let q = 0; q < n; q++) if (reach[q] === 1 && live[q] === 1) keep.add(q);
  const empty = !a.initial.some((q) => keep.has(q));
  for (const q of a.initial) keep.add(q);
  const origin = [...keep].sort((x, y) => x - y);
  const index = new Map(origin.map((q, i) => [q, i] as const));
  const removedStates = a.states.map((_, q) => q).filter((q) => !keep.has(q));
  const automaton = freezeAutomaton({
    aps: [...a.aps],
    states: origin.map((q) => ({ accepting: accepting[q]!, name: a.states[q]!.name })),
    initial: a.initial.map((q) => index.get(q)!),
    edges: edges
      .filter((e) => !empty && index.has(e.from) && index.has(e.to))
      .map((e) => ({ from: index.get(e.from)!, to: index.get(e.to)!, guard: e.guard })),
    formula: a.formula,
  });
  return {
    automaton,
    origin,
    report: { droppedTerms, droppedTargets, removedStates, unknownPropositions, empty },
  };
}
