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

const { FoxgloveClient } = wsProtocol;
import { AuditLog } from '../../../main/services/audit/store.js';
import { serveFoxgloveLive } from '../../../main/services/audit/foxglove-live.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { T0, writeSmallRun } from '../../api/audit-fixture.js';

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
    got.push({ topic: topics.get(subscriptionId)!, doc: JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8")) as Record<string, unknown> });
  });
  await subscribed;
  // The server has the three subscriptions (a condition, not a sleep) before the run is written.
  for (let i = 0; i < 500 && live.subscribed() < 4; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(live.subscribed(), 4);
  assert.deepEqual([...topics.values()].sort(), ['/witness/log', '/witness/map', '/witness/robot/pose', '/witness/scene']);
  const small = await writeSmallRun(log, clock);
  const poses = (): number => got.filter((m) => m.topic === '/witness/robot/pose').length;
  for (let i = 0; i < 500 && poses() < small.positions.length - 1; i++) await new Promise((r) => setTimeout(r, 20));
  await live.close();
  client.close();
  await log.close();
  const xy = got.filter((m) => m.topic === '/witness/robot/pose').map((m) => (m.doc as { pose: { position: { x: number; y: number } } }).pose.position);
  assert.deepEqual(xy.map((p) => [p.x, p.y]), small.positions.slice(1).map(([, x, y]) => [x, y]), 'the second run only, every pose in order');
  const scenes = got.filter((m) => m.topic === '/witness/scene');
  assert.equal(scenes.length, 3, `the start, then each of the two plans: ${got.map((m) => m.topic.slice(9)).join(' ')}`);
  const logs = got.filter((m) => m.topic === '/witness/log').map((m) => m.doc as { level: number });
  assert.deepEqual(logs.map((l) => l.level), [3, 3, 2, 4, 2]);
  assert.equal(live.sent.pose, xy.length);
  assert.equal(live.sent.map, 0, 'a maze has no map');
});

test('live: a non-loopback bind is refused unless asked; a port in use is a clear error', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-live-')), 'a.sqlite');
  await assert.rejects(serveFoxgloveLive({ port: 0, host: '0.0.0.0', auditFile: file }), (e: unknown) => e instanceof WitnessError && e.code === 'invalid-input' && /not a loopback address.*--foxglove-allow-remote/.test(e.message));
  const a = await serveFoxgloveLive({ port: 0, auditFile: file });
  try {
    await assert.rejects(serveFoxgloveLive({ port: a.port, auditFile: file }), (e: unknown) => e instanceof WitnessError && /the port is in use/.test(e.message));
    const remote = await serveFoxgloveLive({ port: 0, host: '0.0.0.0', allowRemote: true, auditFile: file });
    assert.match(remote.url, /^ws:\/\/0\.0\.0\.0:\d+$/);
    await remote.close();
  } finally {
    await a.close();
  }
});
