/**
 * Büchi-level simplification: keep only states that are reachable and can still reach an
 * accepting cycle, then merge bisimilar states (same acceptance, same guards into the same
 * blocks), until nothing changes.
 */
import { type Term, TRUE_TERM, guardKey, simplifyGuard } from './guard.js';
import type { BuchiAutomaton, BuchiEdge } from './automaton.js';
import { refinePartition } from './partition.js';
import { canReachGoodCycle, reachable, stronglyConnected } from './scc.js';
import type { Budget } from './budget.js';
import { simulationReductions } from './simulation.js';

export interface MutableBuchi {
  accepting: boolean[];
  names: string[];
  initial: number;
  out: Map<number, Term[]>[];
}

function trimUseless(a: MutableBuchi, budget?: Budget): MutableBuchi {
  const n = a.accepting.length;
  const succ = (v: number): Iterable<number> => a.out[v]!.keys();
  const reach = reachable(n, [a.initial], succ);
  const live = canReachGoodCycle(n, succ, (v) => a.accepting[v]! && reach[v] === 1);
  const keep: number[] = [];
  for (let v = 0; v < n; v++) if (reach[v] === 1 && live[v] === 1) keep.push(v);
  if (live[a.initial] !== 1) return emptyBuchi();
  if (keep.length === n) return a;
  return renumber(a, keep, (v) => v, budget);
}

export function emptyBuchi(): MutableBuchi {
  return { accepting: [false], names: ['false'], initial: 0, out: [new Map<number, Term[]>()] };
}

/** Keeps `keep` states (in that order); edges to dropped states vanish. */
function renumber(a: MutableBuchi, keep: number[], blockOf: (v: number) => number, budget?: Budget): MutableBuchi {
  const id = new Map<number, number>();
  keep.forEach((v, i) => id.set(blockOf(v), i));
  const out: Map<number, Term[]>[] = keep.map(() => new Map<number, Term[]>());
  keep.forEach((v, i) => {
    for (const [w, terms] of a.out[v]!) {
      const j = id.get(blockOf(w));
      if (j === undefined) continue;
      const prev = out[i]!.get(j);
      out[i]!.set(j, prev === undefined ? terms : simplifyGuard([...prev, ...terms]));
      budget?.tick('Büchi reduction');
    }
  });
  return {
    accepting: keep.map((v) => a.accepting[v]!),
    names: keep.map((v) => a.names[v]!),
    initial: id.get(blockOf(a.initial))!,
    out,
  };
}

function mergeBisimilar(a: MutableBuchi, budget: Budget): MutableBuchi {
  const n = a.accepting.length;
  // Guards per (state, target) are simplified already; targets in one block keep their own
  // entries, which can only miss a merge, never make a wrong one (simulation catches the rest).
  // Guards do not change while blocks are refined, so each is numbered once.
  const guardIds = new Map<string, number>();
  const edges = a.out.map((m) =>
    [...m].map(([w, terms]) => {
      const k = guardKey(terms);
      let id = guardIds.get(k);
      if (id === undefined) guardIds.set(k, (id = guardIds.size));
      return [w, id] as const;
    }),
  );
  const block = refinePartition(
    n,
    (s) => (a.accepting[s] ? 'A' : 'N'),
    (s, b) => {
      budget.tick('Büchi reduction', edges[s]!.length);
      return [...new Set(edges[s]!.map(([w, g]) => `${b[w]}:${g}`))].sort().join(';');
    },
    () => budget.tick('Büchi reduction'),
  );
  const reps: number[] = [];
  const seen = new Set<number>();
  for (let v = 0; v < n; v++) {
    if (!seen.has(block[v]!)) {
      seen.add(block[v]!);
      reps.push(v);
    }
  }
  if (reps.length === n) return a;
  return renumber(a, reps, (v) => block[v]!, budget);
}

export function reduceBuchi(a: MutableBuchi, budget: Budget, bisimulation = true, apCount = Infinity): MutableBuchi {
  budget.checkTime('Büchi reduction');
  const quotient = (x: MutableBuchi): MutableBuchi => {
    let cur = x;
    for (;;) {
      const size = cur.accepting.length;
      cur = trimUseless(cur, budget);
      if (bisimulation) cur = mergeBisimilar(cur, budget);
      budget.checkTime('Büchi reduction');
      if (cur.accepting.length === size) return cur;
    }
  };
  // Bisimulation first (cheap), then one simulation pass (it rarely finds more a second time).
  // Little brothers covered only by several siblings together are dropped in a second automaton,
  // kept only when its quotient has strictly fewer states: an automaton that does not shrink stays
  // the one earlier versions built.
  const cur = quotient(a);
  if (!bisimulation) return cur;
  const { plain, letters } = simulationReductions(cur, apCount, budget);
  const p = quotient(plain);
  if (letters === null) return p;
  const l = quotient(letters);
  return l.accepting.length < p.accepting.length ? l : p;
}

/**
 * The automaton with every transient state (on no cycle, so a run visits it at most once, and its
 * acceptance never decides a run) made accepting, as `value` says; null when none changes. The
 * language is the same; accepting twins of such states can then merge with them.
 */
export function withTransientAcceptance(a: MutableBuchi, value: boolean): MutableBuchi | null {
  const n = a.accepting.length;
  const comp = stronglyConnected(n, (v) => a.out[v]!.keys());
  const size = new Int32Array(n);
  for (let v = 0; v < n; v++) size[comp[v]!]!++;
  let changed = false;
  const accepting = a.accepting.map((acc, v) => {
    if (acc === value || size[comp[v]!]! > 1 || a.out[v]!.has(v)) return acc;
    changed = true;
    return value;
  });
  return changed ? { ...a, accepting } : null;
}

