/** `witness bench …`: benchmark commands that print figures with ratios against in-process baselines. */
import { Command } from 'commander';
import { runLtlBench } from '../services/bench/ltl-bench.js';
import { runWorldBench } from '../services/bench/world-bench.js';
import { CliError, type Output } from './errors.js';
import { gridTable, latentTable, runGrids, runLatentSuites } from '../services/bench/plan-bench.js';
import { loadBackbone } from '../services/plan/inputs.js';
import type { Difficulty } from '../core/ltl/templates.js';
import { defaultModelsDir } from './backbone.js';
import { taskBackbone } from './task-inputs.js';
import { action, intFlag } from './flags.js';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POINTMAZE_IDS } from '../backends/mujoco/pointmaze.js';
import { writeDataset } from '../services/datasets/format.js';
import { writeGraph } from '../services/graph/store.js';
import { DEFAULT_MAX_STEPS, DEFAULT_REPLANS, MISSION_METHODS, type MissionMethod } from '../services/exec/mission.js';
import { DEFAULT_THREADS, missionTables, runMissionBench, summarizeMissions } from '../services/bench/mission-bench.js';
import { progressBar } from './progress.js';
import { fmt } from '../services/bench/stats.js';
import { AuditLog } from '../services/audit/store.js';
import { auditTable, runAuditBench } from '../services/bench/audit-bench.js';

