/**
 * A `witness` child process whose `rclnodejs` is the stand-in (register.js), and what the stand-in
 * reports when it shuts down: the tests that send real signals to a process driving a robot share it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
