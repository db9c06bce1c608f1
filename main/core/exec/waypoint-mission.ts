/**
 * One mission on a robot's own navigation stack: plan on the map's labelled graph (the robot's pose
 * as the start node), send the plan's waypoints as navigation goals (one pose per goal, or runs of
 * them where the robot takes several), and while each goal runs sample the pose, evaluate the
 * label function on it, step the runtime monitor over the realised labels and watch the guard of
 * the transition being realised. The robot's planner chooses its own path between waypoints, so
 * what the specification forbids now is published as its keepout mask (waypoint-safety.ts), and a
 * goal whose planned path enters a forbidden region is not sent: a `safety` failure record, then a
 * replan. A pose inside a forbidden region (no accepting continuation) cancels the goal and ends the
 * run as `safety`. A label the transition forbids cancels the goal too; an aborted, refused or
 * timed-out goal and a waypoint reached without its labels become failure records; sagas-replan
 * (or a run with `replanning`) replans from the monitor's automaton states at the robot's pose
 * within budget R, then escalates.
 * Success is decided by the lasso evaluator on the realised labels, as for the learned executor.
 * Pure: the world, the clock, the audit log and the operator are injected.
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import { StateSetMonitor } from '../ltl/monitor.js';
import type { Plan } from '../plan/plan.js';
import type { SemanticGraph } from '../plan/semantic.js';
import type { DocumentedPlan } from '../plan/document.js';
import type { ExecEvent } from './executor.js';
import { type Region, labelAt } from '../world/regions.js';
import { type Pose, type Waypoints, WorldError } from '../world/world.js';
import { MISSION_DECISIONS, type MissionMethod, replansByDefault } from '../../contract/defaults.js';
import type { Escalation, MissionFailureRecord } from '../../contract/failure.js';
import { escalationEvent } from '../loop/escalation.js';
import { afterFailure } from './budget.js';
import {
  type Disagreement,
  type FailureMode,
  type MissionAudit,
  type MissionControl,
  type MissionProgress,
  type MissionResult,
  type PlanRecord,
  checkInitial,
  checkpointBody,
  documentedPlan,
  lassoVerdict,
  outcomeOf,
  stepSpeed,
  stopWords,
} from './mission.js';
import { EDGE_PENALTY } from './replan.js';
import { type EdgeEdits, noEdits, pairKey, withStartAt } from './waypoint-graph.js';
import { type KeepoutNote, type LegCheck, WaypointSafety, legVerdict } from './waypoint-safety.js';
import {
  type FailedLeg,
  type Leg,
  goalPoses,
  goalsOf,
  legFailureRecord,
  legsOf,
  letterText,
  safetyStopRecord,
} from './waypoint-legs.js';

export interface WaypointMissionOptions {
  readonly method: MissionMethod;
  readonly lambda: number;
  readonly k: number;
  readonly tauSoft: number;
  /** Replanning budget R (sagas-replan). */
  readonly replans: number;
  /** Replan after a failure within R (default: the method is sagas-replan; the console replans with any planner). */
  readonly replanning?: boolean;
  /** Suffix traversals before the verdict (Appendix E: M = 2). */
  readonly rounds: number;
  /** Pose samples before the mission gives up (C_max, in samples of world.poll_s). */
  readonly maxSteps: number;
  /** Deadline of one goal: this much per waypoint it carries, plus its length at `minSpeed_m_s`. */
  readonly goalTimeout_s: number;
  readonly minSpeed_m_s: number;
  /** The robot counts as at a waypoint within this distance (for the guard being watched). */
  readonly reach_m: number;
  /** The start node joins the graph only when a node is this close to the robot. */
  readonly maxLink_m: number;
  /**
   * The navigator reports a goal reached within this distance (Nav2: xy_goal_tolerance); checkpoint goals go where that
   * still reads their labels.
   */
  readonly goalTolerance_m: number;
}

export const WAYPOINT_DEFAULTS = {
  rounds: 2,
  goalTimeout_s: 30,
  minSpeed_m_s: 0.05,
  reach_m: 0.5,
  maxLink_m: 2,
  goalTolerance_m: 0.25,
} as const;

