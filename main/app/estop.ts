/**
 * The console's emergency stop as a latch: once fired, nothing the console runs can start, resume or
 * be retried until an operator resets it with an explicit acknowledgement and a reason. Firing stops
 * every registered activity (missions, tool loops) at once. Each latch is one run in the audit log:
 * the E-STOP (who, why, what it stopped) opens it, the reset (who, why) closes it — so the record
 * says how long the robot stood latched and who released it.
 */
import { WitnessError } from '../contract/errors.js';
import { AUDIT_EVENTS_VERSION } from '../contract/audit-events.js';
import type { EstopState } from '../contract/api.js';
import { VERSION } from '../contract/version.js';
import type { AuditLog } from '../services/audit/store.js';
import { reasonProblem } from '../contract/reason.js';
import type { LatchStore } from './estop-latch.js';

/** Something the E-STOP stops: a running mission or tool loop. */
export interface Stoppable {
  /** Whether it is running (or paused, or waiting for a decision) now. */
  readonly active: boolean;
  /** Stops it at once, as an emergency stop, with the reason. */
  estop(reason: string): void;
  /** Its run in the audit log, once that is written (null: it ended before it was recorded). */
  readonly auditRun: Promise<string | null>;
}

/** How long the E-STOP's record waits for a run it stopped to be written to the audit log, at most. */
const AUDIT_RUN_WAIT_MS = 5000;

export interface EstopOptions {
  readonly auditLog: () => Promise<AuditLog>;
  /** How long the record waits for a stopped run's audit run (default AUDIT_RUN_WAIT_MS). */
  readonly auditRunWait_ms?: number;
  readonly operator: () => string;
  /** How the operator reaches the workbench, e.g. "console (web)". */
  readonly via: string;
  readonly publish: (state: EstopState) => void;
  readonly now?: () => number;
  /**
   * Where the latch is kept across a crash or restart (app/estop-latch.ts): restored when the E-STOP
   * is made, saved the moment it fires, cleared once a reset is on record. Without it the latch
   * lives as long as the process.
   */
  readonly durable?: LatchStore;
  /** Told what restoring the latch found that an operator should know (an unreadable record). */
  readonly warn?: (line: string) => void;
}

interface Latch {
  readonly since: number;
  readonly by: string;
  readonly reason: string;
  /** The audit runs it stopped. */
  readonly stopped: string[];
  /** Activities it stopped that were never recorded in the audit log (the console's own run ids). */
  readonly unrecorded: string[];
  auditRun: string | null;
  /** Why the E-STOP could not be recorded (it latched all the same). */
  recordError: string | null;
  /** Restored at start: the workbench stopped while it was latched. */
  readonly restored?: true;
}

