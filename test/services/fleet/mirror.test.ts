/**
 * Mirrors of the fleet store's sources against a real PostgreSQL (server.ts): a mirror reads as the log it was pushed
 * from (the CLI's read commands print the same bytes), a grown log pulls only what is new, a row changed in the store
 * is refused naming the source and the event, and a reader role suffices. Skipped, saying why, only where PostgreSQL
 * is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog, type EventRow, eventHash } from '../../../main/services/audit/store.js';
import { pushLog } from '../../../main/services/fleet/push.js';
import { mirrorPath, mirrorSource } from '../../../main/services/fleet/mirror.js';
import { auditVerify } from '../../../main/app/audit.js';
import { writtenLog } from '../audit/forge.js';
import { run } from '../../../main/cli/main.js';
import { type PgServer, pgMissing, startPg, freshStore as newStore, sql } from './server.js';

const skip = pgMissing() ?? false;

/** Appends `n` tool calls in a new run (two tools sharing one schema text) to the log `file`. */
async function grow(file: string, n: number, tag = 'a'): Promise<void> {
  const log = AuditLog.open(file);
  const run = await log.startRun({
    world: `world-${tag}`,
    backend: 'test',
    operator: 'op',
    software: 'test',
    models: {},
    spec: `G !hazard_${tag}`,
    toolSchemas: { grip: '{"type":"object"}', lift: '{"type":"object"}' },
  });
  const ps: Promise<number>[] = [];
  for (let i = 0; i < n; i++)
    ps.push(log.append(run, i % 7 === 6 ? 'failure_record' : 'tool_call', { i, tag }, { tool: 'grip', step: i }));
  await Promise.all(ps);
  await log.append(run, 'run_end', { outcome: 'success' });
  await log.close();
}

