import type { Formula } from './ast.js';
import type { Budget } from './budget.js';

/**
 * Negation normal form over a hash-consed DAG: equal subformulas are one node, so memoised
 * work (transitions, acceptance) is shared, and formulas with `<->` stay linear in size.
 */
export type NodeOp = 'tt' | 'ff' | 'lit' | 'and' | 'or' | 'U' | 'R' | 'X';

export interface Node {
  readonly id: number;
  readonly op: NodeOp;
  /** Proposition index, for literals. */
  readonly ap: number;
  /** Negated literal. */
  readonly neg: boolean;
  /** Operands: and/or sorted by id; U/R [left, right]; X [arg]. */
  readonly kids: readonly Node[];
}

const STAGE = 'negation normal form';

/**
 * `implies` looks this many levels below the pair it is asked about, and answers "no" deeper
 * down (always safe: we only simplify less). Formulas people write are far shallower; the bound
 * keeps deep ones (long `<->` chains) from costing a quadratic number of pairs or a deep stack.
 */
const IMPLIES_MAX_DEPTH = 48;
/** Answers `implies` remembers before it starts over (each is a pure function of the pair). */
const IMPLIES_MEMO_MAX = 1 << 20;

export class NodeFactory {
  private readonly table = new Map<string, Node>();
  private readonly nodes: Node[] = [];
  /** Per node id, computed as the node is made (from its operands), so no query recurses. */
  private readonly supports: bigint[] = [];
  private readonly eventuals: boolean[] = [];
  private readonly universals: boolean[] = [];
  readonly tt: Node;
  readonly ff: Node;

  /** `budget` bounds the number of nodes and the time spent (the rewrites are not linear). */
  constructor(
    private readonly rewrite = true,
    private readonly budget?: Budget,
  ) {
    this.tt = this.intern('tt', 0, false, []);
    this.ff = this.intern('ff', 0, false, []);
  }

  get size(): number {
    return this.nodes.length;
  }

  private intern(op: NodeOp, ap: number, neg: boolean, kids: readonly Node[]): Node {
    const key = op === 'lit' ? `l${neg ? '!' : ''}${ap}` : `${op}(${kids.map((k) => k.id).join(',')})`;
    let n = this.table.get(key);
    if (n === undefined) {
      n = { id: this.nodes.length, op, ap, neg, kids };
      this.budget?.nodes(n.id + 1, STAGE);
      this.table.set(key, n);
      this.nodes.push(n);
      this.supports.push(op === 'lit' ? 1n << BigInt(ap) : kids.reduce((acc, k) => acc | this.supports[k.id]!, 0n));
      this.eventuals.push(this.computeEventual(n));
      this.universals.push(this.computeUniversal(n));
    }
    this.budget?.tick(STAGE);
    return n;
  }

  lit(ap: number, neg: boolean): Node {
    return this.intern('lit', ap, neg, []);
  }

  and(parts: readonly Node[]): Node {
    return this.junction('and', parts);
  }

  or(parts: readonly Node[]): Node {
    return this.junction('or', parts);
  }

