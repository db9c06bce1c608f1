/**
 * A second set of formula rewrites, each language-preserving, for an alternative translation that
 * the translator keeps only when its automaton is strictly smaller (translate.ts): they shrink
 * Spot's pattern families (Dwyer's X chains, G/F nests) but are not always smaller, and an
 * automaton they do not shrink must stay the one the first rewrites give.
 *
 * - X outward: G X a = X G a, X a & X b = X (a & b), X a | X b = X (a | b), so that the X of a
 *   chain meets its siblings and suspendable formulas lose their X (G X F a = G F a); and out of
 *   U and R: X a U X b = X (a U b), X a R X b = X (a R b), where true, false and a suspendable
 *   S count as X-formulas (X S = S): F X b = X F b, G F a U X b = X (G F a U b). Spot's
 *   simplifier does the same; Schuppan–Darmawan's sejk-f family, G F a1 U G (G F a0 U X X b),
 *   becomes X X (G F a1 U G (G F a0 U b)) (24 → 14 states).
 * - Recurrences split: G F (a & e) = G F a & G e for an eventuality e (e holds at every position
 *   before one where it holds, so infinitely often means always), when e is an X formula
 *   (G F (p1 & X F (p2 & X F p3)), Etessami–Holzmann's chain). On X-free recurrences the rule
 *   shrinks too (the SAGAS patrolling template G F (e1 & F (e2 & F e3)) among them), but it would
 *   change many of the mission benchmarks' automata, and the mission tables were measured on the
 *   automata as they are, so that is left to a change that re-runs them.
 * - Weak until: G a | a U b = a W b, and G a | F (!a & e) = a W (!a & e) for a literal a and
 *   an eventuality e (F (!a & e) holds at the first !a already, e holding there too), so that the
 *   choice between "a forever" and "b later" becomes one deterministic state; likewise
 *   b R a | !b U (!a & e) = (a & !b) W ((a & b) | (!a & e)) for literals a, b (at the first
 *   position where a & !b fails, the release holds iff b does, the until iff e does), and
 *   a U (b | G a) = a W b (Dwyer's "after q until r" scopes).
 * - Context: in a & (b | c), conjuncts of b that a implies are dropped (a & b = a & b' then); dually
 *   in a | (b & c), disjuncts of b that imply a.
 * - X release: X a R b = b & X (b W a) (b holds up to the first j with a at j + 1, or forever: that
 *   is b now and b W a from the next position), so the release's pending "a next" becomes the weak
 *   until's own exit: in X F (p0 & F p1 & (X p1 R !p2)) the states "p1 next" and "F p1 & the
 *   release" merge into "F p1 & !p2 W p1" (!hkrss 52: 6 → 5 states).
 */
import { type Node, NodeFactory } from './nnf.js';

/**
 * The rules, for counting: X outward (G X, junctions of X, out of U and R), recurrence split, weak until (three forms),
 * context, X release.
 */
export type MoreRule =
  'G X' | 'X junction' | 'X out of U/R' | 'G F split' | 'W' | 'W from R' | 'W from U' | 'context' | 'X R';

export class RewriteMoreFactory extends NodeFactory {
  /** How many times a rule of this file changed a formula (0: the translation would be the same). */
  fired = 0;
  /** … and how many times each rule did. */
  readonly fires = new Map<MoreRule, number>();
  /** Whether the formula has an X (only then can the alternating automaton's disjunction states differ). */
  hasNext = false;

  override X(a: Node): Node {
    const n = super.X(a);
    if (n.op === 'X') this.hasNext = true;
    return n;
  }

  override R(l: Node, r: Node): Node {
    // G X a = X G a: the false-left case of nextOutOf below, counted under its own name
    if (l === this.ff && r.op === 'X') return this.hit('G X', this.X(this.R(this.ff, r.kids[0]!)));
    const pulled = this.nextOutOf(l, r, (a, b) => this.R(a, b));
    if (pulled !== null) return pulled;
    // G F (a & e) = G F a & G e, e eventual (see the header for why e must hold an X)
    if (l === this.ff && this.isF(r) && r.kids[1]!.op === 'and') {
      const split = this.partition(r.kids[1]!.kids, (k) => this.alwaysOnceInfinitelyOften(k));
      if (split !== null && split.matching.some((k) => k.op === 'X'))
        return this.hit(
          'G F split',
          this.and([
            this.R(this.ff, this.U(this.tt, this.and(split.other))),
            this.R(this.ff, this.and(split.matching)),
          ]),
        );
    }
    if (l.op === 'X') return this.hit('X R', this.nextRelease(l.kids[0]!, r));
    return super.R(l, r);
  }

  override U(l: Node, r: Node): Node {
    const pulled = this.nextOutOf(l, r, (a, b) => this.U(a, b));
    if (pulled !== null) return pulled;
    // a U (b | G a) = a W b = b R (a | b)
    if (r.op === 'or') {
      const ga = r.kids.find((k) => this.isG(k) && k.kids[1] === l);
      if (ga !== undefined) {
        const b = this.or(r.kids.filter((k) => k !== ga));
        return this.hit('W from U', this.R(b, this.or([l, b])));
      }
    }
    return super.U(l, r);
  }

