/**
 * The console's Foxglove switch (API foxgloveStart / foxgloveStop / foxgloveState): a client from
 * @foxglove/ws-protocol subscribes while the switch is on and receives a console mission's poses;
 * the switch stays on between runs; a port in use is a clear error that changes nothing; turning it
 * off disconnects the clients.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import { createDirectApi, type DirectApi } from '../../main/api/direct.js';
import type { ApiEvent, FoxgloveState } from '../../main/contract/api.js';
import { WitnessError } from '../../main/contract/errors.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';

const { FoxgloveClient } = wsProtocol;

const REGIONS = readFileSync(new URL('../../../assets/regions/pointmaze-medium.json', import.meta.url), 'utf8');
const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

function setup(): { api: DirectApi; events: ApiEvent[]; audit: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-fox-console-'));
  const audit = path.join(dir, 'audit.sqlite');
  const api = createDirectApi({ workspace: dir, auditFile: audit });
  const events: ApiEvent[] = [];
  api.context.bus.subscribe((e) => events.push(e));
  return { api, events, audit };
}

/** Waits for a condition (polling), failing after a generous bound. */
async function until(what: string, cond: () => boolean, timeoutMs = 120_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Watcher {
  client: InstanceType<typeof FoxgloveClient>;
  got: { topic: string; doc: Record<string, unknown> }[];
  closed: Promise<void>;
  subscribed: Promise<void>;
}

function watch(url: string): Watcher {
  const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const client = new FoxgloveClient({ ws });
  const topics = new Map<number, string>();
  const got: Watcher['got'] = [];
  const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
  const subscribed = new Promise<void>((resolve) => {
    client.on('advertise', (channels) => {
      for (const c of channels) topics.set(client.subscribe(c.id), c.topic);
      resolve();
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
  return { client, got, closed, subscribed };
}

const lastFoxglove = (events: ApiEvent[]): FoxgloveState | undefined =>
  events.filter((e): e is Extract<ApiEvent, { topic: 'foxglove' }> => e.topic === 'foxglove').at(-1)?.state;

test('console Foxglove switch: a client subscribed during a console mission receives its poses; the switch outlives the run; off disconnects', async () => {
  const { api, events, audit } = setup();
  try {
    assert.deepEqual(await api.foxgloveState(), { on: false });
    const on = await api.foxgloveStart({ port: 0 });
    assert.ok(on.on);
    assert.match(on.url, /^ws:\/\/127\.0\.0\.1:\d+$/, 'loopback only');
    assert.equal(on.clients, 0);
    assert.deepEqual(lastFoxglove(events), on, 'the UI hears that it is on');
    // Starting again on the same port keeps the same server.
    assert.deepEqual(await api.foxgloveStart({ port: on.port }), on);

    const w = watch(on.url);
    await w.subscribed;
    await until('the client is counted and pushed to the UI', () => {
      const s = lastFoxglove(events);
      return s?.on === true && s.clients === 1;
    });

    const planned = await api.missionPlan({
      job: 'p',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: REGIONS,
      start: [4, 20],
      datasetSteps: 50_000,
    });
    const { run, auditRun } = await api.missionRun({ session: planned.session, replans: 3 });
    await until('the mission ends', () => events.some((e) => e.topic === 'mission.end' && e.run === run));
    // What the log holds of the run: its positions at evidence events.
    const db = openAuditReadOnly(audit);
    const recorded = (
      db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'evidence' ORDER BY seq").all(auditRun) as {
        body: string;
      }[]
    ).map((r) => (JSON.parse(r.body) as { state: { x: number; y: number } }).state);
    db.close();
    assert.ok(recorded.length > 0);
    const poses = (): { x: number; y: number }[] =>
      w.got
        .filter((m) => m.topic === '/witness/robot/pose')
        .map((m) => (m.doc as { pose: { position: { x: number; y: number } } }).pose.position);
    await until('every recorded pose arrives', () => poses().length >= recorded.length);
    assert.deepEqual(
      poses().map((p) => [p.x, p.y]),
      recorded.map((s) => [s.x, s.y]),
      "the run's poses, in order",
    );
    assert.ok(
      w.got.some((m) => m.topic === '/witness/scene'),
      'the scene too',
    );
    assert.ok(
      w.got.some((m) => m.topic === '/witness/log' && /run ended/.test(String(m.doc['message']))),
      "and the run's end in the log",
    );
    const after = await api.foxgloveState();
    assert.ok(
      after.on && after.port === on.port && after.clients === 1 && after.sent.pose === recorded.length,
      'still on after the run, same port, same client',
    );

    const off = await api.foxgloveStop();
    assert.deepEqual(off, { on: false });
    await w.closed; // the client was disconnected
    assert.deepEqual(lastFoxglove(events), { on: false });
    assert.deepEqual(await api.foxgloveStop(), { on: false }, 'stopping twice is fine');
  } finally {
    await api.close();
  }
});

test('console Foxglove switch: a port in use is a clear conflict and nothing else changes', async () => {
  const { api, events } = setup();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const refused = async (): Promise<void> => {
      await assert.rejects(api.foxgloveStart({ port: taken }), (e: unknown) => {
        assert.ok(e instanceof WitnessError);
        assert.equal(e.code, 'conflict');
        assert.equal(e.at.path, '$.port');
        assert.match(e.message, new RegExp(`port ${taken} is in use on 127\\.0\\.0\\.1: choose another port`));
        return true;
      });
    };
    // Off: it stays off.
    await refused();
    assert.deepEqual(await api.foxgloveState(), { on: false });
    assert.equal(events.filter((e) => e.topic === 'foxglove').length, 0);
    // On: it stays on where it was, with its client.
    const on = await api.foxgloveStart({ port: 0 });
    assert.ok(on.on);
    const w = watch(on.url);
    await w.subscribed;
    await until('the client is counted', () => {
      const s = lastFoxglove(events);
      return s?.on === true && s.clients === 1;
    });
    await assert.rejects(
      api.foxgloveStart({ port: taken }),
      (e: unknown) => e instanceof WitnessError && e.message.includes(`the server stays on ${on.url}`),
    );
    const still = await api.foxgloveState();
    assert.ok(still.on && still.url === on.url && still.clients === 1);
    // A bad port is bad input (the transports' schema refuses it too).
    await assert.rejects(
      api.foxgloveStart({ port: 70000 }),
      (e: unknown) => e instanceof WitnessError && e.code === 'invalid-params',
    );
    w.client.close();
    await until('the client leaving is pushed', () => {
      const s = lastFoxglove(events);
      return s?.on === true && s.clients === 0;
    });
  } finally {
    await api.close();
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
  // Closing the session turned it off.
  assert.deepEqual(lastFoxglove(events), { on: false });
});
