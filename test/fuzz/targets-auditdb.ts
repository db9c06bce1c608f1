/**
 * Fuzzing targets for audit databases as a forger leaves them, beside the byte mutations of the
 * `audit-db` target: schemas with generated columns, triggers, views and virtual tables; bodies and
 * blobs nested deeper than the readers take but under every size limit; values of the wrong type
 * (a t_ms that is text, a body that is a blob). Each case is a log written by the real writer,
 * forged with SQLite, optionally re-chained (every hash recomputed, so that only the values are
 * wrong), then read the way every front end reads it: the CLI's functions, the browser's (with what
 * its transports do to a result: JSON and a structured clone) and the writer.
 *
 * Besides ending in a value or a WitnessError that is not internal, two things must hold: a log
 * whose schema is not Witness's is never verified intact, and a writer never acknowledges an event
 * that is not there afterwards.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { AuditBrowser, auditExport, auditQuery, auditRun, auditRuns, auditVerify } from '../../main/app/audit.js';
import { AuditLog, chainHash } from '../../main/services/audit/store.js';
import { WitnessError } from '../../main/contract/errors.js';
import { GUARDS, ourTable, rebuild, unguarded, writtenLog } from '../services/audit/forge.js';
import type { Target } from './targets.js';
import type { CliTarget } from './cli-targets.js';

/**
 * The seed: a mission (specification, regions, a plan, evidence with positions) and a tool loop (a tool schema), one
 * file.
 */
async function seedBytes(): Promise<Uint8Array> {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-fuzz-auditdb-'));
  try {
    return new Uint8Array(readFileSync((await writtenLog(dir)).file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const SEED = await seedBytes();
const OURS = ['events', 'runs', 'blobs'] as const;

/** A change to a database, and what it is in words (for the report of a failing case). */
interface Forgery {
  readonly what: string;
  readonly apply: (db: Database.Database) => void;
}

const sql = (what: string): Forgery => ({ what, apply: (db) => db.exec(what) });

/** Schema forgeries: each makes the schema differ from Witness's (SQLite takes every one of them on the seed). */
const schemaForgery: fc.Arbitrary<Forgery> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...OURS),
      fc.constantFrom(
        "'x'",
        'length(hex(zeroblob(100000)))',
        "upper('abc') || 'def'",
        "json_extract('{\"a\":[1,2]}', '$.a[1]')",
      ),
      fc.constantFrom('VIRTUAL', 'STORED'),
    )
    .map(([t, expr, kind]): Forgery =>
      kind === 'VIRTUAL'
        ? sql(`ALTER TABLE ${t} ADD COLUMN g GENERATED ALWAYS AS (${expr}) VIRTUAL`)
        : {
            what: `${t} rebuilt with g GENERATED ALWAYS AS (${expr}) STORED`,
            apply: (db) => rebuild(db, t, ourTable(t).replace(/\)$/, `, g GENERATED ALWAYS AS (${expr}) STORED)`)),
          },
    ),
  fc
    .constantFrom(
      ['events', 't_ms REAL NOT NULL', 't_ms REAL GENERATED ALWAYS AS (seq * 1000.0) STORED'],
      ['events', 'body TEXT NOT NULL', "body TEXT GENERATED ALWAYS AS ('{}') VIRTUAL"],
      ['runs', 'meta TEXT NOT NULL', "meta TEXT GENERATED ALWAYS AS ('{}') STORED"],
      ['blobs', 'kind TEXT NOT NULL', "kind TEXT GENERATED ALWAYS AS ('spec') VIRTUAL"],
    )
    .map(([t, col, generated]): Forgery => ({
      what: `${t} rebuilt with ${generated}`,
      apply: (db) => rebuild(db, t, ourTable(t).replace(col, generated)),
    })),
  fc
    .tuple(
      fc.constantFrom('BEFORE', 'AFTER'),
      fc.constantFrom('INSERT', 'UPDATE', 'DELETE'),
      fc.constantFrom(...OURS),
      fc.constantFrom(
        'SELECT RAISE(IGNORE)',
        'DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)',
        "UPDATE blobs SET kind = 'x'",
        'SELECT length(hex(zeroblob(100000)))',
      ),
    )
    .map(([when, what, t, action]) => sql(`CREATE TRIGGER forged ${when} ${what} ON ${t} BEGIN ${action}; END`)),
  fc
    .tuple(fc.constantFrom(...OURS), fc.constantFrom('', ' WHERE 0', ' UNION ALL SELECT * FROM kept'))
    .map(([t, tail]) => sql(`ALTER TABLE ${t} RENAME TO kept; CREATE VIEW ${t} AS SELECT * FROM kept${tail}`)),
  fc.constantFrom(...OURS).map((t): Forgery => ({
    what: `${t} replaced by an fts5 virtual table`,
    apply: (db) => {
      const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').all(t) as { name: string }[]).map(
        (c) => c.name,
      );
      db.exec(
        `ALTER TABLE ${t} RENAME TO kept; CREATE VIRTUAL TABLE ${t} USING fts5(${cols.join(', ')}); INSERT INTO ${t} SELECT ${cols.join(', ')} FROM kept`,
      );
    },
  })),
  fc.constantFrom(...GUARDS.map((g) => g.name)).map((name) => sql(`DROP TRIGGER ${name}`)),
);

