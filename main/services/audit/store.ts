/**
 * The audit log: one SQLite database (better-sqlite3, WAL) per workspace, holding many runs, written
 * by any number of threads and processes at once. Events are appended, never rewritten: triggers
 * refuse UPDATE and DELETE, and each event stores the SHA-256 of its canonical JSON chained to the
 * previous event's hash, so `verify` can name the first row that does not match. Appends are batched
 * into one transaction per tick, off the caller's hot path; each batch takes the write lock first
 * (BEGIN IMMEDIATE) and continues the chain from the row last committed by whichever writer, so
 * writers never collide on a sequence number or fork the chain. A writer that finds the lock taken
 * retries until its busy timeout (the event loop stays free meanwhile). The promise an append
 * returns resolves only after its transaction committed with synchronous=FULL, so an acknowledged
 * event survives a kill -9 of the process. A run's row, its blobs and its run_start event are one
 * transaction: there is no run without its run_start. Before it commits, a batch checks that what it
 * wrote landed (landed.ts), and the writer refuses a database whose schema is not Witness's
 * (schema-check.ts); readers open with the same check (openAuditReadOnly) and read values within
 * the limits of rows.ts, which the writer holds appends to.
 */
import { hash, randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AUDIT_SCHEMA_VERSION, EVENT_KINDS, MIGRATIONS } from './schema.js';
import { problemsText, schemaProblems } from './schema-check.js';
import { LandedCheck, type Written } from './landed.js';
import {
  AuditValueError,
  type EventRow,
  MAX_BLOB_BYTES,
  MAX_BODY_BYTES,
  MAX_FIELD_BYTES,
  MAX_TIME_MS,
} from './rows.js';
import { MAX_JSON_DEPTH } from '../../core/input/json.js';
import { bytesText } from '../llm/bounded.js';
import { AUDIT_EVENTS_VERSION, type AuditEventKind as EventKind } from '../../contract/audit-events.js';
import { WitnessError, type ErrorCode } from '../../contract/errors.js';
import { fsFailure, privateCopy } from '../../platform/files.js';

export type { EventRow };

export class AuditError extends WitnessError {
  override readonly name = 'AuditError';
  constructor(
    readonly file: string,
    detail: string,
    code: ErrorCode = 'invalid-input',
  ) {
    super(code, `${file}: ${detail}`, { file });
  }
}

export const GENESIS_HASH = '0'.repeat(64);

export interface RunMeta {
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: Readonly<Record<string, string>>;
  readonly spec?: string;
  readonly regions?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The argument schemas of the run's tools (tool name → JSON Schema text), stored as blobs the run_start names. */
  readonly toolSchemas?: Readonly<Record<string, string>>;
  /** A map world's occupancy grid (services/audit/map-blob.ts), stored as a blob the run_start names. */
  readonly map?: string;
}

export interface AppendOptions {
  readonly step?: number;
  readonly tool?: string;
  readonly failureLabel?: string;
  /** Wall-clock time in ms (the injected clock's); now when absent. */
  readonly t_ms?: number;
}

/**
 * Canonical JSON (as RFC 8785 for the values we store): object keys sorted by code unit, no
 * whitespace, numbers and strings as JSON.stringify writes them (shortest round-trip form). A value
 * nested deeper than MAX_JSON_DEPTH levels of arrays and objects (or holding a cycle) is refused
 * (invalid-input) before the recursion could overflow the stack: the log never holds what its
 * readers refuse.
 */
export function canonicalJson(v: unknown, depth = 0): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (depth >= MAX_JSON_DEPTH)
    throw new WitnessError('invalid-input', `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  if (Array.isArray(v)) return `[${v.map((x) => canonicalJson(x, depth + 1)).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k], depth + 1)}`)
    .join(',')}}`;
}

/**
 * The canonical form hashed for an event: its fields except its own hash, keys in sorted order, the
 * body as stored (bodies are stored in canonical JSON). Built as a string, without re-parsing the
 * body, so appending and verifying a million events stays cheap.
 */
export function eventHash(prev: string, e: Omit<EventRow, 'hash' | 'prev_hash'>): string {
  return chainHash(prev, e.seq, e.run_id, e.t_ms, e.step, e.kind, e.tool, e.failure_label, e.body);
}

