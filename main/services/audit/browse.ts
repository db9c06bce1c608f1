/**
 * The audit browser's reads over a read-only connection: runs with their spec and metadata, a page
 * at a time (runs.ts), pages of events for a filter (keyset paging through forensics' queryPage, or
 * a jump to an index), the event nearest a step or time, the filter choices of a run, and one
 * event's detail with the plans before and after a replan.
 */
import { WitnessError } from '../../contract/errors.js';
import type Database from 'better-sqlite3';
import type {
  AuditEventDetail,
  AuditEventRow,
  AuditFilter,
  AuditPlanDiff,
  AuditPlanDoc,
  AuditQueryResult,
  AuditRunSummary,
} from '../../contract/api.js';
import { getBlob, queryPage } from './forensics.js';
import { type RunSummary, runPage, runPages, runSummary } from './runs.js';
import { EVENT_COLUMNS, type EventRow, MAX_BODY_BYTES, eventOf, jsonOr } from './rows.js';
import { diffNodes } from './plan-diff.js';
import { obj } from './body.js';

/** A request the database cannot answer as asked (a bad cursor, an unknown event): code and where. */
class BrowseError extends WitnessError {
  override readonly name = 'BrowseError';
  declare readonly code: 'invalid-params' | 'not-found';
  constructor(
    code: 'invalid-params' | 'not-found',
    message: string,
    readonly path?: string,
  ) {
    super(code, message, path !== undefined ? { path } : {});
  }
}

/**
 * A body or blob as the browser shows it: parsed, or as the text it is when that is not JSON (or nests too deep to
 * parse safely).
 */
const parse = (text: string): unknown => jsonOr<unknown>(text, text);

/** A verifier failure: a failure record, a failed postcondition, evidence that carries a failure label. */
function failedEvent(kind: string, body: unknown, failureLabel: string | null): boolean {
  if (kind === 'failure_record') return true;
  if (kind === 'verifier_result') return obj(body)['pass'] !== true;
  return kind === 'evidence' && failureLabel !== null;
}

/**
 * The statements that count a run's verifier failures: the run's first and last event (its
 * events_by_run entries), then the failure records and verifier results between the two
 * (events_by_kind), so a run costs what its failures cost, not what the whole log holds.
 */
export const FAILURE_SQL = {
  first: 'SELECT seq FROM events WHERE run_id = ? ORDER BY seq LIMIT 1',
  last: 'SELECT seq FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1',
  records: "SELECT count(*) FROM events WHERE kind = 'failure_record' AND seq >= ? AND seq <= ? AND +run_id = ?",
  // Failed postconditions as failedEvent judges them: a verifier result whose pass is not true.
  // (A body that is not JSON, or over the size limit, is not parsed: no pass.)
  postconditions: `SELECT count(*) FROM events WHERE kind = 'verifier_result' AND seq >= ? AND seq <= ? AND +run_id = ?
    AND (CASE WHEN octet_length(body) > ${MAX_BODY_BYTES} THEN NULL WHEN json_valid(body) THEN json_extract(body, '$.pass') END) IS NOT 1`,
} as const;

/** The browser's view of runs: each summary with its verifier failures and its specification text. */
function browserRuns(db: Database.Database): (r: RunSummary) => AuditRunSummary {
  const [first, last, records, postconditions] = [
    FAILURE_SQL.first,
    FAILURE_SQL.last,
    FAILURE_SQL.records,
    FAILURE_SQL.postconditions,
  ].map((q) => db.prepare(q).pluck());
  const failures = (id: string): { records: number; postconditions: number } => {
    const lo = first!.get(id) as number | undefined;
    if (lo === undefined) return { records: 0, postconditions: 0 };
    const hi = last!.get(id) as number;
    return { records: records!.get(lo, hi, id) as number, postconditions: postconditions!.get(lo, hi, id) as number };
  };
  return (r) => ({
    id: r.id,
    started_ms: r.started_ms,
    ended_ms: r.ended_ms,
    world: r.world,
    backend: r.backend,
    operator: r.operator,
    software: r.software,
    outcome: r.outcome,
    events: r.events,
    failures: failures(r.id),
    spec: r.spec_sha !== null ? (getBlob(db, r.spec_sha)?.body ?? null) : null,
    meta: obj(r.meta),
    ...(r.tampered !== undefined ? { tampered: r.tampered } : {}),
  });
}

