/** The latent graph workflow: build it once per dataset and model bundle, inspect it, export it as JSON. */
import { WitnessError } from '../contract/errors.js';
import { ModelError } from '../core/models/manifest.js';
import { readDataset } from '../services/datasets/format.js';
import { loadModels } from '../services/models/bundle.js';
import { sparseFilterWarning } from '../core/graph/build.js';
import { buildArtifact } from '../services/graph/build-artifact.js';
import { type GraphArtifact, graphJson, readGraph, writeGraph } from '../services/graph/store.js';
import { writeFileAtomic } from '../platform/files.js';

function connectivity(a: GraphArtifact): { components: number; degreeMean: number } {
  const g = a.graph;
  const parent = Int32Array.from({ length: g.nodeCount }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  g.edgeU.forEach((u, e) => {
    parent[find(u)] = find(g.edgeV[e]!);
  });
  const comps = new Set(Array.from({ length: g.nodeCount }, (_, i) => find(i))).size;
  return { components: comps, degreeMean: (2 * g.edgeU.length) / Math.max(1, g.nodeCount) };
}

export interface BuildReport {
  readonly nodes: number;
  readonly edges: number;
  readonly components: number;
  readonly componentsBefore: number;
  readonly bridges: number;
  readonly retained: number;
  readonly states: number;
  readonly seconds: number;
  /** Set when the filter kept almost nothing (core/graph/build.ts, sparseFilterWarning). */
  readonly warning: string | null;
}

/** Builds the graph of a dataset with a model bundle (Appendix B.1) and writes it. */
export async function buildGraphFile(o: {
  data: string;
  models: string;
  out: string;
  teThreshold: number;
  progress?: (done: number, total: number) => void;
}): Promise<BuildReport> {
  if (!(o.teThreshold >= -1 && o.teThreshold <= 1))
    throw new WitnessError('invalid-input', `--te-threshold must be in [-1, 1], got ${o.teThreshold}`, {
      path: '--te-threshold',
    });
  const d = await readDataset(o.data);
  const m = await loadModels(o.models);
  try {
    if (m.manifest.world !== d.worldId)
      throw new ModelError(o.models, 'world', `the models are for ${m.manifest.world}, the dataset for ${d.worldId}`);
    const started = Date.now();
    let artifact: GraphArtifact;
    try {
      artifact = await buildArtifact(d, m, o.teThreshold, o.progress);
    } catch (e) {
      if (e instanceof RangeError) throw new WitnessError('invalid-input', `${o.data} with ${o.models}: ${e.message}`);
      throw e;
    }
    const g = artifact.graph;
    await writeGraph(o.out, artifact);
    const c = connectivity(artifact);
    return {
      nodes: g.nodeCount,
      edges: g.edgeU.length,
      components: c.components,
      componentsBefore: g.componentsBefore,
      bridges: g.bridges,
      retained: g.retained,
      states: d.terminals.length,
      seconds: (Date.now() - started) / 1000,
      warning: sparseFilterWarning(g, m.manifest.H_TD),
    };
  } finally {
    await m.close();
  }
}

/** Counts, connectivity and provenance; with a model bundle, a graph built with other models is refused as stale. */
export async function graphInfo(
  file: string,
  models?: string,
): Promise<{
  world: string;
  nodes: number;
  edges: number;
  components: number;
  meanDegree: number;
  states: number;
  retained: number;
  bridges: number;
  params: GraphArtifact['params'];
  dataset: GraphArtifact['dataset'];
  models: GraphArtifact['models'];
}> {
  let expect: { models?: { embed: string; policy: string } } = {};
  if (models !== undefined) {
    const m = await loadModels(models);
    expect = {
      models: { embed: m.manifest.files['embed.onnx'].sha256, policy: m.manifest.files['policy.onnx'].sha256 },
    };
    await m.close();
  }
  const a = await readGraph(file, expect);
  const c = connectivity(a);
  return {
    world: a.world,
    nodes: a.graph.nodeCount,
    edges: a.graph.edgeU.length,
    components: c.components,
    meanDegree: c.degreeMean,
    states: a.graph.support.length,
    retained: a.graph.retained,
    bridges: a.graph.bridges,
    params: a.params,
    dataset: a.dataset,
    models: a.models,
  };
}

/** The graph as plain JSON (node latents, task-space positions, supports, edges). */
export async function exportGraph(file: string, out: string): Promise<void> {
  const a = await readGraph(file);
  await writeFileAtomic(out, JSON.stringify(graphJson(a)) + '\n');
}
