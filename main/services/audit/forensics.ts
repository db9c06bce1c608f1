/**
 * Reading an audit database after the fact (always read-only): runs (runs.ts), events filtered by run, time
 * window, tool, kind, failure label and free text with keyset paging, a live tail, and the
 * verification of the hash chain that names the first row that does not match.
 */
import type Database from 'better-sqlite3';
import { GENESIS_HASH } from './store.js';
import {
  BLOB_COLUMNS,
  EVENT_COLUMNS,
  type EventRow,
  RUN_COLUMNS,
  type RunRowRaw,
  blobOf,
  bodyOf,
  eventOf,
} from './rows.js';
import { schemaProblems } from './schema-check.js';
import { obj } from './body.js';
import {
  type BlobRefs,
  type ChainedStart,
  ChainWalk,
  type VerifyProblem,
  checkBlobRows,
  checkRunRows,
} from './chain.js';

export { type RunSummary, listRuns } from './runs.js';

export interface EventQuery {
  readonly run?: string;
  readonly from_ms?: number;
  readonly to_ms?: number;
  readonly tool?: string;
  readonly kind?: string;
  /** Any of these kinds (the audit browser's multi-select). */
  readonly kinds?: readonly string[];
  readonly failureLabel?: string;
  /** Free text, matched case-insensitively inside the event body. */
  readonly text?: string;
  /** Keyset paging: events after this sequence number. */
  readonly after?: number;
  readonly limit?: number;
}

const DEFAULT_PAGE = 100;

export interface EventPage {
  readonly rows: EventRow[];
  /** Continue after this sequence number for the next page (null at the end of the log). */
  readonly next: number | null;
  /** False when the scan budget ran out before the page was full (free-text search). */
  readonly complete: boolean;
}

/** The sequence numbers a time window covers: stored times never decrease along the chain. */
function seqRange(db: Database.Database, from?: number, to?: number): { lo: number; hi: number } | null {
  let lo = 1,
    hi = Number.MAX_SAFE_INTEGER;
  if (from !== undefined) {
    const r = db.prepare('SELECT seq FROM events WHERE t_ms >= ? ORDER BY t_ms, seq LIMIT 1').get(from) as
      { seq: number } | undefined;
    if (r === undefined) return null;
    lo = r.seq;
  }
  if (to !== undefined) {
    const r = db.prepare('SELECT seq FROM events WHERE t_ms <= ? ORDER BY t_ms DESC, seq DESC LIMIT 1').get(to) as
      { seq: number } | undefined;
    if (r === undefined) return null;
    hi = r.seq;
  }
  return lo <= hi ? { lo, hi } : null;
}

/** Rows scanned per free-text window, and the time a page may take before it returns partial. */
const TEXT_WINDOW = 50_000;
const TEXT_BUDGET_MS = 40;

/**
 * One page of events matching every filter, in sequence order, after `q.after`. Indexed filters
 * (run, kind, tool, failure label, time window) answer in a few index lookups; free text scans the
 * body in windows of sequence numbers and returns what it found when its time budget runs out, with
 * the cursor to continue from, so a page never takes long however rare the text.
 */
