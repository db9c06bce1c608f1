/**
 * The interface every world implements: the embedded MuJoCo simulators (point mazes, the tabletop)
 * and ROS 2 robots or simulators (backends/ros2). It is asynchronous and fallible on purpose: a real
 * robot times out, is cancelled and fails, so every call can reject with a WorldError saying which.
 */

/** A named vector space: dimension, per-dimension names, bounds where they exist. */
export interface VectorSpec {
  readonly dim: number;
  readonly names: readonly string[];
  readonly low?: readonly number[];
  readonly high?: readonly number[];
}

export interface WorldSpec {
  /** Stable id, e.g. `pointmaze-medium`. */
  readonly id: string;
  readonly backend: 'mujoco' | 'ros2' | 'tabletop';
  readonly description: string;
  readonly observation: VectorSpec;
  readonly action: VectorSpec;
  /** Task space X of the projection Π: S → X (for a maze, the agent's x and y). */
  readonly taskSpace: VectorSpec;
  /** Seconds of world time per step. */
  readonly control_dt_s: number;
}

export interface SensorReading {
  readonly value: number | readonly number[];
  readonly unit?: string;
  /** World time of the reading, s. */
  readonly time_s: number;
}

/**
 * The names a verifier or a specification may use, with their kinds: registration checks every
 * name a tool or a spec mentions against this before anything runs.
 */
export interface Registry {
  readonly sensors: Readonly<Record<string, { readonly unit?: string; readonly dim: number }>>;
  readonly fields: Readonly<Record<string, 'number' | 'string' | 'bool' | 'vector'>>;
  readonly objects: readonly string[];
}

export interface StepResult {
  readonly observation: Float64Array;
  readonly time_s: number;
}

export interface CallOptions {
  /** Give up after this long; the call rejects with WorldError 'timeout'. */
  readonly timeout_s?: number;
  /** Abort to cancel; the call rejects with WorldError 'cancelled'. */
  readonly signal?: AbortSignal;
}

export interface ResetOptions extends CallOptions {
  readonly seed: number;
  /** A full state to start from (layout as the observation); default: the world's own start. */
  readonly initialState?: readonly number[];
}

export interface World {
  readonly spec: WorldSpec;
  reset(options: ResetOptions): Promise<StepResult>;
  /** Applies one action for control_dt_s and returns what was observed after it. */
  step(action: readonly number[], options?: CallOptions): Promise<StepResult>;
  /** Π: the task-space point of an observation. */
  project(observation: ArrayLike<number>): Float64Array;
  sensors(options?: CallOptions): Promise<Readonly<Record<string, SensorReading>>>;
  registry(): Registry;
  /** World time, s. */
  time_s(): number;
  close(): Promise<void>;
}

/**
 * Why a call failed. `rejected` and `aborted` are a robot's goal refused or given up by its server;
 * `disconnected` is a robot that stopped answering (no fresh sensor data, a shut-down middleware),
 * as opposed to `closed`, a world this process closed itself.
 */
export type WorldErrorKind = 'timeout' | 'cancelled' | 'failed' | 'invalid-input' | 'closed' | 'not-found' | 'rejected' | 'aborted' | 'disconnected';

export class WorldError extends Error {
  override readonly name = 'WorldError';
  constructor(readonly kind: WorldErrorKind, readonly world: string, readonly detail: string) {
    super(`${world}: ${kind}: ${detail}`);
  }
}

/** Races a call against its timeout and abort signal, so every backend reports them the same way. */
export async function guardCall<T>(world: string, what: string, options: CallOptions | undefined, work: () => Promise<T>): Promise<T> {
  const signal = options?.signal;
  if (signal?.aborted) throw new WorldError('cancelled', world, `${what} cancelled before it started`);
  const timeout_s = options?.timeout_s;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const guards = new Promise<never>((_, reject) => {
    if (timeout_s !== undefined) {
      timer = setTimeout(() => reject(new WorldError('timeout', world, `${what} took longer than ${timeout_s} s`)), timeout_s * 1000);
    }
    if (signal) {
      onAbort = () => reject(new WorldError('cancelled', world, `${what} cancelled`));
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work(), guards]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs work that stops when told: its signal is aborted on the caller's timeout or abort, and the
 * call rejects with WorldError 'timeout' or 'cancelled' only once the work has settled, so the world
 * is quiescent (the skill stopped, the goal cancelled) when the caller observes it next. A
 * WorldError of the same kind thrown by the work itself wins, since it knows more (how the stop went).
 */
export async function runStoppable<T>(world: string, what: string, options: CallOptions | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const outer = options?.signal;
  // An abort whose reason is a WorldError (a world closing under the call) reports that error.
  const abortError = (fallback: string): WorldError => (outer?.reason instanceof WorldError ? outer.reason : new WorldError('cancelled', world, fallback));
  if (outer?.aborted) throw abortError(`${what} cancelled before it started`);
  const inner = new AbortController();
  let reason: WorldError | undefined;
  const stop = (e: WorldError): void => {
    if (reason !== undefined) return;
    reason = e;
    inner.abort(e);
  };
  const timeout_s = options?.timeout_s;
  const timer = timeout_s !== undefined ? setTimeout(() => stop(new WorldError('timeout', world, `${what} took longer than ${timeout_s} s`)), timeout_s * 1000) : undefined;
  const onAbort = (): void => stop(abortError(`${what} cancelled`));
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await work(inner.signal);
    if (reason !== undefined) throw reason;
    return r;
  } catch (e) {
    if (reason !== undefined && !(e instanceof WorldError && e.kind === reason.kind)) throw reason;
    throw e;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}
