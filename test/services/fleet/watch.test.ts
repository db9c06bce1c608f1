/**
 * `witness audit push --watch` against a real PostgreSQL (server.ts), the CLI spawned as a lab PC runs it: a log
 * pushed as a writer appends to it, the server restarted under it, a log replaced under it, and SIGTERM ending it after
 * the batch being sent. Skipped, saying why, only where PostgreSQL is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AuditLog } from '../../../main/services/audit/store.js';
import { verifyStore } from '../../../main/services/fleet/verify.js';
import { auditVerify } from '../../../main/app/audit.js';
import { type PgServer, pgMissing, startPg, freshStore as newStore } from './server.js';

const BIN = fileURLToPath(new URL('../../../../bin/witness.js', import.meta.url));
const skip = pgMissing() ?? false;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A watching push, spawned; what it printed so far, and its exit. */
function watch(file: string, url: string, ...more: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [BIN, 'audit', 'push', file, '--to', url, '--watch', '--interval', '100ms', ...more],
    { stdio: 'pipe' },
  );
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, out, exited };
}

describe('push --watch on a real PostgreSQL', { skip }, () => {
  let server: PgServer;
  let dir: string;
  let n = 0;
  /** A fresh database of the server with the fleet schema; its owner's URL. */
  const freshStore = (): Promise<string> => newStore(server, `watch${++n}`);
  async function count(url: string): Promise<number> {
    const c = new pg.Client(url);
    await c.connect();
    try {
      return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM witness.events')).rows[0]!.n);
    } finally {
      await c.end();
    }
  }
  /** Waits until the store holds `want` events (the server may be away meanwhile). */
  async function until(url: string, want: number, what: string): Promise<void> {
    let held = -1;
    for (let i = 0; i < 600; i++) {
      held = await count(url).catch(() => -1);
      if (held === want) return;
      await sleep(50);
    }
    assert.fail(`${what}: the store holds ${held} events, not ${want}`);
  }

  before(() => {
    server = startPg();
    dir = mkdtempSync(join(tmpdir(), 'witness-watch-'));
  });
  after(() => server?.stop());

  test('a log pushed as a writer appends to it; SIGTERM stops it with a summary, exit 0, nothing lost or doubled', async () => {
    const url = await freshStore();
    const file = join(dir, 'growing.sqlite');
    const log = AuditLog.open(file);
    const run = await log.startRun({
      world: 'w',
      backend: 'test',
      operator: 'op',
      software: 'test',
      models: {},
      spec: 'G !x',
    });
    const w = watch(file, url, '--batch', '300');
    let local = 1;
    // The writer appends in bursts while the watch runs (WAL mode, the log open for writing all along).
    for (let burst = 0; burst < 12; burst++) {
      const ps: Promise<number>[] = [];
      for (let i = 0; i < 250; i++) ps.push(log.append(run, 'tool_call', { burst, i }, { tool: 'grip', step: i }));
      await Promise.all(ps);
      local += 250;
      await sleep(40 + (burst % 3) * 60);
    }
    await until(url, local, 'after the writer stopped');
    // A last burst, then SIGTERM as soon as its first batch is in: the watch ends after a batch, never inside one.
    const ps: Promise<number>[] = [];
    for (let i = 0; i < 3000; i++) ps.push(log.append(run, 'tool_call', { last: i }, { tool: 'grip', step: i }));
    await Promise.all(ps);
    local += 3000;
    for (let i = 0; i < 400 && (await count(url)) < local - 3000 + 300; i++) await sleep(5);
    const signalled = performance.now();
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0, w.out.stderr);
    // A command that must stop cleanly still ends within 2 s of the signal: after the batch being sent.
    assert.ok(performance.now() - signalled < 2000, `the watch took ${performance.now() - signalled} ms to stop`);
    await log.close();
    assert.match(w.out.stdout, /growing\.sqlite → postgres:\/\/witness:\*\*\*@127\.0\.0\.1:\d+\/watch\d+: watched /);
    assert.match(w.out.stdout, /interrupted \(SIGTERM\)/);
    assert.match(w.out.stderr, /push --watch: sent \d+ events/);
    const held = await count(url);
    assert.equal((held - 1) % 250 === 0 || (held - 1 - 3000) % 300 === 0 || held === local, true, `${held}`);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, held);
    // What the watch left, the next push finishes.
    const again = watch(file, url);
    await until(url, local, 'a second watch');
    const interrupted = performance.now();
    again.child.kill('SIGINT');
    assert.equal(await again.exited, 0, again.out.stderr);
    assert.ok(performance.now() - interrupted < 2000, `the watch took ${performance.now() - interrupted} ms to stop`);
    assert.equal((await verifyStore(url)).sources[0]!.head, auditVerify(file).head);
  });

  test('the server restarted under a watch: it says so, tries again, and sends each event once', async () => {
    const url = await freshStore();
    const file = join(dir, 'restarted.sqlite');
    const log = AuditLog.open(file);
    const run = await log.startRun({ world: 'w', backend: 'test', operator: 'op', software: 't', models: {} });
    const append = async (k: number): Promise<void> => {
      const ps: Promise<number>[] = [];
      for (let i = 0; i < k; i++) ps.push(log.append(run, 'tool_call', { i }, { tool: 'grip', step: i }));
      await Promise.all(ps);
    };
    await append(2000);
    const w = watch(file, url, '--batch', '100');
    for (let i = 0; i < 400 && (await count(url)) === 0; i++) await sleep(10);
    server.restart();
    await append(2000);
    await until(url, 4001, 'after the restart');
    w.child.kill('SIGTERM');
    assert.equal(await w.exited, 0, w.out.stderr);
    await log.close();
    assert.match(w.out.stderr, /the server cannot be reached or went away .*; trying again in \d+\.\d s/);
    assert.doesNotMatch(w.out.stderr + w.out.stdout, new RegExp(server.password));
    assert.match(w.out.stdout, /sent 4001 events .* [1-9]\d* times the store could not be reached/);
    const v = await verifyStore(url);
    assert.equal(v.ok, true, JSON.stringify(v.firstBad));
    assert.equal(v.events, 4001);
  });

  test('a log replaced under a watch (another history) is refused as a fork: exit 2, the store unchanged', async () => {
    const url = await freshStore();
    const file = join(dir, 'replaced.sqlite');
    const other = join(dir, 'replacement.sqlite');
    for (const [f, tag] of [
      [file, 'a'],
      [other, 'b'],
    ] as const) {
      const log = AuditLog.open(f);
      const run = await log.startRun({ world: tag, backend: 'test', operator: 'op', software: 't', models: {} });
      for (let i = 0; i < 50; i++) await log.append(run, 'tool_call', { i, tag }, { tool: 'grip', step: i });
      await log.close();
    }
    const w = watch(file, url);
    await until(url, 51, 'the first round');
    copyFileSync(other, file);
    assert.equal(await w.exited, 2, w.out.stderr);
    assert.match(w.out.stderr, /refused: .*replaced\.sqlite no longer extends what was pushed of it: its event 51/);
    assert.equal(await count(url), 51);
  });
});
