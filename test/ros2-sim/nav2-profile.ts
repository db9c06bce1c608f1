/**
 * TEST CODE — what differs between the Nav2 of ROS 2 Humble and of ROS 2 Jazzy, as the simulated
 * ROS 2 graph reproduces it: two profiles of the stand-in, each read from navigation2's `humble` and
 * `jazzy` branches (paths below are in github.com/ros-navigation/navigation2).
 *
 * - Results. Humble's NavigateToPose, NavigateThroughPoses and ComputePathToPose results carry no
 *   error code (nav2_msgs/action/*.action: `std_msgs/Empty result`; ComputePathToPose: path and
 *   planning_time only), and its planner server aborts with an empty result
 *   (nav2_planner/src/planner_server.cpp computePlan: `terminate_current()`). Jazzy's carry
 *   `uint16 error_code` and `string error_msg` (ComputePathToPose 200–208, ComputePathThroughPoses
 *   300–309, FollowPath 100–107); error_msg is declared but never filled in (no `error_msg` in
 *   nav2_planner, nav2_controller or nav2_bt_navigator on the jazzy branch). A navigator's result
 *   takes the smallest non-zero of the blackboard's `follow_path_error_code` and
 *   `compute_path_error_code` (nav2_behavior_tree/include/nav2_behavior_tree/bt_action_server_impl.hpp
 *   populateErrorCode; error_code_names in nav2_bringup/params/nav2_params.yaml).
 * - Recoveries. Both run nav2_bt_navigator/behavior_trees/navigate_to_pose_w_replanning_and_recovery.xml
 *   (and navigate_through_poses_…): RecoveryNode number_of_retries="6" around the planning and
 *   following pipeline, a context ClearEntireCostmap after a failed plan (global) or a failed
 *   FollowPath (local), then a RoundRobin of [clear local + global costmaps, Spin spin_dist 1.57,
 *   Wait 5 s, BackUp backup_dist 0.30]. Humble runs the recoveries for any failure and backs up at
 *   backup_speed 0.05 m/s; Jazzy only when WouldAPlannerRecoveryHelp (UNKNOWN, NO_VALID_PATH,
 *   TIMEOUT) or WouldAControllerRecoveryHelp (UNKNOWN, PATIENCE_EXCEEDED, FAILED_TO_MAKE_PROGRESS,
 *   NO_VALID_CONTROL) holds (nav2_behavior_tree/plugins/condition/would_a_*_recovery_help_condition.cpp),
 *   and backs up at 0.15 m/s. Every ClearEntireCostmap, Spin, Wait and BackUp adds one to
 *   number_of_recoveries (nav2_behavior_tree/plugins/action/*: increment_recovery_count).
 * - Accepting a goal. Jazzy's navigator transforms the goal into its global frame and needs the
 *   robot's pose when the goal arrives, and aborts the goal (no error code: Kilted adds TF_ERROR
 *   9002) when either fails (nav2_bt_navigator/src/navigators/navigate_to_pose.cpp
 *   initializeGoalPose). Humble's takes the goal as it is (same file on humble): its planner server
 *   then cannot transform it or find the robot and aborts, and the recoveries run.
 * - Feedback. Jazzy sends none while the robot's pose is unavailable (onLoop returns early);
 *   Humble sends it with current_pose the identity in the robot's base frame (nav2_util
 *   getCurrentPose fills it before the failed transform). Both leave distance_remaining 0 until the
 *   blackboard holds a path (Jazzy: `current_path.poses.size() == 0u` throws; Humble: the length of
 *   an empty path).
 */

import type { Distro } from '../../main/backends/ros2/interfaces.js';

/**
 * The profiles every test that depends on Nav2's behaviour runs on: the distributions whose interface definitions the
 * rclnodejs double speaks.
 */
export { type Distro, DISTROS } from '../../main/backends/ros2/interfaces.js';

/** nav2_msgs/action/ComputePathToPose.action (jazzy). */
const PLAN = {
  UNKNOWN: 200,
  INVALID_PLANNER: 201,
  TF_ERROR: 202,
  START_OUTSIDE_MAP: 203,
  GOAL_OUTSIDE_MAP: 204,
  START_OCCUPIED: 205,
  GOAL_OCCUPIED: 206,
  TIMEOUT: 207,
  NO_VALID_PATH: 208,
} as const;
/** nav2_msgs/action/FollowPath.action (jazzy). */
export const FOLLOW = {
  UNKNOWN: 100,
  INVALID_CONTROLLER: 101,
  TF_ERROR: 102,
  INVALID_PATH: 103,
  PATIENCE_EXCEEDED: 104,
  FAILED_TO_MAKE_PROGRESS: 105,
  NO_VALID_CONTROL: 106,
  CONTROLLER_TIMED_OUT: 107,
} as const;
/**
 * ComputePathThroughPoses's codes are ComputePathToPose's plus 100 (nav2_msgs/action/ComputePathThroughPoses.action,
 * jazzy).
 */
