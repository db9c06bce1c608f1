/**
 * The world as every workflow sees it: one `World` with two small capabilities that compose. A
 * navigation world (the point mazes; a ROS 2 robot) has a pose in the task space and low-level
 * control: missions plan over its map and drive it step by step, and the task's label function is
 * evaluated on its pose. A tool world (the tabletop; a ROS 2 robot's actions and services) has
 * skills and sensors: the tool loop executes typed calls on it and verifies them against what it
 * observes. A world may have both. Every call is asynchronous and fallible on purpose: a real robot
 * times out, is cancelled and fails, so every call can reject with a WorldError saying which.
 *
 * Workflows name no concrete world: they open one by id through the world catalogue
 * (backends/catalogue.ts) and use these interfaces.
 */
import { WitnessError, type ErrorCode } from '../../contract/errors.js';
import type { Vocabulary } from '../loop/vocabulary.js';
import type { WorldState } from '../loop/conditions.js';
import type { Rng } from '../random/rng.js';

/** A named vector space: dimension, per-dimension names, bounds where they exist. */
interface VectorSpec {
  readonly dim: number;
  readonly names: readonly string[];
  readonly low?: readonly number[];
  readonly high?: readonly number[];
}

export interface WorldSpec {
  /** Stable id, e.g. `pointmaze-medium`. */
  readonly id: string;
  readonly backend: 'mujoco' | 'ros2';
  readonly description: string;
  /** What the low-level policy reads (navigation worlds). */
  readonly observation: VectorSpec;
  /** What the low-level policy writes; dim 0 for a world driven only through its skills. */
  readonly action: VectorSpec;
  /** Task space X of the projection Π: S → X (for a maze, the agent's x and y). */
  readonly taskSpace: VectorSpec;
  /** Seconds of world time per control step. */
  readonly control_dt_s: number;
}

export interface CallOptions {
  /** Give up after this long; the call rejects with WorldError 'timeout'. */
  readonly timeout_s?: number;
  /** Abort to cancel; the call rejects with WorldError 'cancelled'. */
  readonly signal?: AbortSignal;
}

/** Where the robot is in the task space (metres; yaw in radians where the world knows it). */
export interface Pose {
  readonly x: number;
  readonly y: number;
  readonly yaw?: number;
  readonly frame?: string;
}

/** What a navigation world observed after a reset or a step. */
export interface NavState {
  /** The policy's observation vector (layout: spec.observation). */
  readonly observation: Float64Array;
  readonly pose: Pose;
  /** World time, s. */
  readonly time_s: number;
}

/**
 * The free space of a world's task space, known without opening the world: where a start may be,
 * how to draw one at random, and the rectangle pictures show.
 */
export interface WorldMap {
  readonly bounds: { readonly minX: number; readonly minY: number; readonly maxX: number; readonly maxY: number };
  /** Why (x, y) cannot be a start (outside the map, inside a wall), or null when it can. */
  blocked(x: number, y: number): string | null;
  /** A free point, from the generator (the same seed gives the same point). */
  randomFree(rng: Rng): [number, number];
  /**
   * Metres from (x, y) to the nearest obstacle (0 inside one), where the map knows its obstacles: the executor keeps a
   * legged body off walls.
   */
  clearance?(x: number, y: number): number;
}

/** Moving through the task space: missions. */
export interface Navigation {
  readonly map: WorldMap;
  /** The observation of the robot standing still at (x, y): what ψ embeds for a position (anchors, starts). */
  readonly restObservation: (x: number, y: number) => Float32Array;
  /** What is observed now, without acting (where a robot is before a mission). */
  observe(o?: CallOptions): Promise<NavState>;
  /** Starts at `start` (task-space x, y) when given, else where the world starts; seeded. */
  reset(o: CallOptions & { readonly seed: number; readonly start?: readonly [number, number] }): Promise<NavState>;
  /** Applies one low-level action for control_dt_s and returns what was observed after it. */
  step(action: ArrayLike<number>, o?: CallOptions): Promise<NavState>;
  /**
   * Why the body can no longer move on its own from this state (a legged robot on its back), or
   * null; absent for bodies that cannot fall. A mission ends there with an 'overturned' failure.
   */
  fallen?(state: NavState): string | null;
}

/**
 * A keepout mask for the robot's own planner (nav_msgs/OccupancyGrid's layout and values): `width` ×
 * `height` cells of `resolution_m` from (originX, originY) in the map frame, row-major from the lower
 * left; 100 keeps a cell out, 0 leaves it to the planner's other layers.
 */
export interface KeepoutGrid {
  readonly originX: number;
  readonly originY: number;
  readonly resolution_m: number;
  readonly width: number;
  readonly height: number;
  readonly data: Int8Array;
}

/**
 * Going to poses through the robot's own navigation stack (Nav2's NavigateToPose, or
 * NavigateThroughPoses for a run of waypoints): missions planned on a map's labelled graph, with no
 * learned policy. The robot plans its own path between poses; the mission watches the pose.
 */