/** The translation benchmark's flags (on `bench translate`, and on `bench ltl` without --world); --seed serves both. */
function translationFlags(c: Command): Command {
  return c
    .option('--count <n>', 'translation: formulas per difficulty suite', intFlag('--count', 1, 10_000), 100)
    .option('--seed <n>', 'seed of the suites', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option('--family-max <n>', 'translation: largest n for GF-n and F-n', intFlag('--family-max', 2, 16), 12)
    .option('--ltl2ba <path>', 'translation: an ltl2ba binary to compare sizes with (default: $LTL2BA if set)')
    .option('--baseline-time-limit-ms <n>', 'translation: time budget of each plain Gastin–Oddoux baseline run', intFlag('--baseline-time-limit-ms', 1, 600_000), 5000);
}

interface TranslateBenchFlags { count: number; seed: number; familyMax: number; ltl2ba?: string; baselineTimeLimitMs: number; json?: boolean }

function translationBench(io: Output, o: TranslateBenchFlags): void {
  const ltl2ba = o.ltl2ba ?? process.env['LTL2BA'];
  const started = Date.now();
  const { markdown, goals, measurements } = runLtlBench({
    count: o.count,
    seed: o.seed,
    familyMax: o.familyMax,
    baselineTimeLimit_ms: o.baselineTimeLimitMs,
    ...(ltl2ba ? { ltl2ba } : {}),
    progress: (done, total, label) => {
      if (process.stderr.isTTY) io.err(`\r[${'#'.repeat(Math.round((done / total) * 30)).padEnd(30)}] ${done}/${total} ${label.padEnd(12)}`);
      else if (done === total || done % 50 === 0) io.err(`${done}/${total} ${label}\n`);
    },
  });
  if (process.stderr.isTTY) io.err('\n');
  if (o.json) {
    io.out(JSON.stringify(measurements.map((m) => ({ suite: m.item.suite, id: m.item.id, ms: m.ms, states: m.states, transitions: m.transitions, baseline: m.baseline, reference: m.reference })), null, 1) + '\n');
  } else {
    io.out(`# witness bench translate --count ${o.count} --seed ${o.seed} --family-max ${o.familyMax}${ltl2ba ? ' --ltl2ba <ltl2ba>' : ''}\n\n${markdown}\n\n`);
    io.out(goals.map((g) => `- ${g}`).join('\n') + `\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; GO = plain Gastin–Oddoux in the same process)\n`);
  }
}

interface MissionBenchFlags {
  world?: string; difficulty: string; tasks: number; methods: string; maxSteps: number; replans: number; threads: number;
  out?: string; pictures?: string; pictureTasks: number; graph?: string; data?: string; models?: string; cache: string; seed: number; json?: boolean;
  audit: string | boolean;
}

/** The 1M-transition navigate backbone of a world, generated once into the cache folder. */
async function cachedBackbone(o: MissionBenchFlags & { world: string }, log: (s: string) => void): Promise<{ graph: string; data: string; models: string }> {
  const models = o.models ?? defaultModelsDir(o.world);
  if (o.graph !== undefined || o.data !== undefined) {
    if (o.graph === undefined || o.data === undefined) throw new CliError('--graph and --data go together');
    const b = await loadBackbone(o.graph, o.data, models);
    await b.models.close();
    return { graph: o.graph, data: o.data, models };
  }
  mkdirSync(o.cache, { recursive: true });
  const data = join(o.cache, `${o.world}-navigate-1000000-seed0.wds`);
  const graph = join(o.cache, `${o.world}-navigate-1000000-seed0.wgraph`);
  if (existsSync(data) && existsSync(graph)) {
    try {
      const b = await loadBackbone(graph, data, models);
      await b.models.close();
      return { graph, data, models };
    } catch (e) {
      log(`the cached backbone is unusable (${e instanceof Error ? e.message : String(e)}); rebuilding`);
    }
  }
  const b = await taskBackbone({ world: o.world, models, datasetSteps: 1_000_000, seed: 0, requireWorld: true }, log);
  try {
    await writeDataset(data, b.dataset);
    await writeGraph(graph, b.artifact);
  } finally {
    await b.models.close();
  }
  return { graph, data, models };
}

async function missionBench(io: Output, o: TranslateBenchFlags & MissionBenchFlags): Promise<void> {
  const world = o.world!;
  if (!(POINTMAZE_IDS as readonly string[]).includes(world)) throw new CliError(`--world: unknown world '${world}' (${POINTMAZE_IDS.join(', ')})`);
  const difficulties = o.difficulty.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const d of difficulties) if (!['easy', 'medium', 'hard'].includes(d)) throw new CliError(`--difficulty: unknown difficulty '${d}' (easy, medium, hard)`);
  const methods = o.methods.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const m of methods) if (!(MISSION_METHODS as readonly string[]).includes(m)) throw new CliError(`--methods: unknown method '${m}' (${MISSION_METHODS.join(', ')})`);
  const started = Date.now();
  const log = (s: string): void => io.err(`bench ltl: ${s}\n`);
  const files = await cachedBackbone({ ...o, world }, log);
  const out = o.out ?? `bench-ltl-${world}-seed${o.seed}.jsonl`;
  const bar = progressBar(io, `bench ltl ${world}`);
  const audit = o.audit === false ? undefined : typeof o.audit === 'string' ? o.audit : `${out}.audit.sqlite`;
  // Create (or migrate) the database once, before the workers open it.
  if (audit !== undefined) await AuditLog.open(audit).close();
  const outcomes = await runMissionBench({
    world, difficulties: difficulties as Difficulty[], tasks: o.tasks, methods: methods as MissionMethod[], seed: o.seed,
    maxSteps: o.maxSteps, replans: o.replans, threads: o.threads, files, resultsFile: out,
    ...(o.pictures !== undefined ? { picturesDir: o.pictures } : {}), pictures: o.pictureTasks, ...(audit !== undefined ? { audit } : {}),
    progress: (done, total) => bar(done, total),
  });
  const summary = summarizeMissions(outcomes, methods as MissionMethod[]);
  if (o.json) {
    io.out(JSON.stringify({ world, seed: o.seed, tasks: outcomes.length, results: summary.results, step_ms: { p95_median: summary.stepP95_ms, p95_max: summary.stepMaxP95_ms } }, null, 1) + '\n');
    return;
  }
  io.out(`# witness bench ltl --world ${world} --difficulty ${o.difficulty} --tasks ${o.tasks} --methods ${o.methods} --seed ${o.seed}\n\n`);
  io.out(`${missionTables(outcomes, methods as MissionMethod[])}\n\n`);
  io.out(`Per environment step (embedding + policy + monitor): p95 ${fmt(summary.stepP95_ms, 3)} ms (median over missions; worst mission ${fmt(summary.stepMaxP95_ms, 3)} ms).\n`);
  io.out(`Results: ${out}${o.pictures !== undefined ? `; pictures: ${o.pictures}` : ''}${audit !== undefined ? `; audit log: ${audit}` : ''}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; ${o.threads} worker thread(s))\n`);
}

