/**
 * The latent-graph tracker: one mission end to end on a navigation world. Plan on the task's
 * semantic graph (or take the plan a front end showed, as it is), execute with the frozen policy
 * (Algorithm B.3), keep the runtime monitor over the realised label word alongside the plan's
 * bookkeeping, replan after failures (method `sagas-replan`, or `replanning`; budget R), escalate past
 * the budget, and decide success with the lasso evaluator on the realised labels — not with the
 * executor's bookkeeping. The run's records, budget and end are the run skeleton's (run-skeleton.ts).
 * Pure: the world, the policy, the clock, the audit log and the operator are all injected
 * (app/mission.ts assembles them for every front end).
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import type { MonitorStep } from '../ltl/monitor.js';
import type { Plan } from '../plan/plan.js';
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
import type { Region } from '../world/regions.js';
import type { DocumentedPlan } from '../plan/document.js';
import { type Navigation, type NavState, WorldError } from '../world/world.js';
import type { AuditEventBody } from '../../contract/audit-events.js';
import type { MissionFailureRecord } from '../../contract/failure.js';
import {
  type FailureMode,
  type MissionAudit,
  type MissionControl,
  type MissionResult,
  type PlanChoice,
  type RunEnd,
  RunSkeleton,
  startPlanDrivenRun,
  documentedPlan,
  failed,
  lassoEnd,
  noPlanText,
  stepSpeed,
  stopWords,
} from './run-skeleton.js';

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
 * ψ at rest of every waypoint's position (core/exec/executor.ts, ExecParams.targets): embedded in
 * one batch per plan, for the positions not seen before (a replanned graph moves its start node).
 * A run's ExecPlans depend on its rest latents: cached per run, never across runs.
 */
class RestLatents {
  private readonly rest = new Map<string, Float32Array>();
  private readonly cache = new Map<Plan, ExecPlan>();

  constructor(
    private readonly world: Navigation,
    private readonly policy: Policy,
  ) {}

  async of(p: Plan, g: SemanticGraph): Promise<ExecPlan> {
    let e = this.cache.get(p);
    if (e === undefined) {
      const missing = [
        ...new Map(waypointPositions(p, g).map(([x, y]) => [restKey(x, y), [x, y] as const])).entries(),
      ].filter(([k]) => !this.rest.has(k));
      if (missing.length > 0) {
        const dim = this.world.restObservation(0, 0).length;
        const obs = new Float32Array(missing.length * dim);
        missing.forEach(([, [x, y]], i) => obs.set(this.world.restObservation(x, y), i * dim));
        const z = await this.policy.embed(obs, missing.length);
        const d = z.length / missing.length;
        missing.forEach(([k], i) => this.rest.set(k, z.slice(i * d, (i + 1) * d)));
      }
      e = execPlan(p, g, this.rest);
      this.cache.set(p, e);
    }
    return e;
  }
}

/** A tracking run: the skeleton, and the plan, graph and executor it tracks now. */
interface Tracking {
  readonly input: MissionInput;
  readonly o: MissionOptions;
  readonly run: RunSkeleton;
  readonly now: () => number;
  readonly latents: RestLatents;
  /** The map's clearance, where it has one, keeps skip-ahead off walls (ExecParams.clearance_m). */
  readonly clearance: ((x: number, y: number) => number) | undefined;
  graph: SemanticGraph;
  current: Plan;
  exec: Executor | null;
  /** Steered steps of the executors of earlier plans (a replan starts a new executor). */
  steeredBefore: number;
  state: NavState;
  prevPose: { x: number; y: number; time_s: number } | null;
}

const NO_MARKS = { prefixDone: null, traversals: [] } as const;

/** The run's end after `steps` steps, with the executor tracking now. */
function finish(k: Tracking, end: RunEnd, steps: number): MissionResult {
  return k.run.finish(end, steps, {
    marks: k.exec?.marks ?? NO_MARKS,
    complete: k.exec?.status === 'complete',
    steeredSteps: k.steeredBefore + (k.exec?.steeredSteps ?? 0),
  });
}

/** The world failing ends the run like any other failure: recorded, with the world's own words. */
function worldFailed(k: Tracking, e: unknown, steps: number): MissionResult {
  if (!(e instanceof WorldError)) throw e;
  return finish(k, failed('world', e.message), steps);
}

async function startExecutor(k: Tracking, plan: Plan): Promise<void> {
  k.current = plan;
  const g = k.graph;
  k.exec = new Executor(await k.latents.of(plan, g), k.o.exec, g.ids[g.start]!, k.clearance);
}

