/**
 * What every backend shares: calls raced against their timeout and abort signal, and work that
 * stops when told, so that every world reports timeouts and cancellations the same way. The world
 * interfaces themselves are in core/world/world.ts.
 */
import { type CallOptions, WorldError } from '../core/world/world.js';

/** Races a call against its timeout and abort signal, so every backend reports them the same way. */
export async function guardCall<T>(
  world: string,
  what: string,
  options: CallOptions | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const signal = options?.signal;
  if (signal?.aborted) throw new WorldError('cancelled', world, `${what} cancelled before it started`);
  const timeout_s = options?.timeout_s;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const guards = new Promise<never>((_, reject) => {
    if (timeout_s !== undefined) {
      timer = setTimeout(
        () => reject(new WorldError('timeout', world, `${what} took longer than ${timeout_s} s`)),
        timeout_s * 1000,
      );
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
export async function runStoppable<T>(
  world: string,
  what: string,
  options: CallOptions | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const outer = options?.signal;
  // An abort whose reason is a WorldError (a world closing under the call) reports that error.
  const abortError = (fallback: string): WorldError =>
    outer?.reason instanceof WorldError ? outer.reason : new WorldError('cancelled', world, fallback);
  if (outer?.aborted) throw abortError(`${what} cancelled before it started`);
  const inner = new AbortController();
  let reason: WorldError | undefined;
  const stop = (e: WorldError): void => {
    if (reason !== undefined) return;
    reason = e;
    inner.abort(e);
  };
  const timeout_s = options?.timeout_s;
  const timer =
    timeout_s !== undefined
      ? setTimeout(
          () => stop(new WorldError('timeout', world, `${what} took longer than ${timeout_s} s`)),
          timeout_s * 1000,
        )
      : undefined;
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
