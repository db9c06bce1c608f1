/**
 * TEST DOUBLE — an in-process fake of the rclnodejs subset in main/backends/ros2/rclnodejs-api.ts,
 * for unit tests of the ROS 2 adapter (timeouts that cancel goals, rejections, feedback, sensor
 * mapping, staleness). It mimics rclnodejs's semantics where the adapter depends on them:
 * sendGoal resolves once the goal is accepted or rejected, getResult sets the handle's final
 * status, cancelGoal answers with a CancelGoal response, init twice throws. It is not ROS 2: the
 * world contract suite runs against real rclnodejs (test/backends/world-contract.test.ts).
 */
import type { RclActionClient, RclGoalHandle, RclModule, RclNode, RclPublisher, RclQoS, RclServiceClient } from '../../../main/backends/ros2/rclnodejs-api.js';
import { GOAL_STATUS } from '../../../main/backends/ros2/rclnodejs-api.js';

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

class FakeQoS implements RclQoS {
  static readonly HistoryPolicy = { RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT: 0, RMW_QOS_POLICY_HISTORY_KEEP_LAST: 1, RMW_QOS_POLICY_HISTORY_KEEP_ALL: 2 };
  static readonly ReliabilityPolicy = { RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT: 0, RMW_QOS_POLICY_RELIABILITY_RELIABLE: 1, RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT: 2 };
  static readonly DurabilityPolicy = { RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT: 0, RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: 1, RMW_QOS_POLICY_DURABILITY_VOLATILE: 2 };
  constructor(readonly history = 0, readonly depth = 0, readonly reliability = 0, readonly durability = 0) {}
}

const later = (ms: number, f: () => void): void => { setTimeout(f, ms); };

export class FakeRclnodejs {
  readonly module: RclModule;
  readonly servers = new Map<string, FakeActionServer>();
  readonly serviceServers = new Map<string, FakeService>();
  readonly subscriptions: FakeSubscription[] = [];
  /** Events in order: init, shutdown, goal <action> <json>, cancel <action>, request <service> <json>, destroy <node>. */
  readonly log: string[] = [];
  /** Interface types rclnodejs "has generated code for"; null: all. */
  knownTypes: Set<string> | null = null;
  /** What getTopicNamesAndTypes reports and countPublishers counts. */
  graph: { name: string; types: string[]; publishers: number }[] = [];
  /** Context state (test double internals). */
  initialised = false;
  shut = false;

  constructor() {
    this.module = buildModule(this);
  }

  /** Publishers the world created (topic, type, QoS). */
  readonly publishers: { readonly type: string; readonly topic: string; readonly qos: RclQoS | undefined }[] = [];
  /** What the world published, by topic, in order. */
  readonly sent = new Map<string, unknown[]>();
  /** Simulated peers (a robot's driver) that hear what the world publishes. */
  private readonly listeners = new Map<string, ((m: unknown) => void)[]>();

  /** Calls `listener` with every message the world publishes on the topic. */
  onPublish(topic: string, listener: (m: unknown) => void): void {
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), listener]);
  }

  /** A message the world published: recorded, then handed to the simulated peers on the topic. */
  published(topic: string, message: unknown): void {
    this.sent.set(topic, [...(this.sent.get(topic) ?? []), message]);
    for (const l of this.listeners.get(topic) ?? []) l(message);
  }

  /** Delivers a message to every subscription on the topic (as the executor would while spinning). */
  publish(topic: string, message: unknown): void {
    for (const s of this.subscriptions) if (s.topic === topic) s.callback(message);
  }

  /** The subscription on a topic (to check its QoS). */
  subscription(topic: string): FakeSubscription | undefined {
    return this.subscriptions.find((s) => s.topic === topic);
  }
}

