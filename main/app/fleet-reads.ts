/**
 * The audit read commands on a fleet store (`witness audit ls|query|show|export --from postgres://…`). `ls` and
 * `query` read across the sources the filters select, in PostgreSQL (services/fleet/reads.ts), a page at a time;
 * `show` and `export` need one source: they bring its mirror in the cache up to the store (services/fleet/mirror.ts,
 * verified as it is pulled) and read that local log with the code that reads every local log. A reader role
 * (witness_reader) suffices for all of them.
 */
import { cacheDir } from '../platform/paths.js';
import { connectStore, fleetErrorOf, requireSchema, FleetError } from '../services/fleet/store.js';
import {
  type SourceFilter,
  type SourceInfo,
  type SourceRow,
  checkSourceFilter,
  listSources,
  oneSource,
  sourceRows,
  sourceText,
} from '../services/fleet/sources.js';
import {
  type FleetCursor,
  type FleetEvent,
  type FleetQuery,
  fleetEventPage,
  sourceRunPages,
} from '../services/fleet/reads.js';
import { type MirrorResult, mirrorPath, mirrorSource } from '../services/fleet/mirror.js';
import type { RunSummary } from '../services/audit/runs.js';
import { AuditError } from '../services/audit/store.js';

export type { FleetEvent, FleetQuery, MirrorResult, SourceFilter, SourceInfo, SourceRow };
export { sourceText };

/** A source as the JSON outputs name it. */
export interface SourceJson {
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
}

export const sourceJson = (s: SourceRow): SourceJson => ({ log_id: s.log_id, host: s.host, robot: s.robot });

/** An error of a read: the mirror's name its file; the others (the driver's, a value read) name the store. */
const storeError = (url: string, e: unknown): unknown =>
  e instanceof FleetError || e instanceof AuditError ? e : fleetErrorOf(url, e);

/** Runs `work` on a connection to the store (its schema checked, the filter too); errors name the store. */
async function withStore<T>(
  url: string,
  f: SourceFilter,
  work: (c: Awaited<ReturnType<typeof connectStore>>) => Promise<T>,
): Promise<T> {
  checkSourceFilter(url, f);
  const c = await connectStore(url);
  try {
    await requireSchema(c, url);
    return await work(c);
  } catch (e) {
    throw storeError(url, e);
  } finally {
    await c.end().catch(() => {});
  }
}

/** The window of the reads across sources: what they filter on besides which sources. */
const windowOf = (f: SourceFilter) => ({
  ...(f.world !== undefined ? { world: f.world } : {}),
  ...(f.since_ms !== undefined ? { since_ms: f.since_ms } : {}),
  ...(f.until_ms !== undefined ? { until_ms: f.until_ms } : {}),
});

/** The sources the filter selects, before the time window (applied to each source's events, cheaper). */
const selected = (c: Awaited<ReturnType<typeof connectStore>>, f: SourceFilter): Promise<SourceRow[]> =>
  sourceRows(c, { ...f, since_ms: undefined, until_ms: undefined });

/** The sources the filter selects, with their counts, times and worlds. */
export function fleetSources(url: string, f: SourceFilter = {}): Promise<SourceInfo[]> {
  return withStore(url, f, (c) => listSources(c, f));
}

/**
 * The runs of the sources the filter selects, source by source (in the order they were first pushed), each source's
 * oldest first, `size` at a time; with a world, its runs only; with a time window, the runs started in it.
 */
export async function* fleetRunPages(
  url: string,
  f: SourceFilter,
  size = 1000,
): AsyncGenerator<{ source: SourceRow; runs: RunSummary[] }> {
  checkSourceFilter(url, f);
  const c = await connectStore(url);
  try {
    await requireSchema(c, url);
    for (const s of await selected(c, f))
      for await (const runs of sourceRunPages(c, s, windowOf(f), size)) yield { source: s, runs };
  } catch (e) {
    throw storeError(url, e);
  } finally {
    await c.end().catch(() => {});
  }
}

