/**
 * The fleet store's derived data, for the reports: `witness.failures`, one row per failure_record event with what its
 * body says (the verifier and the failure kind, core/audit/report.ts failureFields) beside the event's source, run,
 * time and tool, indexed by time. A statement-level trigger fills it from each INSERT's new events (one INSERT … SELECT
 * per pushed batch, not a trigger per row), as the table's owner (the pusher is granted nothing on it); it is
 * append-only like the evidence. `verify --from` holds every row to the event it derives from (derivedProblems).
 */
import type pg from 'pg';
import { failureFields } from '../../core/audit/report.js';
import type { VerifyProblem } from '../audit/chain.js';

/** The triggers of the derived data, each expected present and enabled ([table, name]). */
export const DERIVED_TRIGGERS: readonly [table: string, name: string][] = [
  ['events', 'events_derive'],
  ['failures', 'failures_append_only'],
  ['failures', 'failures_no_truncate'],
];

/**
 * The migration that adds the derived data (fleet schema version 2): the table, its index, the trigger, and the rows
 * of the events already in the store.
 */
export const DERIVED_MIGRATION = `
  CREATE TABLE witness.failures (
    source bigint NOT NULL,
    seq bigint NOT NULL,
    run_id text NOT NULL,
    t_ms double precision NOT NULL,
    tool text,
    verifier text,
    kind text,
    PRIMARY KEY (source, seq)
  );
  CREATE INDEX failures_by_time ON witness.failures (t_ms) INCLUDE (source, run_id, tool, verifier, kind);
  -- Each run's end, for the replans report's outcome; the failure records in order, for verify's walk over them
  -- beside the derived rows (partial indexes: only those events are in them).
  CREATE INDEX events_run_ends ON witness.events (source, run_id, seq) WHERE kind = 'run_end';
  CREATE INDEX events_failure_records ON witness.events (source, seq) WHERE kind = 'failure_record';

  -- What a failure record's body says: [violated, label, kind], each only when a string; nulls when the body is not
  -- a JSON object (the same as failureFields in core/audit/report.ts).
  CREATE FUNCTION witness.failure_fields(body text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
  DECLARE
    j jsonb;
  BEGIN
    j := body::jsonb;
    IF jsonb_typeof(j) <> 'object' THEN RETURN ARRAY[NULL, NULL, NULL]::text[]; END IF;
    RETURN ARRAY[
      CASE WHEN jsonb_typeof(j -> 'violated') = 'string' THEN j ->> 'violated' END,
      CASE WHEN jsonb_typeof(j -> 'label') = 'string' THEN j ->> 'label' END,
      CASE WHEN jsonb_typeof(j -> 'kind') = 'string' THEN j ->> 'kind' END
    ];
  EXCEPTION WHEN others THEN
    RETURN ARRAY[NULL, NULL, NULL]::text[];
  END $$;

  CREATE FUNCTION witness.derive_failures() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp AS $$
  BEGIN
    INSERT INTO witness.failures (source, seq, run_id, t_ms, tool, verifier, kind)
    WITH d AS MATERIALIZED (
      SELECT source, seq, run_id, t_ms, tool, failure_label, witness.failure_fields(body) AS f
      FROM new_events WHERE kind = 'failure_record'
    )
    SELECT source, seq, run_id, t_ms, tool, f[1], coalesce(failure_label, f[2], f[3]) FROM d;
    RETURN NULL;
  END $$;
  REVOKE ALL ON FUNCTION witness.derive_failures() FROM PUBLIC;
  CREATE TRIGGER events_derive AFTER INSERT ON witness.events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION witness.derive_failures();
  CREATE TRIGGER failures_append_only BEFORE UPDATE OR DELETE ON witness.failures
    FOR EACH ROW EXECUTE FUNCTION witness.refuse_change();
  CREATE TRIGGER failures_no_truncate BEFORE TRUNCATE ON witness.failures
    FOR EACH STATEMENT EXECUTE FUNCTION witness.refuse_change();

  INSERT INTO witness.failures (source, seq, run_id, t_ms, tool, verifier, kind)
  SELECT source, seq, run_id, t_ms, tool, f[1], coalesce(failure_label, f[2], f[3])
  FROM (SELECT *, witness.failure_fields(body) AS f FROM witness.events WHERE kind = 'failure_record' OFFSET 0) e;

  REVOKE ALL ON witness.failures FROM PUBLIC;
  GRANT SELECT ON witness.failures TO witness_reader;
`;

