/**
 * `witness audit push --watch`: a log pushed as it grows (a lab PC streaming to the store while Witness writes it).
 * Each round opens the log again (it may have been replaced meanwhile), verifies only what follows the chain the last
 * round verified (push-source.ts), and sends what the store lacks (push.ts: the same batches, the same resume). A store
 * that cannot be reached or goes away is retried with a growing pause, said on `note` each time, the connection made
 * anew: the resume sends what is missing, once. A log that no longer extends what was verified of it (rolled back,
 * rewritten, replaced), or that does not verify, ends the watch with the refusal. `signal` stops it after the batch
 * being sent commits.
 */
import { hostname } from 'node:os';
import type pg from 'pg';
import type { ChainWalk } from '../audit/chain.js';
import {
  type PushOptions,
  type Source,
  openSource,
  pushSession,
  resolveSource,
  sendEvents,
  storeHead,
} from './push.js';
import { fleetErrorOf, isServerGone, redactUrl, requireStoreUrl } from './store.js';

export interface WatchOptions extends PushOptions {
  /** The pause between rounds. */
  readonly interval_ms: number;
  /** Aborted: stop after the batch being sent commits. */
  readonly signal: AbortSignal;
  /** A line about the watch (a store gone and when it is tried again, events sent), for stderr. */
  readonly note: (line: string) => void;
  /** The first pause after the store went away, doubled each time up to `max`. */
  readonly retry?: { readonly first_ms: number; readonly max_ms: number };
}

export interface WatchResult {
  readonly store: string;
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
  /** Rounds made, events sent by this watch, the local log's events and head when it stopped. */
  readonly rounds: number;
  readonly sent: number;
  readonly local: number;
  readonly head: string;
  /** Times the store could not be reached or went away. */
  readonly retries: number;
}

const RETRY = { first_ms: 500, max_ms: 30_000 };

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Pushes `file` to `url` and keeps pushing as it grows, until `o.signal` aborts; what was done. */
export async function watchLog(file: string, url: string, o: WatchOptions): Promise<WatchResult> {
  requireStoreUrl(url);
  const host = o.host ?? hostname();
  const retry = o.retry ?? RETRY;
  let verified: ChainWalk | undefined;
  let c: pg.Client | null = null;
  let source: Source | null = null;
  let rounds = 0,
    sent = 0,
    retries = 0,
    wait = retry.first_ms;
  // What the store held of the log when the watch began, and `sent` as of the last push that ended durable (push.ts
  // sendEvents): a server that crashed may have lost the batches committed after it.
  let startHead = 0,
    durable = 0;
  const drop = async (): Promise<void> => {
    await c?.end().catch(() => {});
    c = null;
  };
  try {
    while (!o.signal.aborted) {
      const src = openSource(file, url, verified);
      verified = src.walk;
      rounds++;
      try {
        if (src.events > 0) {
          if (c === null) {
            c = await pushSession(url);
            // Connected again after the store went away: what it holds now is what this watch has sent.
            if (source !== null) sent = durable = (await storeHead(c, source.id)).seq - startHead;
          }
          // Resolved once (the store's head checked against the log), then each batch checks it again.
          if (source === null)
            ({ source, before: startHead } = await resolveSource(c, url, src, { host, robot: o.robot }));
          // Counted as each batch commits; once the store went away, recounted from what it holds (above).
          let before = 0;
          const n = await sendEvents(c, url, src, source.id, {
            ...o,
            stop: () => o.signal.aborted,
            progress: (k) => {
              sent += k - before;
              before = k;
              o.progress?.(sent);
            },
          });
          durable = sent;
          if (n > 0)
            o.note(`sent ${n} event${n === 1 ? '' : 's'} (${src.events} in the log; head ${src.head.slice(0, 16)}…)`);
        }
        wait = retry.first_ms;
      } catch (e) {
        if (!isServerGone(e)) throw e;
        retries++;
        sent = durable;
        await drop();
        o.note(`${fleetErrorOf(url, e).message}; trying again in ${(wait / 1000).toFixed(1)} s`);
        await pause(wait, o.signal);
        wait = Math.min(retry.max_ms, wait * 2);
        continue;
      } finally {
        src.close();
      }
      await pause(o.interval_ms, o.signal);
    }
  } catch (e) {
    throw fleetErrorOf(url, e);
  } finally {
    await drop();
  }
  return {
    store: redactUrl(url),
    log_id: verified?.first ?? '',
    host,
    robot: source?.robot ?? o.robot ?? null,
    rounds,
    sent,
    local: verified?.events ?? 0,
    head: verified?.head ?? '',
    retries,
  };
}
