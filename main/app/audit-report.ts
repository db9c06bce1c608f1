/**
 * `witness audit report failures|replans|estops`: the fleet reports, on a fleet store (a PostgreSQL URL) or on a local
 * log (an SQLite file), with the same rows folded the same way (core/audit/report.ts), so either reads the same.
 */
import {
  DEFAULT_REPORT_KEYS,
  EVERY,
  type EstopReport,
  type FailureQuery,
  type FailureReport,
  REPORT_KEYS,
  type ReplanReport,
  parseReportKeys,
} from '../core/audit/report.js';
import { estopsText, failuresText, replansText } from '../core/audit/report-text.js';
import { openAuditReadOnly, auditErrorOf } from '../services/audit/store.js';
import { logEstops, logFailures, logReplans } from '../services/audit/report.js';
import { type ReportName, explainReport, storeEstops, storeFailures, storeReplans } from '../services/fleet/report.js';

export type { EstopReport, FailureQuery, FailureReport, ReplanReport, ReportName };
export {
  DEFAULT_REPORT_KEYS,
  EVERY,
  REPORT_KEYS,
  estopsText,
  explainReport,
  failuresText,
  parseReportKeys,
  replansText,
};

/** Where a report reads: a fleet store's URL, or a local log's file. */
export type ReportTarget = { readonly url: string } | { readonly file: string };

function onLog<T>(file: string, work: (db: ReturnType<typeof openAuditReadOnly>) => T): T {
  const db = openAuditReadOnly(file);
  try {
    return work(db);
  } catch (e) {
    throw auditErrorOf(file, e);
  } finally {
    db.close();
  }
}

export async function reportFailures(t: ReportTarget, q: FailureQuery): Promise<FailureReport> {
  return 'url' in t ? storeFailures(t.url, q) : onLog(t.file, (db) => logFailures(db, q));
}

export async function reportReplans(t: ReportTarget, q: FailureQuery): Promise<ReplanReport> {
  return 'url' in t ? storeReplans(t.url, q.filter) : onLog(t.file, (db) => logReplans(db, q.filter));
}

export async function reportEstops(t: ReportTarget, q: FailureQuery): Promise<EstopReport> {
  return 'url' in t ? storeEstops(t.url, q.filter) : onLog(t.file, (db) => logEstops(db, q.filter));
}
