/**
 * TEST CODE — Nav2's bt_navigator as the simulated ROS 2 graph runs it: the two navigators
 * (/navigate_to_pose, /navigate_through_poses) behind one lifecycle node, the default behaviour tree
 * with its recovery rounds, the controller with its goal and progress checkers, and the behaviour
 * server's Spin, Wait and BackUp. Humble's and Jazzy's differences come from the profile
 * (nav2-profile.ts); paths below are in github.com/ros-navigation/navigation2, both branches unless
 * named.
 *
 * - Lifecycle. An inactive bt_navigator keeps its action servers (created on configure) but
 *   rejects every goal (nav2_util/include/nav2_util/simple_action_server.hpp handle_goal: REJECT
 *   while !server_active_).
 * - One navigator at a time. A goal for the other navigator while one runs is accepted by the
 *   action server, then aborted at once with an empty result; the running goal goes on
 *   (nav2_bt_navigator navigator.hpp / nav2_core behavior_tree_navigator.hpp onGoalReceived:
 *   "while another navigator is processing, rejecting request", then bt_action_server_impl.hpp
 *   executeCallback: terminate_current()). A new goal for the same navigator pre-empts: the old
 *   one is aborted (simple_action_server.hpp accept_pending_goal).
 * - The tree (behavior_trees/navigate_to_pose_w_replanning_and_recovery.xml): plan
 *   (ComputePathToPose; a failure clears the global costmap and plans once more), follow
 *   (FollowPath; a failure clears the local costmap and follows once more), and when the pipeline
 *   fails a recovery round — RoundRobin [clear both costmaps, Spin 1.57 rad, Wait 5 s, BackUp
 *   0.30 m] — then the pipeline again, up to six rounds (RecoveryNode number_of_retries="6"), then
 *   ABORTED. Replanning at 1 Hz while following is not modelled (the costmaps do not change while
 *   a goal runs here).
 * - The controller (nav2_controller): SimpleGoalChecker, stateful — within xy_goal_tolerance
 *   0.25 m the robot stops and turns to the goal's heading, and the goal succeeds within
 *   yaw_goal_tolerance 0.25 rad; SimpleProgressChecker — 0.5 m in 10 s or FAILED_TO_MAKE_PROGRESS.
 *   Intermediate poses of NavigateThroughPoses are passed, not stopped at (the path runs through
 *   them).
 * - Feedback every loop (onLoop): distance_remaining the length of the blackboard's path from the
 *   robot's place on it, 0 while there is none (before the first plan, after a failed one).
 */
import type { GoalControl } from '../backends/ros2/fake-rclnodejs.js';
import type { SimCostmap } from './nav2-planner.js';
import {
  FOLLOW,
  GOAL_CHECKER,
  type Nav2Profile,
  PROGRESS_CHECKER,
  SPIN_RAD_S,
  THROUGH_OFFSET,
  navigatorResult,
} from './nav2-profile.js';
import type { Pose2 } from './amcl.js';

/**
 * How the next navigation goals go: run; the controller fails from `after_s` on with `code`
 * (default FAILED_TO_MAKE_PROGRESS: the robot is stuck, and stays stuck for this goal); stall
 * (accepted, never moving: a navigator that hangs); reject (refused on arrival); or a detour
 * through a point (a costmap Witness does not share, a localisation error).
 */
export type GoalFault =
  | { kind: 'run' }
  | { kind: 'abort'; after_s: number; code?: number }
  | { kind: 'stall' }
  | { kind: 'reject' }
  | { kind: 'detour'; via: readonly [number, number] };

/** What the navigator reads and drives. */
export interface NavigatorHost {
  readonly profile: Nav2Profile;
  readonly costmap: SimCostmap;
  readonly time_s: number;
  /** The robot's pose in the map frame as Nav2 reads it from TF (AMCL), null before an initial pose. */
  mapPose(): Pose2 | null;
  /** A pose given in `frame` as a pose in the map frame, null when TF cannot transform it. */
  toMap(frame: string, p: Pose2): Pose2 | null;
  /** ClearEntireCostmap on the global or local costmap. */
  clear(which: 'global' | 'local'): void;
}

