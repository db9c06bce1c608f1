/**
 * The fleet store (services/fleet): every lab PC's audit log in one PostgreSQL. `witness audit init-store` creates
 * or migrates its schema, `push` sends a local log to it, `verify --from` checks it.
 */
import { connectStore, isStoreUrl, migrateStore, redactUrl } from '../services/fleet/store.js';
import { type PushOptions, type PushResult, pushLog } from '../services/fleet/push.js';
import { type StoreVerifyResult, verifyStore } from '../services/fleet/verify.js';

export type { PushOptions, PushResult, StoreVerifyResult };
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
