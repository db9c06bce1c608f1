// @slow: runs `witness bench fleet` end to end twice on real PostgreSQL servers (not in npm run test:quick)
/**
 * `witness bench fleet` at tiny sizes, end to end: on a private server it starts and removes itself, and on a named
 * server, where it works in a database of its own and leaves the named one as it found it. The figures it prints are
 * checked against what it generated (every event pushed and verified, every failure record counted by the report,
 * the report's plan naming an index). Skipped, saying why, only where PostgreSQL is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { FleetBenchResult } from '../../../main/bench/fleet-bench.js';
import { fleetTable } from '../../../main/bench/fleet-bench.js';
import { type PgServer, pgMissing, startPg } from '../../services/fleet/server.js';
import { endedBy } from '../../cli/signal-end.js';

const BIN = fileURLToPath(new URL('../../../../bin/witness.js', import.meta.url));
const skip = pgMissing() ?? false;

/** Runs the CLI with its own temporary folder; its exit code, output and that folder. */
function cli(args: string[]): { status: number | null; out: string; err: string; tmp: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'fleet-bench-test-'));
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: tmp },
  });
  return { status: r.status, out: r.stdout, err: r.stderr, tmp };
}

/** Processes whose command line or environment names `dir` (a server's data folder, a child given it as TMPDIR). */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes(dir) || readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`TMPDIR=${dir}`))
        found.push(`${pid}: ${cmd.replaceAll('\0', ' ')}`);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** What every run's figures must show, whatever the server. */
function checkFigures(r: FleetBenchResult, events: number, total: number): void {
  assert.equal(r.sources, 20);
  assert.equal(r.generate.events, total);
  assert.deepEqual([r.push1.events, r.push1.processes, r.push1.logs], [events, 1, 1]);
  assert.deepEqual([r.push1Warmup.events, r.push1Warmup.processes, r.push1Warmup.logs], [events, 1, 1]);
  assert.deepEqual([r.push4.events, r.push4.processes, r.push4.logs], [events, 4, 4]);
  assert.deepEqual([r.pushRest.events, r.pushRest.logs], [total - 2 * events, 15]);
  for (const p of [r.push1Warmup, r.push1, r.push4, r.pushRest]) assert.ok(p.perSecond > 0 && p.s > 0);
  assert.equal(r.localVerify.events, events);
  assert.deepEqual([r.verify.ok, r.verify.events, r.verify.sources], [true, total, 20]);
  assert.equal(r.verify.runs, r.generate.runs);
  const [week, all] = r.reports;
  assert.ok(week !== undefined && all !== undefined);
  // The whole history's report counts every failure record the logs hold; the last week's, some of them.
  assert.equal(all.failures, r.generate.failures);
  assert.ok(r.generate.failures > 0 && week.failures > 0 && week.failures < all.failures);
  for (const q of r.reports) {
    // A store this small is read whole by any planner; that the reports use their indexes on a store of a realistic
    // size is test/services/fleet/report.test.ts's. Here: the plan is of the report's own table, and printed.
    assert.ok(
      q.plan.some((l) => /\bon failures\b/.test(l)),
      `the report reads witness.failures: ${q.plan.join('\n')}`,
    );
    assert.ok(q.plan.some((l) => /Execution Time/.test(l)));
    assert.ok(q.p50_ms > 0 && q.seqscan_ms > 0);
  }
  assert.ok(r.size.onePc.storeBytes > 0 && r.size.onePc.sqliteBytes > 0);
  assert.ok(r.size.all.storeBytes > r.size.onePc.storeBytes && r.size.all.sqliteBytes > r.size.onePc.sqliteBytes);
}

