/**
 * The fleet reports on the store (PostgreSQL): failures counted in SQL over the derived table witness.failures
 * (derived.ts; its time index), replans and escalations per run and the E-STOPs over the events' (kind, time) index.
 * The rows go to core/audit/report.ts, which folds and orders them as it does a local log's. explainReport returns
 * the plan PostgreSQL runs a report with (EXPLAIN ANALYZE), to show it uses the indexes.
 */
import type pg from 'pg';
import {
  type DecisionFields,
  type DecisionRow,
  EVERY,
  type EstopReport,
  type FailureCell,
  type FailureQuery,
  type FailureReport,
  type ReplanReport,
  type ReplanRow,
  type ReportFilter,
  type ReportKey,
  estopReport,
  foldFailures,
  replanReport,
} from '../../core/audit/report.js';
import { connectStore, fleetErrorOf, requireSchema } from './store.js';

export type ReportName = 'failures' | 'replans' | 'estops';

/** Parameters of a statement, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** A prefix of a log id as a LIKE pattern (a log id is hex: anything else matches nothing). */
const logPrefix = (s: string): string => (/^[0-9a-f]{1,64}$/.test(s) ? `${s}%` : '\u0001');

/** The WHERE terms of a filter: `t` the table with source, t_ms (and run_id), `s` sources, `r` runs. */
function filterTerms(f: ReportFilter, p: Params, t: string): string[] {
  const w: string[] = [];
  if (f.since_ms !== undefined) w.push(`${t}.t_ms >= ${p.add(f.since_ms)}`);
  if (f.until_ms !== undefined) w.push(`${t}.t_ms < ${p.add(f.until_ms)}`);
  if (f.source !== undefined) w.push(`s.log_id LIKE ${p.add(logPrefix(f.source))}`);
  if (f.robot !== undefined) w.push(`s.robot = ${p.add(f.robot)}`);
  if (f.host !== undefined) w.push(`s.host = ${p.add(f.host)}`);
  if (f.world !== undefined) w.push(`r.world = ${p.add(f.world)}`);
  return w;
}

const KEY_SQL: Readonly<Record<ReportKey, string>> = {
  tool: 'f.tool',
  verifier: 'f.verifier',
  kind: 'f.kind',
  robot: 's.robot',
  source: 's.log_id',
  world: 'r.world',
  host: 's.host',
};

/** The failures statement: counts, first and last per combination of the keys (and per bucket). */
export function failuresSql(q: FailureQuery): { text: string; values: unknown[] } {
  const p = new Params();
  const cols = q.by.map((k, i) => `${KEY_SQL[k]} AS k${i}`);
  if (q.every !== null) {
    const { width_ms, offset_ms } = EVERY[q.every];
    cols.push(`floor((f.t_ms - ${offset_ms}) / ${width_ms}) * ${width_ms} + ${offset_ms} AS bucket`);
  }
  const needsRun = q.by.includes('world') || q.filter.world !== undefined;
  const where = filterTerms(q.filter, p, 'f');
  const text = `SELECT ${[...cols, 'count(*) AS n', 'min(f.t_ms) AS first', 'max(f.t_ms) AS last'].join(', ')}
    FROM witness.failures f JOIN witness.sources s ON s.id = f.source
    ${needsRun ? 'LEFT JOIN witness.runs r ON r.source = f.source AND r.id = f.run_id' : ''}
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ${cols.length > 0 ? `GROUP BY ${cols.map((_, i) => i + 1).join(', ')}` : ''}`;
  return { text, values: p.values };
}

/**
 * The replans statement: per run with replans or escalations in the window, the counts and the body of its last
 * run_end.
 */
function replansSql(f: ReportFilter): { text: string; values: unknown[] } {
  const p = new Params();
  const where = filterTerms(f, p, 'e');
  const text = `WITH m AS (
      SELECT e.source, e.run_id, count(*) FILTER (WHERE e.kind = 'replan') AS replans,
        count(*) FILTER (WHERE e.kind = 'escalation') AS escalations, min(e.t_ms) AS first, max(e.t_ms) AS last
      FROM witness.events e JOIN witness.sources s ON s.id = e.source
      LEFT JOIN witness.runs r ON r.source = e.source AND r.id = e.run_id
      WHERE e.kind IN ('replan', 'escalation') ${where.map((w) => `AND ${w}`).join(' ')}
      GROUP BY e.source, e.run_id),
    ends AS (
      SELECT DISTINCT ON (x.source, x.run_id) x.source, x.run_id, x.body
      FROM witness.events x JOIN m ON x.source = m.source AND x.run_id = m.run_id
      WHERE x.kind = 'run_end' ORDER BY x.source, x.run_id, x.seq DESC)
    SELECT s.log_id, s.host, s.robot, m.run_id, r.world, r.started_ms, m.replans, m.escalations, m.first, m.last,
      ends.body AS end_body
    FROM m JOIN witness.sources s ON s.id = m.source LEFT JOIN witness.runs r ON r.source = m.source AND r.id = m.run_id
    LEFT JOIN ends ON ends.source = m.source AND ends.run_id = m.run_id`;
  return { text, values: p.values };
}

