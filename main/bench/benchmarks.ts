/**
 * The benchmarks (figures for docs/BENCHMARKS.md, each with a baseline measured in the same run):
 * LTL translation, the simulator and the dataset generators, the audit log, the planner, the LTL
 * missions (every method on every task, in worker threads, through the mission workflow), the
 * CLI's own start-up, ROS maps to labelled graphs (`bench map`), and rosbag2 import (`bench rosbag`).
 */
import { existsSync } from 'node:fs';
import { WitnessError } from '../contract/errors.js';
import {
  BENCH_METHODS,
  MISSION_WORLDS,
  datasetRegime,
  isBaselineMethod,
  type BenchMethod,
} from '../contract/defaults.js';
import type { Difficulty } from '../core/ltl/templates.js';
import { runLtlBench as translationBench } from './ltl-bench.js';
import { runWorldBench as worldBench } from './world-bench.js';
import { runAntBench as antBench } from './ant-bench.js';
import { auditTable, runAuditBench as auditBench } from './audit-bench.js';
import { exportTable, runExportBench as exportBench } from './export-bench.js';
import { fleetTable, runFleetBench as fleetBench } from './fleet-bench.js';
import {
  type GridMeasurement,
  type TaskMeasurement,
  gridTable,
  latentTable,
  runGrids,
  runLatentSuites,
} from './plan-bench.js';
import { DEFAULT_THREADS, missionTables, runMissionBench, summarizeMissions } from './mission-bench.js';
import { fmt } from './stats.js';
import { rerunBench, rerunTable, startupBench, startupTable } from './cli-bench.js';
import { MAP_BENCH_DEFAULTS, MAP_BENCH_SPECS, mapBenchTables, runMapBench as mapBench } from './map-bench.js';
import { rosbagBenchTable, runRosbagBench as rosbagBench } from './rosbag-bench.js';
import { rulesBenchTable, runRulesBench as rulesBench } from './rules-bench.js';
import { openAuditLog } from '../app/audit-log.js';
import { benchBackbone, openBackbone } from '../app/backbone.js';
import { type HiqlOverrides, ensureHiql, hiqlConfig } from '../app/hiql.js';
import { checkedRegime } from '../app/data.js';

export {
  translationBench,
  worldBench,
  antBench,
  auditBench,
  exportBench,
  fleetBench,
  mapBench,
  rosbagBench,
  rosbagBenchTable,
  rulesBench,
  rulesBenchTable,
};
export { MAP_BENCH_DEFAULTS, MAP_BENCH_SPECS, mapBenchTables };
export {
  fmt,
  auditTable,
  exportTable,
  fleetTable,
  gridTable,
  latentTable,
  missionTables,
  rerunBench,
  rerunTable,
  startupBench,
  startupTable,
};
export type { TaskMeasurement, GridMeasurement, Difficulty };

const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

/** A comma-separated list of difficulties, each checked. */
export function difficultiesOf(list: string): Difficulty[] {
  const ds = list
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  for (const d of ds)
    if (!(DIFFICULTIES as readonly string[]).includes(d))
      throw new WitnessError('invalid-input', `--difficulty: unknown difficulty '${d}' (${DIFFICULTIES.join(', ')})`, {
        path: '--difficulty',
      });
  return ds as Difficulty[];
}

export interface PlanBenchRequest {
  readonly world: string;
  readonly graph?: string;
  readonly data?: string;
  readonly models?: string;
  readonly tasks: number;
  readonly difficulties: readonly Difficulty[];
  readonly gridSizes: readonly number[];
  readonly referenceMaxGrid: number;
  readonly seed: number;
  readonly cache?: string;
  readonly log?: (line: string) => void;
}

/**
 * SAGAS on the latent-graph suites (the world's backbone) and exact planning on grids against the reference algorithm.
 */
export async function planBench(
  o: PlanBenchRequest,
): Promise<{ nodes: number; tasks: TaskMeasurement[]; grids: GridMeasurement[] }> {
  const opts = {
    tasks: o.tasks,
    seed: o.seed,
    difficulties: [...o.difficulties],
    gridSizes: [...o.gridSizes],
    referenceMaxGrid: o.referenceMaxGrid,
    ...(o.log ? { progress: o.log } : {}),
  };
  let tasks: TaskMeasurement[] = [];
  let nodes = 0;
  if (o.tasks > 0 && o.difficulties.length > 0) {
    const b = await openBackbone(benchBackbone(o), {
      ...(o.log ? { log: o.log } : {}),
      ...(o.cache !== undefined ? { cacheDir: o.cache } : {}),
    });
    try {
      nodes = b.artifact.graph.nodeCount;
      tasks = await runLatentSuites(b, opts);
    } finally {
      await b.models.close();
    }
  }
  return { nodes, tasks, grids: runGrids(opts) };
}

