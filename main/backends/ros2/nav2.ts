/**
 * Nav2's messages as a map mission sends and reads them, checked against navigation2's sources
 * (nav2_msgs, nav2_costmap_2d's keepout filter, nav2_planner's planner server; Humble to Rolling):
 *
 * - The keepout mask is a nav_msgs/msg/OccupancyGrid: the keepout filter reads a cell's value v as
 *   the cost round(v × 254 / 100) (costmap_filter.cpp getMaskCost), so 100 is LETHAL_OBSTACLE and 0
 *   free, -1 no information; a cell is written only where that cost exceeds the costmap's own.
 *   Costmap cells are looked up at their centres: worldToMask floors (x − origin) / resolution.
 * - nav2_msgs/msg/CostmapFilterInfo names the mask topic; the keepout filter wants type 0
 *   (KEEPOUT_FILTER), base 0 and multiplier 1 (filter_values.hpp: it logs an error otherwise).
 *   Both are published reliable and transient-local with depth 1, as the filter subscribes.
 * - nav2_msgs/action/ComputePathToPose: goal {goal, start, planner_id, use_start} in every
 *   distribution (Rolling adds viapoints, left empty); the result's path is a nav_msgs/msg/Path.
 *   A failed request is ABORTED, from Jazzy with error_code and error_msg (Humble has neither).
 *   ComputePathThroughPoses is not used: its goals field changed type (PoseStamped[] up to Jazzy,
 *   nav_msgs/Goals after), and the planner server computes it piece by piece anyway.
 */
import type { KeepoutGrid, Pose } from '../../core/world/world.js';

/** nav2_costmap_2d/costmap_filters/filter_values.hpp: KEEPOUT_FILTER. */
const KEEPOUT_FILTER = 0;

/**
 * Nav2's result error codes (nav2_msgs/action/*.action, Jazzy): each action its own hundred — a
 * navigator's result carries the most urgent of its planner's and controller's (the smallest non-zero
 * of the behaviour tree's compute_path_error_code and follow_path_error_code). Kilted gives the
 * navigators codes of their own (9000–9003). Humble's results carry none.
 */
const ERROR_CODES: Readonly<Record<number, readonly [string, string]>> = (() => {
  const out: Record<number, readonly [string, string]> = {};
  const add = (action: string, first: number, names: readonly string[]): void =>
    names.forEach((n, i) => {
      out[first + i] = [action, n];
    });
  const planner = [
    'UNKNOWN',
    'INVALID_PLANNER',
    'TF_ERROR',
    'START_OUTSIDE_MAP',
    'GOAL_OUTSIDE_MAP',
    'START_OCCUPIED',
    'GOAL_OCCUPIED',
    'TIMEOUT',
    'NO_VALID_PATH',
  ];
  add('FollowPath', 100, [
    'UNKNOWN',
    'INVALID_CONTROLLER',
    'TF_ERROR',
    'INVALID_PATH',
    'PATIENCE_EXCEEDED',
    'FAILED_TO_MAKE_PROGRESS',
    'NO_VALID_CONTROL',
    'CONTROLLER_TIMED_OUT',
  ]);
  add('ComputePathToPose', 200, planner);
  add('ComputePathThroughPoses', 300, [...planner, 'NO_VIAPOINTS_GIVEN']);
  add('SmoothPath', 500, [
    'UNKNOWN',
    'INVALID_SMOOTHER',
    'TIMEOUT',
    'SMOOTHED_PATH_IN_COLLISION',
    'FAILED_TO_SMOOTH_PATH',
    'INVALID_PATH',
  ]);
  add('Spin', 700, ['UNKNOWN', 'TIMEOUT', 'TF_ERROR', 'COLLISION_AHEAD']);
  add('BackUp', 710, ['UNKNOWN', 'TIMEOUT', 'TF_ERROR', 'INVALID_INPUT', 'COLLISION_AHEAD']);
  add('navigator', 9000, ['UNKNOWN', 'FAILED_TO_LOAD_BEHAVIOR_TREE', 'TF_ERROR', 'TIMEOUT']);
  // Rolling's ComputePathToPose adds the behaviour tree node's own.
  out[1] = ['ComputePathToPose', 'GOAL_REJECTED'];
  out[2] = ['ComputePathToPose', 'SEND_GOAL_FAILURE'];
  return out;
})();

/** "FollowPath PATIENCE_EXCEEDED" for 104; "error 42" for a code Nav2 does not define. */
export function nav2ErrorName(code: number): string {
  const c = ERROR_CODES[code];
  return c === undefined ? `error ${code}` : `${c[0]} ${c[1]}`;
}

/** The name of a ComputePathToPose error code quoted in a message, when there is one. */
export function pathErrorName(text: string): string | null {
  const code = /"error_code":(\d+)/.exec(text)?.[1];
  if (code === undefined || code === '0') return null;
  const c = ERROR_CODES[Number(code)];
  return c === undefined ? `error ${code}` : c[1];
}

const ZERO = { sec: 0, nanosec: 0 };

/** A geometry_msgs/msg/PoseStamped (stamp zero: the latest transform). */
export function poseStamped(frame: string, p: Pose): Record<string, unknown> {
  const yaw = p.yaw ?? 0;
  return {
    header: { frame_id: frame, stamp: ZERO },
    pose: {
      position: { x: p.x, y: p.y, z: 0 },
      orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
    },
  };
}

export function occupancyGrid(frame: string, g: KeepoutGrid): Record<string, unknown> {
  return {
    header: { frame_id: frame, stamp: ZERO },
    info: {
      map_load_time: ZERO,
      resolution: g.resolution_m,
      width: g.width,
      height: g.height,
      origin: { position: { x: g.originX, y: g.originY, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    },
    data: g.data,
  };
}

export function costmapFilterInfo(frame: string, maskTopic: string): Record<string, unknown> {
  return {
    header: { frame_id: frame, stamp: ZERO },
    type: KEEPOUT_FILTER,
    filter_mask_topic: maskTopic,
    base: 0,
    multiplier: 1,
  };
}

export function computePathGoal(frame: string, from: Pose, to: Pose, plannerId: string): Record<string, unknown> {
  return { goal: poseStamped(frame, to), start: poseStamped(frame, from), planner_id: plannerId, use_start: true };
}

/** The poses of a ComputePathToPose result's path, or why it is not one. */
export function pathPoses(result: unknown): { ok: true; poses: Pose[] } | { ok: false; why: string } {
  const poses = (result as { path?: { poses?: unknown } } | null)?.path?.poses;
  if (!Array.isArray(poses)) return { ok: false, why: 'the result has no path.poses' };
  const out: Pose[] = [];
  for (const [i, p] of poses.entries()) {
    const pos = (p as { pose?: { position?: { x?: unknown; y?: unknown } } } | null)?.pose?.position;
    const x = Number(pos?.x),
      y = Number(pos?.y);
    if (!Number.isFinite(x) || !Number.isFinite(y))
      return { ok: false, why: `path.poses[${i}] has no finite pose.position` };
    out.push({ x, y });
  }
  if (out.length === 0) return { ok: false, why: 'the path is empty' };
  return { ok: true, poses: out };
}
