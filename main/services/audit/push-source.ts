/**
 * A local audit log as `witness audit push` reads it (services/fleet/push.ts): opened read-only, in one read
 * transaction from the verification on, so the chain verified is the chain sent however the log grows meanwhile; the
 * values PostgreSQL's text cannot hold as they are found in the same pass, before anything is sent; then batches of
 * events with the run rows and blobs they start or name. A push that goes on as the log grows (`--watch`) opens the
 * log again each round with the chain as the last round left it (a ChainWalk): the event it ended on must still be
 * there with the same hash (else the log was rolled back, rewritten or replaced: a fork), and only what came after it
 * is verified, with the run rows and blobs the new events name.
 */
import type Database from 'better-sqlite3';
import { openAuditReadOnly } from './store.js';
import { checkBlobs, checkRuns, verifyChain } from './forensics.js';
import { schemaProblems } from './schema-check.js';
import { BLOB_COLUMNS, EVENT_COLUMNS, RUN_COLUMNS, RUN_FIELDS, jsonValue } from './rows.js';
import { type BlobRefs, ChainWalk, type VerifyProblem, blobRefsOf, checkBlobRows, checkRunRows } from './chain.js';
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

const EVENT_TEXT: readonly [number, string][] = [
  [1, 'run_id'],
  [4, 'kind'],
  [5, 'tool'],
  [6, 'failure_label'],
  [7, 'body'],
];

/** The first text value of an event row (EVENT_COLUMNS order) PostgreSQL cannot hold as it is, or null. */
function eventTextProblem(a: readonly unknown[]): string | null {
  for (const [col, name] of EVENT_TEXT) {
    const why = textProblem(a[col]);
    if (why !== null) return `event ${String(a[0])}: its ${name} ${why}`;
  }
  return null;
}

