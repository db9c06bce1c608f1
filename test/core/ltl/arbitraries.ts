/** fast-check generators for formulas and lasso words, shared by the LTL property tests. */
import fc from 'fast-check';
import type { Formula } from '../../../main/core/ltl/ast.js';
import type { Lasso } from '../../../main/core/ltl/lasso.js';

const PROPS = ['a', 'b', 'c'] as const;

/**
 * Random LTL formulas over `props`, every operator represented, depth-bounded. Without `full`, the
 * next-free operators the property tests have always drawn (the same formulas for the same seed);
 * with it, Spot's whole syntax: X, M and xor as well.
 */
export function formulaArb(props: readonly string[] = PROPS, depth = 4, full = false): fc.Arbitrary<Formula> {
  const unary = full ? (['not', 'F', 'G', 'X'] as const) : (['not', 'F', 'G'] as const);
  const binary = full
    ? (['U', 'R', 'W', 'M', 'implies', 'iff', 'xor'] as const)
    : (['U', 'R', 'W', 'implies', 'iff'] as const);
  const { f } = fc.letrec<{ f: Formula }>((tie) => ({
    f: fc.oneof(
      { depthSize: 'small', withCrossShrink: true, maxDepth: depth },
      fc.constantFrom(...props).map((name): Formula => ({ kind: 'ap', name })),
      fc.constantFrom<Formula>({ kind: 'true' }, { kind: 'false' }),
      fc.tuple(fc.constantFrom(...unary), tie('f')).map(([kind, arg]): Formula => ({ kind, arg })),
      fc
        .tuple(fc.constantFrom('and' as const, 'or' as const), fc.array(tie('f'), { minLength: 2, maxLength: 3 }))
        .map(([kind, args]): Formula => ({ kind, args })),
      fc
        .tuple(fc.constantFrom(...binary), tie('f'), tie('f'))
        .map(([kind, left, right]): Formula => ({ kind, left, right })),
    ),
  }));
  return f;
}

/** A proposition or its negation. */
function literalArb(props: readonly string[]): fc.Arbitrary<Formula> {
  return fc
    .tuple(fc.constantFrom(...props), fc.boolean())
    .map(([name, neg]): Formula => (neg ? { kind: 'not', arg: { kind: 'ap', name } } : { kind: 'ap', name }));
}

/** Temporal shapes with the next operator: X chains and X under G, F and U, as Dwyer's patterns write them. */
export function nextArb(props: readonly string[] = PROPS): fc.Arbitrary<Formula> {
  const lit = literalArb(props);
  const { f } = fc.letrec<{ f: Formula }>((tie) => ({
    f: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      lit,
      tie('f').map((x): Formula => ({ kind: 'X', arg: x })),
      tie('f').map((x): Formula => ({ kind: 'X', arg: { kind: 'X', arg: x } })),
      tie('f').map((x): Formula => ({ kind: 'F', arg: x })),
      tie('f').map((x): Formula => ({ kind: 'G', arg: x })),
      tie('f').map((x): Formula => ({ kind: 'G', arg: { kind: 'F', arg: { kind: 'X', arg: x } } })),
      fc
        .tuple(tie('f'), tie('f'))
        .map(([l, r]): Formula => ({ kind: 'G', arg: { kind: 'implies', left: l, right: { kind: 'X', arg: r } } })),
      fc.tuple(tie('f'), tie('f')).map(([l, r]): Formula => ({ kind: 'U', left: l, right: r })),
      fc.tuple(tie('f'), tie('f')).map(([l, r]): Formula => ({ kind: 'M', left: l, right: r })),
      fc.array(tie('f'), { minLength: 2, maxLength: 3 }).map((args): Formula => ({ kind: 'and', args })),
      fc.array(tie('f'), { minLength: 2, maxLength: 3 }).map((args): Formula => ({ kind: 'or', args })),
    ),
  }));
  return f;
}

/** Temporal-heavy shapes: nestings of F, G, U over literals, as specifications are written. */
export function temporalArb(props: readonly string[] = PROPS): fc.Arbitrary<Formula> {
  const lit = literalArb(props);
  const { f } = fc.letrec<{ f: Formula }>((tie) => ({
    f: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      lit,
      tie('f').map((x): Formula => ({ kind: 'F', arg: x })),
      tie('f').map((x): Formula => ({ kind: 'G', arg: x })),
      tie('f').map((x): Formula => ({ kind: 'G', arg: { kind: 'F', arg: x } })),
      tie('f').map((x): Formula => ({ kind: 'F', arg: { kind: 'G', arg: x } })),
      fc.tuple(tie('f'), tie('f')).map(([l, r]): Formula => ({ kind: 'U', left: l, right: r })),
      fc.array(tie('f'), { minLength: 2, maxLength: 4 }).map((args): Formula => ({ kind: 'and', args })),
      fc.array(tie('f'), { minLength: 2, maxLength: 3 }).map((args): Formula => ({ kind: 'or', args })),
    ),
  }));
  return f;
}

/** Letters where any subset of props may hold. */
export function letterArb(props: readonly string[] = PROPS): fc.Arbitrary<ReadonlySet<string>> {
  return fc.subarray([...props]).map((xs) => new Set(xs));
}

/** Letters where at most one proposition holds (pairwise disjoint regions). */
export function disjointLetterArb(props: readonly string[] = PROPS): fc.Arbitrary<ReadonlySet<string>> {
  return fc.option(fc.constantFrom(...props), { nil: undefined }).map((p) => new Set(p === undefined ? [] : [p]));
}

export function lassoArb(letter: fc.Arbitrary<ReadonlySet<string>>, maxPrefix = 4, maxCycle = 4): fc.Arbitrary<Lasso> {
  return fc
    .tuple(fc.array(letter, { maxLength: maxPrefix }), fc.array(letter, { minLength: 1, maxLength: maxCycle }))
    .map(([prefix, cycle]) => ({ prefix, cycle }));
}

export function showLasso(w: Lasso): string {
  const l = (s: ReadonlySet<string>): string => `{${[...s].join(',')}}`;
  return `${w.prefix.map(l).join(' ')} (${w.cycle.map(l).join(' ')})^ω`;
}

/** Formula builders for tests that shape formulas by hand. */
export const G = (x: Formula): Formula => ({ kind: 'G', arg: x });
export const F = (x: Formula): Formula => ({ kind: 'F', arg: x });
export const X = (x: Formula): Formula => ({ kind: 'X', arg: x });
export const not = (x: Formula): Formula => ({ kind: 'not', arg: x });
export const and = (...args: Formula[]): Formula => ({ kind: 'and', args });
export const or = (...args: Formula[]): Formula => ({ kind: 'or', args });
export const R = (left: Formula, right: Formula): Formula => ({ kind: 'R', left, right });
export const U = (left: Formula, right: Formula): Formula => ({ kind: 'U', left, right });

/** A proposition of PROPS, negated or not. */
export const litArb: fc.Arbitrary<Formula> = fc
  .tuple(fc.constantFrom(...PROPS), fc.boolean())
  .map(([name, neg]): Formula => (neg ? { kind: 'not', arg: { kind: 'ap', name } } : { kind: 'ap', name }));