/** A velocity command in the map frame (m/s, rad/s). */
export interface Command {
  readonly vx: number;
  readonly vy: number;
  readonly wz: number;
}

const STOP: Command = { vx: 0, vy: 0, wz: 0 };

/** How long the planner server takes to answer (s of simulated time): feedback runs meanwhile, with no path. */
const PLANNING_S = 0.1;
/** Spin's spin_dist, Wait's wait_duration, BackUp's backup_dist in the default trees. */
const SPIN_DIST_RAD = 1.57,
  WAIT_S = 5,
  BACKUP_M = 0.3;
/** NavigateRecovery's number_of_retries. */
const ROUNDS = 6;

type Recovery = 'clear' | 'spin' | 'wait' | 'backup';
const ROUND_ROBIN: readonly Recovery[] = ['clear', 'spin', 'wait', 'backup'];

type Phase =
  | { readonly k: 'plan'; readonly until_s: number; readonly retried: boolean }
  | { readonly k: 'follow'; readonly retried: boolean }
  | { readonly k: 'recover'; readonly what: Recovery; readonly start: Pose2 | null; readonly started_s: number };

interface Goal {
  readonly ctl: GoalControl;
  readonly action: string;
  /** The goal poses in the map frame (the last one's heading is the goal's). */
  readonly poses: readonly Pose2[];
  readonly fault: GoalFault;
  readonly started_s: number;
  phase: Phase;
  rounds: number;
  next: number;
  recoveries: number;
  planCode: number;
  followCode: number;
  /** The blackboard's path: corners the controller steers through, the index of the next. */
  path: { readonly corners: readonly { x: number; y: number }[]; index: number } | null;
  checkXY: boolean;
  /** Poses of a NavigateThroughPoses goal passed (RemovePassedGoals). */
  passed: number;
  progress: { x: number; y: number; t: number } | null;
}

const angle = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));

interface PoseStampedMsg {
  header?: { frame_id?: string };
  pose: { position: { x: number; y: number }; orientation?: { z?: number; w?: number } };
}

function poseOf(p: PoseStampedMsg): Pose2 {
  const q = p.pose.orientation ?? {};
  return { x: p.pose.position.x, y: p.pose.position.y, yaw: 2 * Math.atan2(q.z ?? 0, q.w ?? 1) };
}

export class SimNavigator {
  /** The bt_navigator lifecycle node's state. */
  lifecycle: 'active' | 'inactive' = 'active';
  /** Faults for the next goals, in order (then: run). */
  readonly next: GoalFault[] = [];
  /** Every navigation goal received: its poses (as sent). */
  readonly goals: { x: number; y: number }[][] = [];
  /** Every recovery behaviour run (Spin, Wait, BackUp; the costmap clears are the host's). */
  readonly behaviours: { what: 'spin' | 'wait' | 'backup'; at_s: number }[] = [];
  private goal: Goal | null = null;

  /** `speed_m_s`: the controller's top speed. */
  constructor(
    private readonly host: NavigatorHost,
    private readonly speed: number,
  ) {}

  /** handle_goal: an inactive server rejects; a 'reject' fault refuses the next goal. */
  accept(): boolean {
    if (this.lifecycle !== 'active') return false;
    if (this.next[0]?.kind === 'reject') {
      this.next.shift();
      return false;
    }
    return true;
  }

  /** The goal the navigator runs (null when idle). */
  get running(): { action: string; recoveries: number } | null {
    return this.goal === null ? null : { action: this.goal.action, recoveries: this.goal.recoveries };
  }