const DECISION_COLS = `s.log_id, s.host, s.robot, e.seq, e.run_id, e.t_ms, e.body, r.world,
  r.operator AS run_operator, r.meta`;

/** The operator decisions in the window and filters (E-STOPs among them). */
function estopsSql(f: ReportFilter): { text: string; values: unknown[] } {
  const p = new Params();
  const where = filterTerms(f, p, 'e');
  const text = `SELECT ${DECISION_COLS} FROM witness.events e JOIN witness.sources s ON s.id = e.source
    LEFT JOIN witness.runs r ON r.source = e.source AND r.id = e.run_id
    WHERE e.kind = 'operator_decision' ${where.map((w) => `AND ${w}`).join(' ')}`;
  return { text, values: p.values };
}

type DecisionRaw = DecisionFields & { log_id: string; host: string; robot: string | null };

const decisionRow = ({ log_id, host, robot, ...d }: DecisionRaw): DecisionRow => ({
  ...d,
  source: { log_id, host, robot },
});

/** Runs `work` in a read-only, repeatable-read transaction on the store (a reader role suffices). */
async function reading<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connectStore(url);
  try {
    await requireSchema(c, url);
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    return await work(c);
  } catch (e) {
    throw fleetErrorOf(url, e);
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    await c.end().catch(() => {});
  }
}

export const storeFailures = (url: string, q: FailureQuery): Promise<FailureReport> =>
  reading(url, async (c) => {
    const r = await c.query({ ...failuresSql(q), rowMode: 'array' });
    const k = q.by.length;
    const cells: FailureCell[] = (r.rows as unknown[][]).map((a) => ({
      keys: a.slice(0, k) as (string | null)[],
      bucket_ms: q.every === null ? null : (a[k] as number),
      count: Number(a[a.length - 3]),
      first_ms: a[a.length - 2] as number,
      last_ms: a[a.length - 1] as number,
    }));
    return foldFailures(cells, q.by, q.every, q.filter);
  });

export const storeReplans = (url: string, f: ReportFilter): Promise<ReplanReport> =>
  reading(url, async (c) => {
    const r = await c.query<{
      log_id: string;
      host: string;
      robot: string | null;
      run_id: string;
      world: string | null;
      started_ms: number | null;
      replans: string;
      escalations: string;
      first: number;
      last: number;
      end_body: string | null;
    }>(replansSql(f));
    const rows: ReplanRow[] = r.rows.map((x) => ({
      source: { log_id: x.log_id, host: x.host, robot: x.robot },
      run_id: x.run_id,
      world: x.world,
      started_ms: x.started_ms,
      replans: Number(x.replans),
      escalations: Number(x.escalations),
      first_ms: x.first,
      last_ms: x.last,
      end: x.end_body,
    }));
    return replanReport(rows, f);
  });

export const storeEstops = (url: string, f: ReportFilter): Promise<EstopReport> =>
  reading(url, async (c) => {
    const stops = (await c.query<DecisionRaw>(estopsSql(f))).rows.map(decisionRow);
    const sources = [...new Set(stops.map((s) => s.source.log_id))];
    // Every decision of those sources: a reset may come after the window.
    const all = await c.query<DecisionRaw>(
      `SELECT ${DECISION_COLS} FROM witness.events e JOIN witness.sources s ON s.id = e.source
       LEFT JOIN witness.runs r ON r.source = e.source AND r.id = e.run_id
       WHERE e.kind = 'operator_decision' AND s.log_id = ANY($1)`,
      [sources],
    );
    return estopReport(stops, all.rows.map(decisionRow), f);
  });

/** The statement a report runs with (its plan is what explainReport shows). */
function reportSql(name: ReportName, q: FailureQuery): { text: string; values: unknown[] } {
  return name === 'failures' ? failuresSql(q) : name === 'replans' ? replansSql(q.filter) : estopsSql(q.filter);
}

/**
 * The plan PostgreSQL runs a report's statement with, measured (EXPLAIN (ANALYZE, BUFFERS)), as text lines: the
 * benchmark prints it, and the tests hold that it reads the indexes, not the whole events table.
 */
export const explainReport = (url: string, name: ReportName, q: FailureQuery): Promise<string[]> =>
  reading(url, async (c) => {
    const s = reportSql(name, q);
    const r = await c.query<{ 'QUERY PLAN': string }>({
      text: `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`,
      values: s.values,
    });
    return r.rows.map((x) => x['QUERY PLAN']);
  });