export async function runMission(input: MissionInput, o: MissionOptions): Promise<MissionResult> {
  const run = startPlanDrivenRun({ input, options: o });
  const world = input.world;
  const k = {
    input,
    o,
    run,
    now: input.now ?? ((): number => 0),
    latents: new RestLatents(world, input.policy),
    clearance: world.map.clearance?.bind(world.map),
    graph: input.graph,
    exec: null,
    steeredBefore: 0,
    prevPose: null,
  } as Omit<Tracking, 'current' | 'state'> as Tracking;
  try {
    k.state = await world.reset({ seed: o.seed, start: [input.start[0], input.start[1]] });
  } catch (e) {
    return worldFailed(k, e, 0);
  }
  // The plan shown is executed as it is; without one, the first plan is searched here.
  const shown = run.recordPlan(
    input.initial ?? documentedPlan(input.graph, input.automaton, o, k.now, { formula: input.formula }),
    0,
    'initial',
  );
  k.graph = shown.graph;
  const first = shown.result;
  if (first.status !== 'ok')
    return finish(
      k,
      { ...failed('planning', `no plan: ${noPlanText(shown.document)}`), planningReason: first.reason.kind },
      0,
    );
  await startExecutor(k, first);
  for (let t = 0; t < o.maxSteps; t++) {
    const end = await trackStep(k, t);
    if (end !== null) return end;
  }
  const stage: FailureMode = k.exec!.marks.prefixDone === null ? 'prefix' : 'suffix';
  return finish(k, failed(stage, `rollout budget of ${o.maxSteps} steps exhausted`), o.maxSteps);
}

/** One step of the tracker: observe, embed, track; a failure, the end or the operator's stop; else act. */
async function trackStep(k: Tracking, t: number): Promise<MissionResult | null> {
  const { run, now } = k;
  const exec = k.exec!;
  const { x, y } = k.state.pose;
  const obs = Float32Array.from(k.state.observation);
  const t0 = now();
  const { label, m } = run.observe(x, y);
  const h = await k.input.policy.embed(obs, 1);
  const r = exec.step(t, h, new Set(label), x, y);
  for (const e of r.events) await recordEvent(k, e, t, m, x, y, label);
  // The world may violate the specification where the plan saw no obligation: the monitor says so.
  const failure = trackingFailure(k, r.events, m, label, t);
  if (r.status === 'complete') {
    run.times.push(now() - t0);
    const end = lassoEnd(k.input.formula, run.labels, exec.marks, 'the executor completed');
    return finish(k, end, t + 1);
  }
  // A legged body on its back cannot go on, whatever the plan: Table G.1's overturning.
  const fell = failure === undefined ? (k.input.world.fallen?.(k.state) ?? null) : null;
  if (fell !== null) {
    const w = exec.position();
    const record = overturned(t, w.stream, w.index, w.from, w.target.id, w.target.term, label, h, fell);
    run.fail(record, t);
    run.times.push(now() - t0);
    return finish(k, failed(w.stream === 'prefix' ? 'prefix' : 'suffix', record.rule), t + 1);
  }
  if (failure !== undefined) {
    const end = await replanAfter(k, failure, t, h, m, label);
    if (end !== null) return end;
    run.times.push(now() - t0);
    return null;
  }
  const stopped = await operatorStop(k, t, m, label);
  if (stopped !== null) {
    run.times.push(now() - t0);
    return finish(k, stopped, t + 1);
  }
  k.prevPose = { x, y, time_s: k.state.time_s };
  const a = await k.input.policy.act(obs, r.direction!, 1);
  run.times.push(now() - t0);
  try {
    k.state = await k.input.world.step(a, run.stop !== undefined ? { signal: run.stop } : undefined);
  } catch (e) {
    if (e instanceof WorldError && e.kind === 'cancelled' && run.stop?.aborted === true) {
      const words = stopWords(run.stops.find((s) => s.aborted)!);
      return finish(k, failed('stopped', `${words}; the step in progress was cancelled`), t + 1);
    }
    return worldFailed(k, e, t + 1);
  }
  return null;
}

type TrackingFailure = Extract<ExecEvent, { kind: 'violation' | 'timeout' }>;

/** The executor's violation or time-out this step, else the monitor's verdict that the labels broke the spec. */
function trackingFailure(
  k: Tracking,
  events: readonly ExecEvent[],
  m: MonitorStep,
  label: readonly string[],
  t: number,
): TrackingFailure | undefined {
  const failure = events.find((e): e is TrackingFailure => e.kind === 'violation' || e.kind === 'timeout');
  if (failure !== undefined || m.viable) return failure;
  const w = k.exec!.position();
  k.run.disagreements.push({ t, node: w.target.id, planned: w.target.from, monitor: m.states });
  return {
    kind: 'violation',
    t,
    stream: w.stream,
    index: w.index,
    node: w.target.id,
    literal: label.join(',') || '{}',
    term: w.target.term,
    labels: label,
  };
}