/** A page of runs, newest first (runs.ts runPage), for the browser's run list. */
export function runsPage(
  db: Database.Database,
  o: { readonly cursor?: string | null; readonly limit: number },
): { runs: AuditRunSummary[]; next: string | null } {
  const page = runPage(db, { order: 'desc', ...(o.cursor != null ? { cursor: o.cursor } : {}), limit: o.limit });
  return { runs: page.runs.map(browserRuns(db)), next: page.next };
}

/** Every run in chain order (oldest first) as the browser shows it, page by page (exports). */
export function* browserRunsOf(db: Database.Database, only?: string): Generator<AuditRunSummary> {
  const view = browserRuns(db);
  if (only !== undefined) {
    const r = runSummary(db, only);
    if (r !== undefined) yield view(r);
    return;
  }
  for (const page of runPages(db, 'asc', 1000)) for (const r of page) yield view(r);
}

/** One run as the browser shows it, by id; undefined when the database has no such run. */
export function runOf(db: Database.Database, id: string): AuditRunSummary | undefined {
  const r = runSummary(db, id);
  return r === undefined ? undefined : browserRuns(db)(r);
}

const clip = (s: string, n = 160): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const js = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
/** An array field as a comma-separated list (anything else: its JSON). */
const list = (v: unknown): string => (Array.isArray(v) ? v.map(js).join(',') : js(v));

