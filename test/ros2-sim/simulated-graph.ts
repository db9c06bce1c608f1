/**
 * TEST CODE — a simulated ROS 2 graph in the test process, for end-to-end tests of Ros2World
 * without ROS 2 (which cannot be installed on these machines). It is not ROS 2 and not part of the
 * product: it stands in for a robot's bring-up (Nav2, a gripper controller, odometry, AMCL and TF)
 * behind the rclnodejs surface Ros2World uses (the FakeRclnodejs double), as the Nav2 of ROS 2
 * Humble or of Jazzy (`distro`, default jazzy; nav2-profile.ts says what differs and where in
 * navigation2's sources it comes from). A MuJoCo body — a planar base on x, y and yaw joints with a
 * one-finger gripper, driven by velocity and position actuators — moves over simulated time:
 *
 * - bt_navigator (navigator.ts): `/navigate_to_pose` (nav2_msgs/action/NavigateToPose) and
 *   `/navigate_through_poses` (NavigateThroughPoses) plan on the global costmap (nav2-planner.ts:
 *   the static map with its `obstacles`, and Nav2's keepout filter on `/costmap_filter_info` unless
 *   `keepoutFilter` is false), drive the base along the paths at up to `speed_m_s` until the goal
 *   checker's tolerance, publish feedback, run the default tree's recovery rounds (Spin, Wait,
 *   BackUp, costmap clears) before aborting, and honour cancel (the base stops). A lifecycle node:
 *   `lifecycle.set('bt_navigator', 'inactive')` keeps its servers visible but rejecting goals.
 * - `/compute_path_to_pose` (nav2_msgs/action/ComputePathToPose): the planner server, on the same
 *   costmap: a straight path where nothing in the costmap is in the way (through a hazard the
 *   costmap does not keep out), around obstacles and keepout cells otherwise.
 * - `/global_costmap/clear_entirely_global_costmap` and `/local_costmap/clear_entirely_local_costmap`
 *   (nav2_msgs/srv/ClearEntireCostmap), recorded in `clears`.
 * - `/<node>/get_state` (lifecycle_msgs/srv/GetState) for Nav2's lifecycle nodes (bt_navigator,
 *   planner_server, controller_server, behavior_server, amcl), as every rclcpp_lifecycle node has.
 * - `/gripper_controller/gripper_cmd` (control_msgs/action/GripperCommand) moves the finger to the
 *   commanded position (metres) and reports position, stalled and reached_goal.
 * - `/odom` (nav_msgs/msg/Odometry), `/joint_states` (sensor_msgs/msg/JointState) and `/tf` (odom →
 *   base_link) at `rate_hz` of simulated time; `/tf_static` (base_link → base_scan, the lidar);
 *   and AMCL's map → odom on `/tf` once per laser scan (`scan_hz`), only once the initial pose is
 *   known (`localised`, default true: the operator gave it at bring-up; else `amcl.initialPose()`);
 *   `amcl.setLidar(false)` silences the lidar (amcl.ts).
 *
 * Faults on request: `next` tells how the next navigation goals go (navigator.ts GoalFault);
 * `drop()` is a lost connection (nothing published, servers gone, cancel requests unanswered).
 */
import { loadModel } from '../../main/backends/mujoco/runtime.js';
import { FakeRclnodejs, type GoalControl, LATCHED_QOS } from '../backends/ros2/fake-rclnodejs.js';
import { type Box, SimCostmap } from './nav2-planner.js';
import { type Distro, type Nav2Profile, PROFILES, planResult } from './nav2-profile.js';
import { type Pose2, SimAmcl } from './amcl.js';
import { type Command, type GoalFault, SimNavigator } from './navigator.js';
import type { OpenOptions } from '../../main/backends/catalogue.js';
import type { MainModule, MjData, MjModel } from 'mujoco-js';

export type { GoalFault } from './navigator.js';
export type { Distro } from './nav2-profile.js';

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

