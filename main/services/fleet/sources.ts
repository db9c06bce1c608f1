/**
 * The fleet store's sources (one per pushed log) and the filters every read of the store takes: a source by its log id
 * or a unique prefix of it, its host, its robot (or world, as pushed), a world its runs record, a time window its
 * events fall in (from its start, inclusive, to its end, exclusive), a run it holds. The filters are SQL conditions on
 * `witness.sources AS s` (sourceWhere), so a read that spans every source (query --from) and one that lists them
 * (listSources) select the same sources.
 */
import type pg from 'pg';
import { FleetError } from './store.js';

export interface SourceFilter {
  /** A log id, or a prefix of one (hex). */
  readonly source?: string;
  readonly host?: string;
  readonly robot?: string;
  /** A world one of the source's runs records. */
  readonly world?: string;
  /** Sources with an event at or after this time (ms since 1970; the window includes its start, not its end). */
  readonly since_ms?: number;
  /** Sources with an event before this time. */
  readonly until_ms?: number;
  /** Sources holding a run whose id starts with this. */
  readonly run?: string;
}

/** A source as listed: its identity, and what the store holds of it. */
export interface SourceInfo {
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
  /** When it was first pushed (ISO 8601). */
  readonly registered_at: string;
  readonly events: number;
  readonly runs: number;
  /** Its first and last event's times (null: no events). */
  readonly first_ms: number | null;
  readonly last_ms: number | null;
  /** The worlds its runs record, sorted. */
  readonly worlds: readonly string[];
}

/** A source row as the reads use it (`id`: the store's key of the source). */
export interface SourceRow {
  readonly id: number;
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
}

const LOG_ID_PREFIX = /^[0-9a-f]{1,64}$/;

/** Refuses a filter that cannot mean anything (a source that is not hex, a window that ends before it starts). */
export function checkSourceFilter(url: string, f: SourceFilter): void {
  if (f.source !== undefined && !LOG_ID_PREFIX.test(f.source.toLowerCase()))
    throw new FleetError(
      url,
      `--source must be a log id or a prefix of one (hexadecimal digits, as listed), got ${JSON.stringify(f.source)}`,
    );
  if (f.since_ms !== undefined && f.until_ms !== undefined && f.since_ms >= f.until_ms)
    throw new FleetError(url, 'the time window ends before it starts (--until must come after --since)');
}

/**
 * The filter as SQL conditions on `witness.sources AS s` (none: every source), its values appended to `args` (the
 * placeholders numbered after those already there).
 */
function sourceWhere(f: SourceFilter, args: unknown[]): string[] {
  const where: string[] = [];
  const p = (v: unknown): string => {
    args.push(v);
    return `$${args.length}`;
  };
  if (f.source !== undefined) {
    const prefix = f.source.toLowerCase();
    where.push(`starts_with(s.log_id, ${p(prefix)})`);
  }
  if (f.host !== undefined) where.push(`s.host = ${p(f.host)}`);
  if (f.robot !== undefined) where.push(`s.robot = ${p(f.robot)}`);
  if (f.world !== undefined)
    where.push(`EXISTS (SELECT 1 FROM witness.runs r WHERE r.source = s.id AND r.world = ${p(f.world)})`);
  if (f.since_ms !== undefined || f.until_ms !== undefined) {
    const window = [
      ...(f.since_ms !== undefined ? [`e.t_ms >= ${p(f.since_ms)}`] : []),
      ...(f.until_ms !== undefined ? [`e.t_ms < ${p(f.until_ms)}`] : []),
    ];
    where.push(`EXISTS (SELECT 1 FROM witness.events e WHERE e.source = s.id AND ${window.join(' AND ')})`);
  }
  if (f.run !== undefined)
    where.push(`EXISTS (SELECT 1 FROM witness.runs r WHERE r.source = s.id AND starts_with(r.id, ${p(f.run)}))`);
  return where;
}

/** The sources the filter selects (their keys and identity), in the order they were first pushed. */
export async function sourceRows(c: pg.Client, f: SourceFilter): Promise<SourceRow[]> {
  const args: unknown[] = [];
  const where = sourceWhere(f, args);
  const r = await c.query<SourceRow>(
    `SELECT s.id, s.log_id, s.host, s.robot FROM witness.sources s
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.id`,
    args,
  );
  return r.rows;
}

/**
 * The sources the filter selects, in the order they were first pushed, with their counts, first and last event times
 * and worlds (each found through an index: the last event by (source, seq), the runs by (source, id)).
 */
export async function listSources(c: pg.Client, f: SourceFilter): Promise<SourceInfo[]> {
  const args: unknown[] = [];
  const where = sourceWhere(f, args);
  const r = await c.query<SourceInfo & { registered_at: Date }>(
    `SELECT s.log_id, s.host, s.robot, s.registered_at, coalesce(h.seq, 0) AS events, h.t_ms AS last_ms,
       (SELECT e.t_ms FROM witness.events e WHERE e.source = s.id AND e.seq = 1) AS first_ms,
       (SELECT count(*) FROM witness.runs r WHERE r.source = s.id) AS runs,
       ARRAY(SELECT DISTINCT r.world FROM witness.runs r WHERE r.source = s.id ORDER BY r.world) AS worlds
     FROM witness.sources s
     LEFT JOIN LATERAL (SELECT e.seq, e.t_ms FROM witness.events e WHERE e.source = s.id ORDER BY e.seq DESC LIMIT 1) h
       ON true
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.id`,
    args,
  );
  return r.rows.map((s) => ({
    log_id: s.log_id,
    host: s.host,
    robot: s.robot,
    registered_at: s.registered_at.toISOString(),
    events: s.events,
    runs: s.runs,
    first_ms: s.first_ms,
    last_ms: s.last_ms,
    worlds: s.worlds,
  }));
}

/** A source in words: its host, robot and short log id. */
export const sourceText = (s: Pick<SourceRow, 'log_id' | 'host' | 'robot'>): string =>
  `${s.host}/${s.robot ?? '–'}/${s.log_id.slice(0, 12)}`;

/**
 * The one source the filter selects; a FleetError listing the candidates when it selects none or several (`what`
 * names the command that needs one, for the message).
 */
export async function oneSource(c: pg.Client, url: string, f: SourceFilter, what: string): Promise<SourceRow> {
  const rows = await sourceRows(c, f);
  if (rows.length === 1) return rows[0]!;
  const holding = f.run !== undefined ? ` and holds a run ${JSON.stringify(f.run)}…` : '';
  if (rows.length === 0)
    throw new FleetError(
      url,
      `${what} needs one source, and no source of the store matches the filters${holding}`,
      'not-found',
    );
  const listed = rows
    .slice(0, 20)
    .map((s) => `${s.log_id.slice(0, 16)} (host ${s.host}, robot ${s.robot ?? '–'})`)
    .join('; ');
  throw new FleetError(
    url,
    `${what} needs one source, and ${rows.length} match the filters${holding}: ${listed}${rows.length > 20 ? `; and ${rows.length - 20} more` : ''} (narrow them: --source with a log id or a prefix of it, --host, --robot, --world)`,
  );
}
