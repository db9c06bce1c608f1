/**
 * The runs of an audit database, page by page through indexes, so that the first page of a log of
 * a million runs costs what the first page of a log of ten does. The order is the chain's: runs
 * under the hash chain in the order of their run_start events (events_by_kind), then the rows of
 * the runs table that no run_start names (not under the chain: marked tampered, ordered by id).
 * Each run costs a few index lookups (its row by primary key, its end and its event count through
 * events_by_run). A page ends with a keyset cursor: the next page starts after it, whatever was
 * appended meanwhile. Stored times never decrease along the chain, so chain order is start order.
 * Rows are read as every reader reads them (rows.ts): each value within its size limit and of the
 * type the writer stores; a chained run_start or run_end Witness did not write is an error naming
 * the event, a runs row with wrong values marks its run.
 */
import type Database from 'better-sqlite3';
import { WitnessError } from '../../contract/errors.js';
import { canonicalJson } from './store.js';
import {
  EVENT_COLUMNS,
  type EventRow,
  MAX_FIELD_BYTES,
  MAX_TIME_MS,
  RUN_COLUMNS,
  type RunRowRaw,
  bodyOf,
  eventOf,
  jsonOr,
  runProblem,
} from './rows.js';
import { obj, text } from './body.js';

export type { RunRowRaw };

export interface RunStartBody {
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: Record<string, string>;
  readonly spec_sha: string | null;
  readonly regions_sha: string | null;
  /** The run's metadata as its run_start recorded it. */
  readonly meta: Record<string, unknown>;
  readonly tool_schemas?: Record<string, string>;
  readonly map_sha?: string;
}

/** A run as a list shows it: what its run_start recorded, with its place in the log and its end. */
export interface RunSummary extends Omit<RunStartBody, 'tool_schemas' | 'map_sha'> {
  readonly id: string;
  readonly started_ms: number;
  readonly events: number;
  readonly ended_ms: number | null;
  readonly outcome: string | null;
  /**
   * Why the runs table cannot be trusted for this run: its row differs from the chained run_start
   * (the values above are the run_start's), or it has no run_start (the values are the row's, not
   * under the chain), or its run_start has no row. Absent when the two agree; `verify` checks the chain.
   */
  readonly tampered?: string;
}

/**
 * A run_start's body with the fields a summary shows, of the types it shows them as (a forged body may hold anything).
 */
function runStartOf(body: unknown): RunStartBody {
  const b = obj(body);
  const sha = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    world: text(b['world']),
    backend: text(b['backend']),
    operator: text(b['operator']),
    software: text(b['software']),
    models: Object.fromEntries(Object.entries(obj(b['models'])).map(([k, v]) => [k, text(v)])),
    spec_sha: sha(b['spec_sha']),
    regions_sha: sha(b['regions_sha']),
    meta: obj(b['meta']),
    ...(typeof b['tool_schemas'] === 'object'
      ? { tool_schemas: Object.fromEntries(Object.entries(obj(b['tool_schemas'])).map(([k, v]) => [k, text(v)])) }
      : {}),
    ...(typeof b['map_sha'] === 'string' ? { map_sha: b['map_sha'] } : {}),
  };
}

/**
 * Where a runs row differs from its chained run_start (null when they agree); `problem`: what is
 * wrong with the row's values (rows.ts runProblem), reported first. The row is written in the same
 * transaction as the event and with the same values; its start time is the event's (rows written
 * before the two shared a transaction started a moment earlier, never later).
 */
export function runRowMismatch(
  row: RunRowRaw,
  start: { readonly seq: number; readonly t_ms: number; readonly body: RunStartBody },
  problem: string | null = null,
): string | null {
  if (problem !== null)
    return `its row in the runs table: ${problem} (shown from its chained run_start, event ${start.seq})`;
  const b = start.body;
  for (const k of ['world', 'backend', 'operator', 'software', 'spec_sha', 'regions_sha'] as const) {
    if (row[k] !== (b[k] ?? null))
      return `its ${k} is ${JSON.stringify(row[k])} in the runs table but ${JSON.stringify(b[k] ?? null)} in its chained run_start (event ${start.seq}): the row was altered`;
  }
  if (canonicalJson(jsonOr(row.models, row.models)) !== canonicalJson(b.models ?? {}))
    return `its models differ between the runs table and its chained run_start (event ${start.seq}): the row was altered`;
  if (canonicalJson(jsonOr(row.meta, row.meta)) !== canonicalJson(b.meta ?? {}))
    return `its metadata differs between the runs table and its chained run_start (event ${start.seq}): the row was altered`;
  if (!(row.started_ms <= start.t_ms))
    return `its start time ${row.started_ms} is after its chained run_start's (${start.t_ms}, event ${start.seq}): the row was altered`;
  return null;
}

