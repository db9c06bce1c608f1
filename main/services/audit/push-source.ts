/**
 * A local audit log as `witness audit push` reads it (services/fleet/push.ts): opened read-only, in one read
 * transaction from the verification on, so the chain verified is the chain sent however the log grows meanwhile;
 * the values PostgreSQL's text cannot hold as they are found before anything is sent; then batches of events with the
 * run rows and blobs they start or name.
 */
import type Database from 'better-sqlite3';
import { openAuditReadOnly } from './store.js';
import { verifyChain } from './forensics.js';
import { BLOB_COLUMNS, EVENT_COLUMNS, RUN_COLUMNS, RUN_FIELDS, jsonValue } from './rows.js';
import { type VerifyProblem, blobRefsOf } from './chain.js';
import { obj } from './body.js';

const BATCH_BYTES = 16 * 1024 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text value cannot go into PostgreSQL unchanged (a NUL, a lone surrogate), or null. */
function textProblem(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  if (v.includes('\0')) return 'holds a NUL character, which PostgreSQL text cannot hold';
  if (LONE_SURROGATE.test(v))
    return 'is not well-formed Unicode (a lone surrogate), which would not be stored as it is';
  return null;
}

/** The first value of the rows to push that PostgreSQL cannot hold as it is: the row and why; else null. */
function unstorable(db: Database.Database, after: number): string | null {
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq`).raw(true);
  const cols = ['run_id', 'kind', 'tool', 'failure_label', 'body'];
  for (const a of rows.iterate(after) as IterableIterator<unknown[]>) {
    for (const [i, col] of [1, 4, 5, 6, 7].entries()) {
      const why = textProblem(a[col]);
      if (why !== null) return `event ${String(a[0])}: its ${cols[i]} ${why}`;
    }
  }
  for (const r of db.prepare(`SELECT ${RUN_COLUMNS} FROM runs`).raw(true).iterate() as IterableIterator<unknown[]>)
    for (const [i, v] of r.entries()) {
      const why = textProblem(v);
      if (why !== null) return `run ${String(r[0])}: its ${RUN_FIELDS[i]} ${why}`;
    }
  for (const b of db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs`).raw(true).iterate() as IterableIterator<unknown[]>)
    for (const [i, v] of b.entries()) {
      const why = textProblem(v);
      if (why !== null) return `the blob ${String(b[0])}: its ${['sha256', 'kind', 'body'][i]} ${why}`;
    }
  return null;
}

/** One batch's rows: its events (raw, EVENT_COLUMNS order), the run rows and blobs they start or name. */
export interface Batch {
  readonly events: unknown[][];
  readonly runs: unknown[][];
  readonly blobs: unknown[][];
}

function readBatch(db: Database.Database, after: number, max: number): Batch {
  const events: unknown[][] = [];
  let bytes = 0;
  const stmt = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).raw(true);
  for (const a of stmt.iterate(after, max) as IterableIterator<unknown[]>) {
    bytes += (a[7] as string).length;
    events.push(a);
    if (bytes > BATCH_BYTES) break;
  }
  const runs: unknown[][] = [];
  const blobs: unknown[][] = [];
  const runStmt = db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).raw(true);
  const blobStmt = db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs WHERE sha256 = ? AND kind = ?`).raw(true);
  for (const a of events) {
    const kind = a[4] as string;
    if (kind !== 'run_start' && kind !== 'plan') continue;
    if (kind === 'run_start') runs.push(runStmt.get(a[1]) as unknown[]);
    const body = jsonValue(a[7] as string);
    for (const [sha, k] of blobRefsOf(kind, obj(body.value))) {
      const b = blobStmt.get(sha, k) as unknown[] | undefined;
      if (b !== undefined) blobs.push(b);
    }
  }
  return { events, runs, blobs };
}

export class PushSource {
  private constructor(
    private readonly db: Database.Database,
    /** Events in the verified chain, and its head. */
    readonly events: number,
    readonly head: string,
  ) {}

  /** Opens and verifies `file`: the source, or the first row that does not verify. */
  static open(file: string): PushSource | VerifyProblem {
    const db = openAuditReadOnly(file);
    try {
      db.exec('BEGIN');
      const v = verifyChain(db);
      if (!v.ok) {
        db.close();
        return v.firstBad!;
      }
      return new PushSource(db, v.events, v.head);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** The log's id: its first event's hash (the root of its chain). */
  logId(): string {
    return this.hashAt(1);
  }

  hashAt(seq: number): string {
    return this.db.prepare('SELECT hash FROM events WHERE seq = ?').pluck().get(seq) as string;
  }

  /** The first value after event `after` that PostgreSQL cannot hold as it is, or null. */
  unstorable(after: number): string | null {
    return unstorable(this.db, after);
  }

  /** Up to `max` events after `after` (fewer past about 16 MB), with their run rows and blobs. */
  batch(after: number, max: number): Batch {
    return readBatch(this.db, after, max);
  }

  close(): void {
    this.db.close();
  }
}
