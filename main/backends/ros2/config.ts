/**
 * Reading a ROS 2 backend configuration (schema: config-schema.ts, docs/schemas/ros2-backend.schema.json;
 * fields: docs/ROS2.md). Every problem is an InputError naming the file, line, column and JSON path,
 * raised on load — before anything connects to a robot.
 */
import { INPUT, InputRefused, readFailure, readInputTextSync } from '../../platform/input-files.js';
import { dirname, resolve } from 'node:path';
import { InputError, checkSchema, parseJson } from '../../core/input/json.js';
import { withLocation } from '../../core/input/locate.js';
import { type Region, parseRegions } from '../../core/world/regions.js';
import type { Static } from '@sinclair/typebox';
import {
  type ContractCall,
  type FieldSpec,
  PATTERN_HELP,
  type Qos,
  Ros2ConfigFile,
  type ValueSource,
} from './config-schema.js';
import { DISTROS, type Part, definitionOf, pathProblem, pathType } from './interfaces.js';

export type FieldType = NonNullable<FieldSpec['type']>;
export type { ContractCall, FieldSpec, ValueSource };

type File = Ros2ConfigFile;
type FileTool = NonNullable<File['tools']>[string];
type FileService = NonNullable<File['services']>[string];
type FileSensor = File['sensors'][string];

/** A tool bound to an action, with the defaults filled in. */
export type ActionTool = Omit<FileTool, 'goal' | 'feedback' | 'server_timeout_s' | 'cancel_timeout_s'> & {
  readonly goal: Readonly<Record<string, ValueSource>>;
  readonly server_timeout_s: number;
  readonly cancel_timeout_s: number;
  readonly feedback: Readonly<Record<string, FieldSpec>>;
};

/**
 * A tool bound to a service (or the reset service), with the defaults filled in: `service` the one
 * a call goes to; a skill configured with several has them all in `chain`, called in order.
 */
export type ServiceTool = Omit<FileService, 'request' | 'server_timeout_s' | 'service'> & {
  readonly service: string;
  readonly chain: readonly string[];
  readonly request: Readonly<Record<string, ValueSource>>;
  readonly server_timeout_s: number;
};

export type QosConfig = Required<Static<typeof Qos>>;

/**
 * A sensor with its defaults. `staleness_s` is null for a latched topic (transient-local durability)
 * without a bound of its own: such a topic is published once (a map, a robot description, a state
 * that changes rarely) and its latest message stays current however old it is.
 */
type SensorConfig = Omit<FileSensor, 'qos' | 'staleness_s'> & {
  readonly qos: QosConfig;
  readonly staleness_s: number | null;
};

/** Low-level control for missions, with the defaults filled in. */
export interface NavigationConfig {
  readonly command: {
    readonly topic: string;
    readonly type: string;
    readonly action: readonly string[];
    readonly scale: readonly number[];
    readonly qos: QosConfig;
    /** The collision monitor's node name: where it runs, the command must go into its input. */
    readonly collision_monitor: string;
  };
  readonly observation: readonly string[];
  readonly bounds: { readonly min: readonly [number, number]; readonly max: readonly [number, number] };
  readonly start_tolerance_m: number;
}

/** Missions on a map graph through the robot's navigation actions, with the defaults filled in. */
export interface WaypointsConfig {
  readonly pose: ActionTool;
  readonly through: (ActionTool & { readonly max_poses: number }) | null;
  readonly frame: string;
  readonly behavior_tree: string;
  readonly poll_s: number;
  readonly goal_timeout_s: number;
  readonly min_speed_m_s: number;
  readonly reach_m: number;
  readonly max_link_m: number;
  /** The navigator's goal tolerance (Nav2: xy_goal_tolerance). */
  readonly goal_tolerance_m: number;
  /** The keepout mask for Nav2's keepout filter and its filter info (both latched). */
  readonly keepout: { readonly mask_topic: string; readonly info_topic: string; readonly resolution_m: number };
  /** Nav2's ComputePathToPose, asked before each goal (timeout_s: one request's deadline). */
  readonly compute_path: ActionTool & { readonly planner_id: string };
}

