/**
 * Audit forensics: list runs, show one, query events (paged, or following new ones), verify the hash
 * chain, export (JSON Lines, CSV, MCAP) — for `witness audit …` — and the audit browser of the UI
 * (runs, facets, a paged table, an event's detail, a run's replay, verification, exports into the
 * workspace). Databases are always opened read-only: forensics never changes evidence.
 */
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import type { AuditApi, AuditExportFormat, AuditFilter, AuditReplay } from '../contract/api.js';
import {
  AuditError,
  type EventRow,
  type ReadOnlyOptions,
  auditErrorOf,
  isSqliteFile,
  openAuditReadOnly,
} from '../services/audit/store.js';
import {
  type EventQuery,
  INTEGRITY_NOT_CHECKED,
  type RunSummary,
  type VerifyResult,
  getBlob,
  queryEvents,
  queryPage,
  verifyChain,
} from '../services/audit/forensics.js';
import { type RunOrder, listRuns, runPage, runsByPrefix } from '../services/audit/runs.js';
import { bodyOf } from '../services/audit/rows.js';
import { exportAudit } from '../services/audit/export.js';
import { AuditReaders, openReader } from '../services/audit/readers.js';
import { eventDetail, facets, headOf, locate, queryRows, runOf, runsPage } from '../services/audit/browse.js';
import { AUDIT_RUNS_PAGE } from '../contract/api/audit.js';
import { replayRun } from '../services/audit/replay.js';
import { resolveUserPath } from '../platform/paths.js';
import { notWritable } from '../platform/files.js';

export type { EventQuery, EventRow, RunSummary, VerifyResult };
export { INTEGRITY_NOT_CHECKED };

/**
 * Runs `work` on a read-only connection to `file`, closed afterwards. A failure of SQLite on the way
 * (corrupt pages found while reading, an I/O error) is an AuditError naming the file.
 */
function withDb<T>(file: string, work: (db: ReturnType<typeof openAuditReadOnly>) => T, o: ReadOnlyOptions = {}): T {
  const db = openAuditReadOnly(file, o);
  try {
    return work(db);
  } catch (e) {
    throw auditErrorOf(file, e);
  } finally {
    db.close();
  }
}

async function withDbAsync<T>(
  file: string,
  work: (db: ReturnType<typeof openAuditReadOnly>) => Promise<T>,
): Promise<T> {
  const db = openAuditReadOnly(file);
  try {
    return await work(db);
  } catch (e) {
    throw auditErrorOf(file, e);
  } finally {
    db.close();
  }
}

/** Every run of a database, oldest first (the whole list: `witness audit ls` pages with auditRunPages). */
export function auditRuns(file: string): RunSummary[] {
  return withDb(file, (db) => listRuns(db));
}

/**
 * The runs of a database, `size` at a time, oldest first: the first page comes back after reading
 * that page only (runs.ts), and the event loop gets a turn between pages (Ctrl-C, a closed pipe).
 */
export async function* auditRunPages(file: string, size = 1000, order: RunOrder = 'asc'): AsyncGenerator<RunSummary[]> {
  const db = openAuditReadOnly(file);
  try {
    let cursor: string | null = null;
    do {
      const page: ReturnType<typeof runPage> = runPage(db, { order, cursor, limit: size });
      if (page.runs.length > 0) yield page.runs;
      cursor = page.next;
      if (cursor !== null) await new Promise((r) => setImmediate(r));
    } while (cursor !== null);
  } catch (e) {
    throw auditErrorOf(file, e);
  } finally {
    db.close();
  }
}

/**
 * An event as the JSON outputs print it: its body parsed (a body that is not JSON, or nested too deep, is an error
 * naming the file and the event).
 */
export function eventJson(file: string, e: EventRow): Omit<EventRow, 'body'> & { body: unknown } {
  try {
    return { ...e, body: bodyOf(e) };
  } catch (err) {
    throw auditErrorOf(file, err);
  }
}

/** One run (by id or a unique prefix): its metadata, specification and first `limit` events. */
export function auditRun(
  file: string,
  run: string,
  limit: number,
): { run: RunSummary; spec: string | null; events: EventRow[] } {
  return withDb(file, (db) => {
    const r = runByPrefix(db, file, run);
    const spec = r.spec_sha ? (getBlob(db, r.spec_sha)?.body ?? null) : null;
    return { run: r, spec, events: queryEvents(db, { run: r.id, limit }) };
  });
}

