/**
 * `npm run fuzz [-- --runs N --seed S --only a,b]`: the fuzzing suite at a larger scale, both tiers,
 * printing the figures for docs/BENCHMARKS.md: cases run per target, how many were read and how many
 * refused, bugs (must be none), the worst time of one case and the largest memory seen (in-process:
 * this process's resident set; spawned: the child's peak RSS). Exits 1 when any target found a bug.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { auditSeed, targets } from './targets.js';
import { casesFor, fuzzTarget, type FuzzStats } from './harness.js';
import { cliTargets, fuzzCli, type CliStats } from './cli-targets.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '500' },
    'cli-runs': { type: 'string', default: '25' },
    seed: { type: 'string', default: '20261201' },
    only: { type: 'string' },
  },
});
const runs = Number(values.runs),
  cliRuns = Number(values['cli-runs']),
  seed = Number(values.seed);
const only = values.only?.split(',');
const pick = <T extends { name: string }>(ts: T[]): T[] =>
  only === undefined ? ts : ts.filter((t) => only.includes(t.name));

const dir = mkdtempSync(path.join(tmpdir(), 'witness-fuzz-report-'));
const seedDb = await auditSeed(dir);
let bugs = 0;
const t0 = performance.now();
const inproc: FuzzStats[] = [];
for (const t of pick(targets(seedDb))) {
  const s = await fuzzTarget(t, { runs: casesFor(t, runs), seed });
  inproc.push(s);
  if (s.bug !== null) bugs++;
  process.stderr.write(`${t.name}: ${s.cases} cases${s.bug !== null ? `, BUG: ${s.bug}` : ''}\n`);
}
const spawned: CliStats[] = [];
for (const t of pick(cliTargets())) {
  const s = await fuzzCli(t, { runs: cliRuns, seed });
  spawned.push(s);
  if (s.bugs.length > 0) bugs++;
  process.stderr.write(`cli ${t.name}: ${s.cases} cases${s.bugs.length > 0 ? `, BUGS: ${s.bugs.join(' | ')}` : ''}\n`);
}
rmSync(dir, { recursive: true, force: true });

const line = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
console.log(
  `fuzz: seed ${seed}, ${runs} cases per in-process target (weighted), ${cliRuns} per spawned target, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
);
console.log(
  line(['in-process target', 'reads', 'cases', 'read', 'refused (by code)', 'bugs', 'worst ms', 'peak RSS MiB']),
);
console.log(line(['---', '---', '---:', '---:', '---', '---:', '---:', '---:']));
for (const s of inproc) {
  const codes = Object.entries(s.codes)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  console.log(
    line([
      s.target,
      s.reads,
      s.cases,
      s.accepted,
      `${s.refused} (${codes})`,
      s.bug === null ? 0 : 1,
      s.worst_ms.toFixed(0),
      s.worst_rss_mb.toFixed(0),
    ]),
  );
}
console.log('');
console.log(line(['spawned target', 'command', 'cases', 'exit codes', 'bugs', 'worst ms', 'peak RSS MiB']));
console.log(line(['---', '---', '---:', '---', '---:', '---:', '---:']));
for (const s of spawned) {
  const codes = Object.entries(s.exits)
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  console.log(
    line([
      s.target,
      `\`${s.command}\``,
      s.cases,
      codes,
      s.bugs.length,
      s.worst_ms.toFixed(0),
      s.worst_rss_mb.toFixed(0),
    ]),
  );
}
const total = inproc.reduce((n, s) => n + s.cases, 0) + spawned.reduce((n, s) => n + s.cases, 0);
console.log(`\n${total} cases, ${bugs} target(s) with bugs`);
process.exitCode = bugs > 0 ? 1 : 0;
