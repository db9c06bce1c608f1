/**
 * The audit log: one SQLite database (better-sqlite3, WAL) per workspace, holding many runs. Events
 * are appended, never rewritten: triggers refuse UPDATE and DELETE, and each event stores the
 * SHA-256 of its canonical JSON chained to the previous event's hash, so `verify` can name the first
 * row that does not match. Appends are batched into one transaction per tick, off the caller's hot
 * path; the promise an append returns resolves only after its transaction committed with
 * synchronous=FULL, so an acknowledged event survives a kill -9 of the process.
 */
import { hash, randomUUID } from 'node:crypto';
import { existsSync, openSync, readSync, closeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AUDIT_SCHEMA_VERSION, EVENT_KINDS, MIGRATIONS } from './schema.js';
import { AUDIT_EVENTS_VERSION, type AuditEventKind as EventKind } from '../../contract/audit-events.js';
import { WitnessError, type ErrorCode } from '../../contract/errors.js';

export class AuditError extends WitnessError {
  override readonly name = 'AuditError';
  constructor(readonly file: string, detail: string, code: ErrorCode = 'invalid-input') {
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
}

export interface EventRow {
  readonly seq: number;
  readonly run_id: string;
  readonly t_ms: number;
  readonly step: number | null;
  readonly kind: string;
  readonly tool: string | null;
  readonly failure_label: string | null;
  readonly body: string;
  readonly prev_hash: string;
  readonly hash: string;
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
 * whitespace, numbers and strings as JSON.stringify writes them (shortest round-trip form).
 */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => canonicalJson(x)).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
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
  prev: string, seq: number, run: string, t_ms: number, step: number | null, kind: string, tool: string | null, failure: string | null, body: string,
): string {
  return hash('sha256', `${prev}{"body":${body},"failure_label":${JSON.stringify(failure)},"kind":${JSON.stringify(kind)},` +
    `"run_id":${JSON.stringify(run)},"seq":${seq},"step":${JSON.stringify(step)},"t_ms":${JSON.stringify(t_ms)},"tool":${JSON.stringify(tool)}}`);
}

export function sha256(text: string): string {
  return hash('sha256', text);
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** What kind of file this is, before SQLite touches it: clear errors for foreign or truncated files. */
function checkFile(file: string): void {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(100);
    const n = readSync(fd, head, 0, 100, 0);
    if (n === 0) return;
    if (n < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw new AuditError(file, 'not an SQLite database (no "SQLite format 3" header): not a Witness audit log');
  } finally {
    closeSync(fd);
  }
}

function wrap(file: string, e: unknown): AuditError {
  if (e instanceof AuditError) return e;
  const code = (e as { code?: string }).code ?? '';
  const msg = e instanceof Error ? e.message : String(e);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return new AuditError(file, `the database is locked by another process (${msg}); try again when it is free`, 'locked');
  if (code === 'SQLITE_FULL') return new AuditError(file, `the disk is full (${msg}); the batch being written was rolled back, nothing partial was kept`);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return new AuditError(file, `the database is corrupt or truncated (${msg}); run \`witness audit verify\` on a copy`, 'corrupt');
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN') return new AuditError(file, `cannot open for writing (${msg})`, 'unreadable');
  return new AuditError(file, msg);
}

function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Opens an audit database read-only (forensics): evidence is never modified. */
export function openAuditReadOnly(file: string): Database.Database {
  if (!existsSync(file)) throw new AuditError(file, 'no such file');
  checkFile(file);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const v = schemaVersion(db);
    if (v !== AUDIT_SCHEMA_VERSION) {
      db.close();
      throw new AuditError(file, v === 0
        ? 'not a Witness audit database (no schema version: a foreign SQLite file)'
        : `audit schema version ${v} is not one this Witness reads (it reads version ${AUDIT_SCHEMA_VERSION}); use a newer Witness`);
    }
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['runs', 'blobs', 'events']) {
      if (!tables.includes(t)) {
        db.close();
        throw new AuditError(file, `not a Witness audit database (no table "${t}")`);
      }
    }
    return db;
  } catch (e) {
    throw wrap(file, e);
  }
}

interface Pending {
  readonly run: string;
  readonly kind: EventKind;
  readonly body: string;
  readonly o: AppendOptions;
  readonly resolve: (seq: number) => void;
  readonly reject: (e: Error) => void;
}

export class AuditLog {
  private readonly insert: Database.Statement;
  private readonly insertBlob: Database.Statement;
  private queue: Pending[] = [];
  private scheduled = false;
  private lastHash: string;
  private lastT: number;
  private nextSeq: number;
  private closed = false;

