/**
 * The audit browser on a fleet store, through the API the console calls (a real PostgreSQL: ../services/fleet/
 * server.ts): the store named with its password masked, the sources listed with their filters, a source mirrored
 * into a verified replica that the audit methods read (runs, events, replay, verify, export), pulled again for what is
 * new, with progress events; a source that does not verify, a store that cannot be reached and a server without a
 * store, each refused with a message that names the store but never its password.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDirectApi, type DirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { startWebServer } from '../../main/api/web/server.js';
import { type EstopSample, startEstopProbe } from './estop-probe.js';
import type { ApiEvent } from '../../main/contract/api.js';
import { WitnessError } from '../../main/contract/errors.js';
import { AuditLog } from '../../main/services/audit/store.js';
import { initStore, pushAudit } from '../../main/app/fleet.js';
import { T0, writeFixture } from './audit-fixture.js';
import { type PgServer, pgMissing, startPg } from '../services/fleet/server.js';

const skip = pgMissing() ?? false;
const now = (): number => performance.timeOrigin + performance.now();
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** A tool-use log of `n` calls of `tool` in the tabletop, at the real time (a second PC); `pad` bytes more each. */
async function toolLog(file: string, n: number, tool = 'grip', pad = 0): Promise<string> {
  const log = AuditLog.open(file);
  const run = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'bo',
    software: 'test',
    models: {},
    spec: 'F placed',
  });
  const note = 'x'.repeat(pad);
  for (let i = 0; i < n; i++)
    void log.append(run, 'tool_call', { tool, arguments: { i, ...(pad > 0 ? { note } : {}) } }, { tool, step: i });
  await log.close();
  return run;
}

async function refused(p: Promise<unknown>): Promise<WitnessError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof WitnessError, String(e));
    return e;
  }
  return assert.fail('expected a refusal');
}

