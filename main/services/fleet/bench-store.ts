/**
 * The store side of `witness bench fleet` (main/bench/fleet-bench.ts), used by it only: a database of the
 * benchmark's own on a server (created empty, dropped at the end: it never writes into a store it did not create),
 * the store's size on disk, and the failures report timed against the same report with index scans turned off in
 * its session (the baseline: what it costs without its indexes), with the plan PostgreSQL chose for each statement
 * the report sends (EXPLAIN ANALYZE) and the indexes that plan uses.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { FailureQuery } from '../../core/audit/report.js';
import { failuresSql } from './report.js';
import { connectStore, fleetErrorOf } from './store.js';

export interface ReportFigure {
  readonly name: string;
  readonly query: FailureQuery;
  readonly rows: number;
  readonly failures: number;
  readonly p50_ms: number;
  readonly max_ms: number;
  /** The same report with index scans (plain, index-only, bitmap) turned off in its session, run once. */
  readonly seqscan_ms: number;
  /** Indexes the plans use (index name on table). */
  readonly indexes: readonly string[];
  /** The plans' lines (EXPLAIN ANALYZE, text). */
  readonly plan: readonly string[];
}

export interface BenchDatabase {
  /** Its name and URL (the server's URL naming it). */
  readonly database: string;
  readonly url: string;
  readonly serverVersion: string;
  /** Drops it (its connections ended first); safe to call twice. */
  drop(): Promise<void>;
}

/** `url` naming another database of the same server. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A new empty database on the server at `serverUrl` (its role needs CREATEDB), with a name of its own. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const database = `witness_bench_${randomBytes(6).toString('hex')}`;
  const admin = await connectStore(serverUrl);
  try {
    const v = await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    await admin.query(`CREATE DATABASE ${database}`);
    let open = true;
    return {
      database,
      url: withDatabase(serverUrl, database),
      serverVersion: v.rows[0]!.v,
      drop: async () => {
        if (!open) return;
        open = false;
        try {
          await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        } catch (e) {
          throw fleetErrorOf(serverUrl, e);
        } finally {
          await admin.end().catch(() => {});
        }
      },
    };
  } catch (e) {
    await admin.end().catch(() => {});
    throw fleetErrorOf(serverUrl, e);
  }
}

/** Runs `f` on a new connection to the store at `url`, ended after it. */
async function withStore<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connectStore(url);
  try {
    return await f(c);
  } catch (e) {
    throw fleetErrorOf(url, e);
  } finally {
    await c.end().catch(() => {});
  }
}

