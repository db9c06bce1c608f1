/**
 * A ROS 2 robot or simulator as a Witness world. Skills are the configuration's tools (action
 * goals: send, feedback, result, cancel) and services (instant calls), each under our own deadline
 * that cancels a running goal; named fields are the latest message of each sensor topic, mapped as
 * configured; base.x, base.y, base.yaw come from TF (map ← base) or odometry, and the label
 * function at.<region> is labelAt over the configured regions at that pose. A sensor without a
 * message within its staleness bound, or a shut-down context, is a 'disconnected' error: the robot
 * is never assumed to be where it was. The rclnodejs module is a parameter (the real one from
 * rclnodejs-loader.ts, or a test double), so everything here runs and is tested without ROS 2.
 */
import {
  type CallOptions,
  type NavState,
  type Navigation,
  type Pose as WorldPose,
  type Tools,
  type Waypoints,
  type World,
  WorldError,
  type WorldMap,
  type WorldSpec,
} from '../../core/world/world.js';
import { guardCall, runStoppable } from '../world.js';
import type { WorldState } from '../../core/loop/conditions.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';
import { labelAt } from '../../core/world/regions.js';
import type { NavigationConfig, Ros2Config, ServiceTool, WaypointsConfig } from './config.js';
import { ros2Map, ros2Rest, ros2Spec, ros2Vocabulary } from './spec.js';
import type { RclActionClient, RclModule, RclNode, RclPublisher, RclServiceClient } from './rclnodejs-api.js';
import { MappingError, buildMessage, readField, readPath, setPath } from './message-path.js';
import { type Lookup, TfBuffer, yawOf } from './tf.js';
import { type Configured, callService, notFitting, runGoal } from './calls.js';
import { acquire, qosProfile, release, withInterface } from './session.js';
import { type LoaderDeps, Ros2Unavailable, loadRclnodejs } from './rclnodejs-loader.js';
import { computePathGoal, costmapFilterInfo, occupancyGrid, pathErrorName, pathPoses, poseStamped } from './nav2.js';
import { NAVIGATOR_TYPES, NavigatorFeedback, explainNavigatorFailure, goalFrames } from './navigator.js';
import { type CommandRoute, commandRoute } from './collision-monitor.js';

export interface Ros2WorldOptions {
  /** Seconds on a monotonic clock (injected in tests); default performance.now(). */
  readonly now_s?: () => number;
  /** Every feedback message of a running goal (for the UI and the audit log). */
  readonly onFeedback?: (skill: string, feedback: unknown) => void;
  /** $ROS_DISTRO, for the fixes errors suggest. */
  readonly distro?: string | null;
}

export interface Pose {
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
  readonly frame: string;
}

interface Latest {
  message: unknown;
  received_s: number;
  count: number;
}

/**
 * rclnodejs checks every goal, request and published message against its type (opt-in): a field that does not fit is
 * refused, not dropped.
 */
const VALIDATE_GOALS = { validateGoals: true } as const;
const VALIDATE_REQUESTS = { validateRequests: true } as const;

/** Plain JSON of a message (typed arrays to arrays, 64-bit integers to numbers), for responses and logs. */
function plain(v: unknown): unknown {
  const s = JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'bigint' ? Number(x) : ArrayBuffer.isView(x) ? Array.from(x as unknown as ArrayLike<number>) : x,
  );
  return s === undefined ? null : JSON.parse(s);
}

export class Ros2World implements World {
  readonly spec: WorldSpec;
  private readonly now_s: () => number;
  private readonly started_s: number;
  private readonly latest = new Map<string, Latest>();
  private readonly tf = new TfBuffer();
  private readonly feedback = new Map<string, number | string | boolean>();
  private readonly actions = new Map<string, RclActionClient>();
  /** Each service skill's clients, one per service of its chain. */
  private readonly services = new Map<string, RclServiceClient[]>();
  /** The reset service's clients, one per service of its chain. */
  private resetClients: RclServiceClient[] = [];
  private command: RclPublisher | undefined;
  /** The last command published was not zero: closing the world stops the robot. */
  private moving = false;
  /** The command's route past the robot's collision monitor was checked (once per world). */
  private routeChecked = false;
  /** Present when the configuration has a navigation section: missions with the learned policy. */
  readonly navigation?: Navigation;
  /** Present when the configuration has a waypoints section: missions on a map graph through Nav2. */
  readonly waypoints?: Waypoints;
  private waypointClients:
    | {
        pose: RclActionClient;
        through: RclActionClient | null;
        path: RclActionClient;
        mask: RclPublisher;
        info: RclPublisher;
      }
    | undefined;
  /** The keepout filter's info has been published (once: a new one makes Nav2 resubscribe to the mask). */
  private keepoutInfoSent = false;
  private readonly life = new AbortController();
  private readonly inflight = new Set<Promise<unknown>>();
  private closed = false;
  readonly tools: Tools = {
    vocabulary: () => this.vocabulary(),
    reset: (o) => this.reset(o),
    observe: () => this.observe(),
    execute: (skill, args, o) => this.execute(skill, args, o),
  };