describe('the audit browser on a fleet store (real PostgreSQL)', { skip }, () => {
  let server: PgServer;
  let dir: string;
  let url: string;
  let api: DirectApi;
  const events: ApiEvent[] = [];
  const logA = (): string => path.join(dir, 'pc-a.sqlite');
  const logB = (): string => path.join(dir, 'pc-b.sqlite');
  let small: { run: string; events: number };

  before(async () => {
    server = startPg();
    dir = mkdtempSync(path.join(tmpdir(), 'witness-fleet-console-'));
    const c = new pg.Client(server.url);
    await c.connect();
    await c.query('CREATE DATABASE fleet');
    await c.end();
    url = server.urlFor('witness', server.password, 'fleet');
    await initStore(url);
    small = (await writeFixture(logA(), 0)).small;
    await toolLog(logB(), 5);
    await pushAudit(logA(), url, { host: 'pc-a', robot: 'ant-1' });
    await pushAudit(logB(), url, { host: 'pc-b', robot: 'arm-2' });
    api = createDirectApi({
      transport: 'web',
      workspace: path.join(dir, 'ws'),
      auditFile: path.join(dir, 'own.sqlite'),
      fleet: url,
    });
    api.context.bus.subscribe((e) => events.push(e));
  });
  after(async () => {
    await api?.close();
    server?.stop();
  });

  test('names the store with its password masked; lists the sources, the newest first, with what the table shows', async () => {
    const info = await api.fleetInfo();
    assert.equal(info.store, `postgres://witness:***@127.0.0.1:${server.port}/fleet`);
    const r = await api.fleetSources({});
    assert.equal(r.store, info.store);
    assert.deepEqual(
      r.sources.map((s) => [s.host, s.robot, s.worlds, s.runs, s.events]),
      [
        ['pc-b', 'arm-2', ['tabletop'], 1, 6],
        ['pc-a', 'ant-1', ['pointmaze-medium'], 1, small.events],
      ],
    );
    assert.ok(r.sources.every((s) => /^[0-9a-f]{64}$/.test(s.logId) && s.firstMs !== null && s.lastMs! >= s.firstMs));
    assert.deepEqual(r.choices, {
      robots: ['ant-1', 'arm-2'],
      worlds: ['pointmaze-medium', 'tabletop'],
      hosts: ['pc-a', 'pc-b'],
    });
    assert.doesNotMatch(JSON.stringify([info, r]), new RegExp(server.password));
  });

  test('filters the sources by robot, world, host and time range; a range that ends before it starts is refused', async () => {
    const hosts = async (filter: Parameters<DirectApi['fleetSources']>[0]['filter']): Promise<string[]> =>
      (await api.fleetSources({ filter })).sources.map((s) => s.host);
    assert.deepEqual(await hosts({ robot: 'ant-1' }), ['pc-a']);
    assert.deepEqual(await hosts({ world: 'tabletop' }), ['pc-b']);
    assert.deepEqual(await hosts({ host: 'pc-a' }), ['pc-a']);
    assert.deepEqual(await hosts({ robot: 'ant-1', world: 'tabletop' }), []);
    const day = 86_400_000;
    assert.deepEqual(await hosts({ sinceMs: T0 + day }), ['pc-b']);
    assert.deepEqual(await hosts({ untilMs: T0 + day }), ['pc-a']);
    assert.deepEqual(await hosts({ sinceMs: T0 - day, untilMs: T0 + day }), ['pc-a']);
    for (const [sinceMs, untilMs] of [
      [T0 + day, T0],
      [T0, T0],
    ]) {
      const e = await refused(api.fleetSources({ filter: { sinceMs, untilMs } }));
      assert.deepEqual(
        [e.code, e.message],
        ['invalid-params', 'filter: the time range ends before it starts (until must come after since)'],
      );
    }
  });

  test('opens a source as a verified replica the audit browser reads: runs, events, replay, verify, export', async () => {
    const a = (await api.fleetSources({ filter: { robot: 'ant-1' } })).sources[0]!;
    events.length = 0;
    const m = await api.fleetMirror({ logId: a.logId });
    assert.deepEqual(
      [m.logId, m.host, m.robot, m.events, m.pulled],
      [a.logId, 'pc-a', 'ant-1', small.events, small.events],
    );
    assert.ok(m.file.startsWith(path.resolve(process.env['WITNESS_CACHE'] ?? '')), m.file);
    assert.ok(!m.file.includes(server.password));
    const progress = events.filter((e) => e.topic === 'fleet.mirror');
    assert.ok(progress.length >= 1);
    assert.deepEqual(progress.at(-1), { topic: 'fleet.mirror', logId: a.logId, pulled: small.events });
    const runs = await api.auditRuns({ file: m.file });
    assert.deepEqual(
      runs.runs.map((r) => [r.id, r.world, r.events]),
      [[small.run, 'pointmaze-medium', small.events]],
    );
    const page = await api.auditQuery({ file: m.file, filter: { run: small.run }, limit: 1000 });
    assert.equal(page.events.length, small.events);
    const replay = await api.auditReplay({ file: m.file, run: small.run });
    assert.ok(replay.positions.total > 0 && replay.plans.length > 0);
    assert.equal((await api.auditVerify({ file: m.file })).ok, true);
    const x = await api.auditExport({ file: m.file, run: small.run, format: 'mcap' });
    assert.ok(existsSync(x.path) && x.bytes > 0);
    // Again: nothing new comes.
    assert.equal((await api.fleetMirror({ logId: a.logId })).pulled, 0);
  });

  test('a source pulled again brings what its PC pushed since (the browser tails the replica)', async () => {
    const b = (await api.fleetSources({ filter: { robot: 'arm-2' } })).sources[0]!;
    const first = await api.fleetMirror({ logId: b.logId });
    const head = await api.auditHead({ file: first.file });
    await toolLog(logB(), 3, 'place');
    await pushAudit(logB(), url, { host: 'pc-b', robot: 'arm-2' });
    const again = await api.fleetMirror({ logId: b.logId });
    assert.deepEqual([again.pulled, again.events], [4, first.events + 4]);
    const grown = await api.auditHead({ file: first.file });
    assert.deepEqual([grown.runs, grown.lastSeq], [head.runs + 1, head.lastSeq + 4]);
  });

  test('a pull stopped (fleetStop) fails as cancelled, keeping the batches that landed; the next one continues', async () => {
    const c = path.join(dir, 'pc-d.sqlite');
    await toolLog(c, 14_999);
    const pushed = await pushAudit(c, url, { host: 'pc-d', robot: 'arm-4' });
    const logId = pushed.log_id;
    // Stopped once its first batch has landed (the mirror's batches are 5000 events).
    const firstBatch = new Promise<number>((resolve) => {
      const off = api.context.bus.subscribe((e) => {
        if (e.topic === 'fleet.mirror' && e.logId === logId) {
          off();
          resolve(e.pulled);
        }
      });
    });
    const pulling = api.fleetMirror({ logId });
    assert.equal(await firstBatch, 5000);
    assert.deepEqual(await api.fleetStop({ logId }), { stopped: 1 });
    const e = await refused(pulling);
    assert.equal(e.code, 'cancelled');
    assert.deepEqual(await api.fleetStop({ logId }), { stopped: 0 });
    const m = await api.fleetMirror({ logId });
    assert.equal(m.events, 15_000);
    assert.ok(m.pulled <= 10_000 && m.pulled > 0, `the second pull continued after what landed (${m.pulled})`);
    assert.equal((await api.auditVerify({ file: m.file })).ok, true);
  });

  test('a source that does not verify is refused, naming the event; an unknown one is not found', async () => {
    const c = path.join(dir, 'pc-c.sqlite');
    await toolLog(c, 4);
    const pushed = await pushAudit(c, url, { host: 'pc-c', robot: 'arm-3' });
    const owner = new pg.Client(url);
    await owner.connect();
    try {
      await owner.query('ALTER TABLE witness.events DISABLE TRIGGER events_append_only');
      await owner.query(
        `UPDATE witness.events SET body = '{"tool":"grip","arguments":{"i":99}}'
         WHERE seq = 3 AND source = (SELECT id FROM witness.sources WHERE log_id = $1)`,
        [pushed.log_id],
      );
      await owner.query('ALTER TABLE witness.events ENABLE TRIGGER events_append_only');
    } finally {
      await owner.end();
    }
    const e = await refused(api.fleetMirror({ logId: pushed.log_id }));
    assert.equal(e.code, 'tampered');
    assert.match(e.message, /event 3/);
    assert.match(e.message, /^postgres:\/\/witness:\*\*\*@/);
    const gone = await refused(api.fleetMirror({ logId: 'f'.repeat(64) }));
    assert.equal(gone.code, 'not-found');
  });

  test('a store that cannot be reached, and a server without a store, say so (never the password)', async () => {
    const down = createDirectApi({
      transport: 'web',
      workspace: path.join(dir, 'ws2'),
      auditFile: path.join(dir, 'own2.sqlite'),
      fleet: 'postgres://lab:pa%24%24word@127.0.0.1:1/fleet',
    });
    const none = createDirectApi({
      transport: 'web',
      workspace: path.join(dir, 'ws3'),
      auditFile: path.join(dir, 'o3'),
    });
    try {
      const e = await refused(down.fleetSources({}));
      assert.equal(e.code, 'unreadable');
      assert.match(e.message, /^postgres:\/\/lab:\*\*\*@127\.0\.0\.1:1\/fleet: the server cannot be reached/);
      assert.doesNotMatch(e.message, /pa(%24|\$)\$?/);
      assert.equal((await none.fleetInfo()).store, null);
      const n = await refused(none.fleetSources({}));
      assert.equal(n.code, 'not-found');
      assert.match(n.message, /witness web --fleet/);
    } finally {
      await down.close();
      await none.close();
    }
  });

  test('the E-STOP is answered at once (median under 10 ms) while a large source is pulled into its replica (web mode)', async (t) => {
    const big = path.join(dir, 'pc-big.sqlite');
    await toolLog(big, 39_999, 'grip', 2000);
    const { log_id: logId } = await pushAudit(big, url, { host: 'pc-big', robot: 'arm-9' });
    const root = mkdtempSync(path.join(tmpdir(), 'witness-fleet-estop-'));
    writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
    const web = createDirectApi({ workspace: root, auditFile: path.join(root, 'session.sqlite'), fleet: url });
    const server = await startWebServer({ dispatch: createDispatcher(web), bus: web.context.bus, root });
    const probe = await startEstopProbe({ port: server.port, token: server.token, intervalMs: 50 });
    let samples: EstopSample[] = [];
    try {
      // Idle first (the first E-STOP opens the session's audit log and records the latch).
      await probe.more(6);
      const startedAt = now();
      const m = await web.fleetMirror({ logId });
      const doneAt = now();
      assert.equal(m.events, 40_000);
      samples = await probe.stop();
      const ms = samples.filter((s) => s.sentAt >= startedAt && s.sentAt < doneAt).map((s) => s.ms);
      t.diagnostic(
        `E-STOP answers while 40000 events were pulled (${(doneAt - startedAt).toFixed(0)} ms): median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} presses)`,
      );
      assert.ok(ms.length >= 8, `${ms.length} presses while the pull ran: need 8 to judge`);
      // The loop that answers the E-STOP is idle while the worker pulls: answers take a millisecond or two. A pull on
      // the loop itself (its batches verified and written there) makes the median tens of ms and the slowest hundreds.
      const shown = ms.map((x) => x.toFixed(0)).join(', ');
      assert.ok(median(ms) < 10, `median E-STOP answer ${median(ms).toFixed(1)} ms under the pull: ${shown} ms`);
      assert.ok(ms.filter((x) => x < 50).length >= 0.9 * ms.length, `E-STOP answers under the pull: ${shown} ms`);
      assert.ok(Math.max(...ms) < 500, `slowest E-STOP answer ${Math.max(...ms).toFixed(0)} ms`);
    } finally {
      if (samples.length === 0) await probe.stop();
      await server.close();
      await web.close();
    }
  });
});
