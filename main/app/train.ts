/**
 * The training workflow: ψ (the temporal-distance embedding) and π_low (the executor) from a dataset,
 * step by step (`witness train embed|policy`, resumable from checkpoints) or all at once (the
 * shipped recipe, `witness backbone train`; the console's "Train models" job in a worker thread);
 * checking a model bundle, and measuring one (`witness backbone eval`).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WitnessError } from '../contract/errors.js';
import {
  type BackboneRecipe,
  type DatasetKind,
  MISSION_WORLDS,
  TRAIN_DEFAULTS,
  backboneGoals,
  backboneRecipe,
  datasetRegime,
  shippedBundleName,
  trainedRegime,
} from '../contract/defaults.js';
import type { TrainModelsRequest } from '../contract/api.js';
import { defaultConfig, generateDataset } from '../core/data/generators.js';
import { MODEL_FILES, ModelError, type ModelManifest } from '../core/models/manifest.js';
import { calibrationFactor, medianOffsetRatio, scaleOutput } from '../core/models/latent-scale.js';
import { concatMlps } from '../core/models/concat.js';
import type { Mlp } from '../core/models/mlp.js';
import type { Dataset } from '../core/data/dataset.js';
import { worldEntry } from '../backends/catalogue.js';
import { datasetHash, readDataset } from '../services/datasets/format.js';
import {
  DEFAULT_EMBED,
  type EmbedConfig,
  type Normalization,
  trainEmbedding,
} from '../services/training/embed-trainer.js';
import { DEFAULT_POLICY, type PolicyConfig, embedDataset, trainPolicy } from '../services/training/policy-trainer.js';
import { type Checkpoint, readCheckpoint, writeCheckpoint } from '../services/training/checkpoint.js';
import { bundleManifest, embedWithOnnx, readEmbedJson, trainBundle } from '../services/training/bundle.js';
import { embedOnnx, policyOnnx } from '../services/models/onnx-writer.js';
import { loadModels, writeBundle, writeModels } from '../services/models/bundle.js';
import { type EvalResult, type TrialRecord, policySuccess, spearmanOnPairs } from '../services/training/evaluate.js';
import { removeTempSiblings, writeFolderAtomic } from '../platform/files.js';
import { INPUT, readInputFile } from '../platform/input-files.js';
import { inWorker } from '../platform/workers.js';
import { shippedModelsDir } from '../platform/paths.js';
import { bundleDir } from './worlds.js';
import { checkedRegime, simulateDataset } from './data.js';
import type { Session } from './session.js';

export type StepProgress = (step: number, total: number) => void;

/** Checkpointing of a training run: every `every` steps into `file`, and/or resuming from `resume`. */
export interface CheckpointOptions {
  readonly file?: string;
  readonly every: number;
  readonly resume?: string;
}

async function resumeAndSave(
  kind: Checkpoint['kind'],
  c: CheckpointOptions,
): Promise<{ resume?: Checkpoint; checkpointEvery?: number; onCheckpoint?: (ck: Checkpoint) => Promise<void> }> {
  const resume = c.resume !== undefined ? await readCheckpoint(c.resume, kind) : undefined;
  return {
    ...(resume ? { resume } : {}),
    ...(c.file !== undefined
      ? { checkpointEvery: c.every, onCheckpoint: (ck: Checkpoint) => writeCheckpoint(c.file!, ck) }
      : {}),
  };
}

const located =
  (where: string) =>
  (e: unknown): never => {
    if (e instanceof RangeError) throw new WitnessError('invalid-input', `${where}: ${e.message}`);
    throw e;
  };

/** How ψ's output was rescaled to the pipeline's latent unit (core/models/latent-scale.ts). */
export interface LatentCalibration {
  /** The recorded offset measured, in steps (H_TD). */
  readonly offset: number;
  /** Median ‖ψ(s_{t+offset}) − ψ(s_t)‖ / offset before rescaling. */
  readonly measured: number;
  /** The same median after rescaling. */
  readonly target: number;
  readonly factor: number;
}