export interface SimulatedGraphOptions {
  readonly start: readonly [number, number];
  /** Whose Nav2 it is (default jazzy). */
  readonly distro?: Distro;
  /** Top speed of the base, m/s (simulated time). */
  readonly speed_m_s?: number;
  /** Simulated seconds per wall-clock second (the tests run faster than real time). */
  readonly speedup?: number;
  /** Odometry, joint states and TF per simulated second. */
  readonly rate_hz?: number;
  /** Laser scans per simulated second (AMCL's map → odom rate; default 5, a TurtleBot3's LDS). */
  readonly scan_hz?: number;
  /** AMCL knows the initial pose from the start (default true); false: no map → odom until amcl.initialPose(). */
  readonly localised?: boolean;
  /** A gripper controller (GripperCommand); absent: no such action server. */
  readonly gripper?: boolean;
  /** The static map's extent (default −2 … 12 × −2 … 8 m: the lab with room around it). */
  readonly bounds?: Box;
  /** Obstacles in the static map (lethal in the costmap) that the map graph does not know. */
  readonly obstacles?: readonly Box[];
  /**
   * Nav2's costmaps run the keepout filter on /costmap_filter_info (default true); false: Nav2 was not configured for
   * it.
   */
  readonly keepoutFilter?: boolean;
}

/** Nav2's lifecycle nodes the graph answers get_state for (lifecycle_msgs/msg/State ids). */
const LIFECYCLE_NODES = ['bt_navigator', 'planner_server', 'controller_server', 'behavior_server', 'amcl'] as const;
type LifecycleNode = (typeof LIFECYCLE_NODES)[number];
const STATE_IDS = { unconfigured: 1, inactive: 2, active: 3 } as const;
type LifecycleState = keyof typeof STATE_IDS;

export class SimulatedRos2Graph {
  /** rclnodejs over this graph, with the profile's distribution's interface definitions on the wire. */
  readonly fake: FakeRclnodejs;
  readonly profile: Nav2Profile;
  readonly amcl: SimAmcl;
  /** bt_navigator: its goals, faults and recovery behaviours. */
  readonly navigator: SimNavigator;
  /** Every ComputePathToPose request: from, to, and the path's poses or the error code. */
  readonly pathRequests: {
    from: [number, number];
    to: [number, number];
    poses: (readonly [number, number])[] | null;
    code: number;
  }[] = [];
  /** Nav2's global costmap: the static map and the keepout filter. */
  readonly costmap: SimCostmap;
  /** Every ClearEntireCostmap, by whoever called it (the tree or a client), in order. */
  readonly clears: ('global' | 'local')[] = [];
  /** Nav2's lifecycle nodes' states (all active after a normal bring-up). */
  readonly lifecycle = new Map<LifecycleNode, LifecycleState>(LIFECYCLE_NODES.map((n) => [n, 'active']));
  private gripTarget: { ctl: GoalControl; position: number } | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private sim_s = 0;
  private dropped = false;
  private stopped = false;
  private readonly speedup: number;
  private readonly rate: number;

