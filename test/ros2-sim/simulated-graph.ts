/**
 * TEST CODE — a simulated ROS 2 graph in the test process, for end-to-end tests of Ros2World
 * without ROS 2 (which cannot be installed on these machines). It is not ROS 2 and not part of the
 * product: it stands in for a robot's bring-up (Nav2, a gripper controller, odometry and TF) behind
 * the rclnodejs surface Ros2World uses (the FakeRclnodejs double). A MuJoCo body — a planar base on
 * x, y and yaw joints with a one-finger gripper, driven by velocity and position actuators — moves
 * over simulated time:
 *
 * - `/navigate_to_pose` (nav2_msgs/action/NavigateToPose) and `/navigate_through_poses`
 *   (NavigateThroughPoses) plan to each pose in turn on the global costmap (nav2-planner.ts: the
 *   static map with its `obstacles`, and Nav2's keepout filter on `/costmap_filter_info` unless
 *   `keepoutFilter` is false) and drive the base along the paths at up to `speed_m_s`, publishing
 *   feedback (distance_remaining, number_of_poses_remaining); a goal the planner finds no path for
 *   is aborted with the planner's error code. They honour cancel: the base stops (Nav2's controller
 *   publishes zero velocity when its goal is cancelled).
 * - `/compute_path_to_pose` (nav2_msgs/action/ComputePathToPose): the planner server, on the same
 *   costmap: a straight path where nothing in the costmap is in the way (through a hazard the
 *   costmap does not keep out), around obstacles and keepout cells otherwise.
 * - `/gripper_controller/gripper_cmd` (control_msgs/action/GripperCommand) moves the finger to the
 *   commanded position (metres) and reports position, stalled and reached_goal.
 * - `/odom` (nav_msgs/msg/Odometry), `/joint_states` (sensor_msgs/msg/JointState), `/tf` (odom →
 *   base_link) and `/tf_static` (map → odom) at `rate_hz` of simulated time.
 *
 * Faults on request: `next` tells how the next navigation goals go (run, abort after a while, stall
 * — accepted and never moving —, reject, or a detour through a given point); `drop()` is a lost connection (nothing published, servers
 * gone, cancel requests unanswered).
 */
import { loadModel } from '../../main/backends/mujoco/runtime.js';
import { FakeRclnodejs, type GoalControl, LATCHED_QOS } from '../backends/ros2/fake-rclnodejs.js';
import { type Box, SimCostmap } from './nav2-planner.js';
import type { OpenOptions } from '../../main/backends/catalogue.js';
import type { MainModule, MjData, MjModel } from 'mujoco-js';

const MJCF = `<mujoco model="simulated-base">
  <option timestep="0.01" gravity="0 0 0" integrator="implicitfast"/>
  <worldbody>
    <body name="base" pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="yaw" type="hinge" axis="0 0 1"/>
      <geom type="cylinder" size="0.15 0.05" mass="5" contype="0" conaffinity="0"/>
      <body name="finger" pos="0.2 0 0.1">
        <joint name="finger" type="slide" axis="0 1 0" range="0 0.04" limited="true" damping="2"/>
        <geom type="box" size="0.01 0.01 0.03" mass="0.05" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <velocity joint="x" kv="200"/>
    <velocity joint="y" kv="200"/>
    <velocity joint="yaw" kv="20"/>
    <position joint="finger" kp="20"/>
  </actuator>
</mujoco>`;

/** How the next navigation goals go. */
export type GoalFault = { kind: 'run' } | { kind: 'abort'; after_s: number } | { kind: 'stall' } | { kind: 'reject' } | { kind: 'detour'; via: readonly [number, number] };

export interface SimulatedGraphOptions {
  readonly start: readonly [number, number];
  /** Top speed of the base, m/s (simulated time). */
  readonly speed_m_s?: number;
  /** Simulated seconds per wall-clock second (the tests run faster than real time). */
  readonly speedup?: number;
  /** Odometry, joint states and TF per simulated second. */
  readonly rate_hz?: number;
  /** A gripper controller (GripperCommand); absent: no such action server. */
  readonly gripper?: boolean;
  /** The static map's extent (default −2 … 12 × −2 … 8 m: the lab with room around it). */
  readonly bounds?: Box;
  /** Obstacles in the static map (lethal in the costmap) that the map graph does not know. */
  readonly obstacles?: readonly Box[];
  /** Nav2's costmaps run the keepout filter on /costmap_filter_info (default true); false: Nav2 was not configured for it. */
  readonly keepoutFilter?: boolean;
}

