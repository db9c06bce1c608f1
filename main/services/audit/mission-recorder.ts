/** A mission's evidence into the audit log: the MissionAudit hooks as batched, non-blocking appends. */
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { AuditLog } from './store.js';
import type { MissionAudit } from '../exec/mission.js';

export interface Recorder extends MissionAudit {
  /** Append failures seen so far (the mission goes on; the caller reports them at the end). */
  readonly errors: Error[];
}

export function missionRecorder(log: AuditLog, run: string): Recorder {
  const errors: Error[] = [];
  const keep = (p: Promise<unknown>): void => {
    p.catch((e: unknown) => errors.push(e instanceof Error ? e : new Error(String(e))));
  };
  return {
    errors,
    plan(t, trigger, doc, planning_ms) {
      try {
        const sha = log.putBlob('plan', JSON.stringify(doc));
        keep(log.append(run, 'plan', { t, trigger, plan_sha: sha, status: doc['status'], method: doc['method'], cost: doc['cost'] ?? null, planning_ms }, { step: t }));
      } catch (e) {
        errors.push(e instanceof Error ? e : new Error(String(e)));
      }
    },
    event(kind, body, o = {}) {
      keep(log.append(run, kind, body, o));
    },
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
