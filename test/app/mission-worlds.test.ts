// @slow: missions on the point maze and the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// The one mission workflow (app/mission.ts) on two World implementations: the embedded MuJoCo point
// maze, and a ROS 2 robot — Ros2World over a simulated ROS 2 graph in this process, with a MuJoCo
// point mass behind its odometry and velocity command (a stand-in for Gazebo, not for the world:
// the world is the real Ros2World with its real configuration, subscriptions and publisher).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBackbone } from '../../main/app/backbone.js';
import { prepareMission, runMissionTask, runOnce } from '../../main/app/mission.js';
import { type OpenOptions, worldEntry } from '../../main/backends/catalogue.js';
import { PointMazeSim } from '../../main/backends/mujoco/pointmaze.js';
import { AuditLog, openAuditReadOnly } from '../../main/services/audit/store.js';
import { FakeRclnodejs } from '../backends/ros2/fake-rclnodejs.js';
import { assertCatalogued } from '../contract/catalogue.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGIONS = readFileSync(path.join(ROOT, 'assets', 'regions', 'pointmaze-medium.json'), 'utf8');
const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

/** A robot configuration: odometry for the pose and velocities, a Twist command for the policy's force. */
function robotConfig(dir: string, staleness_s = 2): string {
  const file = path.join(dir, 'sim-robot.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        version: 1,
        id: 'pointmaze-medium',
        description: 'a point mass in the medium maze behind ROS 2 (simulated)',
        connect_timeout_s: 2,
        control_dt_s: 0.001,
        staleness_s,
        frames: { map: 'odom', base: 'base_link' },
        pose: { source: 'odometry', sensor: 'odom' },
        sensors: {
          odom: {
            topic: '/odom',
            type: 'nav_msgs/msg/Odometry',
            fields: {
              'base.vx': { path: 'twist.twist.linear.x', unit: 'm/s' },
              'base.vy': { path: 'twist.twist.linear.y', unit: 'm/s' },
            },
          },
        },
        navigation: {
          command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'linear.y'] },
          observation: ['base.x', 'base.y', 'base.vx', 'base.vy'],
          bounds: { min: [-2, -2], max: [26, 26] },
        },
      },
      null,
      2,
    ),
  );
  return file;
}

/** How the catalogue opens a ROS 2 world over the simulated graph (a sourced Jazzy, rclnodejs from the fake). */
const ros2Open = (fake: FakeRclnodejs): OpenOptions => ({
  ros2: {
    env: { ROS_DISTRO: 'jazzy' },
    importer: () => Promise.resolve(fake.module),
    resolver: (n) => `/lab/node_modules/${n}`,
  },
});

/**
 * The simulated robot: odometry at 50 Hz as a driver publishes it, and each command steps the point
 * mass one control step and publishes the odometry after it.
 */