/** JSON nested `depth` levels deep (arrays, objects or both), under every size limit. */
const nested = fc
  .tuple(fc.integer({ min: 257, max: 150_000 }), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, shape]) => {
    const open = (i: number): string => (shape === 'array' || (shape === 'mixed' && i % 2 === 0) ? '[' : '{"a":');
    const close = (i: number): string => (open(i) === '[' ? ']' : '}');
    let s = '';
    for (let i = 0; i < depth; i++) s += open(i);
    s += '0';
    for (let i = depth - 1; i >= 0; i--) s += close(i);
    return s;
  });

/**
 * Where a nested document goes (the seed's events: 1 run_start, 2 plan, 3–10 evidence, 11 run_end, 12–14 the tool
 * loop's).
 */
const PLACES: Readonly<Record<string, (db: Database.Database, text: string) => void>> = {
  'evidence body': (db, t) => db.prepare('UPDATE events SET body = ? WHERE seq = 3').run(`{"state":${t}}`),
  'run_start body': (db, t) =>
    db.prepare('UPDATE events SET body = ? WHERE seq = 1').run(`{"world":"pointmaze-medium","meta":${t}}`),
  'run_end body': (db, t) => db.prepare('UPDATE events SET body = ? WHERE seq = 11').run(`{"outcome":${t}}`),
  'tool_call body': (db, t) =>
    db.prepare('UPDATE events SET body = ? WHERE seq = 13').run(`{"tool":"pick","arguments":${t}}`),
  'plan blob': (db, t) =>
    db.prepare("UPDATE blobs SET body = ? WHERE kind = 'plan'").run(`{"status":"ok","prefix":${t}}`),
  'regions blob': (db, t) => db.prepare("UPDATE blobs SET body = ? WHERE kind = 'regions'").run(t),
  'tool schema blob': (db, t) => db.prepare("UPDATE blobs SET body = ? WHERE kind LIKE 'tool-schema:%'").run(t),
  'runs meta': (db, t) => db.prepare('UPDATE runs SET meta = ?').run(t),
};

const VALUES = fc.constantFrom<[string, unknown]>(
  ['text', 'soon'],
  ['a fraction', 0.25],
  ['huge', 1e300],
  ['negative', -5],
  ['a blob', Buffer.from([0, 255])],
  ['NULL', null],
  ['2^62', 2n ** 62n],
  ['empty', ''],
  ['long text', 'z'.repeat(100_000)],
);

/** Values the writer never stores, in a column of one event, or of one runs row (SQL and its arguments). */
const badValue: fc.Arbitrary<[string, [string, unknown], number]> = fc.oneof(
  fc.tuple(
    fc
      .constantFrom('t_ms', 'step', 'body', 'kind', 'run_id', 'tool', 'prev_hash', 'hash')
      .map((c) => `UPDATE events SET ${c} = ? WHERE seq = ?`),
    VALUES,
    fc.integer({ min: 1, max: 14 }),
  ),
  fc.tuple(
    fc
      .constantFrom('started_ms', 'world', 'operator', 'models', 'spec_sha', 'meta')
      .map((c) => `UPDATE runs SET ${c} = ? WHERE rowid = ?`),
    VALUES,
    fc.integer({ min: 1, max: 2 }),
  ),
);

/** Every hash recomputed in order (the guards dropped meanwhile): only the values are wrong, the chain is whole. */
function rechain(db: Database.Database): void {
  const rows = db
    .prepare('SELECT seq, run_id, t_ms, step, kind, tool, failure_label, body FROM events ORDER BY seq')
    .all() as {
    seq: number;
    run_id: string;
    t_ms: number;
    step: number | null;
    kind: string;
    tool: string | null;
    failure_label: string | null;
    body: string;
  }[];
  const set = db.prepare('UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?');
  let prev = '0'.repeat(64);
  for (const r of rows) {
    const h = chainHash(
      prev,
      r.seq,
      String(r.run_id),
      r.t_ms,
      r.step,
      String(r.kind),
      r.tool,
      r.failure_label,
      String(r.body),
    );
    set.run(prev, h, r.seq);
    prev = h;
  }
}

/**
 * The seed in `scratch`, forged: each forgery in a savepoint of its own, kept when SQLite took it
 * (two forgeries may clash: the second is then left out); `applied` counts those kept.
 */
