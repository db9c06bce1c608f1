/**
 * Subformulas equivalent to true or false (as Spot's simplifier drops such conjuncts, e.g.
 * the second conjunct of sb-patterns 13 and 14). A subformula is a candidate only when it takes
 * one truth value at every position of a fixed set of lasso words (every constant word, when
 * there are few propositions, and seeded random lassos); a candidate is replaced only once proved:
 * ψ ≡ true when the automaton of ¬ψ is empty, ψ ≡ false when the automaton of ψ is, the same proof
 * the last stage uses for a whole formula equivalent to true. Equivalence at position 0 of every
 * word is equivalence at every suffix, so the replacement is sound wherever ψ occurs.
 */
import { type Formula, FALSE, TRUE, formulaChildren, formulaDepth, formulaSize } from './ast.js';
import { LtlBudgetError } from './errors.js';
import { DEFAULT_MAX_NESTING } from './parser.js';
import { type Letter, type Lasso, truthVectors } from './lasso.js';
import { createRng } from '../random/rng.js';

/** Largest formula (nodes of its syntax tree) whose subformulas are checked. */
const CONSTANT_MAX_NODES = 200;
/** Most propositions for which every constant word is a test word (2^8 of them). */
const CONSTANT_MAX_APS = 8;
/** Most proofs (translations) per formula. */
const CONSTANT_MAX_PROOFS = 6;
/** Seeded random lassos the candidates must agree on, besides the constant words. */
const RANDOM_WORDS = 32;
const SEED = 0x22_1b;

function letter(aps: readonly string[], bits: number): Letter {
  return new Set(aps.filter((_, i) => (bits >> i) & 1));
}

/**
 * The test words: seeded lassos, then every constant word (up to CONSTANT_MAX_APS propositions),
 * made as they are read. A verdict is over all of them, so their order only decides how soon the
 * lassos, which tell most subformulas apart, leave no candidate and the rest need not be made.
 */
export function* testWords(aps: readonly string[]): Generator<Lasso> {
  const rng = createRng(SEED);
  const rnd = (): number => rng.next();
  const some = (): Letter => new Set(aps.filter(() => rnd() < 0.5));
  for (let i = 0; i < RANDOM_WORDS; i++) {
    const prefix = Array.from({ length: Math.floor(rnd() * 4) }, some);
    const cycle = Array.from({ length: 1 + Math.floor(rnd() * 4) }, some);
    yield { prefix, cycle };
  }
  if (aps.length <= CONSTANT_MAX_APS) {
    for (let x = 0; x < 1 << aps.length; x++) yield { prefix: [], cycle: [letter(aps, x)] };
  }
}

function isTemporal(f: Formula): boolean {
  switch (f.kind) {
    case 'true':
    case 'false':
    case 'ap':
      return false;
    case 'F':
    case 'G':
    case 'X':
    case 'U':
    case 'R':
    case 'W':
    case 'M':
      return true;
    default:
      return formulaChildren(f).some(isTemporal);
  }
}

/**
 * The formula with its proved-constant subformulas (the root excepted: the last stage handles a
 * whole formula) replaced by true or false, outermost first; the same object when none is.
 * `empty(g)` is true only when g's language is proved empty (null or false: not proved).
 */
export function replaceConstantSubformulas(
  formula: Formula,
  aps: readonly string[],
  empty: (g: Formula) => boolean | null,
): Formula {
  if (formulaSize(formula, CONSTANT_MAX_NODES) > CONSTANT_MAX_NODES) return formula;
  // The candidates: temporal subformulas below the root (the only ones `visit` tries).
  const open = new Set<Formula>();
  const collect = (g: Formula): void => {
    for (const c of formulaChildren(g)) {
      if (open.has(c) || !isTemporal(c)) continue;
      open.add(c);
      collect(c);
    }
  };
  collect(formula);
  if (open.size === 0) return formula;
  if (formulaDepth(formula) > DEFAULT_MAX_NESTING)
    throw new LtlBudgetError('depth', DEFAULT_MAX_NESTING, `formula nests deeper than ${DEFAULT_MAX_NESTING} levels`);
  // per subformula: 1 true everywhere so far, 2 false everywhere so far, 0 neither; once every
  // candidate is 0, no word can change the outcome
  const verdict = new Map<Formula, number>();
  for (const w of testWords(aps)) {
    for (const [g, v] of truthVectors(formula, w, Infinity)) {
      const seen = verdict.get(g);
      if (seen === 0) continue;
      const now = v.every((x) => x) ? 1 : v.every((x) => !x) ? 2 : 0;
      const next = seen === undefined || seen === now ? now : 0;
      verdict.set(g, next);
      if (next === 0) open.delete(g);
    }
    if (open.size === 0) return formula;
  }
  const replaced = new Map<Formula, Formula>();
  const tried = new Set<Formula>();
  let proofs = 0;
  const visit = (g: Formula, root: boolean): void => {
    if (!root && !tried.has(g) && proofs < CONSTANT_MAX_PROOFS && isTemporal(g)) {
      const v = verdict.get(g);
      tried.add(g);
      if (v === 1 || v === 2) {
        proofs++;
        if (empty(v === 1 ? { kind: 'not', arg: g } : g) === true) {
          replaced.set(g, v === 1 ? TRUE : FALSE);
          return;
        }
      }
    }
    for (const c of formulaChildren(g)) visit(c, false);
  };
  visit(formula, true);
  if (replaced.size === 0) return formula;
  const rebuild = (g: Formula): Formula => {
    const r = replaced.get(g);
    if (r !== undefined) return r;
    switch (g.kind) {
      case 'true':
      case 'false':
      case 'ap':
        return g;
      case 'not':
      case 'F':
      case 'G':
      case 'X':
        return { kind: g.kind, arg: rebuild(g.arg) };
      case 'and':
      case 'or':
        return { kind: g.kind, args: g.args.map(rebuild) };
      default:
        return { kind: g.kind, left: rebuild(g.left), right: rebuild(g.right) };
    }
  };
  return rebuild(formula);
}
