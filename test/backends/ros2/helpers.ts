/** Shared set-up of the ROS 2 adapter's unit tests: the sample configurations, patched, over the fake rclnodejs. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Ros2Config, parseRos2Config } from '../../../main/backends/ros2/config.js';
import { Ros2World, type Ros2WorldOptions } from '../../../main/backends/ros2/world.js';
import { FakeRclnodejs, LATCHED_QOS, jointState, odometry, tfMessage } from './fake-rclnodejs.js';

export const SAMPLE = fileURLToPath(new URL('../../../../assets/ros2/nav2-mobile-manipulator.json', import.meta.url));
export const GAZEBO = fileURLToPath(new URL('../../../../assets/ros2/gazebo-turtlebot3.json', import.meta.url));

type Obj = Record<string, unknown>;

/**
 * Sets (or, with undefined, deletes) the value at a dotted path of a JSON document; "a.b\\.c" escapes a dot in a key.
 */
export function patch(doc: Obj, edits: Readonly<Record<string, unknown>>): Obj {
  for (const [path, value] of Object.entries(edits)) {
    const keys = path.split(/(?<!\\)\./).map((k) => k.replace(/\\\./g, '.'));
    let o = doc;
    for (const k of keys.slice(0, -1)) {
      if (typeof o[k] !== 'object' || o[k] === null) o[k] = {};
      o = o[k] as Obj;
    }
    const last = keys[keys.length - 1]!;
    if (value === undefined) delete o[last];
    else o[last] = value;
  }
  return doc;
}

/** The sample's JSON with short bounds (servers 0.05 s, cancels 0.2 s, connecting 0.3 s). */
export function sampleJson(file = SAMPLE): Obj {
  const j = JSON.parse(readFileSync(file, 'utf8')) as Obj;
  for (const t of Object.values(j['tools'] as Record<string, Obj>))
    Object.assign(t, { server_timeout_s: 0.05, cancel_timeout_s: 0.2 });
  for (const s of Object.values((j['services'] ?? {}) as Record<string, Obj>)) s['server_timeout_s'] = 0.05;
  j['connect_timeout_s'] = 0.3;
  return j;
}

/** A sample configuration with short bounds and the given edits (dotted paths). */
export function sample(edits: Readonly<Record<string, unknown>> = {}, file = SAMPLE): Ros2Config {
  return parseRos2Config(JSON.stringify(patch(sampleJson(file), edits), null, 2), file);
}

export interface Rig {
  readonly fake: FakeRclnodejs;
  readonly world: Ros2World;
  /** The injected clock, s. */
  clock: number;
  /** Publishes a consistent robot state: TF map → odom → base_link at (x, y, yaw), odometry, joint states. */
  robotAt(x: number, y: number, yaw?: number, finger_m?: number): void;
}

export async function rig(
  config: Ros2Config = sample(),
  o: Ros2WorldOptions & { fake?: FakeRclnodejs; clock?: boolean } = {},
): Promise<Rig> {
  const fake = o.fake ?? new FakeRclnodejs();
  // robot_state_publisher's static transforms are latched (tf2_ros StaticBroadcasterQoS: reliable, transient local).
  fake.advertise('/tf_static', 'tf2_msgs/msg/TFMessage', LATCHED_QOS);
  const r: { clock: number } = { clock: 0 };
  const world = await Ros2World.open(config, fake.module, {
    ...o,
    distro: 'jazzy',
    ...(o.clock === false ? {} : { now_s: () => r.clock }),
  });
  return Object.assign(r, {
    fake,
    world,
    robotAt(x: number, y: number, yaw = 0, finger_m = 0.02): void {
      fake.publish('/tf_static', tfMessage('base_link', 'gripper_link', 0.2, 0));
      fake.publish('/tf', tfMessage('map', 'odom', 1, 0));
      fake.publish('/tf', tfMessage('odom', 'base_link', x - 1, y, yaw));
      fake.publish('/odom', odometry(x - 1, y, yaw, 0.1));
      fake.publish(
        '/joint_states',
        jointState({ wheel_left_joint: 0, gripper_left_finger_joint: finger_m }, { gripper_left_finger_joint: 3 }),
      );
    },
  });
}
