/**
 * An audit database whose schema is not the one Witness creates, through the real commands:
 * `audit verify` names each difference (generated columns, tables altered or replaced by a view or a
 * virtual table, triggers and indexes added or dropped) and exits 1; the other read commands refuse
 * those that would make a read run the forger's code or read something else than the evidence
 * (exit 2, naming the file and the difference) and read the rest; and nothing writes into any of
 * them: `witness act --audit` exits 2 naming the difference, and nothing is recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, asset } from './harness.js';
import { forged, ourTable, rebuild, writtenLog } from '../services/audit/forge.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-audit-foreign-'));
const written = writtenLog(dir);

interface Forgery {
  readonly name: string;
  readonly forge: string | ((db: Database.Database) => void);
  /** What verify names: the object, and why. */
  readonly key: string;
  readonly reason: RegExp;
  /**
   * The read commands refuse it (exit 2): reading through it could run code or read something else than the evidence.
   */
  readonly refused: boolean;
}

export const FORGERIES: readonly Forgery[] = [
  {
    name: 'a virtual generated column added to events',
    forge: 'ALTER TABLE events ADD COLUMN g TEXT GENERATED ALWAYS AS (upper(body)) VIRTUAL',
    key: 'events',
    reason: /a generated column g \(virtual\) was added to the table events/,
    refused: true,
  },
  {
    name: "events' t_ms replaced by a stored generated column",
    forge: (db) =>
      rebuild(
        db,
        'events',
        ourTable('events').replace('t_ms REAL NOT NULL', 't_ms REAL GENERATED ALWAYS AS (seq * 1000.0) STORED'),
      ),
    key: 'events',
    reason: /the column t_ms of the table events is a generated column \(stored\)/,
    refused: true,
  },
  {
    name: 'a column added to runs',
    forge: 'ALTER TABLE runs ADD COLUMN note TEXT',
    key: 'runs',
    reason: /a column note that Witness does not create was added to the table runs/,
    refused: true,
  },
  {
    name: 'a column removed from runs',
    forge: 'ALTER TABLE runs DROP COLUMN regions_sha',
    key: 'runs',
    reason: /the column regions_sha of the table runs is missing/,
    refused: true,
  },
  {
    name: "events' t_ms retyped as text",
    forge: (db) => rebuild(db, 'events', ourTable('events').replace('t_ms REAL NOT NULL', 't_ms TEXT NOT NULL')),
    key: 'events',
    reason: /the column t_ms of the table events is declared TEXT, not REAL/,
    refused: true,
  },
  {
    name: 'a CHECK constraint added to blobs',
    forge: (db) =>
      rebuild(
        db,
        'blobs',
        ourTable('blobs').replace('body TEXT NOT NULL', 'body TEXT NOT NULL CHECK (length(body) > 0)'),
      ),
    key: 'blobs',
    reason: /the definition of the table blobs differs from Witness's/,
    refused: true,
  },
  {
    name: 'a view in place of events',
    forge: 'ALTER TABLE events RENAME TO events_kept; CREATE VIEW events AS SELECT * FROM events_kept',
    key: 'events',
    reason: /a view in place of the table events/,
    refused: true,
  },
  {
    name: 'a virtual table in place of blobs',
    forge: 'ALTER TABLE blobs RENAME TO blobs_kept; CREATE VIRTUAL TABLE blobs USING fts5(sha256, kind, body)',
    key: 'blobs',
    reason: /a virtual table in place of the table blobs/,
    refused: true,
  },
  {
    name: 'a trigger that swallows every insert',
    forge: 'CREATE TRIGGER swallow BEFORE INSERT ON events BEGIN SELECT RAISE(IGNORE); END',
    key: 'swallow',
    reason: /a trigger swallow \(on events\) that Witness does not create was added/,
    refused: true,
  },
  {
    name: 'an index added',
    forge: 'CREATE INDEX by_body ON events(upper(body))',
    key: 'by_body',
    reason: /an index by_body on events that Witness does not create was added/,
    refused: false,
  },
  {
    name: 'an index dropped',
    forge: 'DROP INDEX events_by_time',
    key: 'events_by_time',
    reason: /the index events_by_time is missing \(dropped\)/,
    refused: false,
  },
  {
    name: 'a table added',
    forge: 'CREATE TABLE notes (x TEXT)',
    key: 'notes',
    reason: /a table notes that Witness does not create was added/,
    refused: false,
  },
  {
    name: 'a view added',
    forge: 'CREATE VIEW recent AS SELECT seq FROM events',
    key: 'recent',
    reason: /a view recent that Witness does not create was added/,
    refused: false,
  },
];

