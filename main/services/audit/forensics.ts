/**
 * Reading an audit database after the fact (always read-only): runs, events filtered by run, time
 * window, tool, kind, failure label and free text with keyset paging, a live tail, and the
 * verification of the hash chain that names the first row that does not match.
 */
import type Database from 'better-sqlite3';
import { type EventRow, GENESIS_HASH, eventHash, sha256 } from './store.js';

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
  readonly events: number;
  readonly ended_ms: number | null;
  readonly outcome: string | null;
}

export function listRuns(db: Database.Database): RunSummary[] {
  const rows = db.prepare(`
    SELECT r.*, (SELECT count(*) FROM events e WHERE e.run_id = r.id) AS events,
           (SELECT e.t_ms FROM events e WHERE e.run_id = r.id AND e.kind = 'run_end' ORDER BY e.seq DESC LIMIT 1) AS ended_ms,
           (SELECT e.body FROM events e WHERE e.run_id = r.id AND e.kind = 'run_end' ORDER BY e.seq DESC LIMIT 1) AS end_body
    FROM runs r ORDER BY r.started_ms`).all() as (Record<string, unknown> & { models: string; end_body: string | null })[];
  return rows.map((r) => ({
    id: r['id'] as string, started_ms: r['started_ms'] as number, world: r['world'] as string, backend: r['backend'] as string,
    operator: r['operator'] as string, software: r['software'] as string, models: JSON.parse(r.models) as Record<string, string>,
    spec_sha: r['spec_sha'] as string | null, regions_sha: r['regions_sha'] as string | null, events: r['events'] as number,
    ended_ms: (r['ended_ms'] as number | null) ?? null,
    outcome: r.end_body === null ? null : ((JSON.parse(r.end_body) as { outcome?: string }).outcome ?? null),
  }));
}

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

export const DEFAULT_PAGE = 100;

export interface EventPage {
  readonly rows: EventRow[];
  /** Continue after this sequence number for the next page (null at the end of the log). */
  readonly next: number | null;
  /** False when the scan budget ran out before the page was full (free-text search). */
  readonly complete: boolean;
}

/** The sequence numbers a time window covers: stored times never decrease along the chain. */
function seqRange(db: Database.Database, from?: number, to?: number): { lo: number; hi: number } | null {
  let lo = 1, hi = Number.MAX_SAFE_INTEGER;
  if (from !== undefined) {
    const r = db.prepare('SELECT seq FROM events WHERE t_ms >= ? ORDER BY t_ms, seq LIMIT 1').get(from) as { seq: number } | undefined;
    if (r === undefined) return null;
    lo = r.seq;
  }
  if (to !== undefined) {
    const r = db.prepare('SELECT seq FROM events WHERE t_ms <= ? ORDER BY t_ms DESC, seq DESC LIMIT 1').get(to) as { seq: number } | undefined;
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
export function queryPage(db: Database.Database, q: EventQuery, budget_ms = TEXT_BUDGET_MS, window = TEXT_WINDOW): EventPage {
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
    const rows = db.prepare(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${limit}`).all(lo, hi, ...args) as EventRow[];
    return { rows, next: rows.length > 0 ? rows[rows.length - 1]!.seq : null, complete: true };
  }
  add("body LIKE ? ESCAPE '\\'", `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const last = (db.prepare('SELECT max(seq) AS m FROM events').get() as { m: number | null }).m ?? 0;
  const end = Math.min(hi, last);
  const stmt = db.prepare(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`);
  const rows: EventRow[] = [];
  const started = performance.now();
  while (lo <= end && rows.length < limit) {
    const top = Math.min(end, lo + window - 1);
    rows.push(...(stmt.all(lo, top, ...args, limit - rows.length) as EventRow[]));
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

export function getBlob(db: Database.Database, sha: string): { kind: string; body: string } | undefined {
  return db.prepare('SELECT kind, body FROM blobs WHERE sha256 = ?').get(sha) as { kind: string; body: string } | undefined;
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly events: number;
  readonly blobs: number;
  readonly head: string;
  /** The first row that does not match, and why. */
  readonly firstBad?: { readonly table: 'events' | 'blobs'; readonly key: string; readonly reason: string };
  readonly integrity: string;
}

/** Walks the whole chain in sequence order; also checks every blob against its address. */
export function verifyChain(db: Database.Database, progress?: (done: number) => void): VerifyResult & { chain_ms: number; integrity_ms: number } {
  const t0 = performance.now();
  const integrity = (db.pragma('quick_check', { simple: true }) as string) ?? 'unknown';
  const integrity_ms = performance.now() - t0;
  const t1 = performance.now();
  let prev = GENESIS_HASH;
  let n = 0;
  let expectSeq: number | null = null;
  let lastT = -Infinity;
  // Raw rows (arrays) read in order: seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash.
  const rows = db.prepare('SELECT seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash FROM events ORDER BY seq').raw(true);
  for (const a of rows.iterate() as IterableIterator<[number, string, number, number | null, string, string | null, string | null, string, string, string]>) {
    const r = { seq: a[0], run_id: a[1], t_ms: a[2], step: a[3], kind: a[4], tool: a[5], failure_label: a[6], body: a[7] };
    const fail = (reason: string): VerifyResult & { chain_ms: number; integrity_ms: number } => ({
      ok: false, events: n, blobs: 0, head: prev, integrity, firstBad: { table: 'events', key: String(r.seq), reason }, chain_ms: performance.now() - t1, integrity_ms,
    });
    if (expectSeq !== null && r.seq !== expectSeq) return fail(`sequence gap: expected event ${expectSeq}, found ${r.seq} (events were removed)`);
    if (r.t_ms < lastT) return fail(`time goes backwards (${r.t_ms} after ${lastT}): stored times never decrease`);
    lastT = r.t_ms;
    if (a[8] !== prev) return fail(`prev_hash ${a[8].slice(0, 12)}… does not chain to the previous event's hash ${prev.slice(0, 12)}…`);
    if (eventHash(prev, r) !== a[9]) return fail(`hash does not match its content (${r.kind} of run ${r.run_id}): the row was altered`);
    prev = a[9];
    n++;
    expectSeq = r.seq + 1;
    if ((n & 65535) === 0) progress?.(n);
  }
  let blobs = 0;
  for (const b of db.prepare('SELECT sha256, kind, body FROM blobs').iterate() as IterableIterator<{ sha256: string; kind: string; body: string }>) {
    if (sha256(b.body) !== b.sha256) {
      return { ok: false, events: n, blobs, head: prev, integrity, firstBad: { table: 'blobs', key: b.sha256, reason: `the ${b.kind} blob's content does not match its address` }, chain_ms: performance.now() - t1, integrity_ms };
    }
    blobs++;
  }
  const chain_ms = performance.now() - t1;
  return {
    ok: integrity === 'ok', events: n, blobs, head: prev, integrity, chain_ms, integrity_ms,
    ...(integrity === 'ok' ? {} : { firstBad: { table: 'events' as const, key: '-', reason: `SQLite quick_check: ${integrity}` } }),
  };
}