const PAGE = 20_000;

type Derived = [
  source: number,
  seq: number,
  run_id: string,
  t_ms: number,
  tool: string | null,
  v: string | null,
  k: string | null,
];

/** The failure_record events after (source, seq), in order, as the derived rows they make. */
async function expectedPage(c: pg.Client, after: [number, number], page: number): Promise<Derived[]> {
  const r = await c.query({
    text: `SELECT source, seq, run_id, t_ms, tool, failure_label, body FROM witness.events
           WHERE kind = 'failure_record' AND (source, seq) > ($1, $2) ORDER BY source, seq LIMIT ${page}`,
    values: after,
    rowMode: 'array',
  });
  return (r.rows as [number, number, string, number, string | null, string | null, string][]).map(
    ([source, seq, run, t, tool, label, body]) => {
      const f = failureFields(body, label);
      return [source, seq, run, t, tool, f.verifier, f.kind];
    },
  );
}

async function storedPage(c: pg.Client, after: [number, number], page: number): Promise<Derived[]> {
  const r = await c.query({
    text: `SELECT source, seq, run_id, t_ms, tool, verifier, kind FROM witness.failures
           WHERE (source, seq) > ($1, $2) ORDER BY source, seq LIMIT ${page}`,
    values: after,
    rowMode: 'array',
  });
  return r.rows as Derived[];
}

const FIELDS = ['source', 'seq', 'run_id', 't_ms', 'tool', 'verifier', 'kind'];

/** Why a derived row and the row its event makes differ (null: they agree). */
function difference(
  want: Derived | undefined,
  got: Derived | undefined,
  logOf: (s: number) => string,
): VerifyProblem | null {
  if (want === undefined && got === undefined) return null;
  const at = (d: Derived): string => `${d[1]} of log ${logOf(d[0])}`;
  const order = (a: Derived, b: Derived): number => a[0] - b[0] || a[1] - b[1];
  if (got === undefined || (want !== undefined && order(want, got) < 0))
    return { table: 'events', key: at(want!), reason: 'its derived row in witness.failures is missing' };
  if (want === undefined || order(want, got) > 0)
    return {
      table: 'events',
      key: at(got),
      reason: 'witness.failures holds a derived row of it, but it is no failure record',
    };
  const i = want.findIndex((v, j) => v !== got[j]);
  if (i < 0) return null;
  return {
    table: 'events',
    key: at(want),
    reason: `its derived row in witness.failures says ${FIELDS[i]} ${JSON.stringify(got[i])}, the event ${JSON.stringify(want[i])}`,
  };
}

/**
 * The first derived row that disagrees with the event it derives from (or is missing, or has no event), walking both
 * in (source, seq) order; null when all agree. Run after the chains verified, so the bodies are the logs' own.
 */
export async function derivedProblem(
  c: pg.Client,
  logOf: (source: number) => string,
  page = PAGE,
): Promise<VerifyProblem | null> {
  let after: [number, number] = [0, 0];
  for (;;) {
    const want = await expectedPage(c, after, page);
    const got = await storedPage(c, after, page);
    // Every pair before k matched, so at the first pair whose keys differ the smaller has no partner.
    for (let k = 0; k < Math.max(want.length, got.length); k++) {
      const p = difference(want[k], got[k], logOf);
      if (p !== null) return p;
    }
    // Here both pages are alike: whole pages go on after their last row; shorter ones were the last.
    if (want.length < page) return null;
    const last = want[page - 1]!;
    after = [last[0], last[1]];
  }
}
