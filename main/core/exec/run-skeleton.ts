/**
 * The run skeleton every mission driver stands on: the latent-graph tracker (mission.ts), the
 * waypoint driver of a robot's own navigation (waypoint-mission.ts) and the HIQL subgoal driver
 * (hiql-mission.ts). `RunTrace` is what each of them records step by step — the realised labels,
 * positions and step times, the runtime monitor over the labels, the prefix and suffix marks — and
 * how a run is judged: the lasso evaluator on the realised label word, T_pre, T_suf and NCC.
 * `RunSkeleton` adds what the plan-driven runs share: the plans made, executor events, failure
 * records and disagreements, the audit log and the operator, the replanning budget and its
 * escalations, and the run's end (its `run_end` record and result). The types a mission is seen
 * through (its result, tick, audit and control) are defined here for every driver and front end.
 * Pure: nothing here reads a clock or touches a world.
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import { type MonitorStep, StateSetMonitor } from '../ltl/monitor.js';
import { evaluateLasso } from '../ltl/lasso.js';
import { type PlanResult, DEFAULT_PLAN, deadline, plan } from '../plan/plan.js';
import { type Explanation, explainResult } from '../plan/explain.js';
import type { SemanticGraph } from '../plan/semantic.js';
import { type DocumentedPlan, planDocument } from '../plan/document.js';
import { type Region, labelAt } from '../world/regions.js';
import type { AuditEventBody, AuditEventKind } from '../../contract/audit-events.js';
import {
  MISSION_DECISIONS,
  PLAN_DEFAULTS,
  type MissionMethod,
  plannerOf,
  replansByDefault,
} from '../../contract/defaults.js';
import type { Decide, Escalation, MissionFailureRecord } from '../../contract/failure.js';
import { escalationEvent } from '../loop/escalation.js';
import type { ExecEvent } from './executor.js';
import { afterFailure } from './budget.js';

/** How a mission plans: the method chosen (its planner makes every plan of the run) and the planner's settings. */
export interface PlanChoice {
  readonly method: MissionMethod;
  readonly lambda: number;
  readonly k: number;
  readonly tauSoft: number;
}

/** Time budget of the explanation of an infeasible first plan. */
const EXPLAIN_LIMIT_MS = PLAN_DEFAULTS.apiTimeLimit_ms;

/**
 * A mission's plan, made and documented once (core/plan/document.ts): what the console serves before
 * Run and what a run records. `extra`: the replan's monitor states (`resume`), the executor when it
 * is not the learned one, the specification (`formula`: a first plan that cannot be made carries its
 * `explanation`).
 */
export function documentedPlan(
  g: SemanticGraph,
  automaton: BuchiAutomaton,
  o: PlanChoice,
  now: () => number,
  extra: { readonly resume?: readonly number[]; readonly executor?: 'waypoints'; readonly formula?: Formula } = {},
): DocumentedPlan {
  const method = plannerOf(o.method);
  const t0 = now();
  const result = plan(g, automaton, {
    ...DEFAULT_PLAN,
    method,
    k: o.k,
    lambda: o.lambda,
    tauSoft: o.tauSoft,
    ...(extra.resume ? { resume: extra.resume } : {}),
  });
  const planning_ms = now() - t0;
  // A first plan that cannot be made says why (core/plan/explain.ts), within the API's time budget.
  const explanation =
    extra.formula === undefined || extra.resume !== undefined
      ? undefined
      : explainResult(result, g, extra.formula, {
          plan: { ...DEFAULT_PLAN, lambda: o.lambda, tauSoft: o.tauSoft, check: deadline(EXPLAIN_LIMIT_MS, now) },
        });
  const document = planDocument(result, g, {
    method,
    k: o.k === Infinity ? 'all' : o.k,
    lambda: o.lambda,
    ...(extra.executor ? { executor: extra.executor } : {}),
    ...(extra.resume ? { resume: extra.resume } : {}),
    ...(explanation !== undefined ? { explanation } : {}),
  });
  return { result, graph: g, document, planning_ms };
}

