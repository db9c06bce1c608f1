/**
 * The fleet reports on a local log (SQLite), read-only: the same rows as the store's (services/fleet/report.ts) for
 * core/audit/report.ts to fold, so a report reads the same from either. A local log is one source: its id is the hash
 * of its first event, as the store names it; its host and robot are recorded only when it is pushed (null here).
 * Failure records come from the events' kind index, each body read here (the store derives the same at insert).
 */
import type Database from 'better-sqlite3';
import {
  type DecisionFields,
  type DecisionRow,
  type EstopReport,
  type FailureQuery,
  type FailureReport,
  type ReplanReport,
  type ReportFilter,
  type SourceIdentity,
  estopReport,
  failureCell,
  foldFailures,
  replanReport,
} from '../../core/audit/report.js';

/** The log as a source: its id (the hash of its first event; '' when it has none). */
function identityOf(db: Database.Database): SourceIdentity {
  const id = db.prepare('SELECT hash FROM events WHERE seq = 1').pluck().get() as string | undefined;
  return { log_id: id ?? '', host: null, robot: null };
}

/** Whether the log is the source the filter names (its --source a prefix of the log's id); robot and host are not
 * recorded in a local log, so a filter naming them matches nothing. */
function sourceMatches(me: SourceIdentity, f: ReportFilter): boolean {
  if (f.robot !== undefined || f.host !== undefined) return false;
  return f.source === undefined || (me.log_id !== '' && me.log_id.startsWith(f.source));
}

/** The WHERE terms (and their values) of a filter's time window and world; `e` events, `r` runs. */
function terms(f: ReportFilter): { sql: string; values: unknown[] } {
  const w: string[] = [];
  const values: unknown[] = [];
  const add = (term: string, v: unknown): void => {
    w.push(term);
    values.push(v);
  };
  if (f.since_ms !== undefined) add('e.t_ms >= ?', f.since_ms);
  if (f.until_ms !== undefined) add('e.t_ms < ?', f.until_ms);
  if (f.world !== undefined) add('r.world = ?', f.world);
  return { sql: w.map((t) => ` AND ${t}`).join(''), values };
}

export function logFailures(db: Database.Database, q: FailureQuery): FailureReport {
  const me = identityOf(db);
  if (!sourceMatches(me, q.filter)) return foldFailures([], q.by, q.every, q.filter);
  const t = terms(q.filter);
  const rows = db
    .prepare(
      `SELECT e.t_ms, e.tool, e.failure_label, e.body, r.world FROM events e LEFT JOIN runs r ON r.id = e.run_id
       WHERE e.kind = 'failure_record'${t.sql}`,
    )
    .iterate(...t.values) as IterableIterator<{
    t_ms: number;
    tool: string | null;
    failure_label: string | null;
    body: string;
    world: string | null;
  }>;
  const cells = (function* () {
    for (const e of rows) yield failureCell(q.by, q.every, e, me);
  })();
  return foldFailures(cells, q.by, q.every, q.filter);
}

export function logReplans(db: Database.Database, f: ReportFilter): ReplanReport {
  const me = identityOf(db);
  if (!sourceMatches(me, f)) return replanReport([], f);
  const t = terms(f);
  const rows = db
    .prepare(
      `WITH m AS (
         SELECT e.run_id, count(*) FILTER (WHERE e.kind = 'replan') AS replans,
           count(*) FILTER (WHERE e.kind = 'escalation') AS escalations, min(e.t_ms) AS first, max(e.t_ms) AS last
         FROM events e LEFT JOIN runs r ON r.id = e.run_id
         WHERE e.kind IN ('replan', 'escalation')${t.sql} GROUP BY e.run_id)
       SELECT m.*, r.world, r.started_ms,
         (SELECT x.body FROM events x WHERE x.run_id = m.run_id AND x.kind = 'run_end' ORDER BY x.seq DESC LIMIT 1)
           AS end_body
       FROM m LEFT JOIN runs r ON r.id = m.run_id`,
    )
    .all(...t.values) as {
    run_id: string;
    replans: number;
    escalations: number;
    first: number;
    last: number;
    world: string | null;
    started_ms: number | null;
    end_body: string | null;
  }[];
  return replanReport(
    rows.map((x) => ({
      source: me,
      run_id: x.run_id,
      world: x.world,
      started_ms: x.started_ms,
      replans: x.replans,
      escalations: x.escalations,
      first_ms: x.first,
      last_ms: x.last,
      end: x.end_body,
    })),
    f,
  );
}

export function logEstops(db: Database.Database, f: ReportFilter): EstopReport {
  const me = identityOf(db);
  if (!sourceMatches(me, f)) return estopReport([], [], f);
  const decisions = (extra: { sql: string; values: unknown[] }): DecisionRow[] =>
    (
      db
        .prepare(
          `SELECT e.seq, e.run_id, e.t_ms, e.body, r.world, r.operator AS run_operator, r.meta FROM events e
           LEFT JOIN runs r ON r.id = e.run_id WHERE e.kind = 'operator_decision'${extra.sql}`,
        )
        .all(...extra.values) as DecisionFields[]
    ).map((d) => ({ ...d, source: me }));
  return estopReport(decisions(terms(f)), decisions({ sql: '', values: [] }), f);
}
