/**
 * The frozen offline backbone a mission plans and executes on: a dataset, the latent graph over it
 * and the model bundle (ψ, π_low). Either given as files (`--graph`, `--data`, `--models`), or
 * generated here — a dataset of one regime (navigate unless asked otherwise) in the world and the
 * graph over it — and kept in the user's cache folder, keyed by (world, regime, dataset steps, seed,
 * model bundle) and checked by content hash on
 * every use, so the second identical mission starts at once. A cache entry that is corrupt, stale
 * or of another build is rebuilt, never trusted.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { WitnessError } from '../contract/errors.js';
import { GENERATOR_VERSION } from '../core/data/generators.js';
import { DEFAULT_GRAPH, sparseFilterWarning } from '../core/graph/build.js';
import type { Dataset } from '../core/data/dataset.js';
import { worldEntry } from '../backends/catalogue.js';
import { type LoadedModels, loadModels, peekManifest } from '../services/models/bundle.js';
import { buildArtifact } from '../services/graph/build-artifact.js';
import { type GraphArtifact, readGraph, writeGraph } from '../services/graph/store.js';
import { datasetHash, readDataset, writeDataset } from '../services/datasets/format.js';
import { type Backbone, loadBackbone } from '../services/plan/inputs.js';
import { cacheDir, shippedModelsDir } from '../platform/paths.js';
import { simulateDataset } from './data.js';
import { writeFileAtomic } from '../platform/files.js';
import { VERSION } from '../contract/version.js';
import type { Progress } from './jobs.js';
import { type DatasetKind, shippedBundleName, shippedBundleNames } from '../contract/defaults.js';
import { INPUT, readFailure, readInputText } from '../platform/input-files.js';
import { parseJsonText } from '../core/input/json.js';

export type { Backbone };

/** Where a backbone comes from. */
export type BackboneSource =
  | { readonly kind: 'files'; readonly graph: string; readonly data: string; readonly models?: string }
  | {
      readonly kind: 'generate';
      readonly world: string;
      readonly datasetSteps: number;
      readonly seed: number;
      readonly models?: string;
      readonly datasetKind?: DatasetKind;
    };

export interface BackboneOptions {
  /** One line of what is being done (the CLI prints it on stderr). */
  readonly log?: (line: string) => void;
  readonly progress?: Progress;
  /** Keep generated backbones in the cache folder (default true). */
  readonly cache?: boolean;
  /** The cache folder (default: platform/paths.ts cacheDir()). */
  readonly cacheDir?: string;
  /**
   * How to generate on a cache miss (default: here, on this thread). The console passes a worker
   * thread so that its event loop stays free.
   */
  readonly generate?: (job: GenerateJob) => Promise<{ artifact: GraphArtifact; dataset: Dataset }>;
}

/** What to generate: a dataset of one regime (default navigate) and the latent graph over it with a model bundle. */
export interface GenerateJob {
  readonly world: string;
  readonly modelsDir: string;
  readonly steps: number;
  readonly seed: number;
  readonly kind?: DatasetKind;
}

/**
 * The model bundle of a world's missions on a regime's data: the one given, else the one shipped for it (contract
 * shippedBundleName).
 */
function modelsDirOf(world: string, models?: string, regime?: DatasetKind): string {
  return models ?? shippedModelsDir(shippedBundleName(world, regime));
}

/**
 * The shipped bundle a graph of `world` was built with, by the sha256 of its ONNX files (the world's
 * navigate bundle, or one of a regime's): a graph built on the stitch data with its bundle plans with
 * that bundle without naming it. None matching: the world's own (loadBackbone then says the graph is stale).
 */
function shippedBundleOf(world: string, built: { readonly embed: string; readonly policy: string }): string {
  for (const name of shippedBundleNames(world)) {
    const files = peekManifest(shippedModelsDir(name))?.['files'] as
      Record<string, { sha256?: unknown } | undefined> | undefined;
    if (files?.['embed.onnx']?.sha256 === built.embed && files['policy.onnx']?.sha256 === built.policy)
      return shippedModelsDir(name);
  }
  return shippedModelsDir(world);
}

