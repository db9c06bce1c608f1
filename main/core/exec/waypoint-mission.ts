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
 * Success is decided by the lasso evaluator on the realised labels, as for the learned executor; the
 * run's records, budget and end are the run skeleton's (run-skeleton.ts). Pure: the world, the clock,
 * the audit log and the operator are injected.
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import type { Plan } from '../plan/plan.js';
import type { SemanticGraph } from '../plan/semantic.js';
import type { DocumentedPlan } from '../plan/document.js';
import { type Region, labelAt } from '../world/regions.js';
import { type Pose, type Waypoints, WorldError } from '../world/world.js';
import type { MissionMethod } from '../../contract/defaults.js';
import type { MissionFailureRecord } from '../../contract/failure.js';
import {
  type FailureMode,
  type MissionAudit,
  type MissionControl,
  type MissionProgress,
  type MissionResult,
  type RunEnd,
  RunSkeleton,
  startPlanDrivenRun,
  documentedPlan,
  noPlanText,
  failed,
  lassoEnd,
  stepSpeed,
  stopWords,
} from './run-skeleton.js';
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
function startGraph(
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
  o: Pick<WaypointMissionOptions, 'method' | 'lambda' | 'k' | 'tauSoft' | 'maxLink_m'> & { readonly formula?: Formula },
  now: () => number = () => 0,
): MapPlan {
  const graph = startGraph(base, regions, pose, o.maxLink_m);
  const extra = { executor: 'waypoints' as const, ...(o.formula !== undefined ? { formula: o.formula } : {}) };
  return { ...documentedPlan(graph, automaton, o, now, extra), pose: { x: pose.x, y: pose.y } };
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

/** A waypoint run: the skeleton, the robot's pose, the goal being driven and the plan on the graph now. */
interface Drive {
  readonly input: WaypointMissionInput;
  readonly o: WaypointMissionOptions;
  readonly run: RunSkeleton;
  readonly now: () => number;
  readonly sleep: (s: number) => Promise<void>;
  readonly arrival: { readonly regions: readonly Region[]; readonly tolerance_m: number };
  /** The keepout mask and the path check (null until the robot's pose is known). */
  safety: WaypointSafety | null;
  /** The failed edges, removed or penalised, carried across replans. */
  readonly edits: EdgeEdits;
  pose: Pose;
  /** The waypoint the running goal ends at, where it is, and the goal's place in the plan (for the live views). */
  heading: string | null;
  headingAt: { x: number; y: number } | null;
  progress: MissionProgress;
  /** The previous pose sample and its time (s, the injected clock): the speed between samples. */
  lastSample: { x: number; y: number; time_s: number } | null;
  graph: SemanticGraph;
  current: Plan;
}

type Failed = FailedLeg & { readonly kind: 'failed' };
type Ended = { readonly kind: 'end'; readonly result: MissionResult };
type GoalOutcome = { kind: 'reached' } | Failed | Ended;

/** The run's end: every pose sample is a step. */
function finish(d: Drive, end: RunEnd): MissionResult {
  const marks = d.run.marks;
  return d.run.finish(end, d.run.labels.length, {
    marks,
    complete: marks.traversals.length >= d.o.rounds,
    // Waypoints go to the robot's own navigation: there is no latent steering term here.
    steeredSteps: 0,
  });
}

const ended = (d: Drive, end: RunEnd): Ended => ({ kind: 'end', result: finish(d, end) });

/** The last step's index (0 before any). */
const lastStep = (d: Drive): number => d.run.labels.length - 1;

export async function runWaypointMission(
  input: WaypointMissionInput,
  o: WaypointMissionOptions,
): Promise<MissionResult> {
  const run = startPlanDrivenRun({ input, options: o });
  const d = {
    input,
    o,
    run,
    now: input.now ?? ((): number => 0),
    sleep: input.sleep ?? defaultSleep,
    arrival: { regions: input.regions, tolerance_m: o.goalTolerance_m },
    safety: null,
    edits: noEdits(),
    pose: { x: NaN, y: NaN },
    heading: null,
    headingAt: null,
    progress: { stream: 'prefix', index: 0, length: 0, traversals: 0, rounds: o.rounds },
    lastSample: null,
  } as Omit<Drive, 'graph' | 'current'> as Drive;
  const refused = await begin(d);
  if (refused !== null) return refused;
  for (;;) {
    const end = await round(d);
    if (end !== null) return end;
  }
}

/** Before the first goal: the robot's pose, the keepout mask, the graph from the robot and the first plan. */
async function begin(d: Drive): Promise<MissionResult | null> {
  const { run, input } = d;
  try {
    await sample(d);
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return finish(d, failed('world', e.message));
  }
  if (!run.monitor.snapshot().viable) {
    return finish(
      d,
      failed(
        'planning',
        `the robot is at (${d.pose.x.toFixed(2)}, ${d.pose.y.toFixed(2)}) in ${letterText(run.labels[0] ?? [])}, where the specification is already violated: no mission can start here`,
      ),
    );
  }
  try {
    const extent = Array.from({ length: input.graph.ids.length }, (_, v) => ({
      x: input.graph.positions[2 * v]!,
      y: input.graph.positions[2 * v + 1]!,
    }));
    d.safety = new WaypointSafety(input.world, input.automaton, input.regions, [
      ...extent,
      { x: d.pose.x, y: d.pose.y },
    ]);
    keepoutPublished(d, d.safety.publish(run.monitor.snapshot().states));
  } catch (e) {
    if (!(e instanceof RangeError || e instanceof WorldError)) throw e;
    return finish(d, failed('world', `the keepout mask: ${e.message}`));
  }
  try {
    d.graph = input.initial?.graph ?? startAt(d, input.graph);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return finish(d, failed('planning', e.message));
  }
  const shown = run.recordPlan(input.initial ?? planFrom(d, d.graph), 0, 'initial');
  const first = shown.result;
  if (first.status !== 'ok') return finish(d, failed('planning', `no plan: ${noPlanText(shown.document)}`));
  d.current = first;
  return null;
}

/** A plan on graph g (from the monitor's states `resume` after a replan). */
function planFrom(d: Drive, g: SemanticGraph, resume?: readonly number[]): DocumentedPlan {
  const { automaton } = d.input;
  const extra = resume ? { resume } : { formula: d.input.formula };
  return documentedPlan(g, automaton, d.o, d.now, { executor: 'waypoints', ...extra });
}

/** The map graph with the robot's pose as its start node (a RangeError when no node is near enough). */
function startAt(d: Drive, base: SemanticGraph): SemanticGraph {
  const id = `robot@${d.run.labels.length}`;
  return withStartAt(base, { id, ...xy(d.pose), labels: d.run.lastLabel }, d.edits, d.o.maxLink_m, d.input.regions);
}

const xy = (p: Pose): { x: number; y: number } => ({ x: p.x, y: p.y });

function keepoutPublished(d: Drive, note: KeepoutNote | null): void {
  if (note === null) return;
  d.run.log?.event(
    'evidence',
    {
      instruction:
        note.forbidden.length > 0 ? `keep out of ${note.forbidden.join(', ')}` : 'no region is forbidden now',
      state: { ...xy(d.pose), labels: d.run.lastLabel },
      action: 'publish-keepout',
      verifier: `keepout mask published on ${note.where}: ${note.width} × ${note.height} cells at ${note.resolution_m} m, ${note.keptOut} kept out`,
      failure_label: null,
    },
    { step: Math.max(0, lastStep(d)) },
  );
}

/** One pose sample: the label function, the monitor, the record; the keepout mask follows the monitor's states. */
async function sample(d: Drive): Promise<readonly string[]> {
  const { run } = d;
  d.pose = await d.input.world.pose();
  const t0 = d.now();
  const { label, m, changed } = run.observe(d.pose.x, d.pose.y);
  run.times.push(d.now() - t0);
  // What is forbidden changes with the monitor's states (after y in !x U y): the mask follows.
  if (changed) keepoutPublished(d, d.safety?.publish(m.states) ?? null);
  const speed = stepSpeed(d.lastSample, d.pose.x, d.pose.y, t0 / 1000);
  d.lastSample = { ...xy(d.pose), time_s: t0 / 1000 };
  run.control?.observed?.({
    t: lastStep(d),
    ...xy(d.pose),
    states: [...m.states],
    labels: [...label],
    target: d.heading,
    progress: { ...d.progress, traversals: run.marks.traversals.length },
    distance_m: d.headingAt === null ? null : Math.hypot(d.headingAt.x - d.pose.x, d.headingAt.y - d.pose.y),
    speed_mps: speed,
  });
  return label;
}

/**
 * Before a goal is sent: the path the robot's planner would take, piece by piece, followed from
 * the monitor's states. A path entering a forbidden region is a `safety` failure; a piece the
 * planner finds no path for, `goal-aborted`; either way no goal is sent. Null: send it.
 */
async function checkGoal(d: Drive, goal: readonly Leg[], at: number): Promise<Failed | Ended | null> {
  const { safety, run, pose } = d;
  if (safety === null || !safety.checksPaths) return null;
  const state = { ...xy(pose), labels: run.lastLabel };
  let c: LegCheck | null;
  try {
    c = await safety.check(xy(pose), goalPoses(goal, pose, d.arrival), run.monitor.snapshot().states, run.stop);
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    if (run.stop?.aborted === true)
      return ended(
        d,
        failed(
          'stopped',
          `${stopWords(run.stop)}; while the robot's planner was asked for the path, before the goal was sent`,
        ),
      );
    return ended(d, failed('world', `checking the robot's path before the goal: ${e.message}`));
  }
  if (c === null) return null;
  const v = legVerdict(c, goal, at, pose);
  run.log?.event(
    'evidence',
    {
      instruction: `check the robot's planned path through ${goal.map((l) => l.id).join(' → ')}`,
      state,
      action: 'compute-path',
      verifier: v.verifier,
      failure_label: v.failed?.failure ?? null,
    },
    { step: lastStep(d) },
  );
  return v.failed === null ? null : { kind: 'failed', ...v.failed };
}

/** A violation event of `leg` at the last step. */
function violationAt(d: Drive, leg: Leg, literal: string, labels: readonly string[]): void {
  d.run.emit({
    kind: 'violation',
    t: lastStep(d),
    stream: leg.stream,
    index: leg.index,
    node: leg.id,
    literal,
    term: leg.term,
    labels: [...labels],
  });
}

/**
 * The robot is inside a region the specification forbids (the monitor has no accepting
 * continuation): the goal has been cancelled, which stops the robot (Nav2's controller publishes
 * zero velocity when its goal is cancelled). Recorded as a `safety` failure record; the run ends.
 */
function safetyStop(d: Drive, leg: Leg, label: readonly string[], from: number, how: string): MissionResult {
  const t = lastStep(d);
  const rec = safetyStopRecord(leg, {
    from: d.graph.ids[from]!,
    t,
    label,
    before: d.run.labels[t - 1] ?? [],
    at: xy(d.pose),
    how,
  });
  violationAt(d, leg, rec.violated, label);
  d.run.fail(rec, t);
  return finish(d, failed('safety', `safety stop: ${rec.rule}`));
}

/** How a goal ended while its pose was sampled. */
interface Polled {
  readonly settled: { ok: true } | { ok: false; error: unknown };
  readonly violation: Violation | null;
  readonly worldError: WorldError | null;
  /** The goal's leg being realised when it ended. */
  readonly k: number;
}

/** Sends one goal and samples the pose while it runs; a forbidden label or the budget cancels it. */
async function sendGoal(d: Drive, goal: readonly Leg[]): Promise<Polled> {
  const { run, o, input } = d;
  const ac = new AbortController();
  const stop = run.stop;
  const onStop = (): void => ac.abort(stop?.reason);
  stop?.addEventListener('abort', onStop, { once: true });
  let length = Math.hypot(goal[0]!.x - d.pose.x, goal[0]!.y - d.pose.y);
  for (let i = 1; i < goal.length; i++) length += Math.hypot(goal[i]!.x - goal[i - 1]!.x, goal[i]!.y - goal[i - 1]!.y);
  const timeout_s = o.goalTimeout_s * goal.length + length / o.minSpeed_m_s;
  const poses = goalPoses(goal, d.pose, d.arrival);
  const end = goal[goal.length - 1]!;
  d.heading = end.id;
  d.headingAt = { x: end.x, y: end.y };
  run.log?.event(
    'evidence',
    {
      instruction: `navigate through ${goal.map((l) => l.id).join(' → ')}`,
      state: { ...xy(d.pose), labels: run.lastLabel },
      action: goal.length > 1 ? 'navigate-through-poses' : 'navigate-to-pose',
      verifier: `goal sent (deadline ${timeout_s.toFixed(1)} s)`,
      failure_label: null,
    },
    { step: run.labels.length },
  );
  const box: { settled: Polled['settled'] | null } = { settled: null };
  const running = input.world.go(poses, { timeout_s, signal: ac.signal }).then(
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
      await Promise.race([running, d.sleep(input.world.poll_s)]);
      if (ac.signal.aborted) break;
      let label: readonly string[];
      try {
        label = await sample(d);
      } catch (e) {
        if (!(e instanceof WorldError)) throw e;
        worldError = e;
        ac.abort(e);
        break;
      }
      while (k < goal.length - 1 && Math.hypot(d.pose.x - goal[k]!.x, d.pose.y - goal[k]!.y) <= o.reach_m) k++;
      const leg = goal[k]!;
      const m = run.monitor.snapshot();
      const literal = leg.neg.find((l) => label.includes(l));
      if (literal !== undefined || !m.viable) {
        violation = new Violation(literal ?? letterText(label), leg, label, m.viable);
        ac.abort(violation);
        break;
      }
      if (run.labels.length >= o.maxSteps) {
        ac.abort(new WorldError('cancelled', 'mission', 'rollout budget exhausted'));
        break;
      }
    }
    await running;
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
  if (box.settled === null) throw new Error('unreachable: the goal settled without a result');
  return { settled: box.settled, violation, worldError, k };
}

/** Drives one goal: what ended it, decided from how it settled and the labels where it ended. */
async function drive(d: Drive, goal: readonly Leg[], from: number): Promise<GoalOutcome> {
  const { run, o } = d;
  const { settled: r, violation, worldError, k } = await sendGoal(d, goal);
  const cancelHow = !r.ok && r.error instanceof WorldError ? r.error.detail : '';
  const how = r.ok ? 'the goal had already been reached' : cancelHow;
  if (worldError !== null)
    return ended(d, failed('world', `${worldError.message}${cancelHow ? `; cancelling the goal: ${cancelHow}` : ''}`));
  if (run.stop?.aborted === true && violation === null)
    return ended(d, failed('stopped', `${stopWords(run.stop)}; ${how}`));
  if (violation !== null && !violation.viable)
    return { kind: 'end', result: safetyStop(d, violation.leg, violation.labels, from, how) };
  if (violation !== null) {
    violationAt(d, violation.leg, violation.literal, violation.labels);
    return {
      kind: 'failed',
      failure: 'forbidden-label',
      leg: violation.leg,
      literal: violation.literal,
      viable: violation.viable,
      detail: `forbidden label ${violation.literal} observed on the way to ${violation.leg.id}; ${how}`,
    };
  }
  if (run.labels.length >= o.maxSteps) {
    const stage = run.marks.prefixDone === null ? 'prefix' : 'suffix';
    return ended(d, failed(stage, `rollout budget of ${o.maxSteps} pose samples exhausted; ${cancelHow}`));
  }
  // One sample where the goal ended: the labels there decide the checkpoint.
  let label: readonly string[];
  try {
    label = await sample(d);
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return ended(d, failed('world', e.message));
  }
  const viable = run.monitor.snapshot().viable;
  if (!viable)
    return {
      kind: 'end',
      result: safetyStop(d, goal[k]!, label, from, r.ok ? 'the goal had been reached' : cancelHow),
    };
  if (!r.ok) return unreached(d, goal[k]!, r.error, label, viable);
  return reached(d, goal, label, viable);
}

/** A goal the robot's navigation did not reach: our deadline, its own giving up, or the world failing. */
function unreached(d: Drive, leg: Leg, e: unknown, label: readonly string[], viable: boolean): GoalOutcome {
  if (!(e instanceof WorldError)) throw e;
  if (e.kind === 'timeout') {
    d.run.emit({
      kind: 'timeout',
      t: lastStep(d),
      stream: leg.stream,
      index: leg.index,
      node: leg.id,
      checkpoint: leg.pos.length > 0,
      distance: Math.hypot(d.pose.x - leg.x, d.pose.y - leg.y),
      term: leg.term,
      labels: [...label],
    });
    return { kind: 'failed', failure: 'tracking-timeout', leg, viable, detail: e.detail };
  }
  if (e.kind === 'aborted' || e.kind === 'rejected')
    return { kind: 'failed', failure: 'goal-aborted', leg, viable, detail: e.detail };
  return ended(d, failed('world', e.message));
}

/** A goal reached: its last waypoint's labels checked (forbidden, missing), its events, the plan against the monitor.
 */
function reached(d: Drive, goal: readonly Leg[], label: readonly string[], viable: boolean): GoalOutcome {
  const { run } = d;
  const leg = goal[goal.length - 1]!;
  const literal = leg.neg.find((l) => label.includes(l));
  if (literal !== undefined) {
    violationAt(d, leg, literal, label);
    return { kind: 'failed', failure: 'forbidden-label', leg, literal, viable, detail: `forbidden label at ${leg.id}` };
  }
  const missing = leg.pos.filter((l) => !label.includes(l));
  if (missing.length > 0)
    return {
      kind: 'failed',
      failure: 'goal-missed',
      leg,
      viable,
      detail: `the robot reports ${leg.id} reached at (${d.pose.x.toFixed(2)}, ${d.pose.y.toFixed(2)}), but ${missing.join(', ')} does not hold there`,
    };
  const t = lastStep(d);
  for (const l of goal) run.emit({ kind: 'waypoint', t, stream: l.stream, index: l.index, node: l.id, skipped: 0 });
  if (leg.pos.length > 0)
    run.emit({ kind: 'checkpoint', t, stream: leg.stream, index: leg.index, node: leg.id, labels: [...label] });
  // "The plan thinks" against "the world did".
  const m = run.monitor.snapshot();
  if (!m.states.includes(leg.state)) run.disagreements.push({ t, node: leg.id, planned: leg.state, monitor: m.states });
  return { kind: 'reached' };
}

/** How one stream of legs went: the run's end, a failed goal (from node `from`), or done at node `at`. */
type StreamOutcome = Ended | { kind: 'failed'; outcome: Failed; from: number } | { kind: 'done'; at: number };

/** The operator's look before a goal: null to send it, else the run's end. */
async function beforeGoal(d: Drive, goal: readonly Leg[], legs: number): Promise<Ended | null> {
  const { run } = d;
  const stopped = run.stop;
  if (stopped?.aborted === true)
    return ended(d, failed('stopped', `${stopWords(stopped)}; between goals, no goal was running`));
  const control = run.control;
  if (control === undefined) return null;
  const end = goal[goal.length - 1]!;
  // The goal ends at `end`: the views count it as the waypoint being driven to.
  const traversals = run.marks.traversals.length;
  d.progress = { stream: end.stream, index: end.index, length: legs, traversals, rounds: d.o.rounds };
  const c = await control.step({
    t: lastStep(d),
    ...xy(d.pose),
    states: run.monitor.snapshot().states,
    labels: run.lastLabel,
    target: end.id,
    progress: d.progress,
    distance_m: Math.hypot(end.x - d.pose.x, end.y - d.pose.y),
    // Between goals the robot is at rest as far as the mission knows: its speed is not sampled here.
    speed_mps: null,
  });
  return c.go ? null : ended(d, failed('stopped', c.reason));
}

/** Drives the goals of one stream of legs from node `at`. */
async function runStream(d: Drive, legs: readonly Leg[], at: number): Promise<StreamOutcome> {
  for (const goal of goalsOf(legs, at, d.input.world.maxPoses)) {
    const stop = await beforeGoal(d, goal, legs.length);
    if (stop !== null) return stop;
    const refused = await checkGoal(d, goal, at);
    if (refused?.kind === 'end') return refused;
    if (refused?.kind === 'failed') return { kind: 'failed', outcome: refused, from: refused.from ?? at };
    const out = await drive(d, goal, at);
    if (out.kind === 'end') return out;
    if (out.kind === 'failed') return { kind: 'failed', outcome: out, from: at };
    at = goal[goal.length - 1]!.node;
  }
  return { kind: 'done', at };
}

/** One plan driven: its prefix (unless done), then suffix traversals to M; the verdict, or a failure's replan. */
async function round(d: Drive): Promise<MissionResult | null> {
  const { run, o } = d;
  const marks = run.marks;
  const { prefix, suffix } = legsOf(d.current, d.graph);
  let at = d.graph.start;
  if (marks.prefixDone === null) {
    const s = await runStream(d, prefix, at);
    if (s.kind === 'end') return s.result;
    if (s.kind === 'failed') return replanAfter(d, s.outcome, s.from);
    at = s.at;
    marks.prefixDone = lastStep(d);
    run.emit({ kind: 'prefix-done', t: lastStep(d) });
  }
  while (marks.traversals.length < o.rounds) {
    const s = await runStream(d, suffix, at);
    if (s.kind === 'end') return s.result;
    if (s.kind === 'failed') return replanAfter(d, s.outcome, s.from);
    at = s.at;
    // A dwell suffix realises its cycle by staying: one more sample there.
    if (suffix.every((l) => l.node === at)) {
      try {
        await sample(d);
      } catch (e) {
        if (!(e instanceof WorldError)) throw e;
        return finish(d, failed('world', e.message));
      }
    }
    marks.traversals.push(lastStep(d));
    run.emit({ kind: 'suffix-traversal', t: lastStep(d), count: marks.traversals.length });
  }
  return finish(d, lassoEnd(d.input.formula, run.labels, marks, 'the waypoints were reached'));
}

/**
 * The edges a failure blames: the one that failed; from the robot's own start node (gone after a
 * replan), every edge into the waypoint.
 */
function blamedEdges(d: Drive, rec: MissionFailureRecord, from: number): string[] {
  const base = d.input.graph;
  const to = base.ids.indexOf(rec.to);
  if (d.graph.kinds[from] !== 'start' || to < 0) return [pairKey(rec.from, rec.to)];
  return Array.from(base.outTo.subarray(base.outStart[to], base.outStart[to + 1]), (v) =>
    pairKey(base.ids[v]!, rec.to),
  );
}

/** A failed goal: its record; the budget decides between the run's end and a replan from the robot's pose. */
async function replanAfter(d: Drive, f: Failed, from: number): Promise<MissionResult | null> {
  const { run } = d;
  const t = lastStep(d);
  const rec = legFailureRecord(f, { from: d.graph.ids[from]!, t, labels: run.lastLabel, earlier: run.failures });
  const stage: FailureMode = f.leg.stream === 'prefix' && run.marks.prefixDone === null ? 'prefix' : 'suffix';
  const end = await run.recover(rec, stage, t);
  if (end !== null) return finish(d, end);
  for (const key of blamedEdges(d, rec, from)) {
    if (rec.action === 'remove-edge') d.edits.removed.add(key);
    else d.edits.factor.set(key, (d.edits.factor.get(key) ?? 1) * EDGE_PENALTY);
  }
  // A failure in the suffix replans the whole task from the monitor's states: the verdict needs a fresh lasso.
  run.marks.prefixDone = null;
  run.marks.traversals.length = 0;
  try {
    d.graph = startAt(d, d.input.graph);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return finish(d, run.noPlan(`replan ${run.replans}: ${e.message}`, e.message, t));
  }
  const next = planFrom(d, d.graph, run.monitor.snapshot().states);
  const noPlan = run.replanned(next, t, rec);
  if (noPlan !== null) return finish(d, noPlan);
  d.current = next.result as Plan;
  return null;
}
