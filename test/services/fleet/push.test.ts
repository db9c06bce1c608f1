/**
 * The fleet store against a real PostgreSQL (server.ts): push, re-push, growth, forks, tampering on either side, the
 * roles, kills at random points and pushers at once. Skipped, saying why, only where PostgreSQL is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AuditLog, type EventRow, eventHash } from '../../../main/services/audit/store.js';
import { MAX_BLOB_BYTES, MAX_BODY_BYTES, MAX_FIELD_BYTES } from '../../../main/services/audit/rows.js';
import { pushLog } from '../../../main/services/fleet/push.js';
import { verifyStore } from '../../../main/services/fleet/verify.js';
import { initStore } from '../../../main/app/fleet.js';
import { PushSource } from '../../../main/services/audit/push-source.js';
import { FLEET_MIGRATIONS, FLEET_SCHEMA_VERSION } from '../../../main/services/fleet/schema.js';
import { auditVerify } from '../../../main/app/audit.js';
import { forged, unguarded, writtenLog } from '../audit/forge.js';
import { type PgServer, pgMissing, startPg, freshStore as newStore, sql } from './server.js';

const BIN = fileURLToPath(new URL('../../../../bin/witness.js', import.meta.url));
const skip = pgMissing() ?? false;

/** Appends `n` tool calls in a new run to the log `file` (created when missing). */
async function grow(file: string, n: number, tag = 'a', tool = 'grip'): Promise<void> {
  const log = AuditLog.open(file);
  const run = await log.startRun({
    world: `world-${tag}`,
    backend: 'test',
    operator: 'op',
    software: 'test',
    models: {},
    spec: `G !hazard_${tag}`,
  });
  const ps: Promise<number>[] = [];
  for (let i = 0; i < n; i++) ps.push(log.append(run, 'tool_call', { i, tag }, { tool, step: i }));
  await Promise.all(ps);
  await log.close();
}

