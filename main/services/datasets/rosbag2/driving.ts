/**
 * The driving in a bag: the pose topic's poses and the action topic's velocity commands, decoded
 * from CDR (cdr.ts: as @foxglove/rosmsg2-serialization decodes it, every declared length checked
 * against the bytes and BAG_LIMITS first). A type's definition comes from the bag (MCAP
 * schemas, Jazzy's message_definitions) or, when the bag carries none (Humble's .db3), from
 * @foxglove/rosmsg-msgs-common for the bag's distro. Accepted: nav_msgs/msg/Odometry,
 * geometry_msgs/msg/PoseStamped or tf2_msgs/msg/TFMessage for the pose; geometry_msgs/msg/Twist or
 * TwistStamped for the action.
 *
 * TF: every transform on the pose topic (/tf) and on its static companion (/tf_static, when the bag
 * has it) is kept, per edge (parent → child), as a time series (a static edge holds its last value);
 * the path from --frame to --child through the tree (core/data/tf-tree) is the pose. A frame with two
 * parents, a frame no transform names, and two frames in separate trees are refused (exit 2, naming
 * the topic, the time, and the frames seen with their parents), and so are stamps that go back in
 * time along an edge of the path (across edges they may: localisation lags odometry).
 *
 * Stamps: a message with a header is stamped with it (`stamp: 'header'`, the default) or with the
 * time the recorder received it (`'receive'`); a Twist has no header and always takes its receive
 * time. Header stamps that go back in time on a topic are refused (exit 2, naming the topic and the
 * time): resampling needs one time line.
 */
import type { MessageDefinition } from '@foxglove/message-definition';
import { ros1, ros2galactic, ros2humble, ros2iron, ros2jazzy } from '@foxglove/rosmsg-msgs-common';
import { type TfLink, type TfStep, framesSeen, tfPath } from '../../../core/data/tf-tree.js';
import type { BagTopic, RosBag } from './bag.js';
import { BoundedMessageReader } from './cdr.js';
import { BagError, errText, stampText } from './errors.js';

export const POSE_TYPES = ['nav_msgs/msg/Odometry', 'geometry_msgs/msg/PoseStamped', 'tf2_msgs/msg/TFMessage'] as const;
export const ACTION_TYPES = ['geometry_msgs/msg/Twist', 'geometry_msgs/msg/TwistStamped'] as const;
export type StampSource = 'header' | 'receive';

/** A pose or a command with its stamp in ns since the epoch. */
interface StampedPose {
  readonly ns: bigint;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
  readonly extra?: readonly number[];
}
interface StampedTwist {
  readonly ns: bigint;
  readonly linear: readonly [number, number, number];
  readonly angular: readonly [number, number, number];
}

export interface DrivingRequest {
  readonly poseTopic: string;
  readonly actionTopic: string;
  readonly stamp: StampSource;
  /** TF only: the parent and child frames of the transform that is the pose. */
  readonly frame?: string;
  readonly child?: string;
  /**
   * Other numbers to take from each pose message (not TF): a robot's fields on its odometry. Returns
   * the numbers, or a reason the message lacks one (the import is refused, naming topic and time).
   */
  readonly extras?: (message: unknown) => { ok: true; values: number[] } | { ok: false; why: string };
  /** Told (done, 1000) as the bag's receive times pass, when the bag says its time range. */
  readonly progress?: (done: number, total: number) => void;
}

/** A TF edge as read: the child's planar pose in the parent frame at each stamp (ns). */
export interface StampedEdge extends TfLink {
  readonly static: boolean;
  /** Where it was read (the pose topic or its _static companion). */
  readonly topic: string;
  readonly samples: EdgeSamples;
}

export interface EdgeSample {
  readonly ns: bigint;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

/**
 * An edge's samples in columns (stamp as whole seconds and nanoseconds, x, y, yaw: 40 bytes each),
 * not an object apiece: a long /tf holds millions of transforms, most of them off the path.
 */
export class EdgeSamples {
  private cols = new Float64Array(5 * 16);
  length = 0;

  push(p: EdgeSample): void {
    if (5 * (this.length + 1) > this.cols.length) {
      const bigger = new Float64Array(this.cols.length * 2);
      bigger.set(this.cols);
      this.cols = bigger;
    }
    const o = 5 * this.length++;
    this.cols[o] = Number(p.ns / 1_000_000_000n);
    this.cols[o + 1] = Number(p.ns % 1_000_000_000n);
    this.cols[o + 2] = p.x;
    this.cols[o + 3] = p.y;
    this.cols[o + 4] = p.yaw;
  }

