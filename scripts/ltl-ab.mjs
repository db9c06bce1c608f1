#!/usr/bin/env node
// A/B of the LTL translator in one process: this build's translation time against another build's
// (another commit compiled elsewhere: `git worktree add /tmp/other <commit>`, link node_modules,
// `npx tsc -p tsconfig.json`), each formula translated by both alternately, min of --reps runs, so
// that a loaded machine slows both alike; prints per suite the summed times, their ratio and
// p50 / p95, then how many automata differ (HOA, name line aside). --missions compares the 900
// mission-benchmark automata too (pointmaze medium, large, giant; seed 1; 100 tasks per
// difficulty; pruned with disjoint regions). --no-spot leaves out Spot's patterns and families
// (for builds older than X support).
//
//   node scripts/ltl-ab.mjs /tmp/other [--reps 3] [--no-spot] [--missions]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const other = args.find((a) => !a.startsWith('--'));
if (other === undefined) {
  console.error('usage: node scripts/ltl-ab.mjs <other build root> [--reps N] [--no-spot] [--missions]');
  process.exit(2);
}
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 3;
if (!Number.isInteger(reps) || reps < 1) {
  console.error(`--reps: a whole number of runs ≥ 1, not ${args[repsAt + 1]}`);
  process.exit(2);
}
const spot = !args.includes('--no-spot');
const here = resolve(new URL('..', import.meta.url).pathname);
const load = async (root) => {
  const m = async (p) => import(pathToFileURL(resolve(root, 'dist', p)).href);
  return {
    suites: await m('main/bench/ltl-suites.js'),
    tr: await m('main/core/ltl/translate.js'),
    fmt: await m('main/core/ltl/formats.js'),
    parse: await m('main/core/ltl/parser.js'),
    tasks: await m('main/bench/tasks.js'),
    maze: await m('main/backends/mujoco/pointmaze.js'),
    prune: await m('main/core/ltl/prune.js'),
  };
};
const A = await load(here),
  B = await load(resolve(other));
const suites = {};
for (const d of ['easy', 'medium', 'hard']) suites[d] = A.suites.paperSuite(d, 100, 1).map((x) => x.formula);
suites['case studies'] = A.suites.caseStudySuite().map((x) => x.formula);
suites['GF-2…10'] = A.suites.familySuite('GF', 2, 10).map((x) => x.formula);
suites['F-2…8'] = A.suites.familySuite('F', 2, 8).map((x) => x.formula);
if (spot) {
  const sp = await import(pathToFileURL(resolve(here, 'dist/test/core/ltl/spot-patterns.js')).href);
  const fam = await import(pathToFileURL(resolve(here, 'dist/test/core/ltl/spot-families.js')).href);
  suites["Spot's 320 patterns"] = sp.SPOT_PATTERNS.map((r) => A.parse.parseLtl(r.formula, { allowNext: true }));
  suites["Spot's 157 family members"] = fam.ALL_FAMILY_ROWS.map((r) =>
    A.parse.parseLtl(r.formula, { allowNext: true }),
  );
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
const hoa = (m, a) => m.fmt.toHoa(a).replace(/^name:.*$/m, '');
let changed = 0,
  total = 0,
  statesA = 0,
  statesB = 0;
console.log(
  `# node scripts/ltl-ab.mjs ${args.join(' ')}   (this: ${here}; other: ${resolve(other)}; min of ${reps})\n`,
);
console.log('| suite | n | other ms (sum) | this ms (sum) | this / other | other p50 / p95 ms | this p50 / p95 ms |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, fs] of Object.entries(suites)) {
  const ta = fs.map(() => Infinity),
    tb = fs.map(() => Infinity);
  for (const f of fs) {
    A.tr.translateFormula(f);
    B.tr.translateFormula(f);
  } // warm-up
  for (let r = 0; r < reps; r++) {
    fs.forEach((f, i) => {
      let t = performance.now();
      const x = A.tr.translateFormula(f);
      ta[i] = Math.min(ta[i], performance.now() - t);
      t = performance.now();
      const y = B.tr.translateFormula(f);
      tb[i] = Math.min(tb[i], performance.now() - t);
      if (r === 0) {
        total++;
        statesA += x.automaton.states.length;
        statesB += y.automaton.states.length;
        if (hoa(A, x.automaton) !== hoa(B, y.automaton)) changed++;
      }
    });
  }
  const sa = ta.reduce((a, b) => a + b, 0),
    sb = tb.reduce((a, b) => a + b, 0);
  console.log(
    `| ${name} | ${fs.length} | ${sb.toFixed(1)} | ${sa.toFixed(1)} | ${(sa / sb).toFixed(2)} | ${pct(tb, 50).toFixed(2)} / ${pct(tb, 95).toFixed(2)} | ${pct(ta, 50).toFixed(2)} / ${pct(ta, 95).toFixed(2)} |`,
  );
}
console.log(`\nautomata that differ: ${changed} of ${total} (states ${statesB} → ${statesA})`);
if (args.includes('--missions')) {
  let diff = 0,
    n = 0,
    sa = 0,
    sb = 0;
  for (const world of ['pointmaze-medium', 'pointmaze-large', 'pointmaze-giant']) {
    const layout = A.maze.layoutOf(world);
    for (const d of ['easy', 'medium', 'hard'])
      for (let i = 0; i < 100; i++) {
        const f = A.parse.parseLtl(A.tasks.benchTask(layout, 1, d, i).formula);
        const x = A.prune.pruneAutomaton(A.tr.translateFormula(f).automaton, { disjoint: true }).automaton;
        const y = B.prune.pruneAutomaton(B.tr.translateFormula(f).automaton, { disjoint: true }).automaton;
        n++;
        sa += x.states.length;
        sb += y.states.length;
        if (hoa(A, x) !== hoa(B, y)) diff++;
      }
  }
  console.log(`mission-benchmark automata that differ: ${diff} of ${n} (states ${sb} → ${sa})`);
}
