/**
 * The backbone a console mission plans on: built in a worker thread (cancellable, with progress)
 * and kept for the session, so planning a second mission in the same world is immediate.
 */
import type { Dataset } from '../../core/data/dataset.js';
import type { GraphArtifact } from '../graph/store.js';
import { loadModels } from '../models/bundle.js';
import type { Backbone } from '../plan/inputs.js';
import type { BackboneJob } from './backbone-worker.js';
import { inWorker } from './worker.js';

export type BackboneProgress = (phase: string, done: number, total: number) => void;

/** Builds dataset and graph off the event loop; rejects with 'cancelled' when the signal aborts. */
export function buildInWorker(job: BackboneJob, signal: AbortSignal, progress: BackboneProgress): Promise<{ artifact: GraphArtifact; dataset: Dataset }> {
  return inWorker(new URL('./backbone-worker.js', import.meta.url), job, signal, progress);
}

/** Backbones by world, dataset size and seed, built once per session. */
export class BackboneCache {
  private readonly ready = new Map<string, Backbone>();

  async get(job: BackboneJob, signal: AbortSignal, progress: BackboneProgress): Promise<Backbone> {
    const key = `${job.world}|${job.modelsDir}|${job.steps}|${job.seed}`;
    const hit = this.ready.get(key);
    if (hit !== undefined) return hit;
    const { artifact, dataset } = await buildInWorker(job, signal, progress);
    const models = await loadModels(job.modelsDir, { expectWorld: job.world });
    const b: Backbone = { artifact, dataset, models, files: { graph: '(built in the session)', data: '(generated)', models: job.modelsDir } };
    this.ready.set(key, b);
    return b;
  }

  async close(): Promise<void> {
    for (const b of this.ready.values()) await b.models.close();
    this.ready.clear();
  }
}
