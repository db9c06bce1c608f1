/**
 * The fleet store's schema in PostgreSQL (schema `witness`), with versioned forward migrations. Sources are the lab
 * PCs' audit logs (a log's id is the hash of its first event: the root of its chain), each with the host and robot
 * it was pushed from; runs, events and blobs are those logs' rows as they are in the SQLite files, events keyed by
 * (source, seq) with the chain's prev_hash and hash kept as they are. Evidence rows cannot be updated, deleted or
 * truncated (triggers, for every role the owner included); an event is refused unless it links to the event before
 * it in its source's chain, and a blob unless its content hashes to its address. Two group roles: witness_pusher may
 * insert, and read only what a push needs to resume (sources, the chain's seq and hash, which runs and blobs are
 * there); witness_reader may only read. Values are held to the sizes a local log holds (audit/rows.ts), so a store
 * never takes what a Witness cannot read back.
 */

import { DERIVED_MIGRATION } from './derived.js';
import { MAX_BLOB_BYTES, MAX_BODY_BYTES, MAX_FIELD_BYTES, MAX_TIME_MS } from '../audit/rows.js';

export const FLEET_SCHEMA_VERSION = 4;

const PUSHER_ROLE = 'witness_pusher';
const READER_ROLE = 'witness_reader';

/** The evidence tables, each guarded by the append-only triggers. */
export const FLEET_TABLES = ['sources', 'runs', 'events', 'blobs'] as const;

const GENESIS = '0'.repeat(64);

/** At most `limit` bytes (NULL passes: the column's NOT NULL says whether it may be NULL). */
const within = (cols: readonly string[], limit: number): string =>
  cols.map((c) => `coalesce(octet_length(${c}), 0) <= ${limit}`).join(' AND ');

/**
 * `col` holds 64 lower-case hex digits, without a regular expression: PostgreSQL's regex engine (and ltrim or
 * translate, which build arrays of characters) cost microseconds a row, more than every other check of a push
 * together. Its length, no capital (lower() under the C collation is a byte loop), and hex digits (decode raises
 * "invalid hexadecimal digit" for any other character, refusing the statement as a CHECK would).
 */
const hexForm = (col: string): string =>
  `octet_length(${col}) = 64 AND ${col} COLLATE "C" = lower(${col} COLLATE "C") AND decode(${col}, 'hex') IS NOT NULL`;

/**
 * The chain-link check, once per INSERT statement over the rows it inserted (a transition table): each new event must
 * follow the event before it in its source, whether that one came in the same statement or is in the store already
 * (looked up by its key, the first of each source's new rows only). No gap, no second branch, for every role.
 */
const linkFunction = (create: 'CREATE' | 'CREATE OR REPLACE', sources: string): string => `
  ${create} FUNCTION witness.events_link() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    r record;
    before_hash text;
  BEGIN${sources}
    FOR r IN
      SELECT source, seq, prev_hash, before_seq, held FROM (
        SELECT source, seq, prev_hash, lag(seq) OVER w AS before_seq, lag(hash) OVER w AS held
        FROM new_events WINDOW w AS (PARTITION BY source ORDER BY seq)
      ) n
      WHERE before_seq IS DISTINCT FROM seq - 1 OR held IS DISTINCT FROM prev_hash
    LOOP
      IF r.before_seq = r.seq - 1 THEN
        before_hash := r.held;
      ELSIF r.seq = 1 THEN
        before_hash := '${GENESIS}';
      ELSE
        -- A dynamic statement, planned for these values: always the primary key, however small the table was when a
        -- cached plan would have been made.
        EXECUTE 'SELECT hash FROM witness.events WHERE source = $1 AND seq = $2' INTO before_hash
          USING r.source, r.seq - 1;
        IF before_hash IS NULL THEN
          RAISE EXCEPTION 'event % of source % does not follow one the store holds (event % is missing)',
            r.seq, r.source, r.seq - 1 USING ERRCODE = 'integrity_constraint_violation';
        END IF;
      END IF;
      IF r.prev_hash <> before_hash THEN
        RAISE EXCEPTION 'event % of source % does not link to the event before it (its prev_hash is not that hash)',
          r.seq, r.source USING ERRCODE = 'integrity_constraint_violation';
      END IF;
    END LOOP;
    RETURN NULL;
  END $$;`;

const LINK_TRIGGER = `${linkFunction('CREATE', '')}
  CREATE TRIGGER events_link AFTER INSERT ON witness.events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION witness.events_link();`;

/**
 * The foreign key of events to their source, checked once per statement by the link trigger (the key's own check
 * ran a query per row). Sources are never deleted (the append-only triggers), so a source found at insert stays.
 */
const SOURCE_CHECK = `
    SELECT n.source INTO r FROM (SELECT DISTINCT source FROM new_events) n
      WHERE NOT EXISTS (SELECT 1 FROM witness.sources s WHERE s.id = n.source) LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'events of source % refused: the store holds no such source', r.source
        USING ERRCODE = 'foreign_key_violation';
    END IF;`;

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
  // Version 3: the chain-link check once per statement instead of once per row (the row trigger cost more than the
  // insert), and every value held to the sizes a local log holds.
  `
  DROP TRIGGER events_link ON witness.events;
  DROP FUNCTION witness.event_links();
  ${LINK_TRIGGER}
  ALTER TABLE witness.events
    ADD CONSTRAINT events_body_size CHECK (${within(['body'], MAX_BODY_BYTES)}),
    ADD CONSTRAINT events_field_size CHECK (${within(['run_id', 'kind', 'tool', 'failure_label'], MAX_FIELD_BYTES)}),
    ADD CONSTRAINT events_prev_hash_form CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT events_time CHECK (t_ms BETWEEN ${-MAX_TIME_MS} AND ${MAX_TIME_MS});
  ALTER TABLE witness.blobs
    ADD CONSTRAINT blobs_body_size CHECK (${within(['body'], MAX_BLOB_BYTES)}),
    ADD CONSTRAINT blobs_field_size CHECK (${within(['kind'], MAX_FIELD_BYTES)});
  ALTER TABLE witness.runs
    ADD CONSTRAINT runs_field_size CHECK (${within(
      ['id', 'world', 'backend', 'operator', 'software', 'models', 'spec_sha', 'regions_sha', 'meta'],
      MAX_FIELD_BYTES,
    )}),
    ADD CONSTRAINT runs_time CHECK (started_ms BETWEEN ${-MAX_TIME_MS} AND ${MAX_TIME_MS});
  ALTER TABLE witness.sources ADD CONSTRAINT sources_field_size CHECK (${within(['host', 'robot'], MAX_FIELD_BYTES)});
  `,
  // Version 4: what cost a push most per row made cheap: the two hash forms of an event checked without a regular
  // expression (hexForm), under names of their own; an event's source checked once per statement; an index no
  // statement used dropped.
  `
  ${linkFunction('CREATE OR REPLACE', SOURCE_CHECK)}
  ALTER TABLE witness.events
    DROP CONSTRAINT events_source_fkey,
    DROP CONSTRAINT events_hash_check,
    DROP CONSTRAINT events_prev_hash_form,
    ADD CONSTRAINT events_hash_form CHECK (${hexForm('hash')}),
    ADD CONSTRAINT events_prev_hash_form CHECK (${hexForm('prev_hash')});
  -- No statement reads events by time alone: the reads turn a window into each source's range of sequence numbers
  -- (its primary key), the reports read witness.failures or events_by_kind (kind, t_ms).
  DROP INDEX witness.events_by_time;
  `,
];