  /**
   * The operands of the junction `op` of `parts`: nested junctions of the same op spread out, its
   * unit (true for &, false for |) dropped, each node once, by id; null when one is its zero.
   */
  protected junctionKids(op: 'and' | 'or', parts: readonly Node[]): Node[] | null {
    const unit = op === 'and' ? this.tt : this.ff;
    const zero = op === 'and' ? this.ff : this.tt;
    const flat = new Map<number, Node>();
    const stack = [...parts];
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (p === zero) return null;
      if (p === unit) continue;
      if (p.op === op) stack.push(...p.kids);
      else flat.set(p.id, p);
    }
    return [...flat.values()].sort((a, b) => a.id - b.id);
  }

  private junction(op: 'and' | 'or', parts: readonly Node[]): Node {
    const unit = op === 'and' ? this.tt : this.ff;
    const zero = op === 'and' ? this.ff : this.tt;
    const spread = this.junctionKids(op, parts);
    if (spread === null) return zero;
    let kids = spread;
    const ids = new Set(kids.map((k) => k.id));
    for (const k of kids) {
      if (k.op === 'lit' && ids.has(this.lit(k.ap, !k.neg).id)) return zero;
    }
    if (this.rewrite && kids.length > 1) {
      // F G a & F G b = F G (a & b);  G F a | G F b = G F (a | b)
      const inner = (k: Node): Node | null => {
        if (op === 'and' && this.isF(k) && this.isG(k.kids[1]!)) return k.kids[1]!.kids[1]!;
        if (op === 'or' && this.isG(k) && this.isF(k.kids[1]!)) return k.kids[1]!.kids[1]!;
        return null;
      };
      const group = kids.filter((k) => inner(k) !== null);
      if (group.length > 1) {
        const args = group.map((k) => inner(k)!);
        const merged =
          op === 'and'
            ? this.U(this.tt, this.R(this.ff, this.and(args)))
            : this.R(this.ff, this.U(this.tt, this.or(args)));
        return this.junction(op, [...kids.filter((k) => inner(k) === null), merged]);
      }
      // F a | F b = F (a | b): one state that waits for either, where the disjuncts would each
      // get their own (suspendable operands stay apart: F would push them out again).
      if (op === 'or') {
        const eventually = kids.filter((k) => this.isF(k) && !this.suspendable(k.kids[1]!));
        if (eventually.length > 1) {
          const merged = this.U(this.tt, this.or(eventually.map((k) => k.kids[1]!)));
          return this.junction(op, [...kids.filter((k) => !eventually.includes(k)), merged]);
        }
      }
      // a & b = a when a ⇒ b;  a | b = b when a ⇒ b  (syntactic implication, Somenzi–Bloem style)
      kids = kids.filter(
        (k) =>
          !kids.some(
            (j) =>
              j !== k &&
              (op === 'and' ? this.implies(j, k) : this.implies(k, j)) &&
              !(j.id > k.id && (op === 'and' ? this.implies(k, j) : this.implies(j, k))),
          ),
      );
    }
    if (kids.length === 0) return unit;
    if (kids.length === 1) return kids[0]!;
    return this.intern(op, 0, false, kids);
  }

  private readonly implied = new Map<number, boolean>();

  /** Propositions a node mentions. */
  support(n: Node): bigint {
    return this.supports[n.id]!;
  }

  /** A sound, incomplete check that a implies b (at every position where a holds, b holds). */
  implies(a: Node, b: Node): boolean {
    return this.impliesAt(a, b, 0);
  }

  private impliesAt(a: Node, b: Node, depth: number): boolean {
    if (a === b || b === this.tt || a === this.ff) return true;
    if (a.op === 'lit' && b.op === 'lit') return false;
    // After normalization true and false only stand left of U and R, so the rules below need a
    // shared proposition to succeed; answering "no" early is always safe (we only simplify less).
    if ((this.support(a) & this.support(b)) === 0n) return false;
    const key = a.id * 4_194_304 + b.id;
    const hit = this.implied.get(key);
    if (hit !== undefined) return hit;
    if (depth >= IMPLIES_MAX_DEPTH) return false;
    this.budget?.tick(STAGE);
    if (this.implied.size >= IMPLIES_MEMO_MAX) this.implied.clear();
    this.implied.set(key, false); // guards against cycles through shared nodes
    const res = this.impliesUncached(a, b, depth + 1);
    this.implied.set(key, res);
    return res;
  }

  private impliesUncached(a: Node, b: Node, d: number): boolean {
    const implies = (x: Node, y: Node): boolean => this.impliesAt(x, y, d);
    if (a.op === 'or' && a.kids.every((k) => implies(k, b))) return true;
    if (a.op === 'and' && a.kids.some((k) => implies(k, b))) return true;
    if (b.op === 'and' && b.kids.every((k) => implies(a, k))) return true;
    if (b.op === 'or' && b.kids.some((k) => implies(a, k))) return true;
    if (b.op === 'U') {
      const [b1, b2] = b.kids as [Node, Node];
      if (implies(a, b2)) return true;
      if (a.op === 'U' && implies(a.kids[0]!, b1) && implies(a.kids[1]!, b2)) return true;
    }
    if (b.op === 'R') {
      const [b1, b2] = b.kids as [Node, Node];
      if (implies(a, b1) && implies(a, b2)) return true;
      if (a.op === 'R' && implies(a.kids[0]!, b1) && implies(a.kids[1]!, b2)) return true;
    }
    if (a.op === 'U' && implies(a.kids[0]!, b) && implies(a.kids[1]!, b)) return true;
    // a1 U a2 implies F a2; so it implies F b2 when a2 does (F F b2 = F b2)
    if (a.op === 'U' && this.isF(b) && implies(a.kids[1]!, b)) return true;
    if (a.op === 'R' && implies(a.kids[1]!, b)) return true;
    if (a.op === 'X' && b.op === 'X' && implies(a.kids[0]!, b.kids[0]!)) return true;
    return false;
  }

  isF(n: Node): boolean {
    return n.op === 'U' && n.kids[0] === this.tt;
  }
  isG(n: Node): boolean {
    return n.op === 'R' && n.kids[0] === this.ff;
  }

  /** Pure eventuality: satisfied by a word iff by every word that ends with it. */
  eventual(n: Node): boolean {
    return this.eventuals[n.id]!;
  }

  /** Pure universality: satisfied by a word iff by all of its suffixes. */
  universal(n: Node): boolean {
    return this.universals[n.id]!;
  }

  private computeEventual(n: Node): boolean {
    switch (n.op) {
      case 'tt':
      case 'ff':
        return true;
      case 'and':
      case 'or':
        return n.kids.every((k) => this.eventual(k));
      case 'U':
        return this.isF(n) || this.eventual(n.kids[1]!);
      case 'R':
        return this.isG(n) ? this.eventual(n.kids[1]!) : false;
      case 'X':
        return this.eventual(n.kids[0]!); // X e holds on w iff e on w's suffix, which every u·w ends with too
      default:
        return false;
    }
  }

  private computeUniversal(n: Node): boolean {
    switch (n.op) {
      case 'tt':
      case 'ff':
        return true;
      case 'and':
      case 'or':
        return n.kids.every((k) => this.universal(k));
      case 'R':
        return this.isG(n) || this.universal(n.kids[1]!);
      case 'U':
        return this.isF(n) ? this.universal(n.kids[1]!) : false;
      case 'X':
        return this.universal(n.kids[0]!);
      default:
        return false;
    }
  }

  /** Both eventual and universal (G F a, F G a, …): true at one position iff at every position. */
  suspendable(n: Node): boolean {
    return n !== this.tt && n !== this.ff && this.eventual(n) && this.universal(n);
  }

  /**
   * Pulls suspendable parts out of a temporal operand: op(l, r ∧ S) = op(l, r) ∧ S and
   * op(l, r ∨ S) = op(l, r) ∨ S for U and R, since S means the same at every position
   * (LTL3BA's suspension; it keeps, e.g., F(a & F(b & F G c)) from multiplying states).
   */
  private suspend(l: Node, r: Node, op: (l: Node, r: Node) => Node): Node | null {
    if (r.op !== 'and' && r.op !== 'or') return null;
    const sus = r.kids.filter((k) => this.suspendable(k));
    if (sus.length === 0 || sus.length === r.kids.length) return null;
    const rest = r.kids.filter((k) => !this.suspendable(k));
    const inner = op(l, r.op === 'and' ? this.and(rest) : this.or(rest));
    return r.op === 'and' ? this.and([inner, ...sus]) : this.or([inner, ...sus]);
  }

  U(l: Node, r: Node): Node {
    if (r === this.tt || r === this.ff || l === this.ff || l === r) return r;
    if (this.rewrite) {
      if (this.eventual(r)) return r; // a U e = e, F e = e
      const s = this.suspend(l, r, (a, b) => this.U(a, b));
      if (s !== null) return s;
      // F (a | F b) = F (a | b): F distributes over | and F F b = F b
      if (l === this.tt && r.op === 'or' && r.kids.some((k) => this.isF(k))) {
        return this.U(this.tt, this.or(r.kids.map((k) => (this.isF(k) ? k.kids[1]! : k))));
      }
      const strong = this.nextAlongside(l, r, 'and'); // b U (X a & b) = b & X (b U a)
      if (strong !== null) return this.and([l, this.X(this.U(l, strong))]);
    }
    return this.intern('U', 0, false, [l, r]);
  }

  /**
   * Next. X true = true and X false = false always; with rewriting X S = S for a suspendable S
   * (true at one position iff at every position). Negation goes through it: !X a = X !a.
   */
  X(a: Node): Node {
    if (a === this.tt || a === this.ff) return a;
    if (this.rewrite && this.suspendable(a)) return a;
    return this.intern('X', 0, false, [a]);
  }

  /**
   * a when r is the junction `op` of X a and exactly l's parts (r = X a & l for U, r = X a | l
   * for R), else null. It makes X a M b = b U (X a & b) = b & X (b U a): b holds up to some k and
   * a at k + 1, that is b now and b U a from the next position; dually b R (X a | b) =
   * b | X (b R a). b's check moves one step on, where it meets a's X chain (Spot's simplifier
   * does the same; rand-x 168, G X (p0 & (p1 xor X (X X X p2 M (p0 xor p1)))): 8 → 6 states).
   * Protected so that a test can break it.
   */
  protected nextAlongside(l: Node, r: Node, op: 'and' | 'or'): Node | null {
    if (r.op !== op) return null;
    for (const next of r.kids) {
      if (next.op !== 'X') continue;
      const rest = r.kids.filter((k) => k !== next);
      if ((op === 'and' ? this.and(rest) : this.or(rest)) === l) return next.kids[0]!;
    }
    return null;
  }

  /**
   * X a as a node even where X would simplify (X S = S for a suspendable S): the alternating
   * automaton's delay states (vwaa.ts, VwaaOptions.gfDelays), which count steps before a
   * recurrence's state returns.
   */
  delay(a: Node): Node {
    return this.intern('X', 0, false, [a]);
  }

  R(l: Node, r: Node): Node {
    if (r === this.tt || r === this.ff || l === this.tt || l === r) return r;
    if (this.rewrite) {
      if (this.universal(r)) return r; // a R u = u, G u = u
      if (l === this.ff && r.op === 'and') return this.and(r.kids.map((k) => this.R(this.ff, k))); // G(a&b) = G a & G b
      const s = this.suspend(l, r, (a, b) => this.R(a, b));
      if (s !== null) return s;
      const strong = this.nextAlongside(l, r, 'or'); // b R (X a | b) = b | X (b R a)
      if (strong !== null) return this.or([l, this.X(this.R(l, strong))]);
    }
    return this.intern('R', 0, false, [l, r]);
  }
}

