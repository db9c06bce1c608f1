/**
 * Late Foxglove clients: the map and the scene are sent when they change, so the live
 * server latches the latest of each and sends it to a client as it subscribes — a client that
 * connects mid-run sees the map and the current plan at once; one that was there all along gets
 * nothing twice; a server started mid-run latches the run under way from the log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import { AuditLog } from '../../../main/services/audit/store.js';
import { missionRecorder } from '../../../main/services/audit/mission-recorder.js';
import { mapBlobText } from '../../../main/services/audit/map-blob.js';
import { readMap } from '../../../main/services/maps/read.js';
import { type FoxgloveLive, serveFoxgloveLive } from '../../../main/services/audit/foxglove-live.js';

const { FoxgloveClient } = wsProtocol;
const asset = (rel: string): string => fileURLToPath(new URL(`../../../../assets/${rel}`, import.meta.url));

const PLAN = {
  status: 'ok',
  method: 'sagas',
  prefix: ['start', 'c1'],
  suffix: ['c2', 'c1'],
  cost: { prefix: 10, suffix: 20, objective: 15 },
  dwell: false,
  k: 5,
  lambda: 0.5,
  stats: {},
};

interface Got {
  topic: string;
  doc: { entities?: { id: string }[]; column_count?: number };
}

/** A client that subscribes to every channel it is offered, and what it has received. */
async function watch(live: FoxgloveLive): Promise<{ got: Got[]; close: () => void }> {
  const client = new FoxgloveClient({ ws: new WebSocket(live.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  const topics = new Map<number, string>();
  const got: Got[] = [];
  client.on('message', ({ subscriptionId, data }) => {
    got.push({
      topic: topics.get(subscriptionId)!,
      doc: JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as Got['doc'],
    });
  });
  await new Promise<void>((resolve) => {
    client.on('advertise', (channels) => {
      for (const c of channels) topics.set(client.subscribe(c.id), c.topic);
      resolve();
    });
  });
  return { got, close: () => client.close() };
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
};
const on = (got: Got[], topic: string): Got[] => got.filter((m) => m.topic === topic);

/** A map world's run, started and planned, not ended. */
async function runUnderWay(file: string): Promise<{ log: AuditLog; run: string }> {
  const m = await readMap(asset('maps/lab.yaml'));
  let t = Date.UTC(2026, 0, 1);
  const log = AuditLog.open(file, { now: () => (t += 10) });
  const run = await log.startRun({
    world: 'lab-turtlebot3',
    backend: 'ros2',
    operator: 'ada',
    software: 'witness test',
    models: {},
    map: mapBlobText(m.name, m.grid),
  });
  missionRecorder(log, run).plan(0, 'initial', PLAN, 1.5);
  await log.append(
    run,
    'evidence',
    {
      instruction: 'go',
      state: { x: 1, y: 2, labels: [] },
      action: 'waypoint',
      verifier: 'waypoint reached',
      failure_label: null,
    },
    { step: 1 },
  );
  return { log, run };
}

test("live: a client that connects mid-run gets the map and the current plan's scene as it subscribes; one there from the start gets nothing twice", async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-late-')), 'a.sqlite');
  const live = await serveFoxgloveLive({ port: 0, auditFile: file, pollMs: 20 });
  const early = await watch(live);
  await until(() => live.subscribed() === 4);
  const { log, run } = await runUnderWay(file);
  await until(() => on(early.got, '/witness/robot/pose').length === 1 && on(early.got, '/witness/scene').length === 2);
  const late = await watch(live);
  try {
    await until(() => on(late.got, '/witness/scene').length === 1 && on(late.got, '/witness/map').length === 1);
    assert.deepEqual(
      late.got.map((m) => m.topic).sort(),
      ['/witness/map', '/witness/scene'],
      'the latched channels only: poses and log lines are not replayed',
    );
    assert.ok(
      on(late.got, '/witness/scene')[0]!.doc.entities!.some((e) => e.id === 'plan'),
      "the scene with the current plan, not the start's",
    );
    assert.ok((on(late.got, '/witness/map')[0]!.doc.column_count ?? 0) > 0);
    assert.deepEqual(live.latched, { pose: 0, scene: 1, log: 0, map: 1 });
    // The early client: the start's scene, then the plan's; the map once.
    assert.deepEqual(
      on(early.got, '/witness/scene').map((m) => m.doc.entities!.some((e) => e.id === 'plan')),
      [false, true],
    );
    assert.equal(on(early.got, '/witness/map').length, 1);
    // Both follow the run from here on.
    await log.append(
      run,
      'evidence',
      {
        instruction: 'go',
        state: { x: 2, y: 2, labels: [] },
        action: 'waypoint',
        verifier: 'waypoint reached',
        failure_label: null,
      },
      { step: 2 },
    );
    await until(
      () => on(late.got, '/witness/robot/pose').length === 1 && on(early.got, '/witness/robot/pose').length === 2,
    );
    assert.equal(on(late.got, '/witness/robot/pose').length, 1);
    assert.equal(on(early.got, '/witness/robot/pose').length, 2);
  } finally {
    early.close();
    late.close();
    await live.close();
    await log.close();
  }
});

test('live: a server started mid-run latches the run under way, so its first client sees the map and the plan', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-fox-late-')), 'a.sqlite');
  const { log } = await runUnderWay(file);
  await log.close();
  const live = await serveFoxgloveLive({ port: 0, auditFile: file, pollMs: 20 });
  const client = await watch(live);
  try {
    await until(() => on(client.got, '/witness/scene').length === 1 && on(client.got, '/witness/map').length === 1);
    assert.deepEqual(client.got.map((m) => m.topic).sort(), ['/witness/map', '/witness/scene']);
    assert.ok(on(client.got, '/witness/scene')[0]!.doc.entities!.some((e) => e.id === 'plan'));
  } finally {
    client.close();
    await live.close();
  }
});
