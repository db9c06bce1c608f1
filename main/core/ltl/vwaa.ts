/**
 * Very weak alternating automaton (Gastin & Oddoux 2001, §2): states are the temporal subformulas,
 * transitions are (guard term, conjunction of next states). Index 0 is a pseudo-state for the
 * whole formula, so the automaton has one initial state.
 *
 * The next operator is GO's as well: X ψ moves on every letter to ψ̄, the states of ψ's temporal
 * operands and literals (a product over &, a union over |), so literals and X formulas below an X
 * are states too. Nothing here or after assumes stutter-invariance.
 *
 * Beyond Gastin–Oddoux: a recurrence `G F ψ` is one state whose ψ-loop carries an acceptance mark
 * (as LTL3BA treats such formulas), instead of a `G` state that spawns an `F ψ` state. Conjunctions
 * of recurrences then give one generalized state instead of 2^n. Optionally a disjunction under X
 * is one state (VwaaOptions.disjunctionStates).
 */
import { TRUE_TERM, termAnd, term } from './guard.js';
import { type Move, removeDominated } from './dominance.js';
import type { Node, NodeFactory } from './nnf.js';
import type { Budget } from './budget.js';

export interface VwaaState {
  /**
   * The formula this state stands for (a U or R, or under X also a literal or an X); null for the initial pseudo-state.
   */
  readonly node: Node | null;
  /** Final states must eventually be left (U) or must loop through a marked move (G F). */
  readonly final: boolean;
}

export interface Vwaa {
  readonly states: VwaaState[];
  readonly delta: Move[][];
  /** Per state: the moves that satisfy its acceptance obligation (only for final states). */
  readonly accepting: Move[][];
  /** How many disjunctions became one state (VwaaOptions.disjunctionStates). */
  readonly disjunctionStates: number;
}

export interface VwaaOptions {
  /** Treat G F ψ as one state with a marked loop (default true). */
  readonly gfLoops: boolean;
  /**
   * Under X, a disjunction is one state (its moves: its disjuncts' moves, read at the next
   * position) instead of a choice between its disjuncts' states, so the generalized state keeps
   * one set where it would branch: X (!a | !b) next to a release, X (!a | a U b) under G (the
   * set for "!a next" and the one for "a U b next" are one). The state is left on its first move
   * and never re-entered (no formula is its own operand), so it is not final, and the automaton
   * stays very weak. Default false.
   */
  readonly disjunctionStates?: boolean;
  /**
   * A recurrence G F ψ whose ψ looks a bounded k ≥ 2 steps ahead (literals, X, & and | only) is
   * not kept alive while one try of ψ is being checked: its marked move goes to ψ's obligations
   * and a chain of k - 1 delay states (X^(k-1) of the recurrence) that brings it back when they
   * are met, instead of to ψ's obligations and itself. Tries then never overlap, which loses no
   * word (infinitely many tries that succeed hold infinitely many that are k apart), and the
   * generalized states no longer hold every mix of pending tries: G F (a <-> X X X a) gets
   * Spot's 8 states instead of 19. Default false.
   */
  readonly gfDelays?: boolean;
}

/** How many steps ahead n looks when it has only literals, constants, X, & and |; null when it has U or R. */
function horizon(n: Node, memo = new Map<number, number | null>()): number | null {
  const hit = memo.get(n.id);
  if (hit !== undefined) return hit;
  let h: number | null;
  switch (n.op) {
    case 'tt':
    case 'ff':
    case 'lit':
      h = 0;
      break;
    case 'X': {
      const k = horizon(n.kids[0]!, memo);
      h = k === null ? null : k + 1;
      break;
    }
    case 'and':
    case 'or': {
      h = 0;
      for (const k of n.kids) {
        const x = horizon(k, memo);
        if (x === null) {
          h = null;
          break;
        }
        h = Math.max(h, x);
      }
      break;
    }
    default:
      h = null;
  }
  memo.set(n.id, h);
  return h;
}

const STAGE = 'alternating automaton construction';