export interface Ros2Config {
  readonly file: string;
  readonly id: string;
  readonly description: string;
  readonly node: { readonly name: string; readonly namespace: string };
  readonly connect_timeout_s: number;
  readonly staleness_s: number;
  readonly control_dt_s: number;
  readonly frames: File['frames'];
  readonly pose: { readonly source: 'tf' } | { readonly source: 'odometry'; readonly sensor: string };
  readonly tf: { readonly topic: string; readonly static_topic: string; readonly staleness_s: number };
  readonly regionsFile: string | null;
  readonly regions: readonly Region[];
  readonly tools: Readonly<Record<string, ActionTool>>;
  readonly services: Readonly<Record<string, ServiceTool>>;
  readonly sensors: Readonly<Record<string, SensorConfig>>;
  readonly reset?: ServiceTool;
  readonly navigation?: NavigationConfig;
  readonly waypoints?: WaypointsConfig;
  readonly contract?: {
    readonly succeed: ContractCall;
    readonly slow: ContractCall;
    readonly cancel: ContractCall;
    readonly fail: ContractCall;
  };
}

/** Named fields the world computes itself, so no sensor may map to them. */
const POSE_FIELDS = ['base.x', 'base.y', 'base.yaw'] as const;
const RESERVED_PREFIXES = ['at.', 'objects.'];
const CEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const DEFAULTS = {
  node: { name: 'witness', namespace: '' },
  connect_timeout_s: 10,
  staleness_s: 2,
  control_dt_s: 0.1,
  server_timeout_s: 5,
  cancel_timeout_s: 5,
  /**
   * A best-effort, volatile subscription receives from every publisher (reliable or not, latched or not); sensor data
   * is usually best effort.
   */
  qos: { reliability: 'best_effort', durability: 'volatile', depth: 10 } as QosConfig,
  /** What a robot's controller subscribes with (rclcpp's default: reliable, volatile, keep last 10). */
  command_qos: { reliability: 'reliable', durability: 'volatile', depth: 10 } as QosConfig,
  collision_monitor: 'collision_monitor',
  tf: { topic: '/tf', static_topic: '/tf_static' },
  start_tolerance_m: 0.5,
  waypoints: {
    max_poses: 20,
    goal_timeout_s: 30,
    min_speed_m_s: 0.05,
    reach_m: 0.5,
    max_link_m: 2,
    goal_tolerance_m: 0.25,
  },
  /** Nav2's usual names (its keepout tutorial) and costmap resolution. */
  keepout: { mask_topic: '/keepout_filter_mask', info_topic: '/costmap_filter_info', resolution_m: 0.05 },
  compute_path: { action: '/compute_path_to_pose', planner_id: '', timeout_s: 10 },
} as const;

/** Parses and checks a configuration; `readText` reads the regions file it names (relative to `file`). */
export function parseRos2Config(
  text: string,
  file: string,
  readText: (path: string) => string = (p) => readInputTextSync(p, INPUT.regions),
): Ros2Config {
  try {
    return build(checkSchema<File>(Ros2ConfigFile, parseJson(text, file), file), file, readText);
  } catch (e) {
    if (e instanceof InputError && e.file === file) throw withLocation(explain(e), text);
    throw e;
  }
}

/** Schema errors in words: a pattern by what it means, an unknown field at its own key. */
function explain(e: InputError): InputError {
  const pattern = /^must match pattern "(.*)"$/.exec(e.detail)?.[1];
  if (pattern !== undefined && PATTERN_HELP[pattern] !== undefined)
    return new InputError(e.file, e.path, PATTERN_HELP[pattern]);
  const key = /^unknown field "(.*)"$/.exec(e.detail)?.[1];
  if (key !== undefined)
    return new InputError(
      e.file,
      `${e.path}${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`,
      e.detail,
    );
  return e;
}

/** Reads and checks a configuration file. */
export function readRos2Config(file: string): Ros2Config {
  let text: string;
  try {
    text = readInputTextSync(file, INPUT.config);
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new InputError(file, '$', `cannot read: ${readFailure(e)}`);
  }
  return parseRos2Config(text, file);
}

function checkSource(src: Record<string, unknown>, file: string, at: string): void {
  const kinds = ['arg', 'value', 'yaw_to_quaternion'].filter((k) => k in src);
  if (kinds.length !== 1)
    throw new InputError(
      file,
      at,
      kinds.length === 0
        ? 'needs one of "arg", "value" or "yaw_to_quaternion"'
        : `has both "${kinds[0]}" and "${kinds[1]}"; a field takes its value from one source`,
    );
  for (const k of ['default', 'scale'])
    if (k in src && kinds[0] !== 'arg') throw new InputError(file, `${at}.${k}`, `"${k}" applies to "arg" only`);
}