  execute(ctl: GoalControl, action: string): void {
    const g = ctl.goal as { pose?: PoseStampedMsg; poses?: PoseStampedMsg[] };
    const list = action === '/navigate_through_poses' ? (g.poses ?? []) : g.pose !== undefined ? [g.pose] : [];
    this.goals.push(list.map((p) => ({ x: p.pose.position.x, y: p.pose.position.y })));
    const p = this.host.profile;
    const running = this.goal;
    if (running !== null && running.ctl.isActive() && running.action !== action) {
      // The other navigator is running a goal: this one is aborted, that one goes on.
      ctl.abort(navigatorResult(p, 0));
      return;
    }
    const fault = this.next.shift() ?? { kind: 'run' };
    // Jazzy's initializeGoalPose: the robot's pose and the goal in the global frame, or an abort without a code.
    const poses = list.map((m) => this.host.toMap(m.header?.frame_id ?? '', poseOf(m)));
    // (A pre-empting goal that fails this is dropped the same way: the running goal goes on.)
    if (p.checksGoalOnArrival && (this.host.mapPose() === null || poses.some((q) => q === null))) {
      ctl.abort(navigatorResult(p, 0));
      return;
    }
    // Same navigator: the new goal pre-empts the running one, which ends ABORTED.
    if (running !== null && running.ctl.isActive()) running.ctl.abort(navigatorResult(p, 0));
    const t = this.host.time_s;
    // Humble keeps an untransformable pose as it is: the planner fails on it (a NaN pose stands for "no transform").
    const mapPoses = poses.map((q) => q ?? { x: Number.NaN, y: Number.NaN, yaw: 0 });
    this.goal = {
      ctl,
      action,
      poses: mapPoses,
      fault,
      started_s: t,
      phase: { k: 'plan', until_s: t + PLANNING_S, retried: false },
      rounds: 0,
      next: 0,
      recoveries: 0,
      planCode: 0,
      followCode: 0,
      path: null,
      checkXY: true,
      passed: 0,
      progress: null,
    };
  }

  /** One loop of dt_s: the tree, the controller or a behaviour; the velocity to command. */
  tick(dt_s: number): Command {
    const g = this.goal;
    if (g === null) return STOP;
    if (!g.ctl.isActive()) {
      this.goal = null;
      return STOP;
    }
    let cmd = STOP;
    if (g.fault.kind !== 'stall') {
      if (g.phase.k === 'plan') this.plan(g);
      else if (g.phase.k === 'follow') cmd = this.follow(g, dt_s);
      else cmd = this.recover(g, dt_s);
    }
    if (this.goal === g && g.ctl.isActive()) this.feedback(g);
    return cmd;
  }

  private plan(g: Goal): void {
    const ph = g.phase as Extract<Phase, { k: 'plan' }>;
    if (this.host.time_s < ph.until_s) return;
    const through = g.action === '/navigate_through_poses';
    const route = this.route(g);
    if (route.ok) {
      g.planCode = 0;
      g.path = { corners: route.corners, index: 0 };
      g.phase = { k: 'follow', retried: false };
      g.progress = null;
      return;
    }
    // ComputePathToPose's on_aborted writes an empty path to the blackboard.
    g.path = null;
    g.planCode = route.code === 0 ? 0 : route.code + (through ? THROUGH_OFFSET : 0);
    if (!ph.retried && this.host.profile.contextClearHelps('plan', g.planCode)) {
      this.host.clear('global');
      g.recoveries++;
      g.phase = { k: 'plan', until_s: this.host.time_s + PLANNING_S, retried: true };
      return;
    }
    this.pipelineFailed(g);
  }

