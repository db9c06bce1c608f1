/**
 * The backbones a console session plans on: opened through the cache of generated backbones (built
 * in a worker thread on a miss, cancellable, with progress) and kept for the session, so planning a
 * second mission in the same world is immediate.
 */
import { WitnessError } from '../contract/errors.js';
import { inWorker } from '../platform/workers.js';
import { type Backbone, type GenerateJob, openBackbone } from './backbone.js';
import type { Progress } from './jobs.js';
import type { Dataset } from '../core/data/dataset.js';
import type { GraphArtifact } from '../services/graph/store.js';

/** Builds the dataset and the graph off the event loop; rejects with 'cancelled' when the signal aborts. */
function buildInWorker(
  job: GenerateJob,
  signal: AbortSignal,
  progress: Progress,
): Promise<{ artifact: GraphArtifact; dataset: Dataset }> {
  return inWorker(new URL('./backbone-worker.js', import.meta.url), job, signal, progress);
}

export class BackboneCache {
  private readonly ready = new Map<string, Backbone>();

  async get(job: GenerateJob, signal: AbortSignal, progress: Progress): Promise<Backbone> {
    const key = `${job.world}|${job.kind ?? 'navigate'}|${job.modelsDir}|${job.steps}|${job.seed}`;
    const hit = this.ready.get(key);
    if (hit !== undefined) return hit;
    const b = await openBackbone(
      {
        kind: 'generate',
        world: job.world,
        datasetSteps: job.steps,
        seed: job.seed,
        models: job.modelsDir,
        ...(job.kind !== undefined ? { datasetKind: job.kind } : {}),
      },
      {
        progress,
        generate: (j) => buildInWorker(j, signal, progress),
      },
    );
    if (signal.aborted) {
      await b.models.close();
      throw new WitnessError('cancelled', 'planning cancelled');
    }
    this.ready.set(key, b);
    return b;
  }

  async close(): Promise<void> {
    for (const b of this.ready.values()) await b.models.close();
    this.ready.clear();
  }
}
