/**
 * The ROS 2 backend configuration file: one TypeBox definition gives the JSON Schema (2020-12) the
 * file is validated with — published as docs/schemas/ros2-backend.schema.json (a test keeps the two
 * identical) — and the TypeScript type of what validation lets through (`Ros2ConfigFile`). It fixes
 * the shape; config.ts checks what a schema cannot say (unique names across sections, one value
 * source per goal field, sensors that exist) and names the JSON path, line and column of each problem.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { StringEnum, jsonSchema } from '../../contract/schema.js';

const ident = '[A-Za-z_][A-Za-z0-9_]*';
const ROS_NAME = `^[/~]?${ident}(/${ident})*$`;
/** A ROS graph name: absolute, relative or private (~), segments of letters, digits and _. */
const rosName = Type.String({ pattern: ROS_NAME });
const IFACE = (kind: 'action' | 'srv' | 'msg'): string => `^${ident}/${kind}/[A-Z][A-Za-z0-9]*$`;
const iface = (kind: 'action' | 'srv' | 'msg') =>
  Type.String({
    pattern: IFACE(kind),
    description: `a ROS 2 ${kind === 'srv' ? 'service' : kind === 'msg' ? 'message' : 'action'} type, e.g. ${kind === 'action' ? 'nav2_msgs/action/NavigateToPose' : kind === 'srv' ? 'std_srvs/srv/Trigger' : 'nav_msgs/msg/Odometry'}`,
  });
const positive = (description?: string) =>
  Type.Number({ exclusiveMinimum: 0, ...(description !== undefined ? { description } : {}) });
const selector = `(\\[(\\d+|${ident}=[^\\]]+)\\])?`;
const MESSAGE_PATH = `^${ident}${selector}(\\.${ident}${selector})*$`;
/**
 * A path into a message: fields by name, array elements by index or by a parallel name array
 * (position[name=finger_joint]).
 */
const messagePath = (description?: string) =>
  Type.String({ pattern: MESSAGE_PATH, ...(description !== undefined ? { description } : {}) });
/** A plain dotted path to a goal or request field. */
const GOAL_PATH = `^${ident}(\\.${ident})*$`;
/** A named field as verifiers and specifications read it: at least two dotted segments, e.g. gripper.width_cm. */
const FIELD_NAME = `^${ident}(\\.${ident})+$`;
const strict = { additionalProperties: false } as const;

/** A map from names matching `pattern` to `value` schemas (JSON Schema's propertyNames + additionalProperties). */
function NamedMap<T extends TSchema>(pattern: string, value: T, description?: string) {
  return Type.Unsafe<Record<string, Static<T>>>({
    type: 'object',
    ...(description !== undefined ? { description } : {}),
    propertyNames: { pattern },
    additionalProperties: value,
  });
}

export const FieldSpec = Type.Object(
  {
    path: messagePath(),
    type: Type.Optional(StringEnum(['number', 'string', 'bool'])),
    scale: Type.Optional(Type.Number()),
    offset: Type.Optional(Type.Number()),
    unit: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    ...strict,
    description: 'Where a named field comes from in a message, its type and unit conversion (value × scale + offset).',
  },
);
export type FieldSpec = Static<typeof FieldSpec>;

/**
 * Where a goal or request field's value comes from: exactly one of a tool argument (`arg`, with an
 * optional `default` and `scale`), a constant (`value`), or an orientation from a yaw argument.
 * The schema takes one object with those keys; config.ts checks that exactly one source is given.
 */
export const ValueSource = Type.Object(
  {
    arg: Type.Optional(Type.String({ minLength: 1 })),
    default: Type.Optional(Type.Unknown()),
    scale: Type.Optional(Type.Number()),
    value: Type.Optional(Type.Unknown()),
    yaw_to_quaternion: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    ...strict,
    minProperties: 1,
    description:
      'One of: {"arg": name, "default"?, "scale"?} a tool argument; {"value": v} a constant; {"yaw_to_quaternion": name} an orientation from a yaw argument in radians.',
  },
);
export type ValueSource = Static<typeof ValueSource>;