/**
 * Rescales ψ so that a recorded H_TD-step offset spans `target`·H_TD latent units (median over the
 * dataset's offsets), given ψ's latents of the dataset rows; returns the rescaled ψ and latents.
 */
export function calibrateLatent(
  psi: Mlp,
  latent: Float32Array,
  dim: number,
  terminals: Uint8Array,
  H_TD: number,
  target: number,
): { psi: Mlp; latent: Float32Array; calibration: LatentCalibration } {
  const offset = Math.max(1, Math.round(H_TD));
  const measured = medianOffsetRatio(latent, dim, terminals, offset);
  const factor = calibrationFactor(measured, target);
  return {
    psi: scaleOutput(psi, factor),
    latent: latent.map((x) => x * factor),
    calibration: { offset, measured, target, factor },
  };
}

/** The first `rows` rows of a dataset (whole trajectories or a cut one: offsets never cross a terminal). */
function headRows(d: Dataset, rows: number): Dataset {
  const n = Math.min(rows, d.terminals.length);
  const terminals = d.terminals.slice(0, n);
  if (n > 0) terminals[n - 1] = 1;
  return {
    ...d,
    observations: d.observations.subarray(0, n * d.obsDim),
    actions: d.actions.subarray(0, n * d.actDim),
    terminals,
  };
}

/** Trains ψ on a dataset and writes embed.onnx and embed.json into `out` (each file atomically). */
export async function trainEmbedFiles(o: {
  data: string;
  out: string;
  config: Partial<EmbedConfig>;
  checkpoint: CheckpointOptions;
  progress?: StepProgress;
  /** Rescale ψ so that a recorded H_TD-step offset spans this many latent units per step (median). */
  calibrate?: { target: number; H_TD: number };
}): Promise<{ finalLoss: number; seconds: number; calibration?: LatentCalibration }> {
  const d = await readDataset(o.data);
  const config = { ...DEFAULT_EMBED, ...o.config };
  const started = Date.now();
  const t = await trainEmbedding(
    d,
    config,
    (s, total) => o.progress?.(s, total),
    await resumeAndSave('embed', o.checkpoint),
  ).catch(located(o.checkpoint.resume ?? o.data));
  let psi = t.mlp,
    calibration: LatentCalibration | undefined;
  if (o.calibrate !== undefined) {
    // The median of 200k rows' offsets is as good as the whole dataset's, at a fifth of the cost.
    const head = headRows(d, CALIBRATION_ROWS);
    const e = embedDataset(head, t.mlp, t.normalization);
    ({ psi, calibration } = calibrateLatent(
      t.mlp,
      e.latent,
      e.dim,
      head.terminals,
      o.calibrate.H_TD,
      o.calibrate.target,
    ));
  }
  await writeFolderAtomic(
    o.out,
    {
      'embed.onnx': embedOnnx(psi),
      'embed.json':
        JSON.stringify(
          {
            world: d.worldId,
            dims: { obs: d.obsDim, latent: config.latent },
            normalization: t.normalization,
            training: {
              objective: 'expectile-td',
              ...config,
              finalLoss: t.finalLoss,
              seconds: (Date.now() - started) / 1000,
              ...(calibration ? { calibration } : {}),
            },
            dataset: { sha256: datasetHash(d), file: basename(o.data) },
          },
          null,
          2,
        ) + '\n',
    },
    { merge: true },
  );
  return { finalLoss: t.finalLoss, seconds: (Date.now() - started) / 1000, ...(calibration ? { calibration } : {}) };
}

const CALIBRATION_ROWS = 200_000;