/** A cursor as the CLI shows it: the source's log id (its first 16 digits) and the sequence number. */
export const cursorText = (s: SourceRow, seq: number): string => `${s.log_id.slice(0, 16)}:${seq}`;

/** `--after`'s value among the selected sources: LOG:SEQ (a log id or a prefix of it), or SEQ when there is one. */
function cursorOf(url: string, text: string, sources: readonly SourceRow[]): FleetCursor {
  const m = /^(?:([0-9a-f]{1,64}):)?(\d{1,15})$/.exec(text.trim().toLowerCase());
  if (m === null)
    throw new FleetError(
      url,
      `--after must be SOURCE:SEQ on a fleet store (a source's log id, or a prefix of it, and a sequence number, as a page's cursor shows them), got ${JSON.stringify(text)}`,
    );
  const seq = Number(m[2]);
  const matches = m[1] === undefined ? [...sources] : sources.filter((s) => s.log_id.startsWith(m[1]!));
  if (matches.length !== 1)
    throw new FleetError(
      url,
      m[1] === undefined
        ? `--after ${text}: ${sources.length} sources match the filters; name the source as SOURCE:SEQ`
        : `--after ${text}: ${matches.length === 0 ? 'no source the filters select has' : 'more than one source has'} a log id starting with ${m[1]}`,
    );
  return { source: matches[0]!.id, seq };
}

export interface FleetQueryOptions {
  /** Where to start: a page's cursor (SOURCE:SEQ), or a sequence number when the filters select one source. */
  readonly after?: string;
  /** Keep polling for new events in every selected source (new sources too), until `stop` says so. */
  readonly follow?: boolean;
  readonly page: (rows: readonly FleetEvent[]) => void;
  /** Told where a text search stopped early (its cursor as text). */
  readonly incomplete?: (next: string) => void;
  readonly stop?: () => boolean;
}

/**
 * The events matching the query over the sources the filter selects, in the order (source, seq): one page from
 * `after` (with `follow`: every page, then the new events as they come, polled twice a second).
 */
export function fleetQuery(url: string, f: SourceFilter, q: FleetQuery, o: FleetQueryOptions): Promise<void> {
  return withStore(url, f, async (c) => {
    const query = { ...q, ...windowOf(f) };
    const sources = await selected(c, f);
    let after = o.after === undefined ? null : cursorOf(url, o.after, sources);
    const marks = new Map<number, number>();
    for (;;) {
      const page = await fleetEventPage(c, sources, query, after);
      o.page(page.rows);
      for (const [s, seq] of page.ends) marks.set(s, seq);
      if (o.follow !== true) {
        if (!page.complete && page.next !== null)
          o.incomplete?.(
            cursorText(
              sources.find((s) => s.id === page.next!.source)!,
              page.next.seq,
            ),
          );
        return;
      }
      after = page.next;
      if (after !== null) continue;
      // Caught up: from now on each source (new ones too) from where it was examined to.
      for (;;) {
        if (o.stop?.() === true) return;
        await new Promise((r) => setTimeout(r, 500));
        for (const s of await selected(c, f)) {
          let at: FleetCursor | null = { source: s.id, seq: marks.get(s.id) ?? 0 };
          while (at !== null) {
            const p = await fleetEventPage(c, [s], query, at);
            o.page(p.rows);
            at = p.next;
            for (const [k, seq] of p.ends) marks.set(k, seq);
          }
        }
      }
    }
  });
}

/**
 * Brings the mirror of the one source the filter selects up to the store (a FleetError listing the candidates when it
 * selects none or several; `what` names the command, for it): its file in the cache, to read as a local log.
 */
export function fleetMirror(
  url: string,
  f: SourceFilter,
  what: string,
  o: { readonly progress?: (n: number) => void } = {},
): Promise<MirrorResult> {
  return withStore(url, f, async (c) => {
    const s = await oneSource(c, url, f, what);
    return mirrorSource(url, s.log_id, mirrorPath(cacheDir(), url, s.log_id), o);
  });
}