/** An executor event into the record and the audit log, with its evidence; a checkpoint checked against the monitor. */
async function recordEvent(
  k: Tracking,
  e: ExecEvent,
  t: number,
  m: MonitorStep,
  x: number,
  y: number,
  label: readonly string[],
): Promise<void> {
  k.run.emit(e);
  const ev = evidenceOf(e, x, y, label);
  k.run.log?.event('evidence', ev.body, { step: t, ...ev.label });
  if (e.kind === 'checkpoint') {
    // "The plan thinks" (its automaton state after this checkpoint) against "the world did".
    const ep = await k.latents.of(k.current, k.graph);
    const planned = (e.stream === 'prefix' ? ep.prefix : ep.suffix)[e.index]?.state;
    if (planned !== undefined && !m.states.includes(planned))
      k.run.disagreements.push({ t, node: e.node, planned, monitor: m.states });
  }
}

const VERIFIED: Partial<Record<ExecEvent['kind'], string>> = {
  checkpoint: 'anchor verified: latent proximity and label',
  waypoint: 'waypoint reached',
  violation: 'forbidden label observed',
  timeout: 'tracking budget exhausted',
};
const FAILURE_LABEL: Partial<Record<ExecEvent['kind'], string>> = {
  violation: 'forbidden-label',
  timeout: 'tracking-timeout',
};

/** The evidence an executor event leaves in the audit log, and its failure label. */
function evidenceOf(
  e: ExecEvent,
  x: number,
  y: number,
  label: readonly string[],
): { body: AuditEventBody<'evidence'>; label: { failureLabel?: string } } {
  const target = 'node' in e ? e.node : null;
  const verifier =
    e.kind === 'recovery'
      ? `stalled (moved ${e.moved_m.toFixed(2)} m): walking back to ${e.to[0].toFixed(2)}, ${e.to[1].toFixed(2)}`
      : (VERIFIED[e.kind] ?? 'progress');
  const failure = FAILURE_LABEL[e.kind];
  return {
    body: {
      instruction: target !== null ? `realise the planned transition to ${target}` : e.kind,
      state: { x, y, labels: label },
      action: e.kind,
      verifier,
      failure_label: failure ?? null,
    },
    label: failure !== undefined ? { failureLabel: failure } : {},
  };
}

/** A tracking failure: its record; the budget decides between the run's end and a replan from the monitor's states. */
async function replanAfter(
  k: Tracking,
  failure: TrackingFailure,
  t: number,
  h: Float32Array,
  m: MonitorStep,
  label: readonly string[],
): Promise<MissionResult | null> {
  const { run, o } = k;
  const from = k.exec!.position().from;
  const record = withMotion(
    classifyFailure(failure, from, h, o.exec.H_TD, m.viable, run.failures),
    run.positions,
    o.exec,
  );
  const stage: FailureMode = failure.stream === 'prefix' ? 'prefix' : 'suffix';
  const end = await run.recover(record, stage, t);
  if (end !== null) return finish(k, end, t + 1);
  const { x, y } = k.state.pose;
  k.graph = replanGraph(k.graph, record, { latent: h, position: [x, y], label }, o.exec.H_TD);
  const next = documentedPlan(k.graph, k.input.automaton, o, k.now, { resume: m.states });
  const noPlan = run.replanned(next, t, record);
  if (noPlan !== null) return finish(k, noPlan, t + 1);
  k.steeredBefore += k.exec!.steeredSteps;
  await startExecutor(k, next.result as Plan);
  return null;
}

/** The operator's look at this step (they may stop it), then a stop from the caller: the run's end, or null to act. */
async function operatorStop(k: Tracking, t: number, m: MonitorStep, label: readonly string[]): Promise<RunEnd | null> {
  const { x, y } = k.state.pose;
  const control = k.run.control;
  if (control !== undefined) {
    const w = k.exec!.position();
    const c = await control.step({
      t,
      x,
      y,
      states: m.states,
      labels: label,
      target: w.target.id,
      progress: k.exec!.progress(),
      distance_m: Math.hypot(w.target.position[0] - x, w.target.position[1] - y),
      speed_mps: stepSpeed(k.prevPose, x, y, k.state.time_s),
    });
    if (!c.go) return failed('stopped', c.reason);
  }
  const signal = k.input.signal;
  if (signal?.aborted === true)
    return failed('stopped', `${stopWords(signal)}; the mission stopped before its next step`);
  return null;
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