/** eventHash over the fields themselves (the append path builds no row objects). */
export function chainHash(
  prev: string,
  seq: number,
  run: string,
  t_ms: number,
  step: number | null,
  kind: string,
  tool: string | null,
  failure: string | null,
  body: string,
): string {
  return hash(
    'sha256',
    `${prev}{"body":${body},"failure_label":${JSON.stringify(failure)},"kind":${JSON.stringify(kind)},` +
      `"run_id":${JSON.stringify(run)},"seq":${seq},"step":${JSON.stringify(step)},"t_ms":${JSON.stringify(t_ms)},"tool":${JSON.stringify(tool)}}`,
  );
}

export function sha256(text: string): string {
  return hash('sha256', text);
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * What kind of file this is, before SQLite touches it: clear errors, naming the file, for a folder, a
 * device or a pipe, a file that cannot be read, a foreign or truncated file. `mustExist`: a missing
 * file is an error (forensics) rather than a database to create (the writer).
 */
function checkFile(file: string, mustExist: boolean): void {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = fsFailure(file, e);
    // A link to nothing: SQLite would create the database wherever it points.
    if (code === 'ENOENT' && why.code === 'invalid-input')
      throw new AuditError(
        file,
        mustExist
          ? `no such file: ${why.detail.replace(/^ENOENT: /, '')}`
          : `${why.detail.replace(/^ENOENT: /, '')}: an audit database is not created through a link to nothing`,
        'invalid-input',
      );
    if (code === 'ENOENT') {
      if (mustExist) throw new AuditError(file, 'no such file', 'not-found');
      return;
    }
    // A name too long, a loop of links, a file where a folder should be: the path's problem, in words.
    throw new AuditError(file, `cannot be read: ${why.detail}`, why.code === 'not-found' ? 'unreadable' : why.code);
  }
  if (st.isDirectory()) throw new AuditError(file, 'is a folder, not an audit database file', 'not-a-file');
  if (!st.isFile())
    throw new AuditError(
      file,
      'is not a regular file (a device, a pipe or a socket): name an audit database file',
      'not-a-file',
    );
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new AuditError(
      file,
      `cannot be read (${(e as { code?: string }).code === 'EACCES' ? 'permission denied' : (e as Error).message})`,
      'unreadable',
    );
  }
  try {
    const head = Buffer.alloc(100);
    let n: number;
    try {
      n = readSync(fd, head, 0, 100, 0);
    } catch (e) {
      throw new AuditError(file, `cannot be read (${(e as Error).message})`, 'unreadable');
    }
    if (n === 0) return;
    if (n < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC)
      throw new AuditError(
        file,
        'not an SQLite database (no "SQLite format 3" header): not a Witness audit log',
        'not-sqlite',
      );
  } finally {
    closeSync(fd);
  }
}

/** Whether `file` starts with the SQLite header (an existing database of any kind). */
export function isSqliteFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

const sqliteCode = (e: unknown): string => ((e as { code?: unknown }).code as string) ?? '';