export interface WaypointMissionInput {
  readonly world: Waypoints;
  /** The map's labelled graph: every node has a position in the robot's map frame. */
  readonly graph: SemanticGraph;
  readonly automaton: BuchiAutomaton;
  readonly formula: Formula;
  /** The label function L on the pose. */
  readonly regions: readonly Region[];
  readonly audit?: MissionAudit;
  readonly control?: MissionControl;
  /** The operator's stop, Ctrl-C or E-STOP: cancels the running goal and ends the mission as stopped. */
  readonly signal?: AbortSignal;
  /** Milliseconds on a monotonic clock, for the per-sample times (default: none measured). */
  readonly now?: () => number;
  /** Waits between pose samples (tests may shorten it); default setTimeout. */
  readonly sleep?: (s: number) => Promise<void>;
  /**
   * The plan the operator saw (planOnMap, from the robot's pose then): executed as it is instead of
   * a fresh initial plan, so what runs is what was shown. The caller checks that the robot is still
   * where the plan starts.
   */
  readonly initial?: MapPlan;
}

/**
 * A plan on a map graph from the robot's pose: the graph with the robot as its start node, the plan and its document.
 */
export interface MapPlan extends DocumentedPlan {
  readonly pose: { readonly x: number; readonly y: number };
}

/** The robot's pose joins the map graph as the start node `id`; throws a RangeError when no node is near enough. */
export function startGraph(
  base: SemanticGraph,
  regions: readonly Region[],
  pose: { readonly x: number; readonly y: number },
  maxLink_m: number,
  id = 'robot@0',
  edits: EdgeEdits = noEdits(),
): SemanticGraph {
  return withStartAt(
    base,
    { id, x: pose.x, y: pose.y, labels: labelAt(regions, pose.x, pose.y) },
    edits,
    maxLink_m,
    regions,
  );
}

/** Plans a mission on a map graph from the robot's pose (what the console shows before Run). */
export function planOnMap(
  base: SemanticGraph,
  automaton: BuchiAutomaton,
  regions: readonly Region[],
  pose: { readonly x: number; readonly y: number },
  o: Pick<WaypointMissionOptions, 'method' | 'lambda' | 'k' | 'tauSoft' | 'maxLink_m'>,
  now: () => number = () => 0,
): MapPlan {
  const graph = startGraph(base, regions, pose, o.maxLink_m);
  return { ...documentedPlan(graph, automaton, o, now, { executor: 'waypoints' }), pose: { x: pose.x, y: pose.y } };
}

class Violation extends Error {
  constructor(
    readonly literal: string,
    readonly leg: Leg,
    readonly labels: readonly string[],
    readonly viable: boolean,
  ) {
    super(`forbidden label ${literal}`);
  }
}

const defaultSleep = (s: number): Promise<void> => new Promise((r) => setTimeout(r, s * 1000));