/** Oldest first (`witness audit ls`) or newest first (the audit browser). */
export type RunOrder = 'asc' | 'desc';

export interface RunPage {
  readonly runs: RunSummary[];
  /** Where the next page starts; null after the last run. */
  readonly next: string | null;
}

/**
 * Every statement a page runs, each answered through an index (test/services/audit/run-pages.test.ts
 * reads their query plans). `+kind` and `+run_id` keep SQLite off the index that would scan every
 * run's events: the end of a run is found among that run's events, not among every run_end. Rows
 * are selected with rows.ts's columns (each value within its limit); those name the selected values
 * after the columns, so the ORDER BY of the runs table names `runs.id`, the column, not the value.
 * A page of rows no run_start names ends after a row by its rowid: SQLite compares the ids, which
 * are read only within their limit and so cannot travel in a cursor.
 */
export const RUN_SQL = {
  startsAsc: `SELECT ${EVENT_COLUMNS} FROM events WHERE kind = 'run_start' AND seq > ? ORDER BY seq LIMIT ?`,
  startsDesc: `SELECT ${EVENT_COLUMNS} FROM events WHERE kind = 'run_start' AND seq < ? ORDER BY seq DESC LIMIT ?`,
  firstStart: `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND +kind = 'run_start' ORDER BY seq LIMIT 1`,
  firstStartSeq: "SELECT seq FROM events WHERE run_id = ? AND +kind = 'run_start' ORDER BY seq LIMIT 1",
  row: `SELECT ${RUN_COLUMNS} FROM runs WHERE runs.id = ?`,
  count: 'SELECT count(*) FROM events WHERE run_id = ?',
  end: `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND +kind = 'run_end' ORDER BY seq DESC LIMIT 1`,
  unchainedAsc: `SELECT ${RUN_COLUMNS}, CAST(runs.rowid AS TEXT) AS at_row FROM runs WHERE runs.id > coalesce((SELECT r.id FROM runs AS r WHERE r.rowid = ?), ?)
    AND NOT EXISTS (SELECT 1 FROM events WHERE run_id = runs.id AND +kind = 'run_start') ORDER BY runs.id LIMIT ?`,
  unchainedDesc: `SELECT ${RUN_COLUMNS}, CAST(runs.rowid AS TEXT) AS at_row FROM runs WHERE runs.id < coalesce((SELECT r.id FROM runs AS r WHERE r.rowid = ?), ?)
    AND NOT EXISTS (SELECT 1 FROM events WHERE run_id = runs.id AND +kind = 'run_start') ORDER BY runs.id DESC LIMIT ?`,
  // An id over its limit is not one Witness wrote, nor one a prefix names: left out of the lookup.
  prefixRows: `SELECT id FROM runs WHERE id >= ? AND id < ? AND octet_length(id) <= ${MAX_FIELD_BYTES} LIMIT ?`,
  prefixStarts: `SELECT DISTINCT run_id FROM events WHERE run_id >= ? AND run_id < ? AND octet_length(run_id) <= ${MAX_FIELD_BYTES} AND +kind = 'run_start' LIMIT ?`,
} as const;

/**
 * A cursor: after the run_start event `seq` (runs under the chain), or after the runs row `rowid` (rows no run_start
 * names; null: from the first).
 */
type Cursor =
  { readonly phase: 'chain'; readonly seq: number } | { readonly phase: 'rows'; readonly rowid: bigint | null };

const CURSOR = /^(?:c:(\d{1,15})|r:(\d{1,19}))$/;

