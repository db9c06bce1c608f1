/**
 * The LTL mission benchmark (Appendix E): every task of every difficulty run by every method in the
 * embedded world, success decided by the lasso evaluator on the realised labels, NCC with λ = 0.5
 * and C_max the rollout budget, execution length on the tasks all methods solve, planning time,
 * failure modes as in Table G.1. Worker threads (piscina) across cores; every finished task is
 * appended to a JSONL results file at once, so an interrupted run resumes where it stopped.
 */
import { type Body, DEFAULT_EXEC, LEGGED_EXEC, type ExecParams, type RecoveryParams } from '../core/exec/executor.js';
import { bodyOf } from '../app/mission.js';
import { existsSync, mkdirSync } from 'node:fs';
import { appendLineDurable, writeFileAtomic } from '../platform/files.js';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { Difficulty } from '../core/ltl/templates.js';
import { worldEntry } from '../backends/catalogue.js';
import { type BenchMethod, HIQL_METHOD_LOW, isBaselineMethod } from '../contract/defaults.js';
import { hiqlRecovery } from '../app/hiql.js';
import { type BenchTask, TASK_PROTOCOL, benchTask } from './tasks.js';
import type { MethodOutcome, TaskOutcome, WorkerJob } from './mission-worker.js';
import { BOOTSTRAP_RESAMPLES, type Interval, bootstrapMean, fmt, fmtInterval, winsTiesLosses } from './stats.js';
import { InputError } from '../core/input/json.js';
import { INPUT, readInputText } from '../platform/input-files.js';

export interface MissionBenchOptions {
  readonly world: string;
  readonly difficulties: readonly Difficulty[];
  readonly tasks: number;
  readonly methods: readonly BenchMethod[];
  /**
   * The dataset regime the backbone was generated in (navigate, stitch, explore), or where the given files say they
   * come from.
   */
  readonly dataset: string;
  readonly seed: number;
  readonly maxSteps: number;
  readonly replans: number;
  readonly threads: number;
  readonly files: { readonly graph: string; readonly data: string; readonly models: string };
  readonly resultsFile: string;
  /** Pictures of the first `pictures` tasks of each difficulty, every method, into this folder. */
  readonly picturesDir?: string;
  readonly pictures: number;
  /** Record every mission in this audit database. */
  readonly audit?: string;
  /** AP-HIQL's trained policies (app/hiql.ts ensureHiql), when the methods include ap-hiql. */
  readonly hiql?: string;
  readonly progress?: (done: number, total: number, label: string) => void;
}

export const DEFAULT_THREADS = Math.max(1, availableParallelism());

interface Header {
  readonly format: 'witness-bench-ltl';
  readonly version: 2;
  /**
   * taskProtocol 2: starts outside every region the formula mentions (tasks.ts); results of protocol 1 are not resumed.
   * targets: what ordinary waypoints steer to (ExecParams.targets); files written before it existed
   * (their executor steered to node latents) have no such field and are not resumed.
   * tracking: a legged body's executor parameters (LEGGED_EXEC); files of the Ant's paper-side
   * executor have none and are not resumed. Point bodies have none (their executor is unchanged).
   * hiqlRecovery: the stall recovery of each AP-HIQL method that has one (hiqlTracking); files of
   * AP-HIQL (π_low) on the Ant from before it recovered from stalls have none and are not resumed.
   */
  readonly config: {
    taskProtocol: number;
    targets: ExecParams['targets'];
    tracking?: typeof LEGGED_EXEC;
    hiqlRecovery?: Record<string, RecoveryParams>;
    world: string;
    dataset: string;
    seed: number;
    methods: readonly string[];
    maxSteps: number;
    replans: number;
    graph: string;
    data: string;
    models: string;
    hiql?: string;
  };
}

/**
 * What AP-HIQL's steering adds to the results header: the stall recovery of each baseline method
 * that has one (app/hiql.ts hiqlRecovery), so a file from before AP-HIQL (π_low) recovered from
 * stalls is not resumed as if it were of this run.
 */
export function hiqlTracking(
  methods: readonly BenchMethod[],
  body: Body,
): { hiqlRecovery?: Record<string, RecoveryParams> } {
  const rec: Record<string, RecoveryParams> = {};
  for (const m of methods) {
    if (!isBaselineMethod(m)) continue;
    const r = hiqlRecovery(HIQL_METHOD_LOW[m], body);
    if (r !== null) rec[m] = r;
  }
  return Object.keys(rec).length > 0 ? { hiqlRecovery: rec } : {};
}