interface ActiveGoal {
  readonly ctl: GoalControl;
  readonly poses: { x: number; y: number }[];
  index: number;
  readonly fault: GoalFault;
  readonly started_s: number;
}

export class SimulatedRos2Graph {
  readonly fake = new FakeRclnodejs();
  /** Faults for the next goals, in order (then: run). */
  readonly next: GoalFault[] = [];
  /** Every navigation goal received: its poses. */
  readonly goals: { x: number; y: number }[][] = [];
  /** Every ComputePathToPose request: from, to, and the path's poses or the error code. */
  readonly pathRequests: { from: [number, number]; to: [number, number]; poses: (readonly [number, number])[] | null; code: number }[] = [];
  /** Nav2's global costmap: the static map and the keepout filter. */
  readonly costmap: SimCostmap;
  private goal: ActiveGoal | null = null;
  private gripTarget: { ctl: GoalControl; position: number } | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private sim_s = 0;
  private dropped = false;
  private readonly speed: number;
  private readonly speedup: number;
  private readonly rate: number;

  private constructor(private readonly mj: MainModule, private readonly model: MjModel, private readonly data: MjData, o: SimulatedGraphOptions) {
    this.speed = o.speed_m_s ?? 1.0;
    this.speedup = o.speedup ?? 10;
    this.rate = o.rate_hz ?? 50;
    const qpos = data.qpos as Float64Array;
    qpos[0] = o.start[0];
    qpos[1] = o.start[1];
    mj.mj_forward(model, data);
    // The static map → odom transform is latched (tf2_ros StaticBroadcasterQoS: reliable, transient local).
    this.fake.advertise('/tf_static', 'tf2_msgs/msg/TFMessage', LATCHED_QOS);
    this.costmap = new SimCostmap(this.fake, {
      bounds: o.bounds ?? { min: [-2, -2], max: [12, 8] }, resolution_m: 0.05, obstacles: o.obstacles ?? [],
      keepoutInfoTopic: o.keepoutFilter === false ? null : '/costmap_filter_info',
    });
    this.fake.servers.set('/compute_path_to_pose', { execute: (ctl) => this.computePath(ctl) });
    const nav = (name: string) => ({
      execute: (ctl: GoalControl) => this.startGoal(ctl, name),
      accept: () => this.acceptNext(),
    });
    this.fake.servers.set('/navigate_to_pose', nav('/navigate_to_pose'));
    this.fake.servers.set('/navigate_through_poses', nav('/navigate_through_poses'));
    if (o.gripper !== false) {
      this.fake.servers.set('/gripper_controller/gripper_cmd', {
        execute: (ctl) => {
          const c = (ctl.goal['command'] ?? {}) as { position?: number };
          this.gripTarget?.ctl.abort({});
          this.gripTarget = { ctl, position: Math.min(0.04, Math.max(0, Number(c.position ?? 0))) };
        },
      });
    }
  }

  static async create(o: SimulatedGraphOptions): Promise<SimulatedRos2Graph> {
    const { mj, model, data } = await loadModel(MJCF, 'simulated-base.xml', 'simulated-ros2-graph');
    const g = new SimulatedRos2Graph(mj, model, data, o);
    g.publish(true);
    const dt_s = 1 / g.rate;
    g.timer = setInterval(() => g.tick(dt_s), (dt_s / g.speedup) * 1000);
    return g;
  }

  /** How Witness opens a ROS 2 world over this graph (a sourced Jazzy; rclnodejs is the double). */
  get open(): OpenOptions {
    return { ros2: { env: { ROS_DISTRO: 'jazzy' }, importer: () => Promise.resolve(this.fake.load()), resolver: (n) => `/lab/node_modules/${n}` } };
  }