function checkMapping(m: Record<string, unknown> | undefined, file: string, at: string): void {
  const paths = Object.keys(m ?? {});
  for (const p of paths) {
    checkSource(m![p] as Record<string, unknown>, file, `${at}[${JSON.stringify(p)}]`);
    // A field cannot be both a value and a message holding other mapped fields.
    const inner = paths.find((q) => q.startsWith(`${p}.`));
    if (inner !== undefined)
      throw new InputError(
        file,
        `${at}[${JSON.stringify(p)}]`,
        `"${p}" is set as a whole and "${inner}" inside it; set one or the other`,
      );
  }
}

function build(raw: File, file: string, readText: (path: string) => string): Ros2Config {
  const skills = skillNames(raw, file);
  const claim = fieldClaimer(raw, file);
  const tools = actionTools(raw, file, claim);
  const services: Record<string, ServiceTool> = {};
  for (const [name, s] of Object.entries(raw.services ?? {}))
    services[name] = serviceTool(s, file, `$.services.${name}`);
  const staleness_s = raw.staleness_s ?? DEFAULTS.staleness_s;
  const sensors = sensorConfigs(raw, file, claim, staleness_s);
  const pose = poseSource(raw, file, sensors);
  const frames = raw.frames;
  if (frames.map === frames.base)
    throw new InputError(file, '$.frames.base', `the base frame must differ from the map frame ("${frames.map}")`);
  if (raw.contract !== undefined) checkContract(raw.contract, file, skills);
  const { regions, regionsFile } = configRegions(raw, file, readText);
  const config: Ros2Config = {
    file,
    id: raw.id,
    description: raw.description ?? raw.id,
    node: { name: raw.node?.name ?? DEFAULTS.node.name, namespace: raw.node?.namespace ?? DEFAULTS.node.namespace },
    connect_timeout_s: raw.connect_timeout_s ?? DEFAULTS.connect_timeout_s,
    staleness_s,
    control_dt_s: raw.control_dt_s ?? DEFAULTS.control_dt_s,
    frames,
    pose,
    tf: {
      topic: raw.tf?.topic ?? DEFAULTS.tf.topic,
      static_topic: raw.tf?.static_topic ?? DEFAULTS.tf.static_topic,
      staleness_s: raw.tf?.staleness_s ?? staleness_s,
    },
    regionsFile,
    regions,
    tools,
    services,
    sensors,
    ...(raw.reset !== undefined ? { reset: serviceTool(raw.reset, file, '$.reset') } : {}),
    ...(raw.contract !== undefined ? { contract: contractCalls(raw.contract) } : {}),
    ...(raw.navigation !== undefined ? { navigation: navigation(raw.navigation, file, claim.fields) } : {}),
    ...(raw.waypoints !== undefined ? { waypoints: waypoints(raw.waypoints, raw, file) } : {}),
  };
  checkFieldPaths(config);
  return config;
}

/** The skills (tools and services share one namespace), by name, with where each is defined. */
function skillNames(raw: File, file: string): Map<string, string> {
  const skills = new Map<string, string>();
  for (const [section, entries] of [
    ['tools', raw.tools],
    ['services', raw.services],
  ] as const) {
    for (const name of Object.keys(entries ?? {})) {
      const prev = skills.get(name);
      if (prev !== undefined)
        throw new InputError(
          file,
          `$.${section}.${name}`,
          `a skill named "${name}" is already defined (${prev}); tools and services share one namespace`,
        );
      skills.set(name, `$.${section}.${name}`);
    }
  }
  return skills;
}

/** Claims a field name for one mapping (a sensor's or a tool's feedback); names are unique and not reserved. */
type Claim = ((name: string, at: string) => void) & { readonly fields: Map<string, string> };

function fieldClaimer(raw: File, file: string): Claim {
  const fields = new Map<string, string>();
  const claim = (name: string, at: string): void => {
    if ((POSE_FIELDS as readonly string[]).includes(name))
      throw new InputError(file, at, `"${name}" is computed from the pose (${raw.pose.source}); map another name`);
    const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
    if (prefix !== undefined)
      throw new InputError(
        file,
        at,
        `names under "${prefix}" are reserved (${prefix === 'at.' ? 'the label function' : 'object fields'})`,
      );
    const prev = fields.get(name);
    if (prev !== undefined) throw new InputError(file, at, `the field "${name}" is already mapped at ${prev}`);
    fields.set(name, at);
  };
  return Object.assign(claim, { fields });
}

