/**
 * TEST DOUBLE — an in-process fake of the rclnodejs subset in main/backends/ros2/rclnodejs-api.ts,
 * for unit tests of the ROS 2 adapter and for the simulated ROS 2 graph (test/ros2-sim). It mimics
 * rclnodejs 1.9 where the adapter depends on it (its index.js, lib/client.js, lib/publisher.js,
 * lib/action/client.js, lib/message_validation.js, rosidl_gen/message_translator.js):
 *
 * - Loading it (`load()`, what `require('rclnodejs')` does) registers a SIGINT handler that shuts
 *   every context down: every node destroyed, with its action clients, service clients, publishers
 *   and subscriptions. A goal handle of a destroyed action client can no longer send a cancel
 *   request. `removeSignalHandlers()` removes the handler.
 * - Every goal, request, response, feedback, result and message crosses a wire: it is serialized
 *   to CDR through its ROS 2 definition (main/backends/ros2/interfaces.ts: the real definitions of
 *   the distribution this fake stands for) and decoded on the other side — fields the type lacks
 *   are dropped, missing ones arrive as their defaults, numeric arrays as typed arrays. With
 *   validation on (`validateGoals`, `validateRequests`, `validateMessages`), a plain object is first
 *   checked as rclnodejs checks it (strict, types checked) and refused with a MessageValidationError.
 * - Topics deliver by QoS compatibility (request versus offer): a reliable subscription receives
 *   nothing from a best-effort publisher, a transient-local one nothing from a volatile publisher;
 *   a transient-local publisher keeps its last `depth` messages for subscriptions that join later.
 * - sendGoal resolves once the goal is accepted or rejected, getResult sets the handle's final
 *   status, cancelGoal answers with a CancelGoal response, sendRequestAsync honours its timeout and
 *   signal and drops its response callback when either ends, init twice throws.
 *
 * It is not ROS 2: the world contract suite runs against real rclnodejs (test/backends/world-contract.test.ts).
 */
import type { MessageDefinition, MessageDefinitionField } from '@foxglove/message-definition';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import type {
  RclActionClient,
  RclGoalHandle,
  RclModule,
  RclNode,
  RclPublisher,
  RclQoS,
  RclServiceClient,
  RclValidationIssue,
} from '../../../main/backends/ros2/rclnodejs-api.js';
import { GOAL_STATUS } from '../../../main/backends/ros2/rclnodejs-api.js';
import {
  type Distro,
  type Part,
  closure,
  definitionOf,
  fieldsOf,
  partName,
} from '../../../main/backends/ros2/interfaces.js';
import { parse } from '@foxglove/rosmsg';

export interface GoalControl {
  readonly goal: Record<string, unknown>;
  feedback(f: unknown): void;
  succeed(result?: unknown): void;
  abort(result?: unknown): void;
  /** Another client cancelled it (status CANCELED). */
  canceledElsewhere(result?: unknown): void;
  /** The goal has not ended (not succeeded, aborted or cancelled): a server stops working on it when false. */
  isActive(): boolean;
}

export interface FakeActionServer {
  available?: boolean;
  accept?: (goal: Record<string, unknown>) => boolean;
  /** Runs an accepted goal; nothing happens unless it calls the control. */
  execute?: (ctl: GoalControl) => void;
  /** How a cancel request is answered (default: accepted, the goal ends CANCELED). */
  onCancel?: 'accept' | 'reject' | 'ignore' | 'accept-keep-running';
}

export interface FakeService {
  available?: boolean;
  /** The response, or undefined to never answer. */
  handle: (request: Record<string, unknown>) => unknown;
}

export interface FakeSubscription {
  readonly type: string;
  readonly topic: string;
  readonly qos: RclQoS | undefined;
  readonly callback: (m: unknown) => void;
}

/** A goal as the action server saw it: its action, the goal received, and its status on the server. */
export interface ServerGoal {
  readonly action: string;
  readonly goal: Record<string, unknown>;
  status: number;
}

/** QoS policies as rmw numbers (rclnodejs's QoS enums). */
export interface QosPolicies {
  readonly history?: number;
  readonly depth?: number;
  readonly reliability?: number;
  readonly durability?: number;
}

const RELIABLE = 1,
  BEST_EFFORT = 2,
  TRANSIENT_LOCAL = 1,
  VOLATILE = 2;
