/**
 * The fleet store (services/fleet): every lab PC's audit log in one PostgreSQL. `witness audit init-store` creates
 * or migrates its schema, `push` sends a local log to it (`--watch`: as it grows, until Ctrl-C or SIGTERM), `verify
 * --from` checks it.
 */
import { interruptible } from '../platform/interrupt.js';
import { connectStore, isStoreUrl, migrateStore, redactUrl } from '../services/fleet/store.js';
import { type PushOptions, type PushResult, pushLog } from '../services/fleet/push.js';
import { type StoreVerifyResult, verifyStore } from '../services/fleet/verify.js';
import { type WatchOptions, type WatchResult, watchLog } from '../services/fleet/watch.js';

export type { PushOptions, PushResult, StoreVerifyResult, WatchResult };
export { isStoreUrl, redactUrl as redactStoreUrl };

/** Creates the fleet schema in the database at `url`, or brings it to this Witness's version (as its owner). */
export async function initStore(url: string): Promise<{ from: number; to: number }> {
  const c = await connectStore(url);
  try {
    return await migrateStore(c, url);
  } finally {
    await c.end().catch(() => {});
  }
}

export const pushAudit = (file: string, url: string, o: PushOptions = {}): Promise<PushResult> => pushLog(file, url, o);

export const verifyFleet = (url: string): Promise<StoreVerifyResult> => verifyStore(url);

/**
 * Pushes a log and keeps pushing as it grows; the first Ctrl-C or SIGTERM stops it once the batch being sent has
 * committed (a second exits at once: the batch in flight is rolled back by the server, and the next push resends it).
 */
export async function watchAudit(
  file: string,
  url: string,
  o: Omit<WatchOptions, 'signal'>,
): Promise<WatchResult & { stopped: string }> {
  const stop = interruptible('finishing the batch being sent, then stopping the push');
  try {
    const r = await watchLog(file, url, { ...o, signal: stop.signal });
    const why: unknown = stop.signal.reason;
    return { ...r, stopped: why instanceof Error ? why.message : 'stopped' };
  } finally {
    stop.release();
  }
}
