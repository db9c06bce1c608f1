/**
 * The CLI's start-up, against a bare Node start measured in the same run: `node -e 0`, then
 * `witness --version` and `witness ltl translate 'G F a'` as a person runs them (a new process each
 * time, through bin/witness.js), interleaved so that a noisy machine slows all three alike. Goals:
 * --version within 4× and the translation within 6× of the bare start.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { ROOT } from '../platform/paths.js';
import { fmt, percentile } from './stats.js';
import { scratchFolder } from '../platform/scratch.js';

export interface StartupRow {
  readonly command: string;
  readonly p50_ms: number;
  readonly min_ms: number;
  readonly ratio: number;
  readonly goal: number | null;
}

const CASES: readonly { readonly command: string; readonly args: readonly string[]; readonly goal: number | null }[] = [
  { command: 'node -e 0', args: ['-e', '0'], goal: null },
  { command: 'witness --version', args: ['bin/witness.js', '--version'], goal: 4 },
  { command: "witness ltl translate 'G F a'", args: ['bin/witness.js', 'ltl', 'translate', 'G F a'], goal: 6 },
];

function timeOnce(args: readonly string[], env?: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', ...(env ? { env } : {}) });
  const ms = performance.now() - t0;
  if (r.status !== 0)
    throw new WitnessError(
      'internal',
      `${path.basename(process.execPath)} ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`,
    );
  return ms;
}

/** `runs` rounds of every command (after one warm-up round), medians and ratios to the bare start. */
export function startupBench(runs: number, progress?: (label: string) => void): StartupRow[] {
  for (const c of CASES) timeOnce(c.args);
  const times = CASES.map(() => [] as number[]);
  for (let r = 0; r < runs; r++) {
    progress?.(`round ${r + 1}/${runs}`);
    CASES.forEach((c, i) => times[i]!.push(timeOnce(c.args)));
  }
  const p50 = times.map((t) =>
    percentile(
      [...t].sort((a, b) => a - b),
      50,
    ),
  );
  return CASES.map((c, i) => ({
    command: c.command,
    p50_ms: p50[i]!,
    min_ms: Math.min(...times[i]!),
    ratio: p50[i]! / p50[0]!,
    goal: c.goal,
  }));
}

export function startupTable(rows: readonly StartupRow[]): string {
  return [
    '| command | median ms | fastest ms | × node -e 0 | goal |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.command} | ${fmt(r.p50_ms, 1)} | ${fmt(r.min_ms, 1)} | ${fmt(r.ratio, 2)} | ${r.goal === null ? 'baseline' : `≤ ${r.goal}× (${r.ratio <= r.goal ? 'met' : 'NOT met'})`} |`,
    ),
  ].join('\n');
}

export interface RerunRow {
  readonly run: string;
  readonly runs: number;
  readonly p50_ms: number;
  readonly min_ms: number;
  readonly ratio: number;
}

/**
 * The README's mission, as a person runs it, on an empty cache folder: the first run generates the
 * dataset and the graph and keeps them; the next `runs` find them (goal: under 4 s wall). The ratio
 * is to the first run in the same process.
 */
export function rerunBench(runs: number, progress?: (label: string) => void): RerunRow[] {
  // Removed however the process ends (platform/scratch.ts), also by a signal during synchronous work.
  const scratch = scratchFolder('witness-rerun-');
  const dir = scratch.dir;
  try {
    const env = { ...process.env, WITNESS_CACHE: path.join(dir, 'cache') };
    const args = [
      'bin/witness.js',
      'run',
      '--world',
      'pointmaze-medium',
      '--regions',
      'assets/regions/pointmaze-medium.json',
      '--spec',
      'F e2 & G F e1 & G F e4 & G !e0',
      '--start',
      '4,20',
      '--picture',
      path.join(dir, 'mission.svg'),
      '--audit',
      path.join(dir, 'audit.sqlite'),
    ];
    progress?.('first run (empty cache)');
    const first = timeOnce(args, env);
    const again: number[] = [];
    for (let r = 0; r < runs; r++) {
      progress?.(`second run ${r + 1}/${runs}`);
      again.push(timeOnce(args, env));
    }
    const p50 = percentile(
      [...again].sort((a, b) => a - b),
      50,
    );
    return [
      { run: 'first (generates the backbone)', runs: 1, p50_ms: first, min_ms: first, ratio: 1 },
      { run: 'second and later (from the cache)', runs, p50_ms: p50, min_ms: Math.min(...again), ratio: p50 / first },
    ];
  } finally {
    scratch.remove();
  }
}

export function rerunTable(rows: readonly RerunRow[]): string {
  const second = rows[1]!;
  return [
    '| `witness run` (README mission) | runs | median s | fastest s | × first run |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.run} | ${r.runs} | ${fmt(r.p50_ms / 1000, 2)} | ${fmt(r.min_ms / 1000, 2)} | ${fmt(r.ratio, 2)} |`,
    ),
    '',
    `- second run under 4 s: ${second.p50_ms < 4000 ? 'met' : 'NOT met'} (${fmt(second.p50_ms / 1000, 2)} s median)`,
  ].join('\n');
}
