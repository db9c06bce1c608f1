/**
 * The audit database schema (`PRAGMA user_version`), with forward migrations. Version 1: runs,
 * content-addressed blobs (specifications, regions, tool schemas, plans with their certificates)
 * and the append-only, hash-chained event log. Evidence tables reject UPDATE and DELETE.
 */
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

/** Event kinds the log knows: the audit event catalogue's (others are refused, so a typo cannot hide evidence under a new name). */
export const EVENT_KINDS: readonly AuditEventKind[] = Object.keys(AUDIT_EVENTS) as AuditEventKind[];