/** rclcpp's default publisher and subscription QoS: keep last 10, reliable, volatile. */
const DEFAULT_QOS: QosPolicies = { history: 1, depth: 10, reliability: RELIABLE, durability: VOLATILE };
/** A latched topic: keep last 1, reliable, transient local (static TF, maps, keepout masks). */
export const LATCHED_QOS: QosPolicies = { history: 1, depth: 1, reliability: RELIABLE, durability: TRANSIENT_LOCAL };
/** rclcpp's SensorDataQoS: keep last 5, best effort, volatile (lidars, cameras). */
export const SENSOR_QOS: QosPolicies = { history: 1, depth: 5, reliability: BEST_EFFORT, durability: VOLATILE };

class FakeQoS implements RclQoS {
  static readonly HistoryPolicy = {
    RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT: 0,
    RMW_QOS_POLICY_HISTORY_KEEP_LAST: 1,
    RMW_QOS_POLICY_HISTORY_KEEP_ALL: 2,
  };
  static readonly ReliabilityPolicy = {
    RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT: 0,
    RMW_QOS_POLICY_RELIABILITY_RELIABLE: 1,
    RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT: 2,
  };
  static readonly DurabilityPolicy = {
    RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT: 0,
    RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: 1,
    RMW_QOS_POLICY_DURABILITY_VOLATILE: 2,
  };
  constructor(
    readonly history = 0,
    readonly depth = 0,
    readonly reliability = 0,
    readonly durability = 0,
  ) {}
}

/**
 * Whether a subscription requesting `req` receives from a publisher offering `off` (DDS's
 * request-versus-offer rule for reliability and durability; system default as the DDS default:
 * reliable, volatile).
 */
function compatible(off: QosPolicies | undefined, req: QosPolicies | undefined): boolean {
  const rel = (q: QosPolicies | undefined): number => (q?.reliability === BEST_EFFORT ? BEST_EFFORT : RELIABLE);
  const dur = (q: QosPolicies | undefined): number => (q?.durability === TRANSIENT_LOCAL ? TRANSIENT_LOCAL : VOLATILE);
  if (rel(req) === RELIABLE && rel(off) === BEST_EFFORT) return false;
  if (dur(req) === TRANSIENT_LOCAL && dur(off) === VOLATILE) return false;
  return true;
}

/** rclnodejs's MessageValidationError (lib/errors.js): the message lists `field: PROBLEM` per issue. */
export class MessageValidationError extends Error {
  override readonly name = 'MessageValidationError';
  readonly code = 'MESSAGE_VALIDATION_ERROR';
  constructor(
    readonly messageType: string,
    readonly issues: readonly RclValidationIssue[],
  ) {
    super(`Invalid message for '${messageType}': ${issues.map((i) => `${i.field}: ${i.problem}`).join(', ')}`);
  }
}

/** rclnodejs's TimeoutError and AbortError of sendRequestAsync (lib/errors.js). */
class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(operation: string, timeout_ms: number) {
    super(`${operation} timeout after ${timeout_ms}ms`);
  }
}
class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(operation: string) {
    super(`${operation} was aborted`);
  }
}

/** rclnodejs's PRIMITIVE_TYPE_MAP (lib/message_validation.js). */
const JS_TYPE: Readonly<Record<string, string>> = {
  bool: 'boolean',
  int8: 'number',
  uint8: 'number',
  int16: 'number',
  uint16: 'number',
  int32: 'number',
  uint32: 'number',
  int64: 'bigint',
  uint64: 'bigint',
  float32: 'number',
  float64: 'number',
  char: 'number',
  byte: 'number',
  string: 'string',
  wstring: 'string',
};
const valueType = (v: unknown): string =>
  v === null
    ? 'null'
    : v === undefined
      ? 'undefined'
      : Array.isArray(v)
        ? 'array'
        : ArrayBuffer.isView(v)
          ? 'TypedArray'
          : typeof v;
const isComplex = (f: MessageDefinitionField): boolean =>
  f.isComplex === true || f.type === 'time' || f.type === 'duration';

function primitiveIssue(value: unknown, type: string): Omit<RclValidationIssue, 'field'> | null {
  const want = JS_TYPE[type];
  if (want === undefined) return null;
  if (want === 'bigint' && typeof value === 'number') return null;
  return typeof value === want ? null : { problem: 'TYPE_MISMATCH', expected: want, received: typeof value };
}

/**
 * rclnodejs's validateMessage with its clients' default options (strict: true, checkTypes: true), on our definitions.
 */
