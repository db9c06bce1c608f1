/**
 * Worker thread: generates a dataset of the job's regime in a maze world and builds the latent graph over it
 * with the world's models — seconds to minutes of CPU that must not stall the console's event loop.
 * Progress goes back as messages; the parent cancels by terminating the worker.
 */
import { workerData } from 'node:worker_threads';
import { serveWorker } from '../platform/workers.js';
import { type GenerateJob, generateBackbone } from './backbone.js';

await serveWorker((progress) => generateBackbone(workerData as GenerateJob, progress));
