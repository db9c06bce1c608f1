/**
 * The subset of rclnodejs this backend uses, typed locally so that everything type-checks and runs
 * without the package (it builds only where ROS 2 is installed and sourced). Names and semantics are
 * rclnodejs's own (checked against its types/*.d.ts and lib/action/client.js, 0.2x to 1.x):
 *
 * - `init()` once per process (a second call throws "The context has already been initialized");
 *   the first call also generates the JavaScript message classes (slow once). `shutdown()` ends
 *   every node; `isShutdown()` tells.
 * - `new Node(name, namespace)` and `node.spin()`: the module-level `createNode` and `spin(node)`
 *   are deprecated since 0.18 (still present in 1.x), so they are not used.
 * - `new ActionClient(node, 'pkg/action/Name', '/action_name')`; `waitForServer(timeout)` takes
 *   milliseconds and resolves false when it runs out; `sendGoal(goal, feedbackCallback)` resolves
 *   with a goal handle once the server accepted *or rejected* the goal (`accepted`, deprecated in
 *   1.x in favour of `isAccepted()`); `handle.getResult()` resolves with the result message and
 *   sets `handle.status` to the final GoalStatus; `handle.cancelGoal()` resolves with the
 *   CancelGoal response. Neither sendGoal nor getResult takes a timeout: ours is in world.ts.
 * - `node.createClient('pkg/srv/Name', '/service')`: `waitForService(timeout_ms)`,
 *   `sendRequest(request, callback)` (no timeout, no cancel: ROS 2 services cannot be cancelled).
 * - `node.createPublisher(type, topic, { qos })` and `publisher.publish(message)` (a plain object).
 * - `node.createSubscription(type, topic, { qos }, callback)` with
 *   `new QoS(history, depth, reliability, durability)` and the QoS.*Policy enums.
 * - Messages arrive as plain objects; numeric arrays may be typed arrays (enableTypedArray).
 */

export interface RclQoS {
  readonly depth: number;
}

export interface RclQoSClass {
  new (history?: number, depth?: number, reliability?: number, durability?: number): RclQoS;
  readonly HistoryPolicy?: Readonly<Record<string, number>>;
  readonly ReliabilityPolicy?: Readonly<Record<string, number>>;
  readonly DurabilityPolicy?: Readonly<Record<string, number>>;
}

/** action_msgs/msg/GoalStatus values. */
export const GOAL_STATUS = { unknown: 0, accepted: 1, executing: 2, canceling: 3, succeeded: 4, canceled: 5, aborted: 6 } as const;

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
  sendRequest(request: object, callback: (response: unknown) => void): void;
  waitForService(timeout_ms?: number): Promise<boolean>;
  isServiceServerAvailable(): boolean;
}

export type RclSubscription = object;

export interface RclPublisher {
  publish(message: object): void;
}

export interface RclNode {
  createSubscription(typeClass: string, topic: string, options: { qos?: RclQoS }, callback: (message: unknown) => void): RclSubscription;
  createClient(typeClass: string, serviceName: string, options?: object): RclServiceClient;
  createPublisher(typeClass: string, topic: string, options?: { qos?: RclQoS }): RclPublisher;
  spin(timeout_ms?: number): void;
  getTopicNamesAndTypes(): readonly { readonly name: string; readonly types: readonly string[] }[];
  countPublishers(topic: string): number;
  destroy(): void;
}

export interface RclModule {
  init(): Promise<void>;
  readonly Node: new (name: string, namespace?: string) => RclNode;
  shutdown(): void;
  isShutdown(): boolean;
  readonly ActionClient: new (node: RclNode, typeClass: string, actionName: string, options?: object) => RclActionClient;
  readonly QoS: RclQoSClass;
}

/** The members checked when the module is loaded, so a wrong package fails early with a clear message. */
export const REQUIRED_MEMBERS = ['init', 'Node', 'shutdown', 'isShutdown', 'ActionClient', 'QoS'] as const;