/** Runs the CLI in this process: its exit code and output. */
async function cli(args: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '',
    err = '';
  const status = await run(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { status, out, err };
}

/** The read commands' output on `file`: every one that must be the same on a mirror as on the log. */
async function readings(file: string, dir: string, tag: string): Promise<string[]> {
  const runs = JSON.parse((await cli(['audit', 'ls', file, '--json'])).out) as { id: string }[];
  const out: string[] = [];
  for (const args of [
    ['ls', file],
    ['ls', file, '--json'],
    ['query', file, '--limit', '100000'],
    ['query', file, '--json', '--limit', '100000'],
    ['query', file, '--tool', 'grip', '--json'],
    ...runs.map((r) => ['show', file, r.id.slice(0, 8), '--json']),
    ...runs.map((r) => ['show', file, r.id]),
  ]) {
    const r = await cli(['audit', ...args]);
    assert.equal(r.status, 0, r.err);
    out.push(r.out);
  }
  for (const format of ['jsonl', 'csv']) {
    const dest = join(dir, `${tag}.${format}`);
    assert.equal((await cli(['audit', 'export', file, '--format', format, '--out', dest])).status, 0);
    out.push(readFileSync(dest, 'utf8'));
  }
  return out;
}

describe('mirrors of the fleet store on a real PostgreSQL', { skip }, () => {
  let server: PgServer;
  let dir: string;
  let n = 0;
  /** A fresh database of the server with the fleet schema; its owner's URL. */
  const freshStore = (): Promise<string> => newStore(server, `mirror${++n}`);
  const logIdOf = async (file: string): Promise<string> =>
    (JSON.parse((await cli(['audit', 'query', file, '--limit', '1', '--json'])).out) as { hash: string }).hash;

  before(() => {
    server = startPg();
    dir = mkdtempSync(join(tmpdir(), 'witness-mirror-'));
  });
  after(() => server?.stop());

  test('a mirror reads as the log it was pushed from; a grown log pulls only what is new', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'lab.sqlite');
    await grow(w.file, 40);
    await pushLog(w.file, url, { host: 'pc1', robot: 'arm1' });
    const logId = await logIdOf(w.file);
    const file = mirrorPath(join(dir, 'cache'), url, logId);
    const seen: number[] = [];
    const first = await mirrorSource(url, logId, file, { batch: 9, progress: (k) => seen.push(k) });
    const total = auditVerify(w.file).events;
    assert.deepEqual(
      { events: first.events, pulled: first.pulled, host: first.host, robot: first.robot, log_id: first.log_id },
      { events: total, pulled: total, host: 'pc1', robot: 'arm1', log_id: logId },
    );
    assert.equal(first.head, auditVerify(w.file).head);
    assert.equal(seen.at(-1), total);
    assert.ok(seen.length >= Math.ceil(total / 9), `pulled in batches: ${seen.join(',')}`);
    const v = auditVerify(file);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.deepEqual(await readings(file, dir, 'm1'), await readings(w.file, dir, 'o1'));

    const again = await mirrorSource(url, logId, file);
    assert.equal(again.pulled, 0);
    await grow(w.file, 25, 'b');
    await pushLog(w.file, url, { host: 'pc1' });
    const more = await mirrorSource(url, logId, file, { batch: 10 });
    assert.equal(more.pulled, 27);
    assert.equal(more.events, total + 27);
    assert.equal(auditVerify(file).ok, true);
    assert.deepEqual(await readings(file, dir, 'm2'), await readings(w.file, dir, 'o2'));
  });

  test('two pulls of one mirror at once take turns: each batch lands once, the mirror whole', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'twice.sqlite');
    await grow(w.file, 60);
    await pushLog(w.file, url);
    const logId = await logIdOf(w.file);
    const file = join(dir, 'twice-mirror.sqlite');
    const [a, b] = await Promise.all([
      mirrorSource(url, logId, file, { batch: 1 }),
      mirrorSource(url, logId, file, { batch: 2 }),
    ]);
    const total = auditVerify(w.file).events;
    assert.equal(a.events, total);
    assert.equal(b.events, total);
    assert.equal(a.pulled + b.pulled, total, `${a.pulled} + ${b.pulled}`);
    // (Whether both pulled some depends on the machine's timing: either way each batch landed once.)
    const v = auditVerify(file);
    assert.deepEqual([v.ok, v.events, v.head], [true, total, auditVerify(w.file).head]);
  });

  test('a pull killed with SIGKILL leaves whole batches; the next pull finishes it', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'killed.sqlite');
    await grow(w.file, 300);
    await pushLog(w.file, url);
    const logId = await logIdOf(w.file);
    const total = auditVerify(w.file).events;
    const mirror = new URL('../../../main/services/fleet/mirror.js', import.meta.url).href;
    for (let k = 0; k < 3; k++) {
      const file = join(dir, `killed-${k}.sqlite`);
      const code = `const m = await import(${JSON.stringify(mirror)});
        await m.mirrorSource(${JSON.stringify(url)}, ${JSON.stringify(logId)}, ${JSON.stringify(file)},
          { batch: 2, progress: (n) => process.stdout.write(n + '\\n') });`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let seen = 0;
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          seen += d.toString().split('\n').length - 1;
          if (seen >= 5 + 20 * k) child.kill('SIGKILL');
        });
        child.on('exit', () => resolve());
      });
      const landed = auditVerify(file);
      assert.equal(landed.ok, true, JSON.stringify(landed.firstBad));
      assert.ok(landed.events > 0 && landed.events < total && landed.events % 2 === 0, `${landed.events} of ${total}`);
      const rest = await mirrorSource(url, logId, file);
      assert.deepEqual([rest.pulled, rest.events], [total - landed.events, total]);
      assert.equal(auditVerify(file).head, auditVerify(w.file).head);
    }
  });

  test('an event body or a blob larger than a reader reads is refused before it is loaded', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'huge.sqlite');
    await pushLog(w.file, url);
    const logId = await logIdOf(w.file);
    const file = join(dir, 'huge-mirror.sqlite');
    await mirrorSource(url, logId, file);
    // The owner drops the store's caps (an owner can), then appends an event that links to the chain and names a
    // plan blob of 64 MiB and a byte: the reader must not trust the store's constraints.
    await sql(url, 'ALTER TABLE witness.blobs DROP CONSTRAINT blobs_body_size');
    const last = (await sql<EventRow>(url, 'SELECT * FROM witness.events ORDER BY seq DESC LIMIT 1'))[0]!;
    await sql(
      url,
      `INSERT INTO witness.blobs SELECT encode(sha256(convert_to(b, 'UTF8')), 'hex'), 'plan', b
       FROM (SELECT repeat('x', ${64 * 1024 * 1024 + 1}) AS b) x`,
    );
    const sha = (
      await sql<{ sha256: string }>(url, "SELECT sha256 FROM witness.blobs WHERE kind = 'plan' AND length(body) > 1000")
    )[0]!.sha256;
    const plan = {
      seq: Number(last.seq) + 1,
      run_id: last.run_id,
      t_ms: last.t_ms,
      step: null,
      kind: 'plan',
      tool: null,
      failure_label: null,
      body: JSON.stringify({ plan_sha: sha }),
    };
    const source = (await sql<{ id: string }>(url, 'SELECT id FROM witness.sources'))[0]!.id;
    await sql(url, 'INSERT INTO witness.events VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      source,
      ...Object.values(plan),
      last.hash,
      eventHash(last.hash, plan),
    ]);
    await assert.rejects(mirrorSource(url, logId, file), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'tampered');
      assert.match(e.message, new RegExp(`blob ${sha}: larger than 67108864 bytes`));
      return true;
    });
    const url2 = await freshStore();
    await pushLog(w.file, url2);
    const first = (await sql<EventRow>(url2, 'SELECT * FROM witness.events ORDER BY seq DESC LIMIT 1'))[0]!;
    const big = { ...plan, seq: Number(first.seq) + 1, kind: 'tool_call', body: `"${'y'.repeat(16 * 1024 * 1024)}"` };
    const source2 = (await sql<{ id: string }>(url2, 'SELECT id FROM witness.sources'))[0]!.id;
    await sql(url2, 'ALTER TABLE witness.events DROP CONSTRAINT events_body_size');
    await sql(url2, 'INSERT INTO witness.events VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      source2,
      ...Object.values(big),
      first.hash,
      'f'.repeat(64),
    ]);
    await assert.rejects(
      mirrorSource(url2, logId, join(dir, 'huge-2.sqlite')),
      new RegExp(`event ${big.seq}: its body is larger than 16777216 bytes`),
    );
    assert.equal(auditVerify(join(dir, 'huge-2.sqlite')).events, 0);
  });

  test('the mirror path names the store and the log, never a password or user; a reader role suffices', async () => {
    const url = await freshStore();
    const db = url.slice(url.lastIndexOf('/') + 1);
    await sql(url, `CREATE ROLE forensics${n} LOGIN PASSWORD 'reader-s3cret' IN ROLE witness_reader`);
    const reader = server.urlFor(`forensics${n}`, 'reader-s3cret', db);
    const w = await writtenLog(dir, 'reader.sqlite');
    await pushLog(w.file, url);
    const logId = await logIdOf(w.file);
    const cache = join(dir, 'cache');
    const p = mirrorPath(cache, reader, logId);
    assert.equal(p, mirrorPath(cache, url, logId));
    assert.notEqual(p, mirrorPath(cache, server.urlFor('witness', server.password, 'other'), logId));
    assert.doesNotMatch(p, /s3cret|forensics|witness:/);
    assert.match(p, new RegExp(`127\\.0\\.0\\.1-${server.port}-${db}-[0-9a-f]{12}/${logId}\\.sqlite$`));
    const r = await mirrorSource(reader, logId, p);
    assert.equal(r.events, w.events);
    await assert.rejects(
      mirrorSource(reader, 'f'.repeat(64), join(dir, 'none.sqlite')),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, 'not-found');
        assert.doesNotMatch(e.message, /s3cret/);
        return true;
      },
    );
    assert.equal(existsSync(join(dir, 'none.sqlite')), false);
  });

  test('a row changed in the store is refused, naming the source and the event; a mirror that disagrees too', async () => {
    const url = await freshStore();
    const w = await writtenLog(dir, 'tamper.sqlite');
    await grow(w.file, 20);
    await pushLog(w.file, url, { host: 'pc7', robot: 'arm7' });
    const logId = await logIdOf(w.file);
    const kept = join(dir, 'kept.sqlite');
    await mirrorSource(url, logId, kept);
    await sql(url, 'ALTER TABLE witness.events DISABLE TRIGGER events_append_only');
    await sql(url, `UPDATE witness.events SET body = '{"forged":1}' WHERE seq = 20`);
    const fresh = join(dir, 'fresh.sqlite');
    await assert.rejects(mirrorSource(url, logId, fresh, { batch: 8 }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'tampered');
      assert.match(e.message, new RegExp(`source pc7/arm7/${logId.slice(0, 12)}: event 20: hash does not match`));
      return true;
    });
    // Whole batches before the bad row landed, and nothing after.
    assert.equal(auditVerify(fresh).events, 16);
    // A mirror whose tail the store now contradicts is refused, and rebuilt when asked (then refused at the row).
    await sql(url, `UPDATE witness.events SET hash = '${'a'.repeat(64)}' WHERE seq = ${w.events + 22}`);
    await assert.rejects(mirrorSource(url, logId, kept), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'conflict');
      assert.match(e.message, /does not match the store: its event \d+ has the hash/);
      return true;
    });
    await assert.rejects(mirrorSource(url, logId, kept, { rebuild: true }), /event 20: hash does not match/);
    // A run row changed behind the triggers is refused too.
    const url2 = await freshStore();
    await pushLog(w.file, url2);
    await sql(url2, 'ALTER TABLE witness.runs DISABLE TRIGGER runs_append_only');
    await sql(url2, `UPDATE witness.runs SET world = 'elsewhere' WHERE world = 'world-a'`);
    await assert.rejects(mirrorSource(url2, logId, join(dir, 'runs.sqlite')), /: run [0-9a-f-]+: its world is/);
  });
});