function validate(
  distro: Distro,
  fields: readonly MessageDefinitionField[],
  obj: unknown,
  path: string,
): RclValidationIssue[] {
  const at = (name: string): string => (path ? `${path}.${name}` : name);
  if (obj === null || obj === undefined)
    return [{ field: path || '(root)', problem: 'TYPE_MISMATCH', expected: 'object', received: String(obj) }];
  const data = fields.filter((f) => f.isConstant !== true);
  if (typeof obj !== 'object') {
    if (
      data.length === 1 &&
      data[0]!.name === 'data' &&
      !isComplex(data[0]!) &&
      ['string', 'number', 'boolean', 'bigint'].includes(typeof obj)
    ) {
      const i = primitiveIssue(obj, data[0]!.type);
      return i === null ? [] : [{ field: at('data'), ...i }];
    }
    return [{ field: path || '(root)', problem: 'TYPE_MISMATCH', expected: 'object', received: typeof obj }];
  }
  const issues: RclValidationIssue[] = [];
  const names = new Set(data.map((f) => f.name));
  for (const key of Object.keys(obj)) if (!names.has(key)) issues.push({ field: at(key), problem: 'UNKNOWN_FIELD' });
  for (const f of data) {
    const v = (obj as Record<string, unknown>)[f.name];
    if (f.name.startsWith('_') || v === undefined) continue;
    if (f.isArray === true) {
      if (!Array.isArray(v) && !ArrayBuffer.isView(v)) {
        issues.push({ field: at(f.name), problem: 'TYPE_MISMATCH', expected: 'array', received: valueType(v) });
        continue;
      }
      const n = (v as ArrayLike<unknown>).length;
      if (f.arrayLength !== undefined && n !== f.arrayLength)
        issues.push({
          field: at(f.name),
          problem: 'ARRAY_LENGTH',
          expected: `exactly ${f.arrayLength} elements`,
          received: `${n} elements`,
        });
      else if (f.arrayUpperBound !== undefined && n > f.arrayUpperBound)
        issues.push({
          field: at(f.name),
          problem: 'ARRAY_LENGTH',
          expected: `at most ${f.arrayUpperBound} elements`,
          received: `${n} elements`,
        });
      else if (Array.isArray(v)) {
        v.forEach((e: unknown, i) => {
          if (isComplex(f)) issues.push(...validate(distro, fieldsOf(distro, f.type) ?? [], e, `${at(f.name)}[${i}]`));
          else {
            const p = primitiveIssue(e, f.type);
            if (p !== null) issues.push({ field: `${at(f.name)}[${i}]`, ...p });
          }
        });
      }
    } else if (!isComplex(f)) {
      const p = primitiveIssue(v, f.type);
      if (p !== null) issues.push({ field: at(f.name), ...p });
    } else if (typeof v === 'object' && v !== null) {
      issues.push(...validate(distro, fieldsOf(distro, f.type) ?? [], v, at(f.name)));
    } else if (v !== null) {
      issues.push({ field: at(f.name), problem: 'TYPE_MISMATCH', expected: 'object', received: valueType(v) });
    }
  }
  return issues;
}

/** How rclnodejs names a message type in its errors: `pkg/msg/Name`, `pkg/action/Name_Goal`, `pkg/srv/Name_Request`. */
function typeString(type: string, part: Part): string {
  if (part !== 'message') return `${type}_${part[0]!.toUpperCase()}${part.slice(1)}`;
  const [pkg, , name] = type.split('/');
  return `${pkg}/msg/${name}`;
}

/** One side of the wire for one message type: validate, serialize, decode. */
class Wire {
  private readonly writer: MessageWriter;
  private readonly reader: MessageReader;
  constructor(
    private readonly distro: Distro,
    private readonly def: MessageDefinition,
    private readonly name: string,
  ) {
    const defs = closure(distro, def);
    this.writer = new MessageWriter(defs);
    this.reader = new MessageReader(defs);
  }
  check(message: unknown): void {
    const issues = validate(this.distro, this.def.definitions, message, '');
    if (issues.length > 0) throw new MessageValidationError(this.name, issues);
  }
  /** What the other side receives: the message through CDR. */
  cross(message: unknown, validateFirst: boolean): Record<string, unknown> {
    if (validateFirst) this.check(message);
    return this.reader.readMessage(this.writer.writeMessage(message ?? {}));
  }
}

const later = (ms: number, f: () => void): void => {
  setTimeout(f, ms);
};

/** A publisher of a simulated peer (a robot's driver, Nav2): its topic, type and offered QoS. */
interface PeerPublisher {
  readonly type: string;
  readonly qos: QosPolicies;
  readonly history: unknown[];
}

