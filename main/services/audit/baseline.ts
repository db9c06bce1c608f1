/**
 * What durable appends are measured against: the same rows written into the audit schema with no
 * durability at all (WAL, synchronous off, one transaction, no hash chain). Used by the audit
 * benchmark only; never a log anyone keeps.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS } from './schema.js';

/** A row as the baseline inserts it: its kind, tool, failure label and body. */
export interface BaselineRow {
  readonly kind: string;
  readonly tool?: string | undefined;
  readonly failure?: string | undefined;
  readonly body: unknown;
}

/** Inserts `n` rows (`row(i)`) into a new database at `file` without durability; returns the rows per second. */
export function undurableInsertRate(file: string, n: number, row: (i: number) => BaselineRow): number {
  const base = new Database(file);
  try {
    base.pragma('journal_mode = WAL');
    base.pragma('synchronous = OFF');
    base.exec(MIGRATIONS[0]!);
    base.prepare("INSERT INTO runs VALUES ('r', 0, 'w', 'b', 'o', 's', '{}', NULL, NULL, '{}')").run();
    const ins = base.prepare(
      'INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const t0 = performance.now();
    base.transaction(() => {
      for (let i = 0; i < n; i++) {
        const e = row(i);
        ins.run(i + 1, 'r', i, i, e.kind, e.tool ?? null, e.failure ?? null, JSON.stringify(e.body), 'x', 'y');
      }
    })();
    return n / ((performance.now() - t0) / 1000);
  } finally {
    base.close();
  }
}