  private constructor(
    readonly config: Ros2Config,
    private readonly rcl: RclModule,
    readonly node: RclNode,
    private readonly o: Ros2WorldOptions,
  ) {
    this.now_s = o.now_s ?? (() => performance.now() / 1000);
    this.started_s = this.now_s();
    this.spec = ros2Spec(config);
    if (config.navigation !== undefined) this.navigation = this.navigationOf(config.navigation);
    if (config.waypoints !== undefined) this.waypoints = this.waypointsOf(config.waypoints);
  }

  /**
   * Missions on a map graph: each run of waypoints is one NavigateToPose goal (one pose) or
   * NavigateThroughPoses goal (several), under the mission's deadline; stopping cancels the goal and
   * the error says how the cancel went.
   */
  private waypointsOf(w: WaypointsConfig): Waypoints {
    const id = this.config.id;
    const n = this.config.navigation;
    const map: WorldMap =
      n !== undefined
        ? ros2Map(id, n)
        : {
            bounds: { minX: -Infinity, minY: -Infinity, maxX: Infinity, maxY: Infinity },
            blocked: () => null,
            randomFree: () => {
              throw new WorldError('invalid-input', id, 'a robot starts where it is: there is no random start');
            },
          };
    let posed = false;
    const stamped = (p: WorldPose): Record<string, unknown> => poseStamped(w.frame, p);
    return {
      map,
      poll_s: w.poll_s,
      maxPoses: w.through === null ? 1 : w.through.max_poses,
      limits: {
        goalTimeout_s: w.goal_timeout_s,
        minSpeed_m_s: w.min_speed_m_s,
        reach_m: w.reach_m,
        maxLink_m: w.max_link_m,
        goalTolerance_m: w.goal_tolerance_m,
      },
      // Right after connecting there may be no transform yet: the first pose waits for fresh data, within the connect
      // bound.
      pose: (o) =>
        guardCall(id, 'pose', o, async () => {
          this.ensureOpen();
          if (!posed) {
            await this.waitFresh(this.config.connect_timeout_s, o?.signal);
            posed = true;
          }
          return this.pose();
        }),
      go: async (poses, o) => {
        this.ensureOpen();
        if (poses.length === 0) return;
        const through = poses.length > 1 && w.through !== null;
        if (poses.length > 1 && !through)
          throw new WorldError(
            'invalid-input',
            id,
            `${poses.length} poses in one goal, but the configuration has no waypoints.through action`,
          );
        const tool = through ? w.through : w.pose;
        const client = through ? this.waypointClients!.through! : this.waypointClients!.pose;
        const goal = through
          ? { poses: poses.map(stamped), behavior_tree: w.behavior_tree }
          : { pose: stamped(poses[0]!), behavior_tree: w.behavior_tree };
        const skill = through
          ? `navigate through ${poses.length} poses`
          : `navigate to (${poses[0]!.x.toFixed(2)}, ${poses[0]!.y.toFixed(2)})`;
        this.navigatorPrecheck(skill, goal);
        const fb = new NavigatorFeedback(this.config.frames.base);
        const p = runStoppable(
          id,
          skill,
          { timeout_s: o.timeout_s, signal: AbortSignal.any([o.signal, this.life.signal]) },
          (s) =>
            runGoal(
              {
                world: id,
                skill,
                tool,
                client,
                goal,
                onFeedback: (m) => {
                  const f = m as { distance_remaining?: unknown; number_of_poses_remaining?: unknown };
                  const v = fb.read(m);
                  o.onFeedback?.({
                    remaining: typeof f.number_of_poses_remaining === 'number' ? f.number_of_poses_remaining : null,
                    distance_m: v.path && typeof f.distance_remaining === 'number' ? f.distance_remaining : null,
                  });
                  this.o.onFeedback?.('waypoints', m);
                },
              },
              s,
            ),
        );
        try {
          await this.track(p);
        } catch (e) {
          throw explainNavigatorFailure(e, tool.action, fb.recoveries);
        }
      },
      planPath: (from, to, o) => this.planPath(w, from, to, o),
      keepout: {
        resolution_m: w.keepout.resolution_m,
        publish: (grid) => {
          this.ensureOpen();
          const c = this.waypointClients!;
          c.mask.publish(occupancyGrid(w.frame, grid));
          if (!this.keepoutInfoSent) {
            c.info.publish(costmapFilterInfo(w.frame, w.keepout.mask_topic));
            this.keepoutInfoSent = true;
          }
          return `${w.keepout.mask_topic} (filter info on ${w.keepout.info_topic})`;
        },
      },
    };
  }

