/**
 * The JSON Schema (2020-12) of a ROS 2 backend configuration, published as
 * docs/schemas/ros2-backend.schema.json (a test keeps the two identical). It fixes the shape;
 * config.ts checks what a schema cannot say (unique names across sections, one value source per
 * goal field, sensors that exist) and names the JSON path, line and column of each problem.
 */

const ident = '[A-Za-z_][A-Za-z0-9_]*';
/** A ROS graph name: absolute, relative or private (~), segments of letters, digits and _. */
const rosName = { type: 'string', pattern: `^[/~]?${ident}(/${ident})*$` } as const;
const iface = (kind: 'action' | 'srv' | 'msg') => ({ type: 'string', pattern: `^${ident}/${kind}/[A-Z][A-Za-z0-9]*$`, description: `a ROS 2 ${kind === 'srv' ? 'service' : kind === 'msg' ? 'message' : 'action'} type, e.g. ${kind === 'action' ? 'nav2_msgs/action/NavigateToPose' : kind === 'srv' ? 'std_srvs/srv/Trigger' : 'nav_msgs/msg/Odometry'}` });
const positive = { type: 'number', exclusiveMinimum: 0 } as const;
const selector = `(\\[(\\d+|${ident}=[^\\]]+)\\])?`;
/** A path into a message: fields by name, array elements by index or by a parallel name array (position[name=finger_joint]). */
const messagePath = { type: 'string', pattern: `^${ident}${selector}(\\.${ident}${selector})*$` } as const;
/** A plain dotted path to a goal or request field. */
const goalPath = `^${ident}(\\.${ident})*$`;
/** A named field as verifiers and specifications read it: at least two dotted segments, e.g. gripper.width_cm. */
const fieldName = `^${ident}(\\.${ident})+$`;

const fieldSpec = {
  type: 'object', required: ['path'], additionalProperties: false,
  description: 'Where a named field comes from in a message, its type and unit conversion (value × scale + offset).',
  properties: {
    path: messagePath,
    type: { enum: ['number', 'string', 'bool'] },
    scale: { type: 'number' },
    offset: { type: 'number' },
    unit: { type: 'string', minLength: 1 },
  },
} as const;

const valueSource = {
  type: 'object', additionalProperties: false, minProperties: 1,
  description: 'One of: {"arg": name, "default"?, "scale"?} a tool argument; {"value": v} a constant; {"yaw_to_quaternion": name} an orientation from a yaw argument in radians.',
  properties: {
    arg: { type: 'string', minLength: 1 },
    default: {},
    scale: { type: 'number' },
    value: {},
    yaw_to_quaternion: { type: 'string', minLength: 1 },
  },
} as const;

const mapping = { type: 'object', propertyNames: { pattern: goalPath }, additionalProperties: valueSource } as const;

const call = {
  type: 'object', required: ['skill'], additionalProperties: false,
  properties: { skill: { type: 'string', minLength: 1 }, args: { type: 'object' }, timeout_s: positive, after_s: positive },
} as const;

const service = {
  type: 'object', required: ['service', 'type', 'timeout_s'], additionalProperties: false,
  properties: {
    description: { type: 'string' },
    service: rosName,
    type: iface('srv'),
    request: mapping,
    timeout_s: positive,
    server_timeout_s: positive,
    success: { ...messagePath, description: 'A boolean response field: false makes the call fail (e.g. "success" of std_srvs/srv/Trigger).' },
    message: { ...messagePath, description: 'A string response field quoted in the failure (e.g. "message").' },
  },
} as const;

