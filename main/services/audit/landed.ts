/**
 * The writer's check that what it appended landed, run inside each batch's transaction before it
 * commits: its events' sequence numbers all there and nothing else after them, the chain head (the
 * last row) its own last event with its hash, every new run row and every blob as written; and the
 * schema, held against ours again whenever its cookie moved since the last check (something changed
 * it while the writer had the database open). Rows cannot be altered in place without a schema
 * change (the append-only triggers refuse it, and dropping them moves the cookie), so a database
 * whose triggers drop, alter or add rows fails the batch at once.
 */
import type Database from 'better-sqlite3';
import { RUN_FIELDS } from './rows.js';
import { problemsText, schemaProblems } from './schema-check.js';

/** What one batch wrote, as it was bound to the INSERTs. */
export interface Written {
  /** Its events: how many, after which sequence number, and the last one's hash (null: no events). */
  readonly events: number;
  readonly after: number;
  readonly head: string | null;
  /** New runs: their id and their row's values, as inserted (RUN_FIELDS order). */
  readonly runs: readonly { readonly id: string; readonly values: readonly unknown[] }[];
  readonly blobs: readonly { readonly sha: string; readonly kind: string; readonly body: string }[];
}

export class LandedCheck {
  private readonly events: Database.Statement;
  private readonly head: Database.Statement;
  private readonly run: Database.Statement;
  private readonly blob: Database.Statement;
  /** The schema cookie when the schema was last found to be ours. */
  private cookie: number;

  constructor(private readonly db: Database.Database) {
    this.events = db.prepare('SELECT count(*) AS n, min(seq) AS lo FROM events WHERE seq > ?');
    this.head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1');
    this.run = db.prepare(`SELECT ${RUN_FIELDS.join(', ')} FROM runs WHERE id = ?`).raw(true);
    this.blob = db.prepare('SELECT body FROM blobs WHERE sha256 = ?').pluck();
    this.cookie = this.schemaCookie();
  }

  private schemaCookie(): number {
    return this.db.pragma('schema_version', { simple: true }) as number;
  }

  /** Why the batch did not land as written (the first difference), or null. */
  problem(w: Written): string | null {
    for (const b of w.blobs) {
      const got = this.blob.get(b.sha);
      if (got === undefined) return `the ${b.kind} blob ${b.sha.slice(0, 12)}… is missing after its insert`;
      if (got !== b.body)
        return `the blob at ${b.sha.slice(0, 12)}… holds other content than its address says (a row planted there before this writer stored its ${b.kind})`;
    }
    for (const r of w.runs) {
      const got = this.run.get(r.id) as unknown[] | undefined;
      if (got === undefined) return `the row of run ${r.id} is missing after its insert`;
      const k = r.values.findIndex((v, i) => got[i] !== v);
      if (k >= 0) return `the row of run ${r.id} holds another ${RUN_FIELDS[k]} than was written`;
    }
    if (w.head === null) return null;
    const last = w.after + w.events;
    const got = this.events.get(w.after) as { n: number; lo: number | null };
    const head = this.head.get() as { seq: unknown; hash: unknown } | undefined;
    const one = w.events === 1;
    const range = one ? `event ${last} was` : `events ${w.after + 1}–${last} were`;
    const missing = w.events - got.n;
    if (missing > 0)
      return `${range} inserted, but ${missing === w.events ? (one ? 'it is' : 'none of them is') : `${missing} of them are`} not there (dropped)`;
    if (got.n > w.events || got.lo !== w.after + 1 || head?.seq !== last)
      return `${range} inserted, but ${got.n} events follow event ${w.after}, up to event ${String(head?.seq)} (rows were added)`;
    if (head.hash !== w.head)
      return `the chain head, event ${last}, holds another hash than was written (the row was altered)`;
    return null;
  }

  /** What changed in the schema since it was last found to be ours (nothing when its cookie has not moved). */
  schemaChange(): string | null {
    const now = this.schemaCookie();
    if (now === this.cookie) return null;
    const ps = schemaProblems(this.db);
    if (ps.length > 0) return `its schema changed while this writer had it open: ${problemsText(ps)}`;
    this.cookie = now;
    return null;
  }
}
