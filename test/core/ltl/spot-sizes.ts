/**
 * Our automaton sizes on Spot's pattern families (spot-patterns.ts) against `ltl2tgba -B`, per
 * family and negation: formulas, states summed (ours and Spot's), and how many of ours are larger,
 * equal or smaller. Run it to print the tables of docs/BENCHMARKS.md:
 *
 *   node dist/test/core/ltl/spot-sizes.js            (markdown tables, then the formulas still larger)
 *   node dist/test/core/ltl/spot-sizes.js --guard    (the regression table spot-guard.ts, as TypeScript)
 */
import { pathToFileURL } from 'node:url';
import { translateFormula, type Translation } from '../../../main/core/ltl/translate.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { LtlBudgetError } from '../../../main/core/ltl/errors.js';
import { SPOT_FAMILIES, SPOT_PATTERNS, SPOT_VERSION, type SpotPattern, patternName } from './spot-patterns.js';

export interface PatternSize {
  readonly pattern: SpotPattern;
  readonly name: string;
  /** Our state count, or the budget that ran out. */
  readonly states: number | string;
  readonly ms: number;
  readonly translation?: Translation;
}

export function translatePattern(p: SpotPattern): Translation {
  return translateFormula(parseLtl(p.formula, { allowNext: true }));
}

export function measurePatterns(patterns: readonly SpotPattern[] = SPOT_PATTERNS): PatternSize[] {
  return patterns.map((pattern) => {
    const t0 = performance.now();
    try {
      const translation = translatePattern(pattern);
      return { pattern, name: patternName(pattern), states: translation.automaton.states.length, ms: performance.now() - t0, translation };
    } catch (e) {
      if (!(e instanceof LtlBudgetError)) throw e;
      return { pattern, name: patternName(pattern), states: `budget: ${e.budget}`, ms: performance.now() - t0 };
    }
  });
}

export interface FamilySummary {
  readonly label: string;
  readonly formulas: number;
  readonly ours: number;
  readonly spot: number;
  readonly larger: number;
  readonly equal: number;
  readonly smaller: number;
  /** Formulas our translator did not finish (counted in none of the sums). */
  readonly failed: number;
}

export function summarize(label: string, sizes: readonly PatternSize[]): FamilySummary {
  let ours = 0, spot = 0, larger = 0, equal = 0, smaller = 0, failed = 0;
  for (const s of sizes) {
    if (typeof s.states !== 'number') {
      failed++;
      continue;
    }
    ours += s.states;
    spot += s.pattern.spotB.states;
    if (s.states > s.pattern.spotB.states) larger++;
    else if (s.states === s.pattern.spotB.states) equal++;
    else smaller++;
  }
  return { label, formulas: sizes.length, ours, spot, larger, equal, smaller, failed };
}

/** One row per family, then per negated family, then all. */
export function summaries(sizes: readonly PatternSize[]): FamilySummary[] {
  const rows: FamilySummary[] = [];
  for (const negated of [false, true]) {
    for (const f of SPOT_FAMILIES) {
      rows.push(summarize(`${negated ? '!' : ''}${f}`, sizes.filter((s) => s.pattern.family === f && s.pattern.negated === negated)));
    }
  }
  rows.push(summarize('all', sizes));
  return rows;
}

export function markdown(sizes: readonly PatternSize[]): string {
  const lines = [
    `| family | formulas | our states | Spot ${SPOT_VERSION} \`-B\` states | ratio | larger | equal | smaller |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of summaries(sizes)) {
    const failed = r.failed > 0 ? ` (${r.failed} not finished)` : '';
    lines.push(`| ${r.label} | ${r.formulas}${failed} | ${r.ours} | ${r.spot} | ${(r.ours / r.spot).toFixed(2)}× | ${r.larger} | ${r.equal} | ${r.smaller} |`);
  }
  return lines.join('\n');
}

function main(args: readonly string[]): void {
  const sizes = measurePatterns();
  if (args.includes('--guard')) {
    const entries = sizes.map((s) => `  '${s.name}': ${typeof s.states === 'number' ? s.states : 'null'},`);
    console.log(`/** Our state counts on spot-patterns.ts, printed by \`node dist/test/core/ltl/spot-sizes.js --guard\`: a regression guard (no formula may grow). */
export const OUR_STATES: Readonly<Record<string, number | null>> = {
${entries.join('\n')}
};`);
    return;
  }
  console.log(markdown(sizes));
  console.log('\nLarger than Spot (ours / Spot):');
  for (const s of sizes) {
    if (typeof s.states !== 'number' || s.states > s.pattern.spotB.states) {
      console.log(`  ${s.name}: ${s.states} / ${s.pattern.spotB.states}   ${s.pattern.formula}`);
    }
  }
  const times = sizes.map((s) => s.ms).sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  console.log(`\ntranslation time: total ${total.toFixed(0)} ms, p50 ${times[times.length >> 1]!.toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms (one cold pass)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
