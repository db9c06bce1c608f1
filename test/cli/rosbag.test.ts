import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIVE, type Drive, writeBagDir, writeChainBagDir } from '../services/datasets/rosbag2-fixtures.js';
import { cli } from './harness.js';

test('data import BAG: a Jazzy MCAP bag directory imports (exit 0), and data info reads the result', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-cli-'));
  const bag = await writeBagDir(dir, 'drive', 'mcap', { distro: 'jazzy', pose: 'odometry', action: 'twist' });
  const out = join(dir, 'd.wds');
  const r = await cli(
    'data',
    'import',
    bag,
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/odom',
    '--action-topic',
    '/cmd_vel',
    '--out',
    out,
  );
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /wrote .*d\.wds: 8 transitions in 2 episodes at 10\.00 Hz from 19 messages \(mcap, jazzy\); 3 action values clipped/,
  );
  const info = JSON.parse((await cli('data', 'info', out, '--json')).out) as {
    transitions: number;
    trajectories: number;
    generator: { kind: string };
  };
  assert.deepEqual([info.transitions, info.trajectories, info.generator.kind], [8, 2, 'rosbag2']);
});

test("data import BAG: poses outside the maze's free cells import (exit 0) with a warning naming the count and the positions' extent", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-cli-'));
  const far: Drive = { poses: DRIVE.poses.map((p) => ({ ...p, x: p.x + 100 })), commands: DRIVE.commands };
  const bag = await writeBagDir(dir, 'far', 'sqlite3', {
    distro: 'humble',
    pose: 'odometry',
    action: 'twist',
    drive: far,
  });
  const r = await cli(
    'data',
    'import',
    bag,
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/odom',
    '--action-topic',
    '/cmd_vel',
    '--out',
    join(dir, 'd.wds'),
  );
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /warning: 8 of 8 rows lie outside pointmaze-medium's free cells \(in a wall or off the maze; positions x 100\.02 … 103\.00, y 1\.00 … 1\.22 m\)/,
  );
});

test('data info BAG: a bag directory or one file shows its storage, distro, time range and topics with their counts and roles (there was no way to inspect a bag)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-cli-'));
  const db3 = await writeBagDir(dir, 'h', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const r = await cli('data', 'info', db3);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /h: rosbag2 bag, sqlite3, humble, metadata\.yaml version 5, 19 messages, received 1700000000\.001000000 s to 1700000002\.301000000 s/,
  );
  assert.match(r.out, /\/odom {2}nav_msgs\/msg\/Odometry {2}10 messages {2}\[pose topic for data import\]/);
  assert.match(r.out, /\/cmd_vel {2}geometry_msgs\/msg\/Twist {2}9 messages {2}\[action topic for data import\]/);
  const mcap = await writeBagDir(dir, 'j', 'mcap', { distro: 'jazzy', pose: 'tf', action: 'twist-stamped' });
  const j = await cli('data', 'info', join(mcap, 'j_0.mcap'), '--json');
  assert.equal(j.code, 0, j.err);
  const info = JSON.parse(j.out) as {
    storage: string;
    distro: string | null;
    metadataVersion: number | null;
    topics: { name: string; messages: number; role: string | null }[];
  };
  assert.deepEqual([info.storage, info.distro, info.metadataVersion], ['mcap', 'jazzy', null]);
  assert.deepEqual(info.topics.map((t) => [t.name, t.messages, t.role]).sort(), [
    ['/cmd_vel', 9, 'action'],
    ['/tf', 10, 'pose'],
  ]);
  assert.equal((await cli('data', 'info', db3, '--world', 'pointmaze-medium')).code, 2);
});