/** The one run whose id is or starts with `run`: not found, or more than one, is an error naming the file. */
function runByPrefix(db: ReturnType<typeof openAuditReadOnly>, file: string, run: string): RunSummary {
  const matches = runsByPrefix(db, run, 2);
  if (matches.length !== 1)
    throw new WitnessError(
      matches.length === 0 ? 'not-found' : 'invalid-input',
      matches.length === 0
        ? `${file}: no run ${run}`
        : `${file}: ${run} matches more than one run; give more of the id`,
      { file },
    );
  return matches[0]!;
}

/**
 * One run's replay (by id or a unique prefix, as `auditRun`): what the console's replay receives (replay.ts), at most
 * `maxPositions` robot positions.
 */
export function auditReplay(file: string, run: string, maxPositions?: number): AuditReplay {
  return withDb(file, (db) => {
    const id = runByPrefix(db, file, run).id;
    const r = runOf(db, id);
    if (r === undefined) throw new WitnessError('not-found', `${file}: no run ${run}`, { file });
    return replayRun(db, r, maxPositions);
  });
}

/**
 * Events matching the query, page by page from `after`; with `follow`, keeps polling for new ones
 * until `stop` says so. `page` gets every page; `incomplete` is told where a text search stopped early.
 */
export async function auditQuery(
  file: string,
  q: EventQuery,
  o: {
    after?: number;
    follow?: boolean;
    page: (rows: readonly EventRow[]) => void;
    incomplete?: (next: number) => void;
    stop?: () => boolean;
  },
): Promise<void> {
  const db = openAuditReadOnly(file);
  try {
    let after = o.after;
    for (;;) {
      const page = queryPage(db, { ...q, ...(after !== undefined ? { after } : {}) });
      o.page(page.rows);
      if (page.next !== null) after = page.next;
      if (o.follow !== true) {
        if (!page.complete && page.next !== null) o.incomplete?.(page.next);
        return;
      }
      if (o.stop?.() === true) return;
      if (page.complete && page.rows.length < (q.limit ?? Infinity)) await new Promise((r) => setTimeout(r, 500));
    }
  } catch (e) {
    throw auditErrorOf(file, e);
  } finally {
    db.close();
  }
}

/**
 * Verifies the schema, the chain and everything held against it (a schema that is not Witness's is
 * a verdict, reported, not refused). Damaged pages (SQLite's quick_check) are not a verdict on the
 * chain: the file is corrupt, an AuditError naming it.
 */
export function auditVerify(file: string): VerifyResult & { chain_ms: number; integrity_ms: number } {
  const r = withDb(file, (db) => verifyChain(db), { foreignSchema: 'report' });
  if (r.integrity !== 'ok' && r.integrity !== INTEGRITY_NOT_CHECKED)
    throw new AuditError(
      file,
      `the database is corrupt (SQLite quick_check: ${r.integrity.split('\n').slice(0, 3).join('; ')}); the chain cannot be verified on damaged pages`,
      'corrupt',
    );
  return r;
}

const identity = (p: string): { dev: number; ino: number } | null => {
  try {
    const st = statSync(p);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return null;
  }
};

/**
 * Refuses an export target that would destroy evidence: the database itself (by identity, so
 * `./A.sqlite`, a hard link or a symbolic link to it too), its WAL, shared-memory or journal file,
 * any existing SQLite database, a folder, or anything else that is not a regular file (a device node,
 * a FIFO, a socket, or a symbolic link to one).
 */
export function checkExportTarget(file: string, out: string): void {
  const refuse = (why: string): never => {
    throw new WitnessError('conflict', `--out ${out}: ${why}; nothing was written (choose a new file name)`, {
      file: out,
      path: '--out',
    });
  };
  const target = identity(out);
  let st;
  try {
    st = statSync(out);
  } catch {
    st = null;
  }
  if (st?.isDirectory() === true) refuse('is a folder, not a file to write');
  const special = notWritable(out);
  if (special !== null) {
    throw new WitnessError(
      'not-a-file',
      `--out ${out}: ${special}, not a regular file; an export is written only to a regular file or a new name, and never replaces a device, a FIFO or a socket; nothing was written`,
      { file: out, path: '--out' },
    );
  }
  const input = identity(file);
  if (target !== null && input !== null && target.dev === input.dev && target.ino === input.ino)
    refuse(`is the audit database ${file} itself (the same file); exporting would overwrite the evidence`);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    real = path.resolve(file);
  }
  let outReal: string;
  try {
    outReal = path.join(realpathSync(path.dirname(path.resolve(out))), path.basename(out));
  } catch {
    outReal = path.resolve(out);
  }
  for (const side of ['-wal', '-shm', '-journal']) {
    const companion = identity(`${file}${side}`);
    if (
      outReal === `${real}${side}` ||
      (target !== null && companion !== null && target.dev === companion.dev && target.ino === companion.ino)
    ) {
      refuse(`is the ${side.slice(1)} file of the audit database ${file}; writing it would damage the evidence`);
    }
  }
  if (target !== null && isSqliteFile(out))
    refuse('is an existing SQLite database; an export never overwrites a database');
}