const qos = {
  type: 'object', additionalProperties: false,
  properties: {
    reliability: { enum: ['reliable', 'best_effort'] },
    durability: { enum: ['volatile', 'transient_local'] },
    depth: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const;

/** What each pattern means, for errors a person can act on (ajv only quotes the regular expression). */
export const PATTERN_HELP: Readonly<Record<string, string>> = {
  [rosName.pattern]: 'not a ROS name: segments of letters, digits and _ separated by /, e.g. /navigate_to_pose',
  [iface('action').pattern]: 'not a ROS 2 action type: <package>/action/<Name>, e.g. nav2_msgs/action/NavigateToPose',
  [iface('srv').pattern]: 'not a ROS 2 service type: <package>/srv/<Name>, e.g. std_srvs/srv/Trigger',
  [iface('msg').pattern]: 'not a ROS 2 message type: <package>/msg/<Name>, e.g. nav_msgs/msg/Odometry',
  [messagePath.pattern]: 'not a message path: field names separated by ".", an array element as [3] or [name=<value>] (e.g. position[name=finger_joint])',
  [goalPath]: 'not a goal or request field path: field names separated by ".", e.g. pose.pose.position.x',
  [fieldName]: 'not a field name: at least two segments of letters, digits and _ separated by ".", e.g. gripper.width_cm',
};

export const ROS2_BACKEND_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://witness.invalid/schemas/ros2-backend.schema.json',
  title: 'Witness ROS 2 backend configuration',
  description: 'How a ROS 2 robot or simulator appears as a Witness world: skills bound to actions and services, named fields read from topics, the pose from TF or odometry, the regions of the label function.',
  type: 'object',
  required: ['version', 'id', 'frames', 'pose', 'sensors'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    version: { const: 1 },
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    description: { type: 'string' },
    node: {
      type: 'object', additionalProperties: false, required: ['name'],
      properties: { name: { type: 'string', pattern: `^${ident}$` }, namespace: { type: 'string', pattern: `^(/${ident})*/?$` } },
    },
    connect_timeout_s: { ...positive, description: 'How long opening the world and `witness ros2 check` wait for servers and first messages.' },
    staleness_s: { ...positive, description: 'Default bound on the age of a sensor\'s latest message; older is a disconnect.' },
    control_dt_s: positive,
    frames: {
      type: 'object', required: ['map', 'base'], additionalProperties: false,
      properties: { map: { type: 'string', pattern: `^${ident}(/${ident})*$` }, odom: { type: 'string', pattern: `^${ident}(/${ident})*$` }, base: { type: 'string', pattern: `^${ident}(/${ident})*$` } },
    },
    pose: {
      type: 'object', required: ['source'], additionalProperties: false,
      description: 'Where base.x, base.y and base.yaw (and so the label function) come from: the TF transform frames.map → frames.base, or an odometry sensor\'s pose.',
      properties: { source: { enum: ['tf', 'odometry'] }, sensor: { type: 'string', minLength: 1 } },
    },
    tf: {
      type: 'object', additionalProperties: false,
      properties: { topic: rosName, static_topic: rosName, staleness_s: positive },
    },
    regions: { type: 'string', minLength: 1, description: 'A regions file (docs/FORMATS.md), relative to this file: the label function on the pose.' },
    tools: {
      type: 'object', propertyNames: { pattern: `^[a-z][a-z0-9_]*$` },
      additionalProperties: {
        type: 'object', required: ['action', 'type', 'timeout_s'], additionalProperties: false,
        properties: {
          description: { type: 'string' },
          action: rosName,
          type: iface('action'),
          goal: mapping,
          timeout_s: positive,
          server_timeout_s: positive,
          cancel_timeout_s: positive,
          feedback: { type: 'object', propertyNames: { pattern: fieldName }, additionalProperties: fieldSpec },
        },
      },
    },
    services: { type: 'object', propertyNames: { pattern: `^[a-z][a-z0-9_]*$` }, additionalProperties: service },
    sensors: {
      type: 'object', propertyNames: { pattern: `^${ident}$` },
      additionalProperties: {
        type: 'object', required: ['topic', 'type', 'fields'], additionalProperties: false,
        properties: {
          topic: rosName,
          type: iface('msg'),
          qos,
          staleness_s: positive,
          fields: { type: 'object', propertyNames: { pattern: fieldName }, additionalProperties: fieldSpec },
        },
      },
    },
    reset: { ...service, description: 'An optional service that resets the world (a simulator); without it reset waits for fresh sensor data.' },
    contract: {
      type: 'object', additionalProperties: false, required: ['succeed', 'slow', 'cancel', 'fail'],
      description: 'The calls the world contract suite makes on this robot: one that succeeds, one slower than its timeout_s, one cancelled after after_s, one the robot refuses or fails.',
      properties: { succeed: call, slow: call, cancel: call, fail: call },
    },
  },
} as const;