  /**
   * Nav2's ComputePathToPose from `from` to `to` (use_start), under the configured deadline; an aborted request names
   * Nav2's error code.
   */
  private async planPath(
    w: WaypointsConfig,
    from: WorldPose,
    to: WorldPose,
    o: { readonly timeout_s?: number; readonly signal?: AbortSignal },
  ): Promise<WorldPose[]> {
    const id = this.config.id;
    this.ensureOpen();
    const tool = w.compute_path;
    const skill = `path from (${from.x.toFixed(2)}, ${from.y.toFixed(2)}) to (${to.x.toFixed(2)}, ${to.y.toFixed(2)})`;
    const timeout_s = Math.min(o.timeout_s ?? Infinity, tool.timeout_s);
    const signal = AbortSignal.any([...(o.signal ? [o.signal] : []), this.life.signal]);
    let result: unknown;
    try {
      result = await this.track(
        runStoppable(id, skill, { timeout_s, signal }, (s) =>
          runGoal(
            {
              world: id,
              skill,
              tool,
              client: this.waypointClients!.path,
              goal: computePathGoal(w.frame, from, to, tool.planner_id),
              onFeedback: () => undefined,
            },
            s,
          ),
        ),
      );
    } catch (e) {
      if (!(e instanceof WorldError) || e.kind !== 'aborted') throw e;
      const name = pathErrorName(e.detail);
      // Humble's planner server aborts with an empty result.
      throw new WorldError(
        'aborted',
        id,
        `${e.detail} (${name ?? "no error code: Humble's planner server reports none"})`,
      );
    }
    const p = pathPoses(result);
    if (!p.ok) throw new WorldError('failed', id, `${skill} (${tool.action}, ${tool.type}): ${p.why}`);
    return p.poses;
  }

  /**
   * Missions on a robot: the policy reads the configured fields and its action is published as the
   * command message once per control step. A robot starts where it is: a mission's start must be
   * within start_tolerance_m of the pose.
   */
  private navigationOf(n: NavigationConfig): Navigation {
    const id = this.config.id;
    const map = ros2Map(id, n);
    const state = async (): Promise<NavState> => {
      const s = await this.observe();
      const p = this.pose();
      const observation = Float64Array.from(n.observation, (name) => {
        const v = readPath(s, name);
        if (!v.ok || typeof v.value !== 'number' || !Number.isFinite(v.value))
          throw new WorldError(
            'failed',
            id,
            `${this.config.file}: $.navigation.observation: "${name}" is not a finite number in the observed state`,
          );
        return v.value;
      });
      return { observation, pose: p, time_s: this.time_s() };
    };
    return {
      map,
      restObservation: ros2Rest(n),
      // Right after connecting there may be no message yet: wait for fresh data, within the connect bound.
      observe: (o) =>
        guardCall(id, 'observe', o, async () => {
          await this.waitFresh(this.config.connect_timeout_s, o?.signal);
          return state();
        }),
      reset: async (o) => {
        await this.reset(o);
        // Before anything moves: a command that would bypass the robot's collision monitor is refused.
        this.checkCommandRoute();
        const s = await state();
        if (o.start !== undefined) {
          const d = Math.hypot(s.pose.x - o.start[0], s.pose.y - o.start[1]);
          if (d > n.start_tolerance_m) {
            throw new WorldError(
              'invalid-input',
              id,
              `a robot starts where it is: it is at (${s.pose.x.toFixed(2)}, ${s.pose.y.toFixed(2)}), ${d.toFixed(2)} m from the mission's start (${o.start[0]}, ${o.start[1]}); the tolerance is ${n.start_tolerance_m} m`,
            );
          }
        }
        return s;
      },
      step: (action, o) =>
        guardCall(id, 'step', o, async () => {
          this.ensureOpen();
          const c = n.command;
          if (action.length !== c.action.length || Array.from(action).some((a) => !Number.isFinite(a))) {
            throw new WorldError(
              'invalid-input',
              id,
              `action must be ${c.action.length} finite numbers (${c.action.join(', ')}), got [${Array.from(action).join(', ')}]`,
            );
          }
          this.checkCommandRoute();
          const message: Record<string, unknown> = {};
          c.action.forEach((field, i) => setPath(message, field, action[i]! * c.scale[i]!));
          this.publishCommand(message);
          this.moving = Array.from(action).some((a) => a !== 0);
          await new Promise((resolve) => setTimeout(resolve, this.config.control_dt_s * 1000));
          return state();
        }),
    };
  }

