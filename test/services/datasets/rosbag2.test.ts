import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { stringify } from 'yaml';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importBag } from '../../../main/app/bag-import.js';
import { readDataset } from '../../../main/services/datasets/format.js';
import { openBag } from '../../../main/services/datasets/rosbag2/bag.js';
import { EdgeSamples } from '../../../main/services/datasets/rosbag2/driving.js';
import { distroOf, ros2msgDefinitions } from '../../../main/services/datasets/rosbag2/mcap.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { BoundedMessageReader } from '../../../main/services/datasets/rosbag2/cdr.js';
import Database from 'better-sqlite3';
import type { MessageDefinition } from '@foxglove/message-definition';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import {
  CHAIN,
  DRIVE,
  T0_NS,
  type BagSpec,
  type Drive,
  driveMessages,
  ros2msgText,
  writeBagDir,
  writeChainBagDir,
  writeDb3,
  writeMcap,
} from './rosbag2-fixtures.js';
import {
  type CraftChunk,
  type LooseRow,
  cdr,
  craftMcap,
  driveChunk,
  heldChunk,
  looseDb3,
  schemaMcap,
  summaryMcap,
  u32,
  zeroChunk,
  zstdZeros,
} from './hostile-bags.js';

const scratch = (): string => mkdtempSync(path.join(tmpdir(), 'witness-bag-'));

/**
 * The rows DRIVE gives in a point maze at its pose rate (10 Hz; --max-gap 0.5 s), worked by hand:
 * the grid starts at the first command (t = 0.02) and runs every 0.1 s. Stretch A gives t = 0.02 …
 * 0.42 (at 0.52 the next pose is 1.5 s away): x = t, y = 1, velocity (1, 0), action the command's
 * (0.5, 0.25) as the yaw is 0. Then nothing until stretch B: t = 2.02, 2.12, 2.22 (2.32 is past the
 * last command, 2.29): x = 3, y = 1 + (t − 2), velocity (0, 1), and the command (2, 0) turned by
 * yaw π/2 is (0, 2), clipped to (0, 1).
 */
const MAZE_OBS = [
  [0.02, 1, 1, 0],
  [0.12, 1, 1, 0],
  [0.22, 1, 1, 0],
  [0.32, 1, 1, 0],
  [0.42, 1, 1, 0],
  [3, 1.02, 0, 1],
  [3, 1.12, 0, 1],
  [3, 1.22, 0, 1],
];
const MAZE_ACT = [
  [0.5, 0.25],
  [0.5, 0.25],
  [0.5, 0.25],
  [0.5, 0.25],
  [0.5, 0.25],
  [0, 1],
  [0, 1],
  [0, 1],
];
const TERMINALS = [0, 0, 0, 0, 1, 0, 0, 1];

function close(actual: Float32Array, expected: number[][], what: string): void {
  const flat = expected.flat();
  assert.equal(actual.length, flat.length, `${what}: ${actual.length} values, expected ${flat.length}`);
  flat.forEach((v, i) =>
    assert.ok(
      Math.abs(actual[i]! - v) < 1e-5,
      `${what}[${Math.floor(i / expected[0]!.length)}][${i % expected[0]!.length}] = ${actual[i]}, expected ${v}`,
    ),
  );
}