/** Runs the CLI; its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('the fleet store on a real PostgreSQL', { skip }, () => {
  let server: PgServer;
  let dir: string;
  let n = 0;
  /** A fresh database of the server with the fleet schema; its owner's URL. */
  const freshStore = (): Promise<string> => newStore(server, `fleet${++n}`);
  const count = async (url: string): Promise<number> =>
    Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM witness.events'))[0]!.n);

  before(() => {
    server = startPg();
    dir = mkdtempSync(join(tmpdir(), 'witness-fleet-'));
  });
  after(() => server?.stop());

  test('a push sends the log whole, verified; pushing again sends nothing; a grown log sends only what is new', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'mission.sqlite');
    const first = await pushLog(w.file, url, { robot: 'r1', host: 'pc1', batch: 4 });
    assert.equal(first.sent, w.events);
    assert.equal(first.before, 0);
    const again = await pushLog(w.file, url, { host: 'pc1' });
    assert.equal(again.sent, 0);
    assert.equal(again.robot, 'r1');
    assert.equal(await count(url), w.events);
    await grow(w.file, 30);
    const more = await pushLog(w.file, url, { host: 'pc1', batch: 7 });
    assert.equal(more.before, w.events);
    assert.equal(more.sent, 31);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, w.events + 31);
    assert.equal(v.runs, 3);
    const local = auditVerify(w.file);
    assert.equal(v.blobs, local.blobs);
    assert.equal(v.sources[0]!.head, local.head);
    assert.equal(more.head, local.head);
  });

  test('a log whose history does not extend the store’s is refused, saying why, and the store is unchanged', async () => {
    const url = await freshStore();
    const file = join(dir, 'fork.sqlite');
    await grow(file, 20);
    const old = join(dir, 'fork-old.sqlite');
    copyFileSync(file, old);
    await grow(file, 10, 'b');
    await pushLog(file, url, { host: 'pc1' });
    const held = await count(url);
    await assert.rejects(pushLog(old, url, { host: 'pc1' }), (e: Error) => /rolled back/.test(e.message));
    // A copy of the log that went its own way: another log claiming the same id.
    const copy = join(dir, 'fork-copy.sqlite');
    copyFileSync(old, copy);
    await grow(copy, 15, 'c');
    await assert.rejects(pushLog(copy, url, { host: 'pc1' }), (e: Error) =>
      /another hash locally.*another log claiming the same id/.test(e.message),
    );
    // Rewritten history: an event's body changed and the chain recomputed after it (the local log verifies).
    const rewritten = forged(file, dir, 'fork-rewritten.sqlite', (db) =>
      unguarded(db, () => {
        db.prepare(`UPDATE events SET body = '{"i":0,"tag":"rewritten"}' WHERE seq = 3`).run();
        let prev = db.prepare('SELECT hash FROM events WHERE seq = 2').pluck().get() as string;
        for (const e of db.prepare('SELECT * FROM events WHERE seq >= 3 ORDER BY seq').all() as EventRow[]) {
          const h = eventHash(prev, e);
          db.prepare('UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?').run(prev, h, e.seq);
          prev = h;
        }
      }),
    );
    assert.equal(auditVerify(rewritten).ok, true);
    await assert.rejects(
      pushLog(rewritten, url, { host: 'pc1' }),
      /event 32, the last the store holds .* was rewritten/,
    );
    // The same log pushed from another host.
    await assert.rejects(pushLog(file, url, { host: 'pc2' }), (e: Error) =>
      /registered from host "pc1"/.test(e.message),
    );
    assert.equal(await count(url), held);
    assert.equal((await verifyStore(url)).ok, true);
  });

  test('a tampered log is refused before anything is sent; so is a value PostgreSQL cannot hold', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'tamper-src.sqlite');
    const bad = forged(w.file, dir, 'tampered.sqlite', (db) =>
      unguarded(db, () => db.exec(`UPDATE events SET body = '{"forged":true}' WHERE seq = 5`)),
    );
    await assert.rejects(pushLog(bad, url), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'tampered');
      assert.match(e.message, /does not verify, so nothing was sent: events 5: hash does not match/);
      return true;
    });
    const nul = join(dir, 'nul.sqlite');
    await grow(nul, 3, 'n', 'gr\0ip');
    await assert.rejects(pushLog(nul, url), /refused, nothing sent: .*event 2: its tool holds a NUL character/);
    assert.equal(await count(url), 0);
    assert.equal(Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM witness.runs'))[0]!.n), 0);
    assert.equal(Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM witness.sources'))[0]!.n), 0);
  });

  test('the owner cannot update, delete or truncate evidence; verify --from names a row changed behind the triggers', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'owner.sqlite');
    await pushLog(w.file, url);
    for (const [q, why] of [
      ["UPDATE witness.events SET body = '{}' WHERE seq = 3", /events are append-only: UPDATE refused/],
      ['DELETE FROM witness.events WHERE seq = 14', /events are append-only: DELETE refused/],
      ["UPDATE witness.runs SET world = 'x'", /runs are append-only: UPDATE refused/],
      ['DELETE FROM witness.blobs', /blobs are append-only: DELETE refused/],
      ['TRUNCATE witness.events CASCADE', /append-only: TRUNCATE refused/],
      ["INSERT INTO witness.blobs VALUES ('00', 'spec', 'x')", /blobs_check/],
    ] as const)
      await assert.rejects(sql(url, q), why);
    assert.equal((await verifyStore(url)).ok, true);
    await sql(url, 'ALTER TABLE witness.events DISABLE TRIGGER events_append_only');
    await sql(url, `UPDATE witness.events SET body = '{"forged":1}' WHERE seq = 6`);
    const r = cli(['audit', 'verify', '--from', url]);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /NOT intact: events 6 of log [0-9a-f]{64}: hash does not match its content/);
    assert.match(r.out, /also: schema events_append_only: the trigger events_append_only on events is disabled/);
    assert.doesNotMatch(r.out, new RegExp(server.password));
    assert.match(r.out, /witness:\*\*\*@127\.0\.0\.1/);
  });

  test('the pusher role inserts but cannot update or delete; the reader only reads', async () => {
    const url = await freshStore();
    const db = url.slice(url.lastIndexOf('/') + 1);
    await sql(url, `CREATE ROLE lab_pc${n} LOGIN PASSWORD 'pusher-secret' IN ROLE witness_pusher`);
    await sql(url, `CREATE ROLE console${n} LOGIN PASSWORD 'reader-secret' IN ROLE witness_reader`);
    const pusher = server.urlFor(`lab_pc${n}`, 'pusher-secret', db);
    const reader = server.urlFor(`console${n}`, 'reader-secret', db);
    const w = await writtenLog(dir, 'roles.sqlite');
    const r = await pushLog(w.file, pusher);
    assert.equal(r.sent, w.events);
    for (const q of [
      "UPDATE witness.events SET body = '{}' WHERE seq = 3",
      'DELETE FROM witness.events',
      'DELETE FROM witness.sources',
      'SELECT body FROM witness.events',
    ])
      await assert.rejects(sql(pusher, q), /permission denied/);
    const other = join(dir, 'roles-other.sqlite');
    await grow(other, 5);
    await assert.rejects(pushLog(other, reader), /permission denied/);
    await assert.rejects(sql(reader, "INSERT INTO witness.blobs VALUES ('a', 'b', 'c')"), /permission denied/);
    const v = await verifyStore(reader);
    assert.equal(v.ok, true);
    assert.equal(v.events, w.events);
    // The CLI never prints a password, not even on a failed login.
    const wrong = cli(['audit', 'push', w.file, '--to', server.urlFor(`lab_pc${n}`, 'not-the-secret', db)]);
    assert.equal(wrong.status, 2);
    assert.match(wrong.out, /cannot log in/);
    assert.doesNotMatch(wrong.out, /not-the-secret/);
  });

  test('pushes killed at random points lose and duplicate nothing; the next push finishes', async () => {
    const url = await freshStore();
    const file = join(dir, 'killed.sqlite');
    for (let i = 0; i < 4; i++) await grow(file, 1500, `k${i}`);
    const local = 4 * 1501;
    let seen = 0,
      partial = 0;
    for (let i = 0; i < 10; i++) {
      const child = spawn(process.execPath, [BIN, 'audit', 'push', file, '--to', url, '--batch', '97'], {
        stdio: 'ignore',
      });
      let over = false;
      const exited = new Promise((r) =>
        child.once('exit', () => {
          over = true;
          r(undefined);
        }),
      );
      // Every other kill once the push has begun sending (a batch landed), the others at any moment of its start.
      if (i % 2 === 1)
        for (let k = 0; k < 500 && !over && (await count(url)) === seen; k++)
          await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * (i % 2 === 1 ? 60 : 400))));
      child.kill('SIGKILL');
      await exited;
      const held = await count(url);
      assert.ok(held >= seen && held <= local, `${held} after a kill`);
      seen = held;
      if (held > 0 && held < local) partial++;
      const v = await verifyStore(url);
      assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    }
    assert.ok(partial > 0, 'no kill landed in the middle of a push');
    const done = await pushLog(file, url);
    assert.equal(done.before + done.sent, local);
    assert.equal(await count(url), local);
    assert.equal((await verifyStore(url)).events, local);
  });

  test('a server restarted during a push: the push fails saying so, the next one finishes, nothing lost', async () => {
    const url = await freshStore();
    const file = join(dir, 'restarted.sqlite');
    await grow(file, 6000, 'r');
    const child = spawn(process.execPath, [BIN, 'audit', 'push', file, '--to', url, '--batch', '50'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // Restart once the push has begun sending.
    for (let i = 0; i < 200 && (await count(url).catch(() => 0)) === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    server.restart();
    const status = await exited;
    const held = await count(url);
    if (held < 6001) {
      assert.equal(status, 2, out);
      assert.match(out, /the server cannot be reached or went away/);
      assert.doesNotMatch(out, new RegExp(server.password));
    }
    const done = await pushLog(file, url);
    assert.equal(done.before, held);
    assert.equal(done.before + done.sent, 6001);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, 6001);
  });

  test('a push that has returned is durable: its batches commit without waiting, the last one flushes them all', async () => {
    const url = await freshStore();
    const file = join(dir, 'durable.sqlite');
    await grow(file, 3000, 'd');
    for (let round = 0; round < 3; round++) {
      const r = await pushLog(file, url, { batch: 100 });
      // The server stopped at once, as a crash stops it: what it had not flushed is gone.
      server.restart();
      assert.equal(await count(url), r.local, `round ${round}: the store lost what the push reported sent`);
      await grow(file, 500, `d${round}`);
    }
    assert.equal((await verifyStore(url)).ok, true);
  });

  test('the PG* variables fill in what the URL leaves out, and the JSON answer names the store without a password', async () => {
    const url = await freshStore();
    const db = url.slice(url.lastIndexOf('/') + 1);
    const file = join(dir, 'env.sqlite');
    await grow(file, 10);
    const r = cli(['audit', 'push', file, '--to', `postgres:///${db}`, '--robot', 'r9', '--json'], {
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      PGUSER: 'witness',
      PGPASSWORD: server.password,
    });
    assert.equal(r.status, 0, r.out);
    const j = JSON.parse(r.out) as { sent: number; store: string; robot: string };
    assert.equal(j.sent, 11);
    assert.equal(j.robot, 'r9');
    assert.doesNotMatch(r.out, new RegExp(server.password));
    const v = cli(['audit', 'verify', '--from', `postgres://witness@127.0.0.1:${server.port}/${db}`], {
      PGPASSWORD: server.password,
    });
    assert.equal(v.status, 0, v.out);
    assert.match(v.out, /intact: 11 events, 1 runs, 1 blobs in 1 source/);
  });

  test('pushers at once: two logs side by side, and one log pushed twice at the same time', async () => {
    const url = await freshStore();
    const a = join(dir, 'pc-a.sqlite');
    const b = join(dir, 'pc-b.sqlite');
    await grow(a, 2000, 'a');
    await grow(b, 2000, 'b');
    const rs = await Promise.all([
      pushLog(a, url, { host: 'pc-a', batch: 100 }),
      pushLog(b, url, { host: 'pc-b', batch: 100 }),
      pushLog(a, url, { host: 'pc-a', batch: 100 }),
    ]);
    assert.equal(rs[0].sent + rs[2].sent, 2001);
    assert.equal(rs[1].sent, 2001);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, 4002);
    assert.deepEqual(v.sources.map((s) => s.host).sort(), ['pc-a', 'pc-b']);
  });

  test('four PCs push at once, each on its own lock: one log held up holds up no other', async () => {
    const url = await freshStore();
    const logs = ['pc1', 'pc2', 'pc3', 'pc4'].map((pc) => join(dir, `four-${pc}.sqlite`));
    for (const [i, f] of logs.entries()) await grow(f, 10, `f${i}`);
    // pc1's log is in the store already; another pusher of it holds its lock (a batch of it in progress).
    await pushLog(logs[0]!, url, { host: 'pc1' });
    for (const [i, f] of logs.entries()) await grow(f, 1500, `g${i}`);
    const holder = new pg.Client(url);
    await holder.connect();
    await holder.query('BEGIN');
    const id = (await holder.query<{ id: number }>('SELECT id FROM witness.sources')).rows[0]!.id;
    await holder.query('SELECT pg_advisory_xact_lock(1, $1::int)', [id]);
    let firstDone = false;
    const first = pushLog(logs[0]!, url, { host: 'pc1', batch: 200 }).then((r) => {
      firstDone = true;
      return r;
    });
    const others = await Promise.all(logs.slice(1).map((f, i) => pushLog(f, url, { host: `pc${i + 2}`, batch: 200 })));
    assert.deepEqual(
      others.map((r) => r.sent),
      [1512, 1512, 1512],
    );
    assert.equal(firstDone, false, "pc1's push went on under another pusher's lock");
    await holder.query('COMMIT');
    await holder.end();
    assert.equal((await first).sent, 1501);
    // And all four at once from the start, as four processes.
    for (const [i, f] of logs.entries()) await grow(f, 2000, `h${i}`);
    const runs = await Promise.all(
      logs.map(
        (f, i) =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, [BIN, 'audit', 'push', f, '--to', url, '--host', `pc${i + 1}`, '--batch', '250'], {
              stdio: 'ignore',
            }).once('exit', resolve),
          ),
      ),
    );
    assert.deepEqual(runs, [0, 0, 0, 0]);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, 4 * (11 + 1501 + 2001));
    assert.deepEqual(v.sources.map((s) => s.host).sort(), ['pc1', 'pc2', 'pc3', 'pc4']);
  });

  test('the store refuses, whoever sends them, events that do not link and values over its caps; a refused batch leaves nothing', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'hostile.sqlite');
    await pushLog(w.file, url);
    const db = url.slice(url.lastIndexOf('/') + 1);
    await sql(url, `CREATE ROLE hostile${n} LOGIN PASSWORD 'hostile-secret' IN ROLE witness_pusher`);
    const pusher = server.urlFor(`hostile${n}`, 'hostile-secret', db);
    const [head] = await sql<{ seq: number; hash: string }>(
      url,
      'SELECT seq::int, hash FROM witness.events ORDER BY seq DESC LIMIT 1',
    );
    const h = (c: string): string => c.repeat(64);
    const event = (seq: number, prev: string, t = '1'): string =>
      `INSERT INTO witness.events VALUES (1, ${seq}, 'r', ${t}, NULL, 'tool_call', NULL, NULL, '{}', '${prev}', '${h('e')}')`;
    for (const who of [url, pusher]) {
      for (const [q, why] of [
        [
          event(head!.seq + 2, h('a')),
          /event \d+ of source 1 does not follow one the store holds \(event \d+ is missing\)/,
        ],
        [event(head!.seq + 1, h('a')), /event \d+ of source 1 does not link to the event before it/],
        [event(3, h('a')), /duplicate key value violates unique constraint "events_pkey"/],
        [
          `INSERT INTO witness.events SELECT 1, ${head!.seq + 1}, 'r', 1, NULL, 'k', NULL, NULL, repeat('x', ${MAX_BODY_BYTES + 1}), '${head!.hash}', '${h('f')}'`,
          /events_body_size/,
        ],
        [
          `INSERT INTO witness.blobs SELECT encode(sha256(convert_to(b, 'UTF8')), 'hex'), 'map', b FROM repeat('y', ${MAX_BLOB_BYTES + 1}) b`,
          /blobs_body_size/,
        ],
        [event(head!.seq + 1, head!.hash, "'NaN'"), /events_time/],
        [event(head!.seq + 1, head!.hash).replace(`'${h('e')}')`, `'${h('E')}')`), /events_hash_form/],
        [event(head!.seq + 1, `${head!.hash.slice(0, 63)}g`), /invalid hexadecimal digit: "g"/],
        [event(head!.seq + 1, head!.hash.toUpperCase()), /events_prev_hash_form/],
        [event(head!.seq + 1, head!.hash).replace(`'${h('e')}')`, `'${h('e').slice(2)}é')`), /invalid hexadecimal/],
        [event(head!.seq + 1, head!.hash).replace(`'${h('e')}')`, `'${h('e')}0')`), /events_hash_form/],
        [
          event(1, h('0')).replace('VALUES (1,', 'VALUES (99,'),
          /events of source 99 refused: the store holds no such source/,
        ],
      ] as const)
        await assert.rejects(sql(who, q), why);
    }
    // A batch as a hostile client would send it: a good blob and a good event, then one that does not link. The
    // statement fails, the transaction with it: nothing of it is left.
    const blobs = async (): Promise<number> =>
      Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM witness.blobs'))[0]!.n);
    const held = await blobs();
    const c = new pg.Client(pusher);
    await c.connect();
    await c.query('BEGIN');
    await c.query("INSERT INTO witness.blobs VALUES (encode(sha256('z'::bytea), 'hex'), 'map', 'z')");
    await assert.rejects(
      c.query(
        `${event(head!.seq + 1, head!.hash)}, (1, ${head!.seq + 2}, 'r', 2, NULL, 'k', NULL, NULL, '{}', '${h('b')}', '${h('c')}')`,
      ),
      /event \d+ of source 1 does not link/,
    );
    await c.query('ROLLBACK');
    await c.end();
    assert.equal(await count(url), w.events);
    assert.equal(await blobs(), held);
    assert.equal((await verifyStore(url)).ok, true);
  });

  test('a log with a value over the store’s caps is refused before anything is sent, naming the row and the cap', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'caps-src.sqlite');
    const big = forged(w.file, dir, 'big-blob.sqlite', (db) =>
      unguarded(db, () =>
        db.prepare("UPDATE blobs SET body = ? WHERE kind = 'spec'").run('x'.repeat(MAX_BLOB_BYTES + 1)),
      ),
    );
    const r = cli(['audit', 'push', big, '--to', url]);
    assert.equal(r.status, 2, r.out);
    assert.match(r.out, /does not verify, so nothing was sent: blobs [0-9a-f]{64}: its body is larger than 64 MiB/);
    const body = forged(w.file, dir, 'big-body.sqlite', (db) =>
      unguarded(db, () =>
        db.prepare('UPDATE events SET body = ? WHERE seq = 13').run(`"${'x'.repeat(MAX_BODY_BYTES)}"`),
      ),
    );
    await assert.rejects(pushLog(body, url), /events 13: its body is larger than 16 MiB/);
    await assert.rejects(pushLog(w.file, url, { robot: 'r'.repeat(MAX_FIELD_BYTES + 1) }), /robot name is longer than/);
    // A crafted body under a chain recomputed to match it: the plan (event 2) is not JSON; the hashes all hold.
    const crafted = forged(w.file, dir, 'crafted.sqlite', (db) =>
      unguarded(db, () => {
        db.prepare(`UPDATE events SET body = '{"plan_sha": "x"' WHERE seq = 2`).run();
        let prev = db.prepare('SELECT hash FROM events WHERE seq = 1').pluck().get() as string;
        for (const e of db.prepare('SELECT * FROM events WHERE seq >= 2 ORDER BY seq').all() as EventRow[]) {
          const h = eventHash(prev, e);
          db.prepare('UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?').run(prev, h, e.seq);
          prev = h;
        }
      }),
    );
    await assert.rejects(pushLog(crafted, url), /does not verify, so nothing was sent: events 2: its body is not JSON/);
    assert.equal(Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM witness.sources'))[0]!.n), 0);
    assert.equal(await count(url), 0);
  });

  test('values with tabs, newlines, backslashes and \\N go into the store exactly as they are (COPY’s escapes)', async () => {
    const url = await freshStore();
    const file = join(dir, 'escapes.sqlite');
    const nasty = ['a\tb', 'line\nnext', 'cr\rhere', 'back\\slash', '\\N', '\\.', 'é ∑ 😀', ' '];
    const log = AuditLog.open(file);
    const run = await log.startRun({ world: 'w\tx', backend: 'b\\', operator: 'o\n', software: 's', models: {} });
    for (const [i, v] of nasty.entries())
      await log.append(run, 'tool_call', { v, [v]: i, t: 0.1 + i / 3 }, { tool: v, step: i, t_ms: 1.5e12 + i / 7 });
    await log.close();
    const r = await pushLog(file, url);
    assert.equal(r.sent, nasty.length + 1);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.sources[0]!.head, auditVerify(file).head);
    const tools = await sql<{ tool: string }>(url, 'SELECT tool FROM witness.events WHERE seq > 1 ORDER BY seq');
    assert.deepEqual(
      tools.map((t) => t.tool),
      nasty,
    );
  });

  test('a store of the first version is migrated with its events in place: the caps and the statement-level link hold', async () => {
    const name = `fleet${++n}`;
    await sql(server.url, `CREATE DATABASE ${name}`);
    const url = server.urlFor('witness', server.password, name);
    const c = new pg.Client(url);
    await c.connect();
    await c.query(FLEET_MIGRATIONS[0]!);
    await c.query('INSERT INTO witness.schema_version (version) VALUES (1)');
    const w = await writtenLog(dir, 'migrated.sqlite');
    // Rows as the first version's pusher left them (its row trigger checking each link).
    const src = PushSource.open(w.file) as PushSource;
    const b = src.batch(0, 1000);
    src.close();
    await c.query("INSERT INTO witness.sources (log_id, host) VALUES ($1, 'old')", [b.events[0]![9]]);
    for (const e of b.events)
      await c.query('INSERT INTO witness.events VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', e);
    for (const r of b.runs)
      await c.query('INSERT INTO witness.runs VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', r);
    for (const x of b.blobs) await c.query('INSERT INTO witness.blobs VALUES ($1, $2, $3)', x);
    await c.end();
    assert.deepEqual(await initStore(url), { from: 1, to: FLEET_SCHEMA_VERSION });
    assert.equal((await verifyStore(url)).ok, true);
    await grow(w.file, 40);
    const r = await pushLog(w.file, url, { host: 'old' });
    assert.equal(r.before, w.events);
    assert.equal(r.sent, 41);
    const caps = await sql<{ conname: string; convalidated: boolean }>(
      url,
      "SELECT conname, convalidated FROM pg_constraint WHERE conname LIKE '%_size' ORDER BY conname",
    );
    assert.deepEqual(
      caps.map((k) => [k.conname, k.convalidated]),
      [
        'blobs_body_size',
        'blobs_field_size',
        'events_body_size',
        'events_field_size',
        'runs_field_size',
        'sources_field_size',
      ].map((k) => [k, true]),
    );
    const events = await sql<{ conname: string; contype: string; convalidated: boolean }>(
      url,
      "SELECT conname, contype, convalidated FROM pg_constraint WHERE conrelid = 'witness.events'::regclass ORDER BY conname",
    );
    assert.deepEqual(
      events.filter((k) => k.conname.includes('hash') || k.contype === 'f').map((k) => [k.conname, k.convalidated]),
      [
        ['events_hash_form', true],
        ['events_prev_hash_form', true],
      ],
      'the hash forms without a regular expression; the source checked by the link trigger, not a per-row key',
    );
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, w.events + 41);
  });
});