/** Reads a results file: its header must match this run's settings. Returns the finished tasks. */
async function resume(file: string, header: Header): Promise<Map<string, TaskOutcome>> {
  const done = new Map<string, TaskOutcome>();
  if (!existsSync(file)) {
    await writeFileAtomic(file, JSON.stringify(header) + '\n');
    return done;
  }
  const lines = (await readInputText(file, INPUT.results)).split('\n').filter((l) => l.trim() !== '');
  let first: (Omit<Header, 'version'> & { version: unknown }) | null = null;
  try {
    first =
      lines[0] === undefined ? null : (JSON.parse(lines[0]) as (Omit<Header, 'version'> & { version: unknown }) | null);
  } catch {
    throw new InputError(
      file,
      'header',
      'is not a results file of `witness bench ltl` (its first line is not JSON); pass another --out or delete it',
    );
  }
  if (first !== null && typeof first !== 'object') first = null;
  if (first !== null && first.format === 'witness-bench-ltl' && first.version !== header.version) {
    throw new InputError(
      file,
      'header.version',
      `holds results of format version ${String(JSON.stringify(first.version))}, not ${header.version}; pass another --out or delete it`,
    );
  }
  if (
    first === null ||
    first.format !== 'witness-bench-ltl' ||
    JSON.stringify(first.config) !== JSON.stringify(header.config)
  ) {
    throw new InputError(
      file,
      'header',
      `holds results of other settings (${JSON.stringify(first?.config ?? null)}); pass another --out or delete it`,
    );
  }
  for (const line of lines.slice(1)) {
    try {
      const o = JSON.parse(line) as TaskOutcome;
      done.set(o.id, o);
    } catch {
      // A line cut by an interruption: that task runs again.
    }
  }
  return done;
}

function append(file: string, o: TaskOutcome): void {
  appendLineDurable(file, JSON.stringify(o));
}

export async function runMissionBench(o: MissionBenchOptions): Promise<TaskOutcome[]> {
  const entry = worldEntry(o.world);
  const layout = entry.layout;
  if (layout === undefined)
    throw new InputError('--world', '$', `${o.world} is not a maze world: the benchmark's tasks are drawn in a maze`);
  const all: BenchTask[] = [];
  for (const d of o.difficulties) for (let i = 0; i < o.tasks; i++) all.push(benchTask(layout, o.seed, d, i));
  const header: Header = {
    format: 'witness-bench-ltl',
    version: 2,
    config: {
      taskProtocol: TASK_PROTOCOL,
      targets: DEFAULT_EXEC.targets,
      ...(bodyOf(entry) === 'legged' ? { tracking: LEGGED_EXEC } : {}),
      ...hiqlTracking(o.methods, bodyOf(entry)),
      world: o.world,
      dataset: o.dataset,
      seed: o.seed,
      methods: o.methods,
      maxSteps: o.maxSteps,
      replans: o.replans,
      ...o.files,
      ...(o.hiql !== undefined ? { hiql: o.hiql } : {}),
    },
  };
  const done = await resume(o.resultsFile, header);
  const todo = all.filter((t) => !done.has(t.id));
  if (o.picturesDir !== undefined) mkdirSync(o.picturesDir, { recursive: true });
  let finished = all.length - todo.length;
  o.progress?.(finished, all.length, 'resumed');
  if (todo.length > 0) {
    const pool = new Piscina({
      filename: new URL('./mission-worker.js', import.meta.url).href,
      maxThreads: o.threads,
      minThreads: Math.min(o.threads, todo.length),
    });
    try {
      await Promise.all(
        todo.map(async (task) => {
          const job: WorkerJob = {
            task,
            methods: o.methods,
            world: o.world,
            files: o.files,
            maxSteps: o.maxSteps,
            replans: o.replans,
            picture: o.picturesDir !== undefined && task.index < o.pictures,
            ...(o.audit !== undefined ? { audit: o.audit } : {}),
            ...(o.hiql !== undefined ? { hiql: o.hiql } : {}),
          };
          const r = (await pool.run(job)) as TaskOutcome;
          if (o.picturesDir !== undefined) {
            for (const m of r.results)
              if (m.svg !== undefined) await writeFileAtomic(join(o.picturesDir, `${r.id}-${m.method}.svg`), m.svg);
          }
          const stripped: TaskOutcome = { ...r, results: r.results.map(({ svg: _svg, ...m }) => m) };
          append(o.resultsFile, stripped);
          done.set(r.id, stripped);
          finished++;
          o.progress?.(finished, all.length, r.id);
        }),
      );
    } finally {
      await pool.destroy();
    }
  }
  return all.map((t) => done.get(t.id)!);
}