  /**
   * Connects: initialises rclnodejs (once per process), subscribes, creates the clients and spins. Nothing waits for
   * the robot here; reset() and probe() do.
   */
  static async open(config: Ros2Config, rcl: RclModule, o: Ros2WorldOptions = {}): Promise<Ros2World> {
    const distro = o.distro ?? null;
    await acquire(rcl, distro);
    let node: RclNode | undefined;
    try {
      node = new rcl.Node(config.node.name, config.node.namespace);
      const w = new Ros2World(config, rcl, node, o);
      w.connect(distro);
      node.spin();
      return w;
    } catch (e) {
      try {
        node?.destroy();
      } finally {
        release(rcl);
      }
      throw e;
    }
  }

  private connect(distro: string | null): void {
    const id = this.config.id;
    for (const [sid, s] of Object.entries(this.config.sensors)) {
      withInterface(id, `sensor ${sid} (${s.topic})`, s.type, distro, () =>
        this.node.createSubscription(s.type, s.topic, { qos: qosProfile(this.rcl, s.qos) }, (m) =>
          this.onMessage(sid, m),
        ),
      );
    }
    if (this.config.pose.source === 'tf') {
      const { topic, static_topic } = this.config.tf;
      withInterface(id, `TF (${topic})`, 'tf2_msgs/msg/TFMessage', distro, () =>
        this.node.createSubscription(
          'tf2_msgs/msg/TFMessage',
          topic,
          { qos: qosProfile(this.rcl, { reliability: 'reliable', durability: 'volatile', depth: 100 }) },
          (m) => this.tf.ingest(m, false, this.now_s()),
        ),
      );
      // Static transforms are latched: transient-local, or a late joiner never sees them.
      withInterface(id, `TF (${static_topic})`, 'tf2_msgs/msg/TFMessage', distro, () =>
        this.node.createSubscription(
          'tf2_msgs/msg/TFMessage',
          static_topic,
          { qos: qosProfile(this.rcl, { reliability: 'reliable', durability: 'transient_local', depth: 100 }) },
          (m) => this.tf.ingest(m, true, this.now_s()),
        ),
      );
    }
    for (const [skill, t] of Object.entries(this.config.tools)) {
      this.actions.set(
        skill,
        withInterface(
          id,
          `tool ${skill} (${t.action})`,
          t.type,
          distro,
          () => new this.rcl.ActionClient(this.node, t.type, t.action, VALIDATE_GOALS),
        ),
      );
    }
    for (const [skill, s] of Object.entries(this.config.services)) {
      this.services.set(
        skill,
        s.chain.map((name) =>
          withInterface(id, `service ${skill} (${name})`, s.type, distro, () =>
            this.node.createClient(s.type, name, VALIDATE_REQUESTS),
          ),
        ),
      );
    }
    const r = this.config.reset;
    if (r !== undefined)
      this.resetClients = r.chain.map((name) =>
        withInterface(id, `reset (${name})`, r.type, distro, () =>
          this.node.createClient(r.type, name, VALIDATE_REQUESTS),
        ),
      );
    const w = this.config.waypoints;
    if (w !== undefined) {
      // The keepout filter subscribes reliable, transient-local, depth 1: a latched mask reaches a costmap started
      // later.
      const latched = qosProfile(this.rcl, { reliability: 'reliable', durability: 'transient_local', depth: 1 });
      const cp = w.compute_path,
        k = w.keepout;
      this.waypointClients = {
        pose: withInterface(
          id,
          `waypoints (${w.pose.action})`,
          w.pose.type,
          distro,
          () => new this.rcl.ActionClient(this.node, w.pose.type, w.pose.action, VALIDATE_GOALS),
        ),
        through:
          w.through === null
            ? null
            : withInterface(
                id,
                `waypoints (${w.through.action})`,
                w.through.type,
                distro,
                () => new this.rcl.ActionClient(this.node, w.through!.type, w.through!.action, VALIDATE_GOALS),
              ),
        path: withInterface(
          id,
          `waypoints.compute_path (${cp.action})`,
          cp.type,
          distro,
          () => new this.rcl.ActionClient(this.node, cp.type, cp.action, VALIDATE_GOALS),
        ),
        mask: withInterface(id, `waypoints.keepout (${k.mask_topic})`, 'nav_msgs/msg/OccupancyGrid', distro, () =>
          this.node.createPublisher('nav_msgs/msg/OccupancyGrid', k.mask_topic, {
            qos: latched,
            validateMessages: true,
          }),
        ),
        info: withInterface(id, `waypoints.keepout (${k.info_topic})`, 'nav2_msgs/msg/CostmapFilterInfo', distro, () =>
          this.node.createPublisher('nav2_msgs/msg/CostmapFilterInfo', k.info_topic, {
            qos: latched,
            validateMessages: true,
          }),
        ),
      };
    }
    const c = this.config.navigation?.command;
    if (c !== undefined)
      this.command = withInterface(id, `navigation command (${c.topic})`, c.type, distro, () =>
        this.node.createPublisher(c.type, c.topic, { qos: qosProfile(this.rcl, c.qos), validateMessages: true }),
      );
  }