/** Exports every event (or one run's) as JSON Lines, CSV or MCAP; returns what it wrote, in words. */
export function auditExport(file: string, format: AuditExportFormat, out: string, run?: string): Promise<string> {
  checkExportTarget(file, out);
  return withDbAsync(file, (db) => exportAudit(db, format, out, run));
}

/** Open audit databases the browser keeps at once (the session's own and a few the operator opened). */
const MAX_OPEN = 4;

/**
 * The UI's audit browser over read-only connections (cached per file, a few at a time). Exports go
 * into the workspace's exports/ folder, which both the desktop app and web mode can open.
 */
export class AuditBrowser {
  private readonly readers = new AuditReaders(MAX_OPEN);

  constructor(private readonly session: { readonly auditFile: string; readonly workspace: string }) {}

  /** Connections open now (tests check the bound). */
  get openConnections(): number {
    return this.readers.open;
  }

  /** The database a request names: the session's by default; `~/…` and workspace-relative paths too. */
  private fileOf(file: string | undefined): string {
    if (file === undefined) return this.session.auditFile;
    if (file.includes('\0'))
      throw new WitnessError('invalid-params', 'file: a path may not contain NUL', { path: '$.file' });
    return resolveUserPath(file, this.session.workspace);
  }

  private withDb<T>(file: string | undefined, work: (db: ReturnType<AuditReaders['get']>, f: string) => T): T {
    const f = this.fileOf(file);
    const db = this.readers.get(f);
    try {
      return work(db, f);
    } catch (e) {
      throw auditErrorOf(f, e);
    }
  }

  private runOf(db: ReturnType<AuditReaders['get']>, run: string): NonNullable<ReturnType<typeof runOf>> {
    const r = runOf(db, run);
    if (r === undefined) throw new WitnessError('not-found', `no run ${run} in this database`, { path: '$.run' });
    return r;
  }

  /** Its own read-only connection, closed afterwards: for the reads that walk or copy a whole log. */
  private async withOwnDb<T>(
    file: string | undefined,
    work: (db: ReturnType<typeof openAuditReadOnly>, f: string) => Promise<T> | T,
    o: ReadOnlyOptions = {},
  ): Promise<T> {
    const f = this.fileOf(file);
    const db = openReader(f, o);
    try {
      return await work(db, f);
    } catch (e) {
      throw auditErrorOf(f, e);
    } finally {
      db.close();
    }
  }

  private static filterOf(f: AuditFilter | undefined): AuditFilter {
    if (typeof f !== 'object' || f === null)
      throw new WitnessError('invalid-params', 'filter: expected an object', { path: '$.filter' });
    if (f.fromMs !== undefined && f.toMs !== undefined && f.fromMs > f.toMs)
      throw new WitnessError('invalid-params', 'filter: the time window ends before it starts (fromMs > toMs)', {
        path: '$.filter.toMs',
      });
    return f;
  }

  runs({ file, cursor, limit }: Parameters<AuditApi['auditRuns']>[0]): Awaited<ReturnType<AuditApi['auditRuns']>> {
    const f = this.fileOf(file);
    if (file === undefined) {
      // A fresh machine has no audit database until its first mission: an empty list, not an error.
      try {
        statSync(f);
      } catch {
        return {
          file: f,
          exists: false,
          runs: [],
          next: null,
          message: `no audit database yet at ${f}: missions record their runs there`,
        };
      }
    }
    return this.withDb(file, (db) => {
      const page = runsPage(db, {
        ...(cursor != null ? { cursor } : {}),
        limit: Math.max(1, Math.min(1000, Math.floor(limit ?? AUDIT_RUNS_PAGE))),
      });
      return {
        file: f,
        exists: true,
        runs: page.runs,
        next: page.next,
        ...(page.runs.length === 0 && cursor == null ? { message: `${f} holds no runs yet` } : {}),
      };
    });
  }

