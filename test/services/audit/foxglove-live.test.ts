/**
 * The live Foxglove WebSocket server: a client from @foxglove/ws-protocol subscribes to the
 * advertised foxglove channels and receives, while a run is being written, its poses, scenes and
 * log lines; non-loopback binds are refused unless asked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import Database from 'better-sqlite3';

const { FoxgloveClient } = wsProtocol;
import { AuditLog } from '../../../main/services/audit/store.js';
import { serveFoxgloveLive } from '../../../main/services/audit/foxglove-live.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { REGIONS, T0, writeSmallRun } from '../../api/audit-fixture.js';
import { frame, RawClient, upgradeRequest } from '../../api/web-raw.js';

test('live: a Foxglove client subscribed during a run receives its poses, scenes and log as they are written', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-live-')), 'a.sqlite');
  const clock = { now: T0 };
  const log = AuditLog.open(file, { now: () => clock.now });
  // An earlier run in the same database is history: not sent.
  await writeSmallRun(log, clock);
  const live = await serveFoxgloveLive({ port: 0, auditFile: file, pollMs: 20 });
  const client = new FoxgloveClient({ ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  const topics = new Map<number, string>();
  const got: { topic: string; doc: Record<string, unknown> }[] = [];
  const subscribed = new Promise<void>((resolve) => {
    client.on('advertise', (channels) => {
      for (const c of channels) {
        assert.equal(c.schemaEncoding, 'jsonschema');
        topics.set(client.subscribe(c.id), c.topic);
      }
      if (topics.size === 4) resolve();
    });
  });
  client.on('message', ({ subscriptionId, data }) => {
    got.push({
      topic: topics.get(subscriptionId)!,
      doc: JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as Record<
        string,
        unknown
      >,
    });
  });
  await subscribed;
  // The server has the three subscriptions (a condition, not a sleep) before the run is written.
  for (let i = 0; i < 500 && live.subscribed() < 4; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(live.subscribed(), 4);
  assert.deepEqual([...topics.values()].sort(), [
    '/witness/log',
    '/witness/map',
    '/witness/robot/pose',
    '/witness/scene',
  ]);
  const small = await writeSmallRun(log, clock);
  const poses = (): number => got.filter((m) => m.topic === '/witness/robot/pose').length;
  for (let i = 0; i < 500 && poses() < small.positions.length - 1; i++) await new Promise((r) => setTimeout(r, 20));
  await live.close();
  client.close();
  await log.close();
  const xy = got
    .filter((m) => m.topic === '/witness/robot/pose')
    .map((m) => (m.doc as { pose: { position: { x: number; y: number } } }).pose.position);
  assert.deepEqual(
    xy.map((p) => [p.x, p.y]),
    small.positions.slice(1).map(([, x, y]) => [x, y]),
    'the second run only, every pose in order',
  );
  const scenes = got.filter((m) => m.topic === '/witness/scene');
  assert.equal(
    scenes.length,
    3,
    `the start, then each of the two plans: ${got.map((m) => m.topic.slice(9)).join(' ')}`,
  );
  const logs = got.filter((m) => m.topic === '/witness/log').map((m) => m.doc as { level: number });
  assert.deepEqual(
    logs.map((l) => l.level),
    [3, 3, 2, 4, 2],
  );
  assert.equal(live.sent.pose, xy.length);
  assert.equal(live.sent.map, 0, 'a maze has no map');
});

test('live: a non-loopback bind is refused unless asked; a port in use is a clear error', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-live-')), 'a.sqlite');
  await assert.rejects(
    serveFoxgloveLive({ port: 0, host: '0.0.0.0', auditFile: file }),
    (e: unknown) =>
      e instanceof WitnessError &&
      e.code === 'invalid-input' &&
      /not a loopback address.*--foxglove-allow-remote/.test(e.message),
  );
  const a = await serveFoxgloveLive({ port: 0, auditFile: file });
  try {
    await assert.rejects(
      serveFoxgloveLive({ port: a.port, auditFile: file }),
      (e: unknown) => e instanceof WitnessError && /the port is in use/.test(e.message),
    );
    const remote = await serveFoxgloveLive({ port: 0, host: '0.0.0.0', allowRemote: true, auditFile: file });
    assert.match(remote.url, /^ws:\/\/0\.0\.0\.0:\d+$/);
    await remote.close();
  } finally {
    await a.close();
  }
});

test(
  'live: a viewer that stops reading is disconnected once it leaves maxUnreadBytes unread; a viewer that reads gets the last message',
  { timeout: 120_000 },
  async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-live-')), 'a.sqlite');
    const clock = { now: T0 };
    const log = AuditLog.open(file, { now: () => clock.now });
    const logged: string[] = [];
    const live = await serveFoxgloveLive({
      port: 0,
      auditFile: file,
      pollMs: 10,
      limits: { maxUnreadBytes: 256 * 1024 },
      log: (l) => logged.push(l),
    });
    const stalled = await RawClient.open(
      live.port,
      upgradeRequest(live.port, '/', { 'Sec-WebSocket-Protocol': 'foxglove.websocket.v1' }),
    );
    const reader = new FoxgloveClient({ ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
    let last = '';
    reader.on('advertise', (cs) => reader.subscribe(cs.find((c) => c.topic === '/witness/log')!.id));
    reader.on('message', ({ data }) => {
      last = (
        JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as { message: string }
      ).message.slice(-12);
    });
    try {
      await stalled.until(() => stalled.texts().length >= 2, 'serverInfo and advertise');
      const channels = (stalled.texts()[1] as { channels: { id: number; topic: string }[] }).channels;
      const logChannel = channels.find((c) => c.topic === '/witness/log')!.id;
      stalled.socket.write(
        frame(1, JSON.stringify({ op: 'subscribe', subscriptions: [{ id: 1, channelId: logChannel }] })),
      );
      for (let i = 0; i < 500 && live.subscribed() < 1; i++) await new Promise((r) => setTimeout(r, 10));
      stalled.socket.pause();
      const run = await log.startRun({
        world: 'pointmaze-medium',
        backend: 'mujoco',
        operator: 'ada',
        software: 'witness test',
        models: {},
        spec: 'F e1',
        regions: JSON.stringify(REGIONS),
        meta: {},
      });
      const reason = 'r'.repeat(100_000);
      let n = 0,
        sent = 0;
      // The kernel's socket buffers take some megabytes before the server holds anything itself.
      while (live.clients() === 2 && sent < 64 * 1024 * 1024) {
        const before = live.sent.log;
        for (let k = 0; k < 10; k++, n++, sent += reason.length)
          void log.append(run, 'operator_decision', {
            decision: 'stop',
            reason: `${reason}${String(n).padStart(11, '0')}`,
            operator: 'ada',
          });
        await log.flush();
        for (let i = 0; i < 500 && live.sent.log < before + 10; i++) await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(live.clients(), 1, `the stalled viewer was still connected after ${sent} bytes of log messages`);
      assert.ok(
        logged.some((l) => /a client left \d+ bytes unread \(the limit is 262144\): disconnected/.test(l)),
        logged.join('\n'),
      );
      const marker = `${String(n - 1).padStart(11, '0')})`;
      for (let i = 0; i < 500 && last !== marker; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(last, marker, 'the reading viewer got the last message');
    } finally {
      stalled.socket.destroy();
      reader.close();
      await live.close();
      await log.close();
    }
  },
);

test(
  'live: an event the converter cannot read (a body that is not JSON, written by another program) is passed over and told; the next is served',
  { timeout: 60_000 },
  async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-live-')), 'a.sqlite');
    const clock = { now: T0 };
    let log = AuditLog.open(file, { now: () => clock.now });
    const run = await log.startRun({
      world: 'pointmaze-medium',
      backend: 'mujoco',
      operator: 'ada',
      software: 'witness test',
      models: {},
      spec: 'F e1',
      regions: JSON.stringify(REGIONS),
      meta: {},
    });
    await log.close();
    const logged: string[] = [];
    const live = await serveFoxgloveLive({ port: 0, auditFile: file, pollMs: 10, log: (l) => logged.push(l) });
    const reader = new FoxgloveClient({ ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
    const got: string[] = [];
    reader.on('advertise', (cs) => reader.subscribe(cs.find((c) => c.topic === '/witness/log')!.id));
    reader.on('message', ({ data }) =>
      got.push(
        (JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as { message: string })
          .message,
      ),
    );
    try {
      for (let i = 0; i < 500 && live.subscribed() < 1; i++) await new Promise((r) => setTimeout(r, 10));
      const raw = new Database(file);
      const last = raw.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as {
        seq: number;
        hash: string;
      };
      raw
        .prepare("INSERT INTO events VALUES (?, ?, ?, NULL, 'failure_record', NULL, 'x', 'not json', ?, ?)")
        .run(last.seq + 1, run, T0 + 1, last.hash, 'f'.repeat(64));
      raw.close();
      log = AuditLog.open(file, { now: () => clock.now });
      await log.append(run, 'operator_decision', {
        decision: 'stop',
        reason: 'after the damaged event',
        operator: 'ada',
      });
      await log.flush();
      for (let i = 0; i < 500 && !got.some((m) => m.includes('after the damaged event')); i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.ok(
        got.some((m) => m.includes('after the damaged event')),
        `the event after it is served: ${JSON.stringify(got)}`,
      );
    } finally {
      reader.close();
      await live.close();
      await log.close();
    }
  },
);
