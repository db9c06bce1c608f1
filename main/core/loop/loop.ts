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
import type { RuleMonitor, RuleVerdict } from './rule-monitor.js';

export interface ToolCall {
  readonly tool: string;
  readonly args: unknown;
}

/** The contract's ToolFailureRecord, under the name planners import. */
export type FailureRecord = ToolFailureRecord;

type HistoryEntry =
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
  /** The rules the loop enforces (a rules file), with what they demand of the next call now. */
  readonly rules?: RulesView;
}

/** What a planner is told of the rules: each rule, the propositions, the pending obligations in words. */
export interface RulesView {
  readonly rules: readonly { readonly name: string; readonly ltl: string; readonly description?: string }[];
  readonly propositions: readonly { readonly name: string; readonly expr: string }[];
  readonly obligations: readonly string[];
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
  /**
   * The rules' monitor (a rules file): a call that would break a rule is refused before it runs (a failure record of
   * stage `rule`, then a replan); a rule broken on the evidence after a call escalates to the operator.
   */
  readonly rules?: RuleMonitor;
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

type LoopEventKind = Extract<
  AuditEventKind,
  | 'tool_call'
  | 'verifier_result'
  | 'failure_record'
  | 'replan'
  | 'escalation'
  | 'operator_decision'
  | 'evidence'
  | 'rule_verdict'
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
const PERMANENT_WORLD_ERRORS: readonly WorldErrorKind[] = [
  'not-found',
  'invalid-input',
  'rejected',
  'closed',
  'disconnected',
];

/**
 * The label of a failure whose condition names an object (an entry of a map in the state) that is not there: permanent.
 */
const MISSING_LABEL = 'missing-object';

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

/** The bookkeeping of one run of the loop, shared by the steps below. */
interface Run {
  readonly tools: ReadonlyMap<string, RegisteredTool>;
  readonly world: ToolWorld;
  readonly planner: Planner;
  readonly goal: string;
  readonly o: LoopOptions;
  readonly emit: LoopEvents;
  readonly entries: HistoryEntry[];
  readonly failures: ToolFailureRecord[];
  readonly decisions: DecisionRecord[];
  state: WorldState;
  replans: number;
  budget: number;
  schemaErrors: number;
  consecutiveSchema: number;
  toolCalls: number;
  subtask: number;
}

/** A condition as a failure names it. */
interface Condition {
  readonly name: string;
  readonly expr: string;
}

const historyOf = (r: Run): History => ({
  goal: r.goal,
  entries: [...r.entries],
  state: r.state,
  ...(r.o.rules !== undefined ? { rules: rulesView(r.o.rules) } : {}),
});

function rulesView(m: RuleMonitor): RulesView {
  return {
    rules: m.set.rules.map((x) => ({
      name: x.name,
      ltl: x.ltl,
      ...(x.description !== undefined ? { description: x.description } : {}),
    })),
    propositions: m.set.propositions,
    obligations: m.obligations(),
  };
}

/** `aborted`: the operator ended it, and its escalation was emitted before the question. */
function endRun(
  r: Run,
  outcome: LoopResult['outcome'],
  reason: string,
  e: { aborted?: boolean; cause?: Escalation['cause']; error?: ErrorReport } = {},
): LoopResult {
  if (outcome === 'escalated' && e.aborted !== true)
    r.emit(
      'escalation',
      escalationEvent({
        n: r.decisions.length + 1,
        cause: e.cause ?? 'replan-budget',
        reason,
        failures: r.failures,
        replans: r.replans,
        budget: r.budget,
      }),
    );
  return {
    outcome,
    reason,
    state: r.state,
    toolCalls: r.toolCalls,
    replans: r.replans,
    schemaErrors: r.schemaErrors,
    failures: r.failures,
    history: historyOf(r),
    recovered: outcome === 'success' && r.replans > 0,
    decisions: r.decisions,
    aborted: e.aborted === true,
    ...(e.error !== undefined ? { plannerError: e.error } : {}),
  };
}

const goalHolds = (r: Run): boolean => holds(r.o.goal, r.state) === true;

export async function runLoop(
  tools: ReadonlyMap<string, RegisteredTool>,
  world: ToolWorld,
  planner: Planner,
  goal: string,
  o: LoopOptions,
): Promise<LoopResult> {
  const r: Run = {
    tools,
    world,
    planner,
    goal,
    o,
    emit: o.onEvent ?? ((): void => undefined),
    entries: [{ kind: 'goal', goal }],
    failures: [],
    decisions: [],
    state: await world.observe(),
    replans: 0,
    budget: o.replans,
    schemaErrors: 0,
    consecutiveSchema: 0,
    toolCalls: 0,
    subtask: 0,
  };
  const maxSteps = o.maxSteps ?? LOOP_DEFAULTS.maxSteps;
  for (let step = 0; step < maxSteps; step++) {
    if (isStopped(o.signal)) return endRun(r, 'stopped', `${stopReason(o.signal!)}; no skill was running`);
    const p = await o_next(planner, historyOf(r));
    if (isStopped(o.signal)) return endRun(r, 'stopped', `${stopReason(o.signal!)}; no skill was running`);
    if (p.kind === 'give-up')
      return endRun(r, 'escalated', `the planner gave up: ${p.reason}`, {
        cause: 'gave-up',
        ...(p.error !== undefined ? { error: p.error } : {}),
      });
    if (p.kind === 'done')
      return goalHolds(r)
        ? endRun(r, 'success', 'the goal verifier confirms the goal')
        : endRun(r, 'goal-not-met', `the planner stopped but the goal verifier says "${o.goal}" does not hold`);
    const ended = await callStep(r, p);
    if (ended !== null) return ended;
  }
  return endRun(r, 'escalated', `no result within ${maxSteps} planner steps`, { cause: 'step-limit' });
}

/** Why a proposal cannot run: schema validation, so nothing reaches the world until the arguments pass. */
function proposalErrors(tools: ReadonlyMap<string, RegisteredTool>, p: Extract<Proposal, { kind: 'call' }>): string[] {
  const tool = tools.get(p.call.tool);
  // A proposal the planner could not even express (unparsable arguments, text instead of a call).
  if (p.invalid !== undefined) return [p.invalid];
  if (tool === undefined) return [`unknown tool "${p.call.tool}" (tools: ${[...tools.keys()].join(', ')})`];
  if (tool.validate(p.call.args)) return [];
  return (tool.validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? e.keyword}`);
}

/** One proposed call, from validation to its failure handling: the run's result when it ends, null to go on. */
async function callStep(r: Run, p: Extract<Proposal, { kind: 'call' }>): Promise<LoopResult | null> {
  const call = p.call;
  const errors = proposalErrors(r.tools, p);
  if (errors.length > 0) {
    r.entries.push({ kind: 'schema-error', call, errors });
    r.emit('evidence', { instruction: call, verifier: 'schema', result: 'invalid', errors });
    r.schemaErrors++;
    if (++r.consecutiveSchema >= (r.o.maxSchemaErrors ?? LOOP_DEFAULTS.maxSchemaErrors))
      return endRun(r, 'escalated', `${r.consecutiveSchema} invalid proposals in a row: ${errors.join('; ')}`, {
        cause: 'invalid-proposals',
      });
    return null;
  }
  r.consecutiveSchema = 0;
  const t = r.tools.get(call.tool)!;
  // `pre` is the state just before the skill runs, observed now rather than taken from the last
  // call's end: a real world moves while the planner thinks. Preconditions are checked on it too.
  r.state = await r.world.observe();
  const b: Bound = { args: call.args, pre: r.state };
  let record = checkRules(r, t, call) ?? checkPreconditions(r, t, call, b);
  if (record === null) {
    const ran = await runSkill(r, t, call, b);
    if ('ended' in ran) return ran.ended;
    if (ran.record === null) return null;
    record = ran.record;
  }
  return onFailure(r, t, call, record);
}

/**
 * The record of a failed call. `error`: the condition could not be evaluated; `worldError`: the execution failed (a
 * timeout, a WorldError).
 */
function failureRecord(
  r: Run,
  t: RegisteredTool,
  call: ToolCall,
  b: Bound,
  stage: ToolFailureRecord['stage'],
  c: Condition,
  error?: string,
  worldError?: { kind: string; message: string },
): ToolFailureRecord {
  const state = r.state;
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
    t_s: r.o.clock(),
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
    subtask: r.subtask,
    state,
  };
}

/** The rules' verdict on a call before it runs: the refusal's failure record, or null (none, or no rules). */
function checkRules(r: Run, t: RegisteredTool, call: ToolCall): ToolFailureRecord | null {
  const m = r.o.rules;
  if (m === undefined) return null;
  const v = m.predict(call, t, r.state);
  emitVerdict(r, m, call, v);
  return v.ok ? null : ruleRecord(r, call, v);
}

function emitVerdict(r: Run, m: RuleMonitor, call: ToolCall, v: RuleVerdict): void {
  const { phase, ok, letter, open, broken, observed: seen, errors } = v;
  r.emit('rule_verdict', {
    phase,
    ok,
    tool: call.tool,
    arguments: call.args,
    letter: [...letter],
    open: [...open],
    ...(v.rule !== undefined ? { rule: v.rule, ltl: v.ltl!, proposition: v.proposition! } : {}),
    broken: [...broken],
    observed: seen,
    errors: errors.map((e) => ({ ...e })),
    rules: m.status().map((s) => ({ ...s, states: [...s.states] })),
    // After the call the monitor has moved: what the calls so far have left pending for the next one.
    ...(phase === 'observed' ? { obligations: m.pending() } : {}),
  });
}

/** The failure record of a rule's verdict: refused before the call (transient: replanned) or broken after it. */
function ruleRecord(r: Run, call: ToolCall, v: RuleVerdict): ToolFailureRecord {
  const predicted = v.phase === 'predicted';
  const name = v.rule!;
  return {
    source: 'tool',
    tool: call.tool,
    args: call.args,
    violated: name,
    expr: v.ltl!,
    observed: v.observed,
    t_s: r.o.clock(),
    class: predicted ? 'transient' : 'permanent',
    label: predicted ? 'rule-refused' : 'rule-violated',
    stage: 'rule',
    rule: { name, ltl: v.ltl!, proposition: v.proposition!, phase: v.phase },
    reason: predicted
      ? `the call would break rule "${name}" (${v.ltl}) on ${v.proposition}: refused before anything moved`
      : `the evidence after the call broke rule "${name}" (${v.ltl}) on ${v.proposition}`,
    subtask: r.subtask,
    state: r.state,
  };
}

/**
 * Steps the rules on the evidence after an executed call; a broken rule is recorded and put to the operator (the run's
 * end without one, or on abort). The broken rules restart from their initial states when the run goes on.
 */
async function watchRules(r: Run, call: ToolCall): Promise<LoopResult | null> {
  const m = r.o.rules;
  if (m === undefined) return null;
  const v = m.advance(call, r.state);
  emitVerdict(r, m, call, v);
  if (v.ok) return null;
  const record = ruleRecord(r, call, v);
  r.failures.push(record);
  r.entries.push({ kind: 'failure', record });
  r.emit('failure_record', record);
  const answer = await escalate(r, record, 'rule-violation');
  if (answer !== null && answer !== 'retry') return answer;
  for (const name of v.broken) m.restart(name);
  return null;
}

/** The preconditions on the state just observed (blind trusts return codes: none), reported to `onCall`. */
function checkPreconditions(r: Run, t: RegisteredTool, call: ToolCall, b: Bound): ToolFailureRecord | null {
  let record: ToolFailureRecord | null = null;
  const checked: LoopCall['preconditions'][number][] = [];
  for (const c of r.o.blind ? [] : t.preconditions) {
    const v = holds(c.expr, r.state, b);
    checked.push({
      name: c.name,
      expr: c.expr,
      pass: v === true,
      observed: observed(c.expr, r.state, b),
      ...(typeof v === 'string' ? { error: v } : {}),
    });
    if (v !== true) {
      record = failureRecord(r, t, call, b, 'precondition', c, typeof v === 'string' ? v : undefined);
      break;
    }
  }
  r.o.onCall?.({ tool: t.name, args: call.args, subtask: r.subtask, timeout_s: t.timeout_s, preconditions: checked });
  return record;
}

/**
 * Executes the skill within its timeout and checks its postconditions: the failure, null when it passed (its
 * evidence emitted), or the run's end when the operator stopped it.
 */
async function runSkill(
  r: Run,
  t: RegisteredTool,
  call: ToolCall,
  b: Bound,
): Promise<{ ended: LoopResult } | { record: ToolFailureRecord | null }> {
  const o = r.o;
  r.toolCalls++;
  let response: unknown = null;
  const started = o.clock();
  try {
    response = await withTimeout(
      (signal) => r.world.execute(t.skill, call.args, { timeout_s: t.timeout_s, signal }),
      t.timeout_s,
      o.signal,
    );
  } catch (e) {
    r.state = await r.world.observe();
    if (e instanceof Stopped || isStopped(o.signal))
      return { ended: endRun(r, 'stopped', `${stopReason(o.signal!)}; the running ${t.name} was cancelled`) };
    const broken = await watchRules(r, call);
    if (broken !== null) return { ended: broken };
    const message = e instanceof Error ? e.message : String(e);
    const record =
      e instanceof Timeout
        ? failureRecord(r, t, call, b, 'timeout', { name: 'completed within timeout', expr: `true` }, undefined, {
            kind: 'timeout',
            message: `${t.name} did not complete within ${t.timeout_s} s; it was cancelled`,
          })
        : failureRecord(
            r,
            t,
            call,
            b,
            'world-error',
            { name: `the skill failed: ${message}`, expr: 'true' },
            undefined,
            {
              kind: e instanceof WorldError ? e.kind : 'failed',
              message: e instanceof WorldError ? e.detail : message,
            },
          );
    return { record };
  }
  r.state = await r.world.observe();
  r.emit('tool_call', {
    tool: t.name,
    arguments: call.args,
    start_s: started,
    end_s: o.clock(),
    timeout_s: t.timeout_s,
    response,
  });
  const broken = await watchRules(r, call);
  if (broken !== null) return { ended: broken };
  const record = checkPostconditions(r, t, call, b);
  if (record !== null) return { record };
  r.entries.push({ kind: 'pass', call, response, state: r.state });
  r.emit('evidence', {
    instruction: call,
    state: r.state,
    action: t.skill,
    verifier: o.blind ? 'trusted the return value' : 'postconditions hold',
    failure_label: null,
  });
  r.subtask++;
  return goalHolds(r) ? { ended: endRun(r, 'success', 'the goal verifier confirms the goal') } : { record: null };
}

/** Postconditions on sensor evidence — never on the response (unless blind, when none are checked). */
function checkPostconditions(r: Run, t: RegisteredTool, call: ToolCall, b: Bound): ToolFailureRecord | null {
  if (r.o.blind) return null;
  let violated: { c: Condition; error?: string } | undefined;
  for (const c of t.postconditions) {
    const v = holds(c.expr, r.state, b);
    r.emit('verifier_result', {
      tool: t.name,
      postcondition: c.name,
      expr: c.expr,
      pass: v === true,
      observed: observed(c.expr, r.state, b),
      ...(typeof v === 'string' ? { error: v } : {}),
    });
    if (v !== true) violated ??= { c, ...(typeof v === 'string' ? { error: v } : {}) };
  }
  return violated === undefined ? null : failureRecord(r, t, call, b, 'postcondition', violated.c, violated.error);
}

/** Records a failure, then replans or escalates: the run's result when it ends, null to go on. */
async function onFailure(
  r: Run,
  t: RegisteredTool,
  call: ToolCall,
  record: ToolFailureRecord,
): Promise<LoopResult | null> {
  r.failures.push(record);
  r.entries.push({ kind: 'failure', record });
  r.emit('failure_record', record);
  r.emit('evidence', {
    instruction: call,
    state: r.state,
    action: t.skill,
    verifier: `${record.stage} "${record.violated}" failed`,
    failure_label: record.label,
  });
  const prev = r.failures[r.failures.length - 2];
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
  const permanent = record.class === 'permanent' && r.planner.handles?.(record, historyOf(r)) !== true;
  if (permanent || r.replans >= r.budget || looping) {
    const cause: EscalationCause = permanent
      ? 'permanent-failure'
      : r.replans >= r.budget
        ? 'replan-budget'
        : 'replan-loop';
    const answer = await escalate(r, record, cause);
    if (answer !== 'retry') return answer;
    granted = true;
  }
  r.replans++;
  r.emit('replan', {
    trigger: record.label,
    replan: r.replans,
    budget: r.budget,
    ...(granted ? { granted_by: 'operator' } : {}),
  });
  return null;
}

/**
 * An escalation: the run's end without an operator or on abort, null on skip (the next subtask), `retry` when the
 * operator grants another replan.
 */
async function escalate(
  r: Run,
  record: ToolFailureRecord,
  cause: EscalationCause,
): Promise<LoopResult | null | 'retry'> {
  const { o, replans, budget, failures } = r;
  const reason =
    cause === 'permanent-failure'
      ? `permanent failure "${record.label}" of ${record.tool}: ${record.reason ?? `${record.stage} "${record.violated}" failed`}; not replanned (${replans} of ${budget} replans used)`
      : cause === 'replan-budget'
        ? `replan budget ${budget === o.replans ? `R = ${o.replans}` : `of ${budget} (R = ${o.replans} and the operator's retries)`} exhausted; ${failures.length} failure record(s)`
        : cause === 'rule-violation'
          ? `rule violation: ${record.reason ?? `rule "${record.violated}" broken`}`
          : `replan loop: "${record.violated}" failed twice in a row on subtask ${record.subtask} with the same call`;
  if (o.decide === undefined) return endRun(r, 'escalated', reason, { cause });
  const esc: Escalation = {
    n: r.decisions.length + 1,
    cause,
    reason,
    failure: record,
    failures: [...failures],
    replans,
    budget,
    options: DECISIONS,
  };
  r.emit('escalation', escalationEvent(esc));
  const d = await askOperator(o.decide, esc);
  r.decisions.push({ ...d, escalation: esc.n, t_s: o.clock() });
  r.entries.push({ kind: 'operator', escalation: { n: esc.n, cause, reason }, decision: d });
  r.emit('operator_decision', decisionEvent(d, esc));
  if (d.decision === 'abort')
    return endRun(r, 'escalated', `${reason}; aborted by ${d.operator ?? 'the operator'}: ${d.reason}`, {
      aborted: true,
    });
  if (d.decision === 'skip') {
    // The budget is not renewed: the next failure comes back to the operator.
    r.subtask++;
    return null;
  }
  // A retry past a permanent failure spends a replan; the budget grows only when it is spent.
  // Going on past a rule violation spends nothing: the call is done; its rule restarts.
  if (cause === 'rule-violation') return 'retry';
  if (cause !== 'permanent-failure' || replans >= budget) r.budget += Math.max(1, o.replans);
  return 'retry';
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
