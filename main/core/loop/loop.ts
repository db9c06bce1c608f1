/**
 * The careful control loop — the seed's "Typed Tool-Use Loop with Postcondition Verification and
 * Replanning": the planner proposes (tool, arguments) → the arguments are validated against the
 * tool's JSON Schema (a failure goes back to the planner, counted apart from replans, and nothing
 * reaches the world) → preconditions on the observed state → execution with a timeout and
 * cancellation → observation → postconditions on sensor evidence → on pass, continue; on fail, a
 * failure record and a replan from the updated state within budget R → past R, escalation with the
 * whole trace. A goal verifier decides success; the same failure on the same subtask twice in a row
 * escalates early (a replan loop), and a permanent failure (by the tool's failure rules: an object
 * out of the workspace, a hard limit, an action server that is not there) escalates at once unless
 * the planner has another way past it. With a `decide` hook an escalation is a question to the
 * operator rather than the end: abort, retry (one more budget round) or skip (the subtask).
 */
import type { RegisteredTool } from './tools.js';
import { type Bound, type WorldState, holds, missingEntry, observed } from './conditions.js';
import { type DecisionRecord, askOperator, decisionEvent, escalationEvent } from './escalation.js';
import type {
  Decide,
  Escalation,
  EscalationCause,
  OperatorDecision,
  ToolFailureRecord,
} from '../../contract/failure.js';
import { DECISIONS, LOOP_DEFAULTS } from '../../contract/defaults.js';
import { type ErrorReport, WitnessError, errorReport } from '../../contract/errors.js';
import { type Tools, type WorldErrorKind, WorldError } from '../world/world.js';
import type { AuditEventBody, AuditEventKind } from '../../contract/audit-events.js';

export interface ToolCall {
  readonly tool: string;
  readonly args: unknown;
}

/** The contract's ToolFailureRecord, under the name planners import. */
export type FailureRecord = ToolFailureRecord;

export type HistoryEntry =
  | { readonly kind: 'goal'; readonly goal: string }
  | { readonly kind: 'schema-error'; readonly call: ToolCall; readonly errors: readonly string[] }
  | { readonly kind: 'pass'; readonly call: ToolCall; readonly response: unknown; readonly state: WorldState }
  | { readonly kind: 'failure'; readonly record: ToolFailureRecord }
  /** The operator's answer to an escalation (planners drop the current step on skip). */
  | {
      readonly kind: 'operator';
      readonly escalation: Pick<Escalation, 'n' | 'cause' | 'reason'>;
      readonly decision: OperatorDecision;
    };

export interface History {
  readonly goal: string;
  readonly entries: readonly HistoryEntry[];
  readonly state: WorldState;
}

export type Proposal =
  | { readonly kind: 'call'; readonly call: ToolCall; readonly invalid?: string }
  | { readonly kind: 'done' }
  /**
   * `error`: the failure had a name Witness gives it (a timeout, a reply over its size limit): front ends exit with its
   * code.
   */
  | { readonly kind: 'give-up'; readonly reason: string; readonly error?: ErrorReport };

export interface Planner {
  next(h: History): Promise<Proposal>;
  /**
   * Whether the planner has another way past this permanent failure than the same call again (a
   * plan's alternative for its label, a recovery it knows): then it is replanned within the budget.
   * Without this method, or when it answers false, a permanent failure escalates at once.
   */
  handles?(failure: ToolFailureRecord, h: History): boolean;
}

/** The world as the loop sees it: skills to execute, sensors to observe (a world's tool capability). */
export type ToolWorld = Pick<Tools, 'observe' | 'execute'>;