const Mapping = NamedMap(GOAL_PATH, ValueSource);

export const ContractCall = Type.Object(
  {
    skill: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    timeout_s: Type.Optional(positive()),
    after_s: Type.Optional(positive()),
  },
  strict,
);
export type ContractCall = Static<typeof ContractCall>;

const Service = Type.Object(
  {
    description: Type.Optional(Type.String()),
    service: Type.Union([rosName, Type.Array(rosName, { minItems: 1, maxItems: 16, uniqueItems: true })], {
      description:
        "the service, or several of the same type called in order, each to succeed (Nav2's behaviour tree clears the local costmap, then the global one)",
    }),
    type: iface('srv'),
    request: Type.Optional(Mapping),
    timeout_s: positive(),
    server_timeout_s: Type.Optional(positive()),
    success: Type.Optional(
      messagePath('A boolean response field: false makes the call fail (e.g. "success" of std_srvs/srv/Trigger).'),
    ),
    message: Type.Optional(messagePath('A string response field quoted in the failure (e.g. "message").')),
  },
  strict,
);

export const Qos = Type.Object(
  {
    reliability: Type.Optional(StringEnum(['reliable', 'best_effort'])),
    durability: Type.Optional(StringEnum(['volatile', 'transient_local'])),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  strict,
);

const ActionTool = Type.Object(
  {
    description: Type.Optional(Type.String()),
    action: rosName,
    type: iface('action'),
    goal: Type.Optional(Mapping),
    timeout_s: positive(),
    server_timeout_s: Type.Optional(positive()),
    cancel_timeout_s: Type.Optional(positive()),
    feedback: Type.Optional(NamedMap(FIELD_NAME, FieldSpec)),
  },
  strict,
);

const Sensor = Type.Object(
  {
    topic: rosName,
    type: iface('msg'),
    qos: Type.Optional(Qos),
    staleness_s: Type.Optional(positive()),
    fields: NamedMap(FIELD_NAME, FieldSpec),
  },
  strict,
);

const Point = Type.Array(Type.Number(), { minItems: 2, maxItems: 2 });

/** Low-level control for missions driven by the learned policy: what it reads, what it writes, where a start may be. */
const Navigation = Type.Object(
  {
    command: Type.Object(
      {
        topic: rosName,
        type: iface('msg'),
        action: Type.Array(Type.String({ pattern: GOAL_PATH }), {
          minItems: 1,
          description:
            'the message field each action dimension is written to, in order (e.g. linear.x, linear.y of a geometry_msgs/msg/Twist)',
        }),
        scale: Type.Optional(Type.Array(Type.Number(), { description: 'a factor per action dimension (default 1)' })),
        qos: Type.Optional(Qos),
        collision_monitor: Type.Optional(
          Type.String({
            pattern: `^${ident}$`,
            description:
              "the name of the robot's collision monitor node (default collision_monitor, Nav2's): where one runs, the command topic must be one of its inputs, or missions are refused",
          }),
        ),
      },
      { ...strict, description: "The message published once per control step with the policy's action." },
    ),
    observation: Type.Array(Type.String({ pattern: FIELD_NAME }), {
      minItems: 1,
      description: "the named fields (base.x, base.y, base.yaw, or a sensor's) the policy reads, in order",
    }),
    bounds: Type.Object(
      { min: Point, max: Point },
      {
        ...strict,
        description:
          "the task-space rectangle the robot works in (metres, in the pose's frame): starts are checked against it",
      },
    ),
    start_tolerance_m: Type.Optional(
      positive('a mission may start where the robot is, within this distance of the planned start (default 0.5)'),
    ),
  },
  {
    ...strict,
    description:
      'Missions with the learned policy: a robot starts where it is; each step publishes the command and waits control_dt_s.',
  },
);

/** Missions on a map graph: each waypoint (or a run of them) a goal of the robot's navigation stack (Nav2). */
const Waypoints = Type.Object(
  {
    action: Type.String({
      pattern: ROS_NAME,
      description: 'the nav2_msgs/action/NavigateToPose action (Nav2: /navigate_to_pose)',
    }),
    through: Type.Optional(
      Type.Object(
        {
          action: Type.String({
            pattern: ROS_NAME,
            description: 'the nav2_msgs/action/NavigateThroughPoses action (Nav2: /navigate_through_poses)',
          }),
          max_poses: Type.Optional(
            Type.Integer({ minimum: 2, maximum: 500, description: 'the most waypoints one goal carries (default 20)' }),
          ),
        },
        { ...strict, description: 'Runs of waypoints as one goal: fewer stops between waypoints.' },
      ),
    ),
    frame: Type.Optional(
      Type.String({
        pattern: `^${ident}(/${ident})*$`,
        description: 'the frame of the goal poses (default: frames.map)',
      }),
    ),
    behavior_tree: Type.Optional(
      Type.String({ description: 'a behaviour tree file for the goals (default: the navigator\'s own, "")' }),
    ),
    server_timeout_s: Type.Optional(positive()),
    cancel_timeout_s: Type.Optional(positive()),
    poll_s: Type.Optional(positive('seconds between pose samples while a goal runs (default: control_dt_s)')),
    goal_timeout_s: Type.Optional(
      positive('deadline of a goal: this much per waypoint it carries, plus its length at min_speed_m_s (default 30)'),
    ),
    min_speed_m_s: Type.Optional(positive('the slowest the robot is expected to go (default 0.05)')),
    reach_m: Type.Optional(positive('the robot counts as at a waypoint within this distance (default 0.5)')),
    max_link_m: Type.Optional(positive("the robot's pose joins the graph only when a node is this close (default 2)")),
    goal_tolerance_m: Type.Optional(
      positive(
        "the navigator reports a goal reached within this distance (Nav2's goal checker xy_goal_tolerance, default 0.25): a checkpoint's goal goes where the robot reads its labels anywhere that close",
      ),
    ),
    keepout: Type.Optional(
      Type.Object(
        {
          mask_topic: Type.Optional(
            Type.String({
              pattern: ROS_NAME,
              description:
                'the nav_msgs/msg/OccupancyGrid keepout mask, published latched (default /keepout_filter_mask)',
            }),
          ),
          info_topic: Type.Optional(
            Type.String({
              pattern: ROS_NAME,
              description:
                "the nav2_msgs/msg/CostmapFilterInfo topic, the keepout filter's filter_info_topic (default /costmap_filter_info)",
            }),
          ),
          resolution_m: Type.Optional(positive("the mask's cell size in metres (default 0.05)")),
        },
        {
          ...strict,
          description: "What the specification forbids now, as a mask for Nav2's keepout filter (docs/ROS2.md).",
        },
      ),
    ),
    compute_path: Type.Optional(
      Type.Object(
        {
          action: Type.Optional(
            Type.String({
              pattern: ROS_NAME,
              description: 'the nav2_msgs/action/ComputePathToPose action (default /compute_path_to_pose)',
            }),
          ),
          planner_id: Type.Optional(
            Type.String({ description: 'the planner plugin to ask (default "": the planner server\'s only one)' }),
          ),
          timeout_s: Type.Optional(positive('deadline of one path request (default 10)')),
        },
        {
          ...strict,
          description:
            'The path Nav2 would take for each goal, checked against the forbidden regions before the goal is sent (docs/ROS2.md).',
        },
      ),
    ),
  },
  {
    ...strict,
    description:
      "Missions on a map's labelled graph (`witness graph from-map`): the plan's waypoints become navigation goals; the pose is sampled while they run.",
  },
);

export const Ros2ConfigFile = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(1),
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
    description: Type.Optional(Type.String()),
    node: Type.Optional(
      Type.Object(
        {
          name: Type.String({ pattern: `^${ident}$` }),
          namespace: Type.Optional(Type.String({ pattern: `^(/${ident})*/?$` })),
        },
        strict,
      ),
    ),
    connect_timeout_s: Type.Optional(
      positive('How long opening the world and `witness ros2 check` wait for servers and first messages.'),
    ),
    staleness_s: Type.Optional(
      positive("Default bound on the age of a sensor's latest message; older is a disconnect."),
    ),
    control_dt_s: Type.Optional(positive()),
    frames: Type.Object(
      {
        map: Type.String({ pattern: `^${ident}(/${ident})*$` }),
        odom: Type.Optional(Type.String({ pattern: `^${ident}(/${ident})*$` })),
        base: Type.String({ pattern: `^${ident}(/${ident})*$` }),
      },
      strict,
    ),
    pose: Type.Object(
      {
        source: StringEnum(['tf', 'odometry']),
        sensor: Type.Optional(Type.String({ minLength: 1 })),
      },
      {
        ...strict,
        description:
          "Where base.x, base.y and base.yaw (and so the label function) come from: the TF transform frames.map → frames.base, or an odometry sensor's pose.",
      },
    ),
    tf: Type.Optional(
      Type.Object(
        { topic: Type.Optional(rosName), static_topic: Type.Optional(rosName), staleness_s: Type.Optional(positive()) },
        strict,
      ),
    ),
    regions: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A regions file (docs/FORMATS.md), relative to this file: the label function on the pose.',
      }),
    ),
    tools: Type.Optional(NamedMap('^[a-z][a-z0-9_]*$', ActionTool)),
    services: Type.Optional(NamedMap('^[a-z][a-z0-9_]*$', Service)),
    sensors: NamedMap(`^${ident}$`, Sensor),
    reset: Type.Optional(
      Type.Object(Service.properties, {
        ...strict,
        description:
          'An optional service that resets the world (a simulator); without it reset waits for fresh sensor data.',
      }),
    ),
    navigation: Type.Optional(Navigation),
    waypoints: Type.Optional(Waypoints),
    contract: Type.Optional(
      Type.Object(
        { succeed: ContractCall, slow: ContractCall, cancel: ContractCall, fail: ContractCall },
        {
          ...strict,
          description:
            'The calls the world contract suite makes on this robot: one that succeeds, one slower than its timeout_s, one cancelled after after_s, one the robot refuses or fails.',
        },
      ),
    ),
  },
  {
    ...strict,
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://witness.invalid/schemas/ros2-backend.schema.json',
    title: 'Witness ROS 2 backend configuration',
    description:
      'How a ROS 2 robot or simulator appears as a Witness world: skills bound to actions and services, named fields read from topics, the pose from TF or odometry, the regions of the label function, and low-level control for missions.',
  },
);
/** A configuration file as validation lets it through (config.ts fills in the defaults). */
export type Ros2ConfigFile = Static<typeof Ros2ConfigFile>;