  head({ file }: Parameters<AuditApi['auditHead']>[0]): Awaited<ReturnType<AuditApi['auditHead']>> {
    const f = this.fileOf(file);
    if (file === undefined) {
      try {
        statSync(f);
      } catch {
        return { file: f, exists: false, runs: 0, lastSeq: 0 };
      }
    }
    return this.withDb(file, (db) => ({ file: f, exists: true, ...headOf(db) }));
  }

  facets({ file, run }: Parameters<AuditApi['auditFacets']>[0]): Awaited<ReturnType<AuditApi['auditFacets']>> {
    return this.withDb(file, (db) => {
      this.runOf(db, run);
      return facets(db, run);
    });
  }

  query({
    file,
    filter,
    cursor,
    offset,
    limit,
  }: Parameters<AuditApi['auditQuery']>[0]): Awaited<ReturnType<AuditApi['auditQuery']>> {
    return this.withDb(file, (db) =>
      queryRows(db, AuditBrowser.filterOf(filter), {
        ...(cursor !== undefined ? { cursor } : {}),
        ...(offset !== undefined ? { offset } : {}),
        limit: Math.max(1, Math.min(5000, Math.floor(limit))),
      }),
    );
  }

  locate({
    file,
    filter,
    step,
    tMs,
  }: Parameters<AuditApi['auditLocate']>[0]): Awaited<ReturnType<AuditApi['auditLocate']>> {
    return this.withDb(file, (db) =>
      locate(db, AuditBrowser.filterOf(filter) as AuditFilter & { run: string }, {
        ...(step !== undefined ? { step } : {}),
        ...(tMs !== undefined ? { tMs } : {}),
      }),
    );
  }

  event({ file, id }: Parameters<AuditApi['auditEvent']>[0]): Awaited<ReturnType<AuditApi['auditEvent']>> {
    return this.withDb(file, (db) => eventDetail(db, id));
  }

  replay({
    file,
    run,
    maxPositions,
  }: Parameters<AuditApi['auditReplay']>[0]): Awaited<ReturnType<AuditApi['auditReplay']>> {
    return this.withDb(file, (db) => replayRun(db, this.runOf(db, run), maxPositions));
  }

  /**
   * Walks the chain on a connection of its own (a whole-log read: the cached ones stay for browsing), opened to report
   * a schema that is not Witness's rather than refuse it.
   */
  verify({ file }: Parameters<AuditApi['auditVerify']>[0]): ReturnType<AuditApi['auditVerify']> {
    return this.withOwnDb(
      file,
      (db, f) => {
        const r = verifyChain(db);
        return {
          file: f,
          ok: r.ok,
          events: r.events,
          blobs: r.blobs,
          head: r.head,
          integrity: r.integrity,
          chain_ms: r.chain_ms,
          problems: [...r.problems],
          ...(r.firstBad ? { firstBad: r.firstBad } : {}),
        };
      },
      { foreignSchema: 'report' },
    );
  }

  /** Exports on a connection of its own: an MCAP export awaits between rows. */
  export({ file, run, format }: Parameters<AuditApi['auditExport']>[0]): ReturnType<AuditApi['auditExport']> {
    if (!['jsonl', 'csv', 'mcap'].includes(format))
      throw new WitnessError('invalid-params', `format: expected jsonl, csv or mcap, got ${JSON.stringify(format)}`, {
        path: '$.format',
      });
    return this.withOwnDb(file, async (db, f) => {
      if (run !== undefined) this.runOf(db, run);
      const dir = path.join(this.session.workspace, 'exports');
      mkdirSync(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
      const base = `${path.basename(f).replace(/\.[^.]*$/, '')}-${run !== undefined ? run.slice(0, 8) : 'all'}-${stamp}`;
      let out = path.join(dir, `${base}.${format}`);
      for (let k = 2; exists(out); k++) out = path.join(dir, `${base}-${k}.${format}`);
      const summary = await exportAudit(db, format, out, run);
      return { path: out, bytes: statSync(out).size, format, summary };
    });
  }

  close(): void {
    this.readers.close();
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
