/**
 * The subset of rclnodejs this backend uses, typed locally so that everything type-checks and runs
 * without the package (it builds only where ROS 2 is installed and sourced). Names and semantics are
 * rclnodejs 1.9's own (checked against its index.js, lib/client.js, lib/publisher.js,
 * lib/action/client.js, lib/message_validation.js and types/*.d.ts):
 *
 * - Loading the package registers `process.on('SIGINT', …)`, which shuts every context down (every
 *   node, action client and subscription destroyed) on the first Ctrl-C — before an application's
 *   own asynchronous cancel could run. `removeSignalHandlers()` removes it; the loader calls it, so
 *   Witness owns SIGINT and SIGTERM (main/witness.ts) and cancels a running goal first.
 * - `init()` once per process (a second call throws "The context has already been initialized");
 *   the first call also generates the JavaScript message classes (slow once). `shutdown()` ends
 *   every node; `isShutdown()` tells.
 * - `new Node(name, namespace)` and `node.spin()`: the module-level `createNode` and `spin(node)`
 *   are deprecated since 0.18 (still present in 1.x), so they are not used.
 * - `new ActionClient(node, 'pkg/action/Name', '/action_name', { validateGoals })`;
 *   `waitForServer(timeout)` takes milliseconds and resolves false when it runs out;
 *   `sendGoal(goal, feedbackCallback)` resolves with a goal handle once the server accepted *or
 *   rejected* the goal (`accepted`, deprecated in 1.x in favour of `isAccepted()`);
 *   `handle.getResult()` resolves with the result message and sets `handle.status` to the final
 *   GoalStatus; `handle.cancelGoal()` resolves with the CancelGoal response. Neither sendGoal nor
 *   getResult takes a timeout: ours is in world.ts.
 * - Validation is opt-in: `validateGoals` (action clients), `validateRequests` (service clients),
 *   `validateMessages` (publishers). With it, a plain object is checked against the message type
 *   before it is serialized (strict: an unknown field is an issue; types checked) and the call
 *   throws a MessageValidationError (`issues`: `{field, problem, expected?, received?}`) synchronously
 *   — from sendGoal, publish, and inside sendRequestAsync's promise (a rejection). Without it, fields
 *   the type lacks are dropped silently and missing ones sent as their defaults.
 * - `node.createClient('pkg/srv/Name', '/service', { validateRequests })`: `waitForService(timeout_ms)`,
 *   `sendRequestAsync(request, { timeout, signal })` — rejects with a TimeoutError past `timeout` ms
 *   and an AbortError when `signal` aborts, removing its response callback either way (ROS 2
 *   services cannot be cancelled: the server still answers, and the answer is dropped).
 * - `node.createPublisher(type, topic, { qos, validateMessages })` and `publisher.publish(message)`.
 * - `node.createSubscription(type, topic, { qos }, callback)` with
 *   `new QoS(history, depth, reliability, durability)` and the QoS.*Policy enums.
 * - The graph: `node.getNodeNamesAndNamespaces()`, `node.getSubscriptionNamesAndTypesByNode(name, namespace)`.
 * - Messages arrive as plain objects; numeric arrays may be typed arrays (enableTypedArray).
 */

export interface RclQoS {
  readonly depth: number;
}

interface RclQoSClass {
  new (history?: number, depth?: number, reliability?: number, durability?: number): RclQoS;
  readonly HistoryPolicy?: Readonly<Record<string, number>>;
  readonly ReliabilityPolicy?: Readonly<Record<string, number>>;
  readonly DurabilityPolicy?: Readonly<Record<string, number>>;
}

/** action_msgs/msg/GoalStatus values. */
export const GOAL_STATUS = {
  unknown: 0,
  accepted: 1,
  executing: 2,
  canceling: 3,
  succeeded: 4,
  canceled: 5,
  aborted: 6,
} as const;

export interface RclGoalHandle {
  /** Deprecated in rclnodejs 1.x (still present); `isAccepted()` replaces it. */
  readonly accepted?: boolean;
  isAccepted?(): boolean;
  /** The latest GoalStatus; final once getResult() resolved. */
  readonly status: number;
  getResult(): Promise<unknown>;
  /** action_msgs/srv/CancelGoal response: return_code 0 = accepted, 1 rejected, 2 unknown goal, 3 terminated. */
  cancelGoal(): Promise<{ readonly return_code?: number; readonly goals_canceling?: readonly unknown[] } | undefined>;
}

export interface RclActionClient {
  sendGoal(goal: object, feedbackCallback?: (feedback: unknown) => void): Promise<RclGoalHandle>;
  waitForServer(timeout_ms?: number): Promise<boolean>;
  isActionServerAvailable(): boolean;
  destroy(): void;
}

export interface RclServiceClient {
  /** Resolves with the response; rejects with a TimeoutError, an AbortError or a MessageValidationError. */
  sendRequestAsync(
    request: object,
    options?: { readonly timeout?: number; readonly signal?: AbortSignal },
  ): Promise<unknown>;
  waitForService(timeout_ms?: number): Promise<boolean>;
  isServiceServerAvailable(): boolean;
}

type RclSubscription = object;

export interface RclPublisher {
  publish(message: object): void;
}

/** What a validation failure carries (rclnodejs's MessageValidationError). */
export interface RclValidationIssue {
  readonly field: string;
  readonly problem: string;
  readonly expected?: unknown;
  readonly received?: unknown;
}

export interface RclNode {
  createSubscription(
    typeClass: string,
    topic: string,
    options: { qos?: RclQoS },
    callback: (message: unknown) => void,
  ): RclSubscription;
  createClient(
    typeClass: string,
    serviceName: string,
    options?: { readonly validateRequests?: boolean },
  ): RclServiceClient;
  createPublisher(
    typeClass: string,
    topic: string,
    options?: { readonly qos?: RclQoS; readonly validateMessages?: boolean },
  ): RclPublisher;
  spin(timeout_ms?: number): void;
  getTopicNamesAndTypes(): readonly { readonly name: string; readonly types: readonly string[] }[];
  countPublishers(topic: string): number;
  getNodeNamesAndNamespaces(): readonly { readonly name: string; readonly namespace: string }[];
  getSubscriptionNamesAndTypesByNode(
    nodeName: string,
    namespace: string,
  ): readonly { readonly name: string; readonly types: readonly string[] }[];
  destroy(): void;
}

export interface RclModule {
  init(): Promise<void>;
  readonly Node: new (name: string, namespace?: string) => RclNode;
  shutdown(): void;
  isShutdown(): boolean;
  readonly ActionClient: new (
    node: RclNode,
    typeClass: string,
    actionName: string,
    options?: { readonly validateGoals?: boolean },
  ) => RclActionClient;
  readonly QoS: RclQoSClass;
  /** Removes the SIGINT handler that loading rclnodejs installed (it shuts every context down). */
  removeSignalHandlers(): void;
}

/** The members checked when the module is loaded, so a wrong package fails early with a clear message. */
export const REQUIRED_MEMBERS = [
  'init',
  'Node',
  'shutdown',
  'isShutdown',
  'ActionClient',
  'QoS',
  'removeSignalHandlers',
] as const;

/** The version this backend is built and tested against (package.json's optionalDependencies). */
export const RCLNODEJS_RANGE = '^1.9.0';
