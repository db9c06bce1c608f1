/**
 * One action goal or one service call, with our own deadline: rclnodejs's sendGoal and getResult
 * take no timeout, so the caller's signal (aborted on timeout, cancel or close, its reason the
 * WorldError to report) races every wait, and a goal that is still running when it fires is
 * cancelled before the call returns — bounded too, since a cancel request can go unanswered. A
 * service request goes through sendRequestAsync with what is left of the deadline and the signal,
 * so its response callback is removed when either ends. Goals and requests are validated by
 * rclnodejs against their types (world.ts turns validation on): a field that does not fit is
 * `invalid-input`, naming the field and the configured mapping that wrote it, and nothing is sent.
 */
import { WorldError } from '../../core/world/world.js';
import type { ActionTool, ServiceTool } from './config.js';
import {
  GOAL_STATUS,
  type RclActionClient,
  type RclGoalHandle,
  type RclServiceClient,
  type RclValidationIssue,
} from './rclnodejs-api.js';
import { readPath } from './message-path.js';

const ABORTED = Symbol('aborted');

/** Resolves with the promise's value, or with ABORTED as soon as the signal aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT after s seconds. */
async function within<T>(p: Promise<T>, s: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), s * 1000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The WorldError the signal was aborted with (runStoppable's timeout / cancel, or the world closing). */
function stopReason(signal: AbortSignal, world: string, what: string): WorldError {
  return signal.reason instanceof WorldError ? signal.reason : new WorldError('cancelled', world, `${what} cancelled`);
}

function isAccepted(h: RclGoalHandle): boolean {
  return typeof h.isAccepted === 'function' ? h.isAccepted() : h.accepted === true;
}

/** Where a goal or request was configured: its mapping's JSON path and the message fields it writes. */
export interface Configured {
  readonly at: string;
  readonly paths: readonly string[];
  /** The paths are an array in the configuration (a command's action fields), not the keys of a mapping. */
  readonly indexed?: boolean;
}

/** rclnodejs's MessageValidationError carries `issues`: each field that does not fit, and why. */
function validationIssues(e: unknown): readonly RclValidationIssue[] | null {
  const issues = (e as { issues?: unknown } | null)?.issues;
  return Array.isArray(issues) && issues.every((i) => typeof (i as { field?: unknown }).field === 'string')
    ? (issues as RclValidationIssue[])
    : null;
}

const PROBLEM: Readonly<Record<string, string>> = {
  UNKNOWN_FIELD: 'no such field in the type',
  TYPE_MISMATCH: 'the wrong type',
  MISSING_FIELD: 'missing',
  ARRAY_LENGTH: 'the wrong length',
  OUT_OF_RANGE: 'out of range',
  NESTED_ERROR: 'a nested field does not fit',
};

function issueWords(i: RclValidationIssue, configured: Configured | undefined): string {
  const why = PROBLEM[i.problem] ?? i.problem;
  const words = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
  const detail = i.expected !== undefined ? ` (expected ${words(i.expected)}, got ${words(i.received)})` : '';
  const field = i.field.replace(/\[\d+\]/g, '');
  const key = configured?.paths.find((p) => p === field || p.startsWith(`${field}.`) || field.startsWith(`${p}.`));
  const where =
    key === undefined
      ? ''
      : `, written by ${configured!.at}[${configured!.indexed === true ? configured!.paths.indexOf(key) : JSON.stringify(key)}]`;
  return `field "${i.field}": ${why}${detail}${where}`;
}

/**
 * The error of a goal, request or message rclnodejs refused to send (validation): invalid-input naming the fields; null
 * for any other error.
 */
export function notFitting(
  e: unknown,
  world: string,
  what: string,
  kind: 'goal' | 'request' | 'message',
  type: string,
  configured: Configured | undefined,
): WorldError | null {
  const issues = validationIssues(e);
  if (issues === null) return null;
  return new WorldError(
    'invalid-input',
    world,
    `${what}: the ${kind} does not fit ${type}: ${issues.map((i) => issueWords(i, configured)).join('; ')}; nothing was sent`,
  );
}

const statusName = (s: number): string =>
  Object.entries(GOAL_STATUS)
    .find(([, v]) => v === s)?.[0]
    .toUpperCase() ?? `status ${s}`;
const short = (v: unknown): string => {
  const s = JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'bigint' ? Number(x) : ArrayBuffer.isView(x) ? Array.from(x as unknown as ArrayLike<number>) : x,
  );
  return s === undefined ? String(v) : s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

/** Asks the server to cancel a running goal and waits (bounded) for it to stop; says how that went. */
async function cancelRunning(handle: RclGoalHandle, result: Promise<unknown>, bound_s: number): Promise<string> {
  const started = Date.now();
  let answer: Awaited<ReturnType<RclGoalHandle['cancelGoal']>> | typeof TIMED_OUT;
  try {
    answer = await within(handle.cancelGoal(), bound_s);
  } catch (e) {
    return `the cancel request failed (${e instanceof Error ? e.message : String(e)}): the robot may still be moving`;
  }
  if (answer === TIMED_OUT) return `no answer to the cancel request within ${bound_s} s: the robot may still be moving`;
  const code = answer?.return_code ?? 0;
  if (code === 1) return 'the server rejected the cancel request (return code 1): the robot may still be moving';
  if (code === 3) return 'the goal had already terminated';
  if (code === 2) return 'the server did not know the goal any more (return code 2)';
  const left_s = Math.max(0.05, bound_s - (Date.now() - started) / 1000);
  const done = await within(
    result.then(
      () => true,
      () => true,
    ),
    left_s,
  );
  return done === TIMED_OUT
    ? `the server accepted the cancel request but the goal had not stopped ${bound_s} s later (status ${statusName(handle.status)})`
    : `the goal was cancelled (final status ${statusName(handle.status)})`;
}

export interface GoalCall {
  readonly world: string;
  readonly skill: string;
  readonly tool: ActionTool;
  readonly client: RclActionClient;
  readonly goal: Record<string, unknown>;
  readonly onFeedback: (feedback: unknown) => void;
  readonly configured?: Configured;
}

/** Sends a goal and waits for its result; rejects with the WorldError of the way it failed. */
export async function runGoal(c: GoalCall, signal: AbortSignal): Promise<unknown> {
  const what = `${c.skill} (${c.tool.action}, ${c.tool.type})`;
  const up = await abortable(c.client.waitForServer(c.tool.server_timeout_s * 1000), signal);
  if (up === ABORTED) throw stopReason(signal, c.world, what);
  if (!up)
    throw new WorldError(
      'not-found',
      c.world,
      `${what}: no action server answered within ${c.tool.server_timeout_s} s; is it running? (\`ros2 action list -t\` should list ${c.tool.action} [${c.tool.type}])`,
    );
  let sent: Promise<RclGoalHandle>;
  try {
    sent = c.client.sendGoal(c.goal, c.onFeedback);
  } catch (e) {
    // rclnodejs validates the goal against its type (validateGoals) and serializes it, synchronously.
    throw (
      notFitting(e, c.world, what, 'goal', c.tool.type, c.configured) ??
      new WorldError(
        'invalid-input',
        c.world,
        `${what}: the goal ${short(c.goal)} could not be sent as ${c.tool.type}: ${e instanceof Error ? e.message : String(e)}`,
      )
    );
  }
  const handle = await abortable(sent, signal);
  if (handle === ABORTED) {
    // Too late to stop the request: cancel the goal if the server accepts it after all.
    sent.then((h) => (isAccepted(h) ? h.cancelGoal() : undefined)).catch(() => undefined);
    const r = stopReason(signal, c.world, what);
    throw new WorldError(
      r.kind,
      c.world,
      `${r.detail}, before the server answered the goal (it is cancelled if accepted)`,
    );
  }
  if (!isAccepted(handle))
    throw new WorldError('rejected', c.world, `${what}: the server rejected the goal ${short(c.goal)}`);
  const result = handle.getResult();
  const r = await abortable(result, signal);
  if (r === ABORTED) {
    const reason = stopReason(signal, c.world, what);
    const how = await cancelRunning(handle, result, c.tool.cancel_timeout_s);
    throw new WorldError(reason.kind, c.world, `${reason.detail}; ${how}`);
  }
  const status = handle.status;
  if (status === GOAL_STATUS.succeeded) return r;
  if (status === GOAL_STATUS.aborted)
    throw new WorldError('aborted', c.world, `${what}: the server aborted the goal; result ${short(r)}`);
  if (status === GOAL_STATUS.canceled)
    throw new WorldError(
      'cancelled',
      c.world,
      `${what}: the goal was cancelled by another client or the server; result ${short(r)}`,
    );
  throw new WorldError('failed', c.world, `${what}: the goal ended with ${statusName(status)}; result ${short(r)}`);
}

export interface ServiceCall {
  readonly world: string;
  readonly skill: string;
  readonly service: ServiceTool;
  readonly client: RclServiceClient;
  readonly request: Record<string, unknown>;
  /** Witness's deadline for the call (performance.now(), ms): what is left of it is the request's timeout. */
  readonly deadline_ms: number;
  readonly configured?: Configured;
}

/**
 * Calls a service; rejects on no server, the deadline or the signal (the response is then ignored:
 * services cannot be cancelled, and rclnodejs drops its callback), a request that does not fit its
 * type, or a false success field.
 */
export async function callService(c: ServiceCall, signal: AbortSignal): Promise<unknown> {
  const what = `${c.skill} (${c.service.service}, ${c.service.type})`;
  const up = await abortable(c.client.waitForService(c.service.server_timeout_s * 1000), signal);
  if (up === ABORTED) throw stopReason(signal, c.world, what);
  if (!up)
    throw new WorldError(
      'not-found',
      c.world,
      `${what}: no service server answered within ${c.service.server_timeout_s} s; is it running? (\`ros2 service list -t\` should list ${c.service.service} [${c.service.type}])`,
    );
  const timeout = Math.max(0, Math.round(c.deadline_ms - performance.now()));
  let response: unknown;
  try {
    response = await c.client.sendRequestAsync(c.request, { timeout, signal });
  } catch (e) {
    if (signal.aborted) {
      const reason = stopReason(signal, c.world, what);
      throw new WorldError(
        reason.kind,
        c.world,
        `${reason.detail}; the request was sent and a ROS 2 service call cannot be cancelled, so its response will be ignored`,
      );
    }
    if ((e as { name?: unknown } | null)?.name === 'TimeoutError') {
      throw new WorldError(
        'timeout',
        c.world,
        `${what}: no response within ${(timeout / 1000).toFixed(3).replace(/\.?0+$/, '')} s; a ROS 2 service call cannot be cancelled, so its response will be ignored`,
      );
    }
    throw (
      notFitting(e, c.world, what, 'request', c.service.type, c.configured) ??
      new WorldError(
        'failed',
        c.world,
        `${what}: the request ${short(c.request)} failed: ${e instanceof Error ? e.message : String(e)}`,
      )
    );
  }
  if (c.service.success !== undefined) {
    const ok = readPath(response, c.service.success);
    if (!ok.ok) throw new WorldError('failed', c.world, `${what}: the response has no success field: ${ok.why}`);
    if (ok.value !== true) {
      const m = c.service.message !== undefined ? readPath(response, c.service.message) : undefined;
      throw new WorldError(
        'failed',
        c.world,
        `${what}: the service reported failure${m?.ok ? `: ${String(m.value)}` : ''}`,
      );
    }
  }
  return response;
}