export class EmergencyStop {
  private latch: Latch | null = null;
  private readonly activities = new Map<string, Stoppable>();
  /** The audit writes in flight (the E-STOP's record, then its reset's), in order. */
  private recording: Promise<unknown> = Promise.resolve();
  /** The durable copy's writes in flight, in order (a clear never overtakes a save). */
  private keeping: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: EstopOptions) {
    if (o.durable === undefined) return;
    const { latch, notes } = o.durable.restore();
    for (const n of notes) o.warn?.(n);
    if (latch !== null) {
      this.latch = {
        since: latch.since,
        by: latch.by,
        reason: latch.reason,
        stopped: [...latch.stopped],
        unrecorded: [],
        auditRun: latch.auditRun,
        recordError: null,
        restored: true,
      };
      o.warn?.(
        `the emergency stop is latched (since ${new Date(latch.since).toISOString()}, by ${latch.by}): the workbench stopped while it was latched; nothing runs until an operator resets it`,
      );
    }
  }

  get latched(): boolean {
    return this.latch !== null;
  }

  state(): EstopState {
    const l = this.latch;
    return l === null
      ? { latched: false }
      : {
          latched: true,
          since: l.since,
          by: l.by,
          reason: l.reason,
          stopped: [...l.stopped],
          auditRun: l.auditRun,
          recordError: l.recordError,
          ...(l.restored === true ? { restored: true } : {}),
        };
  }

  /** Registers a running activity under its id (missions and tool loops call this when they start). */
  register(id: string, s: Stoppable): void {
    this.activities.set(id, s);
  }

  /** Refuses `what` (starting, resuming, retrying) while the E-STOP is latched. */
  assertClear(what: string): void {
    const l = this.latch;
    if (l === null) return;
    throw new WitnessError(
      'estop-latched',
      `the emergency stop is latched (since ${new Date(l.since).toISOString()}, by ${l.by}): cannot ${what} until an operator resets it`,
    );
  }

  /**
   * Fires: stops every active activity at once, latches, records it. `note` is what the operator had
   * typed (an escalation's reason): it is kept in the stop's reason and in the record. The stop and
   * the latch take effect before this returns; the promise resolves to the audit runs it stopped once
   * they are known (a run stopped while it was being recorded is named once it is), and the record
   * follows.
   */
  fire(note?: string): Promise<{ stopped: string[] }> {
    const by = this.o.operator();
    const extra = note !== undefined && note.trim() !== '' ? ` — operator's note: ${note.trim()}` : '';
    const reason = `emergency stop by the operator${extra}`;
    const hit = [...this.activities.entries()].filter(([, a]) => a.active);
    for (const [, a] of hit) a.estop(reason);
    for (const [id, a] of [...this.activities]) if (!a.active) this.activities.delete(id);
    const known = this.auditRuns(hit);
    const latch: Latch = this.latch ?? {
      since: (this.o.now ?? Date.now)(),
      by,
      reason,
      stopped: [],
      unrecorded: [],
      auditRun: null,
      recordError: null,
    };
    const again = this.latch !== null;
    this.latch = latch;
    this.o.publish(this.state());
    // Kept durably at once (a small atomic write): the answer waits for it, so a latch that was
    // answered survives a crash right after.
    const kept = again ? Promise.resolve() : this.keep(latch);
    // What it stopped joins the latch as soon as the audit runs are known (before the record is written).
    const named = known.then((k) => {
      latch.stopped.push(...k.stopped);
      latch.unrecorded.push(...k.unrecorded);
      if (this.latch === latch && hit.length > 0) {
        void this.keep(latch);
        this.o.publish(this.state());
      }
      return k;
    });
    // The record names them: it waits (briefly) for runs still being recorded. Fired again while
    // latched, the latch stands and what it stopped now joins its record.
    if (!again || hit.length > 0) {
      this.record(async (log) => {
        const { stopped, unrecorded } = await named;
        if (!again) await this.open(log, latch);
        else if (latch.auditRun !== null)
          await log.append(latch.auditRun, 'operator_decision', {
            decision: 'estop',
            reason: `${reason} (again, while latched; ${stoppedText(stopped, unrecorded)})`,
            operator: by,
          });
      }).then(
        () => {
          if (this.latch !== latch) return;
          void this.keep(latch);
          this.o.publish(this.state());
        },
        (e: unknown) => {
          latch.recordError = e instanceof Error ? e.message : String(e);
          if (this.latch === latch) this.o.publish(this.state());
        },
      );
    }
    return Promise.all([named, kept]).then(([k]) => ({ stopped: k.stopped }));
  }

  /** The audit runs of the activities `hit`, as they become known; those never recorded (or not in time) apart. */
  private async auditRuns(hit: [string, Stoppable][]): Promise<{ stopped: string[]; unrecorded: string[] }> {
    const wait = this.o.auditRunWait_ms ?? AUDIT_RUN_WAIT_MS;
    const ids = await Promise.all(
      hit.map(([, a]) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), wait);
        });
        return Promise.race([a.auditRun.catch(() => null), late]).finally(() => clearTimeout(timer));
      }),
    );
    return {
      stopped: ids.filter((id): id is string => id !== null),
      unrecorded: hit.filter((_, i) => ids[i] === null).map(([id]) => id),
    };
  }

  /**
   * Resets the latch: the operator acknowledges that the robot and its surroundings are safe and
   * says why; both, and who, go to the audit log before the reset takes effect.
   */
  async reset(reason: string, acknowledged: boolean): Promise<EstopState> {
    if (!acknowledged)
      throw new WitnessError(
        'invalid-params',
        'a reset must be acknowledged: the operator confirms that the robot and its surroundings are safe',
        { path: '$.acknowledged' },
      );
    const l = this.latch;
    if (l === null) throw new WitnessError('conflict', 'the emergency stop is not latched: nothing to reset');
    const why = reason.trim();
    const problem = reasonProblem(why);
    if (problem !== null)
      throw new WitnessError(
        'invalid-params',
        `a reset needs a reason (what was checked), recorded in the audit log: this one ${problem}`,
        { path: '$.reason' },
      );
    if ([...this.activities.values()].some((a) => a.active))
      throw new WitnessError('busy', 'an activity is still stopping: try the reset again in a moment');
    const by = this.o.operator();
    // Nothing is released before the reset is on record (the E-STOP's own record too, if it had failed).
    await this.record(async (log) => {
      const run = l.auditRun ?? (await this.open(log, l));
      await log.append(run, 'operator_decision', { decision: 'estop-reset', reason: why, operator: by });
      await log.append(run, 'run_end', { outcome: 'reset', message: `E-STOP reset by ${by}: ${why}`, replans: 0 });
      await log.flush();
    });
    // The reset is on record: the durable copy goes (a failure to remove it is harmless, the record says reset).
    await this.keepDurably((d) => d.clear()).catch((e: unknown) =>
      this.o.warn?.(
        `the workspace's latch file could not be removed (${e instanceof Error ? e.message : String(e)}); the audit log records the reset`,
      ),
    );
    if (this.latch === l) this.latch = null;
    this.o.publish(this.state());
    return this.state();
  }

  /** The latch's run in the audit log, opened by the E-STOP's record. */
  private async open(log: AuditLog, l: Latch): Promise<string> {
    const run = await log.startRun({
      world: 'console',
      backend: 'operator',
      operator: l.by,
      software: `witness ${VERSION}`,
      models: {},
      meta: {
        kind: 'estop',
        via: this.o.via,
        since: new Date(l.since).toISOString(),
        stopped: [...l.stopped],
        ...(l.unrecorded.length > 0 ? { unrecorded: [...l.unrecorded] } : {}),
        events: AUDIT_EVENTS_VERSION,
      },
    });
    await log.append(run, 'operator_decision', {
      decision: 'estop',
      reason: `${l.reason} (${stoppedText(l.stopped, l.unrecorded)})`,
      operator: l.by,
    });
    l.auditRun = run;
    l.recordError = null;
    return run;
  }

  /** Saves `l` durably (after the writes before it); a failure is shown on the latch, which holds all the same. */
  private keep(l: Latch): Promise<void> {
    const copy = { since: l.since, by: l.by, reason: l.reason, stopped: [...l.stopped], auditRun: l.auditRun };
    return this.keepDurably((d) => d.save(copy)).catch((e: unknown) => {
      l.recordError ??= `the workspace's latch file could not be written: ${e instanceof Error ? e.message : String(e)}`;
      if (this.latch === l) this.o.publish(this.state());
    });
  }

  private keepDurably(work: (d: LatchStore) => Promise<void>): Promise<void> {
    const d = this.o.durable;
    if (d === undefined) return Promise.resolve();
    const next = this.keeping.then(() => work(d));
    this.keeping = next.catch(() => undefined);
    return next;
  }

  /** Runs audit writes one after another; a failed write is reported, and a reset waits for it. */
  private record(work: (log: AuditLog) => Promise<void>): Promise<void> {
    const next = this.recording.then(async () => work(await this.o.auditLog()));
    this.recording = next.catch(() => undefined);
    return next;
  }

  /** Waits for the audit writes in flight. */
  async settled(): Promise<void> {
    await this.recording;
    await this.keeping;
  }
}

/** What an E-STOP stopped, in its record's words: the audit runs, and any run that never reached the log. */
function stoppedText(stopped: readonly string[], unrecorded: readonly string[]): string {
  if (stopped.length === 0 && unrecorded.length === 0) return 'nothing was running';
  const parts: string[] = [];
  if (stopped.length > 0) parts.push(`stopped audit run${stopped.length === 1 ? '' : 's'} ${stopped.join(', ')}`);
  if (unrecorded.length > 0)
    parts.push(
      `stopped ${unrecorded.length} run${unrecorded.length === 1 ? '' : 's'} not recorded in the audit log (console run${unrecorded.length === 1 ? '' : 's'} ${unrecorded.join(', ')})`,
    );
  return parts.join('; ');
}
