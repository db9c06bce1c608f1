/**
 * The read commands on the fleet store, across sources, in PostgreSQL: the runs of each source (as `ls` lists a local
 * log's) and events by the same filters as `query` on a local log, both in the order (source, seq) — sources in the
 * order they were first pushed, each in its chain's order — a page at a time with a keyset cursor, never loading more
 * than a page. Every statement names one source and is answered through an index: the primary key (source, seq),
 * events_by_run (source, run_id, seq) for a run's count and end, events_by_kind for a source's run_starts, the
 * filters' own indexes where the planner prefers them. A time window becomes a range of sequence numbers of each
 * source (stored times never decrease along a chain: a binary search on the primary key), and is also a condition,
 * so a store whose times were altered gives right answers, only slower. Rows are read as every reader reads them
 * (rows.ts eventOf; runs as runs.ts builds them, a run whose row differs from its run_start marked).
 */
import type pg from 'pg';
import type { EventQuery } from '../audit/forensics.js';
import { type EventRow, RUN_FIELDS, type RunRowRaw, eventOf } from '../audit/rows.js';
import { type RunSummary, chainedRunSummary, unchainedRunSummary } from '../audit/runs.js';
import type { SourceRow } from './sources.js';

const EVENT_SELECT = 'e.seq, e.run_id, e.t_ms, e.step, e.kind, e.tool, e.failure_label, e.body, e.prev_hash, e.hash';

/** What the fleet reads filter on besides the sources: a world its runs record and a time window. */
export interface FleetWindow {
  readonly world?: string;
  /** From this time (inclusive) up to that one (exclusive), in ms since 1970. */
  readonly since_ms?: number;
  readonly until_ms?: number;
}

/** Conditions on `witness.events AS e` of source $1: the world and the time window ($n appended to `args`). */
function windowWhere(w: FleetWindow, args: unknown[], time = 'e.t_ms', run = 'e.run_id'): string[] {
  const p = (v: unknown): string => {
    args.push(v);
    return `$${args.length}`;
  };
  return [
    ...(w.world !== undefined
      ? [`${run} IN (SELECT r.id FROM witness.runs r WHERE r.source = $1 AND r.world = ${p(w.world)})`]
      : []),
    ...(w.since_ms !== undefined ? [`${time} >= ${p(w.since_ms)}`] : []),
    ...(w.until_ms !== undefined ? [`${time} < ${p(w.until_ms)}`] : []),
  ];
}

/** A source's last sequence number (0: no events). */
async function lastSeq(c: pg.Client, source: number): Promise<number> {
  const r = await c.query<{ seq: number }>(
    'SELECT seq FROM witness.events WHERE source = $1 ORDER BY seq DESC LIMIT 1',
    [source],
  );
  return r.rows[0]?.seq ?? 0;
}