  /**
   * Publishes a navigation command; a message its type refuses (rclnodejs validates it) is invalid-input naming the
   * field.
   */
  private publishCommand(message: Record<string, unknown>): void {
    const c = this.config.navigation!.command;
    try {
      this.command!.publish(message);
    } catch (e) {
      throw (
        notFitting(e, this.config.id, `navigation command (${c.topic})`, 'message', c.type, {
          at: '$.navigation.command.action',
          paths: c.action,
          indexed: true,
        }) ??
        new WorldError(
          'failed',
          this.config.id,
          `navigation command (${c.topic}): rclnodejs could not publish it: ${e instanceof Error ? e.message : String(e)}`,
        )
      );
    }
  }

  /**
   * A velocity command must reach the robot through its collision monitor where one runs
   * (collision-monitor.ts): one that would bypass it is refused before anything moves.
   */
  private checkCommandRoute(): void {
    if (this.routeChecked) return;
    const r = commandRoute(this.node, this.config.navigation!.command, this.config.file);
    if (!r.ok) throw new WorldError('invalid-input', this.config.id, r.problem);
    this.routeChecked = true;
  }

  /** Where the navigation command would go now (`witness ros2 check`); null without a navigation section. */
  navigationCommandRoute(): CommandRoute | null {
    const c = this.config.navigation?.command;
    return c === undefined ? null : commandRoute(this.node, c, this.config.file);
  }

  /** A zero command (every action field 0), published when the world closes after moving the robot. */
  private stopRobot(): void {
    const c = this.config.navigation?.command;
    if (c === undefined || !this.moving || this.rcl.isShutdown()) return;
    const zero: Record<string, unknown> = {};
    for (const field of c.action) setPath(zero, field, 0);
    this.command!.publish(zero);
    this.moving = false;
  }

  private onMessage(sensor: string, message: unknown): void {
    const prev = this.latest.get(sensor);
    this.latest.set(sensor, { message, received_s: this.now_s(), count: (prev?.count ?? 0) + 1 });
  }

  private ensureOpen(): void {
    if (this.closed) throw new WorldError('closed', this.config.id, 'the world was closed; open a new one');
    if (this.rcl.isShutdown())
      throw new WorldError(
        'disconnected',
        this.config.id,
        'the ROS 2 context was shut down (rclnodejs.shutdown() elsewhere in this process)',
      );
  }

  /** Sensors with no message, or none within their staleness bound, described. */
  staleSensors(): string[] {
    const now = this.now_s();
    const out: string[] = [];
    for (const [sid, s] of Object.entries(this.config.sensors)) {
      const l = this.latest.get(sid);
      if (l === undefined)
        out.push(
          `no message yet on ${s.topic} (${s.type})${s.qos.durability === 'transient_local' ? ' (latched: transient-local)' : ''}`,
        );
      // A latched topic (transient-local, no bound of its own) was published once: its message stays current.
      else if (s.staleness_s !== null && now - l.received_s > s.staleness_s)
        out.push(
          `the last message on ${s.topic} is ${(now - l.received_s).toFixed(2)} s old (bound ${s.staleness_s} s)`,
        );
    }
    return out;
  }

  private ensureFresh(): void {
    const stale = this.staleSensors();
    if (stale.length > 0)
      throw new WorldError(
        'disconnected',
        this.config.id,
        `${stale.join('; ')}: is the robot (or the simulator) running and publishing? (\`ros2 topic hz <topic>\`)`,
      );
  }

  /** The base pose in the map frame (TF) or the odometry frame. */
  pose(): Pose {
    const id = this.config.id;
    const p = this.config.pose;
    if (p.source === 'odometry') {
      const s = this.config.sensors[p.sensor]!;
      const l = this.latest.get(p.sensor);
      if (l === undefined || this.now_s() - l.received_s > (s.staleness_s ?? this.config.staleness_s))
        throw new WorldError('disconnected', id, `no fresh odometry on ${s.topic} for the pose`);
      const pos = readPath(l.message, 'pose.pose.position'),
        ori = readPath(l.message, 'pose.pose.orientation'),
        frame = readPath(l.message, 'header.frame_id');
      const q = ori.ok ? (ori.value as Record<string, number>) : undefined;
      const xy = pos.ok ? (pos.value as Record<string, number>) : undefined;
      if (xy === undefined || q === undefined)
        throw new WorldError('failed', id, `${s.topic}: not an odometry message (no pose.pose)`);
      return {
        x: xy['x']!,
        y: xy['y']!,
        yaw: yawOf([q['x']!, q['y']!, q['z']!, q['w']!]),
        frame: frame.ok ? String(frame.value) : '',
      };
    }
    const { map, base } = this.config.frames;
    const r = this.tf.lookup(map, base, this.now_s(), this.config.tf.staleness_s);
    if (!r.ok) {
      const never = this.tf.lastDynamic_s === -Infinity && this.tf.links().length === 0;
      throw new WorldError(
        never || r.kind === 'stale' ? 'disconnected' : 'not-found',
        id,
        `${r.why}${never ? ` on ${this.config.tf.topic}: is the robot publishing TF?` : this.localisationHint(r)}`,
      );
    }
    return { x: r.transform.t[0], y: r.transform.t[1], yaw: yawOf(r.transform.q), frame: map };
  }