/** Why a documented plan is not a plan: the planner's reason, and the explanation when it has one. */
export function noPlanText(document: Readonly<Record<string, unknown>>): string {
  const reason = (document['reason'] as { message?: string } | undefined)?.message ?? 'no plan';
  const why = document['explanation'] as Explanation | undefined;
  return why === undefined ? reason : `${reason}. Why: ${why.message}`;
}

/**
 * Refuses a shown plan that another planner made: the run records the method chosen, and its first plan must be that
 * method's.
 */
export function checkInitial(initial: DocumentedPlan | undefined, method: MissionMethod): void {
  if (initial !== undefined && initial.result.method !== plannerOf(method)) {
    throw new Error(`the plan shown was made with ${initial.result.method}, the run asks for ${method}`);
  }
}

/**
 * Table G.1's layers, plus the replanning outcomes, an operator's stop, and the world failing (a WorldError: stale
 * sensors, a refused start, a closed connection).
 */
export type FailureMode =
  'planning' | 'prefix' | 'suffix' | 'escalated' | 'unrecoverable' | 'stopped' | 'world' | 'safety';

export interface Disagreement {
  readonly t: number;
  readonly node: string;
  /** The automaton state the plan expected after this checkpoint, and the monitor's state set. */
  readonly planned: number;
  readonly monitor: readonly number[];
}

/** A plan of a run, as recorded (its document is the one the audit log's plan event names). */
export interface PlanRecord extends DocumentedPlan {
  readonly t: number;
}

export interface MissionResult {
  readonly success: boolean;
  /** Executor's own view: it completed the prefix and M suffix traversals. */
  readonly executorComplete: boolean;
  readonly failureMode: FailureMode | null;
  readonly message: string;
  /** Why the first plan failed (core/plan/diagnose.ts's reason kind), when the failure mode is 'planning'. */
  readonly planningReason?: string;
  readonly steps: number;
  readonly T_pre: number | null;
  readonly T_suf: number | null;
  readonly ncc: number;
  readonly plans: readonly PlanRecord[];
  readonly events: readonly ExecEvent[];
  readonly failures: readonly MissionFailureRecord[];
  readonly disagreements: readonly Disagreement[];
  /** Positions (x, y) per step and the label of each step. */
  readonly trajectory: Float32Array;
  readonly labels: readonly (readonly string[])[];
  /** The monitor's verdict at the end: some accepting continuation remains. */
  readonly monitorViable: boolean;
  /** Per-step time of embedding + policy + monitor, in ms. */
  readonly stepTimes_ms: Float64Array;
  /**
   * Steps on which guard-aware runtime steering (B.17–B.20) bent the executor's direction away from
   * a forbidden label's anchor, over every plan of the run; always 0 with steering off (the ablation).
   */
  readonly steeredSteps: number;
}

/**
 * Where a mission writes its evidence (the audit log): every plan with its certificate, executor and
 * monitor events, failure records, replans, the escalation and the outcome, typed by the audit event
 * catalogue. Calls must not block the control loop; the writer batches them.
 */
export interface MissionAudit {
  plan(t: number, trigger: string, doc: Record<string, unknown>, planning_ms: number): void;
  event<K extends MissionEventKind>(
    kind: K,
    body: AuditEventBody<K>,
    o?: { step?: number; failureLabel?: string },
  ): void;
}

type MissionEventKind = Extract<
  AuditEventKind,
  | 'checkpoint'
  | 'monitor_event'
  | 'failure_record'
  | 'replan'
  | 'escalation'
  | 'operator_decision'
  | 'evidence'
  | 'run_end'
>;

/** Where a mission stands in its plan, for the operator (waypoint k of n, suffix traversals m of M). */
export interface MissionProgress {
  readonly stream: 'prefix' | 'suffix';
  /** The target's index in its stream (0-based) and the stream's length in waypoints. */
  readonly index: number;
  readonly length: number;
  /** Suffix traversals completed, and how many the mission needs. */
  readonly traversals: number;
  readonly rounds: number;
}

