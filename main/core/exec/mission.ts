/**
 * One mission end to end on a navigation world: plan on the task's semantic graph (or take the plan
 * a front end showed, as it is), execute with the
 * frozen policy (Algorithm B.3), keep the runtime monitor over the realised label word alongside the
 * plan's bookkeeping, replan after failures (method `sagas-replan`, or `replanning`; budget R), escalate past the
 * budget, and decide success with the lasso evaluator on the realised labels — not with the
 * executor's bookkeeping. Pure: the world, the policy, the clock, the audit log and the operator
 * are all injected (app/mission.ts assembles them for every front end).
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import { StateSetMonitor } from '../ltl/monitor.js';
import { evaluateLasso } from '../ltl/lasso.js';
import { type Plan, type PlanResult, DEFAULT_PLAN, plan } from '../plan/plan.js';
import type { SemanticGraph } from '../plan/semantic.js';
import {
  type ExecEvent,
  type ExecParams,
  type ExecPlan,
  Executor,
  execPlan,
  restKey,
  waypointPositions,
} from './executor.js';
import { classifyFailure, replanGraph } from './replan.js';
import { type Region, labelAt } from '../world/regions.js';
import { type DocumentedPlan, planDocument } from '../plan/document.js';
import { type Navigation, type NavState, WorldError } from '../world/world.js';
import type { AuditEventBody, AuditEventKind } from '../../contract/audit-events.js';
import { MISSION_DECISIONS, type MissionMethod, plannerOf, replansByDefault } from '../../contract/defaults.js';
import type { Decide, Escalation, MissionFailureRecord } from '../../contract/failure.js';
import { escalationEvent } from '../loop/escalation.js';
import { afterFailure } from './budget.js';

/** How a mission plans: the method chosen (its planner makes every plan of the run) and the planner's settings. */
export interface PlanChoice {
  readonly method: MissionMethod;
  readonly lambda: number;
  readonly k: number;
  readonly tauSoft: number;
}

export interface MissionOptions extends PlanChoice {
  readonly exec: ExecParams;
  /** The rollout budget C_max (Table J.1, AntMaze: 8000). */
  readonly maxSteps: number;
  /** Replanning budget R (sagas-replan). */
  readonly replans: number;
  /** Replan after a failure within R (default: the method is sagas-replan; the console replans with any planner). */
  readonly replanning?: boolean;
  readonly seed: number;
}

/**
 * A mission's plan, made and documented once (core/plan/document.ts): what the console serves before
 * Run and what runMission records. `extra`: the replan's monitor states (`resume`), the executor
 * when it is not the learned one.
 */
