/**
 * Direct simulation and backward (co)simulation on the transition-based generalized Büchi
 * automaton, iterated, before it is degeneralized — where Spot reduces its automata (its
 * `simul=3`). On a transition-based automaton an edge's acceptance marks travel with its letter:
 * p simulates q when every edge q -(a, M)-> q2 is matched by an edge p -(a, M')-> p2 with M ⊆ M'
 * and p2 simulating q2; backward, every edge q1 -(a, M)-> q by an edge p1 -(a, M')-> p with
 * M ⊆ M' and p1 backward-simulating q1, and p is initial when q is.
 *
 * States that simulate each other (one direction at a time) are merged, each class keeping every
 * member's edges. Forward: a run of the quotient is followed in the automaton by a state that
 * simulates the class member whose edge it took, step by step, with at least its marks. Backward:
 * every finite prefix of a run of the quotient ends, in the automaton, in any state that
 * backward-simulates a member of the last class (by induction from the initial state), with at
 * least its marks; König's lemma turns those prefixes into one infinite run. Forward, an edge is
 * then dropped when siblings above it read all its letters with at least its marks (the little
 * brothers, letter by letter: see withoutLittleBrothers).
 *
 * The alphabet is the guards' letter classes (letters every guard reads alike), each with every
 * set of marks: an edge offers its classes with every subset of its marks and demands them with
 * exactly its marks (simulation.ts simulationRelation's offers and demands).
 */
import type { Gba, GbaEdge } from './gba.js';
import { popcount, termHolds } from './guard.js';
import { removeDominated } from './dominance.js';
import { pruneAcceptanceSets } from './degeneralize.js';
import { letterClasses } from './wdba.js';
import { simplifyAcceptanceBySccs } from './gba-acceptance.js';
import type { Budget } from './budget.js';
import { type LetterEdge, SIMULATION_MAX_APS, simulationRelation } from './simulation.js';

/** Most letter classes × mark sets enumerated per edge, as a power of two. */
const GBA_SIMULATION_MAX_BITS = 13;
/** Most rounds of forward and backward quotients (each round that changes nothing ends it). */
const GBA_SIMULATION_MAX_ROUNDS = 8;

const STAGE = 'simulation reduction';

/**
 * The automaton with its marks simplified SCC by SCC (gba-acceptance.ts), then reduced by
 * iterated simulation, and its acceptance sets pruned; the automaton itself when none of them
 * changes anything.
 */
export function simulatedGba(gba: Gba, apCount: number, budget: Budget, refine = false): Gba {
  return pruneAcceptanceSets(
    iteratedGbaSimulation(simplifyAcceptanceBySccs(gba, budget), apCount, budget, refine),
    budget,
  );
}

/**
 * Forward and backward simulation quotients, alternated until neither shrinks the automaton
 * (states, then edges); the automaton itself when none does, or when its alphabet and acceptance
 * sets are too many to enumerate (GBA_SIMULATION_MAX_BITS, SIMULATION_MAX_APS).
 */
export function iteratedGbaSimulation(gba: Gba, apCount: number, budget: Budget, refine = false): Gba {
  let cur = gba;
  const size = (g: Gba): readonly [number, number] => gbaSize(g, apCount, refine);
  for (let round = 0; round < GBA_SIMULATION_MAX_ROUNDS; round++) {
    const before = size(cur);
    for (const direction of ['forward', 'backward'] as const) {
      const next = gbaSimulationQuotient(cur, apCount, budget, direction, undefined, refine);
      if (next !== null && smaller(size(next), size(cur))) cur = next;
    }
    if (!smaller(size(cur), before)) break;
  }
  return cur;
}

/** States, then edges — or, when guards are refined (an edge may split in cubes), the letters all edges read. */
function gbaSize(g: Gba, apCount: number, letters: boolean): readonly [number, number] {
  let n = 0;
  for (const list of g.edges) {
    for (const e of list) {
      n += letters ? 2 ** (apCount - popcount(e.g.pos | e.g.neg)) : 1;
    }
  }
  return [g.sets.length, n];
}