export interface LoopOptions {
  /** Replan budget R. */
  readonly replans: number;
  /** The goal verifier: a CEL condition on the observed state. */
  readonly goal: string;
  /** Trust the skill's return value instead of checking conditions on the world (the lab's blind condition). */
  readonly blind?: boolean;
  /** Consecutive invalid proposals tolerated before escalating. */
  readonly maxSchemaErrors?: number;
  readonly maxSteps?: number;
  /** Seconds since the loop started (the injected clock). */
  readonly clock: () => number;
  readonly onEvent?: LoopEvents;
  /** Asked at each escalation past the budget or by the loop guard; without it those escalations end the run. */
  readonly decide?: Decide;
  /**
   * The operator's stop (stop, E-STOP): the running skill is cancelled at once (its abort signal),
   * nothing further is called, and the run ends as `stopped`.
   */
  readonly signal?: AbortSignal;
  /** A call about to run, with its preconditions checked on the state just observed (for live views; not audited). */
  readonly onCall?: (c: LoopCall) => void;
}

/** A call the loop is about to execute (or refused at a precondition), for the live views. */
export interface LoopCall {
  readonly tool: string;
  readonly args: unknown;
  readonly subtask: number;
  readonly timeout_s: number;
  readonly preconditions: readonly {
    readonly name: string;
    readonly expr: string;
    readonly pass: boolean;
    readonly observed: Record<string, unknown>;
    readonly error?: string;
  }[];
}

export type LoopEventKind = Extract<
  AuditEventKind,
  'tool_call' | 'verifier_result' | 'failure_record' | 'replan' | 'escalation' | 'operator_decision' | 'evidence'
>;

/** Where the loop's evidence goes, typed by the audit event catalogue. */
export type LoopEvents = <K extends LoopEventKind>(kind: K, body: AuditEventBody<K>) => void;

export interface LoopResult {
  /** `stopped`: the operator stopped it (not a failure). */
  readonly outcome: 'success' | 'escalated' | 'goal-not-met' | 'stopped';
  readonly reason: string;
  readonly state: WorldState;
  readonly toolCalls: number;
  readonly replans: number;
  readonly schemaErrors: number;
  readonly failures: readonly ToolFailureRecord[];
  readonly history: History;
  /** The success came after at least one replan. */
  readonly recovered: boolean;
  /** The operator's decisions, in order; the run was aborted when the last one is abort. */
  readonly decisions: readonly DecisionRecord[];
  readonly aborted: boolean;
  /**
   * The planner's failure that ended the run, when it was a named one (an LLM timeout: budget; a reply too large:
   * too-large).
   */
  readonly plannerError?: ErrorReport;
}

class Timeout extends Error {}
class Stopped extends Error {}

/**
 * The class of a failure no rule matched. A condition that cannot be evaluated will not start to by
 * repeating the call; a world error says by its kind whether trying again can help: a skill or an
 * action server that is not there, arguments the world refuses, a goal its server rejects, a world
 * closed or a robot that stopped answering will not change by themselves; a timeout, an abort, a
 * cancellation or a skill that failed may go through next time. A violated condition is transient.
 */
export const PERMANENT_WORLD_ERRORS: readonly WorldErrorKind[] = [
  'not-found',
  'invalid-input',
  'rejected',
  'closed',
  'disconnected',
];

/**
 * The label of a failure whose condition names an object (an entry of a map in the state) that is not there: permanent.
 */
export const MISSING_LABEL = 'missing-object';

function defaultClass(evaluationError: boolean, worldError: string | undefined): ToolFailureRecord['class'] {
  if (evaluationError) return 'permanent';
  if (worldError !== undefined)
    return (PERMANENT_WORLD_ERRORS as readonly string[]).includes(worldError) ? 'permanent' : 'transient';
  return 'transient';
}

async function withTimeout<T>(
  f: (signal: AbortSignal) => Promise<T>,
  timeout_s: number,
  stop?: AbortSignal,
): Promise<T> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onStop: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new Timeout());
    }, timeout_s * 1000);
    onStop = () => {
      // Settled as stopped first: the skill's own rejection on its abort signal comes after.
      reject(new Stopped());
      ac.abort(stop?.reason);
    };
    if (stop?.aborted === true) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
  });
  try {
    return await Promise.race([f(ac.signal), expired]);
  } finally {
    clearTimeout(timer);
    if (onStop !== undefined) stop?.removeEventListener('abort', onStop);
  }
}

const isStopped = (s: AbortSignal | undefined): boolean => s?.aborted === true;