/** An SQLite error as an AuditError naming the file (already-AuditErrors pass through). */
export function wrap(file: string, e: unknown): AuditError {
  if (e instanceof AuditError) return e;
  if (e instanceof WitnessError) return new AuditError(file, e.message, e.code);
  const code = sqliteCode(e);
  const msg = e instanceof Error ? e.message : String(e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new AuditError(
      file,
      `the database is locked by another process (${msg}); try again when it is free`,
      'locked',
    );
  if (code === 'SQLITE_FULL')
    return new AuditError(
      file,
      `the disk is full (${msg}); the batch being written was rolled back, nothing partial was kept`,
    );
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return new AuditError(
      file,
      `the database is corrupt or truncated (${msg}); run \`witness audit verify\` on a copy`,
      'corrupt',
    );
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN'))
    return new AuditError(file, `cannot open for writing (${msg})`, 'unreadable');
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH')
    return new AuditError(file, `cannot be read (${msg})`, 'unreadable');
  return new AuditError(file, msg);
}

/**
 * `e` as an AuditError naming `file` when it comes from SQLite, the audit store or a value read from it (rows.ts);
 * anything else unchanged.
 */
export function auditErrorOf(file: string, e: unknown): unknown {
  return e instanceof AuditError || e instanceof AuditValueError || sqliteCode(e).startsWith('SQLITE_')
    ? wrap(file, e)
    : e;
}

function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Private copies made to read evidence that cannot be opened in place; removed on close and at exit. */
const privateCopies = new Set<string>();
let exitHook = false;

function removeCopy(dir: string): void {
  privateCopies.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A read-only connection that can read `file`'s WAL. In place when possible; when SQLite cannot
 * (a write-protected database in a read-only folder: WAL mode needs its `-shm` index and cannot
 * create it there), a private copy of the database and its WAL in a temporary folder, opened
 * read-only and removed when the connection closes. The evidence itself is never written.
 */
function openReadOnly(file: string): Database.Database {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      // Reading the schema opens the WAL index: this is where a read-only folder fails.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  } catch (e) {
    const code = sqliteCode(e);
    if (!code.startsWith('SQLITE_READONLY') && !code.startsWith('SQLITE_CANTOPEN') && !code.startsWith('SQLITE_IOERR'))
      throw e;
  }
  const { dir, copy } = privateCopy(file, ['-wal'], 'witness-evidence-');
  privateCopies.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const d of [...privateCopies]) removeCopy(d);
    });
  }
  try {
    const db = new Database(copy, { readonly: true, fileMustExist: true });
    const close = db.close.bind(db);
    Object.defineProperty(db, 'close', {
      value: () => {
        try {
          return close();
        } finally {
          removeCopy(dir);
        }
      },
    });
    return db;
  } catch (e) {
    removeCopy(dir);
    throw e;
  }
}

/**
 * Settings every connection to an audit database gets: functions that are not innocuous may not
 * run from the schema (views, triggers, generated columns, defaults), whatever the file holds.
 */
function defend(db: Database.Database, readOnly: boolean): void {
  db.pragma('trusted_schema = OFF');
  if (readOnly) {
    db.pragma('query_only = ON');
    // A damaged cell is an error where it is read, not a misread.
    db.pragma('cell_size_check = ON');
  }
}

export interface ReadOnlyOptions {
  /**
   * 'refuse' (the default, every reader): a schema that would make a read run code or read
   * something else than the evidence (a generated column, a view or virtual table in place of a
   * table, a trigger Witness does not create, a column added or removed) is refused, `tampered`.
   * 'report' (verify): opened anyway, for verifyChain to report every difference.
   */
  readonly foreignSchema?: 'refuse' | 'report';
}

/**
 * Opens an audit database read-only (forensics): evidence is never modified, and write-protected
 * evidence in a read-only folder opens too. Before anything is read, its schema is held against the
 * one the writer creates (schema-check.ts).
 */
