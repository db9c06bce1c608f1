/**
 * The one place the fleet benchmark calls the failures report (`witness audit report failures --by tool,robot
 * --since …` on the store). Until the report's own module is merged this holds a stand-in of the same shape: failure
 * records grouped by the asked keys over a time range, on one connection. The benchmark records the statements the
 * report runs on that connection (and EXPLAINs them), so wiring the real report here changes nothing else.
 */
import type pg from 'pg';

/** The keys as `witness audit report failures --by` names them (kind: the failure's label). */
export type FailuresKey = 'tool' | 'robot' | 'kind' | 'host';

export interface FailuresQuery {
  readonly by: readonly FailuresKey[];
  /** Failure records at or after this time (ms since 1970), and before `until_ms` when given. */
  readonly since_ms: number;
  readonly until_ms?: number;
}

export interface FailuresRow {
  readonly key: Readonly<Record<string, string | null>>;
  readonly failures: number;
  readonly first_ms: number;
  readonly last_ms: number;
}

const COLUMN: Record<FailuresKey, string> = {
  tool: 'e.tool',
  robot: 's.robot',
  kind: 'e.failure_label',
  host: 's.host',
};

/** The failures report on the store at the other end of `c`. */
export async function failuresReport(c: pg.Client, q: FailuresQuery): Promise<FailuresRow[]> {
  const cols = q.by.map((k) => COLUMN[k]);
  const r = await c.query({
    text: `SELECT ${[...cols, 'count(*)::bigint', 'min(e.t_ms)', 'max(e.t_ms)'].join(', ')}
           FROM witness.events e JOIN witness.sources s ON s.id = e.source
           WHERE e.kind = 'failure_record' AND e.t_ms >= $1 AND e.t_ms < $2
           ${cols.length > 0 ? `GROUP BY ${cols.map((_, i) => i + 1).join(', ')}` : ''} ORDER BY ${cols.length + 1} DESC`,
    values: [q.since_ms, q.until_ms ?? Number.MAX_SAFE_INTEGER],
    rowMode: 'array',
  });
  return (r.rows as unknown[][]).map((a) => ({
    key: Object.fromEntries(q.by.map((k, i) => [k, a[i] as string | null])),
    failures: Number(a[cols.length]),
    first_ms: Number(a[cols.length + 1]),
    last_ms: Number(a[cols.length + 2]),
  }));
}