/** A node of a simulated peer in the graph (for the graph queries): what it subscribes to. */
export interface PeerNode {
  readonly name: string;
  readonly namespace: string;
  readonly subscriptions: { readonly name: string; readonly types: readonly string[] }[];
}

export interface FakeOptions {
  /** The distribution whose interface definitions the wire uses (default jazzy). */
  readonly distro?: Distro;
}

export type FakeModule = RclModule & { shutdownAll(): void };

export class FakeRclnodejs {
  readonly distro: Distro;
  readonly module: FakeModule;
  readonly servers = new Map<string, FakeActionServer>();
  readonly serviceServers = new Map<string, FakeService>();
  readonly subscriptions: FakeSubscription[] = [];
  /**
   * Events in order: init, shutdown, goal <action> <json>, cancel <action>, request <service> <json>, destroy <node>.
   */
  readonly log: string[] = [];
  /** Goals as the action servers saw them, in order, with their status on the server. */
  readonly serverGoals: ServerGoal[] = [];
  /** Interface types rclnodejs "has generated code for"; null: all. */
  knownTypes: Set<string> | null = null;
  /** What getTopicNamesAndTypes reports and countPublishers counts. */
  graph: { name: string; types: string[]; publishers: number }[] = [];
  /** The simulated peers' nodes (getNodeNamesAndNamespaces, getSubscriptionNamesAndTypesByNode). */
  readonly peers: PeerNode[] = [];
  /** Context state (test double internals). */
  initialised = false;
  shut = false;
  /** Publishers the world created (topic, type, QoS). */
  readonly publishers: { readonly type: string; readonly topic: string; readonly qos: RclQoS | undefined }[] = [];
  /** What the world published, by topic, in order (as it went on the wire). */
  readonly sent = new Map<string, unknown[]>();
  /** Simulated peers (a robot's driver) that hear what the world publishes, with the QoS they request. */
  private readonly listeners = new Map<string, { qos: QosPolicies | undefined; listener: (m: unknown) => void }[]>();
  private readonly peerPublishers = new Map<string, PeerPublisher>();
  /** What the world's latched publishers keep for peers that subscribe later. */
  private readonly latched = new Map<string, { qos: QosPolicies; history: unknown[] }>();
  private readonly wires = new Map<string, Wire>();
  /** Definitions of packages Witness does not know (rclnodejs generates code for every installed package). */
  private readonly defined = new Map<string, MessageDefinition>();
  /** The nodes of the context, destroyed by shutdown. */
  readonly nodes = new Set<{ destroy(): void; readonly name: string; readonly namespace: string }>();
  /** Response callbacks sendRequestAsync keeps registered, by service (rclnodejs's _sequenceNumberToCallbackMap). */
  readonly pendingResponses = new Map<string, number>();
  private readonly sigint = (): void => this.module.shutdownAll();
  private loaded = false;

  constructor(o: FakeOptions = {}) {
    this.distro = o.distro ?? 'jazzy';
    this.module = buildModule(this);
  }

  /**
   * The module as `require('rclnodejs')` returns it: loading it registers rclnodejs's SIGINT
   * handler (index.js: `process.on('SIGINT', _sigHandler)`, which shuts every context down).
   */
  load(): FakeModule {
    if (!this.loaded) {
      this.loaded = true;
      process.on('SIGINT', this.sigint);
    }
    return this.module;
  }

  /** Whether the handler loading installed is still registered. */
  get signalHandlerInstalled(): boolean {
    return process.listeners('SIGINT').includes(this.sigint);
  }

  /** rclnodejs's removeSignalHandlers (index.js). */
  removeSignalHandler(): void {
    process.removeListener('SIGINT', this.sigint);
  }

  /**
   * An interface of a package Witness has no definition of (a lab's own messages, generated by
   * rclnodejs when installed): its text as in the .msg/.srv/.action file, sections separated by ---;
   * fields of other packages must be ones Witness knows.
   */
  define(type: string, text: string): void {
    const kind = type.split('/')[1]!;
    const parts: readonly Part[] =
      kind === 'action' ? ['goal', 'result', 'feedback'] : kind === 'srv' ? ['request', 'response'] : ['message'];
    const sections = text.split(/^---[ \t]*$/m);
    parts.forEach((part, i) => {
      const name = partName(type, part);
      this.defined.set(name, {
        name,
        definitions: parse(sections[i] ?? '', { ros2: true, skipTypeFixup: true })[0]!.definitions,
      });
    });
  }

