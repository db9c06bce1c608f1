/**
 * Worker thread: trains a model bundle for a maze world from a fresh navigate dataset (the console's
 * "Train models" job). Minutes of TF.js work that must not stall the event loop; cancelled by
 * terminating the worker (the bundle is written to a temporary folder and renamed at the end, so a
 * cancelled job leaves no half-written bundle behind).
 */
import { workerData } from 'node:worker_threads';
import { serveWorker } from '../platform/workers.js';
import { type TrainJob, trainBundleFromScratch } from './train.js';

await serveWorker((progress) => trainBundleFromScratch(workerData as TrainJob, progress));