/** Opens the backbone; the caller closes its models (`backbone.models.close()`). */
export async function openBackbone(src: BackboneSource, o: BackboneOptions = {}): Promise<Backbone> {
  const b = await openBackboneUnchecked(src, o);
  const w = sparseFilterWarning(b.artifact.graph, b.models.manifest.H_TD);
  if (w !== null) o.log?.(`warning: ${b.files.graph}: ${w}`);
  return b;
}

async function openBackboneUnchecked(src: BackboneSource, o: BackboneOptions): Promise<Backbone> {
  if (src.kind === 'files') {
    return loadBackbone(src.graph, src.data, src.models ?? shippedBundleOf);
  }
  generatable(src.world);
  const job: GenerateJob = {
    world: src.world,
    modelsDir: modelsDirOf(src.world, src.models, src.datasetKind),
    steps: src.datasetSteps,
    seed: src.seed,
    ...(src.datasetKind !== undefined ? { kind: src.datasetKind } : {}),
  };
  const models = await loadModels(job.modelsDir, { expectWorld: src.world });
  try {
    if (o.cache === false) {
      const built = await (o.generate ?? generateHere(o, models))(job);
      return { ...built, models, files: { graph: '(built in process)', data: '(generated)', models: job.modelsDir } };
    }
    const entry = cacheEntry(o.cacheDir ?? cacheDir(), job, models);
    const hit = await readEntry(entry, models);
    if (hit.ok) {
      o.log?.(`using the cached backbone ${entry.dir}`);
      return { ...hit.value, models, files: { graph: entry.graph, data: entry.data, models: job.modelsDir } };
    }
    if (hit.why !== null) o.log?.(`the cached backbone in ${entry.dir} is not usable (${hit.why}); rebuilding it`);
    const built = await (o.generate ?? generateHere(o, models))(job);
    await writeEntry(entry, built).catch((e: unknown) =>
      o.log?.(
        `could not keep the backbone in the cache (${e instanceof Error ? e.message : String(e)}); going on without it`,
      ),
    );
    return { ...built, models, files: { graph: entry.graph, data: entry.data, models: job.modelsDir } };
  } catch (e) {
    await models.close();
    throw e;
  }
}

/** Refuses, before any model is loaded, a world whose datasets cannot be generated here (a robot). */
function generatable(world: string): void {
  if (worldEntry(world).stepper === undefined)
    throw new WitnessError(
      'invalid-input',
      `${world} cannot generate datasets here (record the robot's own driving and import it)`,
    );
}

/** Generates on this thread: the dataset, then the graph (progress in two phases). */
function generateHere(
  o: BackboneOptions,
  models: LoadedModels,
): (job: GenerateJob) => Promise<{ artifact: GraphArtifact; dataset: Dataset }> {
  return (job) => generateBackbone(job, o.progress, o.log, models);
}

/**
 * A dataset of the job's regime in the world and the latent graph over it (used here and by the console's
 * worker). With `open` models (the job's bundle, already loaded by the caller) they stay open;
 * otherwise the bundle is loaded here and closed.
 */
export async function generateBackbone(
  job: GenerateJob,
  progress?: Progress,
  log?: (line: string) => void,
  open?: LoadedModels,
): Promise<{ artifact: GraphArtifact; dataset: Dataset }> {
  generatable(job.world);
  const kind = job.kind ?? 'navigate';
  log?.(
    `generating ${job.steps} ${kind} transitions in ${job.world} (seed ${job.seed}) and the latent graph over them`,
  );
  const dataset = await simulateDataset(job.world, kind, job.steps, job.seed, (done, total) =>
    progress?.('generating the dataset', done, total),
  );
  const models = open ?? (await loadModels(job.modelsDir, { expectWorld: job.world }));
  try {
    const artifact = await buildArtifact(dataset, models, DEFAULT_GRAPH.teThreshold, (done, total) =>
      progress?.('building the latent graph', done, total),
    );
    return { artifact, dataset };
  } finally {
    if (open === undefined) await models.close();
  }
}

interface CacheEntry {
  readonly dir: string;
  readonly data: string;
  readonly graph: string;
  readonly meta: string;
  /** What the entry must have been built from. */
  readonly key: Record<string, unknown>;
}