/** Trains π_low on a dataset with a trained ψ (from `train embed`, or trained elsewhere) and writes the full bundle. */
export async function trainPolicyBundle(o: {
  data: string;
  embed: string;
  out: string;
  config: Partial<PolicyConfig>;
  checkpoint: CheckpointOptions;
  progress?: StepProgress;
}): Promise<{ seconds: number }> {
  const config = { ...DEFAULT_POLICY, ...o.config };
  if (!(config.H_TD > 0))
    throw new WitnessError('invalid-input', `--h-td must be a positive number, got ${config.H_TD}`, { path: '--h-td' });
  const d = await readDataset(o.data);
  const meta = await readEmbedJson(join(o.embed, 'embed.json'));
  if (meta.world !== d.worldId)
    throw new ModelError(
      join(o.embed, 'embed.json'),
      'world',
      `the embedding is for ${meta.world}, the dataset for ${d.worldId}`,
    );
  const embedBytes = await readInputFile(join(o.embed, 'embed.onnx'), INPUT.model);
  const embedded = await embedWithOnnx(
    embedBytes,
    join(o.embed, 'embed.onnx'),
    d,
    meta.normalization,
    meta.dims.latent,
  );
  const started = Date.now();
  const p = await trainPolicy(
    d,
    embedded,
    config,
    (st, total) => o.progress?.(st, total),
    await resumeAndSave('policy', o.checkpoint),
  ).catch(located(o.checkpoint.resume ?? o.data));
  const files: Record<(typeof MODEL_FILES)[number], Uint8Array> = {
    'embed.onnx': embedBytes,
    'policy.onnx': policyOnnx(p.mlp, d.obsDim, meta.dims.latent),
  };
  const manifest = bundleManifest(
    d,
    basename(o.data),
    meta.dims.latent,
    config.H_TD,
    meta.normalization,
    {
      embed: meta.training,
      policy: {
        objective: 'ddpg+bc',
        ...config,
        finalCriticLoss: p.finalCriticLoss,
        seconds: (Date.now() - started) / 1000,
      },
    },
    files,
  );
  await writeBundle(o.out, files, manifest);
  return { seconds: (Date.now() - started) / 1000 };
}

/** Loads a bundle and checks its manifest, hashes, I/O names, dtypes and shapes. */
export async function checkBundle(dir: string, world?: string): Promise<ModelManifest> {
  const m = await loadModels(dir, world !== undefined ? { expectWorld: world } : {});
  await m.close();
  return m.manifest;
}

/** Held-out data come from a seed no training command uses by default. */
const HELD_OUT_SEED = 1_000_003;

export interface BackboneEval extends EvalResult {
  readonly world: string;
  /** The regime the held-out pairs and trials were drawn from. */
  readonly dataset: DatasetKind;
  readonly H_TD: number;
  /** Trials aimed at the recorded state this many steps ahead (null: the H_TD subgoal). */
  readonly ahead: number | null;
  /** Trials started at rest at the recorded position. */
  readonly from_rest: boolean;
  /** Trials aimed at ψ of the target's position at rest (as a mission steers), not at the recorded state's latent. */
  readonly goal_at_rest: boolean;
  /** Reached within this task-space distance of the target (null: within ε in latent space). */
  readonly radius_m: number | null;
  /** What this world's backbone should reach (contract backboneGoals). */
  readonly goals: { readonly spearman: number; readonly executor: number };
}

/**
 * Spearman of ‖ψ(s) − ψ(g)‖ against the true geodesic distance on held-out pairs, and π_low's
 * success at reaching waypoints H_TD away within the budget.
 */
