#!/usr/bin/env node
/**
 * Our translator against a Spot build (issue 22): Spot's `ltl2tgba -B` state counts on Spot's
 * pattern families, the parametric families and two sets of 200 random formulas, written as the
 * fixture test/core/ltl/spot-measured.ts; optionally `ltlcross` on every formula (our CLI against
 * `ltl2tgba -B`, each automaton crossed with the other tool's negation) to check the languages.
 *
 *   SPOT_BIN=/path/to/spot/bin node scripts/spot-compare.mjs            # sizes: print the comparison
 *   SPOT_BIN=… node scripts/spot-compare.mjs --write                      # and re-write spot-measured.ts
 *   SPOT_BIN=… node scripts/spot-compare.mjs --cross [--out dir]          # and run ltlcross on all of it
 *
 * Needs `npm run build` first (it reads the fixtures and the translator from dist/). Spot is not a
 * dependency of Witness: nothing in the test suite runs it; this script records its figures.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const bin = process.env.SPOT_BIN;
if (!bin) {
  console.error('spot-compare: set SPOT_BIN to the directory holding ltl2tgba, randltl, ltlfilt and ltlcross');
  process.exit(2);
}
const tool = (name) => join(bin, name);
const outDir = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : join(root, 'spot-compare'));
mkdirSync(outDir, { recursive: true });

const { SPOT_PATTERNS, patternName } = await import(join(root, 'dist/test/core/ltl/spot-patterns.js'));
const { ALL_FAMILY_ROWS, familyRowName } = await import(join(root, 'dist/test/core/ltl/spot-families.js'));
const { translateFormula } = await import(join(root, 'dist/main/core/ltl/translate.js'));
const { parseLtl } = await import(join(root, 'dist/main/core/ltl/parser.js'));
const { measuredMarkdown } = await import(join(root, 'dist/test/core/ltl/spot-sizes.js'));

const version = execFileSync(tool('ltl2tgba'), ['--version'], { encoding: 'utf8' })
  .split('\n')[0]
  .replace(/^ltl2tgba \(spot\) /, '');

/** The random sets: randltl over p0, p1, p2 (tree size 15, Spot's default), duplicates dropped, the first 200. */
const RANDOM_SETS = [
  { set: 'rand-nx', randltl: ['3', '-n', '600', '--seed', '0', '--ltl-priorities', 'X=0'] },
  { set: 'rand-x', randltl: ['3', '-n', '600', '--seed', '1'] },
];
const randomRows = [];
for (const { set, randltl } of RANDOM_SETS) {
  const generated = execFileSync(tool('randltl'), randltl, { encoding: 'utf8' });
  const unique = execFileSync(tool('ltlfilt'), ['-u', '-n', '200'], { input: generated, encoding: 'utf8' });
  unique
    .trim()
    .split('\n')
    .forEach((formula, i) => randomRows.push({ name: `${set},${i + 1}`, set, index: i + 1, formula }));
}

const rows = [
  ...SPOT_PATTERNS.map((p) => ({ name: patternName(p), formula: p.formula, kind: 'pattern' })),
  ...ALL_FAMILY_ROWS.map((r) => ({ name: familyRowName(r), formula: r.formula, kind: 'family' })),
  ...randomRows.map((r) => ({ ...r, kind: 'random' })),
];
const formulaFile = join(outDir, 'all.ltl');
writeFileSync(formulaFile, rows.map((r) => r.formula).join('\n') + '\n');
const spotStates = execFileSync(tool('ltl2tgba'), ['-B', '-F', formulaFile, '--stats=%s'], {
  encoding: 'utf8',
  maxBuffer: 1 << 26,
})
  .trim()
  .split('\n')
  .map(Number);
if (spotStates.length !== rows.length)
  throw new Error(`ltl2tgba printed ${spotStates.length} counts for ${rows.length} formulas`);

const measured = rows.map((r, i) => {
  let ours;
  try {
    ours = translateFormula(parseLtl(r.formula, { allowNext: true })).automaton.states.length;
  } catch (e) {
    ours = `error: ${e instanceof Error ? e.message : String(e)}`;
  }
  return { ...r, spot: spotStates[i], ours };
});