export function openAuditReadOnly(file: string, o: ReadOnlyOptions = {}): Database.Database {
  checkFile(file, true);
  let db: Database.Database;
  try {
    db = openReadOnly(file);
  } catch (e) {
    throw wrap(file, e);
  }
  try {
    defend(db, true);
    const v = schemaVersion(db);
    if (v !== AUDIT_SCHEMA_VERSION) {
      throw new AuditError(
        file,
        v === 0
          ? 'not a Witness audit database (no schema version: a foreign SQLite file)'
          : `audit schema version ${v} is not one this Witness reads (it reads version ${AUDIT_SCHEMA_VERSION}); use a newer Witness`,
        v === 0 ? 'not-audit-database' : 'schema-version',
      );
    }
    // A table replaced by a view is a tampered database (below), not a foreign one.
    const names = (
      db.prepare("SELECT lower(name) AS name FROM sqlite_schema WHERE type IN ('table', 'view')").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    for (const t of ['runs', 'blobs', 'events']) {
      if (!names.includes(t))
        throw new AuditError(file, `not a Witness audit database (no table "${t}")`, 'not-audit-database');
    }
    if (o.foreignSchema !== 'report') {
      const unsafe = schemaProblems(db).filter((p) => p.unsafe);
      if (unsafe.length > 0) {
        throw new AuditError(
          file,
          `its schema is not the one Witness creates: ${problemsText(unsafe)}; refusing to read it (\`witness audit verify\` reports every difference)`,
          'tampered',
        );
      }
    }
    return db;
  } catch (e) {
    db.close();
    throw wrap(file, e);
  }
}

interface RunRow {
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: string;
  readonly spec: string | null;
  readonly regions: string | null;
  readonly meta: string;
}

interface Pending {
  readonly run: string;
  readonly kind: EventKind;
  readonly body: string;
  readonly o: AppendOptions;
  /** A new run's row, inserted in the same transaction as this (its run_start) event; null for other events. */
  readonly runRow: RunRow | null;
  readonly resolve: (seq: number) => void;
  readonly reject: (e: Error) => void;
}

interface PendingBlob {
  readonly sha: string;
  readonly kind: string;
  readonly body: string;
}

/** How long one attempt waits inside SQLite for the write lock before the event loop gets a turn. */
const BUSY_SLICE_MS = 10;

export class AuditLog {
  private readonly insert: Database.Statement;
  private readonly insertBlob: Database.Statement;
  private readonly insertRun: Database.Statement;
  private readonly lastRow: Database.Statement;
  private readonly landed: LandedCheck;
  private readonly commitBatch: Database.Transaction<
    (blobs: readonly PendingBlob[], batch: readonly Pending[], seqs: number[]) => void
  >;
  private queue: Pending[] = [];
  private blobs: PendingBlob[] = [];
  private scheduled = false;
  /** When the batch now waiting for the write lock first found it taken. */
  private busySince: number | null = null;
  /** Waiting for the queue to drain (flush). */
  private idle: (() => void)[] = [];
  /** A batch of blobs alone that could not be stored: reported by the next flush. */
  private blobError: AuditError | null = null;
  /** The last event this writer committed, and the one its batch in progress would be. */
  private committed = { seq: 0, hash: GENESIS_HASH };
  private written = this.committed;
  private closed = false;
  /** Set when a batch did not land as written: the log takes nothing more. */
  private broken: AuditError | null = null;

  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
    private readonly now: () => number,
    private readonly busyTimeout_ms: number,
  ) {
    this.insert = db.prepare(
      'INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (sha256, kind, body) VALUES (?, ?, ?)');
    this.insertRun = db.prepare(
      'INSERT INTO runs (id, started_ms, world, backend, operator, software, models, spec_sha, regions_sha, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.lastRow = db.prepare('SELECT seq, hash, t_ms FROM events ORDER BY seq DESC LIMIT 1');
    this.landed = new LandedCheck(db);
    this.commitBatch = db.transaction((blobs: readonly PendingBlob[], batch: readonly Pending[], seqs: number[]) =>
      this.writeBatch(blobs, batch, seqs),
    );
  }

  /**
   * Opens (creating or migrating) the workspace's audit database for appending. `busyTimeout_ms`:
   * how long a batch waits for other writers before it fails as locked (default 30 s); `maxPages`:
   * a size limit (SQLITE_FULL past it).
   */
  static open(file: string, o: { now?: () => number; busyTimeout_ms?: number; maxPages?: number } = {}): AuditLog {
    const now = o.now ?? Date.now;
    const busy = Math.max(0, Math.floor(o.busyTimeout_ms ?? 30_000));
    checkFile(file, false);
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      // Opening waits the whole timeout in SQLite: another process may be creating the same database.
      db.pragma(`busy_timeout = ${busy}`);
      defend(db, false);
      if (o.maxPages !== undefined) db.pragma(`max_page_count = ${Math.floor(o.maxPages)}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const check = (v: number): void => {
        if (v > AUDIT_SCHEMA_VERSION)
          throw new AuditError(
            file,
            `audit schema version ${v} is newer than this Witness (${AUDIT_SCHEMA_VERSION}); refusing to write to it`,
            'schema-version',
          );
        if (v === 0) {
          const tables = db!.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number };
          if (tables.n > 0)
            throw new AuditError(
              file,
              'not a Witness audit database (a foreign SQLite file with a schema and no schema version); refusing to write to it',
              'not-audit-database',
            );
        }
      };
      check(schemaVersion(db));
      if (schemaVersion(db) < AUDIT_SCHEMA_VERSION) {
        // Under the write lock, reading the version again: another process may have migrated meanwhile.
        db.transaction(() => {
          const v = schemaVersion(db!);
          check(v);
          for (let i = v; i < AUDIT_SCHEMA_VERSION; i++) {
            db!.exec(MIGRATIONS[i]!);
            db!.pragma(`user_version = ${i + 1}`);
          }
        }).immediate();
      }
      const foreign = schemaProblems(db);
      if (foreign.length > 0) {
        throw new AuditError(
          file,
          `its schema is not the one Witness creates: ${problemsText(foreign)}; refusing to write to it (record into a new audit database; \`witness audit verify\` reports every difference)`,
          'tampered',
        );
      }
      db.pragma(`busy_timeout = ${Math.min(busy, BUSY_SLICE_MS)}`);
      return new AuditLog(file, db, now, busy);
    } catch (e) {
      db?.close();
      throw wrap(file, e);
    }
  }

  /**
   * Stores a blob by content with the next batch (in the same transaction as the events appended
   * after it, so an event never names a blob that is not there); returns its SHA-256.
   */
  putBlob(kind: string, body: string): string {
    if (this.closed) throw new AuditError(this.file, 'the audit log is closed');
    this.checkBlob(kind, body);
    const sha = sha256(body);
    this.blobs.push({ sha, kind, body });
    this.schedule(0);
    return sha;
  }

  /**
   * Starts a run: its row, its blobs (specification, regions, tool schemas) and its run_start event,
   * all in one transaction, committed before it returns; returns its id.
   */
  async startRun(m: RunMeta): Promise<string> {
    const id = randomUUID();
    // Every check first, the blobs queued last: a run that cannot be recorded leaves no blob behind.
    const blobs: [kind: string, body: string][] = [];
    const blob = (kind: string, text: string): string => {
      this.checkBlob(kind, text);
      blobs.push([kind, text]);
      return sha256(text);
    };
    const spec = m.spec !== undefined ? blob('spec', m.spec) : null;
    const regions = m.regions !== undefined ? blob('regions', m.regions) : null;
    const map = m.map !== undefined ? blob('map', m.map) : undefined;
    const tools =
      m.toolSchemas === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(m.toolSchemas).map(([name, schema]) => [name, blob(`tool-schema:${name}`, schema)]),
          );
    const body = {
      world: m.world,
      backend: m.backend,
      operator: m.operator,
      software: m.software,
      models: { ...m.models },
      spec_sha: spec,
      regions_sha: regions,
      meta: { ...m.meta },
      events: AUDIT_EVENTS_VERSION,
      ...(tools !== undefined ? { tool_schemas: tools } : {}),
      ...(map !== undefined ? { map_sha: map } : {}),
    };
    const runRow: RunRow = {
      world: m.world,
      backend: m.backend,
      operator: m.operator,
      software: m.software,
      models: this.fieldJson('models', m.models),
      spec,
      regions,
      meta: this.fieldJson('meta', m.meta ?? {}),
    };
    this.eventText(id, 'run_start', body, {});
    for (const [kind, text] of blobs) this.putBlob(kind, text);
    await this.enqueue(id, 'run_start', body, {}, runRow);
    return id;
  }

  /**
   * Queues an event; the promise resolves with its sequence number once it is durable (committed
   * with fsync), or rejects with an AuditError (nothing of its batch is kept). The store checks the
   * kind against the audit event catalogue; the writers (mission-recorder.ts) are typed by it.
   */
  append(run: string, kind: EventKind, body: unknown, o: AppendOptions = {}): Promise<number> {
    return this.enqueue(run, kind, body, o);
  }

  /** Whether a blob may be stored: the log takes it (not broken), and it is within its size limit. */
  private checkBlob(kind: string, body: string): void {
    if (this.broken !== null) throw this.broken;
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_BLOB_BYTES)
      throw new AuditError(
        this.file,
        `a ${kind} blob of ${bytesText(bytes)} is larger than ${bytesText(MAX_BLOB_BYTES)}, the most the audit log holds: not stored`,
        'too-large',
      );
  }

  /** A run row's JSON field as stored: nested no deeper, and no larger, than the readers take. */
  private fieldJson(name: string, v: unknown): string {
    try {
      canonicalJson(v);
    } catch (e) {
      throw new AuditError(this.file, `a run's ${name} is ${e instanceof Error ? e.message : String(e)}: not recorded`);
    }
    const text = JSON.stringify(v);
    if (Buffer.byteLength(text) > MAX_FIELD_BYTES)
      throw new AuditError(
        this.file,
        `a run's ${name} is larger than ${bytesText(MAX_FIELD_BYTES)}, the most the audit log holds: not recorded`,
        'too-large',
      );
    return text;
  }

  /**
   * An event's body as stored (canonical JSON), after the checks that keep the log readable: a body
   * nested too deep or too large, a time that is not one, a step that is not an integer, a field
   * too large are refused (the promise rejects; nothing is queued).
   */
  private eventText(run: string, kind: string, body: unknown, o: AppendOptions): string {
    const what = `a ${kind} event of run ${run}`;
    let text: string;
    try {
      text = canonicalJson(body ?? null);
    } catch (e) {
      throw new AuditError(
        this.file,
        `${what}: its body is ${e instanceof Error ? e.message : String(e)}: not appended`,
      );
    }
    if (text.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(text) > MAX_BODY_BYTES) {
      throw new AuditError(
        this.file,
        `${what}: its body is larger than ${bytesText(MAX_BODY_BYTES)}, the most the audit log holds: not appended`,
        'too-large',
      );
    }
    if (o.t_ms !== undefined && !(Number.isFinite(o.t_ms) && Math.abs(o.t_ms) <= MAX_TIME_MS))
      throw new AuditError(
        this.file,
        `${what}: its time ${o.t_ms} is not milliseconds since 1970 within ±${MAX_TIME_MS}: not appended`,
      );
    if (o.step !== undefined && !Number.isSafeInteger(o.step))
      throw new AuditError(this.file, `${what}: its step ${o.step} is not an integer: not appended`);
    for (const [name, v] of [
      ['run id', run],
      ['tool', o.tool],
      ['failure label', o.failureLabel],
    ] as const) {
      if (v !== undefined && Buffer.byteLength(v) > MAX_FIELD_BYTES)
        throw new AuditError(
          this.file,
          `${what}: its ${name} is larger than ${bytesText(MAX_FIELD_BYTES)}: not appended`,
          'too-large',
        );
    }
    return text;
  }

  private enqueue(
    run: string,
    kind: EventKind,
    body: unknown,
    o: AppendOptions,
    runRow: RunRow | null = null,
  ): Promise<number> {
    if (this.closed) return Promise.reject(new AuditError(this.file, 'the audit log is closed'));
    if (this.broken !== null) return Promise.reject(this.broken);
    if (!(EVENT_KINDS as readonly string[]).includes(kind))
      return Promise.reject(new AuditError(this.file, `unknown event kind "${kind}"`));
    let text: string;
    try {
      text = this.eventText(run, kind, body, o);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ run, kind, body: text, o, runRow, resolve, reject });
      this.schedule(0);
    });
  }

  private schedule(delay_ms: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (delay_ms <= 0) setImmediate(() => this.flushNow());
    else setTimeout(() => this.flushNow(), delay_ms);
  }

  /**
   * Commits everything queued (normally done on the next tick). When another writer holds the lock
   * past this attempt's slice, the batch goes back to the head of the queue and is retried shortly,
   * until the busy timeout; then it fails as locked.
   */
  flushNow(): void {
    this.scheduled = false;
    const batch = this.queue,
      blobs = this.blobs;
    if (batch.length === 0 && blobs.length === 0) return this.drained();
    this.queue = [];
    this.blobs = [];
    const seqs: number[] = new Array<number>(batch.length);
    try {
      this.commitBatch.immediate(blobs, batch, seqs);
    } catch (e) {
      const code = sqliteCode(e);
      if (code.startsWith('SQLITE_BUSY') && !this.closed) {
        const since = (this.busySince ??= Date.now());
        if (Date.now() - since < this.busyTimeout_ms) {
          this.queue = batch.concat(this.queue);
          this.blobs = blobs.concat(this.blobs);
          this.schedule(1 + (batch.length % 4));
          return;
        }
      }
      this.busySince = null;
      const err = wrap(this.file, e);
      if (err.code === 'tampered') this.broken = err;
      for (const p of batch) p.reject(err);
      if (batch.length === 0) this.blobError = err;
      return this.drained();
    }
    this.busySince = null;
    this.committed = this.written;
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(seqs[i]!);
    this.drained();
  }

  /** Tells flush() when nothing is queued any more. */
  private drained(): void {
    if (this.queue.length > 0 || this.blobs.length > 0 || this.scheduled) return;
    const waiting = this.idle;
    this.idle = [];
    for (const w of waiting) w();
  }

  /**
   * One transaction, begun IMMEDIATE (the write lock first): the blobs, then every queued event in
   * order, the chain continued from the row last committed by any writer.
   */
  private writeBatch(blobs: readonly PendingBlob[], batch: readonly Pending[], seqs: number[]): void {
    for (const b of blobs) this.insertBlob.run(b.sha, b.kind, b.body);
    const written: Written = {
      ...(batch.length > 0 ? this.writeEvents(batch, seqs) : { events: 0, after: 0, head: null, runs: [] }),
      blobs,
    };
    const wrong = [this.landed.problem(written), this.landed.schemaChange()].filter((x) => x !== null);
    if (wrong.length > 0) {
      throw new AuditError(
        this.file,
        `what this writer appended did not land as written: ${wrong.join('; ')}. The batch was rolled back (nothing of it kept) and this log takes no more events: the database is not as Witness writes it (\`witness audit verify\` reports what changed)`,
        'tampered',
      );
    }
  }

  /** The chain continued from the last committed row: each event inserted; what was bound, for the read-back. */
  private writeEvents(batch: readonly Pending[], seqs: number[]): Omit<Written, 'blobs'> {
    const last = this.lastRow.get() as { seq: unknown; hash: unknown; t_ms: unknown } | undefined;
    if (
      last !== undefined &&
      !(
        Number.isSafeInteger(last.seq) &&
        typeof last.hash === 'string' &&
        typeof last.t_ms === 'number' &&
        Math.abs(last.t_ms) <= MAX_TIME_MS
      )
    ) {
      throw new AuditError(
        this.file,
        `the last event (${String(last.seq)}) holds values Witness does not write (its hash or time is not one); refusing to continue its chain (\`witness audit verify\` reports what changed)`,
        'tampered',
      );
    }
    let prev = (last?.hash as string | undefined) ?? GENESIS_HASH;
    let seq = (last?.seq as number | undefined) ?? 0;
    let lastT = (last?.t_ms as number | undefined) ?? -Infinity;
    const after = seq;
    const runs: { id: string; values: unknown[] }[] = [];
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      seq++;
      // Stored times never decrease along the chain (a time window is then a range of sequence
      // numbers); an earlier time is raised to the previous event's.
      const t = Math.max(p.o.t_ms ?? this.now(), lastT);
      if (!(Math.abs(t) <= MAX_TIME_MS))
        throw new AuditError(
          this.file,
          `the clock gave ${t}, not milliseconds since 1970 within ±${MAX_TIME_MS}: the batch was not written`,
        );
      lastT = t;
      const r = p.runRow;
      if (r !== null) {
        const values = [p.run, t, r.world, r.backend, r.operator, r.software, r.models, r.spec, r.regions, r.meta];
        this.insertRun.run(...values);
        runs.push({ id: p.run, values });
      }
      const step = p.o.step ?? null,
        tool = p.o.tool ?? null,
        failure = p.o.failureLabel ?? null;
      const h = chainHash(prev, seq, p.run, t, step, p.kind, tool, failure, p.body);
      this.insert.run(seq, p.run, t, step, p.kind, tool, failure, p.body, prev, h);
      seqs[i] = seq;
      prev = h;
    }
    this.written = { seq, hash: prev };
    return { events: batch.length, after, head: prev, runs };
  }

  /**
   * Waits until everything appended so far is committed (or failed: each append's promise says
   * which); rejects when blobs stored without events could not be written.
   */
  async flush(): Promise<void> {
    if (this.queue.length > 0 || this.blobs.length > 0 || this.scheduled)
      await new Promise<void>((resolve) => this.idle.push(resolve));
    const e = this.blobError;
    this.blobError = null;
    if (e !== null) throw e;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.db.close();
    }
  }

  /** The last event this writer committed (other writers may have appended since). */
  get head(): { seq: number; hash: string } {
    return { ...this.committed };
  }

  /** Whether a batch is waiting for the write lock another writer holds (retrying until the busy timeout). */
  get waitingForLock(): boolean {
    return this.busySince !== null;
  }
}
