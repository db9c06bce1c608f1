/**
 * AP-HIQL's executor, trained once per (world, dataset, model bundle, recipe) on the backbone's own
 * dataset and value (services/training/hiql-trainer.ts), exported as ONNX and kept in the cache
 * folder like a generated backbone (cache/hiql/<world>-<digest>): the key pins the dataset by its
 * hash, the bundle by its files' hashes, the recipe and this build; a record that does not match,
 * or a file that fails its hash, is retrained, never trusted.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import {
  type DatasetKind,
  HIQL_DEFAULTS,
  MISSION_DEFAULTS,
  MISSION_WORLDS,
  PLAN_DEFAULTS,
  type HiqlLow,
} from '../contract/defaults.js';
import { benchBackbone, openBackbone } from './backbone.js';
import { WitnessError } from '../contract/errors.js';
import { type Body, DEFAULT_EXEC, LEGGED_EXEC, normalize, type RecoveryParams } from '../core/exec/executor.js';
import {
  DEFAULT_HIQL_EXEC,
  type HiqlExecParams,
  type HiqlExecutor,
  type HiqlMissionResult,
  runHiqlMission,
} from '../core/exec/hiql-mission.js';
import type { LabelBlock } from '../core/plan/label-lasso.js';
import { missionSvg } from '../core/world/svg.js';
import { type World, navigationOf } from '../core/world/world.js';
import { type MissionTask, bodyOf } from './mission.js';
import { VERSION } from '../contract/version.js';
import type { Dataset } from '../core/data/dataset.js';
import type { LoadedModels } from '../services/models/bundle.js';
import { type HiqlPolicies, loadHiql, readHiqlRecord, writeHiql } from '../services/models/hiql-bundle.js';
import { type Embedded, type HiqlConfig, trainHiql } from '../services/training/hiql-trainer.js';
import { datasetHash } from '../services/datasets/format.js';
import { cacheDir } from '../platform/paths.js';
import type { Progress } from './jobs.js';

export interface HiqlOptions {
  readonly cacheDir?: string;
  readonly config?: HiqlConfig;
  readonly log?: (line: string) => void;
  readonly progress?: Progress;
}

/** What a run may change of AP-HIQL's recipe (HIQL_DEFAULTS): each is part of the policies' cache key. */
export interface HiqlOverrides {
  readonly steps?: number;
  readonly hidden?: readonly number[];
  readonly lowAlpha?: number;
}

/** HIQL_DEFAULTS with the given changes. */
export function hiqlConfig(o: HiqlOverrides = {}): HiqlConfig {
  return {
    ...HIQL_DEFAULTS,
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    ...(o.hidden !== undefined ? { hidden: [...o.hidden] } : {}),
    ...(o.lowAlpha !== undefined ? { lowAlpha: o.lowAlpha } : {}),
  };
}

/** What the policies are trained from: the backbone's dataset and its models (ψ, the normalisation). */
export interface HiqlInputs {
  readonly world: string;
  readonly dataset: Dataset;
  readonly models: LoadedModels;
}

export function hiqlKey(inp: HiqlInputs, config: HiqlConfig): Record<string, unknown> {
  const files = inp.models.manifest.files;
  return {
    format: 'witness-hiql-cache',
    version: 1,
    witness: VERSION,
    world: inp.world,
    dataset: datasetHash(inp.dataset),
    models: { embed: files['embed.onnx'].sha256, policy: files['policy.onnx'].sha256 },
    config: { ...config, hidden: [...config.hidden] },
  };
}

/** The cache folder of these inputs. */
export function hiqlDir(inp: HiqlInputs, config: HiqlConfig, root = cacheDir()): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(hiqlKey(inp, config)))
    .digest('hex')
    .slice(0, 16);
  return path.join(root, 'hiql', `${inp.world}-${digest}`);
}

/** ψ of every dataset row, and the rows normalised as the bundle normalises them (onnxruntime, in chunks). */
export async function embedForHiql(d: Dataset, models: LoadedModels): Promise<Embedded> {
  const n = d.terminals.length,
    k = d.obsDim,
    dim = models.manifest.dims.latent;
  const { mean, std } = models.manifest.normalization;
  const obs = new Float32Array(n * k);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < k; j++) obs[r * k + j] = (d.observations[r * k + j]! - mean[j]!) / std[j]!;
  const latent = new Float32Array(n * dim);
  const chunk = 16_384;
  for (let r = 0; r < n; r += chunk) {
    const rows = Math.min(chunk, n - r);
    latent.set(await models.embed(d.observations.subarray(r * k, (r + rows) * k), rows), r * dim);
  }
  return { obs, latent, dim };
}

