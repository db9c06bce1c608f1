/**
 * Long CPU work off the event loop: a worker thread that posts progress and one result; aborting
 * the signal terminates it at once (the UI's Cancel), and the promise rejects with 'cancelled'.
 */
import { Worker } from 'node:worker_threads';

export type WorkerMessage<T> =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'done'; result: T }
  | { kind: 'error'; message: string };

export function inWorker<T>(url: URL, workerData: unknown, signal: AbortSignal, progress: (phase: string, done: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('cancelled'));
    const worker = new Worker(url, { workerData });
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      f();
    };
    const onAbort = (): void => settle(() => reject(new Error('cancelled')));
    signal.addEventListener('abort', onAbort);
    worker.on('message', (m: WorkerMessage<T>) => {
      if (m.kind === 'progress') progress(m.phase, m.done, m.total);
      else if (m.kind === 'done') settle(() => resolve(m.result));
      else settle(() => reject(new Error(m.message)));
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the worker exited (code ${code}) before it finished`))));
  });
}