  /** The planner server's path through the goal's poses, piece by piece, from the robot. */
  private route(g: Goal): { ok: true; corners: { x: number; y: number }[] } | { ok: false; code: number } {
    const from = this.host.mapPose();
    // The planner server cannot read the robot's pose, or transform the goal (TF_ERROR; Humble: no code).
    if (from === null || g.poses.some((p) => !Number.isFinite(p.x))) return { ok: false, code: 202 };
    if (g.fault.kind === 'detour') return { ok: true, corners: [{ x: g.fault.via[0], y: g.fault.via[1] }, ...g.poses] };
    const corners: { x: number; y: number }[] = [];
    let at = { x: from.x, y: from.y };
    for (const p of g.poses) {
      const r = this.host.costmap.plan([at.x, at.y], [p.x, p.y]);
      if (!r.ok) return { ok: false, code: r.code };
      corners.push(...r.corners.slice(1).map(([x, y]) => ({ x, y })));
      at = p;
    }
    return { ok: true, corners: corners.length > 0 ? corners : g.poses.map((p) => ({ x: p.x, y: p.y })) };
  }

  private follow(g: Goal, dt_s: number): Command {
    const ph = g.phase as Extract<Phase, { k: 'follow' }>;
    const f = g.fault;
    const pose = this.host.mapPose();
    let code = 0;
    if (f.kind === 'abort' && this.host.time_s - g.started_s >= f.after_s)
      code = f.code ?? FOLLOW.FAILED_TO_MAKE_PROGRESS;
    else if (pose === null) code = FOLLOW.TF_ERROR;
    else if (this.stuck(g, pose)) code = FOLLOW.FAILED_TO_MAKE_PROGRESS;
    if (code !== 0) {
      g.followCode = code;
      if (!ph.retried && this.host.profile.contextClearHelps('follow', code)) {
        this.host.clear('local');
        g.recoveries++;
        g.phase = { k: 'follow', retried: true };
      } else {
        this.pipelineFailed(g);
      }
      return STOP;
    }
    const p = pose!;
    const path = g.path!;
    const last = g.poses[g.poses.length - 1]!;
    // Corners on the way are passed; the goal checker applies at the end.
    while (
      path.index < path.corners.length - 1 &&
      Math.hypot(path.corners[path.index]!.x - p.x, path.corners[path.index]!.y - p.y) < 0.05
    )
      path.index++;
    const atEnd = path.index >= path.corners.length - 1;
    if (atEnd && g.checkXY && Math.hypot(last.x - p.x, last.y - p.y) <= GOAL_CHECKER.xy_m) g.checkXY = false;
    if (!g.checkXY) {
      const dyaw = angle(last.yaw - p.yaw);
      if (Math.abs(dyaw) <= GOAL_CHECKER.yaw_rad) {
        g.followCode = 0;
        g.ctl.succeed(navigatorResult(this.host.profile, 0));
        this.goal = null;
        return STOP;
      }
      return { vx: 0, vy: 0, wz: Math.sign(dyaw) * Math.min(SPIN_RAD_S, Math.abs(dyaw) / dt_s) };
    }
    const target = path.corners[path.index]!;
    const d = Math.hypot(target.x - p.x, target.y - p.y);
    if (d < 1e-9) return STOP;
    const v = Math.min(this.speed, d / dt_s);
    return { vx: ((target.x - p.x) / d) * v, vy: ((target.y - p.y) / d) * v, wz: 0 };
  }

  /**
   * SimpleProgressChecker: the robot (as Nav2 sees it) must move required_movement_radius within
   * movement_time_allowance.
   */
  private stuck(g: Goal, p: Pose2): boolean {
    const t = this.host.time_s;
    if (
      g.progress === null ||
      Math.hypot(p.x - g.progress.x, p.y - g.progress.y) > PROGRESS_CHECKER.radius_m ||
      !g.checkXY
    ) {
      g.progress = { x: p.x, y: p.y, t };
      return false;
    }
    return t - g.progress.t > PROGRESS_CHECKER.allowance_s;
  }

