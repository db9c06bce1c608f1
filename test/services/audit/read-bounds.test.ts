/**
 * The reads the audit browser makes (and its worker, and the exports) on values the writer never
 * stores: each returns what a person can read or refuses with a WitnessError naming the event, the
 * run or the blob (and the limit) — never a RangeError from a body nested 100 000 deep, a TypeError
 * from a time that is text, or a blob loaded past its limit. A read-only connection runs nothing the
 * schema would have it run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openAuditReadOnly, sha256 } from '../../../main/services/audit/store.js';
import { eventDetail, facets, locate, queryRows, runOf, runsPage } from '../../../main/services/audit/browse.js';
import { replayRun } from '../../../main/services/audit/replay.js';
import { foxgloveStream } from '../../../main/services/audit/foxglove.js';
import { getBlob, listRuns, verifyChain } from '../../../main/services/audit/forensics.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { forged, unguarded, writtenLog } from './forge.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-read-bounds-'));
const written = writtenLog(dir);
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
let n = 0;

async function reading<T>(
  change: (db: Database.Database) => void,
  read: (db: Database.Database, mission: string) => T,
): Promise<T> {
  const w = await written;
  const file = forged(w.file, dir, `b${n++}.sqlite`, (db) => unguarded(db, () => change(db)));
  const db = openAuditReadOnly(file);
  try {
    return read(db, w.mission);
  } finally {
    db.close();
  }
}

/** A WitnessError that is not internal, matching `re`. */
const refused =
  (code: string, re: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(
      e instanceof WitnessError,
      `a WitnessError, not ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
    );
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return true;
  };

const run = (db: Database.Database, id: string) => runOf(db, id)!;

test('a connection to evidence runs nothing the schema would have it run, and writes nothing', async () => {
  await reading(
    () => undefined,
    (db) => {
      assert.equal(db.pragma('trusted_schema', { simple: true }), 0);
      assert.equal(db.pragma('query_only', { simple: true }), 1);
      assert.throws(() => db.exec("INSERT INTO blobs VALUES ('a', 'b', 'c')"), /readonly|query_only/i);
    },
  );
});

test('a body nested 100 000 deep: the detail shows it as text, the table summarises it, the replay and the Foxglove stream refuse naming the event', async () => {
  await reading(
    (db) => db.prepare('UPDATE events SET body = ? WHERE seq = 3').run(`{"state":${DEEP}}`),
    (db, mission) => {
      const d = eventDetail(db, 3);
      assert.equal(typeof d.body, 'string', 'shown as the text it is');
      // What the transports do with it: neither overflows.
      assert.ok(JSON.stringify(d).length > 200_000);
      structuredClone(d);
      const page = queryRows(db, { run: mission }, { limit: 20 });
      assert.equal(page.events.length, 11);
      assert.throws(
        () => replayRun(db, run(db, mission)),
        refused('invalid-input', /^event 3: its body is nested deeper than 256 levels/),
      );
      assert.throws(
        () => [...foxgloveStream(db, run(db, mission))],
        refused('invalid-input', /^event 3: its body is nested deeper than 256 levels/),
      );
      assert.equal(verifyChain(db).firstBad?.key, '3');
    },
  );
});

test('a run_start nested 100 000 deep, a run_end that is not JSON: the runs list refuses naming the event', async () => {
  await reading(
    (db) => db.prepare('UPDATE events SET body = ? WHERE seq = 1').run(`{"world":${DEEP}}`),
    (db) => {
      assert.throws(
        () => runsPage(db, { limit: 200 }),
        refused('invalid-input', /^event 1: its body is nested deeper than 256 levels/),
      );
      assert.throws(() => listRuns(db), refused('invalid-input', /^event 1: /));
    },
  );
  await reading(
    (db) => db.exec("UPDATE events SET body = 'success' WHERE seq = 11"),
    (db) => {
      assert.throws(() => runsPage(db, { limit: 200 }), refused('invalid-input', /^event 11: its body is not JSON/));
    },
  );
});

test('a t_ms that is text: the page, the event, the search by time and the replay refuse naming the event; the runs list and the facets read on', async () => {
  await reading(
    (db) => db.exec("UPDATE events SET t_ms = 'soon' WHERE seq = 3"),
    (db, mission) => {
      const r = run(db, mission);
      assert.equal(r.events, 11);
      const f = facets(db, mission);
      assert.equal(typeof f.firstMs, 'number');
      assert.equal(typeof f.lastMs, 'number');
      const text = /^event 3: its t_ms is text \("soon"\), not a time/;
      assert.throws(() => queryRows(db, { run: mission }, { limit: 20 }), refused('invalid-input', text));
      assert.throws(() => eventDetail(db, 3), refused('invalid-input', text));
      assert.throws(() => locate(db, { run: mission }, { tMs: 1e20 }), refused('invalid-input', text));
      assert.throws(() => replayRun(db, r), refused('invalid-input', text));
    },
  );
});

test('values over their limits are not loaded: a body, a blob, a tool name; a body or blob that is a blob of bytes', async () => {
  const big = 'x'.repeat(17 * 1024 * 1024);
  await reading(
    (db) => db.prepare('UPDATE events SET body = ? WHERE seq = 3').run(JSON.stringify(big)),
    (db) => {
      assert.throws(
        () => eventDetail(db, 3),
        refused('too-large', /^event 3: its body is larger than 16 MiB, the most Witness writes or reads/),
      );
    },
  );
  await reading(
    (db) => db.prepare('UPDATE events SET tool = ? WHERE seq = 13').run(big),
    (db, mission) => {
      assert.throws(() => eventDetail(db, 13), refused('too-large', /^event 13: its tool is larger than 1 MiB/));
      assert.equal(run(db, mission).events, 11);
    },
  );
  const spec = sha256('F e1 & G !e0');
  await reading(
    (db) => db.prepare('UPDATE blobs SET body = ? WHERE sha256 = ?').run('y'.repeat(65 * 1024 * 1024), spec),
    (db) => {
      assert.throws(
        () => getBlob(db, spec),
        refused('too-large', new RegExp(`^the blob ${spec}: its body is larger than 64 MiB`)),
      );
    },
  );
  await reading(
    (db) => db.exec("UPDATE events SET body = x'7b7d' WHERE seq = 3"),
    (db) => {
      assert.throws(
        () => eventDetail(db, 3),
        refused('invalid-input', /^event 3: its body is a blob of 2 bytes, not text/),
      );
    },
  );
});

test('a regions blob nested 100 000 deep and a monitor event whose states are not a list: the replay reads on', async () => {
  await reading(
    (db) => {
      db.prepare("UPDATE blobs SET body = ? WHERE kind = 'regions'").run(DEEP);
      db.prepare("UPDATE events SET kind = 'monitor_event', body = ? WHERE seq = 4").run('{"states":"all","labels":7}');
    },
    (db, mission) => {
      const r = replayRun(db, run(db, mission));
      assert.equal(r.scene.propositions.length, 0, 'no regions read from a blob that is not a regions document');
      assert.deepEqual(r.monitor[0]?.states, []);
      assert.match(eventDetail(db, 4).row.summary, /^states \{all\} labels \{7\}$/);
    },
  );
});
