/**
 * `witness run --foxglove PORT`: a client from @foxglove/ws-protocol connects while the mission
 * runs and receives the robot's poses, the scene and the log; they are what the audit log records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import { openAuditReadOnly } from '../../main/services/audit/store.js';

const { FoxgloveClient } = wsProtocol;
const ROOT = new URL('../../..', import.meta.url).pathname;

test(
  'run --foxglove 0: a Foxglove client subscribed during the mission receives its poses, scene and log',
  { timeout: 300_000 },
  async () => {
    const d = mkdtempSync(join(tmpdir(), 'witness-fox-cli-'));
    const audit = join(d, 'a.sqlite');
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'bin/witness.js'),
        'run',
        '--world',
        'pointmaze-medium',
        '--regions',
        join(ROOT, 'assets/regions/pointmaze-medium.json'),
        '--spec',
        'F e2 & G F e1 & G F e4 & G !e0',
        '--start',
        '4,20',
        // A dataset of the size the console's tests plan on: what is checked is what the client receives.
        '--dataset-steps',
        '50000',
        '--audit',
        audit,
        '--foxglove',
        '0',
      ],
      { cwd: d, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stdout.resume();
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (s: string) => {
        stderr += s;
        const m = /foxglove: serving the run live on (ws:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`ended before serving: ${stderr}`)));
    });
    const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
    const topics = new Map<number, string>();
    const got: { topic: string; doc: Record<string, unknown> }[] = [];
    client.on('advertise', (channels) => {
      for (const c of channels) topics.set(client.subscribe(c.id), c.topic);
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
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    client.close();
    assert.equal(code, 0, stderr);
    assert.match(stderr, /foxglove: sent \d+ poses, \d+ scenes, \d+ log lines/);
    const poses = got
      .filter((m) => m.topic === '/witness/robot/pose')
      .map((m) => (m.doc as { pose: { position: { x: number; y: number } } }).pose.position);
    assert.ok(poses.length > 10, `poses received: ${poses.length}`);
    // What was sent is what the log recorded: the received poses are the recorded positions, in order.
    const db = openAuditReadOnly(audit);
    try {
      const recorded = (
        db.prepare("SELECT body FROM events WHERE kind = 'evidence' ORDER BY seq").all() as { body: string }[]
      )
        .map((r) => (JSON.parse(r.body) as { state: { x?: number; y?: number } }).state)
        .filter((s) => typeof s.x === 'number')
        .map((s) => [s.x, s.y]);
      assert.deepEqual(
        poses.map((p) => [p.x, p.y]),
        recorded.slice(recorded.length - poses.length),
      );
    } finally {
      db.close();
    }
    assert.ok(
      got.some((m) => m.topic === '/witness/scene'),
      'a scene (the maze, the regions, the plan)',
    );
    assert.ok(got.some((m) => m.topic === '/witness/log' && /run ended: success/.test(String(m.doc['message']))));
  },
);

test('--foxglove: refused without an audit log, on a non-loopback host unless asked, and its host flags alone', async () => {
  const { spawnSync } = await import('node:child_process');
  const w = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [
        join(ROOT, 'bin/witness.js'),
        'run',
        '--world',
        'pointmaze-medium',
        '--regions',
        join(ROOT, 'assets/regions/pointmaze-medium.json'),
        '--spec',
        'F e1',
        ...args,
      ],
      { encoding: 'utf8' },
    );
  const d = mkdtempSync(join(tmpdir(), 'witness-fox-cli-'));
  let r = w('--no-audit', '--foxglove', '0');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--foxglove serves the run from its audit log: drop --no-audit/);
  r = w('--audit', join(d, 'a.sqlite'), '--foxglove', '0', '--foxglove-host', '0.0.0.0');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--foxglove-host 0\.0\.0\.0: not a loopback address.*--foxglove-allow-remote/);
  r = w('--audit', join(d, 'a.sqlite'), '--foxglove-host', '127.0.0.1');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--foxglove-host and --foxglove-allow-remote go with --foxglove PORT/);
  r = w('--audit', join(d, 'a.sqlite'), '--foxglove', '70000');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--foxglove/);
});
