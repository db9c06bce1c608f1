/**
 * Values the writer never stores, in an audit database the schema of which is Witness's: a body
 * that is not JSON or nested 100 000 deep (under the size limit), a run_start or run_end body like
 * that, a t_ms that is text, NULL or past the range of dates, a body that is a blob or over the size
 * limit, a removed row. Every `witness audit` command gives its documented exit code — 2 naming the
 * file and the event where it reads the value (and the limit where one is passed), 0 where it does
 * not need it, `verify` 1 — never 70.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli } from './harness.js';
import { forged, patchBytes, unguarded, writtenLog } from '../services/audit/forge.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-audit-values-'));
const written = writtenLog(dir);
const DEEP = `{"state":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;

const set =
  (sql: string, ...args: unknown[]) =>
  (db: Database.Database): void =>
    unguarded(db, () => {
      db.prepare(sql).run(...args);
    });

/** The commands, in the order of `exits` below. */
const COMMANDS = [
  'ls',
  'ls --json',
  'show',
  'show --json',
  'query',
  'query --json',
  'export jsonl',
  'export csv',
  'export mcap',
] as const;
const args = (c: (typeof COMMANDS)[number], db: string, run: string, k: number): string[] => {
  const [verb, flag] = c.split(' ') as [string, string | undefined];
  if (verb === 'export') return ['export', db, '--format', flag!, '--out', join(dir, `out-${k}.${flag!}`)];
  return [verb, db, ...(verb === 'show' ? [run.slice(0, 8)] : []), ...(flag !== undefined ? [flag] : [])];
};

interface Case {
  readonly name: string;
  readonly forge: (db: Database.Database) => void;
  /** Or a forgery SQLite refuses, made in the file's bytes (the file is closed). */
  readonly patch?: (file: string) => void;
  /** The exit code of each command of COMMANDS (2 where it reads the value), and of verify. */
  readonly exits: readonly number[];
  readonly verify: number;
  /** What a refusal says after the file's name. */
  readonly message: RegExp;
}

// ls reads the run_start and run_end events; show and query print what they read and parse bodies
// only for --json; the text exports (CSV) copy bodies as text, JSON Lines and MCAP parse them.
const BODY = [0, 0, 0, 2, 0, 2, 2, 0, 2];
const ROW = [0, 0, 2, 2, 2, 2, 2, 2, 2];
const RUN_START = [2, 2, 2, 2, 0, 2, 2, 0, 2];

const CASES: readonly Case[] = [
  {
    name: 'an evidence body that is not JSON',
    forge: set("UPDATE events SET body = '{not json' WHERE seq = 3"),
    exits: BODY,
    verify: 1,
    message: /event 3: its body is not JSON/,
  },
  {
    name: 'an evidence body nested 100 000 deep',
    forge: set('UPDATE events SET body = ? WHERE seq = 3', DEEP),
    exits: BODY,
    verify: 1,
    message: /event 3: its body is nested deeper than 256 levels/,
  },
  {
    name: 'a run_start body nested 100 000 deep',
    forge: set('UPDATE events SET body = ? WHERE seq = 1', DEEP),
    exits: RUN_START,
    verify: 1,
    message: /event 1: its body is nested deeper than 256 levels/,
  },
  {
    name: 'a run_end body that is not JSON',
    forge: set("UPDATE events SET body = 'success' WHERE seq = 11"),
    exits: [2, 2, 2, 2, 0, 2, 2, 0, 2],
    verify: 1,
    message: /event 11: its body is not JSON/,
  },
  {
    name: 'a t_ms that is text',
    forge: set("UPDATE events SET t_ms = 'soon' WHERE seq = 3"),
    exits: ROW,
    verify: 1,
    message: /event 3: its t_ms is text \("soon"\), not a time/,
  },
  {
    name: 'a t_ms past the range of dates',
    forge: set('UPDATE events SET t_ms = 1e300 WHERE seq = 3'),
    exits: ROW,
    verify: 1,
    message: /event 3: its t_ms is the number 1e\+300, not a time/,
  },
  {
    name: 'a t_ms that is NULL (the NOT NULL edited out of the schema around it)',
    forge: () => undefined,
    patch: (file) => {
      patchBytes(file, 't_ms REAL NOT NULL', 't_ms REAL         ');
      const db = new Database(file);
      unguarded(db, () => db.exec('UPDATE events SET t_ms = NULL WHERE seq = 3'));
      db.close();
      patchBytes(file, 't_ms REAL         ', 't_ms REAL NOT NULL');
    },
    exits: ROW,
    verify: 1,
    message: /event 3: its t_ms is NULL, not a time/,
  },
  {
    name: 'a body that is a blob',
    forge: set("UPDATE events SET body = x'00ff' WHERE seq = 3"),
    exits: ROW,
    verify: 1,
    message: /event 3: its body is a blob of 2 bytes, not text/,
  },
  {
    name: 'a body over the size limit',
    forge: set('UPDATE events SET body = ? WHERE seq = 3', `"${'x'.repeat(17 * 1024 * 1024)}"`),
    exits: ROW,
    verify: 1,
    message: /event 3: its body is larger than 16 MiB/,
  },
  // Readable; only the chain says what is wrong.
  {
    name: 'a removed row (a sequence gap)',
    forge: set('DELETE FROM events WHERE seq = 5'),
    exits: [0, 0, 0, 0, 0, 0, 0, 0, 0],
    verify: 1,
    message: /sequence gap/,
  },
  {
    name: 'a t_ms with a fraction',
    forge: set('UPDATE events SET t_ms = t_ms + 0.25 WHERE seq = 3'),
    exits: [0, 0, 0, 0, 0, 0, 0, 0, 0],
    verify: 1,
    message: /hash does not match/,
  },
];

test(
  'every audit command on values the writer never stores: its documented exit code and a message naming the file and the event, never 70',
  { timeout: 300_000 },
  async () => {
    const w = await written;
    for (const [k, c] of CASES.entries()) {
      const db = forged(w.file, dir, `values-${k}.sqlite`, c.forge);
      c.patch?.(db);
      for (const [i, command] of COMMANDS.entries()) {
        const r = await cli('audit', ...args(command, db, w.mission, k * 10 + i));
        assert.equal(
          r.code,
          c.exits[i],
          `${c.name}: audit ${command} exits ${c.exits[i]}, got ${r.code}: ${r.err.trim().slice(0, 300)}`,
        );
        if (r.code === 2) {
          assert.ok(
            r.err.startsWith(`error: ${db}: `),
            `${c.name}: audit ${command}: the message names the file: ${r.err.slice(0, 300)}`,
          );
          assert.match(r.err, c.message, `${c.name}: audit ${command}`);
        }
      }
      const v = await cli('audit', 'verify', db);
      assert.equal(v.code, c.verify, `${c.name}: verify exits ${c.verify}: ${v.out}${v.err}`);
      assert.match(v.out, /NOT intact: (events|schema) /, c.name);
    }
  },
);
