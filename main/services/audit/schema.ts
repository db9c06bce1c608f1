/**
 * The audit database schema (`PRAGMA user_version`), with forward migrations. Version 1: runs,
 * content-addressed blobs (specifications, regions, tool schemas, plans with their certificates)
 * and the append-only, hash-chained event log. Evidence tables reject UPDATE and DELETE.
 */
import Database from 'better-sqlite3';
import { AUDIT_EVENTS, type AuditEventKind } from '../../contract/audit-events.js';

export const AUDIT_SCHEMA_VERSION = 1;

/** migrations[i] takes a database from user_version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    started_ms REAL NOT NULL,
    world TEXT NOT NULL,
    backend TEXT NOT NULL,
    operator TEXT NOT NULL,
    software TEXT NOT NULL,
    models TEXT NOT NULL,
    spec_sha TEXT,
    regions_sha TEXT,
    meta TEXT NOT NULL
  );
  CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
  );
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id),
    t_ms REAL NOT NULL,
    step INTEGER,
    kind TEXT NOT NULL,
    tool TEXT,
    failure_label TEXT,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  );
  CREATE INDEX events_by_run ON events(run_id, seq);
  CREATE INDEX events_by_kind ON events(kind, seq);
  CREATE INDEX events_by_tool ON events(tool, seq) WHERE tool IS NOT NULL;
  CREATE INDEX events_by_failure ON events(failure_label, seq) WHERE failure_label IS NOT NULL;
  CREATE INDEX events_by_time ON events(t_ms);
  CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'audit events are append-only: UPDATE refused'); END;
  CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'audit events are append-only: DELETE refused'); END;
  CREATE TRIGGER runs_no_update BEFORE UPDATE ON runs BEGIN SELECT RAISE(ABORT, 'audit runs are append-only: UPDATE refused'); END;
  CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs BEGIN SELECT RAISE(ABORT, 'audit runs are append-only: DELETE refused'); END;
  CREATE TRIGGER blobs_no_update BEFORE UPDATE ON blobs BEGIN SELECT RAISE(ABORT, 'audit blobs are content-addressed: UPDATE refused'); END;
  CREATE TRIGGER blobs_no_delete BEFORE DELETE ON blobs BEGIN SELECT RAISE(ABORT, 'audit blobs are content-addressed: DELETE refused'); END;
  `,
];

/**
 * Event kinds the log knows: the audit event catalogue's (others are refused, so a typo cannot hide evidence under a
 * new name).
 */
export const EVENT_KINDS: readonly AuditEventKind[] = Object.keys(AUDIT_EVENTS) as AuditEventKind[];

/** One object of a database's schema as sqlite_schema lists it; `sql` with its white space collapsed. */
export interface SchemaObject {
  readonly type: string;
  readonly name: string;
  /** The table it belongs to (itself for a table). */
  readonly table: string;
  readonly sql: string;
}

/** A table's column as PRAGMA table_xinfo gives it (`hidden`: 2 a virtual generated column, 3 a stored one). */
export interface SchemaColumn {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
  readonly hidden: number;
}

export interface SchemaSnapshot {
  /** By lower-cased name, in sqlite_schema's order (creation order). */
  readonly objects: ReadonlyMap<string, SchemaObject>;
  /** The columns of every plain table, by lower-cased table name. */
  readonly columns: ReadonlyMap<string, readonly SchemaColumn[]>;
}

/**
 * SQLite's own bookkeeping tables (ANALYZE statistics, AUTOINCREMENT counters), made by maintenance, not by us or a
 * forger's schema.
 */
const SQLITE_BOOKKEEPING = new Set(['sqlite_stat1', 'sqlite_stat2', 'sqlite_stat3', 'sqlite_stat4', 'sqlite_sequence']);

const squashSql = (sql: string): string =>
  sql
    .replace(/\s+/g, ' ')
    .replace(/\s*;\s*$/, '')
    .trim();

/** Whether an object of sqlite_schema is a table stored as rows (not a view, not a virtual table). */
export const isPlainTable = (o: SchemaObject): boolean => o.type === 'table' && !/^CREATE\s+VIRTUAL\s/i.test(o.sql);

/**
 * The schema of `db` as sqlite_schema lists it, and its plain tables' columns. Reads the schema
 * only: no table, view or generated column is evaluated.
 */
export function schemaOf(db: Database.Database): SchemaSnapshot {
  const objects = new Map<string, SchemaObject>();
  const columns = new Map<string, SchemaColumn[]>();
  const xinfo = db.prepare('SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?)');
  for (const r of db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema').all() as {
    type: unknown;
    name: unknown;
    tbl_name: unknown;
    sql: unknown;
  }[]) {
    const name = String(r.name);
    if (r.type === 'table' && SQLITE_BOOKKEEPING.has(name.toLowerCase())) continue;
    const o: SchemaObject = {
      type: String(r.type),
      name,
      table: String(r.tbl_name),
      sql: typeof r.sql === 'string' ? squashSql(r.sql) : '',
    };
    objects.set(name.toLowerCase(), o);
    if (isPlainTable(o)) columns.set(name.toLowerCase(), xinfo.all(name) as SchemaColumn[]);
  }
  return { objects, columns };
}

let ours: SchemaSnapshot | undefined;

/**
 * The schema the writer creates, read back from a database the migrations build in memory: the one
 * source of truth `verify`, the readers and the writer hold a file's schema against.
 */
export function auditSchema(): SchemaSnapshot {
  if (ours === undefined) {
    const db = new Database(':memory:');
    try {
      for (const m of MIGRATIONS) db.exec(m);
      ours = schemaOf(db);
    } finally {
      db.close();
    }
  }
  return ours;
}