  private constructor(
    private readonly mj: MainModule,
    private readonly model: MjModel,
    private readonly data: MjData,
    o: SimulatedGraphOptions,
  ) {
    this.profile = PROFILES[o.distro ?? 'jazzy'];
    this.fake = new FakeRclnodejs({ distro: this.profile.distro });
    this.speedup = o.speedup ?? 10;
    this.rate = o.rate_hz ?? 50;
    const qpos = data.qpos as Float64Array;
    qpos[0] = o.start[0];
    qpos[1] = o.start[1];
    mj.mj_forward(model, data);
    // The robot's static transforms are latched (tf2_ros StaticBroadcasterQoS: reliable, transient local); AMCL's map →
    // odom moves, on /tf.
    this.fake.advertise('/tf_static', 'tf2_msgs/msg/TFMessage', LATCHED_QOS);
    this.amcl = new SimAmcl({ localised: o.localised ?? true, scan_hz: o.scan_hz ?? 5 });
    this.amcl.tick(0, this.truth);
    this.costmap = new SimCostmap(this.fake, {
      bounds: o.bounds ?? { min: [-2, -2], max: [12, 8] },
      resolution_m: 0.05,
      obstacles: o.obstacles ?? [],
      keepoutInfoTopic: o.keepoutFilter === false ? null : '/costmap_filter_info',
    });
    const time = (): number => this.sim_s;
    this.navigator = new SimNavigator(
      {
        profile: this.profile,
        costmap: this.costmap,
        get time_s() {
          return time();
        },
        mapPose: () => this.amcl.estimate,
        toMap: (frame, p) => this.toMap(frame, p),
        clear: (which) => this.clears.push(which),
      },
      o.speed_m_s ?? 1.0,
    );
    const active = (node: LifecycleNode) => () => this.lifecycle.get(node) === 'active';
    this.fake.servers.set('/compute_path_to_pose', {
      execute: (ctl) => this.computePath(ctl),
      accept: active('planner_server'),
    });
    const nav = (name: string) => ({
      execute: (ctl: GoalControl) => this.navigator.execute(ctl, name),
      accept: () => active('bt_navigator')() && this.navigator.accept(),
    });
    this.fake.servers.set('/navigate_to_pose', nav('/navigate_to_pose'));
    this.fake.servers.set('/navigate_through_poses', nav('/navigate_through_poses'));
    for (const which of ['global', 'local'] as const) {
      this.fake.serviceServers.set(`/${which}_costmap/clear_entirely_${which}_costmap`, {
        handle: () => {
          this.clears.push(which);
          return { response: {} };
        },
      });
    }
    for (const node of LIFECYCLE_NODES) {
      this.fake.serviceServers.set(`/${node}/get_state`, {
        handle: () => {
          const s = this.lifecycle.get(node)!;
          return { current_state: { id: STATE_IDS[s], label: s } };
        },
      });
    }
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

  /** How Witness opens a ROS 2 world over this graph (a sourced Humble or Jazzy; rclnodejs is the double). */
  get open(): OpenOptions {
    // Loading the double installs rclnodejs's SIGINT handler, as require('rclnodejs') does; Witness's loader removes
    // it.
    return {
      ros2: {
        env: { ROS_DISTRO: this.profile.distro },
        importer: () => Promise.resolve(this.fake.load()),
        resolver: (n) => `/lab/node_modules/${n}`,
      },
    };
  }

  /** Faults for the next navigation goals, in order (then: run). */
  get next(): GoalFault[] {
    return this.navigator.next;
  }

  /** Every navigation goal received: its poses. */
  get goals(): { x: number; y: number }[][] {
    return this.navigator.goals;
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

  /** The base's heading, rad. */
  get yaw(): number {
    return (this.data.qpos as Float64Array)[2]!;
  }

  /** The finger's opening, metres. */
  get finger_m(): number {
    return (this.data.qpos as Float64Array)[3]!;
  }

  /** Someone pushed the robot (or it was driven by hand): it stands at (x, y) now, at rest. */
  place(x: number, y: number): void {
    const q = this.data.qpos as Float64Array,
      v = this.data.qvel as Float64Array;
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

  /** Stops the graph and frees the model (once; later calls do nothing). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.data.delete();
    this.model.delete();
  }

  private get truth(): Pose2 {
    const q = this.data.qpos as Float64Array;
    return { x: q[0]!, y: q[1]!, yaw: q[2]! };
  }

  /**
   * A pose in `frame` in the map frame as tf2 transforms it: map itself; odom through AMCL's map →
   * odom (the identity: odometry starts at the map's origin here), once it exists; base_link relative
   * to the robot. Anything else (an empty frame_id, a frame no one publishes) cannot be transformed.
   */
  private toMap(frame: string, p: Pose2): Pose2 | null {
    const f = frame.replace(/^\/+/, '');
    if (f === 'map') return p;
    const robot = this.amcl.estimate;
    if (robot === null) return null;
    if (f === 'odom') return p;
    if (f === 'base_link') {
      const c = Math.cos(robot.yaw),
        s = Math.sin(robot.yaw);
      return { x: robot.x + c * p.x - s * p.y, y: robot.y + s * p.x + c * p.y, yaw: robot.yaw + p.yaw };
    }
    return null;
  }

  /**
   * The planner server: ComputePathToPose on the costmap (one planner, "GridBased"); Humble's failures carry no code.
   */
  private computePath(ctl: GoalControl): void {
    const g = ctl.goal as { goal: PoseStamped; start?: PoseStamped; planner_id?: string; use_start?: boolean };
    const robot = this.amcl.estimate;
    const from: [number, number] | null =
      g.use_start === true && g.start !== undefined
        ? [g.start.pose.position.x, g.start.pose.position.y]
        : robot === null
          ? null
          : [robot.x, robot.y];
    const goal = this.toMap(g.goal.header?.frame_id ?? '', {
      x: g.goal.pose.position.x,
      y: g.goal.pose.position.y,
      yaw: 0,
    });
    const to: [number, number] = [g.goal.pose.position.x, g.goal.pose.position.y];
    const header = { frame_id: 'map', stamp: { sec: Math.floor(this.sim_s), nanosec: 0 } };
    const id = g.planner_id ?? '';
    const r =
      from === null || goal === null
        ? { ok: false as const, code: 202 }
        : id !== '' && id !== 'GridBased'
          ? { ok: false as const, code: 201 }
          : this.costmap.plan(from, [goal.x, goal.y]);
    this.pathRequests.push({
      from: from ?? [Number.NaN, Number.NaN],
      to,
      poses: r.ok ? [...r.poses] : null,
      code: r.ok ? 0 : r.code,
    });
    if (!r.ok) {
      ctl.abort(planResult(this.profile, header, [], r.code));
      return;
    }
    const poses = r.poses.map(([x, y]) => ({
      header,
      pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    }));
    ctl.succeed(planResult(this.profile, header, poses, 0));
  }

  /** One simulated step of `dt_s`: AMCL, the navigator (or a behaviour), the gripper, physics, then the topics. */
  private tick(dt_s: number): void {
    if (this.dropped) return;
    const ctrl = this.data.ctrl as Float64Array;
    const broadcast = this.amcl.tick(this.sim_s, this.truth);
    const cmd: Command = this.navigator.tick(dt_s);
    ctrl[0] = cmd.vx;
    ctrl[1] = cmd.vy;
    ctrl[2] = cmd.wz;
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
    this.publish(false, broadcast);
  }

  private publish(first: boolean, amcl = first && this.amcl.localised): void {
    const q = this.data.qpos as Float64Array,
      v = this.data.qvel as Float64Array;
    const stamp = { sec: Math.floor(this.sim_s), nanosec: Math.round((this.sim_s % 1) * 1e9) };
    const yaw = q[2]!;
    const orientation = { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
    this.fake.publish('/odom', {
      header: { frame_id: 'odom', stamp },
      child_frame_id: 'base_link',
      pose: { pose: { position: { x: q[0]!, y: q[1]!, z: 0 }, orientation } },
      twist: { twist: { linear: { x: v[0]!, y: v[1]!, z: 0 }, angular: { x: 0, y: 0, z: v[2]! } } },
    });
    this.fake.publish('/tf', {
      transforms: [
        {
          header: { frame_id: 'odom', stamp },
          child_frame_id: 'base_link',
          transform: { translation: { x: q[0]!, y: q[1]!, z: 0 }, rotation: orientation },
        },
      ],
    });
    if (amcl) {
      // AMCL's map → odom, stamped the scan's time plus transform_tolerance.
      const t = this.sim_s + 1.0;
      this.fake.publish('/tf', {
        transforms: [
          {
            header: { frame_id: 'map', stamp: { sec: Math.floor(t), nanosec: Math.round((t % 1) * 1e9) } },
            child_frame_id: 'odom',
            transform: { translation: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
          },
        ],
      });
    }
    // The robot's static transforms (robot_state_publisher), latched: republished now and then for late joiners.
    if (first || Math.round(this.sim_s * this.rate) % this.rate === 0) {
      this.fake.publish('/tf_static', {
        transforms: [
          {
            header: { frame_id: 'base_link', stamp },
            child_frame_id: 'base_scan',
            transform: { translation: { x: -0.03, y: 0, z: 0.17 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
          },
        ],
      });
    }
    this.fake.publish('/joint_states', {
      header: { frame_id: '', stamp },
      name: ['finger_joint'],
      position: Float64Array.of(q[3]!),
      velocity: Float64Array.of(v[3]!),
      effort: Float64Array.of(0),
    });
  }
}

interface PoseStamped {
  readonly header?: { readonly frame_id?: string };
  readonly pose: { readonly position: { readonly x: number; readonly y: number } };
}