/** One step as the operator sees it before the robot moves. */
export interface MissionTick {
  readonly t: number;
  readonly x: number;
  readonly y: number;
  readonly states: readonly number[];
  readonly labels: readonly string[];
  readonly target: string | null;
  readonly progress: MissionProgress;
  /** Task-space distance to the target waypoint, m (null without a target). */
  readonly distance_m: number | null;
  /**
   * Task-space speed over the last step, m/s of world time (null when unknown: the first step, a robot between goals).
   */
  readonly speed_mps: number | null;
}

/**
 * Speed over one step: the displacement between two poses over the world time between them (null when no time passed).
 */
export function stepSpeed(
  prev: { x: number; y: number; time_s: number } | null,
  x: number,
  y: number,
  time_s: number,
): number | null {
  if (prev === null || !(time_s > prev.time_s)) return null;
  return Math.hypot(x - prev.x, y - prev.y) / (time_s - prev.time_s);
}

/**
 * An operator in the loop (the console): sees every step before the robot moves, may hold it
 * (pause), stop it, or answer an escalation. Without one, a mission runs unattended as in the
 * benchmark, and an escalation ends it.
 */
export interface MissionControl {
  /** Before each step's action: resolves 'go', or 'stop' with the reason (stop, emergency stop). */
  step(tick: MissionTick): Promise<{ go: true } | { go: false; reason: string }>;
  /** Past the replanning budget: 'retry' grants another R replans, 'abort' ends the mission as escalated. */
  readonly decide: Decide;
  /** A new plan after a replan, for the views: its result on its graph and its document (as recorded). */
  replanned?(t: number, result: PlanResult, graph: SemanticGraph, document: Record<string, unknown>): void;
  /** Aborted when the operator stops (stop, E-STOP): cancels what the world is doing now (a robot's goal, a step). */
  readonly signal?: AbortSignal;
  /** A pose observed while the world acts on its own (a robot driving to its goal): for the live views; never waits. */
  observed?(tick: MissionTick): void;
}

/**
 * How a run ended, for its record. stopped: the operator stopped the run (stop, E-STOP, Ctrl-C: not a failure);
 * safety: the robot entered a forbidden region and the mission stopped it.
 */
export type Outcome = 'success' | 'stopped' | 'safety' | 'failed';
export const outcomeOf = (r: { readonly success: boolean; readonly failureMode: FailureMode | null }): Outcome =>
  r.success ? 'success' : r.failureMode === 'stopped' ? 'stopped' : r.failureMode === 'safety' ? 'safety' : 'failed';

/** The operator's words for a stop (the abort reason), for a mission's message. */
export const stopWords = (s: AbortSignal): string =>
  s.reason instanceof Error ? s.reason.message : typeof s.reason === 'string' ? s.reason : 'stopped by the operator';

/**
 * Finite-lasso success (Appendix E) on realised labels: the labels before `cycleStart` as the
 * prefix, those from `cycleStart` to `end` (inclusive) as the cycle, judged by the lasso evaluator.
 */
function lassoVerdict(
  formula: Formula,
  labels: readonly (readonly string[])[],
  cycleStart: number,
  end: number,
): boolean {
  const letters = labels.map((l) => new Set(l));
  const word = { prefix: letters.slice(0, cycleStart), cycle: letters.slice(cycleStart, end + 1) };
  return word.cycle.length > 0 && evaluateLasso(formula, word);
}

/** An executor event as the audit log records it (its label list copied). */
export function checkpointBody(e: ExecEvent): AuditEventBody<'checkpoint'> {
  const { labels, ...rest } = e as ExecEvent & { labels?: readonly string[] };
  if (rest.kind === 'recovery') return { ...rest, to: [rest.to[0], rest.to[1]] };
  return { ...rest, ...(labels !== undefined ? { labels: [...labels] } : {}) };
}

/** The step that completed the prefix, and the steps that completed each suffix traversal. */
export interface Marks {
  readonly prefixDone: number | null;
  readonly traversals: readonly number[];
}