/** Largest automaton whose accepting states are each checked for a redundant mark (n searches). */
const REDUNDANT_ACCEPTANCE_MAX_STATES = 200;

/**
 * The automaton with redundant acceptance marks removed, one state after another: an accepting
 * state q whose every cycle passes another accepting state (no path back to q avoiding them) is
 * made non-accepting, since a run that visits q infinitely often visits those infinitely often
 * too; null when none is (or the automaton is too large to check). Its non-accepting twin can then
 * merge with it.
 */
export function withRedundantAcceptanceDropped(a: MutableBuchi, budget?: Budget): MutableBuchi | null {
  const n = a.accepting.length;
  if (n > REDUNDANT_ACCEPTANCE_MAX_STATES) return null;
  const accepting = [...a.accepting];
  let changed = false;
  const seen = new Uint8Array(n);
  for (let q = 0; q < n; q++) {
    if (!accepting[q]) continue;
    // a path q → … → q through non-accepting states only (the marks as changed so far)?
    if (!cycleAvoiding(a, q, (w) => accepting[w]!, seen, budget)) {
      accepting[q] = false;
      changed = true;
    }
  }
  return changed ? { ...a, accepting } : null;
}

/**
 * The automaton with every non-accepting state whose every cycle passes an accepting state (no
 * path back to itself through non-accepting states only) made accepting; null when none is (or
 * the automaton is too large to check, REDUNDANT_ACCEPTANCE_MAX_STATES). A run that visits such a
 * state infinitely often visits accepting states infinitely often anyway, and one that visits it
 * finitely often does not care, so the language is the same; the states are all checked against
 * the original marks, which stay, so they can all change at once. It can then merge with an
 * accepting twin (hkrss 36: the state entered when a change fires from a waiting state, and the
 * same state entered as the until is met). Transient states (on no cycle) are the special case
 * withTransientAcceptance(a, true) handles.
 */
export function withImpliedAcceptance(a: MutableBuchi, budget?: Budget): MutableBuchi | null {
  const n = a.accepting.length;
  if (n > REDUNDANT_ACCEPTANCE_MAX_STATES) return null;
  const accepting = [...a.accepting];
  let changed = false;
  const seen = new Uint8Array(n);
  for (let q = 0; q < n; q++) {
    if (a.accepting[q]) continue;
    // a path q → … → q through (originally) non-accepting states only?
    if (!cycleAvoiding(a, q, (w) => a.accepting[w]!, seen, budget)) {
      accepting[q] = true;
      changed = true;
    }
  }
  return changed ? { ...a, accepting } : null;
}

/**
 * Whether some path q → … → q passes only states `avoid` refuses (q itself aside); `seen` is scratch of the automaton's
 * size.
 */
function cycleAvoiding(
  a: MutableBuchi,
  q: number,
  avoid: (w: number) => boolean,
  seen: Uint8Array,
  budget?: Budget,
): boolean {
  seen.fill(0);
  const stack = [q];
  while (stack.length > 0) {
    const v = stack.pop()!;
    budget?.tick('Büchi reduction');
    for (const w of a.out[v]!.keys()) {
      if (w === q) return true;
      if (avoid(w) || seen[w] === 1) continue;
      seen[w] = 1;
      stack.push(w);
    }
  }
  return false;
}

/** Numbers states in breadth-first order from the initial state, so that Start is 0. */
export function toAutomaton(a: MutableBuchi, aps: readonly string[], formula: string): BuchiAutomaton {
  const order: number[] = [a.initial];
  const id = new Map<number, number>([[a.initial, 0]]);
  for (let k = 0; k < order.length; k++) {
    for (const w of [...a.out[order[k]!]!.keys()].sort((x, y) => x - y)) {
      if (!id.has(w)) {
        id.set(w, order.length);
        order.push(w);
      }
    }
  }
  const edges: BuchiEdge[] = [];
  order.forEach((v, from) => {
    const targets = [...a.out[v]!.entries()].map(([w, g]) => [id.get(w)!, g] as const).sort((x, y) => x[0] - y[0]);
    for (const [to, guard] of targets) if (guard.length > 0) edges.push({ from, to, guard });
  });
  return {
    aps: [...aps],
    states: order.map((v) => ({ accepting: a.accepting[v]!, name: a.names[v]! })),
    initial: [0],
    edges,
    formula,
  };
}

/**
 * The automaton with a true self-loop on its initial state, when that state is transient and not
 * accepting and the language is an eventuality (`eventual`: u·w is accepted whenever w is); null
 * otherwise. A run takes the new loop only at the start (no old path returns to the state), so it
 * accepts u·w with w accepted from the initial state, which the language holds anyway, and a run
 * that loops forever stays in a non-accepting state. Simulation can then drop the edges into the
 * initial state's waiting twins (F G a | G F b: the state that waits for G a).
 */
export function withInitialLoop(a: MutableBuchi, eventual: boolean): MutableBuchi | null {
  const q = a.initial;
  if (!eventual || a.accepting[q] || a.out[q]!.has(q) || a.out[q]!.size === 0) return null;
  const comp = stronglyConnected(a.accepting.length, (v) => a.out[v]!.keys());
  for (let v = 0; v < a.accepting.length; v++) if (v !== q && comp[v] === comp[q]) return null;
  const out = a.out.map((m) => new Map(m));
  out[q]!.set(q, [TRUE_TERM]);
  return { ...a, out };
}
