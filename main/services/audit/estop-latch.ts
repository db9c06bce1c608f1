/**
 * The E-STOP latch as the audit log holds it: a latch is a run of the console's operator (meta kind
 * "estop") opened by the E-STOP's decision and closed by its reset's run end. A run with no end is a
 * latch no one has released — the workbench stopped (a crash, a restart) while it held. Read
 * read-only, at start, so a workbench comes up latched exactly when its record says it should.
 */
import type Database from 'better-sqlite3';
import { openAuditReadOnly } from './store.js';
import { EVENT_COLUMNS, RUN_COLUMNS, eventOf, jsonOr } from './rows.js';

/** A latch the audit log records as never reset. */
export interface OpenLatchRecord {
  readonly run: string;
  readonly since: number;
  readonly by: string;
  readonly reason: string;
  readonly stopped: readonly string[];
}

interface LatchRow {
  id: unknown;
  started_ms: unknown;
  operator: unknown;
  meta: unknown;
}

/** The latest latch run without a run end (null: every latch was reset). */
function openLatch(db: Database.Database): OpenLatchRecord | null {
  // Every value within its size limit (rows.ts): a hostile log cannot make the start of a workbench load gigabytes.
  const rows = db
    .prepare(
      `
    SELECT ${RUN_COLUMNS} FROM runs
    WHERE world = 'console' AND backend = 'operator'
      AND NOT EXISTS (SELECT 1 FROM events e WHERE e.run_id = runs.id AND e.kind = 'run_end')
    ORDER BY started_ms DESC`,
    )
    .all() as LatchRow[];
  for (const r of rows) {
    if (typeof r.id !== 'string') continue;
    const meta = jsonOr<{ kind?: unknown; since?: unknown; stopped?: unknown }>(r.meta, {});
    if (meta.kind !== 'estop') continue;
    const decision = db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind = 'operator_decision' ORDER BY seq LIMIT 1`,
      )
      .get(r.id);
    const reason = decision === undefined ? null : jsonOr<{ reason?: unknown }>(eventOf(decision).body, {}).reason;
    const since = typeof meta.since === 'string' ? Date.parse(meta.since) : NaN;
    return {
      run: r.id,
      since: Number.isFinite(since) ? since : typeof r.started_ms === 'number' ? r.started_ms : Date.now(),
      by: typeof r.operator === 'string' ? r.operator : 'unknown',
      reason: typeof reason === 'string' ? reason : 'emergency stop by the operator',
      stopped: Array.isArray(meta.stopped) ? meta.stopped.filter((s): s is string => typeof s === 'string') : [],
    };
  }
  return null;
}

/** Whether the audit log records `run` as ended (a latch whose reset was written). */
function ended(db: Database.Database, run: string): boolean {
  return db.prepare("SELECT 1 FROM events WHERE run_id = ? AND kind = 'run_end' LIMIT 1").get(run) !== undefined;
}

/**
 * What the audit log at `file` says of the latch: the latch still open, and whether `run` (the one a
 * workspace's latch file names) was reset. A log that does not exist yet holds no latch.
 */
export function latchInAuditLog(file: string, run: string | null): { open: OpenLatchRecord | null; runEnded: boolean } {
  const db = openAuditReadOnly(file);
  try {
    return { open: openLatch(db), runEnded: run !== null && ended(db, run) };
  } finally {
    db.close();
  }
}