  /**
   * What a failed map ← base lookup says about localisation. AMCL publishes map → odom on /tf only
   * once it has an initial pose, then once per laser scan (nav2_amcl amcl_node.cpp laserReceived,
   * sendMapToOdomTransform): a robot whose odometry links its base to odom but nothing links the map
   * is not localised yet, and a map → odom that stopped coming means the lidar (or AMCL) went quiet.
   */
  private localisationHint(r: Exclude<Lookup, { ok: true }>): string {
    const { map, odom } = this.config.frames;
    if (r.kind === 'stale') {
      return r.link.parent === map
        ? `: AMCL (or SLAM) refreshes ${map} → ${r.link.child} once per laser scan: is the lidar publishing (\`ros2 topic hz /scan\`), and AMCL running?`
        : '';
    }
    const linked = odom !== undefined && this.tf.lookup(odom, this.config.frames.base, this.now_s(), Infinity).ok;
    return linked && !this.tf.links().some((l) => l.startsWith(`${map} → `))
      ? `: the robot is not localised — AMCL publishes ${map} → ${odom} only once it has an initial pose (RViz's "2D Pose Estimate", or /initialpose), SLAM once it has a map; is localization (AMCL, SLAM) running?`
      : ': is localization (AMCL, SLAM) running?';
  }

  /** L(s): the regions containing the pose. */
  labels(): string[] {
    const p = this.pose();
    return labelAt(this.config.regions, p.x, p.y);
  }