export function benchCommand(io: Output, setExit: (c: number) => void): Command {
  const bench = new Command('bench').description('benchmarks (figures for docs/BENCHMARKS.md)');
  translationFlags(bench
    .command('ltl'))
    .description('with --world: the LTL mission benchmark (SR, NCC, failure modes per method, Appendix E); without: the LTL → Büchi translation benchmark (also `bench translate`)')
    .option('--world <id>', 'run the mission benchmark in this embedded world')
    .option('--difficulty <list>', 'missions: comma-separated difficulties', 'easy,medium,hard')
    .option('--tasks <n>', 'missions: tasks per difficulty', intFlag('--tasks', 1, 100_000), 100)
    .option('--methods <list>', 'missions: comma-separated methods', MISSION_METHODS.join(','))
    .option('--max-steps <n>', 'missions: rollout budget C_max', intFlag('--max-steps', 1), DEFAULT_MAX_STEPS)
    .option('--replans <n>', 'missions: replanning budget R of sagas-replan', intFlag('--replans', 0, 100), DEFAULT_REPLANS)
    .option('--threads <n>', 'missions: worker threads', intFlag('--threads', 1, 256), DEFAULT_THREADS)
    .option('--out <file>', 'missions: JSONL results file; an existing one with the same settings is resumed')
    .option('--pictures <dir>', 'missions: SVG pictures of the first --picture-tasks tasks of each difficulty, every method')
    .option('--picture-tasks <n>', 'missions: how many tasks per difficulty to draw', intFlag('--picture-tasks', 0), 2)
    .option('--graph <file>', 'missions: a latent graph artifact (with --data) instead of the cached 1M-transition one')
    .option('--data <file>', 'missions: the dataset the graph was built from')
    .option('--models <dir>', 'missions: the model bundle (default: the shipped one)')
    .option('--cache <dir>', 'missions: where the generated dataset and graph are kept between runs', join(tmpdir(), 'witness-bench'))
    .option('--audit <db>', 'missions: record every mission in this audit database (default: next to the results file, <out>.audit.sqlite)')
    .option('--no-audit', 'missions: do not record the missions')
    .option('--json', 'print the results as JSON')
    .action(action(io, setExit, async (o: TranslateBenchFlags & MissionBenchFlags) => {
      if (o.world !== undefined) await missionBench(io, o);
      else translationBench(io, o);
    }));
  translationFlags(bench
    .command('translate'))
    .description('LTL → Büchi translation: time p50/p95 and automaton size on the SAGAS suites and GF-n / F-n')
    .option('--json', 'print every measurement as JSON instead of tables')
    .action(action(io, setExit, (o: TranslateBenchFlags) => translationBench(io, o)));
  bench
    .command('world')
    .description('simulator steps/s per scene (vs an open room), dataset generation time and coverage per regime')
    .option('--sim-steps <n>', 'simulation steps per measurement', intFlag('--sim-steps', 1000, 100_000_000), 200_000)
    .option('--dataset-steps <n>', 'transitions per generated dataset', intFlag('--dataset-steps', 1000, 100_000_000), 200_000)
    .option('--navigate-medium-steps <n>', 'transitions for navigate on pointmaze-medium', intFlag('--navigate-medium-steps', 1000, 100_000_000), 1_000_000)
    .action(action(io, setExit, async (o: { simSteps: number; datasetSteps: number; navigateMediumSteps: number }) => {
      const started = Date.now();
      const table = await runWorldBench({ ...o, progress: (label) => io.err(`bench world: ${label}\n`) });
      io.out(`# witness bench world --sim-steps ${o.simSteps} --dataset-steps ${o.datasetSteps} --navigate-medium-steps ${o.navigateMediumSteps}\n\n${table}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`);
    }));
  bench
    .command('audit')
    .description('the audit log: sustained durable appends, filtered paged queries and chain verification over a large log')
    .option('--events <n>', 'events to append', intFlag('--events', 1000, 100_000_000), 1_000_000)
    .option('--json', 'print the figures as JSON')
    .action(action(io, setExit, async (o: { events: number; json?: boolean }) => {
      const started = Date.now();
      const r = await runAuditBench(o.events, (l) => io.err(`bench audit: ${l}\n`));
      if (o.json) {
        io.out(JSON.stringify(r) + '\n');
        return;
      }
      io.out(`# witness bench audit --events ${o.events}\n\n${auditTable(r)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; SQLite through better-sqlite3, WAL, synchronous=FULL)\n`);
    }));
  bench
    .command('plan')
    .description('SAGAS planning time and expanded product states on the Easy/Medium/Hard suites over a latent graph, and exact planning on grids against the reference algorithm')
    .option('--world <id>', 'world of the latent-graph suites (built here unless --graph/--data are given)', 'pointmaze-giant')
    .option('--graph <file>', 'a latent graph artifact to use instead of building one')
    .option('--data <file>', 'the dataset the graph was built from')
    .option('--models <dir>', 'the model bundle (default: the shipped one)')
    .option('--tasks <n>', 'tasks per difficulty', intFlag('--tasks', 0, 100_000), 100)
    .option('--difficulty <list>', 'comma-separated difficulties', 'easy,medium,hard')
    .option('--grids <list>', 'grid sizes n for the exact part (comma-separated; empty for none)', '20,40,80')
    .option('--reference-max-grid <n>', 'largest grid on which the reference algorithm also runs', intFlag('--reference-max-grid', 0), 80)
    .option('--seed <n>', 'seed of tasks, regions, starts and grids', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option('--json', 'print every measurement as JSON')
    .action(action(io, setExit, async (o: { world: string; graph?: string; data?: string; models?: string; tasks: number; difficulty: string; grids: string; referenceMaxGrid: number; seed: number; json?: boolean }) => {
      const difficulties = o.difficulty.split(',').map((x) => x.trim()).filter((x) => x !== '');
      for (const d of difficulties) if (!['easy', 'medium', 'hard'].includes(d)) throw new CliError(`--difficulty: unknown difficulty '${d}' (easy, medium, hard)`);
      const gridSizes = o.grids.split(',').map((x) => x.trim()).filter((x) => x !== '').map((x) => intFlag('--grids', 2, 2000)(x));
      const started = Date.now();
      const log = (s: string): void => io.err(`bench plan: ${s}\n`);
      const opts = { tasks: o.tasks, seed: o.seed, difficulties: difficulties as Difficulty[], gridSizes, referenceMaxGrid: o.referenceMaxGrid, progress: log };
      let tasks: Awaited<ReturnType<typeof runLatentSuites>> = [];
      let nodes = 0;
      if (o.tasks > 0 && difficulties.length > 0) {
        const b = await taskBackbone({ ...o, datasetSteps: 1_000_000, seed: 0, requireWorld: false }, log);
        try {
          nodes = b.artifact.graph.nodeCount;
          tasks = await runLatentSuites(b, opts);
        } finally {
          await b.models.close();
        }
      }
      const grids = runGrids(opts);
      if (o.json) {
        io.out(JSON.stringify({ tasks, grids }, null, 1) + '\n');
        return;
      }
      const hard = tasks.filter((t) => t.difficulty === 'hard').map((t) => t.plan_ms).sort((a, b) => a - b);
      const p95 = hard.length > 0 ? hard[Math.min(hard.length - 1, Math.ceil(0.95 * hard.length) - 1)]! : NaN;
      const g40 = grids.find((g) => g.n === 40);
      io.out(`# witness bench plan --world ${o.world} --tasks ${o.tasks} --difficulty ${o.difficulty} --grids ${o.grids} --seed ${o.seed}\n\n`);
      if (tasks.length > 0) io.out(`Latent graph: ${o.world}, ${nodes} cluster nodes; SAGAS with K = 5, λ = 0.5, τ_soft = 0.05, N_s = 3, 50 attempts.\n\n${latentTable(tasks, difficulties as Difficulty[])}\n\n`);
      if (grids.length > 0) io.out(`Exact planning (K = all) on n×n grids, 8 labelled cells, the "hard giant" formula:\n\n${gridTable(grids)}\n\n`);
      if (hard.length > 0) io.out(`- Hard p95 ≤ 50 ms: ${p95 <= 50 ? 'met' : 'NOT met'} (${p95.toFixed(2)} ms)\n`);
      if (g40) io.out(`- exact n = 40 under 100 ms: ${g40.exact_ms < 100 ? 'met' : 'NOT met'} (${g40.exact_ms.toFixed(1)} ms)\n`);
      io.out(`\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; times are the minimum of 3 runs after one warm-up)\n`);
    }));
  return bench;
}