/** The witness schema's tables with their indexes and TOAST, in bytes. */
export function storeBytes(url: string): Promise<number> {
  return withStore(url, async (c) => {
    const r = await c.query<{ b: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS b FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'witness' AND c.relkind IN ('r', 'p', 'm')`,
    );
    return Number(r.rows[0]!.b);
  });
}

/** What autovacuum does on a live server, at once: the planner's statistics and the visibility map. */
export function vacuumAnalyze(url: string): Promise<void> {
  return withStore(url, async (c) => {
    await c.query('VACUUM (ANALYZE) witness.events, witness.runs, witness.blobs, witness.sources, witness.failures');
  });
}

/**
 * Runs `f` (a bulk load of the store at `url`, as its owner) with the chain-link trigger of events disabled, and
 * enables it again after, whatever `f` did: the load skips the per-row look-up of the previous event, and `verify
 * --from` (which reports a disabled trigger) re-checks every link afterwards.
 */
export async function withoutLinkTrigger<T>(url: string, f: () => Promise<T>): Promise<T> {
  await withStore(url, (c) => c.query('ALTER TABLE witness.events DISABLE TRIGGER events_link'));
  try {
    return await f();
  } finally {
    await withStore(url, (c) => c.query('ALTER TABLE witness.events ENABLE TRIGGER events_link'));
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2 === 1
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

type Statement = { text: string; values: unknown[] };

/** The failures report's own statement (`witness audit report failures`) on `c`: its cells and their failures. */
async function failuresReport(c: pg.Client, q: FailureQuery): Promise<{ failures: number }[]> {
  const r = await c.query({ ...failuresSql(q), rowMode: 'array' });
  return (r.rows as unknown[][]).map((a) => ({ failures: Number(a[a.length - 3]) }));
}

/** Runs the report on `c`, recording every statement it sends. */
async function recorded(c: pg.Client, q: FailureQuery): Promise<{ rows: number; failures: number; sql: Statement[] }> {
  const sql: Statement[] = [];
  const query = c.query.bind(c) as (...a: unknown[]) => unknown;
  const spy = (...a: unknown[]): unknown => {
    const [first, second] = a;
    if (typeof first === 'string') sql.push({ text: first, values: (second as unknown[] | undefined) ?? [] });
    else if (typeof first === 'object' && first !== null && 'text' in first) {
      const s = first as { text: string; values?: unknown[] };
      sql.push({ text: s.text, values: s.values ?? [] });
    }
    return query(...a);
  };
  (c as { query: unknown }).query = spy;
  try {
    const rows = await failuresReport(c, q);
    return { rows: rows.length, failures: rows.reduce((n, r) => n + r.failures, 0), sql };
  } finally {
    (c as { query: unknown }).query = query;
  }
}

/** The report run `rounds` times: each run's milliseconds. */
async function timeReport(c: pg.Client, q: FailureQuery, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await failuresReport(c, q);
    times.push(performance.now() - t0);
  }
  return times;
}

/** The plan lines of each statement, and the indexes named in them. */
async function explain(c: pg.Client, sql: readonly Statement[]): Promise<{ plan: string[]; indexes: string[] }> {
  const plan: string[] = [];
  const indexes = new Set<string>();
  for (const s of sql) {
    const r = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.values);
    for (const row of r.rows) {
      const line = row['QUERY PLAN'];
      plan.push(line);
      const m = /Index (?:Only )?Scan(?: Backward)? using (\S+) on (\S+)|Bitmap Index Scan on (\S+)/.exec(line);
      if (m !== null) indexes.add(m[1] !== undefined ? `${m[1]} on ${m[2]}` : m[3]!);
    }
  }
  return { plan, indexes: [...indexes] };
}

async function withoutIndexScans<T>(c: pg.Client, f: () => Promise<T>): Promise<T> {
  await c.query('SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off');
  try {
    return await f();
  } finally {
    await c.query('RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan');
  }
}

/**
 * The failures report by tool and robot over the 7 days before `now`, and over the whole history, on the store at
 * `url`: each timed (p50 of 7 after a first run), against itself without index scans (once: it reads the whole table),
 * and explained.
 */
export function timeReports(url: string, now: number): Promise<ReportFigure[]> {
  return withStore(url, (c) => reportFigures(c, now));
}

async function reportFigures(c: pg.Client, now: number): Promise<ReportFigure[]> {
  const cases: { name: string; query: FailureQuery }[] = [
    {
      name: 'failures by tool, robot: last 7 days',
      query: { by: ['tool', 'robot'], every: null, filter: { since_ms: now - 7 * 86_400_000 } },
    },
    {
      name: 'failures by tool, robot, kind: every week',
      query: { by: ['tool', 'robot', 'kind'], every: 'week', filter: {} },
    },
  ];
  const out: ReportFigure[] = [];
  for (const k of cases) {
    const first = await recorded(c, k.query);
    const times = await timeReport(c, k.query, 7);
    const seq = await withoutIndexScans(c, () => timeReport(c, k.query, 1));
    const { plan, indexes } = await explain(c, first.sql);
    out.push({
      name: k.name,
      query: k.query,
      rows: first.rows,
      failures: first.failures,
      p50_ms: median(times),
      max_ms: Math.max(...times),
      seqscan_ms: median(seq),
      indexes,
      plan,
    });
  }
  return out;
}
