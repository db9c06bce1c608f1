/**
 * The fleet store's schema in PostgreSQL (schema `witness`), with versioned forward migrations. Sources are the lab
 * PCs' audit logs (a log's id is the hash of its first event: the root of its chain), each with the host and robot
 * it was pushed from; runs, events and blobs are those logs' rows as they are in the SQLite files, events keyed by
 * (source, seq) with the chain's prev_hash and hash kept as they are. Evidence rows cannot be updated, deleted or
 * truncated (triggers, for every role the owner included); an event is refused unless it links to the event before
 * it in its source's chain, and a blob unless its content hashes to its address. Two group roles: witness_pusher may
 * insert, and read only what a push needs to resume (sources, the chain's seq and hash, which runs and blobs are
 * there); witness_reader may only read.
 */

import { DERIVED_MIGRATION } from './derived.js';

export const FLEET_SCHEMA_VERSION = 2;

const PUSHER_ROLE = 'witness_pusher';
const READER_ROLE = 'witness_reader';

/** The evidence tables, each guarded by the append-only triggers. */
export const FLEET_TABLES = ['sources', 'runs', 'events', 'blobs'] as const;

const GENESIS = '0'.repeat(64);

/** migrations[i] takes the store from version i to i + 1 (run in one transaction, under an advisory lock). */
export const FLEET_MIGRATIONS: readonly string[] = [
  `
  CREATE SCHEMA IF NOT EXISTS witness;
  CREATE TABLE witness.schema_version (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE witness.sources (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    log_id text NOT NULL UNIQUE CHECK (log_id ~ '^[0-9a-f]{64}$'),
    host text NOT NULL,
    robot text,
    registered_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE witness.runs (
    source bigint NOT NULL REFERENCES witness.sources(id),
    id text NOT NULL,
    started_ms double precision NOT NULL,
    world text NOT NULL,
    backend text NOT NULL,
    operator text NOT NULL,
    software text NOT NULL,
    models text NOT NULL,
    spec_sha text,
    regions_sha text,
    meta text NOT NULL,
    PRIMARY KEY (source, id)
  );
  CREATE TABLE witness.blobs (
    sha256 text NOT NULL,
    kind text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (sha256, kind),
    CHECK (sha256 = encode(sha256(convert_to(body, 'UTF8')), 'hex'))
  );
  CREATE TABLE witness.events (
    source bigint NOT NULL REFERENCES witness.sources(id),
    seq bigint NOT NULL CHECK (seq >= 1),
    run_id text NOT NULL,
    t_ms double precision NOT NULL,
    step bigint,
    kind text NOT NULL,
    tool text,
    failure_label text,
    body text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
    PRIMARY KEY (source, seq)
  );
  CREATE INDEX events_by_tool ON witness.events (tool, t_ms) WHERE tool IS NOT NULL;
  CREATE INDEX events_by_failure ON witness.events (failure_label, t_ms) WHERE failure_label IS NOT NULL;
  CREATE INDEX events_by_kind ON witness.events (kind, t_ms);
  CREATE INDEX events_by_time ON witness.events (t_ms);
  CREATE INDEX events_by_run ON witness.events (source, run_id, seq);
  CREATE INDEX runs_by_world ON witness.runs (world, started_ms);

  CREATE FUNCTION witness.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the fleet store''s % are append-only: % refused', TG_TABLE_NAME, TG_OP
      USING ERRCODE = 'integrity_constraint_violation';
  END $$;

  CREATE FUNCTION witness.event_links() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    before_hash text;
  BEGIN
    IF NEW.seq = 1 THEN
      before_hash := '${GENESIS}';
    ELSE
      SELECT hash INTO before_hash FROM witness.events WHERE source = NEW.source AND seq = NEW.seq - 1;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'event % of source % does not follow one the store holds (event % is missing)',
          NEW.seq, NEW.source, NEW.seq - 1 USING ERRCODE = 'integrity_constraint_violation';
      END IF;
    END IF;
    IF NEW.prev_hash <> before_hash THEN
      RAISE EXCEPTION 'event % of source % does not link to the event before it (its prev_hash is not that hash)',
        NEW.seq, NEW.source USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER events_link BEFORE INSERT ON witness.events FOR EACH ROW EXECUTE FUNCTION witness.event_links();
  ${FLEET_TABLES.map(
    (t) => `
  CREATE TRIGGER ${t}_append_only BEFORE UPDATE OR DELETE ON witness.${t}
    FOR EACH ROW EXECUTE FUNCTION witness.refuse_change();
  CREATE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON witness.${t}
    FOR EACH STATEMENT EXECUTE FUNCTION witness.refuse_change();`,
  ).join('')}

  DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${PUSHER_ROLE}') THEN CREATE ROLE ${PUSHER_ROLE} NOLOGIN; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${READER_ROLE}') THEN CREATE ROLE ${READER_ROLE} NOLOGIN; END IF;
  END $$;
  REVOKE ALL ON ALL TABLES IN SCHEMA witness FROM PUBLIC;
  GRANT USAGE ON SCHEMA witness TO ${PUSHER_ROLE}, ${READER_ROLE};
  GRANT SELECT ON ALL TABLES IN SCHEMA witness TO ${READER_ROLE};
  GRANT SELECT ON witness.schema_version, witness.sources TO ${PUSHER_ROLE};
  GRANT INSERT ON witness.sources, witness.runs, witness.events, witness.blobs TO ${PUSHER_ROLE};
  GRANT SELECT (source, seq, hash) ON witness.events TO ${PUSHER_ROLE};
  GRANT SELECT (source, id) ON witness.runs TO ${PUSHER_ROLE};
  GRANT SELECT (sha256, kind) ON witness.blobs TO ${PUSHER_ROLE};
  `,
  // Version 2: the reports' derived data (derived.ts).
  DERIVED_MIGRATION,
];