export function buildVwaa(root: Node, nf: NodeFactory, opts: VwaaOptions, budget: Budget): Vwaa {
  budget.checkTime(STAGE);
  const states: VwaaState[] = [{ node: null, final: false }];
  const delta: Move[][] = [];
  const accepting: Move[][] = [];
  const stateOf = new Map<number, number>();
  const memo = new Map<number, Move[]>();
  const pending: number[] = [];

  const isGF = (n: Node): boolean => opts.gfLoops && nf.isG(n) && nf.isF(n.kids[1]!);

  const stateIndex = (n: Node): number => {
    let s = stateOf.get(n.id);
    if (s === undefined) {
      s = states.length;
      states.push({ node: n, final: n.op === 'U' || isGF(n) });
      stateOf.set(n.id, s);
      pending.push(s);
      budget.states(states.length, STAGE);
    }
    return s;
  };

  const self = (n: Node): Move[] => [{ g: TRUE_TERM, to: 1n << BigInt(stateIndex(n)), acc: 0n }];

  const product = (a: readonly Move[], b: readonly Move[]): Move[] => {
    const out: Move[] = [];
    for (const x of a) {
      for (const y of b) {
        const g = termAnd(x.g, y.g);
        if (g !== null) {
          out.push({ g, to: x.to | y.to, acc: x.acc | y.acc });
          // the same limit removeDominated applies, checked before the list grows past it
          if ((out.length & 1023) === 0) budget.transitions(out.length, STAGE);
        }
        budget.tick(STAGE);
      }
    }
    return removeDominated(out, budget);
  };

  // The moves of a node need those of its operands, found bottom-up with an explicit stack so that
  // a deep formula cannot overflow the call stack. The order is that of the plain recursion
  // (operands in the order below; a recurrence G F ψ numbers its state before looking at ψ, and
  // skips its F ψ operand), since it numbers the states.
  const needs = (n: Node): readonly Node[] => {
    if (isGF(n)) return [n.kids[1]!.kids[1]!];
    if (n.op === 'X') return []; // its moves name states, they do not need the operand's moves
    return n.op === 'U' || n.op === 'R' ? [n.kids[1]!, n.kids[0]!] : n.kids;
  };

  let joined = 0;

  /** GO's ψ̄ as moves on any letter: a target set per way of meeting ψ from the next position on. */
  const barMemo = new Map<number, Move[]>();
  const bar = (n: Node): Move[] => {
    let res = barMemo.get(n.id);
    if (res !== undefined) return res;
    switch (n.op) {
      case 'tt':
        res = [{ g: TRUE_TERM, to: 0n, acc: 0n }];
        break;
      case 'ff':
        res = [];
        break;
      case 'and':
        res = n.kids.reduce<Move[]>((acc, k) => product(acc, bar(k)), [{ g: TRUE_TERM, to: 0n, acc: 0n }]);
        break;
      case 'or':
        if (opts.disjunctionStates === true) {
          joined++;
          res = self(n);
        } else {
          res = removeDominated(
            n.kids.flatMap((k) => bar(k)),
            budget,
          );
        }
        break;
      default:
        res = self(n);
        break;
    }
    barMemo.set(n.id, res);
    return res;
  };
  let held = 0;
  const dlt = (top: Node): Move[] => {
    const work: Node[] = [top];
    while (work.length > 0) {
      const n = work[work.length - 1]!;
      if (memo.has(n.id)) {
        work.pop();
        continue;
      }
      if (isGF(n)) stateIndex(n);
      const missing = needs(n).filter((k) => !memo.has(k.id));
      if (missing.length > 0) {
        for (let i = missing.length - 1; i >= 0; i--) work.push(missing[i]!);
        continue;
      }
      work.pop();
      const res = movesOf(n);
      memo.set(n.id, res);
      held += res.length;
      budget.edges(held, STAGE);
    }
    return memo.get(top.id)!;
  };

  /** The moves of a node whose operands' moves are known. */
  const movesOf = (n: Node): Move[] => {
    let res: Move[];
    switch (n.op) {
      case 'tt':
        res = [{ g: TRUE_TERM, to: 0n, acc: 0n }];
        break;
      case 'ff':
        res = [];
        break;
      case 'lit': {
        const bit = 1n << BigInt(n.ap);
        res = [{ g: n.neg ? term(0n, bit) : term(bit, 0n), to: 0n, acc: 0n }];
        break;
      }
      case 'and':
        res = n.kids.reduce<Move[]>((acc, k) => product(acc, dlt(k)), [{ g: TRUE_TERM, to: 0n, acc: 0n }]);
        break;
      case 'or':
        res = removeDominated(
          n.kids.flatMap((k) => dlt(k)),
          budget,
        );
        break;
      case 'U': {
        const [l, r] = n.kids as [Node, Node];
        res = removeDominated([...dlt(r), ...product(dlt(l), self(n))], budget);
        break;
      }
      case 'X':
        res = bar(n.kids[0]!);
        break;
      case 'R': {
        const [l, r] = n.kids as [Node, Node];
        if (isGF(n)) {
          const s = stateIndex(n);
          const psi = r.kids[1]!;
          const mark = 1n << BigInt(s);
          const k = opts.gfDelays === true ? horizon(psi) : null;
          let back = n;
          if (k !== null) for (let i = 1; i < k; i++) back = nf.delay(back); // k - 1 delays, none below k = 2
          const loops = product(dlt(psi), self(back)).map((m) => ({ ...m, acc: m.acc | mark }));
          res = removeDominated([...self(n), ...loops], budget);
        } else {
          res = product(dlt(r), removeDominated([...dlt(l), ...self(n)], budget));
        }
        break;
      }
    }
    return res;
  };

  delta[0] = dlt(root);
  while (pending.length > 0) {
    const s = pending.shift()!;
    delta[s] = dlt(states[s]!.node!);
  }
  for (let s = 0; s < states.length; s++) {
    const st = states[s]!;
    const bit = 1n << BigInt(s);
    if (!st.final) accepting[s] = [];
    else if (st.node!.op === 'U') accepting[s] = delta[s]!.filter((m) => (m.to & bit) === 0n);
    else accepting[s] = delta[s]!.filter((m) => (m.acc & bit) !== 0n);
  }
  return { states, delta, accepting, disjunctionStates: joined };
}