/** T_pre (steps to the end of the prefix) and T_suf (steps of the first suffix traversal), null where not reached. */
export function lassoTimes(marks: Marks): { T_pre: number | null; T_suf: number | null } {
  const T_pre = marks.prefixDone;
  const T_suf = T_pre !== null && marks.traversals.length > 0 ? marks.traversals[0]! - T_pre : null;
  return { T_pre, T_suf };
}

/** Normalised cumulative cost: λ·T_pre + (1 − λ)·T_suf over C_max, capped at 1; 1 for a failure. */
export function nccOf(
  success: boolean,
  T_pre: number | null,
  T_suf: number | null,
  lambda: number,
  C_max: number,
): number {
  const cost = T_pre !== null && T_suf !== null ? lambda * T_pre + (1 - lambda) * T_suf : Infinity;
  return success ? Math.min(cost, C_max) / C_max : 1;
}

/** How a run ends: its verdict and words, and (escalated) the escalation it ends with. */
export interface RunEnd {
  readonly success: boolean;
  readonly failureMode: FailureMode | null;
  readonly message: string;
  readonly planningReason?: string;
  readonly escalation?: Escalation;
  /** The escalation is in the audit log already (the operator was asked). */
  readonly escalationRecorded?: boolean;
}

/** A run that failed with `failureMode`, in these words. */
export const failed = (failureMode: FailureMode, message: string): RunEnd => ({ success: false, failureMode, message });

/**
 * The verdict of a run whose executor completed: finite-lasso success (Appendix E) on the realised
 * labels, up to the start of the last suffix traversal as the prefix, that traversal as the cycle.
 * `completed` says what completed, for the message when the labels do not satisfy the formula.
 */
export function lassoEnd(
  formula: Formula,
  labels: readonly (readonly string[])[],
  marks: Marks,
  completed: string,
): RunEnd {
  const tr = marks.traversals;
  const cycleStart = (tr.length >= 2 ? tr[tr.length - 2]! : marks.prefixDone!) + 1;
  const ok = lassoVerdict(formula, labels, cycleStart, tr[tr.length - 1]!);
  return {
    success: ok,
    failureMode: ok ? null : 'suffix',
    message: ok
      ? `prefix and ${tr.length} suffix traversal(s) realised; the lasso evaluator accepts the realised labels`
      : `${completed}, but the realised label word does not satisfy the formula (finite-lasso check)`,
  };
}

const sameStates = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((q, i) => q === b[i]);

/**
 * What every driver records step by step: the label function on the pose, the runtime monitor over
 * the realised labels, the positions, the per-step times and the prefix/suffix marks.
 */
export class RunTrace {
  readonly labels: string[][] = [];
  /** Positions (x, y) per step. */
  readonly positions: number[] = [];
  /** Per-step times, ms. */
  readonly times: number[] = [];
  readonly monitor: StateSetMonitor;
  /** The step the prefix was completed at, and each suffix traversal's (reset by a replan where the driver says). */
  readonly marks: { prefixDone: number | null; traversals: number[] } = { prefixDone: null, traversals: [] };

  constructor(
    automaton: BuchiAutomaton,
    readonly regions: readonly Region[],
    protected readonly audit?: MissionAudit,
  ) {
    this.monitor = new StateSetMonitor(automaton);
  }

  /**
   * One step at (x, y): its label, the monitor stepped on it (a `monitor_event` in the audit log when
   * its states change), both recorded. `changed`: the monitor's states changed.
   */
  observe(x: number, y: number): { label: string[]; m: MonitorStep; changed: boolean } {
    const step = this.labels.length;
    const label = labelAt(this.regions, x, y);
    const before = this.monitor.snapshot().states;
    const m = this.monitor.step(label);
    const changed = !sameStates(m.states, before);
    if (changed)
      this.audit?.event(
        'monitor_event',
        { states: [...m.states], viable: m.viable, accepting: m.accepting, labels: label },
        { step },
      );
    this.labels.push(label);
    this.positions.push(x, y);
    return { label, m, changed };
  }

  /** The label of the last step ([] before any). */
  get lastLabel(): readonly string[] {
    return this.labels[this.labels.length - 1] ?? [];
  }
}

