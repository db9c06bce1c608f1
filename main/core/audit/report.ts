/**
 * The fleet reports' pure part, shared by the fleet store (PostgreSQL) and a local log (SQLite): the grouping keys, the
 * time flags (relative, ISO 8601, milliseconds), the buckets of "over time", what a failure record, a run's end and an
 * operator's decision say (read from their bodies as both engines read them), the folding of the engines' rows into
 * one report, and its order (report-text.ts prints it). Each engine's SQL (services/fleet/report.ts,
 * services/audit/report.ts) returns the same rows, so a report reads the same from either.
 */

/** What failures can be grouped by: a failure record's own fields, its run's world, its log's identity. */
export const REPORT_KEYS = ['tool', 'verifier', 'kind', 'robot', 'source', 'world', 'host'] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];
export const DEFAULT_REPORT_KEYS: readonly ReportKey[] = ['tool', 'robot'];

/** Buckets of "over time", in UTC: an hour, a day, a week from Monday 00:00 (1970-01-05 was a Monday). */
export const EVERY = {
  hour: { width_ms: 3_600_000, offset_ms: 0 },
  day: { width_ms: 86_400_000, offset_ms: 0 },
  week: { width_ms: 604_800_000, offset_ms: 345_600_000 },
} as const;
export type Every = keyof typeof EVERY;

/** The start of the bucket holding `t_ms` (the same arithmetic as the store's SQL: floor((t − offset) / width)). */
export function bucketStart(t_ms: number, every: Every): number {
  const { width_ms, offset_ms } = EVERY[every];
  return Math.floor((t_ms - offset_ms) / width_ms) * width_ms + offset_ms;
}

/** The comma-separated keys of --by, in the order given; an error in words when one is unknown or repeated. */
export function parseReportKeys(text: string): ReportKey[] | string {
  const parts = text.split(',').map((p) => p.trim());
  const out: ReportKey[] = [];
  for (const p of parts) {
    if (!(REPORT_KEYS as readonly string[]).includes(p))
      return `'${p}' is not a key: use a comma-separated list of ${REPORT_KEYS.join(', ')}`;
    if (out.includes(p as ReportKey)) return `'${p}' is named twice`;
    out.push(p as ReportKey);
  }
  return out;
}

/** The filters every fleet read takes: a source (its log id, or a prefix of it), robot, world, host, a time window. */
export interface ReportFilter {
  readonly source?: string;
  readonly robot?: string;
  readonly world?: string;
  readonly host?: string;
  /** From this time (inclusive), up to that one (exclusive), in ms since 1970. */
  readonly since_ms?: number;
  readonly until_ms?: number;
}

/** What a failures report asks: the keys, the buckets over time (null: none), the filters. */
export interface FailureQuery {
  readonly by: readonly ReportKey[];
  readonly every: Every | null;
  readonly filter: ReportFilter;
}

/** A source's identity: a local log has its id only (its host and robot are recorded when it is pushed). */
export interface SourceIdentity {
  readonly log_id: string;
  readonly host: string | null;
  readonly robot: string | null;
}

// ---- what the bodies say -------------------------------------------------------------------------------------------

/** Whether PostgreSQL's jsonb holds `v` as JSON.parse read it: no NUL and no lone surrogate in a key or string. */
function jsonbHolds(v: unknown): boolean {
  if (typeof v === 'string')
    return !/\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(v);
  if (Array.isArray(v)) return v.every(jsonbHolds);
  if (typeof v === 'object' && v !== null) return Object.entries(v).every(([k, x]) => jsonbHolds(k) && jsonbHolds(x));
  return true;
}

/**
 * A body as an object, or null when it is not JSON text of an object, or one the store's jsonb cannot hold (a NUL or
 * a lone surrogate escaped in it): the store derives nothing from such a body, and neither does this.
 */
