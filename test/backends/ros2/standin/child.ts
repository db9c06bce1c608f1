/**
 * A `witness` child process whose `rclnodejs` is the stand-in (register.js), and what the stand-in
 * reports when it shuts down: the tests that send real signals to a process driving a robot, or watch
 * what it refuses before anything moves, share it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBackbone } from '../../../../main/app/backbone.js';

const BIN = path.join(fileURLToPath(new URL('../../../../../', import.meta.url)), 'bin', 'witness.js');
const REGISTER = new URL('./register.js', import.meta.url).href;

/** What the stand-in writes to its `report` file at shutdown. */
export interface StandinReport {
  log: string[];
  serverGoals: { action: string; status: number }[];
  commands: { topic: string; linear: { x: number; y: number } }[];
  atShutdown: [number, number] | null;
  midway: [number, number] | null;
  afterShutdown: [number, number] | null;
  signalHandlerInstalled: boolean;
}

/** How far the robot moved in the second half of the grace period after ROS 2 shut down (braking done: at rest). */
export const movedAfterShutdown = (r: StandinReport): number =>
  Math.hypot(r.afterShutdown![0] - r.midway![0], r.afterShutdown![1] - r.midway![1]);

/** Starts `witness …args` over the stand-in configured by `standin` (its report file among it), speaking `distro`. */
export function spawnWithStandin(
  args: readonly string[],
  standin: Record<string, unknown>,
  distro: string,
): ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } {
  return spawn(process.execPath, ['--import', REGISTER, BIN, ...args], {
    env: { ...process.env, ROS_DISTRO: distro, WITNESS_STANDIN: JSON.stringify({ ...standin, distro }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs `witness …args` over the stand-in, sends `signal` once the robot is underway (null: none, the command runs to
 * its end), and returns how it ended and what the robot saw.
 */
export async function runWithStandin(
  args: readonly string[],
  standin: Record<string, unknown>,
  distro: string,
  signal: 'SIGINT' | 'SIGTERM' | null,
): Promise<{ code: number | null; out: string; err: string; sent: boolean; report: StandinReport }> {
  const report = path.join(mkdtempSync(path.join(tmpdir(), 'witness-standin-')), 'report.json');
  const child = spawnWithStandin(args, { ...standin, report }, distro);
  let out = '',
    err = '',
    sent = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (signal !== null && !sent && err.includes('standin: underway')) {
      sent = true;
      child.kill(signal);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  return { code, out, err, sent, report: JSON.parse(readFileSync(report, 'utf8')) as StandinReport };
}

/**
 * A robot driven by velocity commands on `command` (the stand-in's point mass in the medium maze), its configuration,
 * regions and backbone files, written under `dir`.
 */
export async function velocityRobot(
  dir: string,
  command: string,
): Promise<{ world: string; regions: string; graph: string; data: string }> {
  const root = fileURLToPath(new URL('../../../../../', import.meta.url));
  const file = path.join(dir, 'robot.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      id: 'pointmaze-medium',
      connect_timeout_s: 2,
      control_dt_s: 0.001,
      staleness_s: 2,
      frames: { map: 'odom', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: {
        odom: {
          topic: '/odom',
          type: 'nav_msgs/msg/Odometry',
          fields: { 'base.vx': { path: 'twist.twist.linear.x' }, 'base.vy': { path: 'twist.twist.linear.y' } },
        },
      },
      navigation: {
        command: { topic: command, type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'linear.y'] },
        observation: ['base.x', 'base.y', 'base.vx', 'base.vy'],
        bounds: { min: [-2, -2], max: [26, 26] },
      },
    }),
  );
  const regions = path.join(dir, 'regions.json');
  writeFileSync(regions, readFileSync(path.join(root, 'assets', 'regions', 'pointmaze-medium.json')));
  const b = await openBackbone(
    { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 100_000, seed: 1 },
    { cacheDir: path.join(dir, 'cache') },
  );
  await b.models.close();
  return { world: `ros2:${file}`, regions, graph: b.files.graph, data: b.files.data };
}