test('data import BAG: usage and bag errors exit 2 and name the flag, the bag, the topic', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-cli-'));
  const bag = await writeBagDir(dir, 'drive', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const out = join(dir, 'd.wds');
  const noTopic = await cli(
    'data',
    'import',
    bag,
    '--world',
    'pointmaze-medium',
    '--action-topic',
    '/cmd_vel',
    '--out',
    out,
  );
  assert.equal(noTopic.code, 2);
  assert.match(noTopic.err, /is read as a rosbag2 bag: give --pose-topic/);
  const npzFlags = await cli(
    'data',
    'import',
    join(dir, 'x.npz'),
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/odom',
    '--rate',
    '5',
    '--out',
    out,
  );
  assert.equal(npzFlags.code, 2);
  assert.match(npzFlags.err, /--pose-topic, --rate: only for a rosbag2 bag, not for an \.npz file/);
  const missing = await cli(
    'data',
    'import',
    bag,
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/odometry',
    '--action-topic',
    '/cmd_vel',
    '--out',
    out,
  );
  assert.equal(missing.code, 2);
  assert.match(
    missing.err,
    /drive: no topic \/odometry for the pose \(topics in the bag: \/odom \(nav_msgs\/msg\/Odometry\), \/cmd_vel \(geometry_msgs\/msg\/Twist\)\)/,
  );
  const rate = await cli(
    'data',
    'import',
    bag,
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/odom',
    '--action-topic',
    '/cmd_vel',
    '--rate',
    'fast',
    '--out',
    out,
  );
  assert.equal(rate.code, 2);
  assert.match(rate.err, /--rate must be a number/);
  assert.equal(existsSync(out), false);
});

test('data import BAG with a TF chain: map → odom → base_link imports (exit 0); frames in separate trees exit 2 listing the frames seen', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bag-cli-'));
  const bag = await writeChainBagDir(dir, 'chain', 'mcap', 'jazzy', { parent: 'earth', child: 'gps' });
  const out = join(dir, 'd.wds');
  const flags = [
    '--world',
    'pointmaze-medium',
    '--pose-topic',
    '/tf',
    '--action-topic',
    '/cmd_vel',
    '--frame',
    'map',
    '--out',
    out,
  ];
  const r = await cli('data', 'import', bag, ...flags, '--child', 'base_link');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /40 transitions in 2 episodes at 20\.00 Hz/);
  const apart = await cli('data', 'import', bag, ...flags, '--child', 'gps');
  assert.equal(apart.code, 2);
  assert.match(
    apart.err,
    /chain: topic \/tf: no path from map to gps: they are in separate trees .*\(frames seen: base_link \(parent odom\), earth \(root\), gps \(parent earth\)/,
  );
  const noChild = await cli('data', 'import', bag, ...flags);
  assert.equal(noChild.code, 2);
  assert.match(noChild.err, /topic \/tf is TF: give --frame and --child/);
});

test('bench rosbag: --help, a tiny bag as JSON, and a size below the floor is a usage error', async () => {
  assert.equal((await cli('bench', 'rosbag', '--help')).code, 0);
  const r = await cli('bench', 'rosbag', '--bytes', '100000', '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as { bytes: number; messages: number; import_s: number; raw_s: number };
  assert.ok(j.bytes >= 100_000 && j.messages > 0 && j.import_s > 0 && j.raw_s > 0);
  assert.equal((j as { storage?: string }).storage, 'mcap');
  // The same bag as a .db3 (rosbag2's sqlite3 tables), its baseline better-sqlite3's rows.
  const db3 = await cli('bench', 'rosbag', '--bytes', '100000', '--storage', 'sqlite3', '--json');
  assert.equal(db3.code, 0, db3.err);
  const k = JSON.parse(db3.out) as {
    storage: string;
    bytes: number;
    messages: number;
    readMessages: number;
    transitions: number;
    import_s: number;
    raw_s: number;
  };
  assert.equal(k.storage, 'sqlite3');
  assert.ok(
    k.bytes >= 100_000 &&
      k.readMessages > 0 &&
      k.readMessages < k.messages &&
      k.transitions > 0 &&
      k.import_s > 0 &&
      k.raw_s > 0,
    db3.out,
  );
  const table = await cli('bench', 'rosbag', '--bytes', '100000', '--storage', 'sqlite3');
  assert.match(
    table.out,
    /# witness bench rosbag --bytes 100000 --storage sqlite3[\s\S]*better-sqlite3 rows \(the reader's query\), no decoding \(baseline\)[\s\S]*Bag \(\.db3\)/,
  );
  assert.equal((await cli('bench', 'rosbag', '--bytes', '100000', '--storage', 'rosbag1')).code, 2);
  const small = await cli('bench', 'rosbag', '--bytes', '5');
  assert.equal(small.code, 2);
  assert.match(small.err, /--bytes must be an integer in 100000\.\./);
});
