/**
 * Implication proved by automata (as Spot's containment checks prove it). The rewrites of nnf.ts and
 * rewrite-more.ts drop a conjunct that a sibling implies, a disjunct that implies a sibling, and so
 * on, but their `implies` is syntactic: it cannot see that F G !p1 R !p1 implies F G !p1 (if F G !p1
 * fails, it fails everywhere and the release is G !p1, which makes it hold), so in rand-nx 158,
 * F ((p0 M G p1) <-> (p1 M ! F ! G F p1)), the rewrites alone leave a larger automaton than Spot's.
 *
 * This factory answers `implies` as the rewrites do, and where they say no, tries a proof: a ⇒ b
 * holds at every position of every word iff a ∧ ¬b has an empty automaton. A pair is first tried on
 * the fixed test words of constant.ts (seeded lassos and every constant word): one position where
 * a holds and b does not refutes it for free, and most pairs end there. Proofs are translations,
 * so a formula gets at most CONTAINMENT_MAX_PROOFS of them; a proof that runs past its budget
 * counts as "no" (we only simplify less).
 *
 * With proved implication come Spot's rules for the temporal operators (each checked against the
 * lasso evaluator in containment.property.test.ts):
 *   a U b = b       when a ⇒ b         a R b = b       when b ⇒ a
 *   a U b = F b     when ¬a ⇒ b        a R b = G b     when b ⇒ ¬a
 * (the first two because b at the first position already decides; the last two because at the
 * first position where b holds (fails), a cannot have failed (held) before).
 */
import type { Formula } from './ast.js';
import type { Budget } from './budget.js';
import type { Node } from './nnf.js';
import { RewriteMoreFactory } from './rewrite-more.js';
import { testWords } from './constant.js';

/** Most proofs (translations of a ∧ ¬b) per formula. */
const CONTAINMENT_MAX_PROOFS = 12;

/** One test word over proposition indices: a bit mask per position, and where the cycle starts. */
interface WordBits {
  readonly masks: readonly number[];
  readonly loop: number;
}

/** What the factory needs from the translator: a node as a formula, and a proof that a formula's language is empty. */
export interface ContainmentProver {
  readonly toFormula: (n: Node) => Formula | null;
  /** true only when proved empty; false or null (not proved, or past the proof's budget) otherwise. */
  readonly empty: (f: Formula) => boolean | null;
}

export class ContainmentFactory extends RewriteMoreFactory {
  /** Proofs tried (translations), and how many of them proved an implication. */
  proofs = 0;
  proved = 0;
  private readonly words: WordBits[];
  /** Per node id, its truth vector on each test word. */
  private readonly vectors = new Map<number, Uint8Array[]>();
  /** Per signed pair, whether a ∧ b (each possibly negated) was proved empty. */
  private readonly emptyPairs = new Map<string, boolean>();

  constructor(
    aps: readonly string[],
    private readonly prover: ContainmentProver,
    budget?: Budget,
    private readonly maxProofs = CONTAINMENT_MAX_PROOFS,
  ) {
    super(true, budget);
    const index = new Map(aps.map((a, i) => [a, i] as const));
    this.words = [...testWords(aps)].map((w) => ({
      masks: [...w.prefix, ...w.cycle].map((letter) => {
        let m = 0;
        for (const p of letter) m |= 1 << index.get(p)!;
        return m;
      }),
      loop: w.prefix.length,
    }));
  }

  override implies(a: Node, b: Node): boolean {
    return super.implies(a, b) || this.provedEmpty(a, false, b, true);
  }

  /**
   * Conjuncts a sibling implies (disjuncts that imply a sibling) go before the junction's own
   * rewrites run: those merge F a | F b into F (a | b) first, after which F G a | G F b, where
   * F G a ⇒ G F b, no longer meet as siblings (pps-arbiter-strict=1).
   */
  override and(parts: readonly Node[]): Node {
    return super.and(this.absorbed('and', parts));
  }

  override or(parts: readonly Node[]): Node {
    return super.or(this.absorbed('or', parts));
  }

  private absorbed(op: 'and' | 'or', parts: readonly Node[]): readonly Node[] {
    const kids = this.junctionKids(op, parts);
    if (kids === null || kids.length < 2) return parts;
    // k goes when a sibling j makes it redundant; of two equivalent ones, the later (larger id) stays
    const redundant = (k: Node, j: Node): boolean => (op === 'and' ? this.implies(j, k) : this.implies(k, j));
    const kept = kids.filter((k) => !kids.some((j) => j !== k && redundant(k, j) && !(j.id > k.id && redundant(j, k))));
    // F (a | b) = F a | F b and G (a & b) = G a & G b: a part of one that a sibling makes redundant goes too
    let changed = kept.length < kids.length;
    const spread = kept.map((k) => {
      const inner = op === 'or' ? (this.isF(k) ? k.kids[1]! : null) : this.isG(k) ? k.kids[1]! : null;
      if (inner === null || inner.op !== op) return k;
      const wrap = (d: Node): Node => (op === 'or' ? this.U(this.tt, d) : this.R(this.ff, d));
      const siblings = kept.filter((j) => j !== k);
      const rest = inner.kids.filter((d) => !siblings.some((j) => redundant(wrap(d), j)));
      if (rest.length === inner.kids.length) return k;
      changed = true;
      return wrap(op === 'or' ? this.or(rest) : this.and(rest));
    });
    return changed ? spread : parts;
  }