  /** The pipeline failed: a recovery round if one is left and would help, else the goal is aborted. */
  private pipelineFailed(g: Goal): void {
    const p = this.host.profile;
    if (g.rounds < ROUNDS && p.recoveryHelps(g.followCode, g.planCode)) {
      const what = ROUND_ROBIN[g.next]!;
      g.next = (g.next + 1) % ROUND_ROBIN.length;
      g.phase = { k: 'recover', what, start: this.host.mapPose(), started_s: this.host.time_s };
      if (what === 'clear') {
        this.host.clear('local');
        this.host.clear('global');
        g.recoveries += 2;
      } else {
        this.behaviours.push({ what, at_s: this.host.time_s });
        g.recoveries++;
      }
      return;
    }
    const codes = [g.followCode, g.planCode].filter((c) => c !== 0);
    g.ctl.abort(navigatorResult(p, codes.length > 0 ? Math.min(...codes) : 0));
    this.goal = null;
  }

  /** One loop of the running behaviour; when it is done, the next round of the pipeline. */
  private recover(g: Goal, dt_s: number): Command {
    const ph = g.phase as Extract<Phase, { k: 'recover' }>;
    const t = this.host.time_s - ph.started_s;
    const now = this.host.mapPose() ?? ph.start;
    let cmd: Command | null = null;
    if (ph.what === 'spin' && t < SPIN_DIST_RAD / SPIN_RAD_S)
      cmd = { vx: 0, vy: 0, wz: Math.min(SPIN_RAD_S, (SPIN_DIST_RAD - t * SPIN_RAD_S) / dt_s) };
    if (ph.what === 'wait' && t < WAIT_S) cmd = STOP;
    if (ph.what === 'backup') {
      const speed = this.host.profile.backupSpeed_m_s;
      if (t < BACKUP_M / speed) {
        const yaw = now?.yaw ?? 0;
        cmd = { vx: -Math.cos(yaw) * speed, vy: -Math.sin(yaw) * speed, wz: 0 };
      }
    }
    if (cmd !== null) return cmd;
    g.rounds++;
    g.phase = { k: 'plan', until_s: this.host.time_s + PLANNING_S, retried: false };
    return STOP;
  }

  private feedback(g: Goal): void {
    const p = this.host.profile;
    const pose = this.host.mapPose();
    if (pose === null && !p.feedbackWithoutPose) return;
    const at = pose ?? { x: 0, y: 0, yaw: 0 };
    let remaining = 0;
    const path = g.path;
    if (path !== null) {
      const c = path.corners[path.index]!;
      remaining = Math.hypot(c.x - at.x, c.y - at.y);
      for (let i = path.index + 1; i < path.corners.length; i++)
        remaining += Math.hypot(
          path.corners[i]!.x - path.corners[i - 1]!.x,
          path.corners[i]!.y - path.corners[i - 1]!.y,
        );
    }
    const t = this.host.time_s - g.started_s;
    const stamp = { sec: Math.floor(this.host.time_s), nanosec: 0 };
    g.ctl.feedback({
      // nav2_util getCurrentPose: the identity in the base frame when the transform fails.
      current_pose: {
        header: { frame_id: pose === null ? 'base_link' : 'map', stamp },
        pose: {
          position: { x: at.x, y: at.y, z: 0 },
          orientation: { x: 0, y: 0, z: Math.sin(at.yaw / 2), w: Math.cos(at.yaw / 2) },
        },
      },
      navigation_time: { sec: Math.floor(t), nanosec: Math.round((t % 1) * 1e9) },
      estimated_time_remaining: { sec: 0, nanosec: 0 },
      number_of_recoveries: g.recoveries,
      distance_remaining: remaining,
      ...(g.action === '/navigate_through_poses' ? { number_of_poses_remaining: this.posesRemaining(g, at) } : {}),
    });
  }

  /** Poses not yet passed (RemovePassedGoals: within radius 0.7 m of the robot, the last one kept). */
  private posesRemaining(g: Goal, at: Pose2): number {
    while (g.passed < g.poses.length - 1 && Math.hypot(g.poses[g.passed]!.x - at.x, g.poses[g.passed]!.y - at.y) < 0.7)
      g.passed++;
    return g.poses.length - g.passed;
  }
}