function smaller(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/**
 * One quotient by mutual forward (or backward) simulation, with forward little brothers dropped
 * and unreachable states removed; null when the alphabet and acceptance sets are too many or the
 * relation's work too large. `conditions` is for the tests' mutants (without marks, or without the
 * initial condition, the quotient is wrong).
 */
export function gbaSimulationQuotient(
  gba: Gba,
  apCount: number,
  budget: Budget,
  direction: 'forward' | 'backward',
  conditions = { marks: true, initial: true },
  refine = false,
): Gba | null {
  budget.checkTime(STAGE);
  const nAcc = conditions.marks ? gba.nAcc : 0;
  if (apCount > SIMULATION_MAX_APS) return null;
  const n = gba.sets.length;
  // Letters grouped into classes that every guard reads whole (a guard is a union of classes):
  // the alphabet simulated on is classes × mark sets, often far fewer than 2^apCount letters.
  const classesOf = guardClasses(gba, apCount, budget);
  const C = classesOf.count;
  if (C << nAcc > 1 << GBA_SIMULATION_MAX_BITS) return null;
  const L = C << nAcc;
  const LW = (L + 31) >>> 5;
  // Per edge: the letters it offers (its guard's classes with every subset of its marks) and
  // demands (with exactly its marks), both over classes × mark sets.
  const offers: LetterEdge[][] = Array.from({ length: n }, () => []);
  const demands: LetterEdge[][] = Array.from({ length: n }, () => []);
  const offered = new Uint32Array(n * LW);
  const demanded = new Uint32Array(n * LW);
  const M = (1 << nAcc) - 1;
  gba.edges.forEach((list, q) => {
    for (const e of list) {
      const offer = new Uint32Array(LW);
      const demand = new Uint32Array(LW);
      const marks = conditions.marks ? Number(e.acc) & M : 0;
      const cls = classesOf.of(e.g);
      budget.tick(STAGE, cls.length << nAcc);
      for (const c of cls) {
        const base = c << nAcc;
        const d = base | marks;
        demand[d >>> 5]! |= 1 << (d & 31);
        for (let s = marks; ; s = (s - 1) & marks) {
          const o = base | s;
          offer[o >>> 5]! |= 1 << (o & 31);
          if (s === 0) break;
        }
      }
      // forward: q's edge into e.to; backward: e.to's edge back to q
      const [from, to] = direction === 'forward' ? [q, e.to] : [e.to, q];
      offers[from]!.push({ to, letters: offer });
      demands[from]!.push({ to, letters: demand });
      for (let w = 0; w < LW; w++) {
        offered[from * LW + w]! |= offer[w]!;
        demanded[from * LW + w]! |= demand[w]!;
      }
    }
  });
  const initialOk = (p: number, q: number): boolean =>
    direction === 'forward' || !conditions.initial || q !== gba.initial || p === gba.initial;
  // a candidate pair: every letter q demands, p offers (p's edges may carry more marks than q's)
  const offersAll = (p: number, q: number): boolean => {
    for (let w = 0; w < LW; w++) if ((demanded[q * LW + w]! & ~offered[p * LW + w]!) !== 0) return false;
    return true;
  };
  const sim = simulationRelation(offers, LW, (p, q) => initialOk(p, q) && offersAll(p, q), budget, demands);
  if (sim === null) return null;
  const rep = new Int32Array(n);
  for (let q = 0; q < n; q++) {
    rep[q] = q;
    budget.tick(STAGE, q);
    for (let p = 0; p < q; p++) {
      if (rep[p] === p && sim(p, q) && sim(q, p)) {
        rep[q] = p;
        break;
      }
    }
  }
  // Each class's edges: every member's, into the targets' classes, dominated ones and little
  // brothers dropped.
  const classEdges: ClassEdge[][] = Array.from({ length: n }, () => []);
  for (let q = 0; q < n; q++) {
    for (const e of gba.edges[q]!) {
      const target = rep[e.to]!;
      classEdges[rep[q]!]!.push({ g: e.g, to: 1n << BigInt(target), acc: e.acc, target });
    }
  }
  const dominates = (u: number, t: number): boolean => u !== t && sim(u, t) && !(sim(t, u) && u > t);
  const kept: GbaEdge[][] = Array.from({ length: n }, () => []);
  for (let r = 0; r < n; r++) {
    if (rep[r] !== r) continue;
    const moves = removeDominated(classEdges[r]!, budget);
    const stay = direction === 'backward' ? moves : withoutLittleBrothers(moves, classesOf, dominates, budget, refine);
    kept[r] = stay.map((m) => ({ g: m.g, to: m.target, acc: m.acc }));
  }
  // Renumber the classes reachable from the initial one, in the order they are reached.
  const id = new Map<number, number>([[rep[gba.initial]!, 0]]);
  const order = [rep[gba.initial]!];
  for (let i = 0; i < order.length; i++) {
    for (const e of kept[order[i]!]!) {
      if (!id.has(e.to)) {
        id.set(e.to, order.length);
        order.push(e.to);
      }
    }
  }
  return {
    ...gba,
    sets: order.map((r) => gba.sets[r]!),
    edges: order.map((r) => kept[r]!.map((e) => ({ g: e.g, to: id.get(e.to)!, acc: e.acc }))),
    initial: 0,
  };
}

interface ClassEdge {
  readonly g: GbaEdge['g'];
  /** The target as a one-state set, for removeDominated. */
  readonly to: bigint;
  readonly acc: bigint;
  readonly target: number;
}

/**
 * A state's edges without the little brothers: an edge whose every letter some sibling above it
 * with at least its marks reads. "Above" is a strict order: into a state that dominates its
 * target, or into the same target with more marks, or as many and earlier in the list. On every
 * letter a chain of edges above one another, each with the marks of the one below, ends in one
 * that stays.
 */
function withoutLittleBrothers(
  moves: readonly ClassEdge[],
  classesOf: GuardClasses,
  dominates: (u: number, t: number) => boolean,
  budget: Budget,
  refine: boolean,
): ClassEdge[] {
  if (moves.length <= 1) return [...moves];
  const LW = (classesOf.count + 31) >>> 5;
  const letters = moves.map((m) => {
    const out = new Uint32Array(LW);
    for (const c of classesOf.of(m.g)) out[c >>> 5]! |= 1 << (c & 31);
    return out;
  });
  const union = new Uint32Array(LW);
  const out: ClassEdge[] = [];
  moves.forEach((t, i) => {
    budget.tick(STAGE, moves.length * LW);
    union.fill(0);
    moves.forEach((u, j) => {
      if (j === i || (t.acc & ~u.acc) !== 0n) return;
      const above = u.target !== t.target ? dominates(u.target, t.target) : u.acc !== t.acc || j < i;
      if (!above) return;
      const lu = letters[j]!;
      for (let w = 0; w < LW; w++) union[w]! |= lu[w]!;
    });
    const lt = letters[i]!;
    let some = false,
      all = true;
    for (let w = 0; w < LW; w++) {
      if ((lt[w]! & union[w]!) !== 0) some = true;
      if ((lt[w]! & ~union[w]!) !== 0) all = false;
    }
    if (all) return;
    if (!some || !refine) {
      out.push(t);
      return;
    }
    // some of its letters are read above it: the guard keeps only the others, as cubes
    const covered = (x: number): boolean => {
      const c = classesOf.classOf(x);
      return (union[c >>> 5]! & (1 << (c & 31))) !== 0;
    };
    for (const g of uncoveredCubes(t.g, classesOf.aps, covered, budget)) out.push({ ...t, g });
  });
  return out;
}

/** The term's letters not covered, as terms (cubes), splitting on one free proposition at a time. */
function uncoveredCubes(g: GbaEdge['g'], aps: number, covered: (x: number) => boolean, budget: Budget): GbaEdge['g'][] {
  const full = (1 << aps) - 1;
  const out: GbaEdge['g'][] = [];
  const split = (pos: number, neg: number): void => {
    const free = full & ~(pos | neg);
    let any = false,
      every = true;
    for (let sub = free; ; sub = (sub - 1) & free) {
      if (covered(pos | sub)) any = true;
      else every = false;
      if (any && !every) break;
      if (sub === 0) break;
    }
    budget.tick(STAGE);
    if (every) return;
    if (!any) {
      out.push({ pos: BigInt(pos), neg: BigInt(neg) });
      return;
    }
    const v = free & -free;
    split(pos | v, neg);
    split(pos, neg | v);
  };
  split(Number(g.pos), Number(g.neg));
  return out;
}

interface GuardClasses {
  /** How many classes. */
  readonly count: number;
  /** How many propositions. */
  readonly aps: number;
  /** The class of a letter. */
  classOf(x: number): number;
  /** The classes a guard term reads. */
  of(g: GbaEdge['g']): readonly number[];
}

/** The letter classes of the automaton's guards (wdba.ts letterClasses), with each term's classes memoized. */
function guardClasses(gba: Gba, apCount: number, budget: Budget): GuardClasses {
  const lc = letterClasses(
    apCount,
    gba.edges.flatMap((l) => l.map((e) => e.g)),
    budget,
  );
  const memo = new Map<string, number[]>();
  return {
    count: lc.reps.length,
    aps: apCount,
    classOf: (x) => lc.classOf[x]!,
    of(g) {
      const key = `${g.pos}/${g.neg}`;
      let cls = memo.get(key);
      if (cls === undefined) {
        cls = [];
        lc.reps.forEach((x, c) => {
          if (termHolds(g, BigInt(x))) cls!.push(c);
        });
        memo.set(key, cls);
      }
      return cls;
    },
  };
}