export interface MissionBenchRequest {
  readonly world: string;
  readonly difficulties: readonly Difficulty[];
  readonly tasks: number;
  readonly methods: string;
  /**
   * The dataset regime of the generated backbone (default navigate); with --graph/--data, the regime the data file must
   * come from.
   */
  readonly dataset?: string;
  readonly maxSteps: number;
  readonly replans: number;
  readonly threads?: number;
  readonly out: string;
  readonly pictures?: string;
  readonly pictureTasks: number;
  readonly graph?: string;
  readonly data?: string;
  readonly models?: string;
  readonly cache?: string;
  /** Changes to AP-HIQL's recipe (HIQL_DEFAULTS); part of its policies' cache key. */
  readonly hiql?: HiqlOverrides;
  readonly seed: number;
  /** The audit database, or null for none. */
  readonly audit: string | null;
  readonly log?: (line: string) => void;
  readonly progress?: (done: number, total: number) => void;
}

const pick = (o: {
  graph?: string;
  data?: string;
  models?: string;
}): { graph?: string; data?: string; models?: string } => ({
  ...(o.graph !== undefined ? { graph: o.graph } : {}),
  ...(o.data !== undefined ? { data: o.data } : {}),
  ...(o.models !== undefined ? { models: o.models } : {}),
});

/** Every method on every task of every difficulty (Appendix E), resumable from the results file. */
export async function missionBench(o: MissionBenchRequest): Promise<{
  threads: number;
  dataset: string;
  outcomes: Awaited<ReturnType<typeof runMissionBench>>;
  summary: ReturnType<typeof summarizeMissions>;
  methods: BenchMethod[];
  tables: string;
}> {
  if (!MISSION_WORLDS.includes(o.world))
    throw new WitnessError('invalid-input', `--world: unknown world '${o.world}' (${MISSION_WORLDS.join(', ')})`, {
      path: '--world',
    });
  const methods = o.methods
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  for (const m of methods)
    if (!(BENCH_METHODS as readonly string[]).includes(m))
      throw new WitnessError('invalid-input', `--methods: unknown method '${m}' (${BENCH_METHODS.join(', ')})`, {
        path: '--methods',
      });
  const asked = checkedRegime(o.dataset);
  // The workers load the backbone from files: given ones, or the cache's (built here on a miss).
  const b = await openBackbone(
    benchBackbone({ world: o.world, ...pick(o), ...(asked !== undefined ? { dataset: asked } : {}) }),
    { ...(o.log ? { log: o.log } : {}), ...(o.cache !== undefined ? { cacheDir: o.cache } : {}) },
  );
  // AP-HIQL's policies: trained once on this backbone's dataset and ψ, or found in the cache.
  let hiql: string | undefined;
  try {
    if (methods.some(isBaselineMethod))
      hiql = (
        await ensureHiql(
          { world: o.world, dataset: b.dataset, models: b.models },
          {
            ...(o.log ? { log: o.log } : {}),
            ...(o.cache !== undefined ? { cacheDir: o.cache } : {}),
            config: hiqlConfig(o.hiql),
          },
        )
      ).dir;
  } finally {
    await b.models.close();
  }
  if (!existsSync(b.files.graph) || !existsSync(b.files.data))
    throw new WitnessError(
      'invalid-input',
      'the benchmark needs the backbone as files: give --graph and --data, or let it use the cache',
    );
  // Given files: the regime is the one their dataset was generated in (and must be the one asked for).
  const given = o.graph !== undefined ? datasetRegime(b.dataset.generator) : undefined;
  if (asked !== undefined && given !== undefined && given !== asked) {
    throw new WitnessError('invalid-input', `--dataset: ${o.data} holds a ${given} dataset, not ${asked}`, {
      path: '--dataset',
    });
  }
  const dataset = asked ?? (o.graph !== undefined ? (given ?? 'imported') : 'navigate');
  const files = { graph: b.files.graph, data: b.files.data, models: b.files.models };
  // Create (or migrate) the database once, before the workers open it.
  if (o.audit !== null) await (await openAuditLog(o.audit)).close();
  const threads = o.threads ?? DEFAULT_THREADS;
  const outcomes = await runMissionBench({
    world: o.world,
    dataset,
    difficulties: o.difficulties,
    tasks: o.tasks,
    methods: methods as BenchMethod[],
    seed: o.seed,
    maxSteps: o.maxSteps,
    replans: o.replans,
    threads,
    files,
    resultsFile: o.out,
    ...(o.pictures !== undefined ? { picturesDir: o.pictures } : {}),
    pictures: o.pictureTasks,
    ...(o.audit !== null ? { audit: o.audit } : {}),
    ...(hiql !== undefined ? { hiql } : {}),
    ...(o.progress ? { progress: o.progress } : {}),
  });
  return {
    threads,
    dataset,
    outcomes,
    summary: summarizeMissions(outcomes, methods as BenchMethod[]),
    methods: methods as BenchMethod[],
    tables: missionTables(outcomes, methods as BenchMethod[]),
  };
}