export function queryPage(
  db: Database.Database,
  q: EventQuery,
  budget_ms = TEXT_BUDGET_MS,
  window = TEXT_WINDOW,
): EventPage {
  const limit = Math.max(1, Math.min(q.limit ?? DEFAULT_PAGE, 100_000));
  const range = seqRange(db, q.from_ms, q.to_ms);
  if (range === null) return { rows: [], next: null, complete: true };
  let lo = Math.max(range.lo, (q.after ?? 0) + 1);
  const hi = range.hi;
  const where: string[] = ['seq >= ?', 'seq <= ?'];
  const args: unknown[] = [];
  const add = (clause: string, v: unknown): void => {
    where.push(clause);
    args.push(v);
  };
  if (q.run !== undefined) add('run_id = ?', q.run);
  if (q.tool !== undefined) add('tool = ?', q.tool);
  if (q.kind !== undefined) add('kind = ?', q.kind);
  if (q.kinds !== undefined && q.kinds.length > 0) {
    where.push(`kind IN (${q.kinds.map(() => '?').join(', ')})`);
    args.push(...q.kinds);
  }
  if (q.failureLabel !== undefined) add('failure_label = ?', q.failureLabel);
  if (q.text === undefined) {
    const rows = db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${limit}`)
      .all(lo, hi, ...args)
      .map(eventOf);
    return { rows, next: rows.length > 0 ? rows[rows.length - 1]!.seq : null, complete: true };
  }
  add("body LIKE ? ESCAPE '\\'", `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const last = (db.prepare('SELECT max(seq) AS m FROM events').get() as { m: number | null }).m ?? 0;
  const end = Math.min(hi, last);
  const stmt = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`);
  const rows: EventRow[] = [];
  const started = performance.now();
  while (lo <= end && rows.length < limit) {
    const top = Math.min(end, lo + window - 1);
    rows.push(...stmt.all(lo, top, ...args, limit - rows.length).map(eventOf));
    lo = top + 1;
    if (rows.length < limit && performance.now() - started > budget_ms) {
      return { rows, next: lo <= end ? lo - 1 : null, complete: lo > end };
    }
  }
  const full = rows.length >= limit;
  return { rows, next: full ? rows[rows.length - 1]!.seq : null, complete: true };
}

export function queryEvents(db: Database.Database, q: EventQuery): EventRow[] {
  return queryPage(db, q, Infinity).rows;
}

/**
 * A run's chained run_start body (an object; {} for a run with none), read as every reader reads
 * events. Found among the run's own events (`+kind`: not by walking every run_start of the log).
 */
export function runStartBody(db: Database.Database, run: string): Record<string, unknown> {
  const r = db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND +kind = 'run_start' ORDER BY seq LIMIT 1`)
    .get(run);
  return r === undefined ? {} : obj(bodyOf(eventOf(r)));
}

/** A blob by its address (a blob over its size limit, or not text, is an error naming it). */
export function getBlob(db: Database.Database, sha: string): { kind: string; body: string } | undefined {
  const r = db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs WHERE sha256 = ?`).get(sha);
  if (r === undefined) return undefined;
  const b = blobOf(r);
  return { kind: b.kind, body: b.body };
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly events: number;
  readonly runs: number;
  readonly blobs: number;
  readonly head: string;
  /** The first row that does not match, and why (else the first problem with the schema's guards). */
  readonly firstBad?: VerifyProblem;
  /** Every problem found: the guards (triggers) of the schema, then the first row that does not match. */
  readonly problems: readonly VerifyProblem[];
  readonly integrity: string;
}

/**
 * SQLite's quick_check, split: damaged pages (the file is corrupt: `integrity` says how, else 'ok')
 * and values that break a constraint of our schema (a NULL in a NOT NULL column: the schema was
 * edited around a forged row, not damaged), which are tampering.
 */
function quickCheck(db: Database.Database): { integrity: string; constraints: VerifyProblem[] } {
  const lines = (db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check);
  if (lines.length === 1 && lines[0] === 'ok') return { integrity: 'ok', constraints: [] };
  const constraint = (l: string): boolean => /^(NULL value in|CHECK constraint failed in) /.test(l);
  const damaged = lines.filter((l) => !constraint(l));
  return {
    integrity: damaged.length > 0 ? damaged.join('\n') : 'ok',
    constraints: lines.filter(constraint).map((l) => ({
      table: 'schema' as const,
      key: l.replace(/^.* in /, ''),
      reason: `SQLite's quick_check: ${l}: a value the schema forbids (the schema was edited around a forged row)`,
    })),
  };
}

/** The integrity of a database whose schema is not ours: its rows (and SQLite's quick_check of them) are not read. */
export const INTEGRITY_NOT_CHECKED = 'not checked: the schema is not the one Witness creates';

type Verified = VerifyResult & { chain_ms: number; integrity_ms: number };

/** The chain walked in sequence order: how far it held (events, head), its run_starts and blob references. */
interface Walked {
  readonly bad?: VerifyProblem;
  readonly events: number;
  readonly head: string;
  readonly starts: Map<string, ChainedStart>;
  readonly refs: BlobRefs;
}

