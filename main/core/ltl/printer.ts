import type { Formula } from './ast.js';

/** Binding strength: higher binds tighter. */
const LEVEL = { iff: 1, implies: 2, or: 3, and: 4, U: 5, R: 5, W: 5, not: 6, F: 6, G: 6, atom: 7 } as const;

export type PrintStyle = 'witness' | 'spin';

const IDENT = /^[a-z_][A-Za-z0-9_]*$/;

export function printProposition(name: string): string {
  if (IDENT.test(name) && name !== 'true' && name !== 'false') return name;
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Prints a formula with as few parentheses as the grammar allows; `parseLtl(printLtl(f))` gives back `f`.
 * The spin style uses `[] <> && || V` and expands W, for tools such as ltl2ba.
 */
export function printLtl(f: Formula, style: PrintStyle = 'witness'): string {
  const spin = style === 'spin';
  const ops = spin
    ? { and: ' && ', or: ' || ', F: '<>', G: '[]', R: ' V ' }
    : { and: ' & ', or: ' | ', F: 'F ', G: 'G ', R: ' R ' };
  const go = (g: Formula, min: number): string => {
    const wrap = (level: number, s: string): string => (level < min ? `(${s})` : s);
    switch (g.kind) {
      case 'true': return 'true';
      case 'false': return 'false';
      case 'ap': return printProposition(g.name);
      case 'not': return wrap(LEVEL.not, `!${go(g.arg, LEVEL.not)}`);
      case 'F': return wrap(LEVEL.F, `${ops.F}${go(g.arg, LEVEL.F)}`);
      case 'G': return wrap(LEVEL.G, `${ops.G}${go(g.arg, LEVEL.G)}`);
      case 'and':
        if (g.args.length === 0) return 'true';
        return wrap(LEVEL.and, g.args.map((a) => go(a, LEVEL.and + 1)).join(ops.and));
      case 'or':
        if (g.args.length === 0) return 'false';
        return wrap(LEVEL.or, g.args.map((a) => go(a, LEVEL.or + 1)).join(ops.or));
      case 'implies':
        return wrap(LEVEL.implies, `${go(g.left, LEVEL.implies + 1)} -> ${go(g.right, LEVEL.implies)}`);
      case 'iff':
        return wrap(LEVEL.iff, `${go(g.left, LEVEL.iff)} <-> ${go(g.right, LEVEL.iff + 1)}`);
      case 'W':
        if (spin) {
          // ltl2ba has no W: a W b = (a U b) || [] a
          return go({ kind: 'or', args: [{ kind: 'U', left: g.left, right: g.right }, { kind: 'G', arg: g.left }] }, min);
        }
        return wrap(LEVEL.W, `${go(g.left, LEVEL.W + 1)} W ${go(g.right, LEVEL.W)}`);
      case 'U':
        return wrap(LEVEL.U, `${go(g.left, LEVEL.U + 1)} U ${go(g.right, LEVEL.U)}`);
      case 'R':
        return wrap(LEVEL.R, `${go(g.left, LEVEL.R + 1)}${ops.R}${go(g.right, LEVEL.R)}`);
    }
  };
  return go(f, 0);
}