/** The rclnodejs-shaped module of a fake (classes closing over its state). */
function buildModule(fake: FakeRclnodejs): RclModule {
  const checkType = (type: string): void => {
    if (fake.knownTypes !== null && !fake.knownTypes.has(type)) {
      const [pkg, kind, name] = type.split('/');
      throw new Error(`The message required does not exist: ${pkg}, ${kind}, ${name} at /opt/fake/generated`);
    }
  };

  class Handle implements RclGoalHandle {
    status: number = GOAL_STATUS.unknown;
    private settle: ((r: unknown) => void) | undefined;
    private final = GOAL_STATUS.unknown as number;
    private readonly result: Promise<unknown>;
    feedbackCallback: ((f: unknown) => void) | undefined;
    constructor(readonly accepted: boolean, private readonly action: string, private readonly server: FakeActionServer) {
      this.status = accepted ? GOAL_STATUS.accepted : GOAL_STATUS.unknown;
      this.result = new Promise((resolve) => { this.settle = resolve; });
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
      this.status = status;
      this.settle!(result ?? {});
    }
    getResult(): Promise<unknown> {
      // Like rclnodejs: the GetResult response carries the final status, set on the handle.
      return this.result.then((r) => { this.status = this.final; return r; });
    }
    cancelGoal(): Promise<{ return_code: number; goals_canceling: unknown[] } | undefined> {
      fake.log.push(`cancel ${this.action}`);
      const policy = this.server.onCancel ?? 'accept';
      if (policy === 'ignore') return new Promise(() => undefined);
      if (policy === 'reject') return Promise.resolve({ return_code: 1, goals_canceling: [] });
      if (!this.active) return Promise.resolve({ return_code: 3, goals_canceling: [] });
      this.status = GOAL_STATUS.canceling;
      if (policy === 'accept') later(1, () => this.finish(GOAL_STATUS.canceled, {}));
      return Promise.resolve({ return_code: 0, goals_canceling: [{}] });
    }
  }

  class ActionClient implements RclActionClient {
    destroyed = false;
    constructor(_node: RclNode, type: string, private readonly name: string) {
      checkType(type);
    }
    private server(): FakeActionServer | undefined {
      const s = fake.servers.get(this.name);
      return s !== undefined && s.available !== false && !fake.shut ? s : undefined;
    }
    isActionServerAvailable(): boolean {
      return this.server() !== undefined;
    }
    waitForServer(timeout_ms?: number): Promise<boolean> {
      if (this.server() !== undefined) return Promise.resolve(true);
      return new Promise((resolve) => later(timeout_ms ?? 0, () => resolve(this.server() !== undefined)));
    }
    sendGoal(goal: Record<string, unknown>, feedbackCallback?: (f: unknown) => void): Promise<RclGoalHandle> {
      fake.log.push(`goal ${this.name} ${JSON.stringify(goal)}`);
      const server = this.server()!;
      return new Promise((resolve) => later(1, () => {
        const h = new Handle(server.accept?.(goal) ?? true, this.name, server);
        h.feedbackCallback = feedbackCallback;
        resolve(h);
        if (!h.accepted) return;
        h.status = GOAL_STATUS.executing;
        server.execute?.({
          goal,
          feedback: (f) => { if (h.active) h.feedbackCallback?.(f); },
          succeed: (r) => h.finish(GOAL_STATUS.succeeded, r),
          abort: (r) => h.finish(GOAL_STATUS.aborted, r),
          canceledElsewhere: (r) => h.finish(GOAL_STATUS.canceled, r),
          isActive: () => h.active,
        });
      }));
    }
    destroy(): void {
      this.destroyed = true;
    }
  }

  class ServiceClient implements RclServiceClient {
    constructor(private readonly name: string) {}
    private server(): FakeService | undefined {
      const s = fake.serviceServers.get(this.name);
      return s !== undefined && s.available !== false && !fake.shut ? s : undefined;
    }
    isServiceServerAvailable(): boolean {
      return this.server() !== undefined;
    }
    waitForService(timeout_ms?: number): Promise<boolean> {
      if (this.server() !== undefined) return Promise.resolve(true);
      return new Promise((resolve) => later(timeout_ms ?? 0, () => resolve(this.server() !== undefined)));
    }
    sendRequest(request: Record<string, unknown>, callback: (response: unknown) => void): void {
      fake.log.push(`request ${this.name} ${JSON.stringify(request)}`);
      const r = this.server()!.handle(request);
      if (r !== undefined) later(1, () => callback(r));
    }
  }

  class Node implements RclNode {
    constructor(readonly name: string, readonly namespace = '') {
      if (!fake.initialised) throw new Error('rclnodejs: init() must be called before creating a node');
    }
    createSubscription(type: string, topic: string, options: { qos?: RclQoS }, callback: (m: unknown) => void): object {
      checkType(type);
      const s = { type, topic, qos: options.qos, callback };
      fake.subscriptions.push(s);
      return s;
    }
    createClient(type: string, name: string): RclServiceClient {
      checkType(type);
      return new ServiceClient(name);
    }
    createPublisher(type: string, topic: string, options?: { qos?: RclQoS }): RclPublisher {
      checkType(type);
      fake.publishers.push({ type, topic, qos: options?.qos });
      return { publish: (message: object) => fake.published(topic, message) };
    }
    spin(): void {}
    getTopicNamesAndTypes(): { name: string; types: string[] }[] {
      return fake.graph.map(({ name, types }) => ({ name, types }));
    }
    countPublishers(topic: string): number {
      return fake.graph.find((t) => t.name === topic)?.publishers ?? 0;
    }
    destroy(): void {
      fake.log.push(`destroy ${this.name}`);
    }
  }

  return {
    init: () => {
      if (fake.initialised) return Promise.reject(new Error('The context has already been initialized.'));
      fake.initialised = true;
      fake.shut = false;
      fake.log.push('init');
      return Promise.resolve();
    },
    Node,
    ActionClient,
    QoS: FakeQoS,
    shutdown: () => {
      fake.initialised = false;
      fake.shut = true;
      fake.log.push('shutdown');
    },
    isShutdown: () => fake.shut,
  };
}

/** A tf2_msgs/msg/TFMessage with one transform (yaw about z). */
export function tfMessage(parent: string, child: string, x: number, y: number, yaw = 0): unknown {
  return { transforms: [{ header: { frame_id: parent, stamp: { sec: 0, nanosec: 0 } }, child_frame_id: child, transform: { translation: { x, y, z: 0 }, rotation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) } } }] };
}

/** A nav_msgs/msg/Odometry at (x, y, yaw) moving at vx. */
export function odometry(x: number, y: number, yaw = 0, vx = 0): unknown {
  return {
    header: { frame_id: 'odom', stamp: { sec: 0, nanosec: 0 } }, child_frame_id: 'base_link',
    pose: { pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) } } },
    twist: { twist: { linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } } },
  };
}

/** A sensor_msgs/msg/JointState with typed arrays, as rclnodejs delivers them. */
export function jointState(joints: Record<string, number>, effort: Record<string, number> = {}): unknown {
  const name = Object.keys(joints);
  return { header: { frame_id: '' }, name, position: Float64Array.from(name.map((n) => joints[n]!)), velocity: new Float64Array(0), effort: Float64Array.from(name.map((n) => effort[n] ?? 0)) };
}