/**
 * Converts a formula to NNF nodes; propositions are numbered by `apIndex`. Recurses once per
 * operator level: the formula's depth must be within the parser's nesting limit.
 */
export function toNnf(f: Formula, apIndex: ReadonlyMap<string, number>, nf: NodeFactory, budget?: Budget): Node {
  budget?.checkTime(STAGE);
  const memo = [new Map<Formula, Node>(), new Map<Formula, Node>()];
  const go = (g: Formula, neg: boolean): Node => {
    const m = memo[neg ? 1 : 0]!;
    const hit = m.get(g);
    if (hit !== undefined) return hit;
    budget?.tick(STAGE);
    const res = build(g, neg);
    m.set(g, res);
    return res;
  };
  const build = (g: Formula, neg: boolean): Node => {
    switch (g.kind) {
      case 'true':
        return neg ? nf.ff : nf.tt;
      case 'false':
        return neg ? nf.tt : nf.ff;
      case 'ap':
        return nf.lit(apIndex.get(g.name)!, neg);
      case 'not':
        return go(g.arg, !neg);
      case 'and': {
        const parts = g.args.map((a) => go(a, neg));
        return neg ? nf.or(parts) : nf.and(parts);
      }
      case 'or': {
        const parts = g.args.map((a) => go(a, neg));
        return neg ? nf.and(parts) : nf.or(parts);
      }
      case 'implies':
        return neg ? nf.and([go(g.left, false), go(g.right, true)]) : nf.or([go(g.left, true), go(g.right, false)]);
      case 'iff':
        return neg
          ? nf.or([nf.and([go(g.left, false), go(g.right, true)]), nf.and([go(g.left, true), go(g.right, false)])])
          : nf.or([nf.and([go(g.left, false), go(g.right, false)]), nf.and([go(g.left, true), go(g.right, true)])]);
      case 'F':
        return neg ? nf.R(nf.ff, go(g.arg, true)) : nf.U(nf.tt, go(g.arg, false));
      case 'G':
        return neg ? nf.U(nf.tt, go(g.arg, true)) : nf.R(nf.ff, go(g.arg, false));
      case 'U':
        return neg ? nf.R(go(g.left, true), go(g.right, true)) : nf.U(go(g.left, false), go(g.right, false));
      case 'R':
        return neg ? nf.U(go(g.left, true), go(g.right, true)) : nf.R(go(g.left, false), go(g.right, false));
      case 'W': {
        // a W b = b R (a | b);  !(a W b) = !b U (!a & !b)
        const a = go(g.left, neg);
        const b = go(g.right, neg);
        return neg ? nf.U(b, nf.and([a, b])) : nf.R(b, nf.or([a, b]));
      }
      case 'M': {
        // a M b = b U (a & b), the dual of W;  !(a M b) = !a W !b = !b R (!a | !b)
        const a = go(g.left, neg);
        const b = go(g.right, neg);
        return neg ? nf.R(b, nf.or([a, b])) : nf.U(b, nf.and([a, b]));
      }
      case 'xor':
        // a xor b = !(a <-> b)
        return neg
          ? nf.or([nf.and([go(g.left, false), go(g.right, false)]), nf.and([go(g.left, true), go(g.right, true)])])
          : nf.or([nf.and([go(g.left, false), go(g.right, true)]), nf.and([go(g.left, true), go(g.right, false)])]);
      case 'X':
        return nf.X(go(g.arg, neg));
    }
  };
  return go(f, false);
}
