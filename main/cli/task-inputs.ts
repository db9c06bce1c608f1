/** What `witness plan`, `witness run` and the benchmarks read alike: the spec, the task's regions, the backbone. */
import type { Formula } from '../core/ltl/ast.js';
import { parseLtl } from '../core/ltl/parser.js';
import { LtlSyntaxError } from '../core/ltl/errors.js';
import type { RegionSet } from '../core/world/regions.js';
import { defaultConfig, generateDataset } from '../core/data/generators.js';
import { DEFAULT_GRAPH } from '../core/graph/build.js';
import { PointMazeSim } from '../backends/mujoco/pointmaze.js';
import { type Backbone, loadBackbone, readRegions } from '../services/plan/inputs.js';
import { loadModels } from '../services/models/bundle.js';
import { buildArtifact } from '../services/graph/build-artifact.js';
import { CliError } from './errors.js';
import { defaultModelsDir } from './backbone.js';

/** Parses `--spec`; a syntax error reads `--spec:L:C: …` (exit 2). */
export function parseSpec(text: string): Formula {
  try {
    return parseLtl(text);
  } catch (e) {
    if (e instanceof LtlSyntaxError) throw new CliError(`--spec:${e.line}:${e.column}: ${e.detail}`);
    throw e;
  }
}

/**
 * The task's regions: every proposition of the formula must be a region of the file; regions the
 * formula does not mention play no part (AP_φ).
 */
export async function taskRegions(file: string, aps: readonly string[]): Promise<RegionSet> {
  const all = await readRegions(file);
  const unknown = aps.filter((ap) => !all.regions.some((r) => r.name === ap));
  if (unknown.length > 0) throw new CliError(`--spec mentions ${unknown.join(', ')}, which ${file} does not define (it has ${all.regions.map((r) => r.name).join(', ') || 'no regions'})`);
  return { ...all, regions: all.regions.filter((r) => aps.includes(r.name)) };
}

/**
 * The backbone a task runs on: `--graph` and `--data` files (checked against `world` when
 * `requireWorld`), or a navigate dataset of `datasetSteps` generated here with the latent graph
 * over it and the world's shipped models.
 */
export async function taskBackbone(
  o: { world: string; graph?: string; data?: string; models?: string; datasetSteps: number; seed: number; requireWorld: boolean },
  log: (s: string) => void,
): Promise<Backbone> {
  if (o.graph !== undefined || o.data !== undefined) {
    if (o.graph === undefined || o.data === undefined) throw new CliError('--graph and --data go together');
    const b = await loadBackbone(o.graph, o.data, o.models ?? defaultModelsDir);
    if (o.requireWorld && b.artifact.world !== o.world) {
      await b.models.close();
      throw new CliError(`${o.graph} is a graph of ${b.artifact.world}, not ${o.world}`);
    }
    return b;
  }
  const modelsDir = o.models ?? defaultModelsDir(o.world);
  const models = await loadModels(modelsDir, { expectWorld: o.world });
  log(`generating ${o.datasetSteps} navigate transitions in ${o.world} (seed ${o.seed}) and the latent graph over them`);
  const sim = await PointMazeSim.create(o.world);
  try {
    const dataset = generateDataset(sim, o.world, defaultConfig('navigate', o.datasetSteps, o.seed));
    const artifact = await buildArtifact(dataset, models, DEFAULT_GRAPH.teThreshold);
    return { artifact, dataset, models, files: { graph: '(built in process)', data: '(generated)', models: modelsDir } };
  } catch (e) {
    await models.close();
    throw e;
  } finally {
    sim.close();
  }
}