/** What a plan-driven run is asked: the formula, the NCC weights and the replanning budget. */
export interface SkeletonOptions {
  readonly automaton: BuchiAutomaton;
  readonly formula: Formula;
  readonly regions: readonly Region[];
  /** Prefix–suffix trade-off λ of NCC, and the rollout budget C_max. */
  readonly lambda: number;
  readonly maxSteps: number;
  /** Replan after a failure, within R replans (plus the operator's grants). */
  readonly replanning: boolean;
  readonly R: number;
  readonly audit?: MissionAudit;
  readonly control?: MissionControl;
  /** A stop without an operator in the loop (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** What a plan-driven driver is given: its mission and the caller's options. */
export interface PlanDrivenRun {
  readonly input: {
    readonly automaton: BuchiAutomaton;
    readonly formula: Formula;
    readonly regions: readonly Region[];
    readonly initial?: DocumentedPlan;
    readonly audit?: MissionAudit;
    readonly control?: MissionControl;
    readonly signal?: AbortSignal;
  };
  readonly options: {
    readonly method: MissionMethod;
    readonly lambda: number;
    readonly maxSteps: number;
    readonly replanning?: boolean;
    readonly replans: number;
  };
}

/**
 * The skeleton of a plan-driven run (the latent-graph tracker, the waypoint driver), after refusing a shown plan
 * another planner made; replanning by the method's default unless the caller says.
 */
export function startPlanDrivenRun({ input, options: o }: PlanDrivenRun): RunSkeleton {
  checkInitial(input.initial, o.method);
  return new RunSkeleton({
    automaton: input.automaton,
    formula: input.formula,
    regions: input.regions,
    lambda: o.lambda,
    maxSteps: o.maxSteps,
    replanning: o.replanning ?? replansByDefault(o.method),
    R: o.replans,
    ...(input.audit ? { audit: input.audit } : {}),
    ...(input.control ? { control: input.control } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
}

/** Where the executor stands at the run's end: its marks, whether it completed, its steered steps. */
export interface ExecutorState {
  readonly marks: Marks;
  readonly complete: boolean;
  readonly steeredSteps: number;
}

/**
 * A plan-driven run (the latent-graph tracker, the waypoint driver): the trace, and the plans, events,
 * failure records, disagreements, replans and escalations, with the run's audit log and operator.
 */
export class RunSkeleton extends RunTrace {
  readonly plans: PlanRecord[] = [];
  readonly events: ExecEvent[] = [];
  readonly failures: MissionFailureRecord[] = [];
  readonly disagreements: Disagreement[] = [];
  /** Replans made, the budget now (R plus the operator's grants) and escalations so far. */
  replans = 0;
  budget: number;
  private escalations = 0;
  readonly control: MissionControl | undefined;
  /** The operator's stops, from the caller (Ctrl-C) or the console's control, and one signal aborted by either. */
  readonly stops: readonly AbortSignal[];
  readonly stop: AbortSignal | undefined;

  constructor(private readonly o: SkeletonOptions) {
    super(o.automaton, o.regions, o.audit);
    this.budget = o.replanning ? o.R : 0;
    this.control = o.control;
    this.stops = [o.signal, o.control?.signal].filter((x): x is AbortSignal => x !== undefined);
    this.stop = this.stops.length <= 1 ? this.stops[0] : AbortSignal.any([...this.stops]);
  }

  get log(): MissionAudit | undefined {
    return this.audit;
  }

  /** A plan into the run's record and the audit log, its document as it was made. */
  recordPlan(p: DocumentedPlan, t: number, trigger: 'initial' | 'replan'): DocumentedPlan {
    this.plans.push({ t, result: p.result, graph: p.graph, document: p.document, planning_ms: p.planning_ms });
    this.audit?.plan(t, trigger, p.document, p.planning_ms);
    return p;
  }

  /** An executor event into the run's record and the audit log. */
  emit(e: ExecEvent): void {
    this.events.push(e);
    this.audit?.event('checkpoint', checkpointBody(e), { step: e.t });
  }

  /** A failure record into the run's record and the audit log. */
  fail(record: MissionFailureRecord, t: number): void {
    this.failures.push(record);
    this.audit?.event('failure_record', record, { step: t, failureLabel: record.label });
  }

  /** The question past the budget (or after a replan found no plan), in the contract's one shape. */
  escalation(cause: Escalation['cause'], reason: string, t: number, budget: number = this.budget): Escalation {
    return {
      n: ++this.escalations,
      cause,
      reason,
      failure: this.failures[this.failures.length - 1]!,
      failures: [...this.failures],
      replans: this.replans,
      budget,
      options: MISSION_DECISIONS,
      step: t,
    };
  }

  /**
   * After a failure at step t: recorded; an unrecoverable one ends the run, and otherwise the
   * budget decides (budget.ts): the run's end, or null when the driver is to replan (counted here).
   */
  async recover(record: MissionFailureRecord, stage: FailureMode, t: number): Promise<RunEnd | null> {
    this.fail(record, t);
    if (record.unrecoverable) return failed('unrecoverable', record.rule);
    const v = await afterFailure({
      replanning: this.o.replanning,
      R: this.o.R,
      replans: this.replans,
      budget: this.budget,
      failures: this.failures,
      record,
      stage,
      t,
      escalation: (cause, reason, at, budget) => this.escalation(cause, reason, at, budget),
      ...(this.control ? { control: this.control } : {}),
      ...(this.audit ? { audit: this.audit } : {}),
    });
    if (v.kind === 'end')
      return {
        ...failed(v.failureMode, v.message),
        escalationRecorded: v.recorded,
        ...(v.escalation ? { escalation: v.escalation } : {}),
      };
    this.budget = v.budget;
    this.replans++;
    return null;
  }

  /** A replan's failure to find a plan ends the run escalated. */
  noPlan(message: string, reason: string, t: number): RunEnd {
    return { ...failed('escalated', message), escalation: this.escalation('no-plan', reason, t) };
  }

  /**
   * The replan's plan, recorded; its `replan` event and the views told when there is one, else the
   * run's end (escalated: no plan). `from` is the failure record that triggered it.
   */
  replanned(next: DocumentedPlan, t: number, from: MissionFailureRecord): RunEnd | null {
    this.recordPlan(next, t, 'replan');
    const again = next.result;
    if (again.status !== 'ok') {
      const message = `replan ${this.replans} found no plan: ${again.reason.message}`;
      return this.noPlan(message, message, t);
    }
    this.audit?.event(
      'replan',
      {
        trigger: from.kind,
        failure: this.failures.length - 1,
        replan: this.replans,
        from_states: [...this.monitor.snapshot().states],
        prefix_nodes: again.prefixLength,
      },
      { step: t },
    );
    this.control?.replanned?.(t, again, next.graph, next.document);
    return null;
  }

  /** The run's end after `steps` steps: its escalation and `run_end` into the audit log, and its result. */
  finish(end: RunEnd, steps: number, exec: ExecutorState): MissionResult {
    const { escalationRecorded, escalation: esc, ...result } = end;
    if (end.failureMode === 'escalated' && escalationRecorded !== true && esc !== undefined)
      this.audit?.event('escalation', escalationEvent(esc), { step: esc.step ?? 0 });
    const { T_pre, T_suf } = lassoTimes(exec.marks);
    const ncc = nccOf(end.success, T_pre, T_suf, this.o.lambda, this.o.maxSteps);
    this.audit?.event(
      'run_end',
      {
        outcome: outcomeOf(end),
        failureMode: end.failureMode,
        message: end.message,
        steps,
        T_pre,
        T_suf,
        ncc,
        replans: this.replans,
      },
      { step: steps },
    );
    return {
      executorComplete: exec.complete,
      steps,
      T_pre,
      T_suf,
      ncc,
      plans: this.plans,
      events: this.events,
      failures: this.failures,
      disagreements: this.disagreements,
      trajectory: Float32Array.from(this.positions),
      labels: this.labels,
      monitorViable: this.monitor.snapshot().viable,
      stepTimes_ms: Float64Array.from(this.times),
      steeredSteps: exec.steeredSteps,
      ...result,
    };
  }
}
