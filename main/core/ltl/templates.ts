/**
 * The SAGAS task templates (Table E.1) and difficulty groups (Table E.2), as formulas over
 * region propositions e0, e1, …. Deterministic from a seed.
 */
import { type Formula, F, G, U, and, ap, not, or } from './ast.js';
import type { Rng } from '../random/rng.js';

export type TemplateName =
  | 'reach'
  | 'safety'
  | 'sequence'
  | 'coverage'
  | 'conditional'
  | 'patrol'
  | 'choice'
  | 'persistence'
  | 'sequence-to-persist'
  | 'strict-order'
  | 'last-visit';

export const TEMPLATE_NAMES: readonly TemplateName[] = [
  'reach',
  'safety',
  'sequence',
  'coverage',
  'conditional',
  'patrol',
  'choice',
  'persistence',
  'sequence-to-persist',
  'strict-order',
  'last-visit',
];

/** How many regions a template takes: [fewest, most]. */
const ARITY: Record<TemplateName, [number, number]> = {
  reach: [1, 1],
  safety: [1, 1],
  sequence: [2, 4],
  coverage: [2, 4],
  conditional: [2, 2],
  patrol: [2, 4],
  choice: [2, 4],
  persistence: [1, 1],
  'sequence-to-persist': [3, 3],
  'strict-order': [2, 4],
  'last-visit': [2, 4],
};

export function templateArity(name: TemplateName): [number, number] {
  return ARITY[name];
}

/** Nested eventual sequence F(l1 & F(l2 & … F lm)), with `last` as the innermost obligation. */
function nest(ls: Formula[], last: (l: Formula) => Formula = F): Formula {
  let acc = last(ls[ls.length - 1]!);
  for (let i = ls.length - 2; i >= 0; i--) acc = F(and(ls[i]!, acc));
  return acc;
}

/** Instantiates a template with the given region names (arity as templateArity says). */
export function instantiate(name: TemplateName, regions: readonly string[]): Formula {
  const [lo, hi] = ARITY[name];
  if (regions.length < lo || regions.length > hi) {
    throw new RangeError(`template ${name} takes ${lo}..${hi} regions, got ${regions.length}`);
  }
  const l = regions.map(ap);
  switch (name) {
    case 'reach':
      return F(l[0]!);
    case 'safety':
      return G(not(l[0]!));
    case 'sequence':
      return nest(l);
    case 'coverage':
      return and(...l.map(F));
    case 'conditional':
      return U(not(l[0]!), l[1]!);
    case 'patrol':
      return G(nest(l));
    case 'choice':
      return F(or(...l));
    case 'persistence':
      return F(G(l[0]!));
    case 'sequence-to-persist':
      return nest(l, (x) => F(G(x)));
    case 'strict-order':
      return and(...l.map(F), ...l.slice(1).map((li, i) => U(not(li), l[i]!)));
    case 'last-visit':
      return and(...l.map(F), ...l.slice(1).map((lj) => U(not(l[0]!), lj)));
  }
}

export type Difficulty = 'easy' | 'medium' | 'hard';

/** Table E.2: templates conjoined and regions available. */
export const DIFFICULTY: Record<Difficulty, { templates: [number, number]; regions: number }> = {
  easy: { templates: [1, 1], regions: 5 },
  medium: { templates: [2, 3], regions: 5 },
  hard: { templates: [2, 4], regions: 8 },
};

export interface GeneratedTask {
  readonly difficulty: Difficulty;
  readonly templates: readonly { readonly name: TemplateName; readonly regions: readonly string[] }[];
  readonly formula: Formula;
}

/** One random task of the given difficulty; regions are named e0 … e{n-1}. */
export function generateTask(rng: Rng, difficulty: Difficulty): GeneratedTask {
  const { templates, regions } = DIFFICULTY[difficulty];
  const pool = Array.from({ length: regions }, (_, i) => `e${i}`);
  const count = rng.int(templates[0], templates[1]);
  const parts: { name: TemplateName; regions: string[] }[] = [];
  for (let k = 0; k < count; k++) {
    const name = rng.pick(TEMPLATE_NAMES);
    const [lo, hi] = ARITY[name];
    const m = rng.int(lo, Math.min(hi, regions));
    parts.push({ name, regions: rng.sample(pool, m) });
  }
  const formula = and(...parts.map((p) => instantiate(p.name, p.regions)));
  return { difficulty, templates: parts, formula };
}