  /** Simulated time, s (it runs while the graph does, goal or none). */
  get time_s(): number {
    return this.sim_s;
  }

  /** The base's position. */
  get position(): [number, number] {
    const q = this.data.qpos as Float64Array;
    return [q[0]!, q[1]!];
  }

  /** The finger's opening, metres. */
  get finger_m(): number {
    return (this.data.qpos as Float64Array)[3]!;
  }

  /** Someone pushed the robot (or it was driven by hand): it stands at (x, y) now, at rest. */
  place(x: number, y: number): void {
    const q = this.data.qpos as Float64Array, v = this.data.qvel as Float64Array;
    q[0] = x;
    q[1] = y;
    v[0] = 0;
    v[1] = 0;
    this.mj.mj_forward(this.model, this.data);
    this.publish(true);
  }

  /** A lost connection: nothing is published any more, the servers are gone, cancel requests go unanswered. */
  drop(): void {
    this.dropped = true;
    for (const s of this.fake.servers.values()) {
      s.available = false;
      s.onCancel = 'ignore';
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.data.delete();
    this.model.delete();
  }

  private acceptNext(): boolean {
    const f = this.next[0];
    if (f?.kind === 'reject') {
      this.next.shift();
      return false;
    }
    return true;
  }

  /** The planner server: ComputePathToPose on the costmap (one planner, "GridBased"). */
  private computePath(ctl: GoalControl): void {
    const g = ctl.goal as { goal: PoseStamped; start?: PoseStamped; planner_id?: string; use_start?: boolean };
    const from: [number, number] = g.use_start === true && g.start !== undefined ? [g.start.pose.position.x, g.start.pose.position.y] : this.position;
    const to: [number, number] = [g.goal.pose.position.x, g.goal.pose.position.y];
    const header = { frame_id: 'map', stamp: { sec: Math.floor(this.sim_s), nanosec: 0 } };
    const id = g.planner_id ?? '';
    const r = id !== '' && id !== 'GridBased' ? { ok: false as const, code: 201, message: `Planner id ${id} is invalid` } : this.costmap.plan(from, to);
    this.pathRequests.push({ from, to, poses: r.ok ? [...r.poses] : null, code: r.ok ? 0 : r.code });
    if (!r.ok) {
      ctl.abort({ path: { header, poses: [] }, planning_time: { sec: 0, nanosec: 0 }, error_code: r.code, error_msg: r.message });
      return;
    }
    const poses = r.poses.map(([x, y]) => ({ header, pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } }));
    ctl.succeed({ path: { header, poses }, planning_time: { sec: 0, nanosec: 1000 }, error_code: 0, error_msg: '' });
  }

  private startGoal(ctl: GoalControl, action: string): void {
    const g = ctl.goal as { pose?: PoseStamped; poses?: PoseStamped[] };
    const list = action === '/navigate_through_poses' ? (g.poses ?? []) : g.pose !== undefined ? [g.pose] : [];
    const poses = list.map((p) => ({ x: p.pose.position.x, y: p.pose.position.y }));
    this.goals.push(poses);
    // A new goal preempts the running one, as bt_navigator does.
    if (this.goal !== null && this.goal.ctl.isActive()) this.goal.ctl.abort({});
    const fault = this.next.shift() ?? { kind: 'run' };
    // A detour: the navigator's own path swings through `via` first, straight, then on to the poses (a
    // costmap it does not share with us, a localisation error: what neither Witness's check nor the mask sees).
    if (fault.kind === 'detour') {
      this.goal = { ctl, poses: [{ x: fault.via[0], y: fault.via[1] }, ...poses], index: 0, fault, started_s: this.sim_s };
      return;
    }
    // The navigator plans each piece on its costmap (ComputePathThroughPoses is piece by piece) and follows the paths.
    const route: { x: number; y: number }[] = [];
    let at = { x: this.position[0], y: this.position[1] };
    for (const p of poses) {
      const r = this.costmap.plan([at.x, at.y], [p.x, p.y]);
      if (!r.ok) {
        this.goal = null;
        ctl.abort({ error_code: r.code, error_msg: r.message });
        return;
      }
      route.push(...r.corners.slice(1).map(([x, y]) => ({ x, y })));
      at = p;
    }
    this.goal = { ctl, poses: route.length > 0 ? route : poses, index: 0, fault, started_s: this.sim_s };
  }

