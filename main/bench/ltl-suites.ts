/** The formula suites the LTL benchmark measures (pure; deterministic from the seed). */
import { parseLtl } from '../core/ltl/parser.js';
import { generateTask, type Difficulty } from '../core/ltl/templates.js';
import { CASE_STUDIES } from '../core/ltl/case-studies.js';
import { createRng } from '../core/random/rng.js';
import type { Formula } from '../core/ltl/ast.js';

export interface BenchFormula {
  readonly suite: string;
  readonly id: string;
  readonly formula: Formula;
}

export function paperSuite(difficulty: Difficulty, count: number, seed: number): BenchFormula[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) => ({
    suite: difficulty,
    id: `${difficulty}-${i}`,
    formula: generateTask(rng, difficulty).formula,
  }));
}

export function familySuite(name: 'GF' | 'F', from: number, to: number): BenchFormula[] {
  const out: BenchFormula[] = [];
  for (let n = from; n <= to; n++) {
    const text = Array.from({ length: n }, (_, i) => (name === 'GF' ? `G F p${i}` : `F p${i}`)).join(' & ');
    out.push({ suite: `${name}-n`, id: `${name}-${n}`, formula: parseLtl(text) });
  }
  return out;
}

export function caseStudySuite(): BenchFormula[] {
  return CASE_STUDIES.map((c) => ({ suite: 'case studies', id: c.id, formula: parseLtl(c.formula) }));
}
