/**
 * Large audit databases made in seconds with SQL (the writer appends with fsync and would take
 * hours for a million runs): `runs` runs of a run_start and a run_end each, every event chained
 * with the real hash (a SQL function over store.ts chainHash, the previous hash carried along a
 * recursive CTE), every runs row as the writer leaves it — a log that `witness audit verify` finds
 * intact, and that takes as long to verify, list or export as one the writer made.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { GENESIS_HASH, canonicalJson, chainHash } from '../../main/services/audit/store.js';
import { AUDIT_SCHEMA_VERSION, MIGRATIONS } from '../../main/services/audit/schema.js';

const SYNTH_T0 = Date.UTC(2026, 0, 1);

/** The run_start body every synthetic run records (canonical JSON, as the writer stores bodies). */
export const SYNTH_START = canonicalJson({
  world: 'pointmaze-medium',
  backend: 'mujoco',
  operator: 'synth',
  software: 'witness synth',
  models: {},
  spec_sha: null,
  regions_sha: null,
  meta: { method: 'sagas' },
});
const SYNTH_END = canonicalJson({ outcome: 'success', replans: 0 });

/** Run i's id (1-based): a UUID-shaped id, in the order the runs started (RUN_ID: the same in SQL). */
export const synthRunId = (i: number): string =>
  `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const RUN_ID = (i: string): string => `printf('%08x-0000-4000-8000-%012x', ${i}, ${i})`;

/**
 * Writes a new audit database of `runs` runs at `file` (replacing one there), run i started at
 * SYNTH_T0 + i s and ended half a second later. `unchained` more runs rows are added that no
 * run_start names (rows inserted by hand: not under the chain). `unhashed` leaves the hashes empty:
 * a third of the size and time, for reads that do not verify.
 */
export function writeSynthLog(file: string, runs: number, o: { unchained?: number; unhashed?: boolean } = {}): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const db = new Database(file);
  try {
    // Written in one go without a journal, then switched to WAL as the writer leaves a log.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // The indexes built once the rows are in (sorting them is faster than growing them row by row).
    const indexes = MIGRATIONS[0]!.match(/CREATE INDEX [^;]*;/g) ?? [];
    db.exec(indexes.reduce((sql, ix) => sql.replace(ix, ''), MIGRATIONS[0]!));
    db.pragma(`user_version = ${AUDIT_SCHEMA_VERSION}`);
    db.function('chain_hash', { deterministic: true }, (prev, seq, run, t, kind, body) =>
      chainHash(String(prev), Number(seq), String(run), Number(t), null, String(kind), null, null, String(body)),
    );
    const hash = (...args: string[]): string => (o.unhashed === true ? "''" : `chain_hash(${args.join(', ')})`);
    const tx = db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO runs SELECT ${RUN_ID('i')}, ? + i * 1000, 'pointmaze-medium', 'mujoco', 'synth', 'witness synth', '{}', NULL, NULL, '{"method":"sagas"}' FROM n`,
      ).run(runs, SYNTH_T0);
      // Event s: run (s + 1) / 2's start (s odd) or end (s even); the previous hash carried along.
      db.prepare(
        `WITH RECURSIVE e(seq, run, t, kind, body, prev, hash) AS (
          SELECT 1, ${RUN_ID('1')}, @t0 + 1000, 'run_start', @start, @genesis, ${hash('@genesis', '1', RUN_ID('1'), '@t0 + 1000', "'run_start'", '@start')}
          UNION ALL
          SELECT seq + 1, ${RUN_ID('(seq + 2) / 2')}, @t0 + ((seq + 2) / 2) * 1000 + (seq % 2) * 500,
            CASE seq % 2 WHEN 0 THEN 'run_start' ELSE 'run_end' END, CASE seq % 2 WHEN 0 THEN @start ELSE @end END, hash,
            ${hash(
              'hash',
              'seq + 1',
              RUN_ID('(seq + 2) / 2'),
              '@t0 + ((seq + 2) / 2) * 1000 + (seq % 2) * 500',
              "CASE seq % 2 WHEN 0 THEN 'run_start' ELSE 'run_end' END",
              'CASE seq % 2 WHEN 0 THEN @start ELSE @end END',
            )}
          FROM e WHERE seq < @events)
        INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash)
        SELECT seq, run, t, NULL, kind, NULL, NULL, body, prev, hash FROM e`,
      ).run({ t0: SYNTH_T0, events: runs * 2, start: SYNTH_START, end: SYNTH_END, genesis: GENESIS_HASH });
      if ((o.unchained ?? 0) > 0) {
        db.prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
          INSERT INTO runs SELECT 'zz-unchained-' || i, ? + i, 'tabletop', 'mujoco', 'mallory', 'witness synth', '{}', NULL, NULL, '{}' FROM n`,
        ).run(o.unchained, SYNTH_T0);
      }
    });
    tx();
    for (const ix of indexes) db.exec(ix);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}
