/**
 * Audit databases as a forger leaves them, for the tests of what the readers, `verify` and the
 * writer make of them: a log written by the real writer (a mission with its specification, regions
 * and plan, and a tool loop), copied and altered with SQLite at hand — the append-only triggers
 * dropped while rows are changed and put back after, tables rebuilt with another definition, and
 * (where SQLite itself refuses, a NULL in a NOT NULL column) the schema text patched in the file.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditLog } from '../../../main/services/audit/store.js';
import { missionRecorder } from '../../../main/services/audit/mission-recorder.js';
import { MIGRATIONS } from '../../../main/services/audit/schema.js';

const T0 = 1_760_000_000_000;
/** The guards the schema creates, by name, with their SQL. */
export const GUARDS = [...MIGRATIONS[0]!.matchAll(/CREATE TRIGGER (\w+)[\s\S]*?END;/g)].map((m) => ({
  name: m[1]!,
  sql: m[0],
}));

export interface Written {
  readonly file: string;
  readonly mission: string;
  readonly act: string;
  /** Events in the log. */
  readonly events: number;
}

/**
 * A log in `dir` through the real writer: a mission (events 1–11: run_start, plan, 8 evidence, run_end) and a tool loop
 * (12–14), one file (no WAL).
 */
export async function writtenLog(dir: string, name = 'written.sqlite'): Promise<Written> {
  const file = join(dir, name);
  let t = T0;
  const log = AuditLog.open(file, { now: () => (t += 5) });
  const mission = await log.startRun({
    world: 'pointmaze-medium',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: { embed: 'e1' },
    spec: 'F e1 & G !e0',
    regions: JSON.stringify({
      world: 'pointmaze-medium',
      regions: [{ name: 'e1', kind: 'disk', center: [20, 0], radius: 1.5 }],
    }),
    meta: { method: 'sagas', start: [4, 20] },
  });
  const rec = missionRecorder(log, mission);
  rec.plan(
    0,
    'initial',
    {
      status: 'ok',
      method: 'sagas',
      prefix: ['start', 'anchor:e1:0'],
      suffix: ['anchor:e1:0'],
      cost: { prefix: 1, suffix: 0, objective: 1 },
    },
    1.5,
  );
  for (let i = 0; i < 8; i++)
    void log.append(
      mission,
      'evidence',
      {
        instruction: `step ${i}`,
        state: { x: i, y: 0, labels: [] },
        action: 'waypoint',
        verifier: 'ok',
        failure_label: null,
      },
      { step: i },
    );
  await log.append(mission, 'run_end', { outcome: 'success' }, { step: 8 });
  const act = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'bob',
    software: 'witness test',
    models: {},
    spec: 'the mug on the tray',
    toolSchemas: { pick: '{"type":"object"}' },
  });
  await log.append(
    act,
    'tool_call',
    { tool: 'pick', arguments: { target: 'mug' }, start_s: 0, end_s: 1, timeout_s: 10, response: { ok: true } },
    { tool: 'pick', step: 0 },
  );
  await log.append(act, 'run_end', { outcome: 'success' });
  assert0(rec.errors);
  await log.close();
  // One file: the write-ahead log folded in, so that a copy is the whole database.
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  db.close();
  return { file, mission, act, events: 14 };
}

function assert0(errors: readonly Error[]): void {
  if (errors.length > 0) throw errors[0]!;
}

/** A copy of `from` named `name` in `dir`, altered by `sql` (or `fn`) with foreign keys off. */
export function forged(
  from: string,
  dir: string,
  name: string,
  sql: string | ((db: Database.Database) => void),
): string {
  const file = join(dir, name);
  copyFileSync(from, file);
  const db = new Database(file);
  try {
    db.pragma('foreign_keys = OFF');
    if (typeof sql === 'string') db.exec(sql);
    else sql(db);
  } finally {
    db.close();
  }
  return file;
}

/** Runs `change` with the append-only triggers dropped, then puts them back exactly as the schema has them. */
export function unguarded(db: Database.Database, change: () => void): void {
  for (const g of GUARDS) db.exec(`DROP TRIGGER ${g.name}`);
  change();
  for (const g of GUARDS) db.exec(g.sql);
}

/**
 * Rebuilds `table` with another CREATE statement (`create` names it `rebuilt`), copying the
 * columns both have, and puts back its indexes and triggers as they were.
 */
export function rebuild(db: Database.Database, table: string, create: string): void {
  const deps = (
    db
      .prepare("SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL")
      .all(table) as { sql: string }[]
  ).map((r) => r.sql);
  for (const r of db
    .prepare(
      "SELECT type, name FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
    )
    .all(table) as { type: string; name: string }[])
    db.exec(`DROP ${r.type.toUpperCase()} ${r.name}`);
  db.exec(create);
  const cols = (t: string): { name: string; hidden: number }[] =>
    db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(t) as { name: string; hidden: number }[];
  const writable = new Set(
    cols('rebuilt')
      .filter((c) => c.hidden === 0)
      .map((c) => c.name),
  );
  const common = cols(table)
    .map((c) => c.name)
    .filter((c) => writable.has(c))
    .join(', ');
  db.exec(
    `INSERT INTO rebuilt (${common}) SELECT ${common} FROM ${table}; DROP TABLE ${table}; ALTER TABLE rebuilt RENAME TO ${table};`,
  );
  for (const sql of deps) db.exec(sql);
}

/** Our CREATE TABLE statement of `table` (from the migrations), for rebuild to alter. */
export function ourTable(table: string): string {
  const m = new RegExp(`CREATE TABLE ${table} \\(([\\s\\S]*?)\\n  \\);`).exec(MIGRATIONS[0]!);
  if (m === null) throw new Error(`no table ${table} in the schema`);
  return `CREATE TABLE rebuilt (${m[1]!})`;
}

/**
 * Replaces `from` by `to` (the same length) in the file's bytes: how a forger edits what SQLite
 * will not let them (a NOT NULL column's definition around a NULL). The file must be closed.
 */
export function patchBytes(file: string, from: string, to: string): void {
  if (from.length !== to.length) throw new Error('a patch keeps the length');
  const buf = readFileSync(file);
  const at = buf.indexOf(from, 0, 'latin1');
  if (at < 0) throw new Error(`${from} is not in ${file}`);
  buf.write(to, at, 'latin1');
  writeFileSync(file, buf);
}