function actionTools(raw: File, file: string, claim: Claim): Record<string, ActionTool> {
  const tools: Record<string, ActionTool> = {};
  for (const [name, t] of Object.entries(raw.tools ?? {})) {
    checkMapping(t.goal, file, `$.tools.${name}.goal`);
    for (const f of Object.keys(t.feedback ?? {})) claim(f, `$.tools.${name}.feedback[${JSON.stringify(f)}]`);
    tools[name] = {
      ...t,
      goal: t.goal ?? {},
      feedback: t.feedback ?? {},
      server_timeout_s: t.server_timeout_s ?? DEFAULTS.server_timeout_s,
      cancel_timeout_s: t.cancel_timeout_s ?? DEFAULTS.cancel_timeout_s,
    };
  }
  return tools;
}

function serviceTool(s: FileService, file: string, at: string): ServiceTool {
  checkMapping(s.request, file, `${at}.request`);
  const chain = typeof s.service === 'string' ? [s.service] : [...s.service];
  return {
    ...s,
    service: chain[0]!,
    chain,
    request: s.request ?? {},
    server_timeout_s: s.server_timeout_s ?? DEFAULTS.server_timeout_s,
  };
}

function sensorConfigs(raw: File, file: string, claim: Claim, staleness_s: number): Record<string, SensorConfig> {
  const sensors: Record<string, SensorConfig> = {};
  for (const [id, s] of Object.entries(raw.sensors)) {
    for (const f of Object.keys(s.fields)) claim(f, `$.sensors.${id}.fields[${JSON.stringify(f)}]`);
    const qos: QosConfig = { ...DEFAULTS.qos, ...s.qos };
    sensors[id] = {
      ...s,
      qos,
      staleness_s: s.staleness_s ?? (qos.durability === 'transient_local' ? null : staleness_s),
    };
  }
  return sensors;
}

/** Where the pose comes from: TF, or an odometry sensor that is one. */
function poseSource(raw: File, file: string, sensors: Record<string, SensorConfig>): Ros2Config['pose'] {
  let pose: Ros2Config['pose'] = { source: 'tf' };
  if (raw.pose.source === 'odometry') {
    const id = raw.pose.sensor;
    if (id === undefined)
      throw new InputError(file, '$.pose', 'an odometry pose needs "sensor": the id of a nav_msgs/msg/Odometry sensor');
    const s = sensors[id];
    if (s === undefined)
      throw new InputError(
        file,
        '$.pose.sensor',
        `no sensor "${id}"; the sensors are ${Object.keys(sensors).join(', ') || '(none)'}`,
      );
    if (s.type !== 'nav_msgs/msg/Odometry')
      throw new InputError(
        file,
        '$.pose.sensor',
        `sensor "${id}" carries ${s.type}; an odometry pose needs nav_msgs/msg/Odometry`,
      );
    pose = { source: 'odometry', sensor: id };
  } else if (raw.pose.sensor !== undefined) {
    throw new InputError(
      file,
      '$.pose.sensor',
      'a TF pose takes no sensor (it is the transform frames.map → frames.base)',
    );
  }
  return pose;
}

function checkContract(contract: NonNullable<File['contract']>, file: string, skills: Map<string, string>): void {
  for (const [k, c] of Object.entries(contract)) {
    if (!skills.has(c.skill))
      throw new InputError(
        file,
        `$.contract.${k}.skill`,
        `no skill "${c.skill}"; the skills are ${[...skills.keys()].join(', ') || '(none)'}`,
      );
  }
  if (contract.slow.timeout_s === undefined)
    throw new InputError(file, '$.contract.slow', 'missing required field "timeout_s" (shorter than the call takes)');
  if (contract.cancel.after_s === undefined)
    throw new InputError(file, '$.contract.cancel', 'missing required field "after_s" (when to abort the call)');
}