export async function evaluateBackbone(o: {
  world: string;
  models?: string;
  /**
   * The regime of the held-out data (default: the one the bundle was trained on, else navigate); without --models, its
   * shipped bundle.
   */
  dataset?: DatasetKind;
  pairs: number;
  trials: number;
  epsilon?: number;
  budget?: number;
  ahead?: number;
  fromRest?: boolean;
  goalAtRest?: boolean;
  radius?: number;
  /** Told every executor trial with the held-out data it was drawn from (scripts/executor-trials.mjs). */
  onTrial?: (t: TrialRecord, heldOut: Dataset) => void;
}): Promise<BackboneEval> {
  const e = worldEntry(o.world);
  if (e.layout === undefined || e.stepper === undefined)
    throw new WitnessError(
      'invalid-input',
      `${o.world} is not a maze world: the evaluation measures geodesic distances in a maze`,
    );
  if (o.ahead !== undefined && !(Number.isInteger(o.ahead) && o.ahead >= 1))
    throw new WitnessError(
      'invalid-input',
      `--ahead must be a positive whole number of steps, got ${String(o.ahead)}`,
      { path: '--ahead' },
    );
  const rest = e.restObservation;
  const asked = checkedRegime(o.dataset);
  const models = await loadModels(o.models ?? shippedModelsDir(shippedBundleName(o.world, asked)), {
    expectWorld: o.world,
  });
  const regime = asked ?? trainedRegime(models.manifest.training) ?? 'navigate';
  const sim = await e.stepper().catch(async (err: unknown) => {
    await models.close();
    throw err;
  });
  try {
    const heldOut = generateDataset(sim, o.world, defaultConfig(regime, 20000, HELD_OUT_SEED, sim.agent, sim.layout));
    const b = {
      latentDim: models.manifest.dims.latent,
      H_TD: models.manifest.H_TD,
      embed: (x: Float32Array, rows: number) => models.embed(x, rows),
      act: (x: Float32Array, z: Float32Array, rows: number) => models.act(x, z, rows),
    };
    const rho = await spearmanOnPairs(b, e.layout, heldOut, o.pairs, HELD_OUT_SEED);
    // A waypoint is reached when ψ(s) is within the graph's node radius H_TD/2 of it: the latent
    // also encodes velocity, so a tighter radius fails agents that stand on the waypoint at
    // another speed than the recorded state had.
    const budget = o.budget ?? 5 * Math.ceil(models.manifest.H_TD) + 2 * (o.ahead ?? 0);
    const epsilon = o.epsilon ?? models.manifest.H_TD / 2;
    if (!(epsilon > 0))
      throw new WitnessError('invalid-input', `--epsilon must be a positive number, got ${String(o.epsilon)}`, {
        path: '--epsilon',
      });
    const ps = await policySuccess(b, sim, heldOut, o.trials, HELD_OUT_SEED, budget, epsilon, {
      ...(o.ahead !== undefined ? { ahead: o.ahead } : {}),
      ...(o.fromRest === true && rest !== undefined ? { rest } : {}),
      ...(o.goalAtRest === true && rest !== undefined ? { goalAtRest: rest } : {}),
      ...(o.radius !== undefined ? { radius_m: o.radius } : {}),
      ...(o.onTrial !== undefined ? { onTrial: (t: TrialRecord) => o.onTrial!(t, heldOut) } : {}),
    });
    return {
      world: o.world,
      dataset: regime,
      spearman: rho,
      pairs: o.pairs,
      policy_success: ps.success,
      trials: o.trials,
      budget_steps: budget,
      epsilon,
      mean_steps_to_reach: ps.meanSteps,
      H_TD: models.manifest.H_TD,
      ahead: o.ahead ?? null,
      from_rest: o.fromRest === true && rest !== undefined,
      goal_at_rest: o.goalAtRest === true && rest !== undefined,
      radius_m: o.radius ?? null,
      goals: backboneGoals(o.world),
    };
  } finally {
    sim.close();
    await models.close();
  }
}

/** The observation entries a recipe's ψ reads, as EmbedConfig spells them (nothing when it reads all). */
const embedReads = (r: BackboneRecipe): { inputs?: readonly number[] } =>
  r.embedInputs !== null ? { inputs: r.embedInputs } : {};

/** What trainBackbone is asked for (the CLI's `backbone train` flags). */
export interface TrainBackboneRequest {
  readonly world: string;
  readonly out?: string;
  readonly data?: string;
  readonly dataset?: DatasetKind;
  readonly recipe?: string;
  readonly datasetSteps?: number;
  readonly embedSteps?: number;
  readonly policySteps?: number;
  readonly seed: number;
  readonly progress?: (phase: string) => StepProgress;
}

/**
 * trainBackbone's checks before anything trains: the world, the regime (asked, else the given data's, else navigate)
 * and its recipe, and the bundle it writes.
 */