function forgedSeed(scratch: string, ...forge: ((db: Database.Database) => void)[]): { file: string; applied: number } {
  const file = path.join(scratch, 'a.sqlite');
  writeFileSync(file, SEED);
  const db = new Database(file);
  let applied = 0;
  try {
    db.pragma('foreign_keys = OFF');
    for (const f of forge) {
      db.exec('SAVEPOINT forgery');
      try {
        f(db);
        db.exec('RELEASE forgery');
        applied++;
      } catch {
        db.exec('ROLLBACK TO forgery; RELEASE forgery');
      }
    }
  } finally {
    db.close();
  }
  return { file, applied };
}

/**
 * One case's reads: each returns a value, or a WitnessError that is not internal (a refusal, kept:
 * the case ends with the first one, so that the harness counts it); anything else is a bug.
 */
class Reads {
  refusal: WitnessError | null = null;

  async answer<T>(read: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof WitnessError) || e.code === 'internal') throw e;
      this.refusal ??= e;
      return undefined;
    }
  }

  /** Ends the case: with its first refusal, if any. */
  end(): void {
    if (this.refusal !== null) throw this.refusal;
  }
}

/** What a transport does with a result: JSON (the WebSocket, IPC) and a structured clone (a worker). */
const transported = (v: unknown): void => {
  JSON.stringify(v);
  structuredClone(v);
};

/**
 * Reads `file` every way a front end does: the CLI's functions (list, show, query, verify, export
 * JSON Lines and MCAP), the browser's (runs, a page, every event, every run's replay, verify) with
 * its results transported. Returns verify's verdict (null when it refused the file).
 */
async function readAll(r: Reads, file: string, scratch: string): Promise<boolean | null> {
  const runs = (await r.answer(() => auditRuns(file))) ?? [];
  for (const x of runs) await r.answer(() => auditRun(file, x.id, 50));
  await r.answer(() => auditQuery(file, { limit: 50 }, { page: () => undefined }));
  const verdict = await r.answer(() => auditVerify(file));
  await r.answer(() => auditExport(file, 'jsonl', path.join(scratch, 'out.jsonl')));
  await r.answer(() => auditExport(file, 'mcap', path.join(scratch, 'out.mcap')));
  const b = new AuditBrowser({ auditFile: file, workspace: scratch });
  try {
    const listed = await r.answer(() => b.runs({ file }));
    if (listed !== undefined) transported(listed);
    const page = await r.answer(() => b.query({ file, filter: {}, limit: 50 }));
    if (page !== undefined) transported(page);
    for (let id = 1; id <= 15; id++) {
      const d = await r.answer(() => b.event({ file, id }));
      if (d !== undefined) transported(d);
    }
    for (const x of listed?.runs ?? []) {
      const replay = await r.answer(() => b.replay({ file, run: x.id }));
      if (replay !== undefined) transported(replay);
    }
    const v = await r.answer(() => b.verify({ file }));
    if (v !== undefined) transported(v);
  } finally {
    b.close();
  }
  return verdict === undefined ? null : verdict.ok;
}

/** A writer on `file`: refused, or every event it acknowledges is there afterwards, as appended. */
async function writeOnce(r: Reads, file: string): Promise<void> {
  const log = await r.answer(() => AuditLog.open(file));
  if (log === undefined) return;
  let run: string | undefined, seq: number | undefined;
  try {
    run = await r.answer(() =>
      log.startRun({ world: 'fuzz', backend: 'none', operator: 'fuzz', software: 'fuzz', models: {} }),
    );
    if (run !== undefined) seq = await r.answer(() => log.append(run!, 'evidence', { fuzz: true }));
  } finally {
    await log.close();
  }
  if (seq === undefined) return;
  const db = new Database(file, { readonly: true });
  try {
    const row = db.prepare('SELECT run_id, body FROM events WHERE seq = ?').get(seq) as
      { run_id: string; body: string } | undefined;
    assert.deepEqual(
      row,
      { run_id: run, body: '{"fuzz":true}' },
      `the writer acknowledged event ${seq}, but it is not there as appended`,
    );
  } finally {
    db.close();
  }
}

const target = <T>(t: Target<T>): Target => t as unknown as Target;