export function documentedPlan(
  g: SemanticGraph,
  automaton: BuchiAutomaton,
  o: PlanChoice,
  now: () => number,
  extra: { readonly resume?: readonly number[]; readonly executor?: 'waypoints' } = {},
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
  const document = planDocument(result, g, {
    method,
    k: o.k === Infinity ? 'all' : o.k,
    lambda: o.lambda,
    ...(extra.executor ? { executor: extra.executor } : {}),
    ...(extra.resume ? { resume: extra.resume } : {}),
  });
  return { result, graph: g, document, planning_ms };
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

export type MissionEventKind = Extract<
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

/** The learned low-level policy: ψ (embed) and π_low (act), batched over rows. */
export interface Policy {
  embed(obs: Float32Array, rows: number): Promise<Float32Array>;
  act(obs: Float32Array, direction: Float32Array, rows: number): Promise<Float32Array>;
}

export interface MissionInput {
  readonly world: Navigation;
  readonly policy: Policy;
  readonly graph: SemanticGraph;
  readonly automaton: BuchiAutomaton;
  readonly formula: Formula;
  /** The task's regions: the label function L(s) evaluated on the world's pose. */
  readonly regions: readonly Region[];
  readonly start: readonly [number, number];
  readonly audit?: MissionAudit;
  readonly control?: MissionControl;
  /**
   * A stop without an operator in the loop (Ctrl-C in `witness run`): the step in progress is
   * cancelled and the mission ends as stopped, as the console's stop does.
   */
  readonly signal?: AbortSignal;
  /** Milliseconds on a monotonic clock, for the per-step times (default: none measured). */
  readonly now?: () => number;
  /**
   * The plan the operator was shown (documentedPlan, on this task's graph, with this method):
   * executed and recorded as it is instead of a first search, so what runs is what was shown.
   */
  readonly initial?: DocumentedPlan;
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

export async function runMission(input: MissionInput, o: MissionOptions): Promise<MissionResult> {
  const { world, policy: models, automaton, formula, regions } = input;
  const now = input.now ?? ((): number => 0);
  checkInitial(input.initial, o.method);
  const replanning = o.replanning ?? replansByDefault(o.method);
  let replanBudget = replanning ? o.replans : 0;
  const control = input.control;
  // The operator's stop, from the caller (Ctrl-C) or the console's control: either ends the mission as stopped.
  const stops = [input.signal, control?.signal].filter((x): x is AbortSignal => x !== undefined);
  const stopSignal = stops.length === 0 ? undefined : stops.length === 1 ? stops[0] : AbortSignal.any(stops);
  const plans: PlanRecord[] = [];
  const events: ExecEvent[] = [];
  const failures: MissionFailureRecord[] = [];
  const disagreements: Disagreement[] = [];
  const labels: string[][] = [];
  const traj: number[] = [];
  const times: number[] = [];
  const monitor = new StateSetMonitor(automaton);
  let state: NavState;
  let escalations = 0;
  /** Steered steps of the executors of earlier plans (a replan starts a new executor). */
  let steeredBefore = 0;

  const audit = input.audit;
  // The map's clearance, where it has one, keeps skip-ahead off walls (ExecParams.clearance_m).
  const clearance = world.map.clearance?.bind(world.map);
  /** A plan into the run's record and the audit log, its document as it was made. */
  const recordPlan = (p: DocumentedPlan, t: number, trigger: 'initial' | 'replan'): DocumentedPlan => {
    plans.push({ t, ...p });
    audit?.plan(t, trigger, p.document, p.planning_ms);
    return p;
  };
  /** The question past the budget (or after a replan found no plan), in the contract's one shape. */
  const escalation = (cause: Escalation['cause'], reason: string, t: number, budget: number): Escalation => ({
    n: ++escalations,
    cause,
    reason,
    failure: failures[failures.length - 1]!,
    failures: [...failures],
    replans: Math.max(0, plans.length - 1),
    budget,
    options: MISSION_DECISIONS,
    step: t,
  });
  const recordEscalation = (e: Escalation): void => {
    audit?.event('escalation', escalationEvent(e), { step: e.step ?? 0 });
  };
  const finish = (
    p: Partial<MissionResult> &
      Pick<MissionResult, 'success' | 'failureMode' | 'message'> & {
        escalation?: Escalation;
        escalationRecorded?: boolean;
      },
    steps: number,
    exec: Executor | null,
  ): MissionResult => {
    const { escalationRecorded, escalation: esc, ...result } = p;
    if (p.failureMode === 'escalated' && escalationRecorded !== true && esc !== undefined) recordEscalation(esc);
    const marks = exec?.marks;
    const T_pre = marks?.prefixDone ?? null;
    const T_suf =
      marks && marks.prefixDone !== null && marks.traversals.length > 0
        ? marks.traversals[0]! - marks.prefixDone
        : null;
    const cost = T_pre !== null && T_suf !== null ? o.lambda * T_pre + (1 - o.lambda) * T_suf : Infinity;
    const ncc = p.success ? Math.min(cost, o.maxSteps) / o.maxSteps : 1;
    audit?.event(
      'run_end',
      {
        outcome: outcomeOf(p),
        failureMode: p.failureMode,
        message: p.message,
        steps,
        T_pre,
        T_suf,
        ncc,
        replans: Math.max(0, plans.length - 1),
      },
      { step: steps },
    );
    return {
      executorComplete: exec?.status === 'complete',
      steps,
      T_pre,
      T_suf,
      ncc,
      plans,
      events,
      failures,
      disagreements,
      trajectory: Float32Array.from(traj),
      labels,
      monitorViable: monitor.snapshot().viable,
      stepTimes_ms: Float64Array.from(times),
      steeredSteps: steeredBefore + (exec?.steeredSteps ?? 0),
      ...result,
    };
  };

  // The world failing ends the run like any other failure: recorded, with the world's own words.
  const worldFailed = (e: unknown, steps: number, exec: Executor | null): MissionResult => {
    if (!(e instanceof WorldError)) throw e;
    return finish({ success: false, failureMode: 'world', message: e.message }, steps, exec);
  };
  try {
    state = await world.reset({ seed: o.seed, start: [input.start[0], input.start[1]] });
  } catch (e) {
    return worldFailed(e, 0, null);
  }

  // ψ at rest of every waypoint's position (core/exec/executor.ts, ExecParams.targets): embedded in
  // one batch per plan, for the positions not seen before (a replanned graph moves its start node).
  const rest = new Map<string, Float32Array>();
  // A run's ExecPlans depend on its `rest` map: cached per run, never across runs.
  const cache = new Map<Plan, ExecPlan>();
  const execPlanOf = async (p: Plan, g: SemanticGraph): Promise<ExecPlan> => {
    let e = cache.get(p);
    if (e === undefined) {
      const missing = [
        ...new Map(waypointPositions(p, g).map(([x, y]) => [restKey(x, y), [x, y] as const])).entries(),
      ].filter(([k]) => !rest.has(k));
      if (missing.length > 0) {
        const dim = world.restObservation(0, 0).length;
        const obs = new Float32Array(missing.length * dim);
        missing.forEach(([, [x, y]], i) => obs.set(world.restObservation(x, y), i * dim));
        const z = await models.embed(obs, missing.length);
        const d = z.length / missing.length;
        missing.forEach(([k], i) => rest.set(k, z.slice(i * d, (i + 1) * d)));
      }
      e = execPlan(p, g, rest);
      cache.set(p, e);
    }
    return e;
  };
  // The plan shown is executed as it is; without one, the first plan is searched here.
  const shown = recordPlan(input.initial ?? documentedPlan(input.graph, automaton, o, now), 0, 'initial');
  let graph = shown.graph;
  const first = shown.result;
  if (first.status !== 'ok') {
    return finish(
      {
        success: false,
        failureMode: 'planning',
        planningReason: first.reason.kind,
        message: `no plan: ${first.reason.message}`,
      },
      0,
      null,
    );
  }
  let current: Plan = first;
  let exec = new Executor(await execPlanOf(current, graph), o.exec, graph.ids[graph.start]!, clearance);
  let replans = 0;
  let prevPose: { x: number; y: number; time_s: number } | null = null;
  for (let t = 0; t < o.maxSteps; t++) {
    const x = state.pose.x,
      y = state.pose.y;
    const obs = Float32Array.from(state.observation);
    const t0 = now();
    const label = labelAt(regions, x, y);
    const before = monitor.snapshot().states;
    const m = monitor.step(label);
    if (audit && (m.states.length !== before.length || m.states.some((q, i) => q !== before[i]))) {
      audit.event(
        'monitor_event',
        { states: [...m.states], viable: m.viable, accepting: m.accepting, labels: label },
        { step: t },
      );
    }
    const h = await models.embed(obs, 1);
    labels.push(label);
    traj.push(x, y);
    const r = exec.step(t, h, new Set(label), x, y);
    for (const e of r.events) {
      events.push(e);
      if (audit) {
        const target =
          e.kind === 'waypoint' ||
          e.kind === 'checkpoint' ||
          e.kind === 'violation' ||
          e.kind === 'timeout' ||
          e.kind === 'recovery'
            ? e.node
            : null;
        audit.event('checkpoint', checkpointBody(e), { step: t });
        audit.event(
          'evidence',
          {
            instruction: target !== null ? `realise the planned transition to ${target}` : e.kind,
            state: { x, y, labels: label },
            action: e.kind,
            verifier:
              e.kind === 'checkpoint'
                ? 'anchor verified: latent proximity and label'
                : e.kind === 'waypoint'
                  ? 'waypoint reached'
                  : e.kind === 'violation'
                    ? 'forbidden label observed'
                    : e.kind === 'timeout'
                      ? 'tracking budget exhausted'
                      : e.kind === 'recovery'
                        ? `stalled (moved ${e.moved_m.toFixed(2)} m): walking back to ${e.to[0].toFixed(2)}, ${e.to[1].toFixed(2)}`
                        : 'progress',
            failure_label:
              e.kind === 'violation' ? 'forbidden-label' : e.kind === 'timeout' ? 'tracking-timeout' : null,
          },
          {
            step: t,
            ...(e.kind === 'violation'
              ? { failureLabel: 'forbidden-label' }
              : e.kind === 'timeout'
                ? { failureLabel: 'tracking-timeout' }
                : {}),
          },
        );
      }
      if (e.kind === 'checkpoint') {
        // "The plan thinks" (its automaton state after this checkpoint) against "the world did".
        const ep = await execPlanOf(current, graph);
        const planned = (e.stream === 'prefix' ? ep.prefix : ep.suffix)[e.index]?.state;
        if (planned !== undefined && !m.states.includes(planned))
          disagreements.push({ t, node: e.node, planned, monitor: m.states });
      }
    }
    // The world may violate the specification where the plan saw no obligation: the monitor says so.
    let failure = r.events.find(
      (e): e is Extract<ExecEvent, { kind: 'violation' | 'timeout' }> => e.kind === 'violation' || e.kind === 'timeout',
    );
    if (failure === undefined && !m.viable) {
      const w = exec.position();
      failure = {
        kind: 'violation',
        t,
        stream: w.stream,
        index: w.index,
        node: w.target.id,
        literal: label.join(',') || '{}',
        term: w.target.term,
        labels: label,
      };
      disagreements.push({ t, node: w.target.id, planned: w.target.from, monitor: m.states });
    }
    if (r.status === 'complete') {
      times.push(now() - t0);
      return verdict(t + 1);
    }
    // A legged body on its back cannot go on, whatever the plan: Table G.1's overturning.
    const fell = failure === undefined ? (world.fallen?.(state) ?? null) : null;
    if (fell !== null) {
      const w = exec.position();
      const record = overturned(t, w.stream, w.index, w.from, w.target.id, w.target.term, label, h, fell);
      failures.push(record);
      audit?.event('failure_record', record, { step: t, failureLabel: record.label });
      times.push(now() - t0);
      return finish(
        { success: false, failureMode: w.stream === 'prefix' ? 'prefix' : 'suffix', message: record.rule },
        t + 1,
        exec,
      );
    }
    if (failure !== undefined) {
      const from = exec.position().from;
      const record = withMotion(classifyFailure(failure, from, h, o.exec.H_TD, m.viable, failures), traj, o.exec);
      failures.push(record);
      audit?.event('failure_record', record, { step: t, failureLabel: record.label });
      const stage: FailureMode = failure.stream === 'prefix' ? 'prefix' : 'suffix';
      if (record.unrecoverable)
        return finish({ success: false, failureMode: 'unrecoverable', message: record.rule }, t + 1, exec);
      const v = await afterFailure({
        replanning,
        R: o.replans,
        replans,
        budget: replanBudget,
        failures,
        record,
        stage,
        t,
        escalation,
        ...(control ? { control } : {}),
        ...(audit ? { audit } : {}),
      });
      if (v.kind === 'end')
        return finish(
          {
            success: false,
            failureMode: v.failureMode,
            message: v.message,
            escalationRecorded: v.recorded,
            ...(v.escalation ? { escalation: v.escalation } : {}),
          },
          t + 1,
          exec,
        );
      replanBudget = v.budget;
      replans++;
      graph = replanGraph(graph, record, { latent: h, position: [x, y], label }, o.exec.H_TD);
      const next = recordPlan(documentedPlan(graph, automaton, o, now, { resume: m.states }), t, 'replan');
      const again = next.result;
      if (again.status !== 'ok') {
        const message = `replan ${replans} found no plan: ${again.reason.message}`;
        return finish(
          {
            success: false,
            failureMode: 'escalated',
            message,
            escalation: escalation('no-plan', message, t, replanBudget),
          },
          t + 1,
          exec,
        );
      }
      audit?.event(
        'replan',
        {
          trigger: record.kind,
          failure: failures.length - 1,
          replan: replans,
          from_states: [...m.states],
          prefix_nodes: again.prefixLength,
        },
        { step: t },
      );
      control?.replanned?.(t, again, graph, next.document);
      current = again;
      steeredBefore += exec.steeredSteps;
      exec = new Executor(await execPlanOf(current, graph), o.exec, graph.ids[graph.start]!, clearance);
      times.push(now() - t0);
      continue;
    }
    if (control !== undefined) {
      const w = exec.position();
      const c = await control.step({
        t,
        x,
        y,
        states: m.states,
        labels: label,
        target: w.target.id,
        progress: exec.progress(),
        distance_m: Math.hypot(w.target.position[0] - x, w.target.position[1] - y),
        speed_mps: stepSpeed(prevPose, x, y, state.time_s),
      });
      if (!c.go) {
        times.push(now() - t0);
        return finish({ success: false, failureMode: 'stopped', message: c.reason }, t + 1, exec);
      }
    }
    if (input.signal?.aborted === true) {
      times.push(now() - t0);
      return finish(
        {
          success: false,
          failureMode: 'stopped',
          message: `${stopWords(input.signal)}; the mission stopped before its next step`,
        },
        t + 1,
        exec,
      );
    }
    prevPose = { x, y, time_s: state.time_s };
    const dir = r.direction!;
    const a = await models.act(obs, dir, 1);
    times.push(now() - t0);
    try {
      state = await world.step(a, stopSignal !== undefined ? { signal: stopSignal } : undefined);
    } catch (e) {
      if (e instanceof WorldError && e.kind === 'cancelled' && stopSignal?.aborted === true) {
        return finish(
          {
            success: false,
            failureMode: 'stopped',
            message: `${stopWords(stops.find((x) => x.aborted)!)}; the step in progress was cancelled`,
          },
          t + 1,
          exec,
        );
      }
      return worldFailed(e, t + 1, exec);
    }
  }
  const stage: FailureMode = exec.marks.prefixDone === null ? 'prefix' : 'suffix';
  return finish(
    { success: false, failureMode: stage, message: `rollout budget of ${o.maxSteps} steps exhausted` },
    o.maxSteps,
    exec,
  );

  function verdict(steps: number): MissionResult {
    // Finite-lasso success (Appendix E): the realised labels up to the start of the last suffix
    // traversal as the prefix, that traversal as the cycle, judged by the lasso evaluator.
    const marks = exec.marks;
    const tr = marks.traversals;
    const cycleStart = (tr.length >= 2 ? tr[tr.length - 2]! : marks.prefixDone!) + 1;
    const end = tr[tr.length - 1]!;
    const ok = lassoVerdict(formula, labels, cycleStart, end);
    return finish(
      {
        success: ok,
        failureMode: ok ? null : 'suffix',
        message: ok
          ? `prefix and ${tr.length} suffix traversal(s) realised; the lasso evaluator accepts the realised labels`
          : 'the executor completed, but the realised label word does not satisfy the formula (finite-lasso check)',
      },
      steps,
      exec,
    );
  }
}

/** The failure record of a body that fell (Navigation.fallen): permanent, never replanned. */
function overturned(
  t: number,
  stream: 'prefix' | 'suffix',
  index: number,
  from: string,
  to: string,
  term: string,
  labels: readonly string[],
  latent: Float32Array,
  why: string,
): MissionFailureRecord {
  return {
    source: 'mission',
    kind: 'overturned',
    label: 'overturned',
    t,
    stream,
    index,
    from,
    to,
    term,
    labels: [...labels],
    latent: Array.from(latent),
    violated: to,
    class: 'permanent',
    action: 'none',
    unrecoverable: true,
    rule: `overturned while tracking ${from} → ${to}: ${why}; the body cannot go on, so no replan can help`,
  };
}

/**
 * A tracking time-out with how far the body moved over the last H_low steps (its recorded
 * positions `traj`, x y per step): under the waypoint reach radius it stalled, else it drifted.
 */
export function withMotion(r: MissionFailureRecord, traj: readonly number[], p: ExecParams): MissionFailureRecord {
  if (r.kind !== 'tracking-timeout') return r;
  const n = traj.length / 2,
    back = Math.max(0, n - 1 - p.H_low);
  const moved_m =
    n === 0 ? 0 : Math.hypot(traj[2 * (n - 1)]! - traj[2 * back]!, traj[2 * (n - 1) + 1]! - traj[2 * back + 1]!);
  const stalled = moved_m < p.reach_m;
  return {
    ...r,
    moved_m,
    stalled,
    rule: `${r.rule} (${stalled ? 'stalled' : 'drifted'}: moved ${moved_m.toFixed(2)} m in the last ${p.H_low} steps)`,
  };
}

/**
 * What ended a failed execution, Table G.1's way, from its last failure record: the body fell
 * ('overturned'), stood or walked on the spot ('stalled') or moved elsewhere ('drifted') until the
 * tracking budget ran out, entered a forbidden label, or missed an anchor's label; 'budget' when
 * the rollout budget ran out with no failure recorded, 'lasso' when the executor completed but the
 * realised labels do not satisfy the formula. null for successes, planning failures, an operator's
 * stop and the world failing.
 */
export function executionCause(
  r: Pick<MissionResult, 'success' | 'failureMode' | 'failures' | 'executorComplete'>,
): string | null {
  if (
    r.success ||
    r.failureMode === null ||
    r.failureMode === 'planning' ||
    r.failureMode === 'stopped' ||
    r.failureMode === 'world'
  )
    return null;
  const last = r.failures[r.failures.length - 1];
  if (last === undefined) return r.executorComplete ? 'lasso' : 'budget';
  if (last.kind === 'tracking-timeout')
    return last.stalled === true ? 'stalled' : last.stalled === false ? 'drifted' : 'tracking-timeout';
  return last.kind;
}

/** How a run ended, for its record: an operator's stop (stop, E-STOP, Ctrl-C) is not a failure. */
/**
 * stopped: the operator stopped the run (not a failure); safety: the robot entered a forbidden region and the mission
 * stopped it.
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
export function lassoVerdict(
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