async function expectBagError(p: Promise<unknown>, code: string, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof WitnessError, `a WitnessError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return true;
  });
}

const FIXTURES: {
  name: string;
  storage: 'mcap' | 'sqlite3';
  spec: BagSpec;
  poseTopic: string;
  extra?: { frame: string; child: string };
}[] = [
  {
    name: 'humble-mcap',
    storage: 'mcap',
    spec: { distro: 'humble', pose: 'odometry', action: 'twist' },
    poseTopic: '/odom',
  },
  {
    name: 'jazzy-mcap',
    storage: 'mcap',
    spec: { distro: 'jazzy', pose: 'pose', action: 'twist-stamped' },
    poseTopic: '/pose',
  },
  {
    name: 'humble-db3',
    storage: 'sqlite3',
    spec: { distro: 'humble', pose: 'odometry', action: 'twist' },
    poseTopic: '/odom',
  },
  {
    name: 'jazzy-db3',
    storage: 'sqlite3',
    spec: { distro: 'jazzy', pose: 'tf', action: 'twist' },
    poseTopic: '/tf',
    extra: { frame: 'map', child: 'base_link' },
  },
];

for (const f of FIXTURES) {
  test(`a ${f.name} bag (${f.spec.pose} + ${f.spec.action}) imports to the hand-computed transitions, as a directory and as a file`, async () => {
    const dir = scratch();
    const bag = await writeBagDir(dir, f.name, f.storage, f.spec);
    const file = path.join(bag, `${f.name}_0.${f.storage === 'mcap' ? 'mcap' : 'db3'}`);
    for (const [i, p] of [bag, file].entries()) {
      const out = path.join(dir, `${i}.wds`);
      const r = await importBag(p, {
        world: 'pointmaze-medium',
        poseTopic: f.poseTopic,
        actionTopic: '/cmd_vel',
        out,
        ...f.extra,
      });
      // Humble's MCAP writer records no distro (its metadata is version 5); its .db3 has a schema table that does.
      assert.deepEqual(
        [r.transitions, r.episodes, r.clipped, r.storage, r.distro],
        [8, 2, 3, f.storage, f.name === 'humble-mcap' ? null : f.spec.distro],
      );
      assert.ok(Math.abs(r.rate - 10) < 1e-6, `rate ${r.rate}`);
      const d = await readDataset(out, { expectWorld: 'pointmaze-medium' });
      close(d.observations, MAZE_OBS, 'observations');
      close(d.actions, MAZE_ACT, 'actions');
      assert.deepEqual([...d.terminals], TERMINALS);
      const g = d.generator;
      assert.equal(g.kind, 'rosbag2');
      assert.equal(g.bag, p);
      assert.equal(g.storage, f.storage);
      assert.equal(g.metadataVersion, i === 0 ? (f.spec.distro === 'jazzy' ? 9 : 5) : null);
      assert.deepEqual(g.timeRange, { start: '1700000000.020000000 s', end: '1700000002.220000000 s' });
      assert.deepEqual((g.pose as { topic: string }).topic, f.poseTopic);
      assert.equal(g.episodes, 2);
    }
  });
}

test("zstd chunks (rosbag2_storage_mcap's default), small enough that the drive spans several, import alike", async () => {
  const dir = scratch();
  const file = path.join(dir, 'z.mcap');
  await writeMcap(file, { distro: 'jazzy', pose: 'odometry', action: 'twist' }, undefined, {
    zstd: true,
    chunkSize: 512,
  });
  const out = path.join(dir, 'z.wds');
  const r = await importBag(file, { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out });
  assert.deepEqual([r.transitions, r.episodes], [8, 2]);
  const d = await readDataset(out);
  close(d.observations, MAZE_OBS, 'observations');
  close(d.actions, MAZE_ACT, 'actions');
});

test('a split bag (two .db3 files named by metadata.yaml) reads as one, file after file', async () => {
  const dir = scratch();
  const bag = path.join(dir, 'split');
  mkdirSync(bag);
  const a: Drive = { poses: DRIVE.poses.slice(0, 6), commands: DRIVE.commands.slice(0, 5) };
  const b: Drive = { poses: DRIVE.poses.slice(6), commands: DRIVE.commands.slice(5) };
  writeDb3(path.join(bag, 'split_0.db3'), { distro: 'humble', pose: 'odometry', action: 'twist', drive: a });
  writeDb3(path.join(bag, 'split_1.db3'), { distro: 'humble', pose: 'odometry', action: 'twist', drive: b });
  writeFileSync(
    path.join(bag, 'metadata.yaml'),
    stringify({
      rosbag2_bagfile_information: {
        version: 5,
        storage_identifier: 'sqlite3',
        relative_file_paths: ['split_0.db3', 'split_1.db3'],
        compression_format: '',
      },
    }),
  );
  const out = path.join(dir, 's.wds');
  const r = await importBag(bag, { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out });
  assert.deepEqual([r.transitions, r.episodes, r.messages], [8, 2, 19]);
  const d = await readDataset(out);
  close(d.observations, MAZE_OBS, 'observations');
});

test('the Humble .db3 carries no definitions (the common messages decode it); the Jazzy one does', async () => {
  const dir = scratch();
  const h = path.join(dir, 'h.db3'),
    j = path.join(dir, 'j.db3');
  writeDb3(h, { distro: 'humble', pose: 'odometry', action: 'twist' });
  writeDb3(j, { distro: 'jazzy', pose: 'odometry', action: 'twist' });
  const hb = await openBag(h),
    jb = await openBag(j);
  try {
    assert.equal(hb.definition('nav_msgs/msg/Odometry'), null);
    assert.equal(hb.distro, 'humble');
    assert.ok(jb.definition('nav_msgs/msg/Odometry') !== null);
    assert.equal(jb.distro, 'jazzy');
  } finally {
    await hb.close();
    await jb.close();
  }
});

test('a ROS 2 robot with a navigation section takes the pose fields and the Twist fields its command names, over its scale', async () => {
  const dir = scratch();
  const robot = path.join(dir, 'robot.json');
  writeFileSync(
    robot,
    JSON.stringify({
      version: 1,
      id: 'lab-robot',
      frames: { map: 'odom', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: {
        odom: {
          topic: '/odom',
          type: 'nav_msgs/msg/Odometry',
          fields: { 'base.vx': { path: 'twist.twist.linear.x' } },
        },
      },
      navigation: {
        command: {
          topic: '/cmd_vel',
          type: 'geometry_msgs/msg/Twist',
          action: ['linear.x', 'angular.z'],
          scale: [0.5, 1],
        },
        observation: ['base.x', 'base.y', 'base.yaw'],
        bounds: { min: [0, 0], max: [10, 10] },
      },
    }),
  );
  const bag = await writeBagDir(dir, 'b', 'mcap', { distro: 'jazzy', pose: 'odometry', action: 'twist' });
  const out = path.join(dir, 'r.wds');
  const r = await importBag(bag, { world: `ros2:${robot}`, poseTopic: '/odom', actionTopic: '/cmd_vel', out });
  assert.deepEqual([r.transitions, r.episodes, r.clipped], [8, 2, 0]);
  const d = await readDataset(out);
  const h = Math.PI / 2;
  close(
    d.observations,
    [
      [0.02, 1, 0],
      [0.12, 1, 0],
      [0.22, 1, 0],
      [0.32, 1, 0],
      [0.42, 1, 0],
      [3, 1.02, h],
      [3, 1.12, h],
      [3, 1.22, h],
    ],
    'observations',
  );
  // linear.x / 0.5 and angular.z / 1.
  close(
    d.actions,
    [
      [1, 0.1],
      [1, 0.1],
      [1, 0.1],
      [1, 0.1],
      [1, 0.1],
      [4, -0.3],
      [4, -0.3],
      [4, -0.3],
    ],
    'actions',
  );

  // A field of the odometry sensor on the pose topic is read from each pose message and interpolated.
  const withVx = path.join(dir, 'vx.json');
  const cfg = JSON.parse(readFileSync(robot, 'utf8')) as {
    sensors: { odom: { topic: string } };
    navigation: { observation: string[] };
  };
  cfg.navigation.observation = ['base.x', 'base.vx'];
  writeFileSync(withVx, JSON.stringify(cfg));
  await importBag(bag, { world: `ros2:${withVx}`, poseTopic: '/odom', actionTopic: '/cmd_vel', out });
  close(
    (await readDataset(out)).observations,
    [
      [0.02, 0.2],
      [0.12, 1.2],
      [0.22, 2.2],
      [0.32, 3.2],
      [0.42, 4.2],
      [3, 30],
      [3, 30],
      [3, 30],
    ],
    'observations',
  );
  // A transform carries no odometry fields.
  const tfBag = await writeBagDir(dir, 'tf', 'sqlite3', { distro: 'jazzy', pose: 'tf', action: 'twist' });
  cfg.sensors.odom.topic = '/tf';
  writeFileSync(withVx, JSON.stringify(cfg));
  await expectBagError(
    importBag(tfBag, {
      world: `ros2:${withVx}`,
      poseTopic: '/tf',
      actionTopic: '/cmd_vel',
      out,
      frame: 'map',
      child: 'base_link',
    }),
    'invalid-input',
    /topic \/tf is TF: the world observes fields of the pose message/,
  );
  // A sensor on another topic is not in the bag's pose messages.
  cfg.sensors.odom.topic = '/odom_filtered';
  writeFileSync(withVx, JSON.stringify(cfg));
  await expectBagError(
    importBag(bag, { world: `ros2:${withVx}`, poseTopic: '/odom', actionTopic: '/cmd_vel', out }),
    'invalid-input',
    /navigation\.observation\[1\] is base\.vx, a field of sensor odom on \/odom_filtered, not on the pose topic \/odom/,
  );
});

/** A ROS 2 robot observing (base.x, base.y, base.yaw) and commanding (linear.x / 0.5, angular.z). */
function writeRobot(dir: string): string {
  const robot = path.join(dir, 'robot.json');
  writeFileSync(
    robot,
    JSON.stringify({
      version: 1,
      id: 'lab-robot',
      frames: { map: 'map', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: { odom: { topic: '/odom', type: 'nav_msgs/msg/Odometry', fields: {} } },
      navigation: {
        command: {
          topic: '/cmd_vel',
          type: 'geometry_msgs/msg/Twist',
          action: ['linear.x', 'angular.z'],
          scale: [0.5, 1],
        },
        observation: ['base.x', 'base.y', 'base.yaw'],
        bounds: { min: [0, 0], max: [10, 10] },
      },
    }),
  );
  return robot;
}

/**
 * CHAIN's rows, composed by hand. The grid: 20 Hz (odom → base_link's rate), from the first command
 * (0.01 s) every 0.05 s to the last (2.96 s); --max-gap 0.5 s. Usable while map → odom has samples
 * at most 0.5 s apart on both sides: 0.01 … 0.96 (20 rows), then 2.01 … 2.96 (20 rows), the second
 * second being map → odom's 1 s gap. odom → base_link ends at 2.9: 2.91 and 2.96 take its last
 * sample (the nearest, within 0.5 s). At t: map → odom (1 + t, 2, φ = π/2 + 0.1 t) and
 * odom → base_link (b, 0.5, 0.2 b) with b = min(t, 2.9), so base_link in map is
 * (1 + t + b cos φ − 0.5 sin φ, 2 + b sin φ + 0.5 cos φ, φ + 0.2 b).
 */
function chainRows(child: 'base_link' | 'laser'): { t: number; obs: number[] }[] {
  const rows: { t: number; obs: number[] }[] = [];
  for (let k = 0; k < 60; k++) {
    if (k >= 20 && k < 40) continue;
    const t = 0.01 + 0.05 * k,
      b = Math.min(t, 2.9),
      phi = Math.PI / 2 + 0.1 * t;
    let x = 1 + t + b * Math.cos(phi) - 0.5 * Math.sin(phi),
      y = 2 + b * Math.sin(phi) + 0.5 * Math.cos(phi);
    const yaw = phi + 0.2 * b;
    // The laser sits 0.1 m ahead of base_link.
    if (child === 'laser') [x, y] = [x + 0.1 * Math.cos(yaw), y + 0.1 * Math.sin(yaw)];
    rows.push({ t, obs: [x, y, yaw] });
  }
  return rows;
}

test('a TF chain (map → odom at 2 Hz, odom → base_link at 20 Hz, a static base_link → laser) imports to the hand-composed poses, from MCAP and .db3', async () => {
  assert.deepEqual([CHAIN.odomBase.length, CHAIN.commands[59]], [59, 2.96]);
  const dir = scratch();
  const robot = writeRobot(dir);
  for (const [storage, distro] of [
    ['mcap', 'jazzy'],
    ['sqlite3', 'humble'],
  ] as const) {
    const bag = await writeChainBagDir(dir, `chain-${storage}`, storage, distro);
    const out = path.join(dir, `${storage}.wds`);
    const base = {
      world: `ros2:${robot}`,
      poseTopic: '/tf',
      actionTopic: '/cmd_vel',
      out,
      frame: 'map',
      child: 'base_link',
    };
    const r = await importBag(bag, base);
    assert.deepEqual([r.transitions, r.episodes, r.rate, r.maxGap, r.messages], [40, 2, 20, 0.5, 6 + 59 + 1 + 60]);
    const d = await readDataset(out);
    close(
      d.observations,
      chainRows('base_link').map((row) => row.obs),
      `${storage} observations`,
    );
    close(
      d.actions,
      chainRows('base_link').map(() => [1, 0.3]),
      `${storage} actions`,
    );
    assert.deepEqual(
      [...d.terminals],
      chainRows('base_link').map((_, i) => (i === 19 || i === 39 ? 1 : 0)),
    );
    const pose = d.generator.pose as { frame: string; child: string; chain: string[] };
    assert.deepEqual([pose.frame, pose.child, pose.chain], ['map', 'base_link', ['map → odom', 'odom → base_link']]);
    assert.deepEqual(d.generator.timeRange, { start: '1700000000.010000000 s', end: '1700000002.960000000 s' });

    // Through the static link, and the other way round (each edge inverted): the laser's pose, and the map's pose in
    // the laser's frame.
    await importBag(bag, { ...base, child: 'laser' });
    const laser = chainRows('laser').map((row) => row.obs);
    close((await readDataset(out)).observations, laser, `${storage} laser`);
    await importBag(bag, { ...base, frame: 'laser', child: 'map' });
    const inverse = laser.map(([x, y, yaw]) => {
      const c = Math.cos(yaw!),
        s = Math.sin(yaw!);
      return [-(c * x! + s * y!), s * x! - c * y!, -yaw!];
    });
    const back = await readDataset(out);
    close(back.observations, inverse, `${storage} map in laser`);
    assert.deepEqual((back.generator.pose as { chain: string[] }).chain, [
      'base_link → laser (inverted) (static)',
      'odom → base_link (inverted)',
      'map → odom (inverted)',
    ]);
  }
  // map → odom received 0.2 s after its stamp: /tf's stamps go back in time between edges, not along one; the rows are
  // the same.
  const late = await writeChainBagDir(dir, 'late', 'sqlite3', 'jazzy', undefined, true);
  const out = path.join(dir, 'late.wds');
  assert.equal(
    (
      await importBag(late, {
        world: `ros2:${robot}`,
        poseTopic: '/tf',
        actionTopic: '/cmd_vel',
        out,
        frame: 'map',
        child: 'base_link',
      })
    ).transitions,
    40,
  );
  close(
    (await readDataset(out)).observations,
    chainRows('base_link').map((row) => row.obs),
    'late observations',
  );
});

test("an edge's samples in columns give back their stamps to the nanosecond (past the first growth, and before 1970)", () => {
  const xs = new EdgeSamples();
  const ns = (i: number): bigint => (i === 7 ? -1_500_000_001n : 1_700_000_000_123_456_789n + BigInt(i) * 50_000_001n);
  for (let i = 0; i < 40; i++) xs.push({ ns: ns(i), x: i, y: -i, yaw: i / 10 });
  assert.equal(xs.length, 40);
  assert.deepEqual(xs.at(39), { ns: ns(39), x: 39, y: -39, yaw: 3.9 });
  assert.deepEqual(
    xs.toArray().map((p) => p.ns),
    Array.from({ length: 40 }, (_, i) => ns(i)),
  );
  xs.clear();
  assert.deepEqual(xs.toArray(), []);
});

test('TF chains are refused (exit 2, naming the bag, topic and times) with no path, a second parent, unknown or all-static frames', async () => {
  const dir = scratch();
  const robot = writeRobot(dir);
  const out = path.join(dir, 'x.wds');
  const base = {
    world: `ros2:${robot}`,
    poseTopic: '/tf',
    actionTopic: '/cmd_vel',
    out,
    frame: 'map',
    child: 'base_link',
  };
  const apart = await writeChainBagDir(dir, 'apart', 'mcap', 'jazzy', { parent: 'earth', child: 'gps' });
  await expectBagError(
    importBag(apart, { ...base, child: 'gps' }),
    'invalid-input',
    /apart: topic \/tf: no path from map to gps: they are in separate trees in the transforms on \/tf and \/tf_static \(stamped 1700000000\.000000000 s to 1700000003\.000000000 s\) \(frames seen: base_link \(parent odom\), earth \(root\), gps \(parent earth\), laser \(parent base_link\), map \(root\), odom \(parent map\)\)/,
  );
  await expectBagError(
    importBag(apart, { ...base, frame: 'world' }),
    'invalid-input',
    /apart: topic \/tf: no transform names frame world in the transforms on \/tf and \/tf_static/,
  );
  await expectBagError(
    importBag(apart, { ...base, frame: 'base_link', child: 'laser' }),
    'invalid-input',
    /apart: topic \/tf: the pose of laser in base_link never changes \(its transforms: base_link → laser, all static\), so it has no time line/,
  );
  await expectBagError(
    importBag(apart, { ...base, frame: undefined }),
    'invalid-input',
    /topic \/tf is TF: give --frame and --child/,
  );
  // Along an edge of the path, stamps must not go back in time (base_link → laser, not on it, goes back too).
  const back = await writeBagDir(dir, 'back', 'mcap', {
    distro: 'jazzy',
    pose: 'tf',
    action: 'twist',
    swapPoses: [3, 4],
  });
  await expectBagError(
    importBag(back, base),
    'invalid-input',
    /back: topic \/tf: the transform map → base_link: stamps go back in time at 1700000000\.300000000 s \(the message before is stamped 1700000000\.400000000 s\)/,
  );
  const two = await writeChainBagDir(dir, 'two', 'sqlite3', 'humble', { parent: 'map', child: 'base_link' });
  await expectBagError(
    importBag(two, base),
    'invalid-input',
    /two: topic \/tf: at 1700000000\.000000000 s frame base_link has a second parent, (odom|map), besides (map|odom) \(from \/tf\): a TF tree gives each frame one parent/,
  );
});

test('--rate and --max-gap change the grid: at 5 Hz with a 2 s gap the two stretches join', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'b', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const out = path.join(dir, 'r.wds');
  // Grid t = 0.02 + 0.2k up to 2.29: 12 times (0.02 … 2.22), all usable with a 2 s gap.
  const r = await importBag(bag, {
    world: 'pointmaze-medium',
    poseTopic: '/odom',
    actionTopic: '/cmd_vel',
    out,
    rate: 5,
    maxGap: 2,
  });
  assert.deepEqual([r.transitions, r.episodes], [12, 1]);
});

test('refusals name the bag, the topic and the time (exit 2)', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'b', 'mcap', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const out = path.join(dir, 'x.wds');
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out };
  await expectBagError(
    importBag(bag, { ...base, poseTopic: '/nope' }),
    'invalid-input',
    /b: no topic \/nope for the pose \(topics in the bag: .*\/odom \(nav_msgs\/msg\/Odometry\).*\/cmd_vel/,
  );
  await expectBagError(
    importBag(bag, { ...base, poseTopic: '/cmd_vel' }),
    'invalid-input',
    /topic \/cmd_vel has type geometry_msgs\/msg\/Twist: the pose topic takes nav_msgs\/msg\/Odometry/,
  );
  await expectBagError(
    importBag(bag, { ...base, actionTopic: '/odom' }),
    'invalid-input',
    /topic \/odom has type nav_msgs\/msg\/Odometry: the action topic takes geometry_msgs\/msg\/Twist/,
  );
  await expectBagError(
    importBag(bag, { ...base, world: 'tabletop' }),
    'invalid-input',
    /tabletop: a bag cannot be imported into this world/,
  );
  await expectBagError(importBag(bag, { ...base, rate: 0 }), 'invalid-input', /--rate must be a positive number/);
  await expectBagError(importBag(path.join(dir, 'missing'), base), 'not-found', /missing: no such file or directory/);
  await expectBagError(
    importBag(path.join(dir, 'gone.mcap'), base),
    'not-found',
    /gone\.mcap: no such file or directory/,
  );
  // A FIFO is refused by its status, before anything opens it (which would wait for a writer).
  const fifo = path.join(dir, 'pipe.db3');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  await expectBagError(importBag(fifo, base), 'not-a-file', /pipe\.db3 is not a regular file \(a pipe or a device\)/);

  const tf = await writeBagDir(dir, 'tf', 'sqlite3', { distro: 'jazzy', pose: 'tf', action: 'twist' });
  await expectBagError(
    importBag(tf, { ...base, poseTopic: '/tf' }),
    'invalid-input',
    /topic \/tf is TF: give --frame and --child/,
  );
  await expectBagError(
    importBag(tf, { ...base, poseTopic: '/tf', frame: 'world', child: 'base_link' }),
    'invalid-input',
    /tf: topic \/tf: no transform names frame world in the transforms on \/tf \(no \/tf_static in the bag\) \(stamped 1700000000\.000000000 s to 1700000002\.300000000 s\) \(frames seen: base_link \(parent map\), laser \(parent base_link\), map \(root\)\)/,
  );
  const two = await writeBagDir(dir, 'two', 'mcap', { distro: 'jazzy', pose: 'tf', action: 'twist', twoParents: true });
  await expectBagError(
    importBag(two, { ...base, poseTopic: '/tf', frame: 'map', child: 'base_link' }),
    'invalid-input',
    /two: topic \/tf: at 1700000000\.000000000 s frame base_link has a second parent, map, besides odom \(from \/tf\): a TF tree gives each frame one parent/,
  );

  // Pose 3's and 4's header stamps swapped: at 0.3 s the stamp says 0.4, then 0.3.
  const ooo = await writeBagDir(dir, 'ooo', 'mcap', {
    distro: 'jazzy',
    pose: 'odometry',
    action: 'twist',
    swapPoses: [3, 4],
  });
  await expectBagError(
    importBag(ooo, base),
    'invalid-input',
    /ooo: topic \/odom: stamps go back in time at 1700000000\.300000000 s \(the message before is stamped 1700000000\.400000000 s\)/,
  );
  const r = await importBag(ooo, { ...base, stamp: 'receive' });
  assert.equal(r.transitions, 8);

  // Poses whose header stamps are all zero: no rate; receive times work.
  const zero = await writeBagDir(dir, 'zero', 'sqlite3', {
    distro: 'humble',
    pose: 'odometry',
    action: 'twist',
    unstamped: true,
  });
  await expectBagError(
    importBag(zero, base),
    'invalid-input',
    /zero: topic \/odom: all its poses have one stamp \(0\.000000000 s\), so it has no rate: are its header stamps set\? --stamp receive/,
  );
  assert.equal((await importBag(zero, { ...base, stamp: 'receive' })).episodes, 2);

  // Commands only after the last pose: no overlap.
  const late: Drive = { poses: DRIVE.poses.slice(0, 6), commands: DRIVE.commands.slice(5) };
  const apart = await writeBagDir(dir, 'apart', 'sqlite3', {
    distro: 'humble',
    pose: 'odometry',
    action: 'twist',
    drive: late,
  });
  await expectBagError(
    importBag(apart, base),
    'invalid-input',
    /apart: no rows: the poses on \/odom \(1700000000\.000000000 s to 1700000000\.500000000 s\) and the commands on \/cmd_vel \(1700000001\.990000000 s to 1700000002\.290000000 s\) do not overlap/,
  );
});

test('a truncated MCAP file and a truncated .db3 file are refused (exit 2), never an internal error', async () => {
  const dir = scratch();
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  const mcap = path.join(dir, 'cut.mcap');
  await writeMcap(mcap, { distro: 'jazzy', pose: 'odometry', action: 'twist' });
  truncateSync(mcap, Math.floor(statSync(mcap).size / 2));
  await expectBagError(
    importBag(mcap, base),
    'corrupt',
    /cut\.mcap: .*cut\.mcap is not a complete MCAP file \(truncated, or not MCAP\)/,
  );

  const db3 = path.join(dir, 'cut.db3');
  // Enough messages for several pages of rows, so the cut falls among them.
  const many: Drive = {
    poses: Array.from({ length: 3000 }, (_, i) => ({ t: i * 0.01, x: i * 0.01, y: 0, yaw: 0 })),
    commands: Array.from({ length: 3000 }, (_, i) => ({
      t: i * 0.01 + 0.005,
      linear: [1, 0, 0] as [number, number, number],
      angularZ: 0,
    })),
  };
  writeDb3(db3, { distro: 'humble', pose: 'odometry', action: 'twist', drive: many });
  const whole = path.join(dir, 'whole.db3');
  copyFileSync(db3, whole);
  // Grid 0.005 … 29.99 every 0.01 s: 2999 rows. Progress by receive time: one report at message 4096, then the end.
  const calls: [number, number][] = [];
  assert.equal((await importBag(whole, { ...base, progress: (d, t) => calls.push([d, t]) })).transitions, 2999);
  assert.equal(calls.length, 2);
  assert.ok(calls[0]![0] > 600 && calls[0]![0] < 750, `at message 4096 of 6000: ${calls[0]![0]}‰`);
  assert.deepEqual(calls[1], [1000, 1000]);
  const wb = await openBag(whole);
  assert.deepEqual(wb.timeRange, [
    1_700_000_000_000_000_000n + 1_000_000n,
    1_700_000_000_000_000_000n + 29_995_000_000n,
  ]);
  await wb.close();
  truncateSync(db3, Math.floor(statSync(db3).size / 2));
  await expectBagError(importBag(db3, base), 'corrupt', /cut\.db3: .*truncated or damaged/);
});

test('metadata.yaml problems name the file and the field', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'b', 'mcap', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const yaml = path.join(bag, 'metadata.yaml');
  const text = readFileSync(yaml, 'utf8');
  writeFileSync(yaml, text.replace('version: 5', 'version: 42'));
  await expectBagError(openBag(bag), 'invalid-input', /metadata\.yaml: version 42: this reader knows versions 1 to 9/);
  writeFileSync(yaml, text.replace('version: 5', 'version: 0'));
  await expectBagError(openBag(bag), 'invalid-input', /metadata\.yaml: version 0: this reader knows versions 1 to 9/);
  writeFileSync(yaml, text.replace('storage_identifier: mcap', 'storage_identifier: rosbag_v1'));
  await expectBagError(openBag(bag), 'invalid-input', /storage_identifier "rosbag_v1"/);
  writeFileSync(yaml, text.replace(/relative_file_paths:\n\s+- \S+/, 'relative_file_paths:\n    - ../../etc/passwd'));
  await expectBagError(
    openBag(bag),
    'invalid-input',
    /relative_file_paths: \.\.\/\.\.\/etc\/passwd is outside the bag directory/,
  );
});

// Regressions found importing real rosbag2 recordings from public repositories (docs/ROS2.md,
// "Real bags imported"); the bags themselves are not ours to commit, so each is reproduced here.

test("a MESSAGE-compressed bag (each message a zstd frame, as rosbag2's reindex_test_bags/message_compression) imports, as a directory and as a bare file", async () => {
  const dir = scratch();
  for (const storage of ['sqlite3', 'mcap'] as const) {
    const bag = await writeBagDir(
      dir,
      `mc-${storage}`,
      storage,
      { distro: 'humble', pose: 'odometry', action: 'twist' },
      undefined,
      { messageCompression: true },
    );
    assert.match(readFileSync(path.join(bag, 'metadata.yaml'), 'utf8'), /compression_mode: MESSAGE/);
    for (const p of [bag, path.join(bag, `mc-${storage}_0.${storage === 'mcap' ? 'mcap' : 'db3'}`)]) {
      const out = path.join(dir, `${path.basename(p)}.wds`);
      const r = await importBag(p, { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out });
      assert.equal(r.transitions, 8, p);
      const d = await readDataset(out);
      close(d.observations, MAZE_OBS, `${p} observations`);
      close(d.actions, MAZE_ACT, `${p} actions`);
    }
  }
});

test('a FILE-compressed bag (metadata.yaml, or a bare .db3.zstd file) is refused, naming ros2 bag convert and zstd -d', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'fc', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const yaml = path.join(bag, 'metadata.yaml');
  writeFileSync(
    yaml,
    readFileSync(yaml, 'utf8')
      .replace(/compression_format: ""/, 'compression_format: zstd')
      .replace(/compression_mode: ""/, 'compression_mode: FILE')
      .replaceAll('fc_0.db3', 'fc_0.db3.zstd'),
  );
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  await expectBagError(
    importBag(bag, base),
    'invalid-input',
    /fc: metadata\.yaml: compression_format "zstd", compression_mode "FILE": rosbag2's FILE compression mode compresses each storage file whole.*`ros2 bag convert`.*`zstd -d`/,
  );
  const bare = path.join(dir, 'fc_0.db3.zstd');
  writeFileSync(bare, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]));
  await expectBagError(
    importBag(bare, base),
    'invalid-input',
    /fc_0\.db3\.zstd: a storage file compressed whole \(zstd\)/,
  );
});

test("metadata versions 1 to 3 (Dashing, Eloquent): a path prefixed with the bag directory's name resolves from its parent, a bare one from the directory", async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'old', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const yaml = path.join(bag, 'metadata.yaml');
  const text = readFileSync(yaml, 'utf8');
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  writeFileSync(
    yaml,
    text
      .replace('version: 5', 'version: 3')
      .replace(/relative_file_paths:\n(\s+)- old_0\.db3/, 'relative_file_paths:\n$1- old/old_0.db3'),
  );
  const r3 = await importBag(bag, base);
  assert.deepEqual([r3.transitions, (await readDataset(base.out)).generator.metadataVersion], [8, 3]);
  writeFileSync(yaml, text.replace('version: 5', 'version: 1'));
  assert.equal((await importBag(bag, base)).transitions, 8);
});

test('a file metadata.yaml names that is not there (renamed, as in fadil-nurmaulid/robot_kf) is refused, listing the files the directory holds', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'kf', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  renameSync(path.join(bag, 'kf_0.db3'), path.join(bag, 'my_bag.db3'));
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  await expectBagError(
    importBag(bag, base),
    'not-found',
    /kf: metadata\.yaml names kf_0\.db3, which is not there \(.*\); the directory holds my_bag\.db3: renamed\? give the file itself/,
  );
  assert.equal((await importBag(path.join(bag, 'my_bag.db3'), base)).transitions, 8);
});

test("header stamps in sim time against a Twist's receive times (a Gazebo run, as RinavK/husky_robot_CS498): no rows, naming the two clocks and --stamp receive, which imports it", async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'sim', 'sqlite3', {
    distro: 'humble',
    pose: 'odometry',
    action: 'twist',
    simTime: 10,
  });
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  await expectBagError(
    importBag(bag, base),
    'invalid-input',
    /sim: no rows: the poses on \/odom \(10\.000000000 s to 12\.300000000 s\) and the commands on \/cmd_vel \(1700000000\.020000000 s to .*\) do not overlap .*; the poses are timed by their header stamps and the Twist commands \(which have no header\) by the times the recorder received them, \d+ s apart: two clocks .*--stamp receive/,
  );
  assert.equal((await importBag(bag, { ...base, stamp: 'receive' })).transitions, 8);
  // Stretches that merely miss each other (the same clock) get no such hint.
  const late: Drive = { poses: DRIVE.poses.slice(0, 6), commands: DRIVE.commands.slice(5) };
  const apart = await writeBagDir(dir, 'apart', 'sqlite3', {
    distro: 'humble',
    pose: 'odometry',
    action: 'twist',
    drive: late,
  });
  await assert.rejects(importBag(apart, base), (e: Error) => !/two clocks/.test(e.message));
});

test("poses outside the maze's free cells (a pose in another frame) import as they are, counted in the report and the provenance", async () => {
  const dir = scratch();
  const base = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel', out: path.join(dir, 'x.wds') };
  const inside = await importBag(
    await writeBagDir(dir, 'in', 'mcap', { distro: 'jazzy', pose: 'odometry', action: 'twist' }),
    base,
  );
  assert.equal(inside.outside, 0);
  assert.equal((await readDataset(base.out)).generator.outsideFree, 0);
  // UTM-like coordinates (a GPS pose, as drewbot02341/gps_nav_ws records): all rows off the maze.
  const utm: Drive = {
    poses: DRIVE.poses.map((p) => ({ ...p, x: p.x + 369644, y: p.y + 3280416 })),
    commands: DRIVE.commands,
  };
  const r = await importBag(
    await writeBagDir(dir, 'utm', 'mcap', { distro: 'jazzy', pose: 'odometry', action: 'twist', drive: utm }),
    base,
  );
  assert.deepEqual([r.transitions, r.outside], [8, 8]);
  assert.ok(r.extent.x[0] > 369643 && r.extent.y[1] < 3280418, JSON.stringify(r.extent));
  assert.equal((await readDataset(base.out)).generator.outsideFree, 8);
});

test("an MCAP file's distro: ros_distro in serialized_metadata as rosbag2_storage_mcap writes it (the bag's metadata itself, as in rishika2024/Turtle-Waypoints' Kilted bag), Iron's ROS_DISTRO key, or the metadata.yaml form", () => {
  assert.equal(
    distroOf(
      new Map([
        [
          'serialized_metadata',
          'version: 9\nstorage_identifier: mcap\nmessage_count: 8886\ncustom_data: ~\nros_distro: kilted\n',
        ],
      ]),
    ),
    'kilted',
  );
  assert.equal(
    distroOf(
      new Map([
        ['serialized_metadata', 'version: 8\n'],
        ['ROS_DISTRO', 'iron'],
      ]),
    ),
    'iron',
  );
  assert.equal(
    distroOf(new Map([['serialized_metadata', 'rosbag2_bagfile_information:\n  ros_distro: jazzy\n']])),
    'jazzy',
  );
  assert.equal(distroOf(new Map([['serialized_metadata', 'version: 5\n']])), null);
  assert.equal(distroOf(new Map([['serialized_metadata', ': not yaml [']])), null);
});

// What a bag declares is checked before anything is allocated or inflated (limits.ts): each refusal
// names the file and the limit, and comes at once, within bounded memory.

const MB = 2 ** 20;
const IMPORT = { world: 'pointmaze-medium', poseTopic: '/odom', actionTopic: '/cmd_vel' } as const;

/**
 * Imports `file`, expecting a refusal with `code` matching `re`, quickly and without growing the process past 1 GiB.
 */
async function refusedFast(file: string, code: string, re: RegExp): Promise<void> {
  const t0 = performance.now();
  await expectBagError(importBag(file, { ...IMPORT, out: `${file}.wds` }), code, re);
  const ms = performance.now() - t0,
    rss = process.resourceUsage().maxRSS / 1024;
  assert.ok(ms < 10_000, `${path.basename(file)}: refused after ${ms.toFixed(0)} ms`);
  assert.ok(rss < 1024, `${path.basename(file)}: the process peaked at ${rss.toFixed(0)} MiB`);
}

test('MCAP chunks: declared inflated sizes, a chunk indexed twice, overlapping chunks, chunks held together and all chunks together are checked before any is inflated', async () => {
  const dir = scratch();
  const write = (name: string, chunks: CraftChunk[]): string => {
    const f = path.join(dir, `${name}.mcap`);
    writeFileSync(f, craftMcap(chunks));
    return f;
  };
  // The crafted file reads as a bag when it does not lie.
  assert.equal(
    (await importBag(write('valid', [driveChunk()]), { ...IMPORT, out: path.join(dir, 'v.wds') })).transitions,
    8,
  );
  const T = T0_NS,
    s = 10_000_000_000n;
  await refusedFast(
    write('big', [zeroChunk(200 * MB)]),
    'too-large',
    /big\.mcap: the chunk at byte \d+ declares 200 MB inflated, over 128 MB \(the limit for one chunk\)/,
  );
  await refusedFast(
    write('twice', [zeroChunk(64 * MB, T, { indexed: 40 })]),
    'corrupt',
    /twice\.mcap: the chunk at byte \d+ is indexed more than once/,
  );
  const c = driveChunk();
  await refusedFast(
    write('overlap', [c, { ...c, index: { chunkStartOffset: 60n } }]),
    'corrupt',
    /the chunk at byte 60 overlaps the chunk at byte \d+/,
  );
  await refusedFast(
    write(
      'held',
      Array.from({ length: 3 }, () => heldChunk(100 * MB)),
    ),
    'too-large',
    /held\.mcap: the chunks whose time ranges overlap at 1700000000000000000 ns declare \d+ bytes together .*over 256 MB \(the limit for the chunks held at once\)/,
  );
  await refusedFast(
    write(
      'total',
      Array.from({ length: 12 }, (_, i) => zeroChunk(100 * MB, T + BigInt(i) * s)),
    ),
    'too-large',
    /total\.mcap: its 12 chunks declare 1200 MB inflated: that takes the bag past 1024 MB inflated \(the limit for a bag: 64 times the size of its files, at least 1024 MB\)/,
  );
  await refusedFast(
    write('bz2', [zeroChunk(1024, T, { compression: 'bz2' })]),
    'invalid-input',
    /the chunk at byte \d+ is compressed as "bz2": MCAP chunks are zstd, lz4 or not compressed/,
  );
  // The chunk's own record says otherwise than its index (which the reader would inflate to).
  await refusedFast(
    write('lie', [zeroChunk(200 * MB, T, { index: { uncompressedSize: 1024n } })]),
    'corrupt',
    /^[^:]*lie\.mcap: reading messages failed after the start: the chunk at byte \d+: its record declares 209715200 bytes inflated, not what its index says/,
  );
  // A summary of half a million chunk indexes (75 MB), which the reader would parse whole into half a gigabyte of
  // objects, is refused before it is read.
  const summary = path.join(dir, 'summary.mcap');
  writeFileSync(summary, summaryMcap(500_000));
  await refusedFast(
    summary,
    'too-large',
    /^[^:]*summary\.mcap: its summary section \(chunk indexes, schemas, channels, statistics\) is \d+ bytes, over 64 MB \(the limit for an MCAP summary\)$/,
  );
  // A message index entry outside its chunk's time range would hold the chunk past it.
  await refusedFast(
    write('late', [zeroChunk(MB, T, { entries: [[T + 5n * s, 0n]] })]),
    'corrupt',
    /a message index entry is stamped 1700000050000000000 ns, outside the chunk's time range/,
  );
});

test('a MESSAGE-compressed bag: a zstd message that declares more than the limit for one message is refused before it is inflated', async () => {
  const dir = scratch();
  const msgs = driveMessages({ distro: 'humble', pose: 'odometry', action: 'twist' });
  msgs[0] = { ...msgs[0]!, data: zstdZeros(200 * MB) };
  const bag = await writeBagDir(dir, 'mz', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' }, msgs);
  writeFileSync(
    path.join(bag, 'metadata.yaml'),
    readFileSync(path.join(bag, 'metadata.yaml'), 'utf8')
      .replace('compression_format: ""', 'compression_format: zstd')
      .replace('compression_mode: ""', 'compression_mode: MESSAGE'),
  );
  await refusedFast(
    bag,
    'too-large',
    /mz: topic \/odom: the message received at 1700000000\.001000000 s is a zstd frame that declares 200 MB inflated, over 128 MB \(the limit for one message\)/,
  );
});

const ZERO_SIZE =
  'Z[] items\n================================================================================\nMSG: p/Z\nuint8[0] nothing\n';

test('CDR: sequences of zero-size elements are capped by count, and longer sequences than the bytes left are refused before they are read', async () => {
  const dir = scratch();
  const bag = (name: string, schema: string, data: Uint8Array): string => {
    const f = path.join(dir, `${name}.mcap`);
    schemaMcap(f, 'nav_msgs/msg/Odometry', schema, [data]);
    return f;
  };
  await refusedFast(
    bag('zero', ZERO_SIZE, cdr(...u32(2_000_000))),
    'invalid-input',
    /zero\.mcap: topic \/odom: the message received at 1700000000\.000000000 s does not decode as nav_msgs\/msg\/Odometry: field items: 2000000 elements of zero size are more than the 1048576 values one message may decode \(the limit for a decoded message\)/,
  );
  // Big-endian CDR: MessageReader would allocate the whole Float64Array before reading it.
  await refusedFast(
    bag('long', 'float64[] xs\n', Uint8Array.from([0, 0, 0, 0, 0x10, 0, 0, 0])),
    'invalid-input',
    /field xs: 268435456 elements of at least 8 bytes need 2147483648 bytes; the message has 0 left/,
  );
  await refusedFast(
    bag('strings', 'string[] names\n', cdr(...u32(1000), ...u32(5))),
    'invalid-input',
    /field names: 1000 elements of at least 4 bytes need 4000 bytes; the message has 4 left/,
  );
  await refusedFast(
    bag(
      'self',
      'A a\n================================================================================\nMSG: p/A\nA inner\n',
      cdr(0),
    ),
    'invalid-input',
    /topic \/odom: the bag's definition of nav_msgs\/msg\/Odometry cannot decode a message: type p\/A holds itself \(p\/A → p\/A\) other than through a sequence/,
  );
});

test('the bounded CDR reader decodes what MessageReader decodes: the fixture messages and a definition with every kind of field', () => {
  const defs = (text: string): MessageDefinition[] => ros2msgDefinitions('ros2msg', new TextEncoder().encode(text))!;
  for (const m of [
    ...driveMessages({ distro: 'jazzy', pose: 'odometry', action: 'twist-stamped' }),
    ...driveMessages({ distro: 'jazzy', pose: 'tf', action: 'twist' }),
  ]) {
    const d = defs(ros2msgText(m.type));
    assert.deepEqual(new BoundedMessageReader(d).readMessage(m.data), new MessageReader(d).readMessage(m.data), m.type);
  }
  const every =
    'bool b\nbool[] bs\nint8 i8\nuint8[3] u8s\nint16[] i16s\nint32 i32\nuint64[] u64s\nfloat32 f\nfloat64[] fs\nstring s\nstring[] ss\nbuiltin_interfaces/Time t\nbuiltin_interfaces/Time[] ts\np/E e\np/E[] es\np/N[2] ns\n' +
    '================================================================================\nMSG: p/E\n' +
    '================================================================================\nMSG: p/N\nint32 CONST=5\nfloat64 v\nstring[] tags\n';
  const d = defs(every);
  const value = {
    b: true,
    bs: [true, false, true],
    i8: -3,
    u8s: Uint8Array.from([1, 2, 3]),
    i16s: Int16Array.from([-1, 2]),
    i32: 7,
    u64s: BigUint64Array.from([5n]),
    f: 1.5,
    fs: Float64Array.from([0.25, -2]),
    s: 'x',
    ss: ['', 'ab'],
    t: { sec: 3, nanosec: 4 },
    ts: [{ sec: 1, nanosec: 2 }],
    e: {},
    es: [{}, {}],
    ns: [
      { v: 1, tags: ['a'] },
      { v: 2, tags: [] },
    ],
  };
  for (const data of [new MessageWriter(d).writeMessage(value)]) {
    assert.deepEqual(new BoundedMessageReader(d).readMessage(data), new MessageReader(d).readMessage(data));
  }
});

test('bad values in a .db3: a NULL, text or real timestamp and a NULL or text body are refused naming the file, the topic and the row (exit 2)', async () => {
  const dir = scratch();
  const cases: [string, LooseRow, RegExp][] = [
    [
      'null-ts',
      { topic: '/cmd_vel', timestamp: null, data: Buffer.from(cdr(0)) },
      /null-ts\.db3: topic \/cmd_vel: the message with id 20 has a timestamp that is NULL, not an integer number of nanoseconds/,
    ],
    [
      'text-ts',
      { topic: '/cmd_vel', timestamp: 'soon', data: Buffer.from(cdr(0)) },
      /text-ts\.db3: the messages table has a timestamp that is text \(soon\), not an integer number of nanoseconds/,
    ],
    [
      'real-ts',
      { topic: '/odom', timestamp: 1.7e18 + 0.5, data: Buffer.from(cdr(0)) },
      /real-ts\.db3: the messages table has a timestamp that is a real number/,
    ],
    [
      'null-body',
      { topic: '/odom', timestamp: T0_NS + 5n, data: null },
      /null-body\.db3: topic \/odom: the message with id 20, received at 1700000000\.000000005 s, has no data \(NULL\)/,
    ],
    [
      'text-body',
      { topic: '/cmd_vel', timestamp: T0_NS + 5n, data: 'hello' },
      /text-body\.db3: topic \/cmd_vel: the message with id 20, received at 1700000000\.000000005 s, has data that is text, not a blob of CDR/,
    ],
  ];
  for (const [name, row, re] of cases) {
    const f = path.join(dir, `${name}.db3`);
    looseDb3(f, [row]);
    await refusedFast(f, 'invalid-input', re);
  }
});

test('a .db3 is opened defensively: generated columns, a view or a virtual table in place of a table are refused before a row is read', async () => {
  const dir = scratch();
  const gen = path.join(dir, 'gen.db3');
  looseDb3(gen, [], {
    messagesTable:
      'CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB GENERATED ALWAYS AS (zeroblob(1000)) VIRTUAL);',
    generatedData: true,
  });
  await refusedFast(
    gen,
    'invalid-input',
    /gen\.db3: the messages table has generated columns \(data\): a rosbag2 \.db3 stores its values, and this reader does not run a file's own SQL/,
  );
  const view = path.join(dir, 'view.db3');
  looseDb3(view, [], {
    messagesTable:
      'CREATE TABLE m(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB); CREATE VIEW messages AS SELECT id, topic_id, timestamp, zeroblob(1000) AS data FROM m;',
  });
  await refusedFast(view, 'invalid-input', /view\.db3: messages is a view, not a table/);
  const vt = path.join(dir, 'vt.db3');
  looseDb3(vt, [], { messagesTable: 'CREATE VIRTUAL TABLE messages USING fts5(topic_id, timestamp, data);' });
  await refusedFast(vt, 'invalid-input', /vt\.db3: messages is a virtual table/);
  const odd = path.join(dir, 'odd.db3');
  looseDb3(odd);
  const db = new Database(odd);
  db.prepare('INSERT INTO topics VALUES (3, NULL, ?, ?, ?)').run('x/msg/Y', 'cdr', '');
  db.close();
  await refusedFast(
    odd,
    'invalid-input',
    /odd\.db3: 1 rows of the topics table have an id that is not an integer, or a name, type or serialization_format that is not text/,
  );
});

test("header stamps with only sec, or a text sec (a bag's own definition of the stamp), are refused naming the topic and the time (exit 2)", async () => {
  const dir = scratch();
  const sep = `${'='.repeat(80)}\n`;
  const tail = (stamp: string): string =>
    `std_msgs/Header header\ngeometry_msgs/Pose pose\n${sep}MSG: std_msgs/Header\np/Stamp stamp\nstring frame_id\n${sep}MSG: p/Stamp\n${stamp}${sep}MSG: geometry_msgs/Pose\n${ros2msgText('geometry_msgs/msg/Pose')}\n`;
  const cases: [string, string, object, RegExp][] = [
    [
      'sec-only',
      'int32 sec\n',
      { sec: 1_700_000_000 },
      /its header stamp is not whole seconds and nanoseconds \(sec: 1700000000, nanosec: missing\)/,
    ],
    [
      'text-sec',
      'string sec\nuint32 nanosec\n',
      { sec: 'noon', nanosec: 0 },
      /its header stamp is not whole seconds and nanoseconds \(sec: the text "noon", nanosec: 0\)/,
    ],
  ];
  for (const [name, stamp, value, re] of cases) {
    const schema = tail(stamp);
    const w = new MessageWriter(ros2msgDefinitions('ros2msg', new TextEncoder().encode(schema))!);
    const msgs = [0, 1, 2].map(() =>
      w.writeMessage({
        header: { stamp: value, frame_id: 'map' },
        pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      }),
    );
    const f = path.join(dir, `${name}.mcap`);
    schemaMcap(f, 'geometry_msgs/msg/PoseStamped', schema, msgs);
    await refusedFast(
      f,
      'invalid-input',
      new RegExp(
        `${name}\\.mcap: topic /odom: the message received at 1700000000\\.000000000 s: ${re.source}; give --stamp receive`,
      ),
    );
  }
});

test("a bag folder's files must lie in it: a storage file or metadata.yaml that is a link out of the folder is refused", async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'in', 'sqlite3', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const outside = path.join(dir, 'secret.db3');
  renameSync(path.join(bag, 'in_0.db3'), outside);
  symlinkSync(outside, path.join(bag, 'in_0.db3'));
  await expectBagError(
    importBag(bag, { ...IMPORT, out: path.join(dir, 'x.wds') }),
    'forbidden',
    /in: .*in_0\.db3 leads to .*secret\.db3, outside the bag folder .*in: a bag's files must lie in its folder \(a link out of it is refused\)/,
  );
  // A link inside the folder is followed.
  renameSync(outside, path.join(bag, 'real.db3'));
  rmSync(path.join(bag, 'in_0.db3'));
  symlinkSync('real.db3', path.join(bag, 'in_0.db3'));
  assert.equal((await importBag(bag, { ...IMPORT, out: path.join(dir, 'y.wds') })).transitions, 8);
  const yaml = path.join(bag, 'metadata.yaml');
  renameSync(yaml, path.join(dir, 'metadata.yaml'));
  symlinkSync(path.join(dir, 'metadata.yaml'), yaml);
  await expectBagError(openBag(bag), 'forbidden', /metadata\.yaml leads to .*, outside the bag folder/);
});

test('metadata.yaml naming a file several times reads it once; naming more files than the limit is refused before any is opened', async () => {
  const dir = scratch();
  const bag = await writeBagDir(dir, 'dup', 'mcap', { distro: 'humble', pose: 'odometry', action: 'twist' });
  const yaml = path.join(bag, 'metadata.yaml');
  const text = readFileSync(yaml, 'utf8');
  writeFileSync(
    yaml,
    text.replace(
      /relative_file_paths:\n\s+- dup_0\.mcap/,
      'relative_file_paths:\n    - dup_0.mcap\n    - dup_0.mcap\n    - ./dup_0.mcap\n    - again.mcap\n    - hard.mcap',
    ),
  );
  // Two more names of it: a link and a hard link.
  symlinkSync('dup_0.mcap', path.join(bag, 'again.mcap'));
  linkSync(path.join(bag, 'dup_0.mcap'), path.join(bag, 'hard.mcap'));
  const r = await importBag(bag, { ...IMPORT, out: path.join(dir, 'x.wds') });
  assert.deepEqual([r.transitions, r.messages], [8, DRIVE.poses.length + DRIVE.commands.length]);
  writeFileSync(
    yaml,
    text.replace(
      /relative_file_paths:\n\s+- dup_0\.mcap/,
      `relative_file_paths:\n${Array.from({ length: 1025 }, (_, i) => `    - f_${i}.mcap`).join('\n')}`,
    ),
  );
  await expectBagError(
    openBag(bag),
    'invalid-input',
    /dup: metadata\.yaml: relative_file_paths names 1025 files, over 1024 \(the limit for one bag's files\)/,
  );
});