/** The published schema (docs/schemas/ros2-backend.schema.json). */
export const ROS2_BACKEND_SCHEMA = jsonSchema(Ros2ConfigFile);

/** What each pattern means, for errors a person can act on (ajv only quotes the regular expression). */
export const PATTERN_HELP: Readonly<Record<string, string>> = {
  [ROS_NAME]: 'not a ROS name: segments of letters, digits and _ separated by /, e.g. /navigate_to_pose',
  [IFACE('action')]: 'not a ROS 2 action type: <package>/action/<Name>, e.g. nav2_msgs/action/NavigateToPose',
  [IFACE('srv')]: 'not a ROS 2 service type: <package>/srv/<Name>, e.g. std_srvs/srv/Trigger',
  [IFACE('msg')]: 'not a ROS 2 message type: <package>/msg/<Name>, e.g. nav_msgs/msg/Odometry',
  [MESSAGE_PATH]:
    'not a message path: field names separated by ".", an array element as [3] or [name=<value>] (e.g. position[name=finger_joint])',
  [GOAL_PATH]: 'not a goal or request field path: field names separated by ".", e.g. pose.pose.position.x',
  [FIELD_NAME]:
    'not a field name: at least two segments of letters, digits and _ separated by ".", e.g. gripper.width_cm',
};
