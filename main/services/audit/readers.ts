/**
 * Read-only connections to audit databases for the browser: opened with openAuditReadOnly, cached
 * per file with a bounded number of open handles (least recently used closed first), and reopened
 * when the file was replaced. Every failure to open says what is wrong with which file, as a code a
 * UI can act on.
 */
import { WitnessError } from '../../contract/errors.js';
import { statSync } from 'node:fs';
import { fsFailure } from '../../platform/files.js';
import type Database from 'better-sqlite3';
import { AuditError, type ReadOnlyOptions, openAuditReadOnly } from './store.js';

type AuditOpenCode =
  | 'not-found'
  | 'not-a-file'
  | 'not-sqlite'
  | 'not-audit-database'
  | 'schema-version'
  | 'tampered'
  | 'corrupt'
  | 'locked'
  | 'unreadable';

class AuditOpenError extends WitnessError {
  override readonly name = 'AuditOpenError';
  declare readonly code: AuditOpenCode;
  constructor(
    code: AuditOpenCode,
    readonly file: string,
    detail: string,
  ) {
    super(code, `${file}: ${detail}`, { file });
  }
}

/** The AuditError of openAuditReadOnly as a code (its messages are this module's contract; tests pin them). */
function classifyOpenError(file: string, e: unknown): AuditOpenError {
  if (e instanceof AuditOpenError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const detail = e instanceof AuditError && msg.startsWith(`${file}: `) ? msg.slice(file.length + 2) : msg;
  const code: AuditOpenCode =
    e instanceof AuditError && e.code === 'tampered'
      ? 'tampered'
      : /no such file/.test(detail)
        ? 'not-found'
        : /not an SQLite database|file is not a database/.test(detail)
          ? 'not-sqlite'
          : /not a Witness audit database/.test(detail)
            ? 'not-audit-database'
            : /schema version/.test(detail)
              ? 'schema-version'
              : /corrupt|truncated|malformed/.test(detail)
                ? 'corrupt'
                : /locked|busy/i.test(detail)
                  ? 'locked'
                  : 'unreadable';
  return new AuditOpenError(code, file, detail);
}

/** Where `file` is on disk, or why it cannot be an audit database file. */
function identityOf(file: string): { dev: number; ino: number } {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const why = fsFailure(file, e);
    if ((e as { code?: unknown }).code !== 'ENOENT')
      throw new AuditOpenError('unreadable', file, `cannot be read: ${why.detail}`);
    // A link to nothing says where it points.
    throw new AuditOpenError(
      'not-found',
      file,
      why.code === 'invalid-input' ? `no such file: ${why.detail.replace(/^ENOENT: /, '')}` : 'no such file',
    );
  }
  if (!st.isFile())
    throw new AuditOpenError('not-a-file', file, 'not a file (a folder or a device): name an audit database file');
  return { dev: st.dev, ino: st.ino };
}

/** A new read-only connection to `file` (an absolute path), not cached; every failure an AuditOpenError. */
export function openReader(file: string, o: ReadOnlyOptions = {}): Database.Database {
  identityOf(file);
  try {
    return openAuditReadOnly(file, o);
  } catch (e) {
    throw classifyOpenError(file, e);
  }
}

interface Held {
  readonly db: Database.Database;
  readonly dev: number;
  readonly ino: number;
}

export class AuditReaders {
  private readonly held = new Map<string, Held>();

  constructor(private readonly max = 4) {}

  /** A read-only connection to `file` (an absolute path), opening it when needed. */
  get(file: string): Database.Database {
    let st;
    try {
      st = identityOf(file);
    } catch (e) {
      this.drop(file);
      throw e;
    }
    const h = this.held.get(file);
    if (h !== undefined && h.dev === st.dev && h.ino === st.ino) {
      // Most recently used last: Map keeps insertion order.
      this.held.delete(file);
      this.held.set(file, h);
      return h.db;
    }
    this.drop(file);
    const db = openReader(file);
    this.held.set(file, { db, dev: st.dev, ino: st.ino });
    while (this.held.size > this.max) this.drop(this.held.keys().next().value!);
    return db;
  }

  /** How many connections are open now. */
  get open(): number {
    return this.held.size;
  }

  private drop(file: string): void {
    const h = this.held.get(file);
    if (h === undefined) return;
    this.held.delete(file);
    try {
      h.db.close();
    } catch {
      // Closing a read-only connection has nothing to lose.
    }
  }

  close(): void {
    for (const f of [...this.held.keys()]) this.drop(f);
  }
}
