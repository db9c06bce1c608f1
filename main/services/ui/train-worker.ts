/**
 * Worker thread: trains a model bundle for a point maze from a fresh navigate dataset (the UI's
 * "Train models" job). Minutes of TF.js work that must not stall the event loop; cancelled by
 * terminating the worker (the bundle is written to a temporary folder and renamed at the end, so a
 * cancelled job leaves no half-written bundle behind).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { defaultConfig, generateDataset } from '../../core/data/generators.js';
import { PointMazeSim } from '../../backends/mujoco/pointmaze.js';
import { DEFAULT_EMBED } from '../training/embed-trainer.js';
import { DEFAULT_POLICY } from '../training/policy-trainer.js';
import { trainBundle } from '../training/bundle.js';
import type { WorkerMessage } from './worker.js';

export interface TrainJob {
  world: string;
  out: string;
  datasetSteps: number;
  embedSteps: number;
  policySteps: number;
  seed: number;
}

const job = workerData as TrainJob;
const post = (m: WorkerMessage<{ out: string }>): void => parentPort!.postMessage(m);

try {
  const sim = await PointMazeSim.create(job.world);
  let dataset;
  try {
    dataset = generateDataset(sim, job.world, defaultConfig('navigate', job.datasetSteps, job.seed), (done, total) => post({ kind: 'progress', phase: 'generating the dataset', done, total }));
  } finally {
    sim.close();
  }
  await trainBundle(
    dataset, `navigate-${job.datasetSteps}-seed${job.seed} (generated)`,
    { ...DEFAULT_EMBED, steps: job.embedSteps, seed: job.seed }, { ...DEFAULT_POLICY, steps: job.policySteps, seed: job.seed }, job.out,
    (stage, step, total) => post({ kind: 'progress', phase: stage === 'embedding' ? 'training ψ (embedding)' : 'training π_low (policy)', done: step, total }),
  );
  post({ kind: 'done', result: { out: job.out } });
} catch (e) {
  post({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
}
