/**
 * Deciding u·v^ω ⊨ φ straight from LTL semantics, with no automaton in between: the test oracle
 * for the translator and the verdict on a finished rollout's label word.
 */
import { type Formula, formulaDepth } from './ast.js';
import { LtlBudgetError } from './errors.js';
import { DEFAULT_MAX_NESTING } from './parser.js';

/** A letter: the propositions that hold at one step. */
export type Letter = ReadonlySet<string>;

export interface Lasso {
  readonly prefix: readonly Letter[];
  /** Repeated forever; must not be empty. */
  readonly cycle: readonly Letter[];
}

/**
 * Positions 0..n-1 are prefix then cycle; the successor of the last position is the first cycle
 * position (so X is exact). Each subformula gets a truth vector; U and R are least and greatest fixpoints along
 * the lasso, found by sweeping backwards until nothing changes (at most two sweeps on the cycle).
 * A formula deeper than `maxNesting` operator levels is refused (LtlBudgetError 'depth').
 */
export function evaluateLasso(f: Formula, word: Lasso, maxNesting = DEFAULT_MAX_NESTING): boolean {
  return truthVectors(f, word, maxNesting).get(f)![0]!;
}

/**
 * Every subformula's truth at every position of the lasso (prefix then cycle), keyed by the
 * subformula object; what evaluateLasso reads position 0 of.
 */
export function truthVectors(
  f: Formula,
  word: Lasso,
  maxNesting = DEFAULT_MAX_NESTING,
): ReadonlyMap<Formula, readonly boolean[]> {
  if (word.cycle.length === 0) throw new RangeError('the cycle of a lasso word must not be empty');
  // ev recurses once per operator level (a caller that checked the depth passes Infinity)
  if (maxNesting !== Infinity && formulaDepth(f) > maxNesting)
    throw new LtlBudgetError('depth', maxNesting, `formula nests deeper than ${maxNesting} levels`);
  const letters = [...word.prefix, ...word.cycle];
  const n = letters.length;
  const loop = word.prefix.length;
  const succ = (i: number): number => (i + 1 < n ? i + 1 : loop);
  const memo = new Map<Formula, boolean[]>();

  const until = (a: boolean[], b: boolean[], least: boolean): boolean[] => untilVector(a, b, least, succ);

  const ev = (g: Formula): boolean[] => {
    const hit = memo.get(g);
    if (hit) return hit;
    let v: boolean[];
    switch (g.kind) {
      case 'true':
        v = new Array<boolean>(n).fill(true);
        break;
      case 'false':
        v = new Array<boolean>(n).fill(false);
        break;
      case 'ap':
        v = letters.map((l) => l.has(g.name));
        break;
      case 'not':
        v = ev(g.arg).map((x) => !x);
        break;
      case 'and': {
        const parts = g.args.map(ev);
        v = letters.map((_, i) => parts.every((p) => p[i]!));
        break;
      }
      case 'or': {
        const parts = g.args.map(ev);
        v = letters.map((_, i) => parts.some((p) => p[i]!));
        break;
      }
      case 'implies': {
        const a = ev(g.left),
          b = ev(g.right);
        v = a.map((x, i) => !x || b[i]!);
        break;
      }
      case 'iff': {
        const a = ev(g.left),
          b = ev(g.right);
        v = a.map((x, i) => x === b[i]!);
        break;
      }
      case 'F':
        v = until(new Array<boolean>(n).fill(true), ev(g.arg), true);
        break;
      case 'G': {
        // G a = false R a: a holds now and G a holds next, greatest fixpoint.
        const a = ev(g.arg);
        v = until(a, new Array<boolean>(n).fill(false), false);
        break;
      }
      case 'U':
        v = until(ev(g.left), ev(g.right), true);
        break;
      case 'W':
        v = until(ev(g.left), ev(g.right), false);
        break;
      case 'R': {
        // a R b = b W (a & b)
        const a = ev(g.left),
          b = ev(g.right);
        v = until(
          b,
          a.map((x, i) => x && b[i]!),
          false,
        );
        break;
      }
      case 'M': {
        // a M b = b U (a & b)
        const a = ev(g.left),
          b = ev(g.right);
        v = until(
          b,
          a.map((x, i) => x && b[i]!),
          true,
        );
        break;
      }
      case 'X': {
        // exact on a lasso: the successor of the last position is the first cycle position
        const a = ev(g.arg);
        v = a.map((_, i) => a[succ(i)]!);
        break;
      }
      case 'xor': {
        const a = ev(g.left),
          b = ev(g.right);
        v = a.map((x, i) => x !== b[i]!);
        break;
      }
    }
    memo.set(g, v);
    return v;
  };
  ev(f);
  return memo;
}

/**
 * The truth vector of a U b (`least`) or a W b (greatest) along the lasso, both solutions of
 * v = b | (a & X v), found by sweeping backwards until nothing changes.
 */
function untilVector(a: boolean[], b: boolean[], least: boolean, succ: (i: number) => number): boolean[] {
  const n = a.length;
  const v = new Array<boolean>(n).fill(!least);
  for (let changed = true; changed;) {
    changed = false;
    for (let i = n - 1; i >= 0; i--) {
      const x = b[i]! || (a[i]! && v[succ(i)]!);
      if (x !== v[i]) {
        v[i] = x;
        changed = true;
      }
    }
  }
  return v;
}