async function trainInputs(opts: TrainBackboneRequest): Promise<{
  given: Dataset | undefined;
  regime: DatasetKind;
  r: BackboneRecipe;
  shipped: string;
}> {
  worldEntry(opts.world);
  checkedRegime(opts.dataset);
  if (opts.data !== undefined && opts.datasetSteps !== undefined)
    throw new WitnessError('invalid-input', '--data and --dataset-steps exclude each other: the dataset is given', {
      path: '--dataset-steps',
    });
  // A given dataset (e.g. a robot's own driving, `witness data import BAG`) must be of this world, and of the regime
  // asked for.
  const given = opts.data !== undefined ? await readDataset(opts.data, { expectWorld: opts.world }) : undefined;
  const givenRegime = given !== undefined ? datasetRegime(given.generator) : undefined;
  if (opts.dataset !== undefined && givenRegime !== undefined && givenRegime !== opts.dataset) {
    throw new WitnessError(
      'invalid-input',
      `--dataset: ${opts.data} holds a ${givenRegime} dataset, not ${opts.dataset}`,
      { path: '--dataset' },
    );
  }
  const regime = opts.dataset ?? givenRegime ?? 'navigate';
  let r: ReturnType<typeof backboneRecipe>;
  try {
    r = backboneRecipe(opts.world, opts.recipe, regime);
  } catch (e) {
    throw new WitnessError('invalid-input', `--recipe: ${(e as Error).message}`, { path: '--recipe' });
  }
  // Checked before anything trains: a bundle of another regime never overwrites the world's navigate bundle.
  const shipped = shippedBundleName(opts.world, regime);
  if (opts.out === undefined && regime !== 'navigate' && shipped === opts.world) {
    throw new WitnessError(
      'invalid-input',
      `--out: ${opts.world} ships no ${regime} bundle (bench ltl --dataset ${regime} runs on its navigate one, assets/models/${opts.world}): name the folder to write`,
      { path: '--out' },
    );
  }
  return { given, regime, r, shipped };
}

/**
 * Reproduces a shipped backbone from scratch with the recipe: a dataset of the regime (navigate
 * unless asked, or the given data's), ψ, π_low, the bundle — by default into the shipped bundle of
 * that regime (contract shippedBundleName); a regime the world ships no bundle for needs --out.
 */
