/**
 * The process-wide side of rclnodejs: one init() shared by every world of a process (a second init
 * throws), shutdown when the last one closes (unless someone else initialised it), QoS profiles
 * from the configuration, and the message rclnodejs gives for an interface it has no generated
 * code for, turned into the command that fixes it.
 */
import { WorldError } from '../../core/world/world.js';
import type { QosConfig } from './config.js';
import type { RclModule, RclQoS } from './rclnodejs-api.js';
import { Ros2Unavailable } from './rclnodejs-loader.js';

interface Session {
  users: number;
  owned: boolean;
  ready: Promise<void>;
}

const sessions = new WeakMap<RclModule, Session>();

/** Initialises rclnodejs for one more user; Ros2Unavailable ('init-failed') when it cannot start. */
export async function acquire(rcl: RclModule, distro: string | null): Promise<void> {
  let s = sessions.get(rcl);
  if (s === undefined) {
    const fresh: Session = { users: 0, owned: true, ready: Promise.resolve() };
    fresh.ready = rcl.init().catch((e: unknown) => {
      const text = e instanceof Error ? e.message : String(e);
      // Someone else in this process (a host app) initialised it: use it, never shut it down.
      if (/already been initiali[sz]ed/i.test(text)) {
        fresh.owned = false;
        return;
      }
      throw new Ros2Unavailable({
        problem: 'init-failed',
        distro,
        message: `rclnodejs could not start ROS 2 (${text.split('\n')[0]})`,
        fix: `check the middleware in this shell: \`ros2 doctor\`, RMW_IMPLEMENTATION and ROS_DOMAIN_ID; source /opt/ros/${distro ?? '<distro>'}/setup.bash again`,
      });
    });
    s = fresh;
    sessions.set(rcl, s);
  }
  s.users++;
  try {
    await s.ready;
  } catch (e) {
    s.users--;
    if (sessions.get(rcl) === s) sessions.delete(rcl);
    throw e;
  }
}

/** One user fewer; the last one shuts rclnodejs down if this process started it. */
export function release(rcl: RclModule): void {
  const s = sessions.get(rcl);
  if (s === undefined) return;
  s.users--;
  if (s.users > 0) return;
  sessions.delete(rcl);
  if (s.owned && !rcl.isShutdown()) rcl.shutdown();
}

/** rclnodejs's QoS numbers (its enums where present, the rmw values otherwise). */
export function qosProfile(rcl: RclModule, q: QosConfig): RclQoS {
  const Q = rcl.QoS;
  const keepLast = Q.HistoryPolicy?.['RMW_QOS_POLICY_HISTORY_KEEP_LAST'] ?? 1;
  const reliability =
    q.reliability === 'reliable'
      ? (Q.ReliabilityPolicy?.['RMW_QOS_POLICY_RELIABILITY_RELIABLE'] ?? 1)
      : (Q.ReliabilityPolicy?.['RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT'] ?? 2);
  const durability =
    q.durability === 'transient_local'
      ? (Q.DurabilityPolicy?.['RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL'] ?? 1)
      : (Q.DurabilityPolicy?.['RMW_QOS_POLICY_DURABILITY_VOLATILE'] ?? 2);
  return new Q(keepLast, q.depth, reliability, durability);
}

/**
 * Creates an entity whose type rclnodejs must know; an unknown interface becomes a 'not-found' WorldError with the fix.
 */
export function withInterface<T>(world: string, what: string, type: string, distro: string | null, create: () => T): T {
  try {
    return create();
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const pkg = type.split('/')[0]!;
    if (/does not exist|not found|cannot find|no such|unknown/i.test(text)) {
      throw new WorldError(
        'not-found',
        world,
        `${what}: rclnodejs has no generated code for ${type} (${text.split('\n')[0]}): install the package (\`sudo apt install ros-${distro ?? '<distro>'}-${pkg.replace(/_/g, '-')}\`), source ROS 2 again and run \`npx generate-ros-messages\``,
      );
    }
    throw new WorldError('failed', world, `${what}: rclnodejs could not create it for ${type}: ${text.split('\n')[0]}`);
  }
}