const fileOf = async (f: Forgery, k: number): Promise<string> =>
  forged((await written).file, dir, `forged-${k}.sqlite`, f.forge);

test('audit verify names each difference from the schema Witness creates and exits 1; the untouched log verifies', async () => {
  const { file } = await written;
  assert.equal((await cli('audit', 'verify', file)).code, 0);
  for (const [k, f] of FORGERIES.entries()) {
    const db = await fileOf(f, k);
    const r = await cli('audit', 'verify', db, '--json');
    assert.equal(r.code, 1, `${f.name}: verify exits 1 (${r.err.trim()})`);
    const v = JSON.parse(r.out) as { ok: boolean; problems: { table: string; key: string; reason: string }[] };
    assert.equal(v.ok, false);
    const p = v.problems.find((x) => x.table === 'schema' && x.key === f.key);
    assert.ok(p !== undefined, `${f.name}: a schema problem for ${f.key} in ${JSON.stringify(v.problems)}`);
    assert.match(p.reason, f.reason, f.name);
    const text = await cli('audit', 'verify', db);
    assert.match(text.out, /NOT intact: schema /, f.name);
  }
});

test('the read commands refuse a schema that would run code or read something else (exit 2, the file and the difference named) and read the rest', async () => {
  const { mission } = await written;
  for (const [k, f] of FORGERIES.entries()) {
    const db = await fileOf(f, k);
    const commands = [
      ['ls', db],
      ['show', db, mission.slice(0, 8), '--json'],
      ['query', db, '--json'],
      ['export', db, '--format', 'jsonl', '--out', join(dir, `out-${k}.jsonl`)],
    ];
    for (const args of commands) {
      const r = await cli('audit', ...args);
      if (f.refused) {
        assert.equal(r.code, 2, `${f.name}: audit ${args[0]} exits 2 (${r.err.trim()})`);
        assert.ok(r.err.includes(db), `${f.name}: the message names the file: ${r.err}`);
        assert.match(r.err, /its schema is not the one Witness creates/, f.name);
        assert.match(r.err, f.reason, f.name);
      } else {
        assert.equal(r.code, 0, `${f.name}: audit ${args[0]} reads it (${r.err.trim()})`);
      }
    }
  }
});

test('witness act refuses to record into any of them: exit 2 naming the file and the difference, nothing recorded', async () => {
  for (const [k, f] of FORGERIES.entries()) {
    const db = await fileOf(f, k);
    const before = new Database(db, { readonly: true });
    const events =
      (
        before.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'events' AND type = 'table'").get() as {
          n: number;
        }
      ).n === 1
        ? (before.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n
        : null;
    before.close();
    const r = await cli(
      'act',
      '--world',
      'tabletop',
      '--tools',
      asset('tools'),
      '--goal',
      'objects.red_bin.on == "shelf_c4"',
      '--planner',
      'scripted',
      '--plan',
      asset('plans/warehouse.json'),
      '--replans',
      '0',
      '--decision',
      'abort',
      '--audit',
      db,
    );
    assert.equal(r.code, 2, `${f.name}: act exits 2 (${r.err.trim()})`);
    assert.ok(r.err.includes(db), `${f.name}: names the file: ${r.err}`);
    assert.match(r.err, /its schema is not the one Witness creates/, f.name);
    assert.match(r.err, f.reason, f.name);
    assert.match(r.err, /refusing to write to it/, f.name);
    if (events !== null) {
      const after = new Database(db, { readonly: true });
      assert.equal(
        (after.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
        events,
        `${f.name}: nothing recorded`,
      );
      after.close();
    }
  }
});