/** The operator's words for a stop. */
const stopReason = (s: AbortSignal): string =>
  s.reason instanceof Error ? s.reason.message : typeof s.reason === 'string' ? s.reason : 'stopped by the operator';

export async function runLoop(
  tools: ReadonlyMap<string, RegisteredTool>,
  world: ToolWorld,
  planner: Planner,
  goal: string,
  o: LoopOptions,
): Promise<LoopResult> {
  const entries: HistoryEntry[] = [{ kind: 'goal', goal }];
  let state = await world.observe();
  const failures: ToolFailureRecord[] = [];
  const decisions: DecisionRecord[] = [];
  let replans = 0,
    budget = o.replans,
    schemaErrors = 0,
    consecutiveSchema = 0,
    toolCalls = 0,
    subtask = 0;
  const maxSchema = o.maxSchemaErrors ?? LOOP_DEFAULTS.maxSchemaErrors;
  const maxSteps = o.maxSteps ?? LOOP_DEFAULTS.maxSteps;
  const emit: LoopEvents = o.onEvent ?? ((): void => undefined);
  const history = (): History => ({ goal, entries: [...entries], state });
  /** `aborted`: the operator ended it, and its escalation was emitted before the question. */
  const end = (
    outcome: LoopResult['outcome'],
    reason: string,
    e: { aborted?: boolean; cause?: Escalation['cause']; error?: ErrorReport } = {},
  ): LoopResult => {
    if (outcome === 'escalated' && e.aborted !== true)
      emit(
        'escalation',
        escalationEvent({
          n: decisions.length + 1,
          cause: e.cause ?? 'replan-budget',
          reason,
          failures,
          replans,
          budget,
        }),
      );
    return {
      outcome,
      reason,
      state,
      toolCalls,
      replans,
      schemaErrors,
      failures,
      history: history(),
      recovered: outcome === 'success' && replans > 0,
      decisions,
      aborted: e.aborted === true,
      ...(e.error !== undefined ? { plannerError: e.error } : {}),
    };
  };
  const goalHolds = (): boolean => holds(o.goal, state) === true;
  for (let step = 0; step < maxSteps; step++) {
    if (isStopped(o.signal)) return end('stopped', `${stopReason(o.signal!)}; no skill was running`);
    const p = await o_next(planner, history());
    if (isStopped(o.signal)) return end('stopped', `${stopReason(o.signal!)}; no skill was running`);
    if (p.kind === 'give-up')
      return end('escalated', `the planner gave up: ${p.reason}`, {
        cause: 'gave-up',
        ...(p.error !== undefined ? { error: p.error } : {}),
      });
    if (p.kind === 'done')
      return goalHolds()
        ? end('success', 'the goal verifier confirms the goal')
        : end('goal-not-met', `the planner stopped but the goal verifier says "${o.goal}" does not hold`);
    const call = p.call;
    const tool = tools.get(call.tool);
    // Schema validation: nothing reaches the world until the arguments pass.
    // A proposal the planner could not even express (unparsable arguments, text instead of a call).
    const errors =
      p.invalid !== undefined
        ? [p.invalid]
        : tool === undefined
          ? [`unknown tool "${call.tool}" (tools: ${[...tools.keys()].join(', ')})`]
          : tool.validate(call.args)
            ? []
            : (tool.validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? e.keyword}`);
    if (errors.length > 0) {
      entries.push({ kind: 'schema-error', call, errors });
      emit('evidence', { instruction: call, verifier: 'schema', result: 'invalid', errors });
      schemaErrors++;
      if (++consecutiveSchema >= maxSchema)
        return end('escalated', `${consecutiveSchema} invalid proposals in a row: ${errors.join('; ')}`, {
          cause: 'invalid-proposals',
        });
      continue;
    }
    consecutiveSchema = 0;
    const t = tool!;
    // `pre` is the state just before the skill runs, observed now rather than taken from the last
    // call's end: a real world moves while the planner thinks. Preconditions are checked on it too.
    state = await world.observe();
    const b: Bound = { args: call.args, pre: state };
    /** `error`: the condition could not be evaluated; `worldError`: the execution failed (timeout, a WorldError). */
    const fail = (
      stage: ToolFailureRecord['stage'],
      c: { name: string; expr: string },
      error?: string,
      worldError?: { kind: string; message: string },
    ): ToolFailureRecord => {
      // A condition that names an object the state does not have is that, whatever else the state
      // shows: the tool's rules describe what is observed of objects that are there (an empty hand
      // is not a wrong object grasped), so they are not asked.
      const missing = error !== undefined ? missingEntry(c.expr, state, b) : null;
      // Failure rules also read the world error (empty strings when the execution did not fail).
      const rb: Bound = { ...b, error: worldError ?? { kind: '', message: '' } };
      const rule = missing !== null ? undefined : t.failures.find((f) => holds(f.when, state, rb) === true);
      const why =
        missing !== null
          ? `there is no ${JSON.stringify(missing.key)} in ${missing.in} in the observed state: the call names something the world does not have`
          : rule?.reason;
      return {
        source: 'tool',
        tool: t.name,
        args: call.args,
        violated: c.name,
        expr: c.expr,
        observed: observed(c.expr, state, b),
        t_s: o.clock(),
        class: rule?.class ?? defaultClass(error !== undefined, worldError?.kind),
        label:
          missing !== null
            ? MISSING_LABEL
            : (rule?.label ??
              (error !== undefined
                ? 'evaluation-error'
                : stage === 'timeout'
                  ? 'timeout'
                  : worldError !== undefined
                    ? `world-${worldError.kind}`
                    : `${c.name}-violated`)),
        stage,
        ...(error !== undefined ? { error } : {}),
        ...(worldError !== undefined ? { world_error: worldError } : {}),
        ...(why !== undefined ? { reason: why } : {}),
        subtask,
        state,
      };
    };
    let record: ToolFailureRecord | null = null;
    // Blind trusts return codes: no precondition or postcondition is checked against the world.
    const checked: LoopCall['preconditions'][number][] = [];
    for (const c of o.blind ? [] : t.preconditions) {
      const v = holds(c.expr, state, b);
      checked.push({
        name: c.name,
        expr: c.expr,
        pass: v === true,
        observed: observed(c.expr, state, b),
        ...(typeof v === 'string' ? { error: v } : {}),
      });
      if (v !== true) {
        record = fail('precondition', c, typeof v === 'string' ? v : undefined);
        break;
      }
    }
    o.onCall?.({ tool: t.name, args: call.args, subtask, timeout_s: t.timeout_s, preconditions: checked });
    if (record === null) {
      toolCalls++;
      let response: unknown = null;
      const started = o.clock();
      try {
        response = await withTimeout(
          (signal) => world.execute(t.skill, call.args, { timeout_s: t.timeout_s, signal }),
          t.timeout_s,
          o.signal,
        );
      } catch (e) {
        state = await world.observe();
        if (e instanceof Stopped || isStopped(o.signal))
          return end('stopped', `${stopReason(o.signal!)}; the running ${t.name} was cancelled`);
        const message = e instanceof Error ? e.message : String(e);
        record =
          e instanceof Timeout
            ? fail('timeout', { name: 'completed within timeout', expr: `true` }, undefined, {
                kind: 'timeout',
                message: `${t.name} did not complete within ${t.timeout_s} s; it was cancelled`,
              })
            : fail('world-error', { name: `the skill failed: ${message}`, expr: 'true' }, undefined, {
                kind: e instanceof WorldError ? e.kind : 'failed',
                message: e instanceof WorldError ? e.detail : message,
              });
      }
      if (record === null) {
        state = await world.observe();
        emit('tool_call', {
          tool: t.name,
          arguments: call.args,
          start_s: started,
          end_s: o.clock(),
          timeout_s: t.timeout_s,
          response,
        });
        // Postconditions on sensor evidence — never on the response (unless blind).
        if (!o.blind) {
          let violated: { c: { name: string; expr: string }; error?: string } | undefined;
          for (const c of t.postconditions) {
            const v = holds(c.expr, state, b);
            emit('verifier_result', {
              tool: t.name,
              postcondition: c.name,
              expr: c.expr,
              pass: v === true,
              observed: observed(c.expr, state, b),
              ...(typeof v === 'string' ? { error: v } : {}),
            });
            if (v !== true) violated ??= { c, ...(typeof v === 'string' ? { error: v } : {}) };
          }
          if (violated !== undefined) record = fail('postcondition', violated.c, violated.error);
        }
        if (record === null) {
          entries.push({ kind: 'pass', call, response, state });
          emit('evidence', {
            instruction: call,
            state,
            action: t.skill,
            verifier: o.blind ? 'trusted the return value' : 'postconditions hold',
            failure_label: null,
          });
          subtask++;
          if (goalHolds()) return end('success', 'the goal verifier confirms the goal');
          continue;
        }
      }
    }
    failures.push(record);
    entries.push({ kind: 'failure', record });
    emit('failure_record', record);
    emit('evidence', {
      instruction: call,
      state,
      action: t.skill,
      verifier: `${record.stage} "${record.violated}" failed`,
      failure_label: record.label,
    });
    const prev = failures[failures.length - 2];
    const looping =
      prev !== undefined &&
      prev.subtask === record.subtask &&
      prev.tool === record.tool &&
      prev.violated === record.violated &&
      prev.label === record.label &&
      JSON.stringify(prev.args) === JSON.stringify(record.args);
    let granted = false;
    // A permanent failure is not retried: unless the planner has another way past it, it escalates
    // at once, the replan budget unspent (the seed: transient → retry or adjust, permanent → escalate).
    const permanent = record.class === 'permanent' && planner.handles?.(record, history()) !== true;
    if (permanent || replans >= budget || looping) {
      const cause: EscalationCause = permanent
        ? 'permanent-failure'
        : replans >= budget
          ? 'replan-budget'
          : 'replan-loop';
      const reason =
        cause === 'permanent-failure'
          ? `permanent failure "${record.label}" of ${record.tool}: ${record.reason ?? `${record.stage} "${record.violated}" failed`}; not replanned (${replans} of ${budget} replans used)`
          : cause === 'replan-budget'
            ? `replan budget ${budget === o.replans ? `R = ${o.replans}` : `of ${budget} (R = ${o.replans} and the operator's retries)`} exhausted; ${failures.length} failure record(s)`
            : `replan loop: "${record.violated}" failed twice in a row on subtask ${record.subtask} with the same call`;
      if (o.decide === undefined) return end('escalated', reason, { cause });
      const esc: Escalation = {
        n: decisions.length + 1,
        cause,
        reason,
        failure: record,
        failures: [...failures],
        replans,
        budget,
        options: DECISIONS,
      };
      emit('escalation', escalationEvent(esc));
      const d = await askOperator(o.decide, esc);
      decisions.push({ ...d, escalation: esc.n, t_s: o.clock() });
      entries.push({ kind: 'operator', escalation: { n: esc.n, cause, reason }, decision: d });
      emit('operator_decision', decisionEvent(d, esc));
      if (d.decision === 'abort')
        return end('escalated', `${reason}; aborted by ${d.operator ?? 'the operator'}: ${d.reason}`, {
          aborted: true,
        });
      if (d.decision === 'skip') {
        // The budget is not renewed: the next failure comes back to the operator.
        subtask++;
        continue;
      }
      // A retry past a permanent failure spends a replan; the budget grows only when it is spent.
      if (cause !== 'permanent-failure' || replans >= budget) budget += Math.max(1, o.replans);
      granted = true;
    }
    replans++;
    emit('replan', { trigger: record.label, replan: replans, budget, ...(granted ? { granted_by: 'operator' } : {}) });
  }
  return end('escalated', `no result within ${maxSteps} planner steps`, { cause: 'step-limit' });
}

async function o_next(p: Planner, h: History): Promise<Proposal> {
  try {
    return await p.next(h);
  } catch (e) {
    const named = e instanceof WitnessError && e.code !== 'internal';
    return {
      kind: 'give-up',
      reason: e instanceof Error ? e.message : String(e),
      ...(named ? { error: errorReport(e) } : {}),
    };
  }
}