/**
 * The folder of trained AP-HIQL policies for these inputs: the cached one when its record matches
 * and its files check out, else trained here (minutes) and written there.
 */
export async function ensureHiql(
  inp: HiqlInputs,
  o: HiqlOptions = {},
): Promise<{ dir: string; trained: boolean; seconds: number }> {
  const config = o.config ?? HIQL_DEFAULTS;
  const key = hiqlKey(inp, config);
  const dir = hiqlDir(inp, config, o.cacheDir ?? cacheDir());
  const rec = await readHiqlRecord(dir);
  if (rec !== null && JSON.stringify(rec.key) === JSON.stringify(key)) {
    try {
      await (await loadHiql(dir, key)).close();
      o.log?.(`using the cached AP-HIQL policies ${dir}`);
      return { dir, trained: false, seconds: 0 };
    } catch (e) {
      o.log?.(
        `the cached AP-HIQL policies in ${dir} are not usable (${e instanceof Error ? e.message : String(e)}); retraining them`,
      );
    }
  }
  o.log?.(
    `training AP-HIQL's policies (${config.steps} steps, ${config.hidden.join('×')} hidden) on ${inp.dataset.terminals.length} transitions of ${inp.world}`,
  );
  const t0 = performance.now();
  const embedded = await embedForHiql(inp.dataset, inp.models);
  const trained = await trainHiql(inp.dataset, embedded, config, (step, total) =>
    o.progress?.('training AP-HIQL', step, total),
  );
  const seconds = (performance.now() - t0) / 1000;
  const m = inp.models.manifest;
  await writeHiql(dir, trained, {
    key,
    dims: m.dims,
    normalization: m.normalization,
    training: {
      seconds: Math.round(seconds),
      evalLoss: trained.evalLoss,
      value: 'the backbone ψ: V(s, g) = −‖ψ(s) − ψ(g)‖',
    },
  });
  return { dir, trained: true, seconds };
}

/** Trains (or finds) and opens the policies; the caller closes them. */
export async function openHiql(inp: HiqlInputs, o: HiqlOptions = {}): Promise<HiqlPolicies> {
  const { dir } = await ensureHiql(inp, o);
  return loadHiql(dir, hiqlKey(inp, o.config ?? HIQL_DEFAULTS));
}

export type { HiqlLow };

/**
 * A copy of `z` with each row scaled to unit length as the tracker scales π_low's direction (a zero row stays zero).
 */
export function unitRows(z: Float32Array, rows: number): Float32Array {
  const dim = z.length / rows,
    out = Float32Array.from(z);
  for (let r = 0; r < rows; r++) normalize(out.subarray(r * dim, (r + 1) * dim));
  return out;
}

/**
 * AP-HIQL's executor: the backbone's ψ, HIQL's π_h, and the chosen low-level policy — HIQL's own π_l
 * (advantage-weighted regression, trained with π_h), given π_h's subgoal offset, or the backbone's
 * π_low (SAGAS's executor, TD3+BC), given the unit latent direction toward that subgoal as SAGAS's
 * tracker gives it the direction toward a waypoint.
 */
export function hiqlExecutor(models: LoadedModels, hiql: HiqlPolicies, low: HiqlLow = 'hiql'): HiqlExecutor {
  return {
    embed: (x, r) => models.embed(x, r),
    subgoal: (x, g, r) => hiql.subgoal(x, g, r),
    act: low === 'hiql' ? (x, z, r) => hiql.act(x, z, r) : (x, z, r) => models.act(x, unitRows(z, r), r),
  };
}

/**
 * The stall recovery AP-HIQL's steering gets: with the backbone's π_low on a legged body, the one
 * SAGAS's tracker gives that body (LEGGED_EXEC) — π_low is executed as SAGAS executes it, so the
 * two compare as planners; none under HIQL's own π_l (the paper's AP-HIQL) or for a point mass.
 */