/** One line per event kind, for the table; the detail pane has the rest. */
function summarise(kind: string, body: string): string {
  const b = obj(parse(body));
  const s = (k: string): string => js(b[k]);
  switch (kind) {
    case 'tool_call': {
      const r = obj(b['response']);
      return clip(`${s('tool')}(${js(b['arguments'])})${'ok' in r ? ` → ${r['ok'] === true ? 'ok' : 'not ok'}` : ''}`);
    }
    case 'verifier_result':
      return clip(
        `${s('tool')} ${s('postcondition')}: ${b['pass'] === true ? 'pass' : 'FAIL'} — ${s('expr')} observed ${js(b['observed'])}`,
      );
    case 'evidence':
      return clip(
        `${typeof b['instruction'] === 'string' ? s('instruction') : js(obj(b['instruction'])['tool'] ?? b['instruction'])}: ${s('verifier')}${b['failure_label'] ? ` [${s('failure_label')}]` : ''}`,
      );
    case 'failure_record':
      return clip(
        'stage' in b
          ? `${s('tool')} ${s('stage')} "${s('violated')}" → ${s('label')} (${s('class')})`
          : `${s('kind')} ${s('from')} → ${s('to')} (${s('stream')} #${s('index')}): ${s('class')}, ${s('action')}`,
      );
    case 'replan':
      return clip(
        `replan ${s('replan')} after ${s('trigger')}${b['prefix_nodes'] !== undefined ? `, new prefix of ${s('prefix_nodes')} nodes` : ''}`,
      );
    case 'plan':
      return clip(
        `${s('trigger')} plan: ${s('status')}${obj(b['cost'])['objective'] !== undefined ? `, objective ${Number(obj(b['cost'])['objective']).toFixed(1)}` : ''}, ${Number(b['planning_ms'] ?? 0).toFixed(1)} ms`,
      );
    case 'checkpoint':
      return clip(
        `${s('kind')}${b['node'] !== undefined ? ` ${s('node')}` : ''}${b['stream'] !== undefined ? ` (${s('stream')} #${s('index')})` : ''}`,
      );
    case 'rule_verdict': {
      const broken = `rule "${s('rule')}" on ${s('proposition')}`;
      const pending = Array.isArray(b['obligations']) && b['obligations'].length > 0;
      const verdict =
        b['ok'] !== true
          ? `${b['phase'] === 'predicted' ? 'REFUSED' : 'VIOLATED'}: ${broken}`
          : `ok${pending ? ` · pending: ${list(b['obligations'])}` : ''}`;
      return clip(`${s('tool')} ${s('phase')}: ${verdict}`);
    }
    case 'monitor_event':
      return clip(
        `states {${list(b['states'])}}${b['viable'] === false ? ' NOT viable' : ''}${b['accepting'] === true ? ' accepting' : ''} labels {${list(b['labels'])}}`,
      );
    case 'escalation':
      return clip(`escalation: ${s(b['message'] !== undefined ? 'message' : 'reason')}`);
    case 'run_start':
      return clip(`${s('world')} (${s('backend')}), operator ${s('operator')}, ${s('software')}`);
    case 'run_end':
      return clip(
        `${s('outcome')}${b['message'] !== undefined || b['reason'] !== undefined ? `: ${s(b['message'] !== undefined ? 'message' : 'reason')}` : ''}`,
      );
    case 'operator_decision':
      return clip(`${s('decision')}${b['reason'] !== undefined ? `: ${s('reason')}` : ''}`);
    default:
      return clip(body);
  }
}

function rowOf(e: EventRow): AuditEventRow {
  return {
    id: e.seq,
    run: e.run_id,
    t_ms: e.t_ms,
    kind: e.kind,
    tool: e.tool,
    failureLabel: e.failure_label,
    step: e.step,
    summary: summarise(e.kind, e.body),
    failed: failedEvent(e.kind, e.kind === 'verifier_result' ? parse(e.body) : null, e.failure_label),
  };
}

/** How far the database has been written: runs and the last event's sequence number. */
export function headOf(db: Database.Database): { runs: number; lastSeq: number } {
  const runs = (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  const last = (db.prepare('SELECT max(seq) AS s FROM events').get() as { s: number | null }).s;
  return { runs, lastSeq: last ?? 0 };
}

/** The filter as SQL, with the same meaning as queryPage's (free text as an escaped LIKE). */
function whereOf(f: AuditFilter): { sql: string; args: unknown[] } {
  const w: string[] = ['1 = 1'];
  const args: unknown[] = [];
  if (f.run !== undefined) {
    w.push('run_id = ?');
    args.push(f.run);
  }
  if (f.kinds !== undefined && f.kinds.length > 0) {
    w.push(`kind IN (${f.kinds.map(() => '?').join(', ')})`);
    args.push(...f.kinds);
  }
  if (f.tool !== undefined) {
    w.push('tool = ?');
    args.push(f.tool);
  }
  if (f.failureLabel !== undefined) {
    w.push('failure_label = ?');
    args.push(f.failureLabel);
  }
  if (f.fromMs !== undefined) {
    w.push('t_ms >= ?');
    args.push(f.fromMs);
  }
  if (f.toMs !== undefined) {
    w.push('t_ms <= ?');
    args.push(f.toMs);
  }
  if (f.text !== undefined) {
    w.push("body LIKE ? ESCAPE '\\'");
    args.push(`%${f.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return { sql: w.join(' AND '), args };
}

const CURSOR = /^s:(\d{1,15})$/;

export function queryRows(
  db: Database.Database,
  f: AuditFilter,
  o: { cursor?: string | null; offset?: number; limit: number },
): AuditQueryResult {
  if (o.cursor != null && o.offset !== undefined)
    throw new BrowseError(
      'invalid-params',
      'auditQuery: give either cursor (continue) or offset (jump), not both',
      '$.offset',
    );
  let after = 0;
  if (o.cursor != null) {
    const m = CURSOR.exec(o.cursor);
    if (m === null)
      throw new BrowseError(
        'invalid-params',
        `auditQuery: $.cursor: not a cursor this browser gave out (${JSON.stringify(o.cursor.slice(0, 40))})`,
        '$.cursor',
      );
    after = Number(m[1]);
  }
  const where = whereOf(f);
  if (o.offset !== undefined && o.offset > 0) {
    if (f.text !== undefined)
      throw new BrowseError(
        'invalid-params',
        'auditQuery: $.offset: a free-text search cannot jump; page through it with the cursor',
        '$.offset',
      );
    const r = db
      .prepare(`SELECT seq FROM events WHERE ${where.sql} ORDER BY seq LIMIT 1 OFFSET ?`)
      .get(...where.args, o.offset - 1) as { seq: number } | undefined;
    if (r === undefined) return { events: [], next: null, complete: true };
    after = r.seq;
  }
  const page = queryPage(db, {
    ...(f.run !== undefined ? { run: f.run } : {}),
    ...(f.kinds !== undefined && f.kinds.length > 0 ? { kinds: f.kinds } : {}),
    ...(f.tool !== undefined ? { tool: f.tool } : {}),
    ...(f.failureLabel !== undefined ? { failureLabel: f.failureLabel } : {}),
    ...(f.fromMs !== undefined ? { from_ms: f.fromMs } : {}),
    ...(f.toMs !== undefined ? { to_ms: f.toMs } : {}),
    ...(f.text !== undefined ? { text: f.text } : {}),
    after,
    limit: o.limit,
  });
  // A full page may be the last one: say so now rather than after one more empty round trip.
  let next = page.next;
  if (next !== null && page.complete && page.rows.length === o.limit) {
    const more = db.prepare(`SELECT 1 FROM events WHERE ${where.sql} AND seq > ? LIMIT 1`).get(...where.args, next);
    if (more === undefined) next = null;
  }
  return {
    events: page.rows.map(rowOf),
    next: next === null ? null : `s:${next}`,
    complete: page.complete,
    // Counted on the first page only (a jump or a continuation keeps the first page's count).
    // Counting a free-text match would scan every body: the table grows as pages arrive instead.
    ...(f.text === undefined && o.cursor == null && (o.offset ?? 0) === 0 ? { total: count(db, where) } : {}),
  };
}

function count(db: Database.Database, where: { sql: string; args: unknown[] }): number {
  return (db.prepare(`SELECT count(*) AS n FROM events WHERE ${where.sql}`).get(...where.args) as { n: number }).n;
}

/** The matching event nearest to `step` (or `tMs`), ties to the earlier, and its index among the matches. */
export function locate(
  db: Database.Database,
  f: AuditFilter & { run: string },
  at: { step?: number; tMs?: number },
): { index: number; row: AuditEventRow } | { index: -1; row: null } {
  if ((at.step === undefined) === (at.tMs === undefined))
    throw new BrowseError('invalid-params', 'auditLocate: give exactly one of step and tMs', '$.step');
  const where = whereOf(f);
  const col = at.step !== undefined ? 'step' : 't_ms';
  const v = at.step ?? at.tMs!;
  const one = (sql: string): EventRow | undefined => {
    const r = db.prepare(sql).get(...where.args, v);
    return r === undefined ? undefined : eventOf(r);
  };
  const before = one(
    `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.sql} AND ${col} <= ? ORDER BY seq DESC LIMIT 1`,
  );
  const after = one(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.sql} AND ${col} >= ? ORDER BY seq LIMIT 1`);
  const key = (e: EventRow): number => (col === 'step' ? e.step! : e.t_ms);
  const best =
    before === undefined ? after : after === undefined ? before : v - key(before) <= key(after) - v ? before : after;
  if (best === undefined) return { index: -1, row: null };
  const index = (
    db.prepare(`SELECT count(*) AS n FROM events WHERE ${where.sql} AND seq < ?`).get(...where.args, best.seq) as {
      n: number;
    }
  ).n;
  return { index, row: rowOf(best) };
}

export function facets(
  db: Database.Database,
  run: string,
): {
  kinds: { kind: string; n: number }[];
  tools: string[];
  failureLabels: string[];
  firstMs: number | null;
  lastMs: number | null;
} {
  const kinds = db
    .prepare('SELECT kind, count(*) AS n FROM events WHERE run_id = ? GROUP BY kind ORDER BY kind')
    .all(run) as { kind: string; n: number }[];
  const tools = (
    db.prepare('SELECT DISTINCT tool FROM events WHERE run_id = ? AND tool IS NOT NULL ORDER BY tool').all(run) as {
      tool: string;
    }[]
  ).map((r) => r.tool);
  const failureLabels = (
    db
      .prepare(
        'SELECT DISTINCT failure_label AS f FROM events WHERE run_id = ? AND failure_label IS NOT NULL ORDER BY f',
      )
      .all(run) as { f: string }[]
  ).map((r) => r.f);
  // Times that are not numbers (a forged row: refused where its event is read) are left out.
  const t = db
    .prepare(
      "SELECT min(t_ms) AS a, max(t_ms) AS b FROM events WHERE run_id = ? AND typeof(t_ms) IN ('integer', 'real')",
    )
    .get(run) as { a: number | null; b: number | null };
  return { kinds, tools, failureLabels, firstMs: t.a, lastMs: t.b };
}

/** The plan an event of kind 'plan' recorded, from its blob. */
export function planOf(db: Database.Database, e: EventRow): AuditPlanDoc | null {
  const b = obj(parse(e.body));
  const sha = b['plan_sha'];
  const blob = typeof sha === 'string' ? getBlob(db, sha) : undefined;
  if (blob === undefined || typeof sha !== 'string') return null;
  const doc = obj(parse(blob.body));
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  const cost = obj(doc['cost']);
  return {
    seq: e.seq,
    step: e.step,
    trigger: js(b['trigger']),
    status: js(doc['status']),
    sha,
    method: js(doc['method']),
    prefix: strings(doc['prefix']),
    suffix: strings(doc['suffix']),
    cost:
      typeof cost['objective'] === 'number' ? (cost as { prefix: number; suffix: number; objective: number }) : null,
    document: doc,
  };
}

function plansAround(db: Database.Database, e: EventRow): AuditPlanDiff {
  const prevPlan = (seq: number): EventRow | undefined => {
    const r = db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind = 'plan' AND seq < ? ORDER BY seq DESC LIMIT 1`,
      )
      .get(e.run_id, seq);
    return r === undefined ? undefined : eventOf(r);
  };
  // A mission appends the new plan, then the replan event: "after" is the plan just before it.
  const afterRow = e.kind === 'plan' ? e : prevPlan(e.seq);
  const beforeRow = afterRow !== undefined ? prevPlan(afterRow.seq) : undefined;
  const after = afterRow !== undefined ? planOf(db, afterRow) : null;
  const before = beforeRow !== undefined ? planOf(db, beforeRow) : null;
  const d: AuditPlanDiff = {
    before,
    after,
    prefix: diffNodes(before?.prefix ?? [], after?.prefix ?? []),
    suffix: diffNodes(before?.suffix ?? [], after?.suffix ?? []),
  };
  if (after === null)
    d.note =
      'this run recorded no plan documents (the tool-use loop replans call by call): see the failure record before this event and the calls after it';
  else if (before === null)
    d.note =
      e.kind === 'plan' && js(obj(parse(e.body))['trigger']) === 'initial'
        ? 'the first plan of the run'
        : 'no earlier plan is recorded';
  return d;
}

export function eventDetail(db: Database.Database, seq: number): AuditEventDetail {
  const r = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq = ?`).get(seq);
  const e = r === undefined ? undefined : eventOf(r);
  if (e === undefined) throw new BrowseError('not-found', `auditEvent: no event ${seq} in this database`, '$.id');
  const body = parse(e.body);
  const b = obj(body);
  const blobs: Record<string, unknown> = {};
  const blob = (name: string, sha: unknown, json: boolean): void => {
    if (typeof sha !== 'string') return;
    const x = getBlob(db, sha);
    if (x !== undefined) blobs[name] = json ? parse(x.body) : x.body;
  };
  blob('plan', b['plan_sha'], true);
  if (e.kind === 'run_start') {
    blob('spec', b['spec_sha'], false);
    blob('regions', b['regions_sha'], true);
  }
  const detail: AuditEventDetail = { row: rowOf(e), body, prev_hash: e.prev_hash, hash: e.hash, blobs };
  if (e.kind === 'replan' || e.kind === 'plan') detail.plans = plansAround(db, e);
  return detail;
}
