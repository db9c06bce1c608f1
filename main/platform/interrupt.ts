/**
 * Ctrl-C and SIGTERM. While nothing needs a clean stop, the process keeps the signals' default
 * action: the kernel ends it at once, whatever it is doing — a synchronous decode, an SQLite scan,
 * a translation, none of which gives a JavaScript handler a turn. While something does need one — a
 * robot's running goal to cancel, a temporary file of an atomic write to remove, a server to keep
 * answering, a server the process started to stop (`cleanupOnSignal`) — it holds the signals
 * (`holdSignals`), and the process's handler (main/witness.ts), installed only while a hold is
 * taken, does that first (that work gives the event loop turns).
 *
 * Work that must stop cleanly rather than die registers while it runs (`interruptible`); the
 * handler aborts every registered signal on the first Ctrl-C and exits at once only when nothing is
 * registered, or on a second Ctrl-C.
 */
/** What the first Ctrl-C does to a robot's running work, unless the work says otherwise. */
const STOPPING_THE_ROBOT = 'stopping the robot first (its goal cancelled, or a zero velocity command)';

/** The registered work, each with what aborting it does (the handler says so). */
const active = new Map<AbortController, string>();

let holds = 0;
const watchers = new Set<(held: boolean) => void>();

/**
 * Asks for Ctrl-C and SIGTERM to be handled by the process (not by their default action) until the
 * returned release is called (once; further calls do nothing).
 */
export function holdSignals(): () => void {
  if (holds++ === 0) for (const w of watchers) w(true);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holds === 0) for (const w of watchers) w(false);
  };
}

/**
 * Told now and whenever that changes whether any hold is taken (the process entry installs and removes its handlers).
 */
export function watchSignalHolds(w: (held: boolean) => void): void {
  watchers.add(w);
  w(holds > 0);
}

/**
 * A signal that the first Ctrl-C aborts; release it when the work is done. `stopping`: what aborting it does, in words.
 */
export function interruptible(stopping: string = STOPPING_THE_ROBOT): {
  readonly signal: AbortSignal;
  release(): void;
} {
  const ac = new AbortController();
  active.set(ac, stopping);
  const unhold = holdSignals();
  return {
    signal: ac.signal,
    release: () => {
      active.delete(ac);
      unhold();
    },
  };
}

/** What the handler undoes before the process exits (a server the process started), each with its hold. */
const cleanups = new Map<() => void, () => void>();

/**
 * Holds the signals while `cleanup` is registered: should Ctrl-C or SIGTERM end the process, the handler runs it
 * (synchronously) before it exits. Returns its release (once; further calls do nothing).
 */
export function cleanupOnSignal(cleanup: () => void): () => void {
  const unhold = holdSignals();
  cleanups.set(cleanup, unhold);
  return () => {
    if (cleanups.delete(cleanup)) unhold();
  };
}

/**
 * Runs every registered cleanup once, the last registered first (as nested `finally` blocks would: a child process
 * killed before the folder it writes in is removed); one that throws does not stop the others.
 */
export function runCleanups(): void {
  for (const [cleanup, unhold] of [...cleanups].reverse()) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // The process exits anyway: what could be undone was.
    }
    unhold();
  }
}

/** What aborting the registered work does, each once (the handler says it before it aborts them). */
export function stopping(): string[] {
  return [...new Set(active.values())];
}

/** Aborts every registered signal with `reason`; false when none was registered (the caller exits). */
export function interruptAll(reason: string): boolean {
  if (active.size === 0) return false;
  for (const ac of [...active.keys()]) ac.abort(new Error(reason));
  active.clear();
  return true;
}