/** The first value of these run rows and blobs PostgreSQL cannot hold as it is, or null. */
function rowsTextProblem(runs: Iterable<unknown[]>, blobs: Iterable<unknown[]>): string | null {
  for (const r of runs)
    for (const [i, v] of r.entries()) {
      const why = textProblem(v);
      if (why !== null) return `run ${String(r[0])}: its ${RUN_FIELDS[i]} ${why}`;
    }
  for (const b of blobs)
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

/** Up to `max` events after `after`, stopping once they and the rows they name pass BATCH_BYTES. */
function readBatch(db: Database.Database, after: number, max: number): Batch {
  const events: unknown[][] = [];
  const runs: unknown[][] = [];
  const blobs: unknown[][] = [];
  let bytes = 0;
  const stmt = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).raw(true);
  const runStmt = db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).raw(true);
  const blobStmt = db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs WHERE sha256 = ? AND kind = ?`).raw(true);
  for (const a of stmt.iterate(after, max) as IterableIterator<unknown[]>) {
    bytes += (a[7] as string).length;
    events.push(a);
    const kind = a[4] as string;
    if (kind === 'run_start' || kind === 'plan') {
      if (kind === 'run_start') runs.push(runStmt.get(a[1]) as unknown[]);
      for (const [sha, k] of blobRefsOf(kind, obj(jsonValue(a[7] as string).value))) {
        const b = blobStmt.get(sha, k) as unknown[] | undefined;
        if (b === undefined) continue;
        blobs.push(b);
        bytes += (b[2] as string).length;
      }
    }
    if (bytes > BATCH_BYTES) break;
  }
  return { events, runs, blobs };
}

/** Why a log is not pushed: it does not verify, it no longer extends what was verified of it, or a value. */
export type LocalRefusal =
  | { readonly code: 'tampered'; readonly problem: VerifyProblem }
  | { readonly code: 'conflict'; readonly reason: string }
  | { readonly code: 'invalid-input'; readonly reason: string };

/** Each blob address whose kinds grew since `before` (address → how many kinds it had). */
function grownRefs(refs: BlobRefs, before: ReadonlyMap<string, number>): BlobRefs {
  const out: BlobRefs = new Map();
  for (const [sha, r] of refs) if ((before.get(sha) ?? 0) < r.kinds.size) out.set(sha, r);
  return out;
}

/**
 * The chain after the event `walk` ended on, verified as verifyChain verifies it (the run rows of the new run_starts,
 * the blobs the new events name; every other run row and blob still under the chain, by their counts); null when it
 * holds, else why not.
 */
function extendChain(db: Database.Database, walk: ChainWalk): LocalRefusal | null {
  const schema = schemaProblems(db)[0];
  if (schema !== undefined)
    return { code: 'tampered', problem: { table: 'schema', key: schema.key, reason: schema.reason } };
  const at = walk.events;
  if (at > 0) {
    const mine = db.prepare('SELECT hash FROM events WHERE seq = ?').pluck().get(at) as string | undefined;
    if (mine === undefined)
      return { code: 'conflict', reason: `it holds no event ${at} any more, which was pushed: it was rolled back` };
    if (mine !== walk.head)
      return {
        code: 'conflict',
        reason: `its event ${at}, which was pushed, has another hash now (${String(mine).slice(0, 12)}… against ${walk.head.slice(0, 12)}…): it was rewritten or replaced by another log`,
      };
  }
  const starts = walk.starts.size;
  const before = new Map([...walk.refs].map(([sha, r]) => [sha, r.kinds.size]));
  const rows = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq`).raw(true);
  let text: string | null = null;
  for (const a of rows.iterate(at) as IterableIterator<unknown[]>) {
    const bad = walk.step(a);
    if (bad !== null) return { code: 'tampered', problem: bad };
    text ??= eventTextProblem(a);
  }
  const fresh = new Map([...walk.starts].slice(starts));
  const runRows = [...fresh.keys()].map((id) => db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id));
  const count = (t: string): number => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  const runs =
    count('runs') === walk.starts.size
      ? checkRunRows(runRows.filter((r) => r !== undefined) as never[], fresh)
      : checkRuns(db, walk.starts);
  if (runs.bad !== undefined) return { code: 'tampered', problem: runs.bad };
  const grown = grownRefs(walk.refs, before);
  const blobStmt = db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs WHERE sha256 = ?`);
  const blobRows = [...grown.keys()].map((sha) => blobStmt.get(sha)).filter((b) => b !== undefined);
  const blobs =
    count('blobs') === walk.refs.size ? checkBlobRows(blobRows as never[], grown) : checkBlobs(db, walk.refs);
  if (blobs.bad !== undefined) return { code: 'tampered', problem: blobs.bad };
  text ??= rowsTextProblem(
    runRows.map((r): unknown[] => Object.values(r as object)),
    blobRows.map((b): unknown[] => Object.values(b as object)),
  );
  return text === null ? null : { code: 'invalid-input', reason: text };
}

/** The whole log verified (verifyChain, with `walk`), each event's text checked in the same pass. */
function verifyWhole(db: Database.Database, walk: ChainWalk): LocalRefusal | null {
  let text: string | null = null;
  const v = verifyChain(db, undefined, { walk, visit: (a) => (text ??= eventTextProblem(a)) });
  if (!v.ok) return { code: 'tampered', problem: v.firstBad! };
  text ??= rowsTextProblem(
    db.prepare(`SELECT ${RUN_COLUMNS} FROM runs`).raw(true).iterate() as IterableIterator<unknown[]>,
    db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs`).raw(true).iterate() as IterableIterator<unknown[]>,
  );
  return text === null ? null : { code: 'invalid-input', reason: text };
}

export class PushSource {
  private constructor(
    private readonly db: Database.Database,
    /** The verified chain: where it ends (events, head), to go on from in the next round. */
    readonly walk: ChainWalk,
  ) {}

  /** Events in the verified chain, and its head. */
  get events(): number {
    return this.walk.events;
  }

  get head(): string {
    return this.walk.head;
  }

  /**
   * Opens and verifies `file`: the whole log, or (with the chain a previous round verified) only what it holds after
   * that; the source, or why it is refused.
   */
  static open(file: string, verified?: ChainWalk): PushSource | LocalRefusal {
    const db = openAuditReadOnly(file);
    try {
      db.exec('BEGIN');
      const walk = verified ?? new ChainWalk();
      const refused = verified === undefined ? verifyWhole(db, walk) : extendChain(db, walk);
      if (refused !== null) {
        db.close();
        return refused;
      }
      return new PushSource(db, walk);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** The log's id: its first event's hash (the root of its chain). */
  logId(): string {
    return this.walk.first ?? this.hashAt(1);
  }

  hashAt(seq: number): string {
    return this.db.prepare('SELECT hash FROM events WHERE seq = ?').pluck().get(seq) as string;
  }

  /** Up to `max` events after `after` (fewer past about 16 MB with the rows they name), with their runs and blobs. */
  batch(after: number, max: number): Batch {
    return readBatch(this.db, after, max);
  }

  close(): void {
    this.db.close();
  }
}
