import type { Formula } from './ast.js';

/** Binding strength: higher binds tighter (Witness's own precedence, as the parser reads it). */
const LEVEL = {
  iff: 1,
  implies: 2,
  or: 3,
  xor: 4,
  and: 5,
  U: 6,
  R: 6,
  W: 6,
  M: 6,
  not: 7,
  F: 7,
  G: 7,
  X: 7,
  atom: 8,
} as const;

export type PrintStyle = 'witness' | 'spin';

const IDENT = /^[a-z_][A-Za-z0-9_]*$/;
/**
 * Identifiers that are not propositions to Witness (true, false, xor) or to Spot, which also reads
 * true and false in any case (tRUE) and has first_match: printed quoted, so both read a proposition.
 */
const RESERVED = /^(?:true|false|xor|first_match)$/i;

function printProposition(name: string): string {
  if (IDENT.test(name) && !RESERVED.test(name)) return name;
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Prints a formula with as few parentheses as both readers allow; `parseLtl(printLtl(f))` gives back `f`.
 * The witness style is read the same way by Spot: Witness binds `->` tighter than `<->` and reads
 * `<->` chains from the left, Spot gives both one level and reads them from the right, so an
 * `->` or `<->` operand of `<->`, and an `<->` or left `->` operand of `->`, is always parenthesised
 * (`a -> b -> c` means `a -> (b -> c)` to both). The other levels agree: | below ^ (xor, from the
 * left) below &, then U R W M (one level, from the right), then the unary operators.
 * The spin style uses `[] <> && || V` and expands W, M and xor, for tools such as ltl2ba.
 */
export function printLtl(f: Formula, style: PrintStyle = 'witness'): string {
  const spin = style === 'spin';
  const ops = spin
    ? { and: ' && ', or: ' || ', F: '<>', G: '[]', R: ' V ', xor: '' }
    : { and: ' & ', or: ' | ', F: 'F ', G: 'G ', R: ' R ', xor: ' ^ ' };
  const go = (g: Formula, min: number): string => {
    const wrap = (level: number, s: string): string => (level < min ? `(${s})` : s);
    switch (g.kind) {
      case 'true':
        return 'true';
      case 'false':
        return 'false';
      case 'ap':
        return printProposition(g.name);
      case 'not':
        return wrap(LEVEL.not, `!${go(g.arg, LEVEL.not)}`);
      case 'F':
        return wrap(LEVEL.F, `${ops.F}${go(g.arg, LEVEL.F)}`);
      case 'G':
        return wrap(LEVEL.G, `${ops.G}${go(g.arg, LEVEL.G)}`);
      case 'X':
        return wrap(LEVEL.X, `X ${go(g.arg, LEVEL.X)}`);
      case 'and':
        if (g.args.length === 0) return 'true';
        return wrap(LEVEL.and, g.args.map((a) => go(a, LEVEL.and + 1)).join(ops.and));
      case 'or':
        if (g.args.length === 0) return 'false';
        return wrap(LEVEL.or, g.args.map((a) => go(a, LEVEL.or + 1)).join(ops.or));
      case 'xor':
        if (spin) {
          // ltl2ba has no xor: a xor b = !(a <-> b)
          return go({ kind: 'not', arg: { kind: 'iff', left: g.left, right: g.right } }, min);
        }
        return wrap(LEVEL.xor, `${go(g.left, LEVEL.xor)}${ops.xor}${go(g.right, LEVEL.xor + 1)}`);
      case 'implies':
        // the right operand may be another -> (right-associative for both); never a bare <->
        return wrap(
          LEVEL.implies,
          `${go(g.left, LEVEL.implies + 1)} -> ${go(g.right, g.right.kind === 'implies' ? LEVEL.implies : LEVEL.implies + 1)}`,
        );
      case 'iff':
        return wrap(LEVEL.iff, `${go(g.left, LEVEL.implies + 1)} <-> ${go(g.right, LEVEL.implies + 1)}`);
      case 'W':
        if (spin) {
          // ltl2ba has no W: a W b = (a U b) || [] a
          return go(
            {
              kind: 'or',
              args: [
                { kind: 'U', left: g.left, right: g.right },
                { kind: 'G', arg: g.left },
              ],
            },
            min,
          );
        }
        return wrap(LEVEL.W, `${go(g.left, LEVEL.W + 1)} W ${go(g.right, LEVEL.W)}`);
      case 'M':
        if (spin) {
          // ltl2ba has no M: a M b = b U (a && b)
          return go({ kind: 'U', left: g.right, right: { kind: 'and', args: [g.left, g.right] } }, min);
        }
        return wrap(LEVEL.M, `${go(g.left, LEVEL.M + 1)} M ${go(g.right, LEVEL.M)}`);
      case 'U':
        return wrap(LEVEL.U, `${go(g.left, LEVEL.U + 1)} U ${go(g.right, LEVEL.U)}`);
      case 'R':
        return wrap(LEVEL.R, `${go(g.left, LEVEL.R + 1)}${ops.R}${go(g.right, LEVEL.R)}`);
    }
  };
  return go(f, 0);
}