  override and(parts: readonly Node[]): Node {
    const n = super.and(parts);
    return n.op === 'and' ? this.junctionMore(n) : n;
  }

  override or(parts: readonly Node[]): Node {
    const n = super.or(parts);
    return n.op === 'or' ? this.junctionMore(n) : n;
  }

  /**
   * op(X a, X b) = X op(a, b) for U and R, when both operands are X-formulas and one is an X node
   * (true, false and suspendable formulas are their own X); null otherwise.
   */
  private nextOutOf(l: Node, r: Node, op: (a: Node, b: Node) => Node): Node | null {
    if (l.op !== 'X' && r.op !== 'X') return null;
    const a = this.underNext(l);
    const b = this.underNext(r);
    if (a === null || b === null) return null;
    return this.hit('X out of U/R', this.X(op(a, b)));
  }

  /**
   * a when n = X a, or n itself when n = X n (true, false, a suspendable formula); else null (protected so that a test
   * can break it).
   */
  protected underNext(n: Node): Node | null {
    if (n.op === 'X') return n.kids[0]!;
    if (n === this.tt || n === this.ff || this.suspendable(n)) return n;
    return null;
  }

  /** X a R b = b & X (b W a) = b & X (a R (a | b)) (protected so that a test can break it). */
  protected nextRelease(a: Node, b: Node): Node {
    return this.and([b, this.X(this.R(a, this.or([a, b])))]);
  }

  /** Whether G F k = G k: k an eventuality (protected so that a test can break it). */
  protected alwaysOnceInfinitelyOften(k: Node): boolean {
    return this.eventual(k);
  }

  private hit(rule: MoreRule, n: Node): Node {
    this.fired++;
    this.fires.set(rule, (this.fires.get(rule) ?? 0) + 1);
    return n;
  }

  /** The kids that satisfy `p` and the others, or null when either part is empty. */
  private partition(kids: readonly Node[], p: (k: Node) => boolean): { matching: Node[]; other: Node[] } | null {
    const matching = kids.filter(p);
    if (matching.length === 0 || matching.length === kids.length) return null;
    return { matching, other: kids.filter((k) => !p(k)) };
  }

  private junctionMore(n: Node): Node {
    const op = n.op as 'and' | 'or';
    const build = (rule: MoreRule, kids: Node[]): Node => this.hit(rule, op === 'and' ? this.and(kids) : this.or(kids));
    const kids = n.kids;
    const nexts = kids.filter((k) => k.op === 'X');
    if (nexts.length > 1) {
      const inner = op === 'and' ? this.and(nexts.map((k) => k.kids[0]!)) : this.or(nexts.map((k) => k.kids[0]!));
      return build('X junction', [...kids.filter((k) => k.op !== 'X'), this.X(inner)]);
    }
    if (op === 'or') {
      for (const g of kids) {
        if (!this.isG(g)) continue;
        const a = g.kids[1]!;
        for (const u of kids) {
          if (u.op !== 'U') continue;
          const [ul, ur] = u.kids as [Node, Node];
          if (ul === a || (ul === this.tt && this.firstViolation(a, ur))) {
            return build('W', [...kids.filter((k) => k !== g && k !== u), this.R(ur, this.or([a, ur]))]);
          }
        }
      }
      // b R a | !b U (!a & e) = (a & !b) W ((a & b) | (!a & e)) for literals a, b
      for (const r of kids) {
        if (r.op !== 'R' || r.kids[0]!.op !== 'lit') continue;
        const [b, a] = r.kids as [Node, Node];
        const notB = this.lit(b.ap, !b.neg);
        for (const u of kids) {
          if (u.op !== 'U' || u.kids[0] !== notB || !this.firstViolation(a, u.kids[1]!)) continue;
          const x = this.and([a, notB]);
          const y = this.or([this.and([a, b]), u.kids[1]!]);
          return build('W from R', [...kids.filter((k) => k !== r && k !== u), this.R(y, this.or([x, y]))]);
        }
      }
    }
    // context: conjuncts (disjuncts) of a kid's disjuncts (conjuncts) that a sibling implies (is implied by)
    const inner = op === 'and' ? 'or' : 'and';
    for (const k of kids) {
      if (k.op !== inner) continue;
      const siblings = kids.filter((j) => j !== k);
      const redundant = (c: Node): boolean =>
        siblings.some((j) => (op === 'and' ? this.implies(j, c) : this.implies(c, j)));
      let changed = false;
      const parts = k.kids.map((d) => {
        if (d.op !== op) return d;
        const keep = d.kids.filter((c) => !redundant(c));
        if (keep.length === d.kids.length) return d;
        changed = true;
        return op === 'and' ? this.and(keep) : this.or(keep);
      });
      if (changed) return build('context', [...siblings, inner === 'or' ? this.or(parts) : this.and(parts)]);
    }
    return n;
  }

  /** Whether b holds at the first position where the literal a fails whenever F b holds: b = !a & e, e eventual. */
  protected firstViolation(a: Node, b: Node): boolean {
    if (a.op !== 'lit') return false;
    const not = this.lit(a.ap, !a.neg);
    if (b === not) return true;
    return b.op === 'and' && b.kids.includes(not) && b.kids.every((k) => k === not || this.eventual(k));
  }
}