function objectOf(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !jsonbHolds(v)) return null;
    return v as Record<string, unknown>;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A failure record's verifier (the condition it violated: a tool's postcondition, a mission's literal or checkpoint)
 * and failure kind (its label; a version-1 mission record's `kind`). Only string fields count. The store's trigger
 * (services/fleet/derived.ts) derives the same, and `verify --from` holds its rows to this.
 */
export function failureFields(
  body: string,
  failureLabel: string | null,
): { verifier: string | null; kind: string | null } {
  const b = objectOf(body);
  return { verifier: str(b?.['violated']), kind: failureLabel ?? str(b?.['label']) ?? str(b?.['kind']) };
}

/** A run_end's outcome. */
const outcomeOf = (body: string): string | null => str(objectOf(body)?.['outcome']);

/** An operator_decision: the decision, who and why. */
function decisionOf(body: string): { decision: string | null; operator: string | null; reason: string | null } {
  const b = objectOf(body);
  return { decision: str(b?.['decision']), operator: str(b?.['operator']), reason: str(b?.['reason']) };
}

/** The runs an E-STOP's latch run says it stopped (its meta.stopped), and how the operator reached it (meta.via). */
function runMetaOf(meta: string | null): { via: string | null; stopped: string[] } {
  const m = meta === null ? null : objectOf(meta);
  const list: unknown = m?.['stopped'];
  const stopped = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  return { via: str(m?.['via']), stopped };
}

// ---- ordering ------------------------------------------------------------------------------------------------------

/** Code-point order of two optional texts, nothing last (not a collation: both engines sort the same). */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

// ---- failures ------------------------------------------------------------------------------------------------------

/** One row of an engine's answer: failures of one combination of the keys (in one bucket when over time). */
export interface FailureCell {
  /** The values of the report's keys, in its --by order. */
  readonly keys: readonly (string | null)[];
  readonly bucket_ms: number | null;
  readonly count: number;
  readonly first_ms: number;
  readonly last_ms: number;
}

interface FailureGroup {
  readonly key: Readonly<Partial<Record<ReportKey, string | null>>>;
  readonly count: number;
  readonly first_ms: number;
  readonly last_ms: number;
  /** Over time (with --every): each bucket that holds failures, oldest first. */
  readonly buckets?: readonly { readonly start_ms: number; readonly count: number }[];
}

export interface FailureReport {
  readonly report: 'failures';
  readonly by: readonly ReportKey[];
  readonly every: Every | null;
  readonly filter: ReportFilter;
  readonly total: number;
  /** Most failures first; ties by the keys' values. */
  readonly groups: readonly FailureGroup[];
}

/** The engines' cells folded into groups (a group's cells are its buckets), in the report's order. */
export function foldFailures(
  cells: Iterable<FailureCell>,
  by: readonly ReportKey[],
  every: Every | null,
  filter: ReportFilter,
): FailureReport {
  type G = { keys: readonly (string | null)[]; count: number; first: number; last: number; b: Map<number, number> };
  const groups = new Map<string, G>();
  let total = 0;
  for (const c of cells) {
    const id = JSON.stringify(c.keys);
    let g = groups.get(id);
    if (g === undefined)
      groups.set(id, (g = { keys: c.keys, count: 0, first: c.first_ms, last: c.last_ms, b: new Map() }));
    g.count += c.count;
    g.first = Math.min(g.first, c.first_ms);
    g.last = Math.max(g.last, c.last_ms);
    if (c.bucket_ms !== null) g.b.set(c.bucket_ms, (g.b.get(c.bucket_ms) ?? 0) + c.count);
    total += c.count;
  }
  const sorted = [...groups.values()].sort((x, y) => {
    if (x.count !== y.count) return y.count - x.count;
    for (let i = 0; i < by.length; i++) {
      const d = compareText(x.keys[i] ?? null, y.keys[i] ?? null);
      if (d !== 0) return d;
    }
    return 0;
  });
  return {
    report: 'failures',
    by: [...by],
    every,
    filter,
    total,
    groups: sorted.map((g) => ({
      key: Object.fromEntries(by.map((k, i) => [k, g.keys[i] ?? null])),
      count: g.count,
      first_ms: g.first,
      last_ms: g.last,
      ...(every !== null
        ? { buckets: [...g.b].sort((a, b) => a[0] - b[0]).map(([start_ms, count]) => ({ start_ms, count })) }
        : {}),
    })),
  };
}

/** One failure record as a local log reads it (one cell: the store counts in SQL, a log here). */
export function failureCell(
  by: readonly ReportKey[],
  every: Every | null,
  e: { t_ms: number; tool: string | null; failure_label: string | null; body: string; world: string | null },
  source: SourceIdentity,
): FailureCell {
  const f = failureFields(e.body, e.failure_label);
  const value: Record<ReportKey, string | null> = {
    tool: e.tool,
    verifier: f.verifier,
    kind: f.kind,
    robot: source.robot,
    source: source.log_id,
    world: e.world,
    host: source.host,
  };
  return {
    keys: by.map((k) => value[k]),
    bucket_ms: every === null ? null : bucketStart(e.t_ms, every),
    count: 1,
    first_ms: e.t_ms,
    last_ms: e.t_ms,
  };
}

// ---- replans and escalations per mission ---------------------------------------------------------------------------

/** A run with replans or escalations, as an engine reads it. */
export interface ReplanRow {
  readonly source: SourceIdentity;
  readonly run_id: string;
  readonly world: string | null;
  readonly started_ms: number | null;
  readonly replans: number;
  readonly escalations: number;
  readonly first_ms: number;
  readonly last_ms: number;
  /** The body of the run's last run_end (null: the run has not ended). */
  readonly end: string | null;
}

/** A run of the replans report: its row with the source's identity inline and the outcome its run_end names. */
type ReplanRun = SourceIdentity & Omit<ReplanRow, 'source' | 'end'> & { readonly outcome: string | null };

export interface ReplanReport {
  readonly report: 'replans';
  readonly filter: ReportFilter;
  readonly runs: readonly ReplanRun[];
  readonly replans: number;
  readonly escalations: number;
}

/** The runs in the order they started (then by log and run id). */
export function replanReport(rows: Iterable<ReplanRow>, filter: ReportFilter): ReplanReport {
  const runs: ReplanRun[] = [...rows].map((r) => ({
    log_id: r.source.log_id,
    host: r.source.host,
    robot: r.source.robot,
    run_id: r.run_id,
    world: r.world,
    started_ms: r.started_ms,
    replans: r.replans,
    escalations: r.escalations,
    first_ms: r.first_ms,
    last_ms: r.last_ms,
    outcome: r.end === null ? null : outcomeOf(r.end),
  }));
  runs.sort(
    (a, b) =>
      (a.started_ms ?? a.first_ms) - (b.started_ms ?? b.first_ms) ||
      compareText(a.log_id, b.log_id) ||
      compareText(a.run_id, b.run_id),
  );
  return {
    report: 'replans',
    filter,
    runs,
    replans: runs.reduce((s, r) => s + r.replans, 0),
    escalations: runs.reduce((s, r) => s + r.escalations, 0),
  };
}

// ---- E-STOPs -------------------------------------------------------------------------------------------------------

/** An operator_decision event with its run, as an engine reads it. */
export interface DecisionRow {
  readonly source: SourceIdentity;
  readonly seq: number;
  readonly run_id: string;
  readonly t_ms: number;
  readonly body: string;
  readonly world: string | null;
  /** The run's operator and metadata (JSON text). */
  readonly run_operator: string | null;
  readonly meta: string | null;
}

/** A decision row as both engines' SQL reads it, before its source is known. */
export type DecisionFields = Omit<DecisionRow, 'source'>;

interface EstopEntry {
  readonly t_ms: number;
  readonly log_id: string;
  readonly host: string | null;
  readonly robot: string | null;
  readonly run_id: string;
  readonly seq: number;
  readonly world: string | null;
  /** Who: the operator, and the window they reached the workbench through (console (web), cli, …). */
  readonly operator: string | null;
  readonly via: string | null;
  readonly reason: string | null;
  /** The reset of the latch that held after it, when one is on record. */
  readonly reset: { readonly t_ms: number; readonly operator: string | null; readonly reason: string | null } | null;
}

export interface EstopReport {
  readonly report: 'estops';
  readonly filter: ReportFilter;
  readonly estops: readonly EstopEntry[];
  readonly reset: number;
}

/**
 * Every E-STOP among `stops` (decisions in the report's window and filters), each with the reset that released it:
 * the first estop-reset after it in its own run (a latch's run), or in the latch run that names its run as stopped.
 * `decisions` are every operator decision of the same sources (a reset may come after the window).
 */
export function estopReport(
  stops: Iterable<DecisionRow>,
  decisions: Iterable<DecisionRow>,
  filter: ReportFilter,
): EstopReport {
  const resets = new Map<string, DecisionRow[]>();
  const latchOf = new Map<string, string[]>();
  const at = (log: string, run: string): string => `${log} ${run}`;
  for (const d of decisions) {
    if (decisionOf(d.body).decision === 'estop-reset') {
      const k = at(d.source.log_id, d.run_id);
      resets.set(k, [...(resets.get(k) ?? []), d]);
    }
    for (const r of runMetaOf(d.meta).stopped) {
      const k = at(d.source.log_id, r);
      if (!(latchOf.get(k) ?? []).includes(d.run_id)) latchOf.set(k, [...(latchOf.get(k) ?? []), d.run_id]);
    }
  }
  const resetAfter = (log: string, run: string, seq: number): DecisionRow | undefined =>
    (resets.get(at(log, run)) ?? []).filter((r) => r.seq > seq).sort((a, b) => a.seq - b.seq)[0];
  const estops: EstopEntry[] = [];
  for (const s of stops) {
    const d = decisionOf(s.body);
    if (d.decision !== 'estop') continue;
    const log = s.source.log_id;
    const r =
      resetAfter(log, s.run_id, s.seq) ??
      (latchOf.get(at(log, s.run_id)) ?? [])
        .map((l) => resetAfter(log, l, s.seq))
        .filter((x) => x !== undefined)
        .sort((a, b) => a.seq - b.seq)[0];
    const reset = r === undefined ? null : decisionOf(r.body);
    estops.push({
      t_ms: s.t_ms,
      log_id: log,
      host: s.source.host,
      robot: s.source.robot,
      run_id: s.run_id,
      seq: s.seq,
      world: s.world,
      operator: d.operator ?? s.run_operator,
      via: runMetaOf(s.meta).via,
      reason: d.reason,
      reset: r === undefined ? null : { t_ms: r.t_ms, operator: reset!.operator, reason: reset!.reason },
    });
  }
  estops.sort((a, b) => a.t_ms - b.t_ms || compareText(a.log_id, b.log_id) || a.seq - b.seq);
  return { report: 'estops', filter, estops, reset: estops.filter((e) => e.reset !== null).length };
}
