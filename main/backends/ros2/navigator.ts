/**
 * Goals to Nav2's navigators (nav2_msgs/action/NavigateToPose and NavigateThroughPoses) as Witness
 * reads them, from navigation2's humble and jazzy branches (nav2_bt_navigator, nav2_behavior_tree):
 *
 * - Feedback. distance_remaining (and estimated_time_remaining) is 0 until the behaviour tree holds
 *   a path — before the first plan, after a failed one — so a 0 before any other value in a goal is
 *   unknown, not "arrived". On Humble, feedback goes on while the robot's pose is unavailable, with
 *   current_pose the identity in the robot's base frame: that feedback says nothing of the robot
 *   (Jazzy sends none then).
 * - Results. Jazzy's carry error_code (the most urgent of the planner's and the controller's) and an
 *   error_msg it never fills in; Humble's carry nothing. An abort without a code means one of: Humble;
 *   Jazzy's navigator could not read the robot's pose or transform the goal into its global frame;
 *   another navigator was running a goal (Nav2 runs one at a time and aborts the newcomer); the
 *   behaviour tree did not load. Before giving up, the default tree runs up to six recovery rounds
 *   (costmap clears, Spin 1.57 rad, Wait 5 s, BackUp 0.30 m): the last feedback's
 *   number_of_recoveries says how many ran.
 * - Refusals. A navigator whose lifecycle node is not active keeps its action server in the graph and
 *   rejects every goal.
 */
import { WorldError } from '../../core/world/world.js';
import { nav2ErrorName } from './nav2.js';

export const NAVIGATOR_TYPES: ReadonlySet<string> = new Set([
  'nav2_msgs/action/NavigateToPose',
  'nav2_msgs/action/NavigateThroughPoses',
]);

/** Feedback fields that mean nothing until the tree holds a path. */
const PATH_FIELDS = /^(distance_remaining|estimated_time_remaining)(\.|$)/;
/** Feedback fields that mean nothing while the robot's pose is unavailable. */
const POSE_FIELDS = /^current_pose(\.|$)/;

/** One navigator goal's feedback, read in order. */
export class NavigatorFeedback {
  private pathSeen = false;
  /** The last number_of_recoveries reported. */
  recoveries = 0;

  constructor(private readonly baseFrame: string) {}

  /** Which of this message's fields say something: the path's (distance, time) and the pose's. */
  read(fb: unknown): { readonly path: boolean; readonly pose: boolean } {
    const f = (fb ?? {}) as {
      distance_remaining?: unknown;
      current_pose?: { header?: { frame_id?: unknown } };
      number_of_recoveries?: unknown;
    };
    const frame =
      typeof f.current_pose?.header?.frame_id === 'string' ? f.current_pose.header.frame_id.replace(/^\/+/, '') : null;
    const pose = frame === null || frame !== this.baseFrame;
    if (typeof f.number_of_recoveries === 'number') this.recoveries = f.number_of_recoveries;
    if (pose && typeof f.distance_remaining === 'number' && f.distance_remaining > 0) this.pathSeen = true;
    return { path: pose && this.pathSeen, pose };
  }

  /** Whether a message field (a dotted path in the feedback) says something, given read()'s verdict. */
  static meaningful(path: string, v: { readonly path: boolean; readonly pose: boolean }): boolean {
    if (!v.pose && (POSE_FIELDS.test(path) || PATH_FIELDS.test(path))) return false;
    return v.path || !PATH_FIELDS.test(path);
  }
}

/** The error code quoted in a failure's text ("error_code":N), or null. */
function quotedCode(detail: string): number | null {
  const m = /"error_code":(\d+)/.exec(detail);
  return m === null ? null : Number(m[1]);
}

/**
 * A navigator's failure in Nav2's terms: the code named, or why there is none; the recoveries it ran; why a goal was
 * rejected.
 */
export function explainNavigatorFailure(e: unknown, action: string, recoveries: number): unknown {
  if (!(e instanceof WorldError)) return e;
  const ran =
    recoveries > 0 ? `; Nav2 ran ${recoveries} recovery action(s) first (costmap clears, spins, back-ups, waits)` : '';
  if (e.kind === 'rejected') {
    return new WorldError(
      'rejected',
      e.world,
      `${e.detail}: a Nav2 navigator rejects every goal while its lifecycle node is not active (\`witness ros2 check\` says; \`ros2 lifecycle get ${lifecycleNodeOf(action) ?? '<node>'}\`)`,
    );
  }
  if (e.kind !== 'aborted') return e;
  const code = quotedCode(e.detail);
  const why =
    code !== null && code !== 0
      ? `Nav2's error_code ${code}: ${nav2ErrorName(code)}`
      : "Nav2 gave no error code: Humble's results carry none; Jazzy's navigator aborts without one when it cannot read the robot's pose or transform the goal into its global frame, or when another navigator is running a goal (Nav2 runs one at a time)";
  return new WorldError('aborted', e.world, `${e.detail} (${why}${ran})`);
}

/**
 * The lifecycle node that serves a Nav2 action, by Nav2's own names (nav2_bringup): the action's
 * namespace plus bt_navigator, planner_server, controller_server or behavior_server; null for an
 * action Nav2 does not serve by that name.
 */
export function lifecycleNodeOf(action: string): string | null {
  const name = action.replace(/\/+$/, '');
  const i = name.lastIndexOf('/');
  const ns = i <= 0 ? '' : name.slice(0, i),
    leaf = name.slice(i + 1);
  const node = (
    {
      navigate_to_pose: 'bt_navigator',
      navigate_through_poses: 'bt_navigator',
      compute_path_to_pose: 'planner_server',
      compute_path_through_poses: 'planner_server',
      follow_path: 'controller_server',
      spin: 'behavior_server',
      backup: 'behavior_server',
      drive_on_heading: 'behavior_server',
      wait: 'behavior_server',
      smooth_path: 'smoother_server',
      follow_waypoints: 'waypoint_follower',
    } as Readonly<Record<string, string>>
  )[leaf];
  return node === undefined ? null : `${ns}/${node}`;
}

/** The frame_id of each pose a navigator goal carries (pose, or poses[]). */
export function goalFrames(goal: Record<string, unknown>): string[] {
  const frame = (p: unknown): string => {
    const f = (p as { header?: { frame_id?: unknown } } | null)?.header?.frame_id;
    return typeof f === 'string' ? f.replace(/^\/+/, '') : '';
  };
  if (Array.isArray(goal['poses'])) return (goal['poses'] as unknown[]).map(frame);
  return goal['pose'] !== undefined ? [frame(goal['pose'])] : [];
}