/** The configuration's regions file (relative to the configuration), read and checked; none when it names none. */
function configRegions(
  raw: File,
  file: string,
  readText: (path: string) => string,
): { regions: readonly Region[]; regionsFile: string | null } {
  let regions: readonly Region[] = [];
  let regionsFile: string | null = null;
  if (raw.regions !== undefined) {
    regionsFile = resolve(dirname(file), raw.regions);
    let text: string;
    try {
      text = readText(regionsFile);
    } catch (e) {
      if (e instanceof InputRefused) throw e;
      throw new InputError(file, '$.regions', `cannot read ${regionsFile}: ${readFailure(e)}`);
    }
    try {
      const set = parseRegions(parseJson(text, regionsFile), regionsFile);
      if (set.world !== undefined && set.world !== raw.id)
        throw new InputError(
          regionsFile,
          '$.world',
          `the regions are for "${set.world}", this configuration is "${raw.id}"`,
        );
      regions = set.regions;
      regions.forEach((r, i) => {
        // Region names become propositions and the CEL fields at.<name>.
        if (!CEL_NAME.test(r.name))
          throw new InputError(
            regionsFile!,
            `$.regions[${i}].name`,
            `"${r.name}" is not usable as a proposition and field name (letters, digits and _, not starting with a digit)`,
          );
      });
    } catch (e) {
      throw e instanceof InputError ? withLocation(e, text) : e;
    }
  }
  return { regions, regionsFile };
}

/**
 * Every configured field path against its message type, where Witness knows the type (interfaces.ts,
 * Humble and Jazzy): a path that fits neither distribution's definition fails here, naming the field
 * and the fields there are. A type Witness does not know is checked when the message is sent
 * (rclnodejs validates goals, requests and published messages).
 */
function checkFieldPaths(c: Ros2Config): void {
  const check = (at: string, type: string, part: Part, path: string, leaf: 'value' | 'message' | 'any'): void => {
    let problem: string | null = null;
    for (const d of DISTROS) {
      const def = definitionOf(d, type, part);
      if (def === null) continue;
      problem = pathProblem(d, def, path, leaf);
      if (problem === null) return;
    }
    if (problem !== null)
      throw new InputError(
        c.file,
        at,
        `"${path}" does not fit ${type}${part === 'message' ? '' : ` (its ${part})`}: ${problem}`,
      );
  };
  const mapping = (at: string, type: string, part: Part, m: Readonly<Record<string, ValueSource>>): void => {
    for (const [path, src] of Object.entries(m)) {
      const where = `${at}[${JSON.stringify(path)}]`;
      check(where, type, part, path, src.yaw_to_quaternion !== undefined ? 'message' : 'any');
      if (src.yaw_to_quaternion === undefined) continue;
      const t = DISTROS.map((d) => {
        const def = definitionOf(d, type, part);
        return def === null ? null : pathType(d, def, path);
      }).find((x) => x !== null);
      if (t !== undefined && t !== 'geometry_msgs/Quaternion')
        throw new InputError(
          c.file,
          `${where}.yaw_to_quaternion`,
          `"${path}" is a ${t}; yaw_to_quaternion writes a geometry_msgs/Quaternion`,
        );
    }
  };
  const fields = (at: string, type: string, part: Part, m: Readonly<Record<string, FieldSpec>>): void => {
    for (const [name, f] of Object.entries(m))
      check(`${at}[${JSON.stringify(name)}].path`, type, part, f.path, 'value');
  };
  const service = (at: string, s: ServiceTool): void => {
    mapping(`${at}.request`, s.type, 'request', s.request);
    if (s.success !== undefined) check(`${at}.success`, s.type, 'response', s.success, 'value');
    if (s.message !== undefined) check(`${at}.message`, s.type, 'response', s.message, 'value');
  };
  for (const [name, t] of Object.entries(c.tools)) {
    mapping(`$.tools.${name}.goal`, t.type, 'goal', t.goal);
    fields(`$.tools.${name}.feedback`, t.type, 'feedback', t.feedback);
  }
  for (const [name, s] of Object.entries(c.services)) service(`$.services.${name}`, s);
  if (c.reset !== undefined) service('$.reset', c.reset);
  for (const [id, s] of Object.entries(c.sensors)) fields(`$.sensors.${id}.fields`, s.type, 'message', s.fields);
  const cmd = c.navigation?.command;
  cmd?.action.forEach((path, i) => check(`$.navigation.command.action[${i}]`, cmd.type, 'message', path, 'value'));
}

