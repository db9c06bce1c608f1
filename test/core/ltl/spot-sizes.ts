/**
 * Our automaton sizes on Spot's pattern families (spot-patterns.ts) against `ltl2tgba -B`, per
 * family and negation: formulas, states summed (ours and Spot's), and how many of ours are larger,
 * equal or smaller; then the same per parametric family (spot-families.ts), where Spot's `-B` figure
 * is published for a few rows only; then every formula, the random sets of spot-measured.ts
 * included, against the `ltl2tgba -B` sizes measured with a Spot build (spot-measured.ts). Run it
 * to print the tables of docs/BENCHMARKS.md:
 *
 *   node dist/test/core/ltl/spot-sizes.js            (markdown tables, then the formulas still larger)
 *   node dist/test/core/ltl/spot-sizes.js --guard    (the regression table spot-guard.ts, as TypeScript)
 */
import { pathToFileURL } from 'node:url';
import { translateFormula, type Translation } from '../../../main/core/ltl/translate.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { LtlBudgetError } from '../../../main/core/ltl/errors.js';
import { SPOT_FAMILIES, SPOT_PATTERNS, SPOT_VERSION, type SpotPattern, patternName } from './spot-patterns.js';
import { ALL_FAMILY_ROWS, SPOT_PARAMETRIC_FAMILIES, type FamilyRow, familyRowName } from './spot-families.js';
import {
  SPOT_MEASURED_STATES,
  SPOT_MEASURED_VERSION,
  SPOT_RANDOM_ROWS,
  type SpotRandomRow,
  randomRowName,
} from './spot-measured.js';

export interface PatternSize {
  readonly pattern: SpotPattern;
  readonly name: string;
  /** Our state count, or the budget that ran out. */
  readonly states: number | string;
  readonly ms: number;
  readonly translation?: Translation;
}

/** One formula translated (X allowed): its state count, or the budget that ran out, and the time taken. */
function measureFormula(formula: string): { states: number | string; ms: number; translation?: Translation } {
  const t0 = performance.now();
  try {
    const translation = translateFormula(parseLtl(formula, { allowNext: true }));
    return { states: translation.automaton.states.length, ms: performance.now() - t0, translation };
  } catch (e) {
    if (!(e instanceof LtlBudgetError)) throw e;
    return { states: `budget: ${e.budget}`, ms: performance.now() - t0 };
  }
}

