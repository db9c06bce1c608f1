/**
 * Long work off the event loop, in worker threads:
 *
 *  - inWorker: a one-shot worker that posts progress and one result; aborting the signal terminates
 *    it at once (the UI's Cancel), and the promise rejects with 'cancelled'.
 *  - WorkerLane: a long-lived worker that answers requests one at a time, in order, and keeps what
 *    it holds between them (open database connections). A request that is abandoned (its signal),
 *    that runs past its time limit, or that is still running when the lane closes stops the worker
 *    at once; the next request starts a fresh one. The lane's thread keeps the process alive only
 *    while a request is pending. A request may report progress on the way (serveLane's `progress`), which the
 *    caller's `progress` receives.
 *
 * A WitnessError thrown in a worker arrives as a WitnessError with the same code, message and
 * location (file, path, line, column); anything else arrives as an Error (an internal error).
 */
import { type ResourceLimits, Worker, parentPort } from 'node:worker_threads';
import { WitnessError, isErrorCode } from '../contract/errors.js';

/** An error as it crosses between threads. */
interface WireError {
  readonly message: string;
  readonly code?: string;
  readonly file?: string;
  readonly path?: string;
  readonly line?: number;
  readonly column?: number;
  readonly stack?: string;
}

function errorToWire(e: unknown): WireError {
  if (e instanceof WitnessError) {
    const { file, path, line, column } = e.at;
    return {
      message: e.message,
      code: e.code,
      ...(file !== undefined ? { file } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(line !== undefined ? { line } : {}),
      ...(column !== undefined ? { column } : {}),
    };
  }
  return {
    message: e instanceof Error ? e.message : String(e),
    ...(e instanceof Error && e.stack !== undefined ? { stack: e.stack } : {}),
  };
}

function errorFromWire(w: WireError): Error {
  if (w.code !== undefined && isErrorCode(w.code)) {
    return new WitnessError(w.code, w.message, {
      ...(w.file !== undefined ? { file: w.file } : {}),
      ...(w.path !== undefined ? { path: w.path } : {}),
      ...(w.line !== undefined ? { line: w.line } : {}),
      ...(w.column !== undefined ? { column: w.column } : {}),
    });
  }
  const e = new Error(w.message);
  if (w.stack !== undefined) e.stack = w.stack;
  return e;
}

type WorkerMessage<T> =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'done'; result: T }
  | { kind: 'error'; error: WireError };

/**
 * The worker side: runs `work` with a progress reporter and posts its result, or its error with the
 * error's code, so that a WitnessError thrown in the worker arrives as the same WitnessError.
 */
export async function serveWorker<T>(
  work: (progress: (phase: string, done: number, total: number) => void) => Promise<T>,
): Promise<void> {
  const post = (m: WorkerMessage<T>): void => parentPort!.postMessage(m);
  try {
    const result = await work((phase, done, total) => post({ kind: 'progress', phase, done, total }));
    post({ kind: 'done', result });
  } catch (e) {
    post({ kind: 'error', error: errorToWire(e) });
  }
}

