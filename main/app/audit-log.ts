/**
 * The audit log as the workflows write to it: opened for appending (created when missing), settled
 * after a run (every append committed, a failed one reported), and the database a front end's
 * `--audit` flag names.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import type { AuditLog } from '../services/audit/store.js';
import { defaultAuditFile } from '../platform/paths.js';
import { folderFailure } from '../platform/files.js';

/** Opens (creating its folder and the database when missing) an audit log for appending. */
export async function openAuditLog(file: string, o: { busyTimeout_ms?: number } = {}): Promise<AuditLog> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true }).catch((e: unknown) => {
    throw folderFailure(file, e);
  });
  // Loaded here, not at the top: a front end that only names the database (`--audit`) loads no SQLite.
  const { AuditLog } = await import('../services/audit/store.js');
  return AuditLog.open(file, o);
}

/**
 * Waits until the audit log holds everything appended, and reports an append that failed, with its
 * code (a log that did not keep what was appended is `tampered`; an event too large `too-large`).
 */
export async function settleAudit(
  log: AuditLog,
  runs: readonly { readonly errors: readonly Error[] }[] = [],
): Promise<void> {
  await log.flush();
  const failed = runs.find((r) => r.errors.length > 0)?.errors[0];
  if (failed === undefined) return;
  const code = failed instanceof WitnessError && failed.code !== 'internal' ? failed.code : 'invalid-input';
  const text = failed.message.startsWith(`${log.file}: `) ? failed.message : `${log.file}: ${failed.message}`;
  throw new WitnessError(code, `audit log ${text}`, { file: log.file }, { cause: failed });
}

/**
 * The database an `--audit` flag names: a file, true for the default one ($WITNESS_AUDIT, else the user's), false for
 * none.
 */
export function auditFileOf(audit: string | boolean): string | null {
  return audit === false ? null : typeof audit === 'string' ? audit : defaultAuditFile();
}