  private constructor(readonly file: string, private readonly db: Database.Database, private readonly now: () => number) {
    this.insert = db.prepare('INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (sha256, kind, body) VALUES (?, ?, ?)');
    const last = db.prepare('SELECT seq, hash, t_ms FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string; t_ms: number } | undefined;
    this.lastHash = last?.hash ?? GENESIS_HASH;
    this.lastT = last?.t_ms ?? -Infinity;
    this.nextSeq = (last?.seq ?? 0) + 1;
  }

  /**
   * Opens (creating or migrating) the workspace's audit database for appending. `busyTimeout_ms`:
   * how long to wait for another writer; `maxPages`: a size limit (SQLITE_FULL past it).
   */
  static open(file: string, o: { now?: () => number; busyTimeout_ms?: number; maxPages?: number } = {}): AuditLog {
    const now = o.now ?? Date.now;
    checkFile(file);
    try {
      const db = new Database(file);
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(o.busyTimeout_ms ?? 5000))}`);
      if (o.maxPages !== undefined) db.pragma(`max_page_count = ${Math.floor(o.maxPages)}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const v = schemaVersion(db);
      if (v > AUDIT_SCHEMA_VERSION) {
        db.close();
        throw new AuditError(file, `audit schema version ${v} is newer than this Witness (${AUDIT_SCHEMA_VERSION}); refusing to write to it`);
      }
      if (v === 0) {
        const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
        if (tables.n > 0) {
          db.close();
          throw new AuditError(file, 'not a Witness audit database (a foreign SQLite file with tables and no schema version); refusing to write to it');
        }
      }
      for (let i = v; i < AUDIT_SCHEMA_VERSION; i++) {
        db.transaction(() => {
          db.exec(MIGRATIONS[i]!);
          db.pragma(`user_version = ${i + 1}`);
        })();
      }
      return new AuditLog(file, db, now);
    } catch (e) {
      throw wrap(file, e);
    }
  }

  /** Stores a blob by content; returns its SHA-256. */
  putBlob(kind: string, body: string): string {
    const sha = sha256(body);
    try {
      this.insertBlob.run(sha, kind, body);
    } catch (e) {
      throw wrap(this.file, e);
    }
    return sha;
  }

  /** Starts a run (its row and a run_start event, committed before it returns); returns its id. */
  async startRun(m: RunMeta): Promise<string> {
    const id = randomUUID();
    const spec = m.spec !== undefined ? this.putBlob('spec', m.spec) : null;
    const regions = m.regions !== undefined ? this.putBlob('regions', m.regions) : null;
    try {
      this.db.prepare('INSERT INTO runs (id, started_ms, world, backend, operator, software, models, spec_sha, regions_sha, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, this.now(), m.world, m.backend, m.operator, m.software, JSON.stringify(m.models), spec, regions, JSON.stringify(m.meta ?? {}));
    } catch (e) {
      throw wrap(this.file, e);
    }
    await this.append(id, 'run_start', { world: m.world, backend: m.backend, operator: m.operator, software: m.software, models: { ...m.models }, spec_sha: spec, regions_sha: regions, meta: { ...m.meta }, events: AUDIT_EVENTS_VERSION });
    return id;
  }

  /**
   * Queues an event; the promise resolves with its sequence number once it is durable (committed
   * with fsync), or rejects with an AuditError (nothing of its batch is kept). The store checks the
   * kind against the audit event catalogue; the writers (mission-recorder.ts) are typed by it.
   */
  append(run: string, kind: EventKind, body: unknown, o: AppendOptions = {}): Promise<number> {
    if (this.closed) return Promise.reject(new AuditError(this.file, 'the audit log is closed'));
    if (!(EVENT_KINDS as readonly string[]).includes(kind)) return Promise.reject(new AuditError(this.file, `unknown event kind "${kind}"`));
    const text = canonicalJson(body ?? null);
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ run, kind, body: text, o, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushNow());
      }
    });
  }

  /** Commits everything queued (normally done on the next tick). */
  flushNow(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const first = this.nextSeq;
    let last = this.lastHash;
    const t0 = this.lastT;
    try {
      this.writeBatch(batch, first, (h) => { last = h; });
    } catch (e) {
      this.lastT = t0;
      const err = wrap(this.file, e);
      for (const p of batch) p.reject(err);
      return;
    }
    this.lastHash = last;
    this.nextSeq = first + batch.length;
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(first + i);
  }

  /** One transaction: hash and insert every queued event in order. */
  private readonly writeBatch = (batch: readonly Pending[], first: number, done: (head: string) => void): void => {
    this.db.transaction(() => {
      let prev = this.lastHash;
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i]!;
        const seq = first + i;
        // Stored times never decrease along the chain (a time window is then a range of sequence
        // numbers); an earlier time is raised to the previous event's.
        const t = Math.max(p.o.t_ms ?? this.now(), this.lastT);
        this.lastT = t;
        const step = p.o.step ?? null, tool = p.o.tool ?? null, failure = p.o.failureLabel ?? null;
        const h = chainHash(prev, seq, p.run, t, step, p.kind, tool, failure, p.body);
        this.insert.run(seq, p.run, t, step, p.kind, tool, failure, p.body, prev, h);
        prev = h;
      }
      done(prev);
    })();
  };

  /** Waits until everything appended so far is durable. */
  async flush(): Promise<void> {
    if (this.queue.length === 0) return;
    await new Promise<void>((resolve) => setImmediate(() => {
      this.flushNow();
      resolve();
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.db.close();
  }

  get head(): { seq: number; hash: string } {
    return { seq: this.nextSeq - 1, hash: this.lastHash };
  }
}
