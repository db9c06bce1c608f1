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

interface VwaaState {
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

/** The automaton under construction: its states so far, and every node's moves once found. */
class VwaaBuilder {
  readonly states: VwaaState[] = [{ node: null, final: false }];
  private readonly stateOf = new Map<number, number>();
  private readonly memo = new Map<number, Move[]>();
  /** GO's ψ̄ of a node, memoized. */
  private readonly barMemo = new Map<number, Move[]>();
  /** States whose moves are still to find. */
  readonly pending: number[] = [];
  /** How many disjunctions became one state. */
  joined = 0;
  /** Moves held in the memo, for the budget. */
  private held = 0;

  constructor(
    private readonly nf: NodeFactory,
    private readonly opts: VwaaOptions,
    private readonly budget: Budget,
  ) {}

  isGF(n: Node): boolean {
    return this.opts.gfLoops && this.nf.isG(n) && this.nf.isF(n.kids[1]!);
  }

  stateIndex(n: Node): number {
    let s = this.stateOf.get(n.id);
    if (s === undefined) {
      s = this.states.length;
      this.states.push({ node: n, final: n.op === 'U' || this.isGF(n) });
      this.stateOf.set(n.id, s);
      this.pending.push(s);
      this.budget.states(this.states.length, STAGE);
    }
    return s;
  }

  private self(n: Node): Move[] {
    return [{ g: TRUE_TERM, to: 1n << BigInt(this.stateIndex(n)), acc: 0n }];
  }

  private product(a: readonly Move[], b: readonly Move[]): Move[] {
    const out: Move[] = [];
    for (const x of a) {
      for (const y of b) {
        const g = termAnd(x.g, y.g);
        if (g !== null) {
          out.push({ g, to: x.to | y.to, acc: x.acc | y.acc });
          // the same limit removeDominated applies, checked before the list grows past it
          if ((out.length & 1023) === 0) this.budget.transitions(out.length, STAGE);
        }
        this.budget.tick(STAGE);
      }
    }
    return removeDominated(out, this.budget);
  }

  // The moves of a node need those of its operands, found bottom-up with an explicit stack so that
  // a deep formula cannot overflow the call stack. The order is that of the plain recursion
  // (operands in the order below; a recurrence G F ψ numbers its state before looking at ψ, and
  // skips its F ψ operand), since it numbers the states.
  private needs(n: Node): readonly Node[] {
    if (this.isGF(n)) return [n.kids[1]!.kids[1]!];
    if (n.op === 'X') return []; // its moves name states, they do not need the operand's moves
    return n.op === 'U' || n.op === 'R' ? [n.kids[1]!, n.kids[0]!] : n.kids;
  }

  /** GO's ψ̄ as moves on any letter: a target set per way of meeting ψ from the next position on. */
  private bar(n: Node): Move[] {
    let res = this.barMemo.get(n.id);
    if (res !== undefined) return res;
    switch (n.op) {
      case 'tt':
        res = [{ g: TRUE_TERM, to: 0n, acc: 0n }];
        break;
      case 'ff':
        res = [];
        break;
      case 'and':
        res = n.kids.reduce<Move[]>((acc, k) => this.product(acc, this.bar(k)), [{ g: TRUE_TERM, to: 0n, acc: 0n }]);
        break;
      case 'or':
        if (this.opts.disjunctionStates === true) {
          this.joined++;
          res = this.self(n);
        } else {
          res = removeDominated(
            n.kids.flatMap((k) => this.bar(k)),
            this.budget,
          );
        }
        break;
      default:
        res = this.self(n);
        break;
    }
    this.barMemo.set(n.id, res);
    return res;
  }

  dlt(top: Node): Move[] {
    const work: Node[] = [top];
    while (work.length > 0) {
      const n = work[work.length - 1]!;
      if (this.memo.has(n.id)) {
        work.pop();
        continue;
      }
      if (this.isGF(n)) this.stateIndex(n);
      const missing = this.needs(n).filter((k) => !this.memo.has(k.id));
      if (missing.length > 0) {
        for (let i = missing.length - 1; i >= 0; i--) work.push(missing[i]!);
        continue;
      }
      work.pop();
      const res = this.movesOf(n);
      this.memo.set(n.id, res);
      this.held += res.length;
      this.budget.edges(this.held, STAGE);
    }
    return this.memo.get(top.id)!;
  }

  /** The moves of a node whose operands' moves are known. */
  private movesOf(n: Node): Move[] {
    const budget = this.budget;
    switch (n.op) {
      case 'tt':
        return [{ g: TRUE_TERM, to: 0n, acc: 0n }];
      case 'ff':
        return [];
      case 'lit': {
        const bit = 1n << BigInt(n.ap);
        return [{ g: n.neg ? term(0n, bit) : term(bit, 0n), to: 0n, acc: 0n }];
      }
      case 'and':
        return n.kids.reduce<Move[]>((acc, k) => this.product(acc, this.dlt(k)), [{ g: TRUE_TERM, to: 0n, acc: 0n }]);
      case 'or':
        return removeDominated(
          n.kids.flatMap((k) => this.dlt(k)),
          budget,
        );
      case 'U': {
        const [l, r] = n.kids as [Node, Node];
        return removeDominated([...this.dlt(r), ...this.product(this.dlt(l), this.self(n))], budget);
      }
      case 'X':
        return this.bar(n.kids[0]!);
      case 'R': {
        const [l, r] = n.kids as [Node, Node];
        if (!this.isGF(n)) return this.product(this.dlt(r), removeDominated([...this.dlt(l), ...this.self(n)], budget));
        const s = this.stateIndex(n);
        const psi = r.kids[1]!;
        const mark = 1n << BigInt(s);
        const k = this.opts.gfDelays === true ? horizon(psi) : null;
        let back = n;
        if (k !== null) for (let i = 1; i < k; i++) back = this.nf.delay(back); // k - 1 delays, none below k = 2
        const loops = this.product(this.dlt(psi), this.self(back)).map((m) => ({ ...m, acc: m.acc | mark }));
        return removeDominated([...this.self(n), ...loops], budget);
      }
    }
  }
}

export function buildVwaa(root: Node, nf: NodeFactory, opts: VwaaOptions, budget: Budget): Vwaa {
  budget.checkTime(STAGE);
  const b = new VwaaBuilder(nf, opts, budget);
  const states = b.states;
  const delta: Move[][] = [];
  const accepting: Move[][] = [];
  delta[0] = b.dlt(root);
  while (b.pending.length > 0) {
    const s = b.pending.shift()!;
    delta[s] = b.dlt(states[s]!.node!);
  }
  for (let s = 0; s < states.length; s++) {
    const st = states[s]!;
    const bit = 1n << BigInt(s);
    if (!st.final) accepting[s] = [];
    else if (st.node!.op === 'U') accepting[s] = delta[s]!.filter((m) => (m.to & bit) === 0n);
    else accepting[s] = delta[s]!.filter((m) => (m.acc & bit) !== 0n);
  }
  return { states, delta, accepting, disjunctionStates: b.joined };
}
