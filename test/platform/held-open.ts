/**
 * TEST CODE: waiting for a process to hold a file open (Linux: /proc/PID/fd), instead of sleeping and hoping it has.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import assert from 'node:assert/strict';

/** Whether process `pid` (or this one) holds `file` open now. */
function holdsOpen(file: string, pid: number | 'self' = 'self'): boolean {
  const dir = `/proc/${pid}/fd`;
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`${dir}/${fd}`) === file) return true;
    } catch {
      /* closed meanwhile */
    }
  }
  return false;
}

/**
 * Resolves once `pid` holds `file` open; fails after `bound_ms` (a generous bound: it happens in
 * milliseconds), or at once when `gone()` says the process is no longer there to open it.
 */
export async function heldOpen(
  file: string,
  o: { pid?: number | 'self'; bound_ms?: number; gone?: () => string | null } = {},
): Promise<void> {
  const until = Date.now() + (o.bound_ms ?? 30_000);
  while (Date.now() < until) {
    const why = o.gone?.() ?? null;
    if (why !== null) assert.fail(why);
    if (holdsOpen(file, o.pid ?? 'self')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`${file} was never opened`);
}
