/**
 * Automaton preprocessing for product search (SAGAS Appendix B.4): every guard term becomes its own
 * transition; terms that need two regions at once (when regions are disjoint) or an unavailable
 * proposition are dropped; the initial set is aligned with the observed start letter; states that
 * cannot lead to an accepting cycle are removed. The original automaton is never changed — working
 * states keep their original index (`origin`) so plans and certificates speak of the original.
 */
import { type BuchiAutomaton, letterBits } from '../ltl/automaton.js';
import { type Term, termHolds } from '../ltl/guard.js';
import { type DroppedTerm, classifyTerms } from '../ltl/prune.js';
import { canReachGoodCycle, reachable, stronglyConnected } from '../ltl/scc.js';

/** Propositions are bits of a 32-bit integer in the planner's hot loops. */
const MAX_PLAN_PROPOSITIONS = 30;

interface Transition {
  /** Working index of the target state. */
  readonly to: number;
  /** Positive and negative literals as bit masks over the automaton's propositions. */
  readonly pos: number;
  readonly neg: number;
  /** The original guard term. */
  readonly term: Term;
}

export interface WorkingAutomaton {
  readonly original: BuchiAutomaton;
  readonly aps: readonly string[];
  /** Number of working states; working state i is original state origin[i]. */
  readonly nq: number;
  readonly origin: Int32Array;
  readonly accepting: Uint8Array;
  /** Outgoing transitions per working state (only towards working states). */
  readonly out: readonly (readonly Transition[])[];
  /**
   * Q_init with, for each state, the original initial state and term that read the start letter into it (from −1 when
   * resuming).
   */
  readonly init: readonly { readonly state: number; readonly from: number; readonly term: Term }[];
  readonly dropped: readonly DroppedTerm[];
  /** Q_init is empty: the start letter already violates the formula. */
  readonly startRejected: boolean;
  /** No accepting run remains after pruning (the search is pointless). */
  readonly empty: boolean;
}

export interface PrepOptions {
  readonly disjoint: boolean;
  readonly unavailable: ReadonlySet<string>;
  /** The observed label of the start node. */
  readonly startLetter: Iterable<string>;
  /**
   * Resuming a mission (replanning): the automaton states the run is in after reading the start
   * node's label, as the runtime monitor tracked them (original numbering). Replaces the alignment
   * of the initial states with the start letter.
   */
  readonly resume?: readonly number[];
}

function toMask(t: Term): { pos: number; neg: number } {
  return { pos: Number(t.pos), neg: Number(t.neg) };
}

export function maskOf(aps: readonly string[], names: Iterable<string>): number {
  let m = 0;
  for (const n of names) {
    const i = aps.indexOf(n);
    if (i >= 0) m |= 1 << i;
  }
  return m;
}

export function prepareAutomaton(a: BuchiAutomaton, o: PrepOptions): WorkingAutomaton {
  if (a.aps.length > MAX_PLAN_PROPOSITIONS) {
    throw new RangeError(
      `the formula has ${a.aps.length} propositions; the planner handles at most ${MAX_PLAN_PROPOSITIONS}`,
    );
  }
  const n = a.states.length;
  const { usable, dropped } = classifyTerms(a, { disjoint: o.disjoint, unavailable: o.unavailable });
  // Q_init reads the observed start letter with the original guards: the letter is observed, not planned.
  const start = letterBits(a, o.startLetter);
  const initMap = new Map<number, { from: number; term: Term }>();
  if (o.resume !== undefined) {
    for (const q of o.resume) {
      if (!Number.isInteger(q) || q < 0 || q >= n)
        throw new RangeError(`resume state ${q} is not a state of the automaton (0..${n - 1})`);
      initMap.set(q, { from: -1, term: { pos: 0n, neg: 0n } });
    }
  } else {
    for (const e of a.edges) {
      if (!a.initial.includes(e.from)) continue;
      for (const t of e.guard)
        if (termHolds(t, start) && !initMap.has(e.to)) initMap.set(e.to, { from: e.from, term: t });
    }
  }
  const succ: number[][] = a.states.map(() => []);
  for (const u of usable) succ[u.from]!.push(u.to);
  const reach = reachable(n, initMap.keys(), (q) => succ[q]!);
  const live = canReachGoodCycle(
    n,
    (q) => (reach[q] === 1 ? succ[q]! : []),
    (q) => reach[q] === 1 && a.states[q]!.accepting,
  );
  const keep: number[] = [];
  for (let q = 0; q < n; q++) if (reach[q] === 1 && live[q] === 1) keep.push(q);
  const index = new Int32Array(n).fill(-1);
  keep.forEach((q, i) => {
    index[q] = i;
  });
  const out: Transition[][] = keep.map(() => []);
  for (const u of usable) {
    const f = index[u.from]!,
      t = index[u.to]!;
    if (f >= 0 && t >= 0) out[f]!.push({ to: t, ...toMask(u.term), term: u.term });
  }
  // Accepting targets must lie on a cycle of the working automaton (B.4: targets that cannot take part
  // in an accepting return cycle are pruned).
  const comp = stronglyConnected(keep.length, (q) => out[q]!.map((t) => t.to));
  const compSize = new Map<number, number>();
  for (const c of comp) compSize.set(c, (compSize.get(c) ?? 0) + 1);
  const onCycle = (q: number): boolean => compSize.get(comp[q]!)! > 1 || out[q]!.some((t) => t.to === q);
  const init = [...initMap.entries()]
    .filter(([q]) => index[q]! >= 0)
    .sort((x, y) => x[0] - y[0])
    .map(([q, v]) => ({ state: index[q]!, from: v.from, term: v.term }));
  return {
    original: a,
    aps: a.aps,
    nq: keep.length,
    origin: Int32Array.from(keep),
    accepting: Uint8Array.from(keep, (q, i) => (a.states[q]!.accepting && onCycle(i) ? 1 : 0)),
    out,
    init,
    dropped,
    startRejected: initMap.size === 0,
    empty: init.length === 0,
  };
}
