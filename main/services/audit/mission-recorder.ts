/** A run's evidence into the audit log as batched, non-blocking appends: the tool loop's and missions' hooks. */
import { type AppendOptions, type AuditLog, canonicalJson, sha256 } from './store.js';
import type { AuditEventBody, AuditEventKind } from '../../contract/audit-events.js';
import type { MissionAudit } from '../../core/exec/run-skeleton.js';

/**
 * Appends to one run without making the caller wait: failures are collected (the caller reports
 * them at the end, after a flush), so the control loop never blocks on the log.
 */
export interface AuditSink {
  readonly errors: Error[];
  event<K extends AuditEventKind>(kind: K, body: AuditEventBody<K>, o?: AppendOptions): void;
}

export function auditSink(log: AuditLog, run: string): AuditSink {
  const errors: Error[] = [];
  return {
    errors,
    event(kind, body, o = {}) {
      const failed = (e: unknown): void => void errors.push(e instanceof Error ? e : new Error(String(e)));
      // A body the log cannot take (it throws before it queues) is a failed append like any other.
      try {
        log.append(run, kind, body, o).catch(failed);
      } catch (e) {
        failed(e);
      }
    },
  };
}

/**
 * A plan document's one serialisation (docs/FORMATS.md, "Plans"): canonical JSON, as the audit log
 * stores event bodies (keys sorted, no whitespace). The plan blob is this text, so a plan event's
 * plan_sha is the sha256 of the document served, wherever it is computed.
 */
const planText = (doc: Record<string, unknown>): string => canonicalJson(doc);

/**
 * The sha256 (hex) that names a plan document: what the console shows, `witness run --json` prints and the plan event
 * records.
 */
export const planSha = (doc: Record<string, unknown>): string => sha256(planText(doc));

export interface Recorder extends MissionAudit {
  /** Append failures seen so far (the mission goes on; the caller reports them at the end). */
  readonly errors: Error[];
}

/** A mission's plans (their documents as blobs) and events into one run. */
export function missionRecorder(log: AuditLog, run: string): Recorder {
  const sink = auditSink(log, run);
  return {
    errors: sink.errors,
    plan(t, trigger, doc, planning_ms) {
      try {
        const sha = log.putBlob('plan', planText(doc));
        const cost = (doc['cost'] ?? null) as AuditEventBody<'plan'>['cost'];
        sink.event(
          'plan',
          {
            t,
            trigger,
            plan_sha: sha,
            status: String(doc['status']),
            method: String(doc['method']),
            cost,
            planning_ms,
          },
          { step: t },
        );
      } catch (e) {
        sink.errors.push(e instanceof Error ? e : new Error(String(e)));
      }
    },
    event: (kind, body, o) => sink.event(kind, body, o),
  };
}