function parseCursor(cursor: string): Cursor {
  const m = CURSOR.exec(cursor);
  if (m === null)
    throw new WitnessError(
      'invalid-params',
      `runs: $.cursor: not a cursor a page of runs gave out (${JSON.stringify(cursor.slice(0, 40))})`,
      { path: '$.cursor' },
    );
  return m[1] !== undefined ? { phase: 'chain', seq: Number(m[1]) } : { phase: 'rows', rowid: BigInt(m[2]!) };
}

/** A runs row as the unchained statements select it: its values (RUN_COLUMNS, unchecked) and its rowid. */
type UnchainedRow = RunRowRaw & { readonly at_row: string };

/** A run's last run_end and its count of events (read when the run's own rows have been). */
export type Ending = () => { readonly end: EventRow | undefined; readonly events: number };

/** A run as a list shows it, from what its run_start recorded, its last run_end and its count of events. */
function summaryOf(
  id: string,
  started_ms: number,
  b: RunStartBody,
  tampered: string | null,
  ending: Ending,
): RunSummary {
  const { end, events } = ending();
  const outcome = end === undefined ? undefined : obj(bodyOf(end))['outcome'];
  return {
    id,
    started_ms,
    world: b.world,
    backend: b.backend,
    operator: b.operator,
    software: b.software,
    models: b.models,
    spec_sha: b.spec_sha,
    regions_sha: b.regions_sha,
    meta: b.meta,
    events,
    ended_ms: end?.t_ms ?? null,
    outcome: typeof outcome === 'string' ? outcome : null,
    ...(tampered !== null ? { tampered } : {}),
  };
}

/**
 * A run under the chain, from its (first) run_start `s`, read as every reader reads events; its runs row (undefined:
 * none) is compared as found: wrong values mark the run. (The fleet store's reads build their runs with it too:
 * services/fleet.)
 */
export function chainedRunSummary(s: EventRow, row: RunRowRaw | undefined, ending: Ending): RunSummary {
  const raw = obj(bodyOf(s)) as unknown as RunStartBody;
  const why =
    row === undefined
      ? `its row in the runs table is missing (removed): shown from its chained run_start (event ${s.seq})`
      : runRowMismatch(row, { seq: s.seq, t_ms: s.t_ms, body: raw }, runProblem(row));
  return summaryOf(s.run_id, s.t_ms, runStartOf(raw), why, ending);
}

/**
 * A row of the runs table that no run_start names, its values as found (a start that is not a time: listed at 1970),
 * marked.
 */
export function unchainedRunSummary(r: RunRowRaw, ending: Ending): RunSummary {
  const problem = runProblem(r);
  const body = runStartOf({ ...r, models: jsonOr(r.models, {}), meta: jsonOr(r.meta, {}) });
  const started = typeof r.started_ms === 'number' && Math.abs(r.started_ms) <= MAX_TIME_MS ? r.started_ms : 0;
  return summaryOf(
    text(r.id),
    started,
    body,
    `no run_start event: this row is not under the hash chain (inserted by hand?)${problem !== null ? `; ${problem}` : ''}`,
    ending,
  );
}

/** Statements of one page, prepared once for its runs. */
class RunReader {
  private readonly firstStart: Database.Statement;
  private readonly firstStartSeq: Database.Statement;
  private readonly row: Database.Statement;
  private readonly count: Database.Statement;
  private readonly end: Database.Statement;

  constructor(db: Database.Database) {
    this.firstStart = db.prepare(RUN_SQL.firstStart);
    this.firstStartSeq = db.prepare(RUN_SQL.firstStartSeq).pluck();
    this.row = db.prepare(RUN_SQL.row);
    this.count = db.prepare(RUN_SQL.count).pluck();
    this.end = db.prepare(RUN_SQL.end);
  }

  /** A run's last run_end and its count of events. */
  private ending(id: string): Ending {
    return () => {
      const raw = this.end.get(id);
      return { end: raw === undefined ? undefined : eventOf(raw), events: this.count.get(id) as number };
    };
  }

  /**
   * A run under the chain, from its run_start, read as every reader reads events (null when that
   * event is not the run's first run_start). Its runs row is compared as found: wrong values mark the run.
   */
  chained(s: EventRow): RunSummary | null {
    const first = this.firstStartSeq.get(s.run_id) as number | undefined;
    if (first !== undefined && first !== s.seq) return null;
    return chainedRunSummary(s, this.row.get(s.run_id) as RunRowRaw | undefined, this.ending(s.run_id));
  }

