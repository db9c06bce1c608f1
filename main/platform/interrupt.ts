/**
 * Ctrl-C for work that must stop cleanly rather than die: a robot's running goal is cancelled (and
 * the cancel's outcome reported) before the process exits. Work registers while it runs; the
 * process's signal handler (main/witness.ts) aborts every registered signal on the first Ctrl-C and
 * exits at once only when nothing is registered, or on a second Ctrl-C.
 */
const active = new Set<AbortController>();

/** A signal that the first Ctrl-C aborts; release it when the work is done. */
export function interruptible(): { readonly signal: AbortSignal; release(): void } {
  const ac = new AbortController();
  active.add(ac);
  return { signal: ac.signal, release: () => void active.delete(ac) };
}

/** Aborts every registered signal with `reason`; false when none was registered (the caller exits). */
export function interruptAll(reason: string): boolean {
  if (active.size === 0) return false;
  for (const ac of [...active]) ac.abort(new Error(reason));
  active.clear();
  return true;
}