/** How the chain is walked: with the caller's ChainWalk (it can go on from there), each row that held visited. */
export interface ChainOptions {
  readonly walk?: ChainWalk;
  readonly progress?: (done: number) => void;
  readonly visit?: (row: readonly unknown[]) => void;
}

function walkChain(db: Database.Database, o: ChainOptions): Walked {
  const { walk = new ChainWalk(), progress, visit } = o;
  const at = (bad?: VerifyProblem): Walked => ({
    ...(bad !== undefined ? { bad } : {}),
    events: walk.events,
    head: walk.head,
    starts: walk.starts,
    refs: walk.refs,
  });
  // Raw rows (arrays) read in order: seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash
  // (rows.ts).
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events ORDER BY seq`).raw(true);
  for (const a of rows.iterate() as IterableIterator<unknown[]>) {
    const bad = walk.step(a);
    if (bad !== null) return at(bad);
    visit?.(a);
    if ((walk.events & 65535) === 0) progress?.(walk.events);
  }
  return at();
}

export const checkRuns = (db: Database.Database, starts: ReadonlyMap<string, ChainedStart>) =>
  checkRunRows(
    db.prepare(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY started_ms, id`).iterate() as IterableIterator<RunRowRaw>,
    starts,
  );

export const checkBlobs = (db: Database.Database, refs: BlobRefs) =>
  checkBlobRows(
    db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs ORDER BY sha256`).iterate() as IterableIterator<{
      sha256: unknown;
      kind: unknown;
      body: unknown;
    }>,
    refs,
  );

/**
 * Holds the schema against the one the writer creates (schema-check.ts: every difference a
 * problem); when its tables are ours, walks the whole chain in sequence order — every value of the
 * type and within the size Witness writes, every body JSON —, then holds everything outside it
 * against it: each run's row against its chained run_start (a run without one, or a run_start
 * without its row, is tampering), each blob against its address and against the kind the chained
 * events that name it give it (a blob no chained event names is not under the chain). A table that
 * is not ours is not read at all (nor given to SQLite's quick_check): reading it could run the
 * forger's code.
 */
export function verifyChain(db: Database.Database, progress?: (done: number) => void, o: ChainOptions = {}): Verified {
  const found = schemaProblems(db);
  const schema: VerifyProblem[] = found.map((p) => ({ table: 'schema', key: p.key, reason: p.reason }));
  if (found.some((p) => p.blocksWalk)) {
    return {
      ok: false,
      events: 0,
      runs: 0,
      blobs: 0,
      head: GENESIS_HASH,
      integrity: INTEGRITY_NOT_CHECKED,
      problems: schema,
      firstBad: schema[0]!,
      chain_ms: 0,
      integrity_ms: 0,
    };
  }
  const t0 = performance.now();
  const { integrity, constraints } = quickCheck(db);
  const integrity_ms = performance.now() - t0;
  schema.push(...constraints);
  const t1 = performance.now();
  const done = (w: Walked, runs: number, blobs: number, bad?: VerifyProblem): Verified => {
    const problems = [...schema, ...(bad !== undefined ? [bad] : [])];
    if (integrity !== 'ok') problems.push({ table: 'events', key: '-', reason: `SQLite quick_check: ${integrity}` });
    const firstBad = bad ?? problems[0];
    return {
      ok: problems.length === 0,
      events: w.events,
      runs,
      blobs,
      head: w.head,
      integrity,
      problems,
      ...(firstBad !== undefined ? { firstBad } : {}),
      chain_ms: performance.now() - t1,
      integrity_ms,
    };
  };
  const walked = walkChain(db, { ...o, ...(progress !== undefined ? { progress } : {}) });
  if (walked.bad !== undefined) return done(walked, 0, 0, walked.bad);
  const { runs, bad: badRun } = checkRuns(db, walked.starts);
  if (badRun !== undefined) return done(walked, runs, 0, badRun);
  const { blobs, bad: badBlob } = checkBlobs(db, walked.refs);
  return done(walked, runs, blobs, badBlob);
}