/**
 * The entry of a generated backbone: its folder name says what it is; its key (checked on every use)
 * pins everything its content depends on, the model bundle by its files' hashes.
 */
function cacheEntry(root: string, job: GenerateJob, models: LoadedModels): CacheEntry {
  const files = models.manifest.files;
  const kind = job.kind ?? 'navigate';
  const key = {
    format: 'witness-backbone-cache',
    version: 1,
    witness: VERSION,
    generator: GENERATOR_VERSION,
    world: job.world,
    kind,
    steps: job.steps,
    seed: job.seed,
    teThreshold: DEFAULT_GRAPH.teThreshold,
    models: { embed: files['embed.onnx'].sha256, policy: files['policy.onnx'].sha256 },
  };
  const digest = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);
  const dir = path.join(root, 'backbones', `${job.world}-${kind}-${job.steps}-seed${job.seed}-${digest}`);
  return {
    dir,
    data: path.join(dir, 'dataset.wds'),
    graph: path.join(dir, 'graph.wgraph'),
    meta: path.join(dir, 'entry.json'),
    key,
  };
}

type Read<T> = { ok: true; value: T } | { ok: false; why: string | null };

/** A cache hit only when the key matches and every file checks out against its own and its partner's hash. */
async function readEntry(
  e: CacheEntry,
  models: LoadedModels,
): Promise<Read<{ artifact: GraphArtifact; dataset: Dataset }>> {
  let meta: unknown;
  try {
    meta = parseJsonText(await readInputText(e.meta, INPUT.config));
  } catch (err) {
    return { ok: false, why: readFailure(err) === 'ENOENT' ? null : 'its entry.json does not parse' };
  }
  const m = meta as { key?: unknown; dataset?: unknown };
  if (JSON.stringify(m.key) !== JSON.stringify(e.key))
    return { ok: false, why: 'it was built from other inputs or by another build' };
  try {
    // readDataset and readGraph check each payload against the hash in its header.
    const dataset = await readDataset(e.data, { expectWorld: String(e.key['world']) });
    const hash = datasetHash(dataset);
    if (hash !== m.dataset) return { ok: false, why: 'the dataset is not the one the entry recorded' };
    const files = models.manifest.files;
    const artifact = await readGraph(e.graph, {
      world: String(e.key['world']),
      models: { embed: files['embed.onnx'].sha256, policy: files['policy.onnx'].sha256 },
    });
    if (artifact.dataset.sha256 !== hash) return { ok: false, why: 'the graph was built from another dataset' };
    return { ok: true, value: { artifact, dataset } };
  } catch (err) {
    return { ok: false, why: err instanceof Error ? err.message : String(err) };
  }
}

/** Writes the dataset and the graph, then the entry that vouches for them (last, so a torn entry is never a hit). */
async function writeEntry(e: CacheEntry, b: { artifact: GraphArtifact; dataset: Dataset }): Promise<void> {
  await mkdir(e.dir, { recursive: true });
  await writeDataset(e.data, b.dataset);
  await writeGraph(e.graph, b.artifact);
  await writeFileAtomic(e.meta, JSON.stringify({ key: e.key, dataset: b.artifact.dataset.sha256 }, null, 2) + '\n');
}

/**
 * The backbone a benchmark runs on: the given files, else the world's 1M-transition backbone of the regime (default
 * navigate) from the cache.
 */
export function benchBackbone(o: {
  world: string;
  graph?: string;
  data?: string;
  models?: string;
  dataset?: DatasetKind;
}): BackboneSource {
  if (o.graph !== undefined || o.data !== undefined) {
    if (o.graph === undefined || o.data === undefined)
      throw new WitnessError('invalid-input', '--graph and --data go together', { path: '--graph' });
    return { kind: 'files', graph: o.graph, data: o.data, ...(o.models !== undefined ? { models: o.models } : {}) };
  }
  return {
    kind: 'generate',
    world: o.world,
    datasetSteps: 1_000_000,
    seed: 0,
    ...(o.models !== undefined ? { models: o.models } : {}),
    ...(o.dataset !== undefined ? { datasetKind: o.dataset } : {}),
  };
}