export async function trainBackbone(opts: TrainBackboneRequest): Promise<{ out: string; minutes: number }> {
  const started = Date.now();
  const { given, regime, r, shipped } = await trainInputs(opts);
  const o = {
    ...opts,
    datasetSteps: opts.datasetSteps ?? r.datasetSteps,
    embedSteps: opts.embedSteps ?? r.embedSteps,
    policySteps: opts.policySteps ?? r.policySteps,
  };
  const d = given ?? (await simulateDataset(o.world, regime, o.datasetSteps, o.seed, o.progress?.('dataset')));
  const embedConfig = {
    ...DEFAULT_EMBED,
    hidden: r.hidden,
    latent: r.latent,
    batch: r.batch,
    steps: o.embedSteps,
    gamma: r.gamma,
    pathBound: r.pathBound,
    objective: r.objective,
    ...embedReads(r),
    seed: o.seed,
  };
  const barE = o.progress?.('train embed');
  const e = await trainEmbedding(d, embedConfig, (st, total) => barE?.(st, total));
  const policyConfig = {
    ...DEFAULT_POLICY,
    hidden: r.policyHidden,
    batch: r.batch,
    steps: o.policySteps,
    H_TD: r.H_TD,
    alpha: r.policyAlpha,
    seed: o.seed,
    ...(r.policySubgoals !== null ? { subgoalHorizons: r.policySubgoals } : {}),
  };
  // --embed-steps, when given, sets both ψ's steps (tests train tiny ones).
  const far =
    r.far !== null
      ? await appendFar(
          d,
          e.mlp,
          e.normalization,
          { ...r.far, steps: opts.embedSteps ?? r.far.steps },
          r,
          o.seed,
          o.progress?.('train embed (far)'),
        )
      : null;
  const barP = o.progress?.('train policy');
  const embedded = far !== null ? far.embedded : embedDataset(d, e.mlp, e.normalization);
  let psi = far !== null ? far.psi : e.mlp,
    calibration: LatentCalibration | undefined = far?.calibration;
  if (r.calibrate !== null) {
    // The whole ψ (with its second timescale, when the recipe has one) takes the recipe's unit.
    const c = calibrateLatent(psi, embedded.latent, embedded.dim, d.terminals, r.H_TD, r.calibrate);
    psi = c.psi;
    calibration = c.calibration;
    embedded.latent.set(c.latent);
  }
  const p = await trainPolicy(d, embedded, policyConfig, (st, total) => barP?.(st, total));
  const out = o.out ?? shippedModelsDir(shipped);
  await writeModels(
    out,
    { embed: psi, policy: p.mlp },
    {
      world: o.world,
      dims: { obs: d.obsDim, latent: embedded.dim, action: d.actDim },
      H_TD: r.H_TD,
      normalization: e.normalization,
      training: {
        command: reproduceCommand(opts, regime),
        embed: {
          ...embedConfig,
          finalLoss: e.finalLoss,
          ...(far !== null ? { far: far.record } : {}),
          ...(calibration ? { calibration } : {}),
        },
        policy: { objective: 'ddpg+bc', ...policyConfig, finalCriticLoss: p.finalCriticLoss },
        dataset:
          o.data !== undefined
            ? { file: basename(o.data), transitions: d.terminals.length, generator: d.generator }
            : { kind: regime, steps: o.datasetSteps, seed: o.seed },
        seconds: (Date.now() - started) / 1000,
      },
      dataset: { sha256: datasetHash(d) },
    },
  );
  return { out, minutes: (Date.now() - started) / 60000 };
}

/**
 * The command that trains the same bundle again: the flags given, the rest left to the recipe
 * (an --embed-steps written out would also set the second ψ's steps, which the recipe sets apart).
 */
export function reproduceCommand(
  o: {
    world: string;
    data?: string;
    recipe?: string;
    datasetSteps?: number;
    embedSteps?: number;
    policySteps?: number;
    seed: number;
  },
  regime: DatasetKind,
): string {
  return [
    `witness backbone train --world ${o.world}`,
    ...(regime !== 'navigate' ? [`--dataset ${regime}`] : []),
    ...(o.recipe !== undefined && o.recipe !== 'shipped' ? [`--recipe ${o.recipe}`] : []),
    ...(o.data !== undefined ? [`--data ${basename(o.data)}`] : []),
    ...(o.datasetSteps !== undefined ? [`--dataset-steps ${o.datasetSteps}`] : []),
    ...(o.embedSteps !== undefined ? [`--embed-steps ${o.embedSteps}`] : []),
    ...(o.policySteps !== undefined ? [`--policy-steps ${o.policySteps}`] : []),
    `--seed ${o.seed}`,
  ].join(' ');
}

/**
 * The recipe's second ψ (BackboneRecipe.far): a path-distance ψ trained on the same data, appended to
 * ψ_TD at `scale` (core/models/concat.ts), and the whole rescaled so that a recorded H_TD-step offset
 * spans what it did in ψ_TD alone; returns it with the dataset's latents for π_low.
 */