  /**
   * The wire of one message type and part, built from the distribution's definitions; throws for a type the stand-in
   * has no definition of.
   */
  wire(type: string, part: Part): Wire {
    const key = `${type} ${part}`;
    let w = this.wires.get(key);
    if (w === undefined) {
      const def = this.defined.get(partName(type, part)) ?? definitionOf(this.distro, type, part);
      if (def === null)
        throw new Error(
          `the ROS 2 stand-in has no ${this.distro} definition of ${type} (${part}): add it to main/backends/ros2/interface-definitions.ts, copied from the package's sources`,
        );
      w = new Wire(this.distro, def, typeString(type, part));
      this.wires.set(key, w);
    }
    return w;
  }

  /** A peer's node in the graph, subscribing to the given topics (what `ros2 node info` lists). */
  addPeer(
    name: string,
    subscriptions: { readonly name: string; readonly types: readonly string[] }[],
    namespace = '/',
  ): PeerNode {
    const p = { name, namespace, subscriptions: [...subscriptions] };
    this.peers.push(p);
    return p;
  }

  /**
   * A simulated peer's publisher on a topic with its type and offered QoS (default rclcpp's:
   * reliable, volatile, keep last 10); `publish` on the topic then sends with it. A latched one
   * (transient local) keeps its last `depth` messages for subscriptions that join later.
   */
  advertise(topic: string, type: string, qos: QosPolicies = DEFAULT_QOS): void {
    this.peerPublishers.set(topic, { type, qos, history: [] });
  }

  /**
   * Calls `listener` with every message the world publishes on the topic that a subscription requesting `qos` receives
   * (default: best effort, volatile — any).
   */
  onPublish(topic: string, listener: (m: unknown) => void, qos?: QosPolicies): void {
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), { qos, listener }]);
    const kept = this.latched.get(topic);
    if (kept !== undefined && compatible(kept.qos, qos) && qos?.durability === TRANSIENT_LOCAL) {
      for (const m of kept.history) queueMicrotask(() => listener(m));
    }
  }

  /**
   * A message the world published (as it crossed the wire): recorded, kept if latched, then handed to the simulated
   * peers whose QoS matches.
   */
  published(topic: string, message: unknown, qos: QosPolicies | undefined): void {
    this.sent.set(topic, [...(this.sent.get(topic) ?? []), message]);
    if (qos?.durability === TRANSIENT_LOCAL) {
      const kept = this.latched.get(topic) ?? { qos, history: [] };
      kept.history = [...kept.history, message].slice(-Math.max(1, qos.depth ?? 1));
      this.latched.set(topic, kept);
    }
    for (const l of this.listeners.get(topic) ?? []) if (compatible(qos, l.qos)) l.listener(message);
  }

  /**
   * A simulated peer publishes on the topic: the message crosses the wire as the advertised type
   * (or, not advertised, each subscription's type, offered with rclcpp's default QoS) to every
   * subscription whose QoS is compatible. Returns how many subscriptions received it.
   */
  publish(topic: string, message: unknown): number {
    const pub = this.peerPublishers.get(topic);
    const offered = pub?.qos ?? DEFAULT_QOS;
    if (pub !== undefined && offered.durability === TRANSIENT_LOCAL) {
      pub.history.push(message);
      pub.history.splice(0, Math.max(0, pub.history.length - Math.max(1, offered.depth ?? 1)));
    }
    let n = 0;
    for (const s of this.subscriptions) {
      if (s.topic !== topic || this.shut) continue;
      if (pub !== undefined && pub.type !== s.type) continue;
      if (!compatible(offered, s.qos)) continue;
      s.callback(this.wire(s.type, 'message').cross(message, false));
      n++;
    }
    return n;
  }

  /** What a transient-local subscription created now receives from the peers' latched publishers. */
  lateJoiner(s: FakeSubscription): void {
    const pub = this.peerPublishers.get(s.topic);
    if (pub === undefined || pub.type !== s.type || pub.qos.durability !== TRANSIENT_LOCAL) return;
    if ((s.qos as QosPolicies | undefined)?.durability !== TRANSIENT_LOCAL || !compatible(pub.qos, s.qos)) return;
    for (const m of pub.history)
      queueMicrotask(() => {
        if (this.subscriptions.includes(s)) s.callback(this.wire(s.type, 'message').cross(m, false));
      });
  }

  /** The subscription on a topic (to check its QoS). */
  subscription(topic: string): FakeSubscription | undefined {
    return this.subscriptions.find((s) => s.topic === topic);
  }
}