  override U(l: Node, r: Node): Node {
    if (l !== this.tt && l !== this.ff && r !== this.tt && r !== this.ff && l !== r) {
      if (this.provedEmpty(l, false, r, true)) return r; // a ⇒ b: a U b = b
      if (this.provedEmpty(l, true, r, true)) return super.U(this.tt, r); // ¬a ⇒ b: a U b = F b
    }
    return super.U(l, r);
  }

  override R(l: Node, r: Node): Node {
    if (l !== this.tt && l !== this.ff && r !== this.tt && r !== this.ff && l !== r) {
      if (this.provedEmpty(r, false, l, true)) return r; // b ⇒ a: a R b = b
      if (this.provedEmpty(r, false, l, false)) return super.R(this.ff, r); // b ⇒ ¬a: a R b = G b
    }
    return super.R(l, r);
  }

  /**
   * Whether (a, negated when na) ∧ (b, negated when nb) has an empty language, proved; false when
   * a test word refutes it, when no proof is left, or when the proof does not finish (protected
   * so that a test can break it).
   */
  protected provedEmpty(a: Node, na: boolean, b: Node, nb: boolean): boolean {
    const key = `${a.id}${na ? '!' : ''},${b.id}${nb ? '!' : ''}`;
    const known = this.emptyPairs.get(key);
    if (known !== undefined) return known;
    const va = this.vector(a);
    const vb = this.vector(b);
    const flipA = na ? 1 : 0;
    const flipB = nb ? 1 : 0;
    for (let w = 0; w < va.length; w++) {
      const x = va[w]!,
        y = vb[w]!;
      for (let i = 0; i < x.length; i++) {
        if ((x[i]! ^ flipA) & (y[i]! ^ flipB)) {
          this.emptyPairs.set(key, false);
          return false;
        }
      }
    }
    if (this.proofs >= this.maxProofs) return false; // not remembered: a later formula may have proofs left
    const fa = this.prover.toFormula(a);
    const fb = this.prover.toFormula(b);
    let res = false;
    if (fa !== null && fb !== null) {
      this.proofs++;
      const part = (f: Formula, neg: boolean): Formula => (neg ? { kind: 'not', arg: f } : f);
      res = this.prover.empty({ kind: 'and', args: [part(fa, na), part(fb, nb)] }) === true;
      if (res) {
        this.proved++;
        this.fired++;
      }
    }
    this.emptyPairs.set(key, res);
    return res;
  }

  /** The node's truth at every position of every test word (memoized by node). */
  private vector(n: Node): Uint8Array[] {
    const hit = this.vectors.get(n.id);
    if (hit !== undefined) return hit;
    const kids = n.kids.map((k) => this.vector(k));
    const v = this.words.map((w, wi) =>
      evaluate(
        n,
        w,
        kids.map((k) => k[wi]!),
      ),
    );
    this.vectors.set(n.id, v);
    return v;
  }
}

/**
 * One node's truth vector on one word, from its operands' vectors: U and R as least and greatest fixpoints swept
 * backwards.
 */
function evaluate(n: Node, w: WordBits, kids: readonly Uint8Array[]): Uint8Array {
  const len = w.masks.length;
  const v = new Uint8Array(len);
  const succ = (i: number): number => (i + 1 < len ? i + 1 : w.loop);
  switch (n.op) {
    case 'tt':
      v.fill(1);
      break;
    case 'ff':
      break;
    case 'lit':
      for (let i = 0; i < len; i++) v[i] = ((w.masks[i]! >> n.ap) & 1) ^ (n.neg ? 1 : 0);
      break;
    case 'and':
      v.fill(1);
      for (const k of kids) for (let i = 0; i < len; i++) v[i]! &= k[i]!;
      break;
    case 'or':
      for (const k of kids) for (let i = 0; i < len; i++) v[i]! |= k[i]!;
      break;
    case 'X':
      for (let i = 0; i < len; i++) v[i] = kids[0]![succ(i)]!;
      break;
    case 'U':
    case 'R': {
      const [l, r] = kids as [Uint8Array, Uint8Array];
      const until = n.op === 'U';
      if (!until) v.fill(1);
      for (let changed = true; changed;) {
        changed = false;
        for (let i = len - 1; i >= 0; i--) {
          const x = until ? r[i]! | (l[i]! & v[succ(i)]!) : r[i]! & (l[i]! | v[succ(i)]!);
          if (x !== v[i]) {
            v[i] = x;
            changed = true;
          }
        }
      }
      break;
    }
  }
  return v;
}