describe('witness bench fleet', { skip }, () => {
  let server: PgServer;
  before(() => {
    server = startPg();
  });
  after(() => server?.stop());

  test('on a private server it starts: every figure from what it generated, nothing left behind', () => {
    const r = cli(['bench', 'fleet', '--events', '1000', '--verify-events', '3600', '--json']);
    assert.equal(r.status, 0, r.err);
    const fig = JSON.parse(r.out) as FleetBenchResult;
    checkFigures(fig, 1000, 3600);
    assert.match(fig.store, /private PostgreSQL/);
    assert.match(fig.content, /audit writer/);
    // Its server and its logs are gone (their folders were in its TMPDIR).
    assert.deepEqual(readdirSync(r.tmp), []);
    const table = fleetTable(fig);
    assert.match(table, /push from four PCs at once: 1000 events from 4 logs/);
    assert.match(table, /store \/ SQLite \d/);
    assert.match(table, /on failures\b/);
  });

  test('on a named server: a database of its own, the named one left as it was, no password printed', async () => {
    const c = new pg.Client(server.url);
    await c.connect();
    try {
      const dbs = async (): Promise<string[]> =>
        (await c.query<{ d: string }>('SELECT datname AS d FROM pg_database ORDER BY 1')).rows.map((x) => x.d);
      const before = await dbs();
      const r = cli(['bench', 'fleet', '--events', '1000', '--verify-events', '4000', '--to', server.url, '--json']);
      assert.equal(r.status, 0, r.err);
      checkFigures(JSON.parse(r.out) as FleetBenchResult, 1000, 4000);
      assert.ok(!(r.out + r.err).includes(server.password), 'the password is never printed');
      assert.deepEqual(await dbs(), before, 'its own database dropped, no other made or removed');
      const schema = await c.query("SELECT 1 FROM pg_namespace WHERE nspname = 'witness'");
      assert.equal(schema.rowCount, 0, 'nothing written into the named database');
    } finally {
      await c.end();
    }
  });

  test('Ctrl-C or SIGTERM while it writes or pushes: ended within 2 s, its PostgreSQL, processes and folders gone', async () => {
    for (const [sig, when] of [
      ['SIGTERM', /pushing from one PC/],
      ['SIGINT', /writing 20 logs/],
    ] as const) {
      const tmp = mkdtempSync(join(tmpdir(), 'fleet-bench-signal-'));
      const child = spawn(process.execPath, [BIN, 'bench', 'fleet', '--events', '20000', '--verify-events', '100000'], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        while (!when.test(err) && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
        // Under way: its server up, or its writer processes started.
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(child.exitCode, null, `finished before the signal: ${err}`);
        const t0 = performance.now();
        child.kill(sig);
        await exited;
        const ms = performance.now() - t0;
        assert.ok(ms <= 2000, `${sig}: ended ${ms.toFixed(0)} ms after it`);
        assert.ok(endedBy(sig, { code: child.exitCode, signal: child.signalCode }), `${sig}: ${child.exitCode} ${err}`);
        // The logs' folder goes with its reaper, moments after the exit (platform/scratch.ts).
        for (
          const end = Date.now() + 2000;
          Date.now() < end && readdirSync(tmp).length + processesUsing(tmp).length > 0;
        )
          await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(readdirSync(tmp), [], `${sig}: its server's and its logs' folders removed`);
        assert.deepEqual(processesUsing(tmp), [], `${sig}: no process of it left`);
      } finally {
        child.kill('SIGKILL');
      }
    }
  });

  test('refuses too few --verify-events for --events, and a URL that is not PostgreSQL, before any work', () => {
    const few = cli(['bench', 'fleet', '--events', '1000', '--verify-events', '2500']);
    assert.equal(few.status, 2, few.err);
    assert.match(few.err, /--verify-events 2500 is too few.*at least 3500/);
    const bad = cli(['bench', 'fleet', '--events', '1000', '--verify-events', '3500', '--to', 'mysql://x@y/z']);
    assert.equal(bad.status, 2, bad.err);
    assert.match(bad.err, /not a PostgreSQL URL/);
    assert.deepEqual(readdirSync(bad.tmp), []);
  });
});