  observe(): Promise<WorldState> {
    try {
      this.ensureOpen();
      this.ensureFresh();
      const p = this.pose();
      const state: Record<string, unknown> = {};
      setPath(state, 'base.x', p.x);
      setPath(state, 'base.y', p.y);
      setPath(state, 'base.yaw', p.yaw);
      const inside = new Set(labelAt(this.config.regions, p.x, p.y));
      for (const r of this.config.regions) setPath(state, `at.${r.name}`, inside.has(r.name));
      for (const [sid, s] of Object.entries(this.config.sensors)) {
        const m = this.latest.get(sid)!.message;
        for (const [name, f] of Object.entries(s.fields)) {
          const v = readField(m, f);
          // The message arrived but lacks the field: the configuration does not fit this robot.
          if (!v.ok)
            throw new WorldError(
              'invalid-input',
              this.config.id,
              `${this.config.file}: $.sensors.${sid}.fields[${JSON.stringify(name)}]: ${s.topic}: ${v.why}`,
            );
          setPath(state, name, v.value);
        }
      }
      for (const [name, v] of this.feedback) setPath(state, name, v);
      return Promise.resolve(state);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  async execute(skill: string, args: unknown, o: { timeout_s: number; signal: AbortSignal }): Promise<unknown> {
    const id = this.config.id;
    this.ensureOpen();
    const tool = this.config.tools[skill],
      svc = this.config.services[skill];
    if (tool === undefined && svc === undefined) {
      throw new WorldError(
        'invalid-input',
        id,
        `no skill "${skill}"; the skills are ${[...this.actions.keys(), ...this.services.keys()].join(', ')}`,
      );
    }
    let message: Record<string, unknown>;
    try {
      message = buildMessage(tool?.goal ?? svc!.request, args);
    } catch (e) {
      if (e instanceof MappingError) throw new WorldError('invalid-input', id, `${skill}: ${e.message}`);
      throw e;
    }
    const timeout_s = Math.min(o.timeout_s, (tool ?? svc!).timeout_s);
    const deadline_ms = performance.now() + timeout_s * 1000;
    const configured = {
      at: `$.${tool !== undefined ? 'tools' : 'services'}.${skill}.${tool !== undefined ? 'goal' : 'request'}`,
      paths: Object.keys(tool?.goal ?? svc!.request),
    };
    const navigator = tool !== undefined && NAVIGATOR_TYPES.has(tool.type);
    if (navigator) this.navigatorPrecheck(`skill ${skill}`, message);
    const watch = navigator ? this.watchPose(`skill ${skill}`) : null;
    const signal = AbortSignal.any([o.signal, this.life.signal, ...(watch !== null ? [watch.signal] : [])]);
    const fb = new NavigatorFeedback(this.config.frames.base);
    const p = runStoppable(id, `skill ${skill}`, { timeout_s, signal }, async (s) => {
      if (svc !== undefined)
        return plain(
          await this.callServices(skill, svc, this.services.get(skill)!, message, { deadline_ms, configured }, s),
        );
      for (const name of Object.keys(tool!.feedback)) this.feedback.delete(name);
      let last: unknown = null;
      const result = await runGoal(
        {
          world: id,
          skill,
          tool: tool!,
          client: this.actions.get(skill)!,
          goal: message,
          configured,
          onFeedback: (m) => {
            last = m;
            const v = navigator ? fb.read(m) : { path: true, pose: true };
            for (const [name, f] of Object.entries(tool!.feedback)) {
              if (!NavigatorFeedback.meaningful(f.path, v)) continue;
              const r = readField(m, f);
              if (r.ok) this.feedback.set(name, r.value);
            }
            this.o.onFeedback?.(skill, m);
          },
        },
        s,
      );
      return { status: 'succeeded', result: plain(result), feedback: plain(last) };
    });
    try {
      return await this.track(p);
    } catch (e) {
      throw navigator ? explainNavigatorFailure(e, tool.action, fb.recoveries) : e;
    } finally {
      watch?.stop();
    }
  }

  /**
   * A service skill (or the reset): each of its services in order, a chain stopping at the first
   * failure; the last response. The chain shares one deadline (each call gets what is left of it).
   */
  private async callServices(
    skill: string,
    svc: ServiceTool,
    clients: readonly RclServiceClient[],
    request: Record<string, unknown>,
    o: { readonly deadline_ms: number; readonly configured: Configured },
    signal: AbortSignal,
  ): Promise<unknown> {
    let response: unknown = null;
    for (const [i, name] of svc.chain.entries()) {
      response = await callService(
        {
          world: this.config.id,
          skill,
          service: { ...svc, service: name },
          client: clients[i]!,
          request,
          deadline_ms: o.deadline_ms,
          configured: o.configured,
        },
        signal,
      );
    }
    return response;
  }

  /**
   * Before a navigator goal: a pose without a frame, a frame TF does not link to the map, and a robot
   * that is not localised (pose from TF) are refused here, nothing sent — Nav2 would abort such a goal
   * (Jazzy) or run its recovery behaviours first, spinning and backing up (Humble).
   */
  private navigatorPrecheck(what: string, goal: Record<string, unknown>): void {
    const id = this.config.id;
    const frames = goalFrames(goal);
    const nav2 = (needs: string): string =>
      `no goal was sent: Nav2 needs ${needs} (Jazzy aborts the goal; Humble's planner fails and the robot spins and backs up before the goal is aborted)`;
    const empty = frames.indexOf('');
    if (empty >= 0)
      throw new WorldError(
        'invalid-input',
        id,
        `${what}: goal pose ${empty + 1} has no header.frame_id; ${nav2('a frame it can transform into its global frame')}`,
      );
    if (this.config.pose.source !== 'tf') return;
    try {
      this.pose();
    } catch (e) {
      if (e instanceof WorldError)
        throw new WorldError(
          e.kind,
          id,
          `${what}: the robot's pose is unknown: ${e.detail}; ${nav2("the robot's pose")}`,
        );
      throw e;
    }
    const map = this.config.frames.map;
    for (const f of new Set(frames)) {
      const r = f === map ? null : this.tf.lookup(map, f, this.now_s(), Infinity);
      if (r !== null && !r.ok)
        throw new WorldError(
          'invalid-input',
          id,
          `${what}: the goal's frame "${f}" is not linked to ${map} in TF (${r.why}); ${nav2('a frame it can transform into its global frame')}`,
        );
    }
  }

  /**
   * While a navigator goal runs (pose from TF): aborted with a 'disconnected' WorldError as soon as the
   * pose goes stale — a silent lidar leaves AMCL's map → odom old, and Nav2 drives on a pose it no
   * longer updates. The goal is then cancelled like any stopped call.
   */
  private watchPose(what: string): { readonly signal: AbortSignal; stop(): void } | null {
    if (this.config.pose.source !== 'tf') return null;
    const ac = new AbortController();
    const stop = (): void => clearInterval(timer);
    const timer = setInterval(
      () => {
        try {
          this.pose();
        } catch (e) {
          if (!(e instanceof WorldError) || e.kind !== 'disconnected') return;
          stop();
          ac.abort(
            new WorldError(
              'disconnected',
              this.config.id,
              `${what}: the robot's pose went stale while the goal ran (${e.detail})`,
            ),
          );
        }
      },
      Math.max(20, this.config.control_dt_s * 1000),
    );
    return { signal: ac.signal, stop };
  }

  /** A running call close() waits for (its goal cancelled, bounded) before destroying the node. */
  private async track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    try {
      return await p;
    } finally {
      this.inflight.delete(p);
    }
  }

  vocabulary(): Vocabulary {
    return ros2Vocabulary(this.config);
  }

  /**
   * A robot is not reset to a seed: reset calls the configured reset service (a simulator's), then waits until every
   * sensor and the pose are fresh.
   */
  reset(options: CallOptions & { readonly seed: number }): Promise<WorldState> {
    const id = this.config.id;
    // By default a little longer than the waits inside, so that their more precise errors win.
    const timeout_s = options.timeout_s ?? this.config.connect_timeout_s + (this.config.reset?.timeout_s ?? 0) + 1;
    return guardCall(id, 'reset', { timeout_s, ...(options.signal ? { signal: options.signal } : {}) }, async () => {
      this.ensureOpen();
      const r = this.config.reset;
      if (r !== undefined) {
        const signal = AbortSignal.any([this.life.signal, ...(options.signal ? [options.signal] : [])]);
        const deadline_ms = performance.now() + r.timeout_s * 1000;
        const configured = { at: '$.reset.request', paths: Object.keys(r.request) };
        await runStoppable(id, 'reset', { timeout_s: r.timeout_s, signal }, (s) =>
          this.callServices('reset', r, this.resetClients, buildMessage(r.request, {}), { deadline_ms, configured }, s),
        );
      }
      await this.waitFresh(this.config.connect_timeout_s, options.signal);
      return this.observe();
    });
  }

  /**
   * Waits until observe() succeeds (fresh sensors, a pose), polling; the last reason as a 'disconnected' error past the
   * bound.
   */
  async waitFresh(bound_s: number, signal?: AbortSignal): Promise<void> {
    // A real wait on real timers: the deadline is wall time, whatever clock dates the messages.
    const deadline = performance.now() + bound_s * 1000;
    for (;;) {
      try {
        await this.observe();
        return;
      } catch (e) {
        if (
          !(e instanceof WorldError) ||
          (e.kind !== 'disconnected' && e.kind !== 'not-found') ||
          this.rcl.isShutdown()
        )
          throw e;
        if (performance.now() >= deadline || signal?.aborted)
          throw new WorldError('disconnected', this.config.id, `not ready within ${bound_s} s: ${e.detail}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  time_s(): number {
    return this.now_s() - this.started_s;
  }

  /**
   * Action clients by skill, service clients by skill (one per service of its chain), and the latest message of each
   * sensor (for `witness ros2 check`).
   */
  endpoints(): {
    actions: ReadonlyMap<string, RclActionClient>;
    services: ReadonlyMap<string, readonly RclServiceClient[]>;
    waypoints: ReadonlyMap<string, RclActionClient>;
    latest: (sensor: string) => { message: unknown; count: number; age_s: number } | undefined;
    tfLinks: () => string[];
  } {
    const latest = (sensor: string): { message: unknown; count: number; age_s: number } | undefined => {
      const l = this.latest.get(sensor);
      return l === undefined ? undefined : { message: l.message, count: l.count, age_s: this.now_s() - l.received_s };
    };
    const c = this.waypointClients;
    const waypoints = new Map<string, RclActionClient>(
      c === undefined
        ? []
        : [
            ['waypoints', c.pose],
            ...(c.through !== null ? [['waypoints.through', c.through] as const] : []),
            ['waypoints.compute_path', c.path],
          ],
    );
    return { actions: this.actions, services: this.services, waypoints, latest, tfLinks: () => this.tf.links() };
  }

  /**
   * Cancels running goals (each bounded by its cancel_timeout_s), leaves a robot it drove by velocity at rest (a zero
   * command), then destroys the node; later calls fail with 'closed'.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.life.abort(new WorldError('closed', this.config.id, 'the world was closed during the call'));
    await Promise.allSettled([...this.inflight]);
    try {
      // A robot driven by velocity commands is left at rest, before the node goes.
      this.stopRobot();
      // After a shutdown (rclnodejs.shutdown() elsewhere) the node and its entities are destroyed already.
      if (!this.rcl.isShutdown()) {
        for (const a of this.actions.values()) a.destroy();
        this.waypointClients?.pose.destroy();
        this.waypointClients?.through?.destroy();
        this.waypointClients?.path.destroy();
        this.node.destroy();
      }
    } finally {
      release(this.rcl);
    }
  }
}

/** Loads rclnodejs (Ros2Unavailable with the diagnosis when it cannot) and opens the world. */
export async function openRos2World(
  config: Ros2Config,
  o: Ros2WorldOptions & { readonly loader?: LoaderDeps } = {},
): Promise<Ros2World> {
  const a = await loadRclnodejs(o.loader);
  if (!a.ok) throw new Ros2Unavailable(a);
  return Ros2World.open(config, a.rcl, { ...o, distro: a.distro });
}