export function measurePatterns(patterns: readonly SpotPattern[] = SPOT_PATTERNS): PatternSize[] {
  return patterns.map((pattern) => ({ pattern, name: patternName(pattern), ...measureFormula(pattern.formula) }));
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

/** Our sizes against Spot's, summed and compared row by row. */
function tally(
  label: string,
  rows: readonly { readonly states: number | string; readonly spot: number }[],
): FamilySummary {
  let ours = 0,
    spot = 0,
    larger = 0,
    equal = 0,
    smaller = 0,
    failed = 0;
  for (const s of rows) {
    if (typeof s.states !== 'number') {
      failed++;
      continue;
    }
    ours += s.states;
    spot += s.spot;
    if (s.states > s.spot) larger++;
    else if (s.states === s.spot) equal++;
    else smaller++;
  }
  return { label, formulas: rows.length, ours, spot, larger, equal, smaller, failed };
}

function summarize(label: string, sizes: readonly PatternSize[]): FamilySummary {
  return tally(
    label,
    sizes.map((s) => ({ states: s.states, spot: s.pattern.spotB.states })),
  );
}

/** One row per family, then per negated family, then all. */
export function summaries(sizes: readonly PatternSize[]): FamilySummary[] {
  const rows: FamilySummary[] = [];
  for (const negated of [false, true]) {
    for (const f of SPOT_FAMILIES) {
      rows.push(
        summarize(
          `${negated ? '!' : ''}${f}`,
          sizes.filter((s) => s.pattern.family === f && s.pattern.negated === negated),
        ),
      );
    }
  }
  rows.push(summarize('all', sizes));
  return rows;
}

function markdown(sizes: readonly PatternSize[]): string {
  const lines = [
    `| family | formulas | our states | Spot ${SPOT_VERSION} \`-B\` states | ratio | larger | equal | smaller |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of summaries(sizes)) {
    const failed = r.failed > 0 ? ` (${r.failed} not finished)` : '';
    lines.push(
      `| ${r.label} | ${r.formulas}${failed} | ${r.ours} | ${r.spot} | ${(r.ours / r.spot).toFixed(2)}× | ${r.larger} | ${r.equal} | ${r.smaller} |`,
    );
  }
  return lines.join('\n');
}

export interface FamilyRowSize {
  readonly row: FamilyRow;
  readonly name: string;
  /** Our state count, or the budget that ran out. */
  readonly states: number | string;
  readonly ms: number;
  readonly translation?: Translation;
}

export function measureFamilyRows(rows: readonly FamilyRow[] = ALL_FAMILY_ROWS): FamilyRowSize[] {
  return rows.map((row) => ({ row, name: familyRowName(row), ...measureFormula(row.formula) }));
}

export interface ParametricSummary {
  readonly label: string;
  /** genltl's parameters taken, as a range: `1..5`, `1..3,1..3`. */
  readonly params: string;
  readonly formulas: number;
  /** Our states summed over all the family's rows. */
  readonly ours: number;
  /** Rows with a published Spot `-B` figure, our states and Spot's summed over those, and the comparison there. */
  readonly withSpot: number;
  readonly oursWithSpot: number;
  readonly spot: number;
  readonly larger: number;
  readonly equal: number;
  readonly smaller: number;
  readonly failed: number;
}

function paramRange(rows: readonly FamilyRow[]): string {
  if (rows.length === 0) return '';
  const arity = rows[0]!.params.length;
  return Array.from({ length: arity }, (_, i) => {
    const xs = rows.map((r) => r.params[i]!);
    return `${Math.min(...xs)}..${Math.max(...xs)}`;
  }).join(',');
}

function summarizeFamilyRows(label: string, sizes: readonly FamilyRowSize[]): ParametricSummary {
  let ours = 0,
    withSpot = 0,
    oursWithSpot = 0,
    spot = 0,
    larger = 0,
    equal = 0,
    smaller = 0,
    failed = 0;
  for (const s of sizes) {
    if (typeof s.states !== 'number') {
      failed++;
      continue;
    }
    ours += s.states;
    if (s.row.spotB === null) continue;
    withSpot++;
    oursWithSpot += s.states;
    spot += s.row.spotB.states;
    if (s.states > s.row.spotB.states) larger++;
    else if (s.states === s.row.spotB.states) equal++;
    else smaller++;
  }
  return {
    label,
    params: paramRange(sizes.map((s) => s.row)),
    formulas: sizes.length,
    ours,
    withSpot,
    oursWithSpot,
    spot,
    larger,
    equal,
    smaller,
    failed,
  };
}

/** One row per parametric family, then all. */
export function familySummaries(sizes: readonly FamilyRowSize[]): ParametricSummary[] {
  const rows = SPOT_PARAMETRIC_FAMILIES.map((f) =>
    summarizeFamilyRows(
      f,
      sizes.filter((s) => s.row.family === f),
    ),
  );
  rows.push({ ...summarizeFamilyRows('all', sizes), params: '' });
  return rows;
}

function familyMarkdown(sizes: readonly FamilyRowSize[]): string {
  const lines = [
    `| family | parameters | formulas | our states | rows with a Spot ${SPOT_VERSION} \`-B\` figure | ours there | Spot's there | larger | equal | smaller |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of familySummaries(sizes)) {
    const failed = r.failed > 0 ? ` (${r.failed} not finished)` : '';
    const cmp =
      r.withSpot > 0 ? `${r.oursWithSpot} | ${r.spot} | ${r.larger} | ${r.equal} | ${r.smaller}` : '— | — | — | — | —';
    lines.push(`| ${r.label} | ${r.params} | ${r.formulas}${failed} | ${r.ours} | ${r.withSpot} | ${cmp} |`);
  }
  return lines.join('\n');
}

export interface RandomRowSize {
  readonly row: SpotRandomRow;
  readonly name: string;
  /** Our state count, or the budget that ran out. */
  readonly states: number | string;
  readonly ms: number;
}

export function measureRandomRows(rows: readonly SpotRandomRow[] = SPOT_RANDOM_ROWS): RandomRowSize[] {
  return rows.map((row) => {
    const { states, ms } = measureFormula(row.formula);
    return { row, name: randomRowName(row), states, ms };
  });
}

/** One formula's size, ours and Spot's as measured (spot-measured.ts). */
export interface MeasuredSize {
  readonly name: string;
  readonly formula: string;
  readonly states: number | string;
  readonly spot: number;
}

/** Every pattern, family row and random row with Spot's measured `-B` size. */
export function measuredSizes(
  patterns: readonly PatternSize[],
  families: readonly FamilyRowSize[],
  randoms: readonly RandomRowSize[],
): MeasuredSize[] {
  const spotOf = (name: string): number => {
    const n = SPOT_MEASURED_STATES[name];
    if (n === undefined) throw new Error(`${name} has no measured Spot size: re-run scripts/spot-compare.mjs --write`);
    return n;
  };
  return [
    ...patterns.map((s) => ({ name: s.name, formula: s.pattern.formula, states: s.states, spot: spotOf(s.name) })),
    ...families.map((s) => ({ name: s.name, formula: s.row.formula, states: s.states, spot: spotOf(s.name) })),
    ...randoms.map((s) => ({ name: s.name, formula: s.row.formula, states: s.states, spot: s.row.spotB })),
  ];
}

/** The rows larger than Spot's measured size (or not finished), by name. */
export function largerThanSpot(sizes: readonly MeasuredSize[]): string[] {
  return sizes.filter((s) => typeof s.states !== 'number' || s.states > s.spot).map((s) => s.name);
}

/** Patterns, families, rand-nx, rand-x and all, against Spot's measured sizes. */
export function measuredSummaries(sizes: readonly MeasuredSize[]): FamilySummary[] {
  const groups: [string, (s: MeasuredSize) => boolean][] = [
    ['patterns', (s) => s.name.includes('-patterns,')],
    ['parametric families', (s) => s.name.includes('=')],
    ['rand-nx (no X)', (s) => s.name.startsWith('rand-nx,')],
    ['rand-x (with X)', (s) => s.name.startsWith('rand-x,')],
    ['all', () => true],
  ];
  return groups.map(([label, keep]) => tally(label, sizes.filter(keep)));
}

/** `version`: the Spot that measured the sizes (the fixture's by default). */
function measuredMarkdown(sizes: readonly MeasuredSize[], version = SPOT_MEASURED_VERSION): string {
  const lines = [
    `| set | formulas | our states | Spot ${version} \`-B\` states (measured) | ratio | larger | equal | smaller |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of measuredSummaries(sizes)) {
    const failed = r.failed > 0 ? ` (${r.failed} not finished)` : '';
    lines.push(
      `| ${r.label} | ${r.formulas}${failed} | ${r.ours} | ${r.spot} | ${(r.ours / r.spot).toFixed(3)}× | ${r.larger} | ${r.equal} | ${r.smaller} |`,
    );
  }
  return lines.join('\n');
}

/** Each parametric family against Spot's measured `-B` sizes (every row has one). */
function familyMeasuredMarkdown(sizes: readonly FamilyRowSize[]): string {
  const lines = [
    `| family | parameters | formulas | our states | Spot ${SPOT_MEASURED_VERSION} \`-B\` states (measured) | larger | equal | smaller |`,
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of SPOT_PARAMETRIC_FAMILIES) {
    const rows = sizes.filter((s) => s.row.family === f);
    const measured = measuredSizes([], rows, []);
    const [r] = measuredSummaries(measured).filter((x) => x.label === 'all');
    lines.push(
      `| ${f} | ${paramRange(rows.map((x) => x.row))} | ${r!.formulas}${r!.failed > 0 ? ` (${r!.failed} not finished)` : ''} | ${r!.ours} | ${r!.spot} | ${r!.larger} | ${r!.equal} | ${r!.smaller} |`,
    );
  }
  return lines.join('\n');
}

function main(args: readonly string[]): void {
  const sizes = measurePatterns();
  const familySizes = measureFamilyRows();
  const randomSizes = measureRandomRows();
  const measured = measuredSizes(sizes, familySizes, randomSizes);
  if (args.includes('--guard')) {
    const entries = sizes.map((s) => `  '${s.name}': ${typeof s.states === 'number' ? s.states : 'null'},`);
    const familyEntries = familySizes.map((s) => `  '${s.name}': ${typeof s.states === 'number' ? s.states : 'null'},`);
    const randomEntries = randomSizes.map((s) => `  '${s.name}': ${typeof s.states === 'number' ? s.states : 'null'},`);
    const largerEntries = largerThanSpot(measured).map((n) => `  '${n}',`);
    console.log(`/** Our state counts on spot-patterns.ts, printed by \`node dist/test/core/ltl/spot-sizes.js --guard\`: a regression guard (no formula may grow). */
export const OUR_STATES: Readonly<Record<string, number | null>> = {
${entries.join('\n')}
};

/** The same on the parametric families of spot-families.ts (keyed \`family=parameters\`). */
export const OUR_FAMILY_STATES: Readonly<Record<string, number | null>> = {
${familyEntries.join('\n')}
};

/** The same on the random sets of spot-measured.ts (keyed \`rand-nx,N\`, \`rand-x,N\`). */
export const OUR_RANDOM_STATES: Readonly<Record<string, number | null>> = {
${randomEntries.join('\n')}
};

/**
 * The rows still larger than Spot's measured \`ltl2tgba -B\` size (spot-measured.ts): no other row may become larger.
 */
export const LARGER_THAN_SPOT: readonly string[] = [
${largerEntries.join('\n')}
];`);
    return;
  }
  console.log(markdown(sizes));
  console.log('\nParametric families:\n');
  console.log(familyMarkdown(familySizes));
  console.log('\nLarger than Spot (ours / Spot):');
  for (const s of sizes) {
    if (typeof s.states !== 'number' || s.states > s.pattern.spotB.states) {
      console.log(`  ${s.name}: ${s.states} / ${s.pattern.spotB.states}   ${s.pattern.formula}`);
    }
  }
  for (const s of familySizes) {
    if (typeof s.states !== 'number' ? s.row.spotB !== null : s.row.spotB !== null && s.states > s.row.spotB.states) {
      console.log(`  ${s.name}: ${s.states} / ${s.row.spotB!.states}   ${s.row.formula}`);
    }
  }
  console.log(`\nEvery formula against Spot ${SPOT_MEASURED_VERSION}'s measured \`-B\` sizes (spot-measured.ts):\n`);
  console.log(measuredMarkdown(measured));
  console.log('\nThe parametric families against the measured sizes:\n');
  console.log(familyMeasuredMarkdown(familySizes));
  console.log('\nLarger than Spot as measured (ours / Spot):');
  for (const s of measured)
    if (typeof s.states !== 'number' || s.states > s.spot)
      console.log(`  ${s.name}: ${s.states} / ${s.spot}   ${s.formula}`);
  console.log('\nSmaller than Spot as measured (ours / Spot):');
  for (const s of measured)
    if (typeof s.states === 'number' && s.states < s.spot)
      console.log(`  ${s.name}: ${s.states} / ${s.spot}   ${s.formula}`);
  const unfinished = familySizes.filter((s) => typeof s.states !== 'number');
  if (unfinished.length > 0)
    console.log(`\nParametric rows not finished: ${unfinished.map((s) => `${s.name} (${s.states})`).join(', ')}`);
  const times = sizes.map((s) => s.ms).sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  console.log(
    `\ntranslation time: total ${total.toFixed(0)} ms, p50 ${times[times.length >> 1]!.toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms (one cold pass)`,
  );
  const familyTotal = familySizes.reduce((a, s) => a + s.ms, 0);
  console.log(
    `parametric families: total ${familyTotal.toFixed(0)} ms over ${familySizes.length} formulas (after the patterns, same process)`,
  );
  const randomTotal = randomSizes.reduce((a, s) => a + s.ms, 0);
  console.log(
    `random sets: total ${randomTotal.toFixed(0)} ms over ${randomSizes.length} formulas (after the families, same process)`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2));
