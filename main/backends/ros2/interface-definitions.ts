/**
 * The ROS 2 interface definitions of the packages Witness's configurations and the simulated graph
 * use that @foxglove/rosmsg-msgs-common does not carry (it has geometry_msgs, nav_msgs, sensor_msgs,
 * std_msgs, tf2_msgs, builtin_interfaces, action_msgs per distribution). Copied from the packages'
 * own sources, field lines verbatim (comments dropped), per distribution where they differ:
 *
 * - nav2_msgs: github.com/ros-navigation/navigation2, nav2_msgs/{action,msg,srv}/, branch humble at
 *   3c3db59d6969d8ecee8e68468693d006397f4a0c and branch jazzy at f4108e5b1c2bce804a1aa0c7be6673a8eb4a1501.
 * - control_msgs: github.com/ros-controls/control_msgs, control_msgs/{action,msg}/GripperCommand.*,
 *   branch humble at 2e31e46d714819e669e2c3645802df9a9ebd1b43 and branch jazzy at
 *   f901df2662f22a39a06aa04a85a34602c47e3cc0 (the same on both).
 * - std_srvs: github.com/ros2/common_interfaces, std_srvs/srv/, branch humble at
 *   53761cba9a000902602e7e695cb40de78eadee7f and branch jazzy at 5283bd97b33584eb2246fc6134b2e948027e1c3c.
 * - lifecycle_msgs: github.com/ros2/rcl_interfaces, lifecycle_msgs/{msg/State.msg,srv/GetState.srv},
 *   branch humble at 5e01a28f9866a564491480e12d8659a134678741 and branch jazzy at
 *   003987ecb81a32802ab27dd6d325b8c6b8b813cc (the same on both; the package-relative `State` qualified).
 *
 * Sections of an action (goal, result, feedback) and of a service (request, response) are separated
 * by `---`, as in the .action and .srv files.
 */

export interface InterfaceText {
  readonly humble: string;
  readonly jazzy: string;
}

const same = (text: string): InterfaceText => ({ humble: text, jazzy: text });

const NAV_FEEDBACK = `geometry_msgs/PoseStamped current_pose
builtin_interfaces/Duration navigation_time
builtin_interfaces/Duration estimated_time_remaining
int16 number_of_recoveries
float32 distance_remaining`;

/** Jazzy's results of NavigateToPose and NavigateThroughPoses (Humble's: std_msgs/Empty result). */
const NAV_RESULT_JAZZY = `uint16 NONE=0
uint16 error_code
string error_msg`;

export const INTERFACE_TEXTS: Readonly<Record<string, InterfaceText>> = {
  'nav2_msgs/action/NavigateToPose': {
    humble: `geometry_msgs/PoseStamped pose\nstring behavior_tree\n---\nstd_msgs/Empty result\n---\n${NAV_FEEDBACK}`,
    jazzy: `geometry_msgs/PoseStamped pose\nstring behavior_tree\n---\n${NAV_RESULT_JAZZY}\n---\n${NAV_FEEDBACK}`,
  },
  'nav2_msgs/action/NavigateThroughPoses': {
    humble: `geometry_msgs/PoseStamped[] poses\nstring behavior_tree\n---\nstd_msgs/Empty result\n---\n${NAV_FEEDBACK}\nint16 number_of_poses_remaining`,
    jazzy: `geometry_msgs/PoseStamped[] poses\nstring behavior_tree\n---\n${NAV_RESULT_JAZZY}\n---\n${NAV_FEEDBACK}\nint16 number_of_poses_remaining`,
  },
  'nav2_msgs/action/ComputePathToPose': {
    humble: `geometry_msgs/PoseStamped goal
geometry_msgs/PoseStamped start
string planner_id
bool use_start
---
nav_msgs/Path path
builtin_interfaces/Duration planning_time
---
`,
    jazzy: `geometry_msgs/PoseStamped goal
geometry_msgs/PoseStamped start
string planner_id
bool use_start
---
uint16 NONE=0
uint16 UNKNOWN=200
uint16 INVALID_PLANNER=201
uint16 TF_ERROR=202
uint16 START_OUTSIDE_MAP=203
uint16 GOAL_OUTSIDE_MAP=204
uint16 START_OCCUPIED=205
uint16 GOAL_OCCUPIED=206
uint16 TIMEOUT=207
uint16 NO_VALID_PATH=208
nav_msgs/Path path
builtin_interfaces/Duration planning_time
uint16 error_code
string error_msg
---
`,
  },
  'nav2_msgs/msg/CostmapFilterInfo': same(`std_msgs/Header header
uint8 type
string filter_mask_topic
float32 base
float32 multiplier`),
  'nav2_msgs/srv/ClearEntireCostmap': same('std_msgs/Empty request\n---\nstd_msgs/Empty response'),
  'control_msgs/action/GripperCommand': same(`control_msgs/GripperCommand command
---
float64 position
float64 effort
bool stalled
bool reached_goal
---
float64 position
float64 effort
bool stalled
bool reached_goal`),
  'control_msgs/msg/GripperCommand': same('float64 position\nfloat64 max_effort'),
  'lifecycle_msgs/msg/State': same(`uint8 PRIMARY_STATE_UNKNOWN = 0
uint8 PRIMARY_STATE_UNCONFIGURED = 1
uint8 PRIMARY_STATE_INACTIVE = 2
uint8 PRIMARY_STATE_ACTIVE = 3
uint8 PRIMARY_STATE_FINALIZED = 4
uint8 TRANSITION_STATE_CONFIGURING = 10
uint8 TRANSITION_STATE_CLEANINGUP = 11
uint8 TRANSITION_STATE_SHUTTINGDOWN = 12
uint8 TRANSITION_STATE_ACTIVATING = 13
uint8 TRANSITION_STATE_DEACTIVATING = 14
uint8 TRANSITION_STATE_ERRORPROCESSING = 15
uint8 id
string label`),
  'lifecycle_msgs/srv/GetState': same('---\nlifecycle_msgs/State current_state'),
  'std_srvs/srv/Empty': same('---\n'),
  'std_srvs/srv/Trigger': same('---\nbool success\nstring message'),
};
