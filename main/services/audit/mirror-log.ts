/**
 * The SQLite side of a fleet mirror (services/fleet/mirror.ts): a local audit log that holds one source of the fleet
 * store, row for row. It is created as the writer creates every audit log (AuditLog.open: the same migrations, the
 * same user_version, WAL), so every reader (browse, export, replay, verifyChain) reads it unchanged; rows already
 * verified against their chain are appended in batches, each batch one transaction taken with the write lock and
 * landing only where the mirror's tail still is where the batch starts (two pulls of one mirror at once take turns).
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AuditError, AuditLog, GENESIS_HASH, wrap } from './store.js';
import { problemsText, schemaProblems } from './schema-check.js';
import { EVENT_COLUMNS, bodyOf, eventOf } from './rows.js';
import type { ChainedStart } from './chain.js';
import type { RunStartBody } from './runs.js';

/** The mirror's last event (seq 0: none yet). */
export interface MirrorTail {
  readonly seq: number;
  readonly hash: string;
  readonly t_ms: number;
}

/** One batch's rows: events (EVENT_COLUMNS' fields in order), runs (RUN_FIELDS' order), blobs (sha256, kind, body). */
export interface MirrorBatch {
  readonly events: readonly unknown[][];
  readonly runs: readonly unknown[][];
  readonly blobs: readonly unknown[][];
}

const EMPTY_TAIL: MirrorTail = { seq: 0, hash: GENESIS_HASH, t_ms: -Infinity };

export class MirrorLog {
  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
  ) {}

  /** Opens the mirror `file`, creating it (an empty audit log) when missing; refuses a file that is not ours. */
  static async open(file: string): Promise<MirrorLog> {
    // Creates or migrates it exactly as the writer does, and refuses a foreign or tampered schema.
    await AuditLog.open(file).close();
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { fileMustExist: true });
      db.pragma('trusted_schema = OFF');
      db.pragma('busy_timeout = 30000');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const foreign = schemaProblems(db);
      if (foreign.length > 0)
        throw new AuditError(file, `its schema is not the one Witness creates: ${problemsText(foreign)}`, 'tampered');
      return new MirrorLog(file, db);
    } catch (e) {
      db?.close();
      throw wrap(file, e);
    }
  }

  /** Removes a mirror file and its WAL and shared-memory files (a cache, rebuilt from the store). */
  static remove(file: string): void {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }

  /** The mirror's last event. */
  tail(): MirrorTail {
    const r = this.db.prepare('SELECT seq, hash, t_ms FROM events ORDER BY seq DESC LIMIT 1').get() as
      MirrorTail | undefined;
    return r ?? EMPTY_TAIL;
  }

  /** Its first event's hash (the source's log id), or null when it holds none. */
  firstHash(): string | null {
    return (this.db.prepare('SELECT hash FROM events WHERE seq = 1').pluck().get() as string | undefined) ?? null;
  }

  /** Those of the addresses whose blob it holds. */
  heldBlobs(shas: Iterable<string>): Set<string> {
    const has = this.db.prepare('SELECT 1 FROM blobs WHERE sha256 = ?').pluck();
    return new Set([...shas].filter((sha) => has.get(sha) !== undefined));
  }

  /** The run_starts it holds, by run (for a chain walk that continues after its tail). */
  starts(): Map<string, ChainedStart> {
    const out = new Map<string, ChainedStart>();
    const rows = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE kind = 'run_start' ORDER BY seq`);
    for (const r of rows.iterate()) {
      const e = eventOf(r);
      out.set(e.run_id, { seq: e.seq, t_ms: e.t_ms, body: bodyOf(e) as RunStartBody });
    }
    return out;
  }

  /**
   * Appends a batch that continues the mirror after event `after`, as one transaction under the write lock: blobs
   * (those it holds already are kept), run rows, then events. False, writing nothing, when the mirror's tail is no
   * longer `after` (another pull moved it).
   */
  append(after: number, b: MirrorBatch): boolean {
    const blob = this.db.prepare('INSERT OR IGNORE INTO blobs (sha256, kind, body) VALUES (?, ?, ?)');
    const run = this.db.prepare(
      'INSERT INTO runs (id, started_ms, world, backend, operator, software, models, spec_sha, regions_sha, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const event = this.db.prepare(
      'INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    try {
      return this.db
        .transaction(() => {
          if (this.tail().seq !== after) return false;
          for (const r of b.blobs) blob.run(...r);
          for (const r of b.runs) run.run(...r);
          for (const r of b.events) event.run(...r);
          return true;
        })
        .immediate();
    } catch (e) {
      throw wrap(this.file, e);
    }
  }

  close(): void {
    this.db.close();
  }
}
