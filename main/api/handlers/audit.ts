/**
 * Audit-browser handlers: read-only connections to audit databases (cached per file, a few at a
 * time), so browsing can never change evidence. Exports go into the workspace's exports/ folder,
 * which both the desktop app and web mode can open.
 */
import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditApi, AuditFilter } from '../contract.js';
import type { ApiContext } from '../context.js';
import { ApiFailure, fail } from '../failure.js';
import { AuditOpenError, AuditReaders, classifyOpenError } from '../../services/audit/readers.js';
import { BrowseError, eventDetail, facets, locate, queryRows, runsOf } from '../../services/audit/browse.js';
import { replayRun } from '../../services/audit/replay.js';
import { verifyChain } from '../../services/audit/forensics.js';
import { exportAudit } from '../../services/audit/export.js';
import { openAuditReadOnly } from '../../services/audit/store.js';

/** Open audit databases kept at once (the session's own and a few the operator opened). */
const MAX_OPEN = 4;

/** Failures of the audit services as ApiErrors: a code the UI can act on, the file in `path`. */
function apiError(e: unknown): Error {
  if (e instanceof AuditOpenError) return fail(e.code, e.message, { path: e.file });
  if (e instanceof BrowseError) return fail(e.code, e.message, e.path !== undefined ? { path: e.path } : {});
  return e instanceof Error ? e : new Error(String(e));
}

export interface AuditHandlers {
  api: AuditApi;
  /** Connections open now (tests check the bound). */
  openConnections(): number;
  close(): Promise<void>;
}

export function auditHandlers(ctx: ApiContext): AuditHandlers {
  const readers = new AuditReaders(MAX_OPEN);
  /** The database a request names: the session's by default; `~/…` and workspace-relative paths too. */
  const fileOf = (file: string | undefined): string => {
    if (file === undefined) return ctx.auditFile;
    if (file.includes('\0')) throw fail('invalid-params', 'file: a path may not contain NUL', { path: '$.file' });
    const f = file === '~' || file.startsWith('~/') ? path.join(os.homedir(), file.slice(1)) : file;
    return path.resolve(ctx.workspace, f);
  };
  /** Runs `work` on a read-only connection to the request's database, mapping failures to ApiErrors. */
  const withDb = <T>(file: string | undefined, work: (db: ReturnType<AuditReaders['get']>, f: string) => T): Promise<T> => {
    try {
      const f = fileOf(file);
      return Promise.resolve(work(readers.get(f), f));
    } catch (e) {
      return Promise.reject(apiError(e));
    }
  };
  const runOf = (db: ReturnType<AuditReaders['get']>, run: string): ReturnType<typeof runsOf>[number] => {
    const r = runsOf(db).find((x) => x.id === run);
    if (r === undefined) throw fail('not-found', `no run ${run} in this database`, { path: '$.run' });
    return r;
  };
  const filterOf = (f: AuditFilter | undefined): AuditFilter => {
    if (typeof f !== 'object' || f === null) throw fail('invalid-params', 'filter: expected an object', { path: '$.filter' });
    if (f.fromMs !== undefined && f.toMs !== undefined && f.fromMs > f.toMs) throw fail('invalid-params', 'filter: the time window ends before it starts (fromMs > toMs)', { path: '$.filter.toMs' });
    return f;
  };

  const api: AuditApi = {
    auditRuns({ file }) {
      const f = (() => {
        try {
          return fileOf(file);
        } catch (e) {
          return e as ApiFailure;
        }
      })();
      if (f instanceof ApiFailure) return Promise.reject(f);
      if (file === undefined) {
        // A fresh machine has no audit database until its first mission: an empty list, not an error.
        try {
          statSync(f);
        } catch {
          return Promise.resolve({ file: f, exists: false, runs: [], message: `no audit database yet at ${f}: missions record their runs there` });
        }
      }
      return withDb(file, (db) => {
        const runs = runsOf(db);
        return { file: f, exists: true, runs, ...(runs.length === 0 ? { message: `${f} holds no runs yet` } : {}) };
      });
    },
    auditFacets: ({ file, run }) => withDb(file, (db) => {
      runOf(db, run);
      return facets(db, run);
    }),
    auditQuery: ({ file, filter, cursor, offset, limit }) => withDb(file, (db) => queryRows(db, filterOf(filter), {
      ...(cursor !== undefined ? { cursor } : {}), ...(offset !== undefined ? { offset } : {}), limit: Math.max(1, Math.min(5000, Math.floor(limit))),
    })),
    auditLocate: ({ file, filter, step, tMs }) => withDb(file, (db) => locate(db, filterOf(filter) as AuditFilter & { run: string }, {
      ...(step !== undefined ? { step } : {}), ...(tMs !== undefined ? { tMs } : {}),
    })),
    auditEvent: ({ file, id }) => withDb(file, (db) => eventDetail(db, id)),
    auditReplay: ({ file, run, maxPositions }) => withDb(file, (db) => replayRun(db, runOf(db, run), maxPositions)),
    auditVerify: ({ file }) => withDb(file, (db, f) => {
      const r = verifyChain(db);
      return { file: f, ok: r.ok, events: r.events, blobs: r.blobs, head: r.head, integrity: r.integrity, chain_ms: r.chain_ms, ...(r.firstBad ? { firstBad: r.firstBad } : {}) };
    }),
    async auditExport({ file, run, format }) {
      const f = await withDb(file, (db, f) => {
        if (run !== undefined) runOf(db, run);
        return f;
      });
      if (!['jsonl', 'csv', 'mcap'].includes(format)) throw fail('invalid-params', `format: expected jsonl, csv or mcap, got ${JSON.stringify(format)}`, { path: '$.format' });
      const dir = path.join(ctx.workspace, 'exports');
      mkdirSync(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
      const base = `${path.basename(f).replace(/\.[^.]*$/, '')}-${run !== undefined ? run.slice(0, 8) : 'all'}-${stamp}`;
      let out = path.join(dir, `${base}.${format}`);
      for (let k = 2; exists(out); k++) out = path.join(dir, `${base}-${k}.${format}`);
      // Its own connection: an MCAP export awaits between rows, and the shared ones may be closed meanwhile.
      let db;
      try {
        db = openAuditReadOnly(f);
      } catch (e) {
        throw apiError(classifyOpenError(f, e));
      }
      try {
        const summary = await exportAudit(db, format, out, run);
        return { path: out, bytes: statSync(out).size, format, summary };
      } finally {
        db.close();
      }
    },
  };
  return {
    api,
    openConnections: () => readers.open,
    close: () => {
      readers.close();
      return Promise.resolve();
    },
  };
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