export interface MethodSummary {
  readonly sr: number;
  readonly ncc: number;
  readonly ncc_sd: number;
  readonly tasks: number;
  readonly planning_ms: number;
  readonly commonSuccessLength: number | null;
  readonly failureModes: Record<string, number>;
  /** Planning failures of the first plan by the planner's reason (core/plan/diagnose.ts). */
  readonly planningReasons: Record<string, number>;
  /** Failed executions by what ended them (MethodOutcome.cause; results files without it count as 'unrecorded'). */
  readonly executionCauses: Record<string, number>;
  readonly replans: number;
  readonly disagreements: number;
  /** Tasks on which runtime steering was active at least once (the paper's "activated in 931 of 4200 cases"). */
  readonly steeredTasks: number;
  readonly byDifficulty: Record<string, { sr: number; ncc: number; ncc_sd: number; tasks: number }>;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const sd = (xs: readonly number[]): number => {
  const m = mean(xs);
  return xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

export function summarizeMissions(
  outcomes: readonly TaskOutcome[],
  methods: readonly BenchMethod[],
): {
  results: Record<string, MethodSummary>;
  comparisons: Comparison[];
  stepP95_ms: number;
  stepMaxP95_ms: number;
} {
  const of = (m: BenchMethod, xs: readonly TaskOutcome[]): MethodOutcome[] =>
    xs.map((t) => t.results.find((r) => r.method === m)!).filter((r) => r !== undefined);
  const common = outcomes.filter((t) => methods.every((m) => t.results.find((r) => r.method === m)?.success));
  const results: Record<string, MethodSummary> = {};
  for (const m of methods) {
    const rs = of(m, outcomes);
    const byDifficulty: MethodSummary['byDifficulty'] = {};
    for (const d of [...new Set(outcomes.map((t) => t.difficulty))]) {
      const ds = of(
        m,
        outcomes.filter((t) => t.difficulty === d),
      );
      byDifficulty[d] = {
        sr: mean(ds.map((r) => (r.success ? 1 : 0))),
        ncc: mean(ds.map((r) => r.ncc)),
        ncc_sd: sd(ds.map((r) => r.ncc)),
        tasks: ds.length,
      };
    }
    const failureModes: Record<string, number> = {};
    for (const r of rs)
      if (!r.success) failureModes[r.failureMode ?? 'unknown'] = (failureModes[r.failureMode ?? 'unknown'] ?? 0) + 1;
    const planningReasons: Record<string, number> = {};
    for (const r of rs)
      if (r.failureMode === 'planning')
        planningReasons[r.planningReason ?? 'unknown'] = (planningReasons[r.planningReason ?? 'unknown'] ?? 0) + 1;
    const executionCauses: Record<string, number> = {};
    for (const r of rs) {
      if (r.success || r.failureMode === 'planning' || r.failureMode === 'world' || r.failureMode === 'stopped')
        continue;
      const c = r.cause ?? 'unrecorded';
      executionCauses[c] = (executionCauses[c] ?? 0) + 1;
    }
    const cs = of(m, common);
    results[m] = {
      sr: mean(rs.map((r) => (r.success ? 1 : 0))),
      ncc: mean(rs.map((r) => r.ncc)),
      ncc_sd: sd(rs.map((r) => r.ncc)),
      tasks: rs.length,
      planning_ms: mean(rs.map((r) => r.planning_ms)),
      commonSuccessLength: cs.length === 0 ? null : mean(cs.map((r) => r.steps)),
      failureModes,
      planningReasons,
      executionCauses,
      replans: rs.reduce((s, r) => s + r.replans, 0),
      disagreements: rs.reduce((s, r) => s + r.disagreements, 0),
      steeredTasks: rs.filter((r) => r.steeredSteps > 0).length,
      byDifficulty,
    };
  }
  const p95s = outcomes
    .flatMap((t) => t.results.filter((r) => r.stepTimes.n > 0).map((r) => r.stepTimes.p95))
    .sort((a, b) => a - b);
  return {
    results,
    comparisons: compareMethods(outcomes, methods),
    stepP95_ms: p95s.length === 0 ? NaN : p95s[Math.floor(p95s.length * 0.5)]!,
    stepMaxP95_ms: p95s.length === 0 ? NaN : p95s[p95s.length - 1]!,
  };
}

/** The orderings docs/BENCHMARKS.md claims: A against B. */
const CLAIMS: readonly (readonly [BenchMethod, BenchMethod])[] = [
  ['sagas', 'lf-gas'],
  ['sagas', 'ga-gas'],
  ['sagas-replan', 'sagas'],
  ['sagas', 'sagas-nosoft'],
  ['sagas', 'sagas-nosteer'],
  ['sagas', 'sagas-nodelatent'],
  ['sagas', 'ap-hiql'],
  ['sagas', 'ap-hiql-pilow'],
];

/** Seed of the bootstrap resampling of the comparisons (fixed: a table reads the same every time). */
const BOOTSTRAP_SEED = 1;

/**
 * One ordering claim on one difficulty (or 'all'), over the tasks both methods ran: on how many
 * tasks A succeeds where B fails (wins), both or neither succeed (ties), B succeeds where A fails
 * (losses); the same on NCC (lower is better; a failure is NCC 1); and bootstrap 95 % intervals over
 * tasks of the differences A − B in success rate and in mean NCC.
 */
export interface Comparison {
  readonly a: BenchMethod;
  readonly b: BenchMethod;
  readonly difficulty: string;
  readonly tasks: number;
  readonly success: { readonly wins: number; readonly ties: number; readonly losses: number; readonly diff: Interval };
  readonly ncc: { readonly wins: number; readonly ties: number; readonly losses: number; readonly diff: Interval };
}

function compareMethods(outcomes: readonly TaskOutcome[], methods: readonly BenchMethod[]): Comparison[] {
  const out: Comparison[] = [];
  for (const [a, b] of CLAIMS) {
    if (!methods.includes(a) || !methods.includes(b)) continue;
    for (const d of [...new Set(outcomes.map((t) => t.difficulty)), 'all']) {
      const pairs = outcomes
        .filter((t) => d === 'all' || t.difficulty === d)
        .map((t) => [t.results.find((r) => r.method === a), t.results.find((r) => r.method === b)] as const)
        .filter((p): p is readonly [MethodOutcome, MethodOutcome] => p[0] !== undefined && p[1] !== undefined);
      const sa = pairs.map(([x]) => (x.success ? 1 : 0)),
        sb = pairs.map(([, y]) => (y.success ? 1 : 0));
      const na = pairs.map(([x]) => x.ncc),
        nb = pairs.map(([, y]) => y.ncc);
      out.push({
        a,
        b,
        difficulty: d,
        tasks: pairs.length,
        success: {
          ...winsTiesLosses(sa, sb, 'higher'),
          diff: bootstrapMean(
            sa.map((x, i) => x - sb[i]!),
            { seed: BOOTSTRAP_SEED },
          ),
        },
        ncc: {
          ...winsTiesLosses(na, nb, 'lower'),
          diff: bootstrapMean(
            na.map((x, i) => x - nb[i]!),
            { seed: BOOTSTRAP_SEED },
          ),
        },
      });
    }
  }
  return out;
}

const NAMES: Record<string, string> = {
  sagas: 'SAGAS',
  'lf-gas': 'LF-GAS',
  'ga-gas': 'GA-GAS',
  'sagas-replan': 'SAGAS+replan',
  'sagas-nosoft': 'SAGAS w/o soft',
  'sagas-nosteer': 'SAGAS w/o steering',
  'sagas-nodelatent': 'SAGAS, node-latent targets',
  'ap-hiql': 'AP-HIQL',
  'ap-hiql-pilow': 'AP-HIQL (π_low)',
};

export function missionTables(outcomes: readonly TaskOutcome[], methods: readonly BenchMethod[]): string {
  const { results, comparisons } = summarizeMissions(outcomes, methods);
  const diffs = [...new Set(outcomes.map((t) => t.difficulty))];
  const head = `| difficulty | ${methods.map((m) => `${NAMES[m] ?? m} SR (%) | NCC`).join(' | ')} |`;
  const sep = `|---|${methods.map(() => '---|---').join('|')}|`;
  const rows = diffs.map(
    (d) =>
      `| ${d} | ${methods
        .map((m) => {
          const x = results[m]!.byDifficulty[d]!;
          return `${fmt(100 * x.sr, 1)} | ${fmt(x.ncc, 2)} ± ${fmt(x.ncc_sd, 2)}`;
        })
        .join(' | ')} |`,
  );
  rows.push(
    `| all | ${methods.map((m) => `${fmt(100 * results[m]!.sr, 1)} | ${fmt(results[m]!.ncc, 2)} ± ${fmt(results[m]!.ncc_sd, 2)}`).join(' | ')} |`,
  );
  const modes = ['planning', 'prefix', 'suffix', 'escalated', 'unrecoverable', 'world'];
  const second = [
    `| method | common-success length (steps) | planning ms (mean) | replans | monitor disagreements | steering active (tasks) | ${modes.map((x) => `${x} failures`).join(' | ')} |`,
    `|---|---|---|---|---|---|${modes.map(() => '---').join('|')}|`,
    ...methods.map((m) => {
      const r = results[m]!;
      return `| ${NAMES[m] ?? m} | ${r.commonSuccessLength === null ? '–' : fmt(r.commonSuccessLength, 0)} | ${fmt(r.planning_ms, 2)} | ${r.replans} | ${r.disagreements} | ${r.steeredTasks} | ${modes.map((x) => r.failureModes[x] ?? 0).join(' | ')} |`;
    }),
  ];
  const kinds = [...new Set(methods.flatMap((m) => Object.keys(results[m]!.planningReasons)))].sort();
  const third =
    kinds.length === 0
      ? 'No planning failures.'
      : [
          `| method | planning failures | ${kinds.join(' | ')} |`,
          `|---|---|${kinds.map(() => '---').join('|')}|`,
          ...methods.map(
            (m) =>
              `| ${NAMES[m] ?? m} | ${results[m]!.failureModes['planning'] ?? 0} | ${kinds.map((k) => results[m]!.planningReasons[k] ?? 0).join(' | ')} |`,
          ),
        ].join('\n');
  const causes = [...new Set(methods.flatMap((m) => Object.keys(results[m]!.executionCauses)))].sort();
  const executions =
    causes.length === 0
      ? 'No execution failures.'
      : [
          `| method | execution failures | ${causes.join(' | ')} |`,
          `|---|---|${causes.map(() => '---').join('|')}|`,
          ...methods.map((m) => {
            const c = results[m]!.executionCauses;
            return `| ${NAMES[m] ?? m} | ${Object.values(c).reduce((a, b) => a + b, 0)} | ${causes.map((k) => c[k] ?? 0).join(' | ')} |`;
          }),
        ].join('\n');
  const fourth =
    comparisons.length === 0
      ? ''
      : `\n\nOrderings, A against B, per task (bootstrap 95 % intervals over tasks, ${BOOTSTRAP_RESAMPLES} resamples; "within noise" where the interval holds 0):\n\n${[
          '| A vs B | difficulty | tasks | success: A wins / ties / A loses | SR A − B (pp) [95 % CI] | NCC: A lower / equal / A higher | NCC A − B [95 % CI] |',
          '|---|---|---|---|---|---|---|',
          ...comparisons.map(
            (c) =>
              `| ${NAMES[c.a] ?? c.a} vs ${NAMES[c.b] ?? c.b} | ${c.difficulty} | ${c.tasks} | ${c.success.wins} / ${c.success.ties} / ${c.success.losses} | ${fmtInterval(c.success.diff, 1, 100)} | ${c.ncc.wins} / ${c.ncc.ties} / ${c.ncc.losses} | ${fmtInterval(c.ncc.diff, 3)} |`,
          ),
        ].join('\n')}`;
  return `${[head, sep, ...rows].join('\n')}\n\n${second.join('\n')}\n\nPlanning failures of the first plan by the planner's reason:\n\n${third}\n\nFailed executions (prefix, suffix, escalated, unrecoverable) by what ended them (the last failure record: overturned, stalled or drifted at a tracking time-out, a forbidden label, a missed anchor; budget: the rollout budget ran out):\n\n${executions}${fourth}`;
}
