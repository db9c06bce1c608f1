/** Building the graph artifact from a dataset and a model bundle: embed every state, then Appendix B.1. */
import type { Dataset } from '../../core/data/dataset.js';
import { type LatentGraph, buildGraph } from '../../core/graph/build.js';
import type { LoadedModels } from '../models/bundle.js';
import { datasetHash } from '../datasets/format.js';
import type { GraphArtifact } from './store.js';

/** Task-space position of each node: Π (columns 0 and 1) of the mean of its support. */
export function nodePositions(g: LatentGraph, d: Dataset): Float32Array {
  const positions = new Float32Array(g.nodeCount * 2);
  const counts = new Int32Array(g.nodeCount);
  g.support.forEach((v, i) => {
    positions[v * 2]! += d.observations[i * d.obsDim]!;
    positions[v * 2 + 1]! += d.observations[i * d.obsDim + 1]!;
    counts[v]!++;
  });
  for (let v = 0; v < g.nodeCount; v++) {
    if (counts[v]! > 0) {
      positions[v * 2]! /= counts[v]!;
      positions[v * 2 + 1]! /= counts[v]!;
    }
  }
  return positions;
}

/** progress(done, total) over 2n units: embedding, then graph construction. */
export async function buildArtifact(
  d: Dataset,
  m: LoadedModels,
  teThreshold: number,
  progress?: (done: number, total: number) => void,
): Promise<GraphArtifact> {
  const n = d.terminals.length;
  const dim = m.manifest.dims.latent;
  const latent = new Float32Array(n * dim);
  const chunk = 16384;
  for (let r = 0; r < n; r += chunk) {
    const rows = Math.min(chunk, n - r);
    latent.set(await m.embed(d.observations.subarray(r * d.obsDim, (r + rows) * d.obsDim), rows), r * dim);
    progress?.(r + rows, 2 * n);
  }
  const params = { H_TD: m.manifest.H_TD, teThreshold };
  // The builder reports stages one after another; map them onto one monotone second half.
  const stages = ['temporal efficiency', 'clustering', 'supports'];
  const g = buildGraph(latent, dim, d.terminals, params, (stage, done, total) => {
    const k = Math.max(0, stages.indexOf(stage));
    progress?.(n + Math.floor(((k + done / Math.max(1, total)) / stages.length) * n * 0.99), 2 * n);
  });
  const positions = nodePositions(g, d);
  progress?.(2 * n, 2 * n);
  return {
    world: d.worldId,
    dataset: { sha256: datasetHash(d) },
    models: { embed: m.manifest.files['embed.onnx'].sha256, policy: m.manifest.files['policy.onnx'].sha256 },
    params,
    graph: g,
    positions,
  };
}
