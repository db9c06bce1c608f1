/**
 * Reading what `witness plan` and the benchmarks plan over: a labelled graph JSON, a regions file,
 * or a latent graph artifact with its dataset and models, augmented for one task.
 */
import path from 'node:path';
import { InputError, parseJson } from '../../core/input/json.js';
import { labelledGraph } from '../../core/plan/labelled-graph.js';
import type { SemanticGraph } from '../../core/plan/semantic.js';
import { type RegionSet, parseRegions } from '../../core/world/regions.js';
import { type GraphArtifact, GraphError, readGraph } from '../graph/store.js';
import { datasetHash, readDataset } from '../datasets/format.js';
import type { Dataset } from '../../core/data/dataset.js';
import { type LoadedModels, loadModels } from '../models/bundle.js';
import {
  type AugmentParams,
  type AugmentReport,
  anchorCandidates,
  augmentGraph,
  stateLabels,
} from '../../core/graph/augment.js';
import type { Rng } from '../../core/random/rng.js';
import type { WorldMap } from '../../core/world/world.js';
import { INPUT, type InputKind, InputRefused, readInputFile } from '../../platform/input-files.js';

/** What augmentation needs of the world the task runs in: its free space, and how a position at rest is observed. */
export interface TaskWorld {
  readonly id: string;
  readonly map: WorldMap;
  readonly restObservation: (x: number, y: number) => Float32Array;
}

async function readBytes(file: string, kind: InputKind): Promise<Uint8Array> {
  try {
    return await readInputFile(file, kind);
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new InputError(
      file,
      '$',
      `cannot read: ${(e as { cause?: NodeJS.ErrnoException }).cause?.code ?? String(e)}`,
    );
  }
}

export type GraphInput =
  /** `map`: the map_server YAML the graph names (its "map", resolved against the graph file's folder), if any. */
  | { readonly kind: 'labelled'; readonly graph: SemanticGraph; readonly map?: string }
  | { readonly kind: 'latent'; readonly file: string };

/** A graph file is either a latent graph artifact (.wgraph, by its magic) or labelled graph JSON. */
export async function readGraphInput(file: string): Promise<GraphInput> {
  const bytes = await readBytes(file, INPUT.graph);
  if (bytes.length >= 4 && String.fromCharCode(...bytes.subarray(0, 4)) === 'WGR1') return { kind: 'latent', file };
  const text = new TextDecoder('utf-8').decode(bytes);
  const doc = parseJson(text, file);
  const graph = labelledGraph(doc, file);
  const map = (doc as { map?: unknown }).map;
  return {
    kind: 'labelled',
    graph,
    ...(typeof map === 'string' ? { map: path.resolve(path.dirname(file), map) } : {}),
  };
}

export async function readRegions(file: string): Promise<RegionSet> {
  const text = new TextDecoder('utf-8').decode(await readBytes(file, INPUT.regions));
  return parseRegions(parseJson(text, file), file);
}

/** The frozen offline backbone a latent task is planned on: graph, dataset, models. */
export interface Backbone {
  readonly artifact: GraphArtifact;
  readonly dataset: Dataset;
  readonly models: LoadedModels;
  readonly files: { readonly graph: string; readonly data: string; readonly models: string };
}

/**
 * Loads and cross-checks the backbone; `modelsDir` may depend on the graph's world and the models it was built with
 * (the shipped bundle).
 */
export async function loadBackbone(
  graphFile: string,
  dataFile: string,
  modelsDir: string | ((world: string, built: GraphArtifact['models']) => string),
): Promise<Backbone> {
  const artifact = await readGraph(graphFile);
  const dir = typeof modelsDir === 'string' ? modelsDir : modelsDir(artifact.world, artifact.models);
  const models = await loadModels(dir, { expectWorld: artifact.world });
  try {
    const m = models.manifest.files;
    if (m['embed.onnx'].sha256 !== artifact.models.embed || m['policy.onnx'].sha256 !== artifact.models.policy) {
      throw new GraphError(
        graphFile,
        'models',
        `stale: the graph was built with other models than ${dir} (their sha256 differ); rebuild it with \`witness graph build\``,
      );
    }
    const dataset = await readDataset(dataFile);
    const hash = datasetHash(dataset);
    if (hash !== artifact.dataset.sha256) {
      throw new GraphError(
        graphFile,
        'dataset',
        `built from another dataset than ${dataFile} (sha256 ${artifact.dataset.sha256.slice(0, 12)}…, the file has ${hash.slice(0, 12)}…)`,
      );
    }
    return { artifact, dataset, models, files: { graph: graphFile, data: dataFile, models: dir } };
  } catch (e) {
    await models.close();
    throw e;
  }
}

export interface LatentTask {
  readonly graph: SemanticGraph;
  readonly report: AugmentReport;
  readonly augment_ms: number;
}

/**
 * Algorithm B.1 for one task: retrieve candidates, embed them and the start state with ψ, insert
 * anchors and the start node. `where` names the regions file and the start flag for errors.
 */
export async function augmentTask(
  b: Backbone,
  world: TaskWorld,
  regions: RegionSet,
  start: readonly [number, number],
  params: Omit<AugmentParams, 'H_TD'>,
  rng: Rng,
  where: { regions: string; start: string } = { regions: 'regions', start: '--start' },
): Promise<LatentTask> {
  if (regions.world !== undefined && regions.world !== world.id)
    throw new InputError(where.regions, '$.world', `the regions are for ${regions.world}, the graph for ${world.id}`);
  const blocked = world.map.blocked(start[0], start[1]);
  if (blocked !== null) throw new InputError(where.start, `(${start[0]}, ${start[1]})`, blocked);
  const t0 = performance.now();
  const d = b.dataset;
  const states = { observations: d.observations, obsDim: d.obsDim, count: d.terminals.length };
  const masks = stateLabels(states, regions.regions);
  const candidates = anchorCandidates(masks, regions.regions, params.attempts, rng);
  const dim = b.models.manifest.dims.latent;
  const candidateLatents = new Map<string, Float32Array>();
  for (const [name, idx] of candidates.byRegion) {
    const obs = new Float32Array(idx.length * d.obsDim);
    idx.forEach((s, k) => obs.set(d.observations.subarray(s * d.obsDim, (s + 1) * d.obsDim), k * d.obsDim));
    candidateLatents.set(name, idx.length > 0 ? await b.models.embed(obs, idx.length) : new Float32Array(0));
  }
  const startLatent = await b.models.embed(world.restObservation(start[0], start[1]), 1);
  let stateLatents: Float32Array | undefined;
  if (params.kernel.kind === 'gaussian') {
    stateLatents = new Float32Array(states.count * dim);
    const chunk = 65536;
    for (let r = 0; r < states.count; r += chunk) {
      const rows = Math.min(chunk, states.count - r);
      stateLatents.set(
        await b.models.embed(d.observations.subarray(r * d.obsDim, (r + rows) * d.obsDim), rows),
        r * dim,
      );
    }
  }
  const { graph, report } = augmentGraph({
    graph: b.artifact.graph,
    nodePositions: b.artifact.positions,
    states,
    masks,
    regions: regions.regions,
    candidates,
    candidateLatents,
    start: { latent: startLatent, position: start },
    params: { ...params, H_TD: b.artifact.params.H_TD },
    ...(stateLatents ? { stateLatents } : {}),
  });
  return { graph, report, augment_ms: performance.now() - t0 };
}
