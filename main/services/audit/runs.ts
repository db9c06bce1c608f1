/**
 * The runs of an audit database, page by page through indexes, so that the first page of a log of
 * a million runs costs what the first page of a log of ten does. The order is the chain's: runs
 * under the hash chain in the order of their run_start events (events_by_kind), then the rows of
 * the runs table that no run_start names (not under the chain: marked tampered, ordered by id).
 * Each run costs a few index lookups (its row by primary key, its end and its event count through
 * events_by_run). A page ends with a keyset cursor: the next page starts after it, whatever was
 * appended meanwhile. Stored times never decrease along the chain, so chain order is start order.
 */
import type Database from 'better-sqlite3';
import { WitnessError } from '../../contract/errors.js';
import { canonicalJson } from './store.js';

export interface RunSummary {
  readonly id: string;
  readonly started_ms: number;
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: Record<string, string>;
  readonly spec_sha: string | null;
  readonly regions_sha: string | null;
  /** The run's metadata as its run_start recorded it. */
  readonly meta: Record<string, unknown>;
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

export interface RunRowRaw {
  readonly id: string;
  readonly started_ms: number;
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: string;
  readonly spec_sha: string | null;
  readonly regions_sha: string | null;
  readonly meta: string;
}

export interface RunStartBody {
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: Record<string, string>;
  readonly spec_sha: string | null;
  readonly regions_sha: string | null;
  readonly meta: Record<string, unknown>;
  readonly tool_schemas?: Record<string, string>;
  readonly map_sha?: string;
}

export const parseOr = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/**
 * Where a runs row differs from its chained run_start (null when they agree). The row is written
 * in the same transaction as the event and with the same values; its start time is the event's
 * (rows written before the two shared a transaction started a moment earlier, never later).
 */
export function runRowMismatch(row: RunRowRaw, start: { readonly seq: number; readonly t_ms: number; readonly body: RunStartBody }): string | null {
  const b = start.body;
  for (const k of ['world', 'backend', 'operator', 'software', 'spec_sha', 'regions_sha'] as const) {
    if (row[k] !== (b[k] ?? null)) return `its ${k} is ${JSON.stringify(row[k])} in the runs table but ${JSON.stringify(b[k] ?? null)} in its chained run_start (event ${start.seq}): the row was altered`;
  }
  if (canonicalJson(parseOr(row.models, row.models)) !== canonicalJson(b.models ?? {})) return `its models differ between the runs table and its chained run_start (event ${start.seq}): the row was altered`;
  if (canonicalJson(parseOr(row.meta, row.meta)) !== canonicalJson(b.meta ?? {})) return `its metadata differs between the runs table and its chained run_start (event ${start.seq}): the row was altered`;
  if (!(row.started_ms <= start.t_ms)) return `its start time ${row.started_ms} is after its chained run_start's (${start.t_ms}, event ${start.seq}): the row was altered`;
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
 * run's events: the end of a run is found among that run's events, not among every run_end.
 */
export const RUN_SQL = {
  startsAsc: "SELECT seq, run_id, t_ms, body FROM events WHERE kind = 'run_start' AND seq > ? ORDER BY seq LIMIT ?",
  startsDesc: "SELECT seq, run_id, t_ms, body FROM events WHERE kind = 'run_start' AND seq < ? ORDER BY seq DESC LIMIT ?",
  firstStart: "SELECT seq, t_ms, body FROM events WHERE run_id = ? AND +kind = 'run_start' ORDER BY seq LIMIT 1",
  row: 'SELECT * FROM runs WHERE id = ?',
  count: 'SELECT count(*) FROM events WHERE run_id = ?',
  end: "SELECT t_ms, body FROM events WHERE run_id = ? AND +kind = 'run_end' ORDER BY seq DESC LIMIT 1",
  unchainedAsc: "SELECT * FROM runs WHERE id > ? AND NOT EXISTS (SELECT 1 FROM events WHERE run_id = runs.id AND +kind = 'run_start') ORDER BY id LIMIT ?",
  unchainedDesc: "SELECT * FROM runs WHERE id < ? AND NOT EXISTS (SELECT 1 FROM events WHERE run_id = runs.id AND +kind = 'run_start') ORDER BY id DESC LIMIT ?",
  prefixRows: 'SELECT id FROM runs WHERE id >= ? AND id < ? LIMIT ?',
  prefixStarts: "SELECT DISTINCT run_id FROM events WHERE run_id >= ? AND run_id < ? AND +kind = 'run_start' LIMIT ?",
} as const;

/** A cursor: after the run_start event `seq` (runs under the chain), or after the row `id` (rows no run_start names). */
type Cursor = { readonly phase: 'chain'; readonly seq: number } | { readonly phase: 'rows'; readonly id: string };

const CURSOR = /^(?:c:(\d{1,15})|r:(.+))$/s;

function parseCursor(cursor: string): Cursor {
  const m = CURSOR.exec(cursor);
  if (m === null) throw new WitnessError('invalid-params', `runs: $.cursor: not a cursor a page of runs gave out (${JSON.stringify(cursor.slice(0, 40))})`, { path: '$.cursor' });
  return m[1] !== undefined ? { phase: 'chain', seq: Number(m[1]) } : { phase: 'rows', id: m[2]! };
}

/** Statements of one page, prepared once for its runs. */
class RunReader {
  private readonly firstStart: Database.Statement;
  private readonly row: Database.Statement;
  private readonly count: Database.Statement;
  private readonly end: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.firstStart = db.prepare(RUN_SQL.firstStart);
    this.row = db.prepare(RUN_SQL.row);
    this.count = db.prepare(RUN_SQL.count).pluck();
    this.end = db.prepare(RUN_SQL.end);
  }

  private summary(id: string, started_ms: number, b: RunStartBody, tampered: string | null): RunSummary {
    const e = this.end.get(id) as { t_ms: number; body: string } | undefined;
    return {
      id, started_ms, world: b.world, backend: b.backend, operator: b.operator, software: b.software, models: b.models ?? {},
      spec_sha: b.spec_sha ?? null, regions_sha: b.regions_sha ?? null, meta: b.meta ?? {}, events: this.count.get(id) as number, ended_ms: e?.t_ms ?? null,
      outcome: e === undefined ? null : (parseOr<{ outcome?: string }>(e.body, {}).outcome ?? null),
      ...(tampered !== null ? { tampered } : {}),
    };
  }

  /** A run under the chain, from its run_start (null when that event is not the run's first run_start). */
  chained(s: { seq: number; run_id: string; t_ms: number; body: string }): RunSummary | null {
    const first = this.firstStart.get(s.run_id) as { seq: number } | undefined;
    if (first !== undefined && first.seq !== s.seq) return null;
    const body = parseOr<RunStartBody>(s.body, {} as RunStartBody);
    const row = this.row.get(s.run_id) as RunRowRaw | undefined;
    const why = row === undefined ? `its row in the runs table is missing (removed): shown from its chained run_start (event ${s.seq})` : runRowMismatch(row, { seq: s.seq, t_ms: s.t_ms, body });
    return this.summary(s.run_id, s.t_ms, body, why);
  }

  /** A row of the runs table that no run_start names. */
  unchained(r: RunRowRaw): RunSummary {
    const body: RunStartBody = {
      world: r.world, backend: r.backend, operator: r.operator, software: r.software, models: parseOr(r.models, {}), spec_sha: r.spec_sha, regions_sha: r.regions_sha, meta: parseOr(r.meta, {}),
    };
    return this.summary(r.id, r.started_ms, body, 'no run_start event: this row is not under the hash chain (inserted by hand?)');
  }

  /** One run by its id: from its first run_start, else from its row; undefined when neither exists. */
  byId(id: string): RunSummary | undefined {
    const s = this.firstStart.get(id) as { seq: number; t_ms: number; body: string } | undefined;
    if (s !== undefined) return this.chained({ ...s, run_id: id }) ?? undefined;
    const row = this.row.get(id) as RunRowRaw | undefined;
    return row === undefined ? undefined : this.unchained(row);
  }
}

/** One page of runs in `order`, after `cursor` (null or absent: from the first). */
export function runPage(db: Database.Database, o: { readonly order: RunOrder; readonly cursor?: string | null; readonly limit: number }): RunPage {
  const limit = Math.max(1, Math.floor(o.limit));
  let at: Cursor = o.cursor == null ? { phase: 'chain', seq: o.order === 'asc' ? 0 : Number.MAX_SAFE_INTEGER } : parseCursor(o.cursor);
  const reader = new RunReader(db);
  const runs: RunSummary[] = [];
  if (at.phase === 'chain') {
    const starts = db.prepare(o.order === 'asc' ? RUN_SQL.startsAsc : RUN_SQL.startsDesc);
    let seq = at.seq;
    // Repeated run_starts are skipped, so a page may need more than one read to fill.
    for (;;) {
      const rows = starts.all(seq, limit - runs.length) as { seq: number; run_id: string; t_ms: number; body: string }[];
      for (const s of rows) {
        const r = reader.chained(s);
        if (r !== null) runs.push(r);
      }
      if (rows.length > 0) seq = rows[rows.length - 1]!.seq;
      if (runs.length >= limit) return { runs, next: `c:${seq}` };
      if (rows.length === 0) break;
    }
    at = { phase: 'rows', id: o.order === 'asc' ? '' : '\u{10FFFF}' };
  }
  const rows = db.prepare(o.order === 'asc' ? RUN_SQL.unchainedAsc : RUN_SQL.unchainedDesc).all(at.id, limit - runs.length) as RunRowRaw[];
  for (const r of rows) runs.push(reader.unchained(r));
  return { runs, next: runs.length >= limit && rows.length > 0 ? `r:${rows[rows.length - 1]!.id}` : null };
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
    for (const id of db.prepare(sql).pluck().all(prefix, hi, max) as string[]) if (id.startsWith(prefix)) ids.add(id);
  }
  const reader = new RunReader(db);
  return [...ids].slice(0, max).map((id) => reader.byId(id)).filter((r): r is RunSummary => r !== undefined);
}