export interface Waypoints {
  /** The task-space rectangle the robot works in (start checks). */
  readonly map: WorldMap;
  /** How many poses one goal may carry (1 without a through-poses action). */
  readonly maxPoses: number;
  /** Seconds between pose samples while a goal runs. */
  readonly poll_s: number;
  /** The robot's own figures for a mission's goals (its configuration's; the driver's defaults otherwise). */
  readonly limits?: {
    readonly goalTimeout_s: number;
    readonly minSpeed_m_s: number;
    readonly reach_m: number;
    readonly maxLink_m: number;
    readonly goalTolerance_m?: number;
  };
  /** Where the robot is now (map frame); a WorldError when the pose is stale or unknown. */
  pose(o?: CallOptions): Promise<Pose>;
  /**
   * Drives through the poses in order as one goal; resolves when the last is reached. Rejects with a
   * WorldError: 'aborted' or 'rejected' (the robot's navigation gave up or refused), 'timeout' (our
   * deadline; the goal is cancelled first), 'cancelled' (the signal; the message says how the cancel
   * went), 'disconnected', 'not-found' (no action server).
   */
  go(
    poses: readonly Pose[],
    o: {
      readonly timeout_s: number;
      readonly signal: AbortSignal;
      readonly onFeedback?: (f: { readonly remaining: number | null; readonly distance_m: number | null }) => void;
    },
  ): Promise<void>;
  /**
   * The path the robot's planner would drive from `from` to `to` (Nav2's ComputePathToPose), without
   * moving: its poses in the map frame. Rejects with a WorldError: 'aborted' (the planner found no
   * path; the message quotes its error), 'timeout', 'cancelled', 'not-found' (no planner server).
   */
  planPath?(
    from: Pose,
    to: Pose,
    o: { readonly timeout_s?: number; readonly signal?: AbortSignal },
  ): Promise<readonly Pose[]>;
  /**
   * Keepout zones for the robot's planner (Nav2's keepout filter): the mask's resolution, and publishing it (latched);
   * `publish` says where it went.
   */
  readonly keepout?: { readonly resolution_m: number; publish(grid: KeepoutGrid): string };
}

/** Acting with typed skills and observing named fields: the tool loop. */
export interface Tools {
  /** What conditions and specifications may name: typed fields, objects, propositions, skills. */
  vocabulary(): Vocabulary;
  /** Starts an episode (a simulator's seeded reset; a robot's reset service, or just fresh sensors). */
  reset(o: CallOptions & { readonly seed: number }): Promise<WorldState>;
  /** The named fields now, from sensor evidence. */
  observe(): Promise<WorldState>;
  /** Runs a skill; it stops (and the call rejects) on the timeout or the signal. */
  execute(
    skill: string,
    args: unknown,
    o: { readonly timeout_s: number; readonly signal: AbortSignal },
  ): Promise<unknown>;
}

export interface World {
  readonly spec: WorldSpec;
  /** Present when missions can run on it. */
  readonly navigation?: Navigation;
  /** Present when the tool loop can run on it. */
  readonly tools?: Tools;
  /** Present when missions can run on a map's labelled graph through the robot's navigation stack. */
  readonly waypoints?: Waypoints;
  /** World time, s. */
  time_s(): number;
  /** Releases the simulator or the ROS 2 node; later calls fail with WorldError 'closed'. */
  close(): Promise<void>;
}

/**
 * Why a call failed. `rejected` and `aborted` are a robot's goal refused or given up by its server;
 * `disconnected` is a robot that stopped answering (no fresh sensor data, a shut-down middleware),
 * as opposed to `closed`, a world this process closed itself.
 */
export type WorldErrorKind =
  | 'timeout'
  | 'cancelled'
  | 'failed'
  | 'invalid-input'
  | 'closed'
  | 'not-found'
  | 'rejected'
  | 'aborted'
  | 'disconnected';

const CODE: Partial<Record<WorldErrorKind, ErrorCode>> = {
  'invalid-input': 'invalid-input',
  'not-found': 'not-found',
  cancelled: 'cancelled',
};

export class WorldError extends WitnessError {
  override readonly name = 'WorldError';
  constructor(
    readonly kind: WorldErrorKind,
    readonly world: string,
    readonly detail: string,
  ) {
    super(CODE[kind] ?? 'world', `${world}: ${kind}: ${detail}`);
  }
}

/** The navigation capability of a world, or a WorldError saying that missions cannot run on it. */
export function navigationOf(w: World): Navigation {
  if (w.navigation === undefined)
    throw new WorldError(
      'invalid-input',
      w.spec.id,
      'this world has no navigation (pose and low-level control): missions cannot run on it',
    );
  return w.navigation;
}

/** The waypoint capability of a world, or a WorldError saying that map missions cannot run on it. */
export function waypointsOf(w: World): Waypoints {
  if (w.waypoints === undefined)
    throw new WorldError(
      'invalid-input',
      w.spec.id,
      'this world has no navigation action (a "waypoints" section: Nav2 NavigateToPose): missions on a map graph cannot run on it',
    );
  return w.waypoints;
}

/** The tool capability of a world, or a WorldError saying that the tool loop cannot run on it. */
export function toolsOf(w: World): Tools {
  if (w.tools === undefined)
    throw new WorldError('invalid-input', w.spec.id, 'this world has no skills: the tool loop cannot run on it');
  return w.tools;
}