/** The rclnodejs-shaped module of a fake (classes closing over its state). */
function buildModule(fake: FakeRclnodejs): FakeModule {
  const checkType = (type: string): void => {
    if (fake.knownTypes !== null && !fake.knownTypes.has(type)) {
      const [pkg, kind, name] = type.split('/');
      throw new Error(`The message required does not exist: ${pkg}, ${kind}, ${name} at /opt/fake/generated`);
    }
  };
  /** What the native layer says when an entity of a destroyed node is used. */
  const destroyedError = (what: string): Error =>
    new Error(`${what} is destroyed: the ROS 2 context was shut down (rclnodejs.shutdown)`);

  class Handle implements RclGoalHandle {
    status: number = GOAL_STATUS.unknown;
    private settle: ((r: unknown) => void) | undefined;
    private final = GOAL_STATUS.unknown as number;
    private readonly result: Promise<unknown>;
    feedbackCallback: ((f: unknown) => void) | undefined;
    constructor(
      readonly accepted: boolean,
      private readonly client: ActionClient,
      private readonly server: FakeActionServer,
      readonly record: ServerGoal | null,
    ) {
      this.status = accepted ? GOAL_STATUS.accepted : GOAL_STATUS.unknown;
      this.result = new Promise((resolve) => {
        this.settle = resolve;
      });
    }
    isAccepted(): boolean {
      return this.accepted;
    }
    get active(): boolean {
      return this.final === GOAL_STATUS.unknown;
    }
    finish(status: number, result: unknown): void {
      if (!this.active) return;
      this.final = status;
      if (this.record !== null) this.record.status = status;
      const sent = this.client.wireOf('result').cross(result ?? {}, false);
      // A client whose node was destroyed no longer spins: the result never arrives.
      if (this.client.destroyed) return;
      this.status = status;
      this.settle!(sent);
    }
    getResult(): Promise<unknown> {
      // Like rclnodejs: the GetResult response carries the final status, set on the handle.
      return this.result.then((r) => {
        this.status = this.final;
        return r;
      });
    }
    cancelGoal(): Promise<{ return_code: number; goals_canceling: unknown[] } | undefined> {
      // rclnodejs sends the cancel request through its action client's native handle: gone after a shutdown.
      if (this.client.destroyed) throw destroyedError(`the action client of ${this.client.name}`);
      fake.log.push(`cancel ${this.client.name}`);
      const policy = this.server.onCancel ?? 'accept';
      if (policy === 'ignore') return new Promise(() => undefined);
      if (policy === 'reject') return Promise.resolve({ return_code: 1, goals_canceling: [] });
      if (!this.active) return Promise.resolve({ return_code: 3, goals_canceling: [] });
      this.status = GOAL_STATUS.canceling;
      if (this.record !== null) this.record.status = GOAL_STATUS.canceling;
      if (policy === 'accept') later(1, () => this.finish(GOAL_STATUS.canceled, {}));
      return Promise.resolve({ return_code: 0, goals_canceling: [{}] });
    }
  }

  class ActionClient implements RclActionClient {
    destroyed = false;
    private readonly validateGoals: boolean;
    constructor(
      private readonly node: Node,
      private readonly type: string,
      readonly name: string,
      options?: { validateGoals?: boolean },
    ) {
      checkType(type);
      this.validateGoals = options?.validateGoals === true;
      node.entities.push(this);
    }
    wireOf(part: Part): Wire {
      return fake.wire(this.type, part);
    }
    private server(): FakeActionServer | undefined {
      const s = fake.servers.get(this.name);
      return s !== undefined && s.available !== false && !fake.shut ? s : undefined;
    }
    isActionServerAvailable(): boolean {
      return !this.destroyed && this.server() !== undefined;
    }
    waitForServer(timeout_ms?: number): Promise<boolean> {
      if (this.isActionServerAvailable()) return Promise.resolve(true);
      return new Promise((resolve) => later(timeout_ms ?? 0, () => resolve(this.isActionServerAvailable())));
    }
    sendGoal(goal: Record<string, unknown>, feedbackCallback?: (f: unknown) => void): Promise<RclGoalHandle> {
      if (this.destroyed) throw destroyedError(`the action client of ${this.name}`);
      // lib/action/client.js: validated (validateGoals) and serialized before the request goes out, synchronously.
      const received = this.wireOf('goal').cross(goal, this.validateGoals);
      fake.log.push(`goal ${this.name} ${JSON.stringify(goal)}`);
      const server = this.server()!;
      return new Promise((resolve) =>
        later(1, () => {
          const accepted = server.accept?.(received) ?? true;
          const record: ServerGoal | null = accepted
            ? { action: this.name, goal: received, status: GOAL_STATUS.executing }
            : null;
          if (record !== null) fake.serverGoals.push(record);
          const h = new Handle(accepted, this, server, record);
          h.feedbackCallback = feedbackCallback;
          resolve(h);
          if (!h.accepted) return;
          h.status = GOAL_STATUS.executing;
          server.execute?.({
            goal: received,
            feedback: (f) => {
              const sent = this.wireOf('feedback').cross(f, false);
              if (h.active && !this.destroyed) h.feedbackCallback?.(sent);
            },
            succeed: (r) => h.finish(GOAL_STATUS.succeeded, r),
            abort: (r) => h.finish(GOAL_STATUS.aborted, r),
            canceledElsewhere: (r) => h.finish(GOAL_STATUS.canceled, r),
            isActive: () => h.active,
          });
        }),
      );
    }
    destroy(): void {
      this.destroyed = true;
    }
  }

  class ServiceClient implements RclServiceClient {
    destroyed = false;
    constructor(
      private readonly type: string,
      private readonly name: string,
      private readonly validateRequests: boolean,
    ) {}
    private server(): FakeService | undefined {
      const s = fake.serviceServers.get(this.name);
      return s !== undefined && s.available !== false && !fake.shut ? s : undefined;
    }
    isServiceServerAvailable(): boolean {
      return !this.destroyed && this.server() !== undefined;
    }
    waitForService(timeout_ms?: number): Promise<boolean> {
      if (this.isServiceServerAvailable()) return Promise.resolve(true);
      return new Promise((resolve) => later(timeout_ms ?? 0, () => resolve(this.isServiceServerAvailable())));
    }
    private pending(delta: number): void {
      fake.pendingResponses.set(this.name, (fake.pendingResponses.get(this.name) ?? 0) + delta);
    }
    /** lib/client.js sendRequestAsync: the timeout and the signal reject and drop the response callback. */
    sendRequestAsync(
      request: Record<string, unknown>,
      options: { timeout?: number; signal?: AbortSignal } = {},
    ): Promise<unknown> {
      return new Promise((resolve, reject) => {
        let registered = false,
          done = false;
        const cleanup = (): void => {
          if (registered) this.pending(-1);
          registered = false;
          done = true;
        };
        let timedOut = false;
        const signals: AbortSignal[] = [];
        if (options.signal) signals.push(options.signal);
        if (options.timeout !== undefined && options.timeout >= 0) {
          const t = AbortSignal.timeout(options.timeout);
          t.addEventListener('abort', () => {
            timedOut = true;
          });
          signals.push(t);
        }
        const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
        const fail = (): Error =>
          timedOut ? new TimeoutError('Service request', options.timeout!) : new AbortError('Service request');
        if (signal?.aborted) {
          reject(fail());
          return;
        }
        signal?.addEventListener('abort', () => {
          if (!done) {
            cleanup();
            reject(fail());
          }
        });
        try {
          if (this.destroyed) throw destroyedError(`the client of ${this.name}`);
          const received = fake.wire(this.type, 'request').cross(request, this.validateRequests);
          fake.log.push(`request ${this.name} ${JSON.stringify(request)}`);
          registered = true;
          this.pending(1);
          const r = this.server()?.handle(received);
          if (r !== undefined) {
            const response = fake.wire(this.type, 'response').cross(r, false);
            later(1, () => {
              if (done || this.destroyed) return;
              cleanup();
              resolve(response);
            });
          }
        } catch (e) {
          cleanup();
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    }
    destroy(): void {
      this.destroyed = true;
    }
  }

  class Node implements RclNode {
    readonly entities: { destroy(): void }[] = [];
    private readonly own: FakeSubscription[] = [];
    private destroyed = false;
    constructor(
      readonly name: string,
      readonly namespace = '',
    ) {
      if (!fake.initialised) throw new Error('rclnodejs: init() must be called before creating a node');
      fake.nodes.add(this);
    }
    createSubscription(type: string, topic: string, options: { qos?: RclQoS }, callback: (m: unknown) => void): object {
      checkType(type);
      fake.wire(type, 'message');
      const s = { type, topic, qos: options.qos, callback };
      fake.subscriptions.push(s);
      this.own.push(s);
      fake.lateJoiner(s);
      return s;
    }
    createClient(type: string, name: string, options?: { validateRequests?: boolean }): RclServiceClient {
      checkType(type);
      const c = new ServiceClient(type, name, options?.validateRequests === true);
      this.entities.push(c);
      return c;
    }
    createPublisher(type: string, topic: string, options?: { qos?: RclQoS; validateMessages?: boolean }): RclPublisher {
      checkType(type);
      const wire = fake.wire(type, 'message');
      fake.publishers.push({ type, topic, qos: options?.qos });
      const qos = options?.qos as QosPolicies | undefined;
      let gone = false;
      this.entities.push({
        destroy: () => {
          gone = true;
        },
      });
      return {
        publish: (message: object) => {
          if (gone) throw destroyedError(`the publisher of ${topic}`);
          // lib/publisher.js: validated (validateMessages) and serialized, synchronously.
          fake.published(topic, wire.cross(message, options?.validateMessages === true), qos);
        },
      };
    }
    spin(): void {}
    getTopicNamesAndTypes(): { name: string; types: string[] }[] {
      return fake.graph.map(({ name, types }) => ({ name, types }));
    }
    countPublishers(topic: string): number {
      return fake.graph.find((t) => t.name === topic)?.publishers ?? 0;
    }
    getNodeNamesAndNamespaces(): { name: string; namespace: string }[] {
      return [
        ...[...fake.nodes].map((n) => ({ name: n.name, namespace: n.namespace || '/' })),
        ...fake.peers.map((p) => ({ name: p.name, namespace: p.namespace })),
      ];
    }
    getSubscriptionNamesAndTypesByNode(nodeName: string, namespace: string): { name: string; types: string[] }[] {
      const peer = fake.peers.find((p) => p.name === nodeName && p.namespace === namespace);
      if (peer !== undefined) return peer.subscriptions.map((s) => ({ name: s.name, types: [...s.types] }));
      const own = [...fake.nodes].find((n) => n.name === nodeName && (n.namespace || '/') === namespace) as
        Node | undefined;
      return own === undefined ? [] : own.own.map((s) => ({ name: s.topic, types: [s.type] }));
    }
    destroy(): void {
      if (this.destroyed) return;
      this.destroyed = true;
      for (const e of this.entities) e.destroy();
      for (const s of this.own) fake.subscriptions.splice(fake.subscriptions.indexOf(s), 1);
      fake.nodes.delete(this);
      fake.log.push(`destroy ${this.name}`);
    }
  }

  // Context.shutdown (lib/context.js): every node of the context destroyed, then rcl shut down.
  const shutdown = (): void => {
    for (const n of [...fake.nodes]) n.destroy();
    fake.initialised = false;
    fake.shut = true;
    fake.log.push('shutdown');
  };
  return {
    init: () => {
      if (fake.initialised) return Promise.reject(new Error('The context has already been initialized.'));
      fake.initialised = true;
      fake.shut = false;
      fake.log.push('init');
      return Promise.resolve();
    },
    Node,
    ActionClient: ActionClient as unknown as RclModule['ActionClient'],
    QoS: FakeQoS,
    shutdown,
    shutdownAll: () => {
      if (fake.initialised) shutdown();
    },
    isShutdown: () => fake.shut,
    removeSignalHandlers: () => fake.removeSignalHandler(),
  };
}

/** A tf2_msgs/msg/TFMessage with one transform (yaw about z). */
export function tfMessage(parent: string, child: string, x: number, y: number, yaw = 0): unknown {
  return {
    transforms: [
      {
        header: { frame_id: parent, stamp: { sec: 0, nanosec: 0 } },
        child_frame_id: child,
        transform: {
          translation: { x, y, z: 0 },
          rotation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
        },
      },
    ],
  };
}

/** A nav_msgs/msg/Odometry at (x, y, yaw) moving at vx. */
export function odometry(x: number, y: number, yaw = 0, vx = 0): unknown {
  return {
    header: { frame_id: 'odom', stamp: { sec: 0, nanosec: 0 } },
    child_frame_id: 'base_link',
    pose: {
      pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) } },
    },
    twist: { twist: { linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
  };
}

/** A sensor_msgs/msg/JointState with typed arrays, as rclnodejs delivers them. */
export function jointState(joints: Record<string, number>, effort: Record<string, number> = {}): unknown {
  const name = Object.keys(joints);
  return {
    header: { frame_id: '' },
    name,
    position: Float64Array.from(name.map((n) => joints[n]!)),
    velocity: new Float64Array(0),
    effort: Float64Array.from(name.map((n) => effort[n] ?? 0)),
  };
}