  /** The i-th sample (0 ≤ i < length). */
  at(i: number): EdgeSample {
    const o = 5 * i,
      c = this.cols;
    return { ns: BigInt(c[o]!) * 1_000_000_000n + BigInt(c[o + 1]!), x: c[o + 2]!, y: c[o + 3]!, yaw: c[o + 4]! };
  }

  clear(): void {
    this.length = 0;
  }

  toArray(): EdgeSample[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

export interface Driving {
  /** Empty for TF: its poses are `chain`'s, composed at each grid time. */
  readonly poses: StampedPose[];
  /** TF only: the path from the frame to the child (at least one edge with stamps). */
  readonly chain?: readonly TfStep<StampedEdge>[];
  readonly commands: StampedTwist[];
  readonly poseType: string;
  readonly actionType: string;
  /** Messages read from the two topics (TF messages without the wanted transform included). */
  readonly messages: number;
}

/** `nav_msgs/msg/Odometry` for `nav_msgs/Odometry` too (ROS 1 style names, as some tools write). */
export const normType = (t: string): string => (/^[^/]+\/[^/]+$/.test(t) ? t.replace('/', '/msg/') : t);

type Table = Readonly<Record<string, MessageDefinition>>;
const COMMON: Readonly<Record<string, Table>> = {
  galactic: ros2galactic,
  humble: ros2humble,
  iron: ros2iron,
  jazzy: ros2jazzy,
};

/** The full definition (root first, then every nested type) of a common message, for a distro. */
function commonDefinitions(type: string, distro: string | null): MessageDefinition[] | null {
  const table: Table = COMMON[distro ?? ''] ?? ros2jazzy;
  const short = (t: string): string => t.replace('/msg/', '/');
  const root = table[short(type)];
  if (root === undefined) return null;
  const out: MessageDefinition[] = [{ definitions: root.definitions }];
  const seen = new Set<string>();
  const visit = (d: MessageDefinition): void => {
    for (const f of d.definitions) {
      if (!f.isComplex || seen.has(f.type)) continue;
      seen.add(f.type);
      const sub = table[f.type] ?? (ros1 as Table)[f.type];
      if (sub === undefined) continue;
      out.push({ name: f.type, definitions: sub.definitions });
      visit(sub);
    }
  };
  visit(root);
  return out;
}

function readerFor(bag: RosBag, t: BagTopic): BoundedMessageReader {
  const defs = bag.definition(t.type) ?? commonDefinitions(normType(t.type), bag.distro);
  if (defs === null)
    throw new BagError(
      bag.path,
      `topic ${t.name}: the bag carries no definition of ${t.type}, and it is not a common message`,
    );
  try {
    return new BoundedMessageReader(defs);
  } catch (e) {
    throw new BagError(
      bag.path,
      `topic ${t.name}: the bag's definition of ${t.type} cannot decode a message: ${errText(e)}`,
      'invalid-input',
      { cause: e },
    );
  }
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : NaN);
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});
const vec3 = (v: unknown): [number, number, number] => {
  const o = obj(v);
  return [num(o.x), num(o.y), num(o.z)];
};

/** Yaw (rotation about z) of a unit quaternion. */
function yawOf(q: unknown): number {
  const o = obj(q);
  const x = num(o.x),
    y = num(o.y),
    z = num(o.z),
    w = num(o.w);
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

/** A whole number of a stamp's field (a number or a bigint), or null. */
const whole = (v: unknown): bigint | null =>
  typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null;

/**
 * A message's header stamp in ns, null when it has no header stamp; a stamp whose `sec` and
 * `nanosec` are not both whole numbers (a bag's own definition of it may make them anything) is
 * refused by the caller with `why`.
 */
function headerNs(m: Obj): { ns: bigint } | { why: string } | null {
  const stamp = obj(obj(m.header).stamp);
  if (stamp.sec === undefined) return null;
  const sec = whole(stamp.sec),
    nano = whole(stamp.nanosec ?? stamp.nsec);
  if (sec !== null && nano !== null) return { ns: sec * 1_000_000_000n + nano };
  const show = (v: unknown): string =>
    v === undefined
      ? 'missing'
      : typeof v === 'string'
        ? `the text ${JSON.stringify(v.slice(0, 40))}`
        : typeof v === 'bigint'
          ? String(v)
          : typeof v === 'number'
            ? String(v)
            : `a ${typeof v}`;
  return {
    why: `its header stamp is not whole seconds and nanoseconds (sec: ${show(stamp.sec)}, nanosec: ${show(stamp.nanosec ?? stamp.nsec)})`,
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const stripSlash = (f: string): string => f.replace(/^\/+/, '');

/** The topics a driving import reads, checked against the bag. */
interface DrivingTopics {
  readonly pt: BagTopic;
  readonly at: BagTopic;
  readonly poseType: string;
  readonly actionType: string;
  readonly isTf: boolean;
  /** TF only: the pose topic's _static companion, when the bag has it. */
  readonly staticTopic: BagTopic | undefined;
}

/** The pose and action topics of the request, each present, of a type this reader takes and CDR-serialized. */
function drivingTopics(bag: RosBag, r: DrivingRequest): DrivingTopics {
  const topicList = (): string => bag.topics.map((t) => `${t.name} (${t.type})`).join(', ') || 'none';
  const find = (name: string, role: string, accepted: readonly string[]): BagTopic => {
    const t = bag.topics.find((x) => x.name === name);
    if (t === undefined)
      throw new BagError(bag.path, `no topic ${name} for the ${role} (topics in the bag: ${topicList()})`);
    if (!accepted.includes(normType(t.type))) {
      throw new BagError(
        bag.path,
        `topic ${name} has type ${t.type || '(none)'}: the ${role} topic takes ${accepted.join(', ')}`,
      );
    }
    if (t.serialization !== 'cdr')
      throw new BagError(
        bag.path,
        `topic ${name} is serialized as ${JSON.stringify(t.serialization)}, this reader decodes "cdr"`,
      );
    return t;
  };
  const pt = find(r.poseTopic, 'pose', POSE_TYPES),
    at = find(r.actionTopic, 'action', ACTION_TYPES);
  const poseType = normType(pt.type),
    actionType = normType(at.type);
  const isTf = poseType === 'tf2_msgs/msg/TFMessage';
  if (isTf && (r.frame === undefined || r.child === undefined)) {
    throw new BagError(
      bag.path,
      `topic ${pt.name} is TF: give --frame and --child (the parent and child frames of the robot's pose, e.g. --frame map --child base_link)`,
    );
  }
  if (isTf && r.extras !== undefined)
    throw new BagError(
      bag.path,
      `topic ${pt.name} is TF: the world observes fields of the pose message (its odometry), which a transform does not carry; give the odometry topic`,
    );
  const staticTopic = isTf
    ? bag.topics.find(
        (t) => t.name === `${pt.name}_static` && normType(t.type) === poseType && t.serialization === 'cdr',
      )
    : undefined;
  return { pt, at, poseType, actionType, isTf, staticTopic };
}

/** The TF edges read so far, each frame with one parent, and the span of the stamped (not static) transforms. */
class TfEdges {
  readonly edges = new Map<string, StampedEdge>();
  /** Each frame's parent edge, to refuse a second parent. */
  private readonly parentOf = new Map<string, StampedEdge>();
  first: bigint | null = null;
  last: bigint | null = null;

  constructor(private readonly bagPath: string) {}

  add(topic: string, isStatic: boolean, tr: unknown, ns: bigint): void {
    const tf = obj(tr),
      parent = stripSlash(str(obj(tf.header).frame_id)),
      child = stripSlash(str(tf.child_frame_id));
    const tt = obj(tf.transform),
      p = obj(tt.translation);
    const sample = { ns, x: num(p.x), y: num(p.y), yaw: yawOf(tt.rotation) };
    if (!(Number.isFinite(sample.x) && Number.isFinite(sample.y) && Number.isFinite(sample.yaw))) {
      throw new BagError(
        this.bagPath,
        `topic ${topic}: the transform ${parent} → ${child} at ${stampText(ns)} is not finite (x ${sample.x}, y ${sample.y}, yaw ${sample.yaw})`,
      );
    }
    const key = JSON.stringify([parent, child]);
    let e = this.edges.get(key);
    if (e === undefined) {
      const other = this.parentOf.get(child);
      if (other !== undefined) {
        throw new BagError(
          this.bagPath,
          `topic ${topic}: at ${stampText(ns)} frame ${child} has a second parent, ${parent}, besides ${other.parent} (from ${other.topic}): a TF tree gives each frame one parent`,
        );
      }
      e = { parent, child, static: isStatic, topic, samples: new EdgeSamples() };
      this.edges.set(key, e);
      this.parentOf.set(child, e);
    } else if (e.static && !isStatic) {
      // Published on /tf too: its stamped values count, not the static one.
      e = { ...e, static: false, topic, samples: new EdgeSamples() };
      this.edges.set(key, e);
      this.parentOf.set(child, e);
    }
    if (e.static) {
      e.samples.clear();
      e.samples.push(sample);
      return;
    }
    if (isStatic) return;
    e.samples.push(sample);
    if (this.first === null || ns < this.first) this.first = ns;
    if (this.last === null || ns > this.last) this.last = ns;
  }
}

/** The pose of an odometry or pose message stamped `ns`, with the request's extra fields; finite, or a BagError. */
function poseOf(
  bagPath: string,
  topic: string,
  msg: Obj,
  ns: bigint,
  poseType: string,
  r: DrivingRequest,
): StampedPose {
  const pose = poseType === 'nav_msgs/msg/Odometry' ? obj(obj(msg.pose).pose) : obj(msg.pose);
  const p = obj(pose.position);
  let extra: number[] | undefined;
  if (r.extras !== undefined) {
    const e = r.extras(msg);
    if (!e.ok) throw new BagError(bagPath, `topic ${topic}: the message stamped ${stampText(ns)}: ${e.why}`);
    if (!e.values.every(Number.isFinite))
      throw new BagError(
        bagPath,
        `topic ${topic}: the message stamped ${stampText(ns)} has a field that is not finite (${e.values.join(', ')})`,
      );
    extra = e.values;
  }
  const last: StampedPose = {
    ns,
    x: num(p.x),
    y: num(p.y),
    yaw: yawOf(pose.orientation),
    ...(extra !== undefined ? { extra } : {}),
  };
  if (!(Number.isFinite(last.x) && Number.isFinite(last.y) && Number.isFinite(last.yaw))) {
    throw new BagError(
      bagPath,
      `topic ${topic}: the pose at ${stampText(last.ns)} is not finite (x ${last.x}, y ${last.y}, yaw ${last.yaw})`,
    );
  }
  return last;
}

/** Reads the pose and action topics of a bag; every problem is a BagError naming the bag, topic and time. */
export async function readDriving(bag: RosBag, r: DrivingRequest): Promise<Driving> {
  const { pt, at, poseType, actionType, isTf, staticTopic } = drivingTopics(bag, r);
  const poseReader = readerFor(bag, pt);
  const actReader = pt.name === at.name ? poseReader : readerFor(bag, at);
  const staticReader = staticTopic !== undefined ? readerFor(bag, staticTopic) : null;
  const poses: StampedPose[] = [],
    commands: StampedTwist[] = [];
  const tf = new TfEdges(bag.path);
  let messages = 0;
  const lastNs = new Map<string, bigint>();
  const order = (key: string, what: string, ns: bigint): void => {
    const prev = lastNs.get(key);
    if (prev !== undefined && ns < prev) {
      throw new BagError(
        bag.path,
        `${what}: stamps go back in time at ${stampText(ns)} (the message before is stamped ${stampText(prev)}); give --stamp receive to use the times the recorder received them`,
      );
    }
    lastNs.set(key, ns);
  };
  const range = bag.timeRange,
    span = range !== null ? Number(range[1] - range[0]) : 0;
  const wanted = [...new Set([pt.name, at.name, ...(staticTopic !== undefined ? [staticTopic.name] : [])])];
  for await (const m of bag.messages(wanted)) {
    messages++;
    if (r.progress !== undefined && range !== null && span > 0 && messages % 4096 === 0)
      r.progress(Math.min(999, Math.floor((Number(m.logTime - range[0]) / span) * 1000)), 1000);
    const isPose = m.topic === pt.name,
      isStatic = staticTopic !== undefined && m.topic === staticTopic.name;
    let msg: Obj;
    try {
      msg = obj((isStatic ? staticReader! : isPose ? poseReader : actReader).readMessage(m.data));
    } catch (e) {
      throw new BagError(
        bag.path,
        `topic ${m.topic}: the message received at ${stampText(m.logTime)} does not decode as ${isPose || isStatic ? pt.type : at.type}: ${errText(e)}`,
      );
    }
    const stampOf = (o: Obj): bigint => {
      const h = r.stamp === 'header' ? headerNs(o) : null;
      if (h === null) return m.logTime;
      if ('why' in h)
        throw new BagError(
          bag.path,
          `topic ${m.topic}: the message received at ${stampText(m.logTime)}: ${h.why}; give --stamp receive to use the times the recorder received them`,
        );
      return h.ns;
    };
    if ((isPose || isStatic) && isTf) {
      for (const tr of Array.isArray(msg.transforms) ? (msg.transforms as unknown[]) : [])
        tf.add(m.topic, isStatic, tr, stampOf(obj(tr)));
    } else if (isPose || isStatic) {
      const ns = stampOf(msg);
      order(m.topic, `topic ${m.topic}`, ns);
      poses.push(poseOf(bag.path, m.topic, msg, ns, poseType, r));
    }
    if (m.topic === at.name) {
      const tw = actionType === 'geometry_msgs/msg/TwistStamped' ? obj(msg.twist) : msg;
      const ns = actionType === 'geometry_msgs/msg/TwistStamped' ? stampOf(msg) : m.logTime;
      order(m.topic, `topic ${m.topic}`, ns);
      const c: StampedTwist = { ns, linear: vec3(tw.linear), angular: vec3(tw.angular) };
      if (![...c.linear, ...c.angular].every(Number.isFinite))
        throw new BagError(bag.path, `topic ${m.topic}: the command at ${stampText(ns)} is not finite`);
      commands.push(c);
    }
  }
  r.progress?.(1000, 1000);
  if (isTf) {
    if (commands.length === 0) throw new BagError(bag.path, `topic ${at.name} has no messages`);
    return {
      poses,
      chain: tfChain(
        bag.path,
        pt.name,
        staticTopic?.name ?? null,
        [...tf.edges.values()],
        stripSlash(r.frame!),
        stripSlash(r.child!),
        tf.first,
        tf.last,
      ),
      commands,
      poseType,
      actionType,
      messages,
    };
  }
  if (poses.length === 0) throw new BagError(bag.path, `topic ${pt.name} has no messages`);
  if (commands.length === 0) throw new BagError(bag.path, `topic ${at.name} has no messages`);
  return { poses, commands, poseType, actionType, messages };
}

/**
 * The path from `frame` to `child` through the edges read, with at least one edge that has stamps; a BagError
 * otherwise.
 */
function tfChain(
  bagPath: string,
  topic: string,
  staticTopic: string | null,
  edges: readonly StampedEdge[],
  frame: string,
  child: string,
  first: bigint | null,
  last: bigint | null,
): readonly TfStep<StampedEdge>[] {
  const topics = staticTopic !== null ? `${topic} and ${staticTopic}` : `${topic} (no ${topic}_static in the bag)`;
  const when = first !== null && last !== null ? ` (stamped ${stampText(first)} to ${stampText(last)})` : '';
  const seen = (): string =>
    framesSeen(edges)
      .map((f) => `${f.frame} (${f.parent === null ? 'root' : `parent ${f.parent}`})`)
      .join(', ') || 'none';
  const path = tfPath(edges, frame, child);
  if (!path.ok) {
    const why =
      path.missing.length > 0
        ? `no transform names frame ${path.missing.join(' or ')}`
        : `no path from ${frame} to ${child}: they are in separate trees`;
    throw new BagError(
      bagPath,
      `topic ${topic}: ${why} in the transforms on ${topics}${when} (frames seen: ${seen()})`,
    );
  }
  if (!path.steps.some((s) => !s.edge.static && s.edge.samples.length > 0)) {
    const chain = path.steps.map((s) => `${s.edge.parent} → ${s.edge.child}`).join(', ') || 'none, the frames are one';
    throw new BagError(
      bagPath,
      `topic ${topic}: the pose of ${child} in ${frame} never changes (its transforms: ${chain}, all static), so it has no time line: give frames joined by a transform on ${topic}`,
    );
  }
  // Stamps go forward along each edge of the path (across edges they may not: localisation lags odometry); other edges
  // are not used.
  for (const s of path.steps) {
    const xs = s.edge.samples;
    let prev = xs.length > 0 ? xs.at(0).ns : 0n;
    for (let i = 1; i < xs.length && !s.edge.static; i++) {
      const ns = xs.at(i).ns;
      if (ns < prev) {
        throw new BagError(
          bagPath,
          `topic ${s.edge.topic}: the transform ${s.edge.parent} → ${s.edge.child}: stamps go back in time at ${stampText(ns)} (the message before is stamped ${stampText(prev)}); give --stamp receive to use the times the recorder received them`,
        );
      }
      prev = ns;
    }
  }
  return path.steps;
}