  /**
   * A row of the runs table that no run_start names, its values as found (a start that is not a time: listed at 1970),
   * marked.
   */
  unchained(r: RunRowRaw): RunSummary {
    return unchainedRunSummary(r, this.ending(text(r.id)));
  }

  /** One run by its id: from its first run_start, else from its row; undefined when neither exists. */
  byId(id: string): RunSummary | undefined {
    const s = this.firstStart.get(id);
    if (s !== undefined) return this.chained(eventOf(s)) ?? undefined;
    const row = this.row.get(id) as RunRowRaw | undefined;
    return row === undefined ? undefined : this.unchained(row);
  }
}

/** One page of runs in `order`, after `cursor` (null or absent: from the first). */
export function runPage(
  db: Database.Database,
  o: { readonly order: RunOrder; readonly cursor?: string | null; readonly limit: number },
): RunPage {
  const limit = Math.max(1, Math.floor(o.limit));
  let at: Cursor =
    o.cursor == null ? { phase: 'chain', seq: o.order === 'asc' ? 0 : Number.MAX_SAFE_INTEGER } : parseCursor(o.cursor);
  const reader = new RunReader(db);
  const runs: RunSummary[] = [];
  if (at.phase === 'chain') {
    const starts = db.prepare(o.order === 'asc' ? RUN_SQL.startsAsc : RUN_SQL.startsDesc);
    let seq = at.seq;
    // Repeated run_starts are skipped, so a page may need more than one read to fill.
    for (;;) {
      const rows = starts.all(seq, limit - runs.length).map(eventOf);
      for (const s of rows) {
        const r = reader.chained(s);
        if (r !== null) runs.push(r);
      }
      if (rows.length > 0) seq = rows[rows.length - 1]!.seq;
      if (runs.length >= limit) return { runs, next: `c:${seq}` };
      if (rows.length === 0) break;
    }
    at = { phase: 'rows', rowid: null };
  }
  // From the first row (no rowid to start after): every id is above '' and below U+10FFFF.
  const rows = db
    .prepare(o.order === 'asc' ? RUN_SQL.unchainedAsc : RUN_SQL.unchainedDesc)
    .all(at.rowid, o.order === 'asc' ? '' : '\u{10FFFF}', limit - runs.length) as UnchainedRow[];
  for (const r of rows) runs.push(reader.unchained(r));
  return { runs, next: runs.length >= limit && rows.length > 0 ? `r:${rows[rows.length - 1]!.at_row}` : null };
}

/** Pages of `size` runs in `order` until the last (each read when asked for). */
export function* runPages(db: Database.Database, order: RunOrder, size: number): Generator<RunSummary[]> {
  let cursor: string | null = null;
  do {
    const page = runPage(db, { order, cursor, limit: size });
    if (page.runs.length > 0) yield page.runs;
    cursor = page.next;
  } while (cursor !== null);
}

/** Every run, oldest first (a whole log: for exports and tests; lists page with runPage). */
export function listRuns(db: Database.Database): RunSummary[] {
  const out: RunSummary[] = [];
  for (const page of runPages(db, 'asc', 1000)) out.push(...page);
  return out;
}

/** One run by its id, or undefined. */
export function runSummary(db: Database.Database, id: string): RunSummary | undefined {
  return new RunReader(db).byId(id);
}

/** The runs whose id starts with `prefix`, up to `max` of them (enough to tell one from several). */
export function runsByPrefix(db: Database.Database, prefix: string, max = 2): RunSummary[] {
  const hi = `${prefix}\u{10FFFF}`;
  const ids = new Set<string>();
  for (const sql of [RUN_SQL.prefixStarts, RUN_SQL.prefixRows]) {
    for (const id of db.prepare(sql).pluck().all(prefix, hi, max))
      if (typeof id === 'string' && id.startsWith(prefix)) ids.add(id);
  }
  const reader = new RunReader(db);
  return [...ids]
    .slice(0, max)
    .map((id) => reader.byId(id))
    .filter((r): r is RunSummary => r !== undefined);
}