/** The waypoints section: Nav2's actions as internal tools (not skills: the mission drives them). */
function waypoints(w: NonNullable<File['waypoints']>, raw: File, file: string): WaypointsConfig {
  const mask = w.keepout?.mask_topic ?? DEFAULTS.keepout.mask_topic,
    info = w.keepout?.info_topic ?? DEFAULTS.keepout.info_topic;
  if (mask === info)
    throw new InputError(
      file,
      '$.waypoints.keepout.info_topic',
      `the filter info and the mask need two topics; both are ${mask}`,
    );
  const server_timeout_s = w.server_timeout_s ?? DEFAULTS.server_timeout_s,
    cancel_timeout_s = w.cancel_timeout_s ?? DEFAULTS.cancel_timeout_s;
  // The mission sets each goal's deadline (runStoppable); the tool's own timeout_s is never read for these.
  const tool = (action: string, type: string): ActionTool => ({
    action,
    type,
    goal: {},
    feedback: {},
    timeout_s: Infinity,
    server_timeout_s,
    cancel_timeout_s,
  });
  return {
    pose: tool(w.action, 'nav2_msgs/action/NavigateToPose'),
    through:
      w.through === undefined
        ? null
        : {
            ...tool(w.through.action, 'nav2_msgs/action/NavigateThroughPoses'),
            max_poses: w.through.max_poses ?? DEFAULTS.waypoints.max_poses,
          },
    frame: w.frame ?? raw.frames.map,
    behavior_tree: w.behavior_tree ?? '',
    poll_s: w.poll_s ?? raw.control_dt_s ?? DEFAULTS.control_dt_s,
    goal_timeout_s: w.goal_timeout_s ?? DEFAULTS.waypoints.goal_timeout_s,
    min_speed_m_s: w.min_speed_m_s ?? DEFAULTS.waypoints.min_speed_m_s,
    reach_m: w.reach_m ?? DEFAULTS.waypoints.reach_m,
    max_link_m: w.max_link_m ?? DEFAULTS.waypoints.max_link_m,
    goal_tolerance_m: w.goal_tolerance_m ?? DEFAULTS.waypoints.goal_tolerance_m,
    keepout: {
      mask_topic: mask,
      info_topic: info,
      resolution_m: w.keepout?.resolution_m ?? DEFAULTS.keepout.resolution_m,
    },
    compute_path: {
      ...tool(w.compute_path?.action ?? DEFAULTS.compute_path.action, 'nav2_msgs/action/ComputePathToPose'),
      timeout_s: w.compute_path?.timeout_s ?? DEFAULTS.compute_path.timeout_s,
      planner_id: w.compute_path?.planner_id ?? DEFAULTS.compute_path.planner_id,
    },
  };
}

/** The navigation section: the observation names fields the world has, one scale per action, a non-empty box. */
function navigation(
  n: NonNullable<File['navigation']>,
  file: string,
  fields: ReadonlyMap<string, string>,
): NavigationConfig {
  n.observation.forEach((name, i) => {
    if (!(POSE_FIELDS as readonly string[]).includes(name) && !fields.has(name)) {
      throw new InputError(
        file,
        `$.navigation.observation[${i}]`,
        `no field "${name}": the policy reads ${POSE_FIELDS.join(', ')} or a sensor's or feedback's named field (${[...fields.keys()].join(', ') || 'none mapped'})`,
      );
    }
  });
  const c = n.command;
  if (c.scale !== undefined && c.scale.length !== c.action.length)
    throw new InputError(
      file,
      '$.navigation.command.scale',
      `${c.scale.length} factor(s) for ${c.action.length} action dimension(s)`,
    );
  const { min, max } = n.bounds;
  for (const k of [0, 1] as const)
    if (!(min[k]! < max[k]!))
      throw new InputError(file, `$.navigation.bounds.max[${k}]`, `must be greater than min[${k}] (${min[k]})`);
  return {
    command: {
      topic: c.topic,
      type: c.type,
      action: [...c.action],
      scale: c.scale ?? c.action.map(() => 1),
      qos: { ...DEFAULTS.command_qos, ...c.qos },
      collision_monitor: c.collision_monitor ?? DEFAULTS.collision_monitor,
    },
    observation: [...n.observation],
    bounds: { min: [min[0]!, min[1]!], max: [max[0]!, max[1]!] },
    start_tolerance_m: n.start_tolerance_m ?? DEFAULTS.start_tolerance_m,
  };
}

function contractCalls(c: NonNullable<File['contract']>): NonNullable<Ros2Config['contract']> {
  const call = (x: ContractCall): ContractCall => ({ ...x, args: x.args ?? {} });
  return { succeed: call(c.succeed), slow: call(c.slow), cancel: call(c.cancel), fail: call(c.fail) };
}

/** The type of a named field: declared, or number (the common case: positions, widths, forces). */
export function fieldType(f: FieldSpec): FieldType {
  return f.type ?? 'number';
}