export async function runWaypointMission(
  input: WaypointMissionInput,
  o: WaypointMissionOptions,
): Promise<MissionResult> {
  const { world, automaton, formula, regions, audit, control } = input;
  const arrival = { regions, tolerance_m: o.goalTolerance_m };
  // The operator's stop, from the caller or the console's control: either cancels the running goal.
  const stops = [input.signal, control?.signal].filter((x): x is AbortSignal => x !== undefined);
  const stopSignal = stops.length === 0 ? undefined : stops.length === 1 ? stops[0] : AbortSignal.any(stops);
  const now = input.now ?? ((): number => 0);
  const sleep = input.sleep ?? defaultSleep;
  checkInitial(input.initial, o.method);
  const replanning = o.replanning ?? replansByDefault(o.method);
  let replanBudget = replanning ? o.replans : 0;
  const plans: PlanRecord[] = [];
  const events: ExecEvent[] = [];
  const failures: MissionFailureRecord[] = [];
  const disagreements: Disagreement[] = [];
  const labels: string[][] = [];
  const traj: number[] = [];
  const times: number[] = [];
  const monitor = new StateSetMonitor(automaton);
  /** The keepout mask and the path check (null until the robot's pose is known). */
  let safety: WaypointSafety | null = null;
  const edits: EdgeEdits = noEdits();
  const marks: { prefixDone: number | null; traversals: number[] } = { prefixDone: null, traversals: [] };
  let escalations = 0,
    replans = 0;
  let pose: Pose = { x: NaN, y: NaN };
  /** The waypoint the running goal ends at, where it is, and the goal's place in the plan (for the live views). */
  let heading: string | null = null;
  let headingAt: { x: number; y: number } | null = null;
  let progress: MissionProgress = { stream: 'prefix', index: 0, length: 0, traversals: 0, rounds: o.rounds };
  /** The previous pose sample and its time (s, the injected clock): the speed between samples. */
  let lastSample: { x: number; y: number; time_s: number } | null = null;

  const emit = (e: ExecEvent): void => {
    events.push(e);
    audit?.event('checkpoint', checkpointBody(e), { step: e.t });
  };
  /** A plan (the one shown, `given`, as it is) into the run's record and the audit log. */
  const doPlan = (g: SemanticGraph, t: number, resume?: readonly number[], given?: MapPlan): DocumentedPlan => {
    const p = given ?? documentedPlan(g, automaton, o, now, { executor: 'waypoints', ...(resume ? { resume } : {}) });
    plans.push({ t, result: p.result, graph: p.graph, document: p.document, planning_ms: p.planning_ms });
    audit?.plan(t, resume ? 'replan' : 'initial', p.document, p.planning_ms);
    return p;
  };
  const escalation = (cause: Escalation['cause'], reason: string, t: number, budget: number): Escalation => ({
    n: ++escalations,
    cause,
    reason,
    failure: failures[failures.length - 1]!,
    failures: [...failures],
    replans,
    budget,
    options: MISSION_DECISIONS,
    step: t,
  });
  const finish = (p: {
    success: boolean;
    failureMode: FailureMode | null;
    message: string;
    escalation?: Escalation;
  }): MissionResult => {
    const steps = labels.length;
    if (p.escalation !== undefined) audit?.event('escalation', escalationEvent(p.escalation), { step: steps });
    const T_pre = marks.prefixDone;
    const T_suf = T_pre !== null && marks.traversals.length > 0 ? marks.traversals[0]! - T_pre : null;
    const cost = T_pre !== null && T_suf !== null ? o.lambda * T_pre + (1 - o.lambda) * T_suf : Infinity;
    const ncc = p.success ? Math.min(cost, o.maxSteps) / o.maxSteps : 1;
    audit?.event(
      'run_end',
      { outcome: outcomeOf(p), failureMode: p.failureMode, message: p.message, steps, T_pre, T_suf, ncc, replans },
      { step: steps },
    );
    return {
      success: p.success,
      failureMode: p.failureMode,
      message: p.message,
      executorComplete: marks.traversals.length >= o.rounds,
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
      // Waypoints go to the robot's own navigation: there is no latent steering term here.
      steeredSteps: 0,
    };
  };

  const keepoutPublished = (note: KeepoutNote | null): void => {
    if (note === null) return;
    audit?.event(
      'evidence',
      {
        instruction:
          note.forbidden.length > 0 ? `keep out of ${note.forbidden.join(', ')}` : 'no region is forbidden now',
        state: { x: pose.x, y: pose.y, labels: labels[labels.length - 1] ?? [] },
        action: 'publish-keepout',
        verifier: `keepout mask published on ${note.where}: ${note.width} × ${note.height} cells at ${note.resolution_m} m, ${note.keptOut} kept out`,
        failure_label: null,
      },
      { step: Math.max(0, labels.length - 1) },
    );
  };

  /** One pose sample: the label function, the monitor, the record. */
  const sample = async (): Promise<readonly string[]> => {
    pose = await world.pose();
    const t0 = now();
    const label = labelAt(regions, pose.x, pose.y);
    const before = monitor.snapshot().states;
    const m = monitor.step(label);
    if (audit && (m.states.length !== before.length || m.states.some((q, i) => q !== before[i]))) {
      audit.event(
        'monitor_event',
        { states: [...m.states], viable: m.viable, accepting: m.accepting, labels: label },
        { step: labels.length },
      );
    }
    labels.push(label);
    traj.push(pose.x, pose.y);
    times.push(now() - t0);
    // What is forbidden changes with the monitor's states (after y in !x U y): the mask follows.
    if (m.states.length !== before.length || m.states.some((q, i) => q !== before[i]))
      keepoutPublished(safety?.publish(m.states) ?? null);
    const speed = stepSpeed(lastSample, pose.x, pose.y, t0 / 1000);
    lastSample = { x: pose.x, y: pose.y, time_s: t0 / 1000 };
    control?.observed?.({
      t: labels.length - 1,
      x: pose.x,
      y: pose.y,
      states: [...m.states],
      labels: [...label],
      target: heading,
      progress: { ...progress, traversals: marks.traversals.length },
      distance_m: headingAt === null ? null : Math.hypot(headingAt.x - pose.x, headingAt.y - pose.y),
      speed_mps: speed,
    });
    return label;
  };

  const startAt = (base: SemanticGraph): SemanticGraph =>
    withStartAt(
      base,
      { id: `robot@${labels.length}`, x: pose.x, y: pose.y, labels: labels[labels.length - 1] ?? [] },
      edits,
      o.maxLink_m,
      input.regions,
    );

  try {
    await sample();
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return finish({ success: false, failureMode: 'world', message: e.message });
  }
  if (!monitor.snapshot().viable) {
    return finish({
      success: false,
      failureMode: 'planning',
      message: `the robot is at (${pose.x.toFixed(2)}, ${pose.y.toFixed(2)}) in ${letterText(labels[0] ?? [])}, where the specification is already violated: no mission can start here`,
    });
  }
  try {
    const extent = Array.from({ length: input.graph.ids.length }, (_, v) => ({
      x: input.graph.positions[2 * v]!,
      y: input.graph.positions[2 * v + 1]!,
    }));
    safety = new WaypointSafety(world, automaton, regions, [...extent, { x: pose.x, y: pose.y }]);
    keepoutPublished(safety.publish(monitor.snapshot().states));
  } catch (e) {
    if (!(e instanceof RangeError || e instanceof WorldError)) throw e;
    return finish({ success: false, failureMode: 'world', message: `the keepout mask: ${e.message}` });
  }
  let graph: SemanticGraph;
  try {
    graph = input.initial?.graph ?? startAt(input.graph);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return finish({ success: false, failureMode: 'planning', message: e.message });
  }
  const first = doPlan(graph, 0, undefined, input.initial).result;
  if (first.status !== 'ok')
    return finish({ success: false, failureMode: 'planning', message: `no plan: ${first.reason.message}` });
  let current: Plan = first;

  type Failed = FailedLeg & { readonly kind: 'failed' };
  type GoalOutcome = { kind: 'reached' } | Failed | { kind: 'end'; result: MissionResult };

  /**
   * Before a goal is sent: the path the robot's planner would take, piece by piece, followed from
   * the monitor's states. A path entering a forbidden region is a `safety` failure; a piece the
   * planner finds no path for, `goal-aborted`; either way no goal is sent. Null: send it.
   */
  const checkGoal = async (
    goal: readonly Leg[],
    at: number,
  ): Promise<Failed | Extract<GoalOutcome, { kind: 'end' }> | null> => {
    if (safety === null || !safety.checksPaths) return null;
    const state = { x: pose.x, y: pose.y, labels: labels[labels.length - 1] ?? [] };
    let c: LegCheck | null;
    try {
      c = await safety.check(
        { x: pose.x, y: pose.y },
        goalPoses(goal, pose, arrival),
        monitor.snapshot().states,
        stopSignal,
      );
    } catch (e) {
      if (!(e instanceof WorldError)) throw e;
      if (stopSignal?.aborted === true)
        return {
          kind: 'end',
          result: finish({
            success: false,
            failureMode: 'stopped',
            message: `${stopWords(stopSignal)}; while the robot's planner was asked for the path, before the goal was sent`,
          }),
        };
      return {
        kind: 'end',
        result: finish({
          success: false,
          failureMode: 'world',
          message: `checking the robot's path before the goal: ${e.message}`,
        }),
      };
    }
    if (c === null) return null;
    const v = legVerdict(c, goal, at, pose);
    audit?.event(
      'evidence',
      {
        instruction: `check the robot's planned path through ${goal.map((l) => l.id).join(' → ')}`,
        state,
        action: 'compute-path',
        verifier: v.verifier,
        failure_label: v.failed?.failure ?? null,
      },
      { step: labels.length - 1 },
    );
    return v.failed === null ? null : { kind: 'failed', ...v.failed };
  };

  /**
   * The robot is inside a region the specification forbids (the monitor has no accepting
   * continuation): the goal has been cancelled, which stops the robot (Nav2's controller publishes
   * zero velocity when its goal is cancelled). Recorded as a `safety` failure record; the run ends.
   */
  const safetyStop = (leg: Leg, label: readonly string[], from: number, how: string): MissionResult => {
    const t = labels.length - 1;
    const rec = safetyStopRecord(leg, {
      from: graph.ids[from]!,
      t,
      label,
      before: labels[t - 1] ?? [],
      at: { x: pose.x, y: pose.y },
      how,
    });
    emit({
      kind: 'violation',
      t,
      stream: leg.stream,
      index: leg.index,
      node: leg.id,
      literal: rec.violated,
      term: leg.term,
      labels: [...label],
    });
    failures.push(rec);
    audit?.event('failure_record', rec, { step: t, failureLabel: rec.label });
    return finish({ success: false, failureMode: 'safety', message: `safety stop: ${rec.rule}` });
  };

  /**
   * Drives one goal, sampling the pose while it runs; a forbidden label cancels it, a forbidden region stops the run.
   */
  const drive = async (goal: readonly Leg[], from: number): Promise<GoalOutcome> => {
    const ac = new AbortController();
    const stop = stopSignal;
    const onStop = (): void => ac.abort(stop?.reason);
    stop?.addEventListener('abort', onStop, { once: true });
    let length = Math.hypot(goal[0]!.x - pose.x, goal[0]!.y - pose.y);
    for (let i = 1; i < goal.length; i++)
      length += Math.hypot(goal[i]!.x - goal[i - 1]!.x, goal[i]!.y - goal[i - 1]!.y);
    const timeout_s = o.goalTimeout_s * goal.length + length / o.minSpeed_m_s;
    const poses = goalPoses(goal, pose, arrival);
    const t0 = labels.length;
    heading = goal[goal.length - 1]!.id;
    headingAt = { x: goal[goal.length - 1]!.x, y: goal[goal.length - 1]!.y };
    audit?.event(
      'evidence',
      {
        instruction: `navigate through ${goal.map((l) => l.id).join(' → ')}`,
        state: { x: pose.x, y: pose.y, labels: labels[labels.length - 1] ?? [] },
        action: goal.length > 1 ? 'navigate-through-poses' : 'navigate-to-pose',
        verifier: `goal sent (deadline ${timeout_s.toFixed(1)} s)`,
        failure_label: null,
      },
      { step: t0 },
    );
    const box: { settled: { ok: true } | { ok: false; error: unknown } | null } = { settled: null };
    const running = world.go(poses, { timeout_s, signal: ac.signal }).then(
      () => {
        box.settled = { ok: true };
      },
      (error: unknown) => {
        box.settled = { ok: false, error };
      },
    );
    let k = 0;
    let violation: Violation | null = null;
    let worldError: WorldError | null = null;
    try {
      while (box.settled === null) {
        await Promise.race([running, sleep(world.poll_s)]);
        if (ac.signal.aborted) break;
        let label: readonly string[];
        try {
          label = await sample();
        } catch (e) {
          if (!(e instanceof WorldError)) throw e;
          worldError = e;
          ac.abort(e);
          break;
        }
        while (k < goal.length - 1 && Math.hypot(pose.x - goal[k]!.x, pose.y - goal[k]!.y) <= o.reach_m) k++;
        const leg = goal[k]!;
        const m = monitor.snapshot();
        const literal = leg.neg.find((l) => label.includes(l));
        if (literal !== undefined || !m.viable) {
          violation = new Violation(literal ?? letterText(label), leg, label, m.viable);
          ac.abort(violation);
          break;
        }
        if (labels.length >= o.maxSteps) {
          ac.abort(new WorldError('cancelled', 'mission', 'rollout budget exhausted'));
          break;
        }
      }
      await running;
    } finally {
      stop?.removeEventListener('abort', onStop);
    }
    const r = box.settled;
    if (r === null) throw new Error('unreachable: the goal settled without a result');
    const cancelHow = !r.ok && r.error instanceof WorldError ? r.error.detail : '';
    if (worldError !== null)
      return {
        kind: 'end',
        result: finish({
          success: false,
          failureMode: 'world',
          message: `${worldError.message}${cancelHow ? `; cancelling the goal: ${cancelHow}` : ''}`,
        }),
      };
    if (stop?.aborted === true && violation === null) {
      return {
        kind: 'end',
        result: finish({
          success: false,
          failureMode: 'stopped',
          message: `${stopWords(stop)}; ${r.ok ? 'the goal had already been reached' : cancelHow}`,
        }),
      };
    }
    if (violation !== null && !violation.viable)
      return {
        kind: 'end',
        result: safetyStop(
          violation.leg,
          violation.labels,
          from,
          r.ok ? 'the goal had already been reached' : cancelHow,
        ),
      };
    if (violation !== null) {
      emit({
        kind: 'violation',
        t: labels.length - 1,
        stream: violation.leg.stream,
        index: violation.leg.index,
        node: violation.leg.id,
        literal: violation.literal,
        term: violation.leg.term,
        labels: [...violation.labels],
      });
      return {
        kind: 'failed',
        failure: 'forbidden-label',
        leg: violation.leg,
        literal: violation.literal,
        viable: violation.viable,
        detail: `forbidden label ${violation.literal} observed on the way to ${violation.leg.id}; ${r.ok ? 'the goal had already been reached' : cancelHow}`,
      };
    }
    if (labels.length >= o.maxSteps)
      return {
        kind: 'end',
        result: finish({
          success: false,
          failureMode: marks.prefixDone === null ? 'prefix' : 'suffix',
          message: `rollout budget of ${o.maxSteps} pose samples exhausted; ${cancelHow}`,
        }),
      };
    // One sample where the goal ended: the labels there decide the checkpoint.
    let label: readonly string[];
    try {
      label = await sample();
    } catch (e) {
      if (!(e instanceof WorldError)) throw e;
      return { kind: 'end', result: finish({ success: false, failureMode: 'world', message: e.message }) };
    }
    const leg = goal[goal.length - 1]!;
    const viable = monitor.snapshot().viable;
    if (!viable)
      return { kind: 'end', result: safetyStop(goal[k]!, label, from, r.ok ? 'the goal had been reached' : cancelHow) };
    if (!r.ok) {
      const e = r.error;
      if (!(e instanceof WorldError)) throw e;
      if (e.kind === 'timeout') {
        emit({
          kind: 'timeout',
          t: labels.length - 1,
          stream: goal[k]!.stream,
          index: goal[k]!.index,
          node: goal[k]!.id,
          checkpoint: goal[k]!.pos.length > 0,
          distance: Math.hypot(pose.x - goal[k]!.x, pose.y - goal[k]!.y),
          term: goal[k]!.term,
          labels: [...label],
        });
        return { kind: 'failed', failure: 'tracking-timeout', leg: goal[k]!, viable, detail: e.detail };
      }
      if (e.kind === 'aborted' || e.kind === 'rejected')
        return { kind: 'failed', failure: 'goal-aborted', leg: goal[k]!, viable, detail: e.detail };
      return { kind: 'end', result: finish({ success: false, failureMode: 'world', message: e.message }) };
    }
    const literal = leg.neg.find((l) => label.includes(l));
    if (literal !== undefined) {
      emit({
        kind: 'violation',
        t: labels.length - 1,
        stream: leg.stream,
        index: leg.index,
        node: leg.id,
        literal,
        term: leg.term,
        labels: [...label],
      });
      return {
        kind: 'failed',
        failure: 'forbidden-label',
        leg,
        literal,
        viable,
        detail: `forbidden label at ${leg.id}`,
      };
    }
    const missing = leg.pos.filter((l) => !label.includes(l));
    if (missing.length > 0)
      return {
        kind: 'failed',
        failure: 'goal-missed',
        leg,
        viable,
        detail: `the robot reports ${leg.id} reached at (${pose.x.toFixed(2)}, ${pose.y.toFixed(2)}), but ${missing.join(', ')} does not hold there`,
      };
    for (const l of goal)
      emit({ kind: 'waypoint', t: labels.length - 1, stream: l.stream, index: l.index, node: l.id, skipped: 0 });
    if (leg.pos.length > 0)
      emit({
        kind: 'checkpoint',
        t: labels.length - 1,
        stream: leg.stream,
        index: leg.index,
        node: leg.id,
        labels: [...label],
      });
    // "The plan thinks" against "the world did".
    const m = monitor.snapshot();
    if (!m.states.includes(leg.state))
      disagreements.push({ t: labels.length - 1, node: leg.id, planned: leg.state, monitor: m.states });
    return { kind: 'reached' };
  };

  const record = (f: Failed, at: number): MissionFailureRecord =>
    legFailureRecord(f, {
      from: graph.ids[at]!,
      t: labels.length - 1,
      labels: labels[labels.length - 1] ?? [],
      earlier: failures,
    });

  for (;;) {
    const { prefix, suffix } = legsOf(current, graph);
    let at = graph.start;
    let failed: { outcome: Failed; from: number } | null = null;
    const runStream = async (legs: readonly Leg[]): Promise<MissionResult | null> => {
      for (const goal of goalsOf(legs, at, world.maxPoses)) {
        const stopped = stopSignal;
        if (stopped?.aborted === true) {
          return finish({
            success: false,
            failureMode: 'stopped',
            message: `${stopWords(stopped)}; between goals, no goal was running`,
          });
        }
        if (control !== undefined) {
          const end = goal[goal.length - 1]!;
          // The goal ends at `end`: the views count it as the waypoint being driven to.
          progress = {
            stream: end.stream,
            index: end.index,
            length: legs.length,
            traversals: marks.traversals.length,
            rounds: o.rounds,
          };
          const c = await control.step({
            t: labels.length - 1,
            x: pose.x,
            y: pose.y,
            states: monitor.snapshot().states,
            labels: labels[labels.length - 1] ?? [],
            target: end.id,
            progress,
            distance_m: Math.hypot(end.x - pose.x, end.y - pose.y),
            // Between goals the robot is at rest as far as the mission knows: its speed is not sampled here.
            speed_mps: null,
          });
          if (!c.go) return finish({ success: false, failureMode: 'stopped', message: c.reason });
        }
        const refused = await checkGoal(goal, at);
        if (refused?.kind === 'end') return refused.result;
        if (refused?.kind === 'failed') {
          failed = { outcome: refused, from: refused.from ?? at };
          return null;
        }
        const out = await drive(goal, at);
        if (out.kind === 'end') return out.result;
        if (out.kind === 'failed') {
          failed = { outcome: out, from: at };
          return null;
        }
        at = goal[goal.length - 1]!.node;
      }
      return null;
    };
    let end: MissionResult | null = null;
    if (marks.prefixDone === null) {
      end = await runStream(prefix);
      if (end !== null) return end;
      if (failed === null) {
        marks.prefixDone = labels.length - 1;
        emit({ kind: 'prefix-done', t: labels.length - 1 });
      }
    }
    while (failed === null && marks.traversals.length < o.rounds) {
      end = await runStream(suffix);
      if (end !== null) return end;
      if (failed !== null) break;
      // A dwell suffix realises its cycle by staying: one more sample there.
      if (suffix.every((l) => l.node === at)) {
        try {
          await sample();
        } catch (e) {
          if (!(e instanceof WorldError)) throw e;
          return finish({ success: false, failureMode: 'world', message: e.message });
        }
      }
      marks.traversals.push(labels.length - 1);
      emit({ kind: 'suffix-traversal', t: labels.length - 1, count: marks.traversals.length });
    }
    if (failed === null) {
      const tr = marks.traversals;
      const cycleStart = (tr.length >= 2 ? tr[tr.length - 2]! : marks.prefixDone!) + 1;
      const ok = lassoVerdict(formula, labels, cycleStart, tr[tr.length - 1]!);
      return finish({
        success: ok,
        failureMode: ok ? null : 'suffix',
        message: ok
          ? `prefix and ${tr.length} suffix traversal(s) realised; the lasso evaluator accepts the realised labels`
          : 'the waypoints were reached, but the realised label word does not satisfy the formula (finite-lasso check)',
      });
    }
    const f = failed as { outcome: Failed; from: number };
    const rec = record(f.outcome, f.from);
    failures.push(rec);
    const t = labels.length - 1;
    audit?.event('failure_record', rec, { step: t, failureLabel: rec.label });
    const stage: FailureMode = f.outcome.leg.stream === 'prefix' && marks.prefixDone === null ? 'prefix' : 'suffix';
    if (rec.unrecoverable) return finish({ success: false, failureMode: 'unrecoverable', message: rec.rule });
    const v = await afterFailure({
      replanning,
      R: o.replans,
      replans,
      budget: replanBudget,
      failures,
      record: rec,
      stage,
      t,
      escalation,
      ...(control ? { control } : {}),
      ...(audit ? { audit } : {}),
    });
    if (v.kind === 'end')
      return finish({
        success: false,
        failureMode: v.failureMode,
        message: v.message,
        ...(v.escalation && !v.recorded ? { escalation: v.escalation } : {}),
      });
    replanBudget = v.budget;
    replans++;
    // The edge that failed; from the robot's own start node (gone after this replan), every edge into the waypoint.
    const base = input.graph;
    const to = base.ids.indexOf(rec.to);
    const keys =
      graph.kinds[f.from] !== 'start' || to < 0
        ? [pairKey(rec.from, rec.to)]
        : Array.from(base.outTo.subarray(base.outStart[to], base.outStart[to + 1]), (v) =>
            pairKey(base.ids[v]!, rec.to),
          );
    for (const key of keys) {
      if (rec.action === 'remove-edge') edits.removed.add(key);
      else edits.factor.set(key, (edits.factor.get(key) ?? 1) * EDGE_PENALTY);
    }
    // A failure in the suffix replans the whole task from the monitor's states: the verdict needs a fresh lasso.
    marks.prefixDone = null;
    marks.traversals.length = 0;
    try {
      graph = startAt(input.graph);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return finish({
        success: false,
        failureMode: 'escalated',
        message: `replan ${replans}: ${e.message}`,
        escalation: escalation('no-plan', e.message, t, replanBudget),
      });
    }
    const next = doPlan(graph, t, monitor.snapshot().states);
    const again = next.result;
    if (again.status !== 'ok') {
      const message = `replan ${replans} found no plan: ${again.reason.message}`;
      return finish({
        success: false,
        failureMode: 'escalated',
        message,
        escalation: escalation('no-plan', message, t, replanBudget),
      });
    }
    audit?.event(
      'replan',
      {
        trigger: rec.kind,
        failure: failures.length - 1,
        replan: replans,
        from_states: [...monitor.snapshot().states],
        prefix_nodes: again.prefixLength,
      },
      { step: t },
    );
    control?.replanned?.(t, again, graph, next.document);
    current = again;
  }
}