  /** One simulated step of `dt_s`: the navigator's controller, the gripper, physics, then the topics. */
  private tick(dt_s: number): void {
    if (this.dropped) return;
    const ctrl = this.data.ctrl as Float64Array;
    const [x, y] = this.position;
    ctrl[0] = 0;
    ctrl[1] = 0;
    const g = this.goal;
    if (g !== null && !g.ctl.isActive()) this.goal = null;
    else if (g !== null) {
      if (g.fault.kind === 'abort' && this.sim_s - g.started_s >= g.fault.after_s) {
        g.ctl.abort({ error_code: 104, error_msg: 'simulated: the planner found no valid path' });
        this.goal = null;
      } else if (g.fault.kind !== 'stall') {
        let target = g.poses[g.index]!;
        let d = Math.hypot(target.x - x, target.y - y);
        while (d < 0.05 && g.index < g.poses.length - 1) {
          g.index++;
          target = g.poses[g.index]!;
          d = Math.hypot(target.x - x, target.y - y);
        }
        if (d < 0.05) {
          g.ctl.succeed({ error_code: 0 });
          this.goal = null;
        } else {
          const v = Math.min(this.speed, d / dt_s);
          ctrl[0] = ((target.x - x) / d) * v;
          ctrl[1] = ((target.y - y) / d) * v;
          let rest = d;
          for (let i = g.index + 1; i < g.poses.length; i++) rest += Math.hypot(g.poses[i]!.x - g.poses[i - 1]!.x, g.poses[i]!.y - g.poses[i - 1]!.y);
          g.ctl.feedback({ distance_remaining: rest, number_of_poses_remaining: g.poses.length - g.index, number_of_recoveries: 0 });
        }
      }
    }
    const grip = this.gripTarget;
    if (grip !== null) {
      ctrl[3] = grip.position;
      if (Math.abs(this.finger_m - grip.position) < 0.001 && Math.abs((this.data.qvel as Float64Array)[3]!) < 0.005) {
        grip.ctl.succeed({ position: this.finger_m, effort: 0, stalled: false, reached_goal: true });
        this.gripTarget = null;
      }
    }
    const steps = Math.max(1, Math.round(dt_s / this.model.opt.timestep));
    for (let k = 0; k < steps; k++) this.mj.mj_step(this.model, this.data);
    this.sim_s += steps * this.model.opt.timestep;
    this.publish(false);
  }

  private publish(first: boolean): void {
    const q = this.data.qpos as Float64Array, v = this.data.qvel as Float64Array;
    const stamp = { sec: Math.floor(this.sim_s), nanosec: Math.round((this.sim_s % 1) * 1e9) };
    const yaw = q[2]!;
    const orientation = { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
    this.fake.publish('/odom', {
      header: { frame_id: 'odom', stamp }, child_frame_id: 'base_link',
      pose: { pose: { position: { x: q[0]!, y: q[1]!, z: 0 }, orientation } },
      twist: { twist: { linear: { x: v[0]!, y: v[1]!, z: 0 }, angular: { x: 0, y: 0, z: v[2]! } } },
    });
    this.fake.publish('/tf', { transforms: [{ header: { frame_id: 'odom', stamp }, child_frame_id: 'base_link', transform: { translation: { x: q[0]!, y: q[1]!, z: 0 }, rotation: orientation } }] });
    // The static map → odom transform, latched: republished now and then for late joiners.
    if (first || Math.round(this.sim_s * this.rate) % this.rate === 0) {
      this.fake.publish('/tf_static', { transforms: [{ header: { frame_id: 'map', stamp }, child_frame_id: 'odom', transform: { translation: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } } }] });
    }
    this.fake.publish('/joint_states', {
      header: { frame_id: '', stamp }, name: ['finger_joint'], position: Float64Array.of(q[3]!), velocity: Float64Array.of(v[3]!), effort: Float64Array.of(0),
    });
  }
}

interface PoseStamped {
  readonly pose: { readonly position: { readonly x: number; readonly y: number } };
}