/** The first seq in [1, last] whose time passes `ok` (monotone: false then true), or last + 1. */
async function firstSeqWhere(c: pg.Client, source: number, last: number, ok: (t: number) => boolean): Promise<number> {
  let lo = 1,
    hi = last + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const r = await c.query<{ t_ms: number }>('SELECT t_ms FROM witness.events WHERE source = $1 AND seq = $2', [
      source,
      mid,
    ]);
    const t = r.rows[0]?.t_ms;
    if (t === undefined || ok(t)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The sequence numbers [lo, hi] of a source that the time window covers (null: none). */
async function seqRange(c: pg.Client, source: number, w: FleetWindow): Promise<{ lo: number; hi: number } | null> {
  const last = await lastSeq(c, source);
  const lo = w.since_ms === undefined ? 1 : await firstSeqWhere(c, source, last, (t) => t >= w.since_ms!);
  const hi = w.until_ms === undefined ? last : (await firstSeqWhere(c, source, last, (t) => t >= w.until_ms!)) - 1;
  return lo <= hi ? { lo, hi } : null;
}

/** The runs of one page of run_starts: each built as runs.ts builds a local log's (null: not its first run_start). */
async function runsOf(c: pg.Client, source: number, starts: EventRow[]): Promise<RunSummary[]> {
  const ids = [...new Set(starts.map((s) => s.run_id))];
  // One client answers one statement at a time: in turn.
  const first = await c.query<{ run_id: string; seq: number }>(
    `SELECT DISTINCT ON (run_id) run_id, seq FROM witness.events
     WHERE source = $1 AND run_id = ANY($2::text[]) AND kind = 'run_start' ORDER BY run_id, seq`,
    [source, ids],
  );
  const rows = await c.query<RunRowRaw>(
    `SELECT ${RUN_FIELDS.join(', ')} FROM witness.runs WHERE source = $1 AND id = ANY($2::text[])`,
    [source, ids],
  );
  const counts = await c.query<{ run_id: string; n: number }>(
    'SELECT run_id, count(*) AS n FROM witness.events WHERE source = $1 AND run_id = ANY($2::text[]) GROUP BY run_id',
    [source, ids],
  );
  const ends = await c.query(
    `SELECT DISTINCT ON (e.run_id) ${EVENT_SELECT} FROM witness.events e
     WHERE e.source = $1 AND e.run_id = ANY($2::text[]) AND e.kind = 'run_end' ORDER BY e.run_id, e.seq DESC`,
    [source, ids],
  );
  const firstOf = new Map(first.rows.map((r) => [r.run_id, r.seq]));
  const rowOf = new Map(rows.rows.map((r) => [r.id, r]));
  const countOf = new Map(counts.rows.map((r) => [r.run_id, r.n]));
  const endOf = new Map(ends.rows.map((r) => [(r as EventRow).run_id, r as unknown]));
  const ending = (id: string) => () => {
    const end = endOf.get(id);
    return { end: end === undefined ? undefined : eventOf(end), events: countOf.get(id) ?? 0 };
  };
  return starts
    .filter((s) => firstOf.get(s.run_id) === s.seq)
    .map((s) => chainedRunSummary(s, rowOf.get(s.run_id), ending(s.run_id)));
}

/** The rows of a source's runs table that no run_start names, after the id `after` (tampering: listed last). */
async function unchainedRuns(
  c: pg.Client,
  source: number,
  w: FleetWindow,
  after: string,
  size: number,
): Promise<{ runs: RunSummary[]; last: string | null }> {
  const args: unknown[] = [source, after];
  const where = windowWhere(w, args, 'r.started_ms', 'r.id');
  const rows = await c.query<RunRowRaw>(
    `SELECT ${RUN_FIELDS.map((f) => `r.${f}`).join(', ')} FROM witness.runs r
     WHERE r.source = $1 AND r.id COLLATE "C" > $2 ${where.map((x) => `AND ${x}`).join(' ')}
       AND NOT EXISTS (SELECT 1 FROM witness.events e WHERE e.source = $1 AND e.run_id = r.id AND e.kind = 'run_start')
     ORDER BY r.id COLLATE "C" LIMIT ${size}`,
    args,
  );
  const runs: RunSummary[] = [];
  for (const r of rows.rows) {
    const ends = await c.query(
      `SELECT ${EVENT_SELECT} FROM witness.events e
       WHERE e.source = $1 AND e.run_id = $2 AND e.kind = 'run_end' ORDER BY e.seq DESC LIMIT 1`,
      [source, r.id],
    );
    const n = await c.query<{ n: number }>(
      'SELECT count(*) AS n FROM witness.events WHERE source = $1 AND run_id = $2',
      [source, r.id],
    );
    const end = ends.rows[0] as unknown;
    runs.push(
      unchainedRunSummary(r, () => ({ end: end === undefined ? undefined : eventOf(end), events: n.rows[0]!.n })),
    );
  }
  return { runs, last: rows.rows.length === size ? rows.rows[rows.rows.length - 1]!.id : null };
}

/**
 * The runs of one source, `size` at a time, in the order of their run_starts (then the rows no run_start names, as on
 * a local log); with a world, those whose row records it; with a time window, those started in it.
 */
export async function* sourceRunPages(
  c: pg.Client,
  s: SourceRow,
  w: FleetWindow,
  size: number,
): AsyncGenerator<RunSummary[]> {
  let after = 0;
  for (;;) {
    const args: unknown[] = [s.id, after];
    const where = windowWhere(w, args);
    const page = await c.query(
      `SELECT ${EVENT_SELECT} FROM witness.events e
       WHERE e.source = $1 AND e.kind = 'run_start' AND e.seq > $2 ${where.map((x) => `AND ${x}`).join(' ')}
       ORDER BY e.seq LIMIT ${size}`,
      args,
    );
    const starts = page.rows.map(eventOf);
    if (starts.length === 0) break;
    const runs = await runsOf(c, s.id, starts);
    if (runs.length > 0) yield runs;
    if (starts.length < size) break;
    after = starts[starts.length - 1]!.seq;
  }
  let id = '';
  for (;;) {
    const u = await unchainedRuns(c, s.id, w, id, size);
    if (u.runs.length > 0) yield u.runs;
    if (u.last === null) break;
    id = u.last;
  }
}

/** Where a page of events across sources ends: after event `seq` of the source `source` (its key in the store). */
export interface FleetCursor {
  readonly source: number;
  readonly seq: number;
}

export interface FleetEvent {
  readonly source: SourceRow;
  readonly event: EventRow;
}

/** The filters of `query` on a local log (its time window aside) and the fleet's world and time window. */
export type FleetQuery = Omit<EventQuery, 'from_ms' | 'to_ms' | 'after'> & FleetWindow;

export interface FleetEventPage {
  readonly rows: FleetEvent[];
  /** Continue after this for the next page (null: no more). */
  readonly next: FleetCursor | null;
  /** False when the text search's time budget ran out before the page was full. */
  readonly complete: boolean;
  /** The sources this page examined to their end: each source's key → the last sequence number examined. */
  readonly ends: ReadonlyMap<number, number>;
}

/** The query's conditions on `witness.events AS e` of source $1 (after $2, up to $3), its values appended to `args`. */
function eventWhere(q: FleetQuery, args: unknown[]): string[] {
  const p = (v: unknown): string => {
    args.push(v);
    return `$${args.length}`;
  };
  return [
    ...(q.run !== undefined ? [`e.run_id = ${p(q.run)}`] : []),
    ...(q.tool !== undefined ? [`e.tool = ${p(q.tool)}`] : []),
    ...(q.kind !== undefined ? [`e.kind = ${p(q.kind)}`] : []),
    ...(q.kinds !== undefined && q.kinds.length > 0 ? [`e.kind = ANY(${p(q.kinds)}::text[])`] : []),
    ...(q.failureLabel !== undefined ? [`e.failure_label = ${p(q.failureLabel)}`] : []),
    ...windowWhere(q, args),
    ...(q.text !== undefined ? [`e.body ILIKE ${p(`%${q.text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`)}`] : []),
  ];
}

/** Sequence numbers a free-text page scans per statement, and how long it may take before it returns partial. */
const TEXT_WINDOW = 50_000;
const TEXT_BUDGET_MS = 200;

/**
 * One page of the events matching every filter, over `sources` (in this order), after `after`. Filters on indexed
 * columns answer through the indexes; free text scans each source's bodies in windows of sequence numbers and returns
 * what it found when its time budget runs out (`complete` false), with the cursor to continue from.
 */
export async function fleetEventPage(
  c: pg.Client,
  sources: readonly SourceRow[],
  q: FleetQuery,
  after: FleetCursor | null,
  budget_ms = TEXT_BUDGET_MS,
): Promise<FleetEventPage> {
  const limit = Math.max(1, Math.min(q.limit ?? 100, 100_000));
  const rows: FleetEvent[] = [];
  const ends = new Map<number, number>();
  const started = performance.now();
  // Sources are in the order of their keys: the cursor's, then those after it.
  for (const s of after === null ? sources : sources.filter((x) => x.id >= after.source)) {
    const range = await seqRange(c, s.id, q);
    if (range === null) {
      ends.set(s.id, after !== null && s.id === after.source ? after.seq : 0);
      continue;
    }
    let lo = Math.max(range.lo - 1, after !== null && s.id === after.source ? after.seq : 0);
    const window = q.text === undefined ? Infinity : TEXT_WINDOW;
    while (lo < range.hi && rows.length < limit) {
      const top = Math.min(range.hi, lo + window);
      const args: unknown[] = [s.id, lo, top];
      const page = await c.query(
        `SELECT ${EVENT_SELECT} FROM witness.events e WHERE e.source = $1 AND e.seq > $2 AND e.seq <= $3
         ${eventWhere(q, args)
           .map((x) => `AND ${x}`)
           .join(' ')} ORDER BY e.seq LIMIT ${limit - rows.length}`,
        args,
      );
      for (const r of page.rows) rows.push({ source: s, event: eventOf(r) });
      lo = top;
      if (rows.length < limit && q.text !== undefined && performance.now() - started > budget_ms)
        return s === sources.at(-1) && lo >= range.hi
          ? { rows, next: null, complete: true, ends: ends.set(s.id, lo) }
          : { rows, next: { source: s.id, seq: lo }, complete: false, ends };
    }
    if (rows.length >= limit) {
      const last = rows[rows.length - 1]!;
      return { rows, next: { source: last.source.id, seq: last.event.seq }, complete: true, ends };
    }
    ends.set(s.id, Math.max(lo, range.hi));
  }
  return { rows, next: null, complete: true, ends };
}
