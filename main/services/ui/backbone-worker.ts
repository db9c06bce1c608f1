/**
 * Worker thread: generates a navigate dataset in a point maze and builds the latent graph over it
 * with the world's models — seconds to minutes of CPU that must not stall the UI's event loop.
 * Progress goes back as messages; the parent cancels by terminating the worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { defaultConfig, generateDataset } from '../../core/data/generators.js';
import { DEFAULT_GRAPH } from '../../core/graph/build.js';
import { PointMazeSim } from '../../backends/mujoco/pointmaze.js';
import { loadModels } from '../models/bundle.js';
import { buildArtifact } from '../graph/build-artifact.js';
import type { GraphArtifact } from '../graph/store.js';
import type { Dataset } from '../../core/data/dataset.js';
import type { WorkerMessage } from './worker.js';

export interface BackboneJob {
  world: string;
  modelsDir: string;
  steps: number;
  seed: number;
}

const job = workerData as BackboneJob;
const post = (m: WorkerMessage<{ artifact: GraphArtifact; dataset: Dataset }>): void => parentPort!.postMessage(m);

try {
  const sim = await PointMazeSim.create(job.world);
  let dataset;
  try {
    dataset = generateDataset(sim, job.world, defaultConfig('navigate', job.steps, job.seed), (done, total) => post({ kind: 'progress', phase: 'generating the dataset', done, total }));
  } finally {
    sim.close();
  }
  const models = await loadModels(job.modelsDir, { expectWorld: job.world });
  try {
    const artifact = await buildArtifact(dataset, models, DEFAULT_GRAPH.teThreshold, (done, total) => post({ kind: 'progress', phase: 'building the latent graph', done, total }));
    post({ kind: 'done', result: { artifact, dataset } });
  } finally {
    await models.close();
  }
} catch (e) {
  post({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
}