export function inWorker<T>(
  url: URL,
  workerData: unknown,
  signal: AbortSignal,
  progress: (phase: string, done: number, total: number) => void,
): Promise<T> {
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
      else settle(() => reject(errorFromWire(m.error)));
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the worker exited (code ${code}) before it finished`))));
  });
}

interface LaneRequest {
  readonly id: number;
  readonly method: string;
  readonly params: unknown;
}

type LaneReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown; readonly state: unknown }
  /** How far the request has come (it goes on). */
  | { readonly id: number; readonly progress: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError; readonly state: unknown }
  /** The worker has loaded its modules and takes requests (its start-up is not a request's time). */
  | { readonly ready: true };

/**
 * The worker side of a WorkerLane: answers each request with `handle`'s result (awaited) or its
 * error, and with `state()` after it (what the worker holds, for the owner to report); `handle` may
 * call `progress` on the way, as often as it likes (each call is one message to the owner).
 */
export function serveLane(
  handle: (method: string, params: unknown, progress: (p: unknown) => void) => unknown,
  state: () => unknown = () => null,
): void {
  const port = parentPort!;
  port.postMessage({ ready: true } satisfies LaneReply);
  port.on('message', (m: LaneRequest) => {
    void (async () => {
      let reply: LaneReply;
      const progress = (p: unknown): void => port.postMessage({ id: m.id, progress: p } satisfies LaneReply);
      try {
        reply = { id: m.id, ok: true, result: await handle(m.method, m.params, progress), state: state() };
      } catch (e) {
        reply = { id: m.id, ok: false, error: errorToWire(e), state: state() };
      }
      port.postMessage(reply);
    })();
  });
}

export interface LaneOptions {
  /** What the lane does, in words, for its error messages ("the audit reader"). */
  readonly name: string;
  /** Requests that may wait while one runs; more are refused as busy. */
  readonly maxQueue?: number;
  /** The worker's heap and stack limits: a read that needs more fails alone, the process goes on. */
  readonly resourceLimits?: ResourceLimits;
  /** What the worker holds after each request, and null when its thread is gone. */
  readonly onState?: (state: unknown) => void;
}

export interface LaneCall {
  /** Longest the request may run once started; past it the worker is stopped and the request fails with 'budget'. */
  readonly timeLimitMs: number;
  /** Abandons the request: taken out of the queue, or its worker stopped if it runs. */
  readonly signal?: AbortSignal;
  /** The request in words, for error messages ("auditQuery on /x/audit.sqlite"). */
  readonly what?: string;
  /** Told what the request reports of its progress while it runs. */
  readonly progress?: (p: unknown) => void;
}

/** How long a fresh worker may take to load its modules, on top of its first request's limit. */
const STARTUP_MS = 30_000;

interface Job {
  readonly request: LaneRequest;
  readonly call: LaneCall;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  readonly onAbort: () => void;
  timer?: NodeJS.Timeout;
}

export class WorkerLane {
  private worker: Worker | null = null;
  /** Whether the worker has said it is ready (a request's time limit runs from then). */
  private ready = false;
  private readonly queue: Job[] = [];
  private running: Job | null = null;
  private nextId = 1;
  private closed = false;
  private readonly exits = new Set<Promise<unknown>>();

  constructor(
    private readonly url: URL,
    private readonly workerData: unknown,
    private readonly o: LaneOptions,
  ) {}

  /** Requests waiting or running. */
  get pending(): number {
    return this.queue.length + (this.running !== null ? 1 : 0);
  }

  request<T>(method: string, params: unknown, call: LaneCall): Promise<T> {
    const what = call.what ?? method;
    if (this.closed) return Promise.reject(new WitnessError('cancelled', `${what}: ${this.o.name} is closed`));
    if (call.signal?.aborted === true)
      return Promise.reject(new WitnessError('cancelled', `${what}: abandoned before it started`));
    if (this.queue.length >= (this.o.maxQueue ?? 100)) {
      return Promise.reject(
        new WitnessError(
          'busy',
          `${what}: ${this.o.name} has ${this.queue.length} requests waiting already; try again when they are answered`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        request: { id: this.nextId++, method, params },
        call,
        resolve: resolve as (v: unknown) => void,
        reject,
        onAbort: () => this.abandon(job, new WitnessError('cancelled', `${what}: abandoned`)),
      };
      call.signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  /** Fails every request, stops the worker and waits until its thread is gone. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queue, ...(this.running !== null ? [this.running] : [])]) {
      this.abandon(
        job,
        new WitnessError(
          'cancelled',
          `${job.call.what ?? job.request.method}: ${this.o.name} closed before it was answered`,
        ),
      );
    }
    this.stopWorker();
    await Promise.all([...this.exits]);
  }

  private pump(): void {
    if (this.running !== null || this.closed) return;
    const job = this.queue.shift();
    if (job === undefined) {
      this.worker?.unref();
      return;
    }
    const worker = this.worker ?? this.startWorker();
    worker.ref();
    this.running = job;
    // A fresh worker first loads its modules: the limit then runs from when it is ready, and the
    // start-up itself has a bound of its own.
    this.limit(job, this.ready ? job.call.timeLimitMs : STARTUP_MS + job.call.timeLimitMs);
    try {
      worker.postMessage(job.request);
    } catch (e) {
      // A request that cannot be copied to the thread (nested too deep for the copy's stack): refused at once, and the
      // lane goes on to the next, rather than holding this one until its time limit.
      this.finish(job);
      job.reject(
        new WitnessError(
          'invalid-input',
          `${job.call.what ?? job.request.method}: its request cannot be passed to ${this.o.name}: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
      this.pump();
    }
  }

  private limit(job: Job, ms: number): void {
    clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      const s = job.call.timeLimitMs / 1000;
      this.abandon(
        job,
        new WitnessError(
          'budget',
          `${job.call.what ?? job.request.method}: stopped after ${s >= 1 ? `${Number(s.toFixed(1))} s` : `${job.call.timeLimitMs} ms`}, the longest ${this.o.name} lets one request run`,
        ),
      );
    }, ms);
  }

  private startWorker(): Worker {
    const worker = new Worker(this.url, {
      workerData: this.workerData,
      ...(this.o.resourceLimits !== undefined ? { resourceLimits: this.o.resourceLimits } : {}),
    });
    this.worker = worker;
    this.ready = false;
    worker.on('message', (m: LaneReply) => {
      const job = this.running;
      if (this.worker !== worker) return;
      if ('progress' in m) {
        if (job !== null && job.request.id === m.id) job.call.progress?.(m.progress);
        return;
      }
      if ('ready' in m) {
        this.ready = true;
        if (job !== null) this.limit(job, job.call.timeLimitMs);
        return;
      }
      if (job === null || job.request.id !== m.id) return;
      this.o.onState?.(m.state);
      this.finish(job);
      if (m.ok) job.resolve(m.result);
      else job.reject(errorFromWire(m.error));
      this.pump();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      if (this.worker !== worker) return;
      const job = this.running;
      this.stopWorker();
      if (job === null) return;
      this.finish(job);
      const what = job.call.what ?? job.request.method;
      job.reject(
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new WitnessError(
              'budget',
              `${what}: needed more memory than ${this.o.name} may use (${this.o.resourceLimits?.maxOldGenerationSizeMb ?? '?'} MiB) and was stopped`,
            )
          : new Error(`${what}: ${this.o.name} failed: ${e.message}`),
      );
      this.pump();
    });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    this.exits.add(exited);
    void exited.then(() => this.exits.delete(exited));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      const job = this.running;
      this.worker = null;
      this.o.onState?.(null);
      if (job === null) return;
      this.finish(job);
      job.reject(
        new Error(
          `${job.call.what ?? job.request.method}: ${this.o.name} stopped (exit code ${code}) before it answered`,
        ),
      );
      this.pump();
    });
    return worker;
  }

  private finish(job: Job): void {
    clearTimeout(job.timer);
    job.call.signal?.removeEventListener('abort', job.onAbort);
    if (this.running === job) this.running = null;
  }

  /** Takes `job` out: out of the queue, or its worker stopped (the next request gets a fresh one). */
  private abandon(job: Job, why: WitnessError): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    else if (this.running === job) this.stopWorker();
    else return;
    this.finish(job);
    job.reject(why);
    this.pump();
  }

  private stopWorker(): void {
    const w = this.worker;
    if (w === null) return;
    this.worker = null;
    this.o.onState?.(null);
    void w.terminate();
  }
}
