/**
 * TEST CODE — `rclnodejs` in a `witness` child process (hooks.ts resolves the package here): a
 * simulated robot behind the rclnodejs test double, chosen by $WITNESS_STANDIN (JSON):
 *
 * - `{"robot": "nav2", "start": [x, y], "distro": …}`: the simulated ROS 2 graph (test/ros2-sim: Nav2's
 *   navigators driving a MuJoCo base, odometry, AMCL, TF) as the Nav2 of Humble or Jazzy (default jazzy);
 * - `{"robot": "velocity", "start": [x, y], "distro": …, "monitor": {"input": "/cmd_vel_smoothed", "output":
 *   "/cmd_vel"}}`: a point mass in the medium maze behind odometry and a Twist command, optionally behind a collision
 *   monitor node (Nav2's on Jazzy) that forwards its input to its output. The base drives on what arrives on the
 *   output (`/cmd_vel` without a monitor), so a command published there straight bypasses the monitor, as on a robot.
 *
 * `"cancel": "ignore"` makes the Nav2 robot's action servers leave cancel requests unanswered (a
 * stack that no longer answers: the goal keeps running); `"localised": false` starts its AMCL without an
 * initial pose (no map → odom).
 *
 * Like the real package, importing it registers rclnodejs's SIGINT handler (FakeRclnodejs.load).
 * It writes `standin: underway` on stderr once the robot moves, and on exit a report (the fake's
 * log, the goals as the servers saw them, the commands the robot received, where it was when ROS 2
 * shut down, half the grace period later and at its end) to `report`. After the shutdown it keeps the robot running for
 * `grace_ms`, then stops it, so that the process can end.
 */
import { writeFileSync } from 'node:fs';
import { FakeRclnodejs, type FakeModule } from '../fake-rclnodejs.js';
import { SimulatedRos2Graph } from '../../../ros2-sim/simulated-graph.js';
import { PointMazeSim } from '../../../../main/backends/mujoco/pointmaze.js';

interface Options {
  readonly robot: 'nav2' | 'velocity';
  readonly start: [number, number];
  readonly distro?: 'humble' | 'jazzy';
  readonly report: string;
  readonly underway_m?: number;
  readonly grace_ms?: number;
  readonly monitor?: { readonly input: string; readonly output: string };
  readonly cancel?: 'ignore';
  readonly localised?: boolean;
}

interface Robot {
  readonly fake: FakeRclnodejs;
  position(): [number, number];
  stop(): void;
}

const o = JSON.parse(process.env['WITNESS_STANDIN'] ?? '{}') as Options;
const commands: { topic: string; linear: { x: number; y: number } }[] = [];

async function nav2(): Promise<Robot> {
  const g = await SimulatedRos2Graph.create({
    start: o.start,
    distro: o.distro ?? 'jazzy',
    ...(o.localised === false ? { localised: false } : {}),
  });
  if (o.cancel !== undefined) for (const s of g.fake.servers.values()) s.onCancel = o.cancel;
  return { fake: g.fake, position: () => g.position, stop: () => g.stop() };
}

/** A point mass: odometry at 50 Hz; each command on the robot's command topic steps it one control step. */
async function velocity(): Promise<Robot> {
  const fake = new FakeRclnodejs({ distro: o.distro ?? 'jazzy' });
  const sim = await PointMazeSim.create('pointmaze-medium');
  let s = sim.reset(7, [o.start[0], o.start[1], 0, 0]);
  const odom = (): void =>
    void fake.publish('/odom', {
      header: { frame_id: 'odom' },
      child_frame_id: 'base_link',
      pose: { pose: { position: { x: s[0], y: s[1], z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } },
      twist: { twist: { linear: { x: s[2], y: s[3], z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
    });
  /** The base steps on a command that arrived on `topic`. */
  const drive =
    (topic: string) =>
    (m: unknown): void => {
      const c = m as { linear: { x: number; y: number } };
      commands.push({ topic, linear: { x: c.linear.x, y: c.linear.y } });
      fake.log.push(`cmd_vel ${c.linear.x} ${c.linear.y}`);
      s = sim.step(c.linear.x, c.linear.y);
      odom();
    };
  const reliable = { reliability: 1, durability: 2, depth: 1 };
  if (o.monitor !== undefined) {
    // Nav2's collision monitor: subscribes to its input, publishes what passes on its output (here: everything).
    fake.addPeer('collision_monitor', [{ name: o.monitor.input, types: ['geometry_msgs/msg/Twist'] }]);
    fake.onPublish(o.monitor.input, drive(o.monitor.input), reliable);
  }
  // The base's driver subscribes to the monitor's output: a command published there reaches it unchecked.
  const output = o.monitor?.output ?? '/cmd_vel';
  fake.onPublish(output, drive(output), reliable);
  const timer = setInterval(odom, 20);
  return {
    fake,
    position: () => [s[0]!, s[1]!],
    stop: () => {
      clearInterval(timer);
      sim.close();
    },
  };
}

const robot = o.robot === 'nav2' ? await nav2() : await velocity();
const start = robot.position();
let underway = false;
let atShutdown: [number, number] | null = null;
let midway: [number, number] | null = null;
let afterShutdown: [number, number] | null = null;
let last = start;
let stopped = false;
const watch = setInterval(() => {
  if (stopped) return;
  const p = robot.position();
  last = p;
  if (!underway && Math.hypot(p[0] - start[0], p[1] - start[1]) > (o.underway_m ?? 0.5)) {
    underway = true;
    process.stderr.write('standin: underway\n');
  }
  if (robot.fake.shut && atShutdown === null) {
    atShutdown = p;
    // The robot runs on (its own stack: Nav2 keeps driving an uncancelled goal) for the grace period, then the
    // simulation ends.
    setTimeout(
      () => {
        midway = robot.position();
      },
      (o.grace_ms ?? 300) / 2,
    );
    setTimeout(() => {
      afterShutdown = robot.position();
      last = afterShutdown;
      stopped = true;
      robot.stop();
      clearInterval(watch);
    }, o.grace_ms ?? 300);
  }
}, 2);
watch.unref();

process.on('exit', () => {
  writeFileSync(
    o.report,
    JSON.stringify({
      log: robot.fake.log,
      serverGoals: robot.fake.serverGoals.map((g) => ({ action: g.action, status: g.status })),
      commands,
      start,
      atShutdown,
      midway,
      afterShutdown,
      end: last,
      signalHandlerInstalled: robot.fake.signalHandlerInstalled,
    }),
  );
});

const rclnodejs: FakeModule = robot.fake.load();
export default rclnodejs;