export function hiqlRecovery(low: HiqlLow, body: Body): RecoveryParams | null {
  return low === 'pi-low' && body === 'legged' ? LEGGED_EXEC.recovery : null;
}

/** AP-HIQL's parameters beside the others': the same C_max, λ and M; no per-goal timeout (DEFAULT_HIQL_EXEC). */
export function hiqlExecParams(maxSteps: number, seed: number, recovery: RecoveryParams | null = null): HiqlExecParams {
  return { ...DEFAULT_HIQL_EXEC, M: DEFAULT_EXEC.M, lambda: PLAN_DEFAULTS.lambda, maxSteps, seed, recovery };
}

/**
 * Runs a prepared task with AP-HIQL on its world: the task's automaton, regions and start, the
 * backbone's ψ and dataset (the goal representatives), and the given policies. The augmented graph
 * is not used.
 */
export async function runHiqlTask(
  task: MissionTask,
  hiql: HiqlPolicies,
  o: { readonly maxSteps?: number; readonly world?: World; readonly low?: HiqlLow },
): Promise<HiqlMissionResult> {
  const b = task.backbone;
  const low = o.low ?? 'hiql';
  const world = o.world ?? (await task.world.open());
  try {
    return await runHiqlMission(
      {
        world: navigationOf(world),
        executor: hiqlExecutor(b.models, hiql, low),
        automaton: task.automaton,
        formula: task.formula,
        regions: task.regions.regions,
        start: task.start,
        goals: { observations: b.dataset.observations, obsDim: b.dataset.obsDim },
        now: () => performance.now(),
      },
      hiqlExecParams(o.maxSteps ?? MISSION_DEFAULTS.maxSteps, task.seed, hiqlRecovery(low, bodyOf(task.world))),
    );
  } finally {
    if (o.world === undefined) await world.close();
  }
}

/** An AP-HIQL run drawn: the maze, the regions, the goal representatives in order (prefix, then cycle), the rollout. */
export function hiqlPicture(task: MissionTask, r: HiqlMissionResult, title: string): string {
  const layout = task.world.layout;
  if (layout === undefined) throw new WitnessError('invalid-input', `${task.world.id} has no maze layout to draw`);
  const d = task.backbone.dataset,
    k = d.obsDim;
  const at = (blocks: readonly LabelBlock[]): [number, number][] =>
    blocks.flatMap((bl) => {
      const row = bl.region === null ? undefined : r.representatives[bl.region];
      return row === undefined ? [] : [[d.observations[row * k]!, d.observations[row * k + 1]!] as [number, number]];
    });
  const plan = r.plan.status === 'ok' ? r.plan : null;
  return missionSvg(layout, title, {
    regions: task.regions.regions,
    prefix: plan ? [[task.start[0], task.start[1]], ...at(plan.prefix)] : [],
    suffix: plan ? at(plan.cycle) : [],
    trajectory: r.trajectory,
    start: task.start,
    failures: r.failures.map((f) => [r.trajectory[2 * f.t]!, r.trajectory[2 * f.t + 1]!] as const),
  });
}

/**
 * `witness backbone train-hiql`: AP-HIQL's policies for the backbone `bench ltl` runs on (the given
 * files, else the cached 1M-transition one of the regime), trained now or found in the cache.
 */
export async function benchHiql(o: {
  world: string;
  graph?: string;
  data?: string;
  models?: string;
  dataset?: DatasetKind;
  cache?: string;
  hiql?: HiqlOverrides;
  log?: (line: string) => void;
}): Promise<{ dir: string; trained: boolean; seconds: number }> {
  if (!MISSION_WORLDS.includes(o.world))
    throw new WitnessError('invalid-input', `--world: unknown world '${o.world}' (${MISSION_WORLDS.join(', ')})`, {
      path: '--world',
    });
  const cache = o.cache !== undefined ? { cacheDir: o.cache } : {};
  const b = await openBackbone(benchBackbone(o), { ...(o.log ? { log: o.log } : {}), ...cache });
  try {
    return await ensureHiql(
      { world: o.world, dataset: b.dataset, models: b.models },
      {
        ...(o.log ? { log: o.log } : {}),
        ...cache,
        config: hiqlConfig(o.hiql),
      },
    );
  } finally {
    await b.models.close();
  }
}