async function simulatedRobot(
  fake: FakeRclnodejs,
  start: [number, number],
  silentAfter = Infinity,
): Promise<{ commands: () => number; stop: () => void }> {
  const sim = await PointMazeSim.create('pointmaze-medium');
  let n = 0;
  let s = sim.reset(7, [start[0], start[1], 0, 0]);
  const odom = (): void =>
    void (
      n < silentAfter &&
      fake.publish('/odom', {
        header: { frame_id: 'odom' },
        child_frame_id: 'base_link',
        pose: { pose: { position: { x: s[0], y: s[1], z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } },
        twist: { twist: { linear: { x: s[2], y: s[3], z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
      })
    );
  fake.onPublish('/cmd_vel', (m) => {
    const c = m as { linear: { x: number; y: number } };
    s = sim.step(c.linear.x, c.linear.y);
    n++;
    odom();
  });
  const timer = setInterval(odom, 20);
  return {
    commands: () => n,
    stop: () => {
      clearInterval(timer);
      sim.close();
    },
  };
}

test('the same mission workflow runs on the point maze and on a ROS 2 robot (Ros2World), recorded alike', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-worlds-'));
  const backbone = await openBackbone(
    { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 100_000, seed: 1 },
    { cache: false },
  );
  const log = AuditLog.open(path.join(dir, 'audit.sqlite'));
  try {
    const request = { spec: SPEC, regions: { text: REGIONS }, seed: 0, backbone };
    const audit = (via: string) => ({ log, operator: 'tester', via });

    // The embedded maze: the catalogue opens it, the start is where the mission says.
    const maze = await prepareMission({ ...request, world: 'pointmaze-medium', start: [4, 20] });
    const onMaze = await runMissionTask(maze, { method: 'sagas', audit: audit('test: maze') });
    assert.equal(onMaze.result.success, true, onMaze.result.message);

    // The robot: the catalogue's ROS 2 entry, opened over the simulated graph; it starts where it is.
    const fake = new FakeRclnodejs();
    const robot = await simulatedRobot(fake, [4, 20]);
    const entry = worldEntry(`ros2:${robotConfig(dir)}`);
    const world = await entry.open(ros2Open(fake));
    try {
      assert.equal(world.spec.backend, 'ros2');
      assert.deepEqual(
        [world.spec.observation.dim, world.spec.action.dim],
        [4, 2],
        'what the maze models read and write',
      );
      const onRos = await prepareMission({ ...request, world: entry.id }, { world });
      assert.deepEqual([...onRos.start], [4, 20], "the start is the robot's pose");
      assert.deepEqual(
        onRos.graph.ids,
        maze.graph.ids,
        'the same task graph: the same backbone, regions, start and seed',
      );
      const r = await runMissionTask(onRos, { method: 'sagas', world, audit: audit('test: ros2') });
      assert.equal(r.result.success, true, r.result.message);
      assert.equal(robot.commands(), r.result.steps - 1, 'every step but the last one published one command');
      assert.ok(fake.publishers.some((p) => p.topic === '/cmd_vel' && p.type === 'geometry_msgs/msg/Twist'));
      // The same checkpoints, reached in the same order (the noise of the two simulators differs).
      const order = (x: typeof r.result): string[] =>
        x.events
          .filter((e) => e.kind === 'checkpoint')
          .map((e) => e.node)
          .slice(0, 3);
      assert.deepEqual(order(r.result), order(onMaze.result));
    } finally {
      await world.close();
      robot.stop();
    }
    await log.flush();
    const db = openAuditReadOnly(log.file);
    try {
      const runs = db.prepare('SELECT world, backend FROM runs ORDER BY started_ms').all() as {
        world: string;
        backend: string;
      }[];
      assert.deepEqual(
        runs.map((x) => x.backend),
        ['mujoco', 'ros2'],
      );
      assert.equal(runs[1]!.world, entry.id);
      const ends = db.prepare("SELECT body FROM events WHERE kind = 'run_end' ORDER BY seq").all() as {
        body: string;
      }[];
      assert.deepEqual(
        ends.map((e) => (JSON.parse(e.body) as { outcome: string }).outcome),
        ['success', 'success'],
      );
    } finally {
      db.close();
    }
    // What both recorded is what the audit event catalogue says a mission records.
    const kinds = assertCatalogued(log.file);
    for (const k of ['run_start', 'plan', 'checkpoint', 'evidence', 'monitor_event', 'run_end'])
      assert.ok((kinds[k] ?? 0) > 0, `no ${k} event`);
  } finally {
    await log.close();
    await backbone.models.close();
  }
});

test('a robot starts where it is: a mission start away from its pose is refused, naming both', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-worlds-'));
  const fake = new FakeRclnodejs();
  const robot = await simulatedRobot(fake, [4, 20]);
  const world = await worldEntry(`ros2:${robotConfig(dir)}`).open(ros2Open(fake));
  try {
    await assert.rejects(
      world.navigation!.reset({ seed: 0, start: [8, 8] }),
      /a robot starts where it is: it is at \(4\.00, 20\.00\), .* from the mission's start \(8, 8\); the tolerance is 0\.5 m/,
    );
    await assert.rejects(world.navigation!.step([1]), /action must be 2 finite numbers \(linear\.x, linear\.y\)/);
    assert.match(world.navigation!.map.blocked(40, 0)!, /outside the bounds of pointmaze-medium/);
  } finally {
    await world.close();
    robot.stop();
  }
});

test('witness run on a robot: runOnce connects first, starts at the pose, drives the mission over the same connection and closes it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-worlds-'));
  // The robot's backbone as files (as `witness run --world ros2:… --graph G --data D` gives it): a cached entry's.
  const cached = await openBackbone(
    { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 100_000, seed: 1 },
    { cacheDir: path.join(dir, 'cache') },
  );
  await cached.models.close();
  const fake = new FakeRclnodejs();
  const robot = await simulatedRobot(fake, [4, 20]);
  const file = path.join(dir, 'regions.json');
  writeFileSync(file, REGIONS);
  try {
    const r = await runOnce(
      {
        world: `ros2:${robotConfig(dir)}`,
        spec: 'F e2',
        regions: { file },
        seed: 0,
        backbone: { kind: 'files', graph: cached.files.graph, data: cached.files.data },
      },
      { method: 'sagas-replan', audit: path.join(dir, 'audit.sqlite'), operator: 'ada', open: ros2Open(fake) },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.deepEqual([...r.task.start], [4, 20], "the start is the robot's pose");
    assert.ok(robot.commands() > 0);
    assert.ok(
      fake.log.some((l) => l.startsWith('destroy ')),
      'the connection is closed: ' + fake.log.join('; '),
    );
    assert.equal(r.audit?.file, path.join(dir, 'audit.sqlite'));
    assertCatalogued(r.audit.file);
  } finally {
    robot.stop();
  }
});

test("the robot going quiet mid-mission ends the run as a world failure, recorded with the world's words", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-worlds-'));
  const fake = new FakeRclnodejs();
  const robot = await simulatedRobot(fake, [4, 20], 50);
  const file = path.join(dir, 'regions.json');
  writeFileSync(file, REGIONS);
  try {
    const r = await runOnce(
      {
        world: `ros2:${robotConfig(dir, 0.2)}`,
        spec: 'F e2',
        regions: { file },
        seed: 0,
        backbone: { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 100_000, seed: 1 },
      },
      { method: 'sagas-replan', audit: path.join(dir, 'audit.sqlite'), open: ros2Open(fake) },
    );
    assert.equal(r.result.success, false);
    assert.equal(r.result.failureMode, 'world');
    assert.match(r.result.message, /pointmaze-medium: disconnected: .*odom/);
    // Past the last odometry the world stepped on until its staleness bound (0.2 s) said disconnected.
    assert.ok(robot.commands() > 50, `${robot.commands()} commands`);
    assert.ok(r.result.steps < 8000, 'ended by the world, not the rollout budget');
    const db = openAuditReadOnly(r.audit!.file);
    try {
      const end = JSON.parse(
        (db.prepare("SELECT body FROM events WHERE kind = 'run_end'").get() as { body: string }).body,
      ) as { failureMode: string; message: string; steps: number };
      assert.deepEqual([end.failureMode, end.steps], ['world', r.result.steps]);
      assert.match(end.message, /disconnected/);
    } finally {
      db.close();
    }
    assertCatalogued(r.audit!.file);
  } finally {
    robot.stop();
  }
});
