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

/** Something the E-STOP stops: a running mission or tool loop. */
export interface Stoppable {
  /** Whether it is running (or paused, or waiting for a decision) now. */
  readonly active: boolean;
  /** Stops it at once, as an emergency stop, with the reason. */
  estop(reason: string): void;
}

export interface EstopOptions {
  readonly auditLog: () => Promise<AuditLog>;
  readonly operator: () => string;
  /** How the operator reaches the workbench, e.g. "console (web)". */
  readonly via: string;
  readonly publish: (state: EstopState) => void;
  readonly now?: () => number;
}

interface Latch {
  readonly since: number;
  readonly by: string;
  readonly reason: string;
  readonly stopped: string[];
  auditRun: string | null;
  /** Why the E-STOP could not be recorded (it latched all the same). */
  recordError: string | null;
}

export class EmergencyStop {
  private latch: Latch | null = null;
  private readonly activities = new Map<string, Stoppable>();
  /** The audit writes in flight (the E-STOP's record, then its reset's), in order. */
  private recording: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: EstopOptions) {}

  get latched(): boolean {
    return this.latch !== null;
  }

  state(): EstopState {
    const l = this.latch;
    return l === null ? { latched: false } : { latched: true, since: l.since, by: l.by, reason: l.reason, stopped: [...l.stopped], auditRun: l.auditRun, recordError: l.recordError };
  }

  /** Registers a running activity under its id (missions and tool loops call this when they start). */
  register(id: string, s: Stoppable): void {
    this.activities.set(id, s);
  }

  /** Refuses `what` (starting, resuming, retrying) while the E-STOP is latched. */
  assertClear(what: string): void {
    const l = this.latch;
    if (l === null) return;
    throw new WitnessError('estop-latched', `the emergency stop is latched (since ${new Date(l.since).toISOString()}, by ${l.by}): cannot ${what} until an operator resets it`);
  }

  /**
   * Fires: stops every active activity at once, latches, records it. `note` is what the operator had
   * typed (an escalation's reason): it is kept in the stop's reason and in the record.
   */
  fire(note?: string): { stopped: string[] } {
    const by = this.o.operator();
    const extra = note !== undefined && note.trim() !== '' ? ` — operator's note: ${note.trim()}` : '';
    const reason = `emergency stop by the operator${extra}`;
    const stopped = [...this.activities.entries()].filter(([, a]) => a.active).map(([id]) => id);
    for (const id of stopped) this.activities.get(id)!.estop(reason);
    for (const [id, a] of [...this.activities]) if (!a.active) this.activities.delete(id);
    if (this.latch !== null) {
      // Fired again while latched: the latch stands; what it stopped now joins the record.
      this.latch.stopped.push(...stopped);
      const run = this.latch.auditRun;
      if (stopped.length > 0 && run !== null) {
        this.record((log) => log.append(run, 'operator_decision', { decision: 'estop', reason: `${reason} (again, while latched; stopped ${stopped.join(', ')})`, operator: by }).then(() => undefined)).catch((e: unknown) => {
          if (this.latch !== null) this.latch.recordError = e instanceof Error ? e.message : String(e);
        });
      }
      this.o.publish(this.state());
      return { stopped };
    }
    const latch: Latch = { since: (this.o.now ?? Date.now)(), by, reason, stopped, auditRun: null, recordError: null };
    this.latch = latch;
    this.record(async (log) => { await this.open(log, latch); }).then(
      () => { if (this.latch === latch) this.o.publish(this.state()); },
      (e: unknown) => {
        latch.recordError = e instanceof Error ? e.message : String(e);
        if (this.latch === latch) this.o.publish(this.state());
      },
    );
    this.o.publish(this.state());
    return { stopped };
  }

  /**
   * Resets the latch: the operator acknowledges that the robot and its surroundings are safe and
   * says why; both, and who, go to the audit log before the reset takes effect.
   */
  async reset(reason: string, acknowledged: boolean): Promise<EstopState> {
    if (!acknowledged) throw new WitnessError('invalid-params', 'a reset must be acknowledged: the operator confirms that the robot and its surroundings are safe', { path: '$.acknowledged' });
    const l = this.latch;
    if (l === null) throw new WitnessError('conflict', 'the emergency stop is not latched: nothing to reset');
    const why = reason.trim();
    if (why === '') throw new WitnessError('invalid-params', 'a reset needs a reason (what was checked), recorded in the audit log', { path: '$.reason' });
    if ([...this.activities.values()].some((a) => a.active)) throw new WitnessError('busy', 'an activity is still stopping: try the reset again in a moment');
    const by = this.o.operator();
    // Nothing is released before the reset is on record (the E-STOP's own record too, if it had failed).
    await this.record(async (log) => {
      const run = l.auditRun ?? await this.open(log, l);
      await log.append(run, 'operator_decision', { decision: 'estop-reset', reason: why, operator: by });
      await log.append(run, 'run_end', { outcome: 'reset', message: `E-STOP reset by ${by}: ${why}`, replans: 0 });
    });
    if (this.latch === l) this.latch = null;
    this.o.publish(this.state());
    return this.state();
  }

  /** The latch's run in the audit log, opened by the E-STOP's record. */
  private async open(log: AuditLog, l: Latch): Promise<string> {
    const run = await log.startRun({
      world: 'console', backend: 'operator', operator: l.by, software: `witness ${VERSION}`, models: {},
      meta: { kind: 'estop', via: this.o.via, since: new Date(l.since).toISOString(), stopped: l.stopped, events: AUDIT_EVENTS_VERSION },
    });
    await log.append(run, 'operator_decision', { decision: 'estop', reason: `${l.reason}${l.stopped.length > 0 ? ` (stopped ${l.stopped.join(', ')})` : ' (nothing was running)'}`, operator: l.by });
    l.auditRun = run;
    l.recordError = null;
    return run;
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
  }
}