// the tables and lists spot-sizes.js prints from the fixture, here from the sizes just measured
console.log(`Spot ${version} \`ltl2tgba -B\` against our translator (states):\n`);
console.log(
  measuredMarkdown(
    measured.map((m) => ({ name: m.name, formula: m.formula, states: m.ours, spot: m.spot })),
    version,
  ),
);
console.log('\nLarger than Spot (ours / Spot):');
for (const m of measured)
  if (typeof m.ours !== 'number' || m.ours > m.spot) console.log(`  ${m.name}: ${m.ours} / ${m.spot}   ${m.formula}`);
console.log('\nSmaller than Spot (ours / Spot):');
for (const m of measured)
  if (typeof m.ours === 'number' && m.ours < m.spot) console.log(`  ${m.name}: ${m.ours} / ${m.spot}   ${m.formula}`);

if (args.includes('--write')) {
  const q = (s) => JSON.stringify(s);
  const text = `/**
 * Spot's \`ltl2tgba -B\` state counts measured with a Spot build (${version}: a public mirror of
 * Spot's repository, vtramo/spot, master at b05c90cd8 of 2024-09-23, built here), printed by
 * \`SPOT_BIN=… node scripts/spot-compare.mjs --write\`: for every formula of spot-patterns.ts and
 * spot-families.ts (keyed by their row names) and for two sets of random formulas written here,
 * which randltl generated over p0, p1, p2 (tree size 15; duplicates dropped by \`ltlfilt -u\`, the
 * first 200 kept):
 *   rand-nx: \`randltl 3 -n 600 --seed 0 --ltl-priorities X=0 | ltlfilt -u -n 200\` (no X)
 *   rand-x:  \`randltl 3 -n 600 --seed 1 | ltlfilt -u -n 200\`
 * Facts (formulas, measured sizes) only: no Spot code. Spot is not needed to run the tests.
 */

export const SPOT_MEASURED_VERSION = ${q(version)};

/** \`ltl2tgba -B\` states for each row of spot-patterns.ts and spot-families.ts. */
export const SPOT_MEASURED_STATES: Readonly<Record<string, number>> = {
${measured
  .filter((m) => m.kind !== 'random')
  .map((m) => `  ${q(m.name)}: ${m.spot},`)
  .join('\n')}
};

export interface SpotRandomRow {
  readonly set: 'rand-nx' | 'rand-x';
  /** 1-based position in the set. */
  readonly index: number;
  /** In Spot's syntax, as randltl printed it. */
  readonly formula: string;
  /** \`ltl2tgba -B\` states. */
  readonly spotB: number;
}

export const SPOT_RANDOM_ROWS: readonly SpotRandomRow[] = [
${measured
  .filter((m) => m.kind === 'random')
  .map((m) => `  { set: ${q(m.set)}, index: ${m.index}, formula: ${q(m.formula)}, spotB: ${m.spot} },`)
  .join('\n')}
];

/** The row's name: \`rand-nx,17\`. */
export function randomRowName(r: SpotRandomRow): string {
  return \`\${r.set},\${r.index}\`;
}
`;
  writeFileSync(join(root, 'test/core/ltl/spot-measured.ts'), text);
  console.log('\nwrote test/core/ltl/spot-measured.ts');
}

if (args.includes('--cross')) {
  const witness = `{witness}node ${join(root, 'bin/witness.js')} ltl translate %f >%O`;
  const spot = `{spot}${tool('ltl2tgba')} -B %f >%O`;
  const csv = join(outDir, 'ltlcross.csv');
  const r = spawnSync(tool('ltlcross'), ['-F', formulaFile, '--timeout=120', witness, spot, `--csv=${csv}`], {
    encoding: 'utf8',
    cwd: outDir,
    maxBuffer: 1 << 28,
  });
  writeFileSync(join(outDir, 'ltlcross.log'), r.stdout + r.stderr);
  const problems = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => /error|problem|failed|crash|timeout/i.test(l) && !/No problem detected/.test(l));
  console.log(
    `\nltlcross on ${rows.length} formulas: exit ${r.status}; ${problems.length === 0 ? 'no problem detected' : `${problems.length} lines reporting problems:\n${problems.slice(0, 40).join('\n')}`} (log: ${join(outDir, 'ltlcross.log')})`,
  );
  if (r.status !== 0) process.exitCode = 1;
}