export function auditDbTargets(): Target[] {
  return [
    target({
      name: 'audit-schema',
      reads:
        'audit databases with generated columns, triggers, views and virtual tables (every reader, verify, the writer)',
      weight: 0.3,
      input: () => fc.array(schemaForgery, { minLength: 1, maxLength: 3 }),
      run: async (forgeries: Forgery[], scratch: string) => {
        const { file, applied } = forgedSeed(scratch, ...forgeries.map((f) => f.apply));
        const r = new Reads();
        const verdict = await readAll(r, file, scratch);
        if (applied > 0) assert.notEqual(verdict, true, "a log whose schema is not Witness's was verified intact");
        await writeOnce(r, file);
        r.end();
      },
    }),
    target({
      name: 'audit-nesting',
      reads:
        'audit bodies and blobs nested up to 150 000 deep under the size limits (every reader, verify, the writer)',
      weight: 0.3,
      input: () => fc.tuple(nested, fc.constantFrom(...Object.keys(PLACES), 'append'), fc.boolean()),
      run: async ([text, place, chained]: [string, string, boolean], scratch: string) => {
        const r = new Reads();
        if (place === 'append') {
          const { file } = forgedSeed(scratch);
          const log = AuditLog.open(file);
          try {
            const run = await log.startRun({
              world: 'fuzz',
              backend: 'none',
              operator: 'fuzz',
              software: 'fuzz',
              models: {},
            });
            await r.answer(() => log.append(run, 'evidence', { nested: JSON.parse(text) as unknown }));
          } finally {
            await log.close();
          }
          await readAll(r, file, scratch);
          return r.end();
        }
        const { file } = forgedSeed(scratch, (db) =>
          unguarded(db, () => {
            PLACES[place]!(db, text);
            if (chained) rechain(db);
          }),
        );
        await readAll(r, file, scratch);
        return r.end();
      },
    }),
    target({
      name: 'audit-values',
      reads:
        'audit events and runs rows with values of the wrong type: a t_ms that is text, a body that is a blob (every reader, verify)',
      weight: 0.3,
      input: () => fc.tuple(badValue, fc.boolean()),
      run: async (
        [[update, [, value], at], chained]: [[string, [string, unknown], number], boolean],
        scratch: string,
      ) => {
        const { file } = forgedSeed(scratch, (db) =>
          unguarded(db, () => {
            db.prepare(update).run(value, at);
            if (chained) rechain(db);
          }),
        );
        const r = new Reads();
        await readAll(r, file, scratch);
        return r.end();
      },
    }),
  ];
}

/** The same forgeries through the real commands. */
export function auditDbCliTargets(): CliTarget[] {
  const forgedFile =
    (forge: (db: Database.Database) => void) =>
    (dir: string): string => {
      const { file, applied } = forgedSeed(dir, forge);
      if (applied === 0) throw new Error('a forgery SQLite did not take: the case would test the untouched seed');
      return file;
    };
  const assets = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../assets');
  const firstRun = (file: string): string => {
    const db = new Database(file, { readonly: true });
    try {
      const id = db.prepare('SELECT run_id FROM events WHERE seq = 1').pluck().get();
      return typeof id === 'string' ? id.slice(0, 8) : 'x';
    } finally {
      db.close();
    }
  };
  return [
    {
      name: 'audit-schema-verify',
      command: 'witness audit verify FILE (a schema with generated columns, triggers, views)',
      exits: [1, 2],
      cases: () => schemaForgery.map((f) => (dir: string) => ['audit', 'verify', forgedFile(f.apply)(dir)]),
    },
    {
      name: 'audit-schema-write',
      command: 'witness act --world tabletop … --audit FILE (a schema with generated columns, triggers, views)',
      exits: [2],
      cases: () =>
        schemaForgery.map((f) => (dir: string) => [
          'act',
          '--world',
          'tabletop',
          '--tools',
          path.join(assets, 'tools'),
          '--goal',
          'objects.red_bin.on == "shelf_c4"',
          '--planner',
          'scripted',
          '--plan',
          path.join(assets, 'plans/warehouse.json'),
          '--replans',
          '0',
          '--decision',
          'abort',
          '--audit',
          forgedFile(f.apply)(dir),
        ]),
    },
    {
      name: 'audit-values',
      command:
        'witness audit ls|show|query --json|export --format mcap FILE (bodies nested deep, values of the wrong type)',
      exits: [0, 2],
      cases: () =>
        fc
          .tuple(
            fc.oneof(
              nested.map((t) => (db: Database.Database) => PLACES['evidence body']!(db, t)),
              nested.map((t) => (db: Database.Database) => PLACES['run_start body']!(db, t)),
              badValue.map(
                ([update, [, v], at]) =>
                  (db: Database.Database) =>
                    db.prepare(update).run(v, at),
              ),
            ),
            fc.constantFrom('ls', 'show', 'query', 'export'),
          )
          .map(([forge, verb]) => (dir: string) => {
            const file = forgedFile((db) => unguarded(db, () => forge(db)))(dir);
            if (verb === 'show') return ['audit', 'show', file, firstRun(file), '--json'];
            if (verb === 'export')
              return ['audit', 'export', file, '--format', 'mcap', '--out', path.join(dir, 'out.mcap')];
            return ['audit', verb, file, ...(verb === 'query' ? ['--json'] : [])];
          }),
    },
  ];
}
