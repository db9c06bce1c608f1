/** A mission's evidence into the audit log: the MissionAudit hooks as batched, non-blocking appends. */
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { AppendOptions, AuditLog } from './store.js';
import type { EventKind } from './schema.js';
import type { MissionAudit } from '../exec/mission.js';

export interface Recorder extends MissionAudit {
  /** Append failures seen so far (the mission goes on; the caller reports them at the end). */
  readonly errors: Error[];
}

/**
 * Appends to one run without making the caller wait: failures are collected (the caller reports
 * them at the end, after a flush), so the control loop never blocks on the log.
 */
export interface AuditSink {
  readonly errors: Error[];
  event(kind: EventKind, body: unknown, o?: AppendOptions): void;
}

export function auditSink(log: AuditLog, run: string): AuditSink {
  const errors: Error[] = [];
  return {
    errors,
    event(kind, body, o = {}) {
      log.append(run, kind, body, o).catch((e: unknown) => errors.push(e instanceof Error ? e : new Error(String(e))));
    },
  };
}

export function missionRecorder(log: AuditLog, run: string): Recorder {
  const sink = auditSink(log, run);
  return {
    errors: sink.errors,
    plan(t, trigger, doc, planning_ms) {
      try {
        const sha = log.putBlob('plan', JSON.stringify(doc));
        sink.event('plan', { t, trigger, plan_sha: sha, status: doc['status'], method: doc['method'], cost: doc['cost'] ?? null, planning_ms }, { step: t });
      } catch (e) {
        sink.errors.push(e instanceof Error ? e : new Error(String(e)));
      }
    },
    event: (kind, body, o) => sink.event(kind, body, o),
  };
}

/** The workspace's audit database when none is named: $WITNESS_AUDIT, else the user's data folder. */
export function defaultAuditFile(): string {
  const env = process.env['WITNESS_AUDIT'];
  if (env !== undefined && env !== '') return env;
  const base = process.env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share');
  return join(base, 'witness', 'audit.sqlite');
}

export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