export const THROUGH_OFFSET = 100;

/** nav2_controller/plugins/simple_goal_checker.cpp: xy_goal_tolerance, yaw_goal_tolerance (stateful). */
export const GOAL_CHECKER = { xy_m: 0.25, yaw_rad: 0.25 } as const;
/** nav2_controller/plugins/simple_progress_checker.cpp: required_movement_radius in movement_time_allowance. */
export const PROGRESS_CHECKER = { radius_m: 0.5, allowance_s: 10 } as const;
/** nav2_amcl/src/amcl_node.cpp: transform_tolerance (the map → odom stamp is the scan's plus this). */
export const AMCL_TRANSFORM_TOLERANCE_S = 1.0;
/** nav2_behaviors: max_rotational_vel (nav2_params.yaml behavior_server, both branches). */
export const SPIN_RAD_S = 1.0;

export interface Nav2Profile {
  readonly distro: Distro;
  /** Results carry error_code and error_msg. */
  readonly errorCodes: boolean;
  /** BackUp's backup_speed in the default behaviour trees, m/s. */
  readonly backupSpeed_m_s: number;
  /** The navigator transforms the goal and reads the robot's pose when the goal arrives, aborting it when it cannot. */
  readonly checksGoalOnArrival: boolean;
  /** Feedback is sent while the robot's pose is unavailable (current_pose the identity in the base frame). */
  readonly feedbackWithoutPose: boolean;
  /** Whether a recovery round runs after the pipeline failed with these codes (0: none set). */
  recoveryHelps(followCode: number, planCode: number): boolean;
  /** Whether the context ClearEntireCostmap after a failed plan or FollowPath runs. */
  contextClearHelps(kind: 'plan' | 'follow', code: number): boolean;
}

const PLANNER_HELPS = new Set<number>([
  PLAN.UNKNOWN,
  PLAN.NO_VALID_PATH,
  PLAN.TIMEOUT,
  PLAN.UNKNOWN + THROUGH_OFFSET,
  PLAN.NO_VALID_PATH + THROUGH_OFFSET,
  PLAN.TIMEOUT + THROUGH_OFFSET,
]);
const CONTROLLER_HELPS = new Set<number>([
  FOLLOW.UNKNOWN,
  FOLLOW.PATIENCE_EXCEEDED,
  FOLLOW.FAILED_TO_MAKE_PROGRESS,
  FOLLOW.NO_VALID_CONTROL,
]);

export const PROFILES: Readonly<Record<Distro, Nav2Profile>> = {
  humble: {
    distro: 'humble',
    errorCodes: false,
    backupSpeed_m_s: 0.05,
    checksGoalOnArrival: false,
    feedbackWithoutPose: true,
    recoveryHelps: () => true,
    contextClearHelps: () => true,
  },
  jazzy: {
    distro: 'jazzy',
    errorCodes: true,
    backupSpeed_m_s: 0.15,
    checksGoalOnArrival: true,
    feedbackWithoutPose: false,
    recoveryHelps: (follow, plan) => CONTROLLER_HELPS.has(follow) || PLANNER_HELPS.has(plan),
    contextClearHelps: (kind, code) => (kind === 'plan' ? PLANNER_HELPS : CONTROLLER_HELPS).has(code),
  },
};

const ZERO = { sec: 0, nanosec: 0 };

/**
 * A navigator's result (NavigateToPose, NavigateThroughPoses): Humble's std_msgs/Empty, Jazzy's code (error_msg never
 * filled in).
 */
export function navigatorResult(p: Nav2Profile, code: number): Record<string, unknown> {
  return p.errorCodes ? { error_code: code, error_msg: '' } : { result: { structure_needs_at_least_one_member: 0 } };
}

/** A ComputePathToPose result: the path, and on Jazzy the error code (0 on success). */
export function planResult(p: Nav2Profile, header: unknown, poses: unknown[], code: number): Record<string, unknown> {
  const base = { path: { header, poses }, planning_time: code === 0 ? { sec: 0, nanosec: 1000 } : ZERO };
  return p.errorCodes ? { ...base, error_code: code, error_msg: '' } : base;
}
