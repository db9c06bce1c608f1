/**
 * Long CPU work off the event loop: a worker thread that posts progress and one result; aborting
 * the signal terminates it at once (the UI's Cancel), and the promise rejects with 'cancelled'.
 */
import { Worker, parentPort } from 'node:worker_threads';
import { WitnessError, isErrorCode } from '../contract/errors.js';

export type WorkerMessage<T> =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'done'; result: T }
  | { kind: 'error'; message: string; code?: string };

/**
 * The worker side: runs `work` with a progress reporter and posts its result, or its error with the
 * error's code, so that a WitnessError thrown in the worker arrives as the same WitnessError.
 */
export async function serveWorker<T>(work: (progress: (phase: string, done: number, total: number) => void) => Promise<T>): Promise<void> {
  const post = (m: WorkerMessage<T>): void => parentPort!.postMessage(m);
  try {
    const result = await work((phase, done, total) => post({ kind: 'progress', phase, done, total }));
    post({ kind: 'done', result });
  } catch (e) {
    post({ kind: 'error', message: e instanceof Error ? e.message : String(e), ...(e instanceof WitnessError ? { code: e.code } : {}) });
  }
}

export function inWorker<T>(url: URL, workerData: unknown, signal: AbortSignal, progress: (phase: string, done: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new WitnessError('cancelled', 'cancelled'));
    const worker = new Worker(url, { workerData });
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      f();
    };
    const onAbort = (): void => settle(() => reject(new WitnessError('cancelled', 'cancelled')));
    signal.addEventListener('abort', onAbort);
    worker.on('message', (m: WorkerMessage<T>) => {
      if (m.kind === 'progress') progress(m.phase, m.done, m.total);
      else if (m.kind === 'done') settle(() => resolve(m.result));
      else settle(() => reject(m.code !== undefined && isErrorCode(m.code) ? new WitnessError(m.code, m.message) : new Error(m.message)));
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the worker exited (code ${code}) before it finished`))));
  });
}