async function appendFar(
  d: Dataset,
  td: Mlp,
  norm: Normalization,
  far: NonNullable<BackboneRecipe['far']>,
  r: BackboneRecipe,
  seed: number,
  bar?: StepProgress,
): Promise<{
  psi: Mlp;
  embedded: { obs: Float32Array; latent: Float32Array; dim: number };
  calibration: LatentCalibration;
  record: Record<string, unknown>;
}> {
  const config: EmbedConfig = {
    ...DEFAULT_EMBED,
    objective: 'path-distance',
    hidden: far.hidden,
    latent: r.latent,
    batch: r.batch,
    steps: far.steps,
    gamma: far.gamma,
    ...embedReads(r),
    seed,
  };
  const f = await trainEmbedding(d, config, (st, total) => bar?.(st, total));
  const tdLatent = embedDataset(d, td, norm);
  const offset = Math.max(1, Math.round(r.H_TD));
  const tdRatio = medianOffsetRatio(tdLatent.latent, tdLatent.dim, d.terminals, offset);
  const joined = concatMlps(td, f.mlp, far.scale);
  const embedded = embedDataset(d, joined, norm);
  const c = calibrateLatent(joined, embedded.latent, embedded.dim, d.terminals, r.H_TD, tdRatio);
  embedded.latent.set(c.latent);
  return {
    psi: c.psi,
    embedded,
    calibration: c.calibration,
    record: { ...config, scale: far.scale, finalLoss: f.finalLoss },
  };
}

/** A bundle trained from scratch for the console (in a worker thread). */
export interface TrainJob {
  readonly world: string;
  readonly out: string;
  readonly datasetSteps: number;
  readonly embedSteps: number;
  readonly policySteps: number;
  readonly seed: number;
}

/** The worker's work: a fresh navigate dataset, then ψ and π_low, written as one bundle folder. */
export async function trainBundleFromScratch(
  job: TrainJob,
  progress: (phase: string, done: number, total: number) => void,
): Promise<{ out: string }> {
  const dataset = await simulateDataset(job.world, 'navigate', job.datasetSteps, job.seed, (done, total) =>
    progress('generating the dataset', done, total),
  );
  // The world's recipe decides what ψ reads (the Ant's position) and π_low's α; the sizes are the console's, and it
  // trains one ψ (no second timescale).
  const r = backboneRecipe(job.world);
  await trainBundle(
    dataset,
    `navigate-${job.datasetSteps}-seed${job.seed} (generated)`,
    { ...DEFAULT_EMBED, steps: job.embedSteps, seed: job.seed, ...embedReads(r) },
    { ...DEFAULT_POLICY, steps: job.policySteps, alpha: r.policyAlpha, seed: job.seed },
    job.out,
    (stage, step, total) =>
      progress(stage === 'embedding' ? 'training ψ (embedding)' : 'training π_low (policy)', step, total),
  );
  return { out: job.out };
}

/**
 * The console's "Train models": a bundle for a maze world into the workspace's models/<name>, as a
 * cancellable job in a worker thread; resolves to its models id.
 */
export async function trainModelsJob(
  session: Session,
  req: TrainModelsRequest,
): Promise<{ models: string; dir: string }> {
  if (!MISSION_WORLDS.includes(req.world))
    throw new WitnessError(
      'invalid-params',
      `unknown world "${req.world}" (bundles are trained in ${MISSION_WORLDS.join(', ')})`,
      { path: '$.world' },
    );
  const dir = bundleDir(session, `workspace/${req.name}`);
  if (existsSync(dir))
    throw new WitnessError('conflict', `${dir} already exists: choose another name`, { path: '$.name' });
  mkdirSync(dirname(dir), { recursive: true });
  const job: TrainJob = {
    world: req.world,
    out: dir,
    datasetSteps: req.datasetSteps ?? TRAIN_DEFAULTS.datasetSteps,
    seed: req.seed ?? TRAIN_DEFAULTS.seed,
    embedSteps: req.embedSteps ?? TRAIN_DEFAULTS.embedSteps,
    policySteps: req.policySteps ?? TRAIN_DEFAULTS.policySteps,
  };
  return session.jobs.run(req.job, `Training models ${req.name}`, async (signal, progress) => {
    try {
      await inWorker(new URL('./train-worker.js', import.meta.url), job, signal, progress);
    } catch (err) {
      // A terminated worker cannot remove its temporary folder: never leave a half-written bundle.
      await removeTempSiblings(dir);
      if (signal.aborted) throw new WitnessError('cancelled', 'training cancelled');
      throw err;
    }
    return { models: `workspace/${req.name}`, dir };
  });
}
