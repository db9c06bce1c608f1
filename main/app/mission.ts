/**
 * The mission workflow, the one place a mission is assembled for every front end (`witness run`, the
 * console, the benchmark's workers). On an embedded world's latent graph: read the task
 * (specification, regions, start), open the backbone, augment the graph, open the world, record the
 * run in the audit log, run the latent-graph tracker on the world's navigation with the operator's
 * control when there is one (pause, stop, escalations), and report it. On a robot's map graph: read
 * the map task (app/map-task.ts), connect, record and run the waypoint driver the same way. The CLI
 * prints what this returns, the API pushes it to the UI, the benchmark tabulates it; none of them
 * assembles a mission itself.
 */
import { WitnessError } from '../contract/errors.js';
import { AUDIT_EVENTS_VERSION } from '../contract/audit-events.js';
import {
  MISSION_WORLDS,
  MISSION_DEFAULTS,
  PLAN_DEFAULTS,
  type MissionMethod,
  plannerOf,
  replansByDefault,
} from '../contract/defaults.js';
import type { Formula } from '../core/ltl/ast.js';
import type { BuchiAutomaton } from '../core/ltl/automaton.js';
import { InputError } from '../core/input/json.js';
import type { RegionSet } from '../core/world/regions.js';
import { type Rng, createRng } from '../core/random/rng.js';
import { type AugmentParams, type AugmentReport, DEFAULT_AUGMENT } from '../core/graph/augment.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import type { DocumentedPlan } from '../core/plan/document.js';
import { type Body, execParams } from '../core/exec/executor.js';
import { runMission } from '../core/exec/mission.js';
import { type MissionAudit, type MissionControl, type MissionResult, checkInitial } from '../core/exec/run-skeleton.js';
import { missionSvg } from '../core/world/svg.js';
import { type Waypoints, type World, navigationOf, waypointsOf } from '../core/world/world.js';
import {
  type MapPlan,
  type WaypointMissionOptions,
  WAYPOINT_DEFAULTS,
  runWaypointMission,
} from '../core/exec/waypoint-mission.js';
import { type OpenOptions, type WorldEntry, worldEntry } from '../backends/catalogue.js';
import { augmentTask } from '../services/plan/inputs.js';
import type { AuditLog, RunMeta } from '../services/audit/store.js';
import { type Recorder, missionRecorder, planSha } from '../services/audit/mission-recorder.js';
import { type Backbone, type BackboneOptions, type BackboneSource, openBackbone } from './backbone.js';
import { VERSION } from '../contract/version.js';
import { writeFileAtomic } from '../platform/files.js';
import { operatorName } from '../platform/paths.js';
import { interruptible } from '../platform/interrupt.js';
import { auditFileOf, openAuditLog, settleAudit } from './audit-log.js';
import { CLI_NAMES, type InputNames, type RegionsInput, type Spec, specOf, taskRegions } from './task-inputs.js';
import { type MapMissionRequest, type MapTask, readMapTask } from './map-task.js';

export type { MissionResult };

export interface MissionRequest {
  readonly world: string;
  readonly spec: string;
  readonly regions: RegionsInput;
  /** Start in the task space; default: a free point drawn from the seed. */
  readonly start?: readonly [number, number];
  /** Seed of the start, anchor retrieval and the simulator noise. */
  readonly seed: number;
  readonly backbone: BackboneSource;
  readonly augment?: Omit<AugmentParams, 'H_TD'>;
  readonly names?: InputNames;
  /** `spec` already parsed and translated (the console translates it in its planning worker, off the event loop). */
  readonly translated?: Spec;
}

/** A task ready to run: what was asked, the backbone, and the graph augmented for it. */
export interface MissionTask {
  readonly world: WorldEntry;
  readonly formula: Formula;
  readonly automaton: BuchiAutomaton;
  /** The regions the formula names (AP_φ); `regionsText` is the document as given, for the audit log. */
  readonly regions: RegionSet;
  readonly regionsText: string;
  readonly start: readonly [number, number];
  readonly seed: number;
  readonly backbone: Backbone;
  readonly graph: SemanticGraph;
  readonly report: AugmentReport;
  readonly augment_ms: number;
  /** Closes what preparing the task opened (its backbone's models, unless the caller gave them open). */
  release(): Promise<void>;
}

/**
 * Refuses regions written for another embedded maze: a regions document whose `world` names one
 * maze, in a mission in another (the console keeps the editor's text when the operator picks a
 * world; pointmaze-medium's regions in antmaze-large would label the wrong places). Robots are not
 * checked: a robot's regions are named after its map or configuration, not its world id.
 */
export function checkRegionsForWorld(
  regions: RegionSet,
  input: RegionsInput,
  world: string,
  names: InputNames = CLI_NAMES,
): void {
  if (regions.world === undefined || regions.world === world || !MISSION_WORLDS.includes(world)) return;
  const detail = `the regions are for "${regions.world}", the mission is in "${world}" (its shipped regions: assets/regions/${world}.json)`;
  if ('file' in input) throw new InputError(input.file, '$.world', detail);
  throw new WitnessError('invalid-regions', `${names.regions} $.world: ${detail}`, { path: '$.world' });
}

/** The world entry of a mission: a navigation world (missions move through it). */
export function missionWorld(id: string): WorldEntry & {
  readonly map: NonNullable<WorldEntry['map']>;
  readonly restObservation: (x: number, y: number) => Float32Array;
} {
  const e = worldEntry(id);
  if (e.map === undefined || e.restObservation === undefined) {
    throw new WitnessError(
      'invalid-input',
      `${id} is not a navigation world: missions run on ${MISSION_WORLDS.join(', ')}, or on a ROS 2 robot whose configuration has a "navigation" section (docs/ROS2.md)`,
      { path: '--world' },
    );
  }
  return e as WorldEntry & {
    readonly map: NonNullable<WorldEntry['map']>;
    readonly restObservation: (x: number, y: number) => Float32Array;
  };
}

/** The start: the one given (checked against the map), else a free point drawn from `rng`. */
function chooseStart(
  world: ReturnType<typeof missionWorld>,
  start: readonly [number, number] | undefined,
  rng: Rng,
  names: InputNames = CLI_NAMES,
): [number, number] {
  if (start === undefined) return world.map.randomFree(rng);
  const why = world.map.blocked(start[0], start[1]);
  if (why !== null)
    throw new WitnessError(names.code, `${names.start}: (${start[0]}, ${start[1]}): ${why}`, {
      path: names.at(names.start),
    });
  return [start[0], start[1]];
}

/** The task's inputs, read and checked: the cheap checks, before any backbone is opened. */
export interface MissionInputs {
  readonly world: ReturnType<typeof missionWorld>;
  readonly formula: Formula;
  readonly automaton: BuchiAutomaton;
  readonly regions: RegionSet;
  readonly regionsText: string;
  readonly start: [number, number];
  /** The seed's generator, after the start was drawn from it (augmentation draws next). */
  readonly rng: Rng;
}

/**
 * Reads and checks the specification, the regions, the world and the start, in that order. A robot
 * starts where it is: without a start, its pose is read from the open `world`.
 */
export async function readMission(req: Omit<MissionRequest, 'backbone'>, open?: World): Promise<MissionInputs> {
  const names = req.names ?? CLI_NAMES;
  const { formula, automaton } = req.translated ?? specOf(req.spec, names);
  const { regions, text } = await taskRegions(req.regions, automaton.aps, names);
  checkRegionsForWorld(regions, req.regions, req.world, names);
  const world = missionWorld(req.world);
  const rng = createRng(req.seed);
  let start: [number, number];
  if (req.start === undefined && world.startsWhereItIs === true) {
    if (open === undefined)
      throw new WitnessError(
        names.code,
        `${req.world} is a robot: it starts where it is; give ${names.start}, or open the world first`,
        { path: names.at(names.start) },
      );
    const s = await navigationOf(open).observe();
    start = chooseStart(world, [s.pose.x, s.pose.y], rng, names);
  } else {
    start = chooseStart(world, req.start, rng, names);
  }
  return { world, formula, automaton, regions, regionsText: text, start, rng };
}

/**
 * Everything before the robot moves: the specification, the regions, the start, the backbone and
 * the augmented graph. Inputs are checked in that order, the cheap ones first. A backbone given open
 * stays the caller's; one opened here is closed by `task.release()`.
 */
export async function prepareMission(
  req: MissionRequest | (Omit<MissionRequest, 'backbone'> & { readonly backbone: Backbone }),
  o: BackboneOptions & {
    readonly signal?: AbortSignal;
    readonly world?: World;
    /** What readMission already returned for this request (the console checks before its job starts). */
    readonly inputs?: MissionInputs;
  } = {},
): Promise<MissionTask> {
  const names = req.names ?? CLI_NAMES;
  const inputs = o.inputs ?? (await readMission(req, o.world));
  const { world, rng, start } = inputs;
  const owned = 'kind' in req.backbone;
  const backbone = 'kind' in req.backbone ? await openBackbone(req.backbone, o) : req.backbone;
  try {
    // A robot's backbone is of the world its configuration names (its own id).
    if (backbone.artifact.world !== req.world && backbone.artifact.world !== world.spec.id)
      throw new WitnessError(
        'invalid-input',
        `${backbone.files.graph} is a graph of ${backbone.artifact.world}, not ${req.world}`,
        { file: backbone.files.graph },
      );
    if (o.signal?.aborted) throw new WitnessError('cancelled', 'planning cancelled');
    o.progress?.('augmenting the graph', 0, 1);
    const where = { regions: 'file' in req.regions ? req.regions.file : names.regions, start: names.start };
    const task = await augmentTask(
      backbone,
      { id: world.spec.id, map: world.map, restObservation: world.restObservation },
      inputs.regions,
      start,
      req.augment ?? DEFAULT_AUGMENT,
      rng,
      where,
    );
    return {
      world,
      formula: inputs.formula,
      automaton: inputs.automaton,
      regions: inputs.regions,
      regionsText: inputs.regionsText,
      start,
      seed: req.seed,
      backbone,
      graph: task.graph,
      report: task.report,
      augment_ms: task.augment_ms,
      release: () => (owned ? backbone.models.close() : Promise.resolve()),
    };
  } catch (e) {
    if (owned) await backbone.models.close();
    throw e;
  }
}

export interface RunOptions {
  /** The method chosen: recorded as the run's method; its planner makes every plan of the run. */
  readonly method: MissionMethod;
  /** Replan after a failure within R (default: the method is sagas-replan; the console replans with any planner). */
  readonly replanning?: boolean;
  /**
   * The plan the operator was shown (the console's, core/exec/mission.ts documentedPlan on this
   * task's graph with `method`): executed and recorded as it is, not searched again.
   */
  readonly first?: DocumentedPlan;
  readonly lambda?: number;
  readonly k?: number;
  readonly tauSoft?: number;
  /**
   * Guard-aware runtime steering during execution (default true; false is the "w/o Steering" ablation of Appendix H).
   */
  readonly steering?: boolean;
  /** What ordinary waypoints steer toward (ExecParams.targets; default 'rest', 'node' is an ablation). */
  readonly targets?: 'rest' | 'node';
  readonly maxSteps?: number;
  readonly replans?: number;
  /** Record the run in this audit log, naming who ran it and through which front end. */
  readonly audit?: {
    readonly log: AuditLog;
    readonly operator: string;
    readonly via: string;
    readonly meta?: Readonly<Record<string, unknown>>;
  };
  /** The operator in the loop (the console); without one, escalations end the mission. */
  readonly control?: MissionControl;
  /** An open world to drive (the benchmark reuses one per worker); else the task's world is opened and closed here. */
  readonly world?: World;
  /** How the task's world is opened when `world` is not given (tests inject faults). */
  readonly open?: OpenOptions;
  /** Stops the mission without an operator (Ctrl-C): the step in progress is cancelled, the mission ends as stopped. */
  readonly signal?: AbortSignal;
  /** Tees the mission's audit events (the console shows the milestones). */
  readonly onEvent?: (kind: string, body: unknown, step: number) => void;
  /** Called once the run is recorded, before the robot moves. */
  readonly started?: (auditRun: string | null) => void;
}

export interface MissionRun {
  readonly result: MissionResult;
  readonly auditRun: string | null;
}

/** The body a world's executor tracks for (core/exec/executor.ts execParams): the Ant is legged. */
export function bodyOf(entry: Pick<WorldEntry, 'kind'>): Body {
  return entry.kind === 'antmaze' ? 'legged' : 'point';
}

/** The budgets a run is asked for, their defaults filled in. */
function budgetsOf(o: {
  readonly method: MissionMethod;
  readonly replanning?: boolean;
  readonly replans?: number;
  readonly maxSteps?: number;
}): { replans: number; maxSteps: number; replanning: boolean } {
  return {
    replans: o.replans ?? MISSION_DEFAULTS.replans,
    maxSteps: o.maxSteps ?? MISSION_DEFAULTS.maxSteps,
    replanning: o.replanning ?? replansByDefault(o.method),
  };
}

/** A run's record in the audit log: its id, its recorder, and the hooks the mission writes through. */
interface RunRecord {
  readonly auditRun: string | null;
  readonly recorder: Recorder | undefined;
  readonly audit: MissionAudit | undefined;
}

/**
 * Starts a run's record (none without a log): the mission's evidence goes to its recorder, and is
 * teed to `onEvent` where the caller listens (the console shows the milestones).
 */
async function recordRun(
  log: AuditLog | null,
  meta: RunMeta,
  onEvent: ((kind: string, body: unknown, step: number) => void) | undefined,
): Promise<RunRecord> {
  const auditRun = log === null ? null : await log.startRun(meta);
  const recorder = log !== null && auditRun !== null ? missionRecorder(log, auditRun) : undefined;
  const audit: MissionAudit | undefined =
    recorder === undefined || onEvent === undefined
      ? recorder
      : {
          plan: (t, trigger, doc, ms) => recorder.plan(t, trigger, doc, ms),
          event: (kind, body, e) => {
            recorder.event(kind, body, e);
            onEvent(kind, body, e?.step ?? 0);
          },
        };
  return { auditRun, recorder, audit };
}

/** Waits until a run's evidence is written (its errors surface here). */
async function settleRun(log: AuditLog | null, r: RunRecord): Promise<void> {
  if (log !== null) await settleAudit(log, r.recorder !== undefined ? [r.recorder] : []);
}

/** Refuses models that do not read the world's observations or write its actions. */
function checkModels(b: Backbone, spec: World['spec']): void {
  const dims = b.models.manifest.dims;
  if (spec.observation.dim !== dims.obs || spec.action.dim !== dims.action) {
    throw new WitnessError(
      'invalid-input',
      `the models in ${b.files.models} read ${dims.obs}-D observations and write ${dims.action}-D actions; ${spec.id} has ${spec.observation.dim} (${spec.observation.names.join(', ')}) and ${spec.action.dim}`,
    );
  }
}

/** Runs a prepared task on its world: the mission assembly of every front end on an embedded world's latent graph. */
export async function runMissionTask(task: MissionTask, o: RunOptions): Promise<MissionRun> {
  checkInitial(o.first, o.method);
  const b = task.backbone;
  const world = o.world ?? (await task.world.open(o.open));
  try {
    const nav = navigationOf(world);
    const spec = world.spec;
    checkModels(b, spec);
    const { replans, maxSteps, replanning } = budgetsOf(o);
    const log = o.audit?.log ?? null;
    const rec = await recordRun(
      log,
      {
        world: task.world.id,
        backend: spec.backend,
        operator: o.audit?.operator ?? '',
        software: `witness ${VERSION}`,
        models: {
          embed: b.artifact.models.embed,
          policy: b.artifact.models.policy,
          graph: b.files.graph,
          dataset: b.artifact.dataset.sha256,
        },
        spec: task.automaton.formula,
        regions: task.regionsText,
        meta: {
          ...methodMeta(o.method, replanning),
          start: [...task.start],
          seed: task.seed,
          maxSteps,
          replans,
          via: o.audit?.via ?? '',
          events: AUDIT_EVENTS_VERSION,
          ...o.audit?.meta,
        },
      },
      o.onEvent,
    );
    o.started?.(rec.auditRun);
    const result = await runMission(
      {
        world: nav,
        policy: b.models,
        graph: task.graph,
        automaton: task.automaton,
        formula: task.formula,
        regions: task.regions.regions,
        start: task.start,
        now: () => performance.now(),
        ...(rec.audit ? { audit: rec.audit } : {}),
        ...(o.control ? { control: o.control } : {}),
        ...(o.first ? { initial: o.first } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      },
      {
        method: o.method,
        replanning,
        lambda: o.lambda ?? PLAN_DEFAULTS.lambda,
        k: o.k ?? PLAN_DEFAULTS.k,
        tauSoft: o.tauSoft ?? PLAN_DEFAULTS.tauSoft,
        exec: {
          ...execParams(b.artifact.params.H_TD, bodyOf(task.world)),
          ...(o.steering === false ? { steering: null } : {}),
          ...(o.targets !== undefined ? { targets: o.targets } : {}),
        },
        maxSteps,
        replans,
        seed: task.seed,
      },
    );
    await settleRun(log, rec);
    return { result, auditRun: rec.auditRun };
  } finally {
    if (o.world === undefined) await world.close();
  }
}

/**
 * How a run's method is recorded (run_start meta): `method` as chosen, `planner` the planner of
 * every plan it makes, `replanning` whether it replans after a failure (within `replans`).
 */
function methodMeta(
  method: MissionMethod,
  replanning: boolean,
): { method: MissionMethod; planner: string; replanning: boolean } {
  return { method, planner: plannerOf(method), replanning };
}

/**
 * The mission as `witness run --json` prints it (docs/CLI.md): each plan is its document as recorded, with its sha256.
 */
function missionReport(
  task: Pick<MissionTask, 'automaton' | 'start'> & {
    readonly world: { readonly id: string };
    readonly report?: MissionTask['report'];
  },
  method: MissionMethod,
  r: MissionResult,
  audit: { file: string; run: string } | null,
): Record<string, unknown> {
  const steps = [...r.stepTimes_ms].sort((a, b) => a - b);
  return {
    status: r.success ? 'success' : 'failed',
    failureMode: r.failureMode,
    message: r.message,
    world: task.world.id,
    method,
    formula: task.automaton.formula,
    start: [...task.start],
    steps: r.steps,
    T_pre: r.T_pre,
    T_suf: r.T_suf,
    ncc: r.ncc,
    executorComplete: r.executorComplete,
    monitorViable: r.monitorViable,
    plans: r.plans.map((p) => ({ t: p.t, planning_ms: p.planning_ms, plan_sha: planSha(p.document), ...p.document })),
    events: r.events,
    failures: r.failures,
    disagreements: r.disagreements,
    ...(task.report !== undefined ? { augmentation: task.report } : {}),
    ...(audit !== null ? { audit } : {}),
    step_ms: { p50: steps[Math.floor(steps.length * 0.5)] ?? 0, p95: steps[Math.floor(steps.length * 0.95)] ?? 0 },
  };
}

/** The mission drawn (maze, regions, the first plan's prefix, the last plan's suffix, the rollout, failures) as SVG. */
export function missionPicture(task: MissionTask, r: MissionResult, title: string): string {
  const layout = task.world.layout;
  if (layout === undefined) throw new WitnessError('invalid-input', `${task.world.id} has no maze layout to draw`);
  const xy = (g: SemanticGraph, v: number): [number, number] => [g.positions[2 * v]!, g.positions[2 * v + 1]!];
  const first = r.plans[0],
    last = r.plans[r.plans.length - 1];
  const prefix =
    first !== undefined && first.result.status === 'ok'
      ? first.result.steps.slice(0, first.result.prefixLength).map((s) => xy(first.graph, s.node))
      : [];
  const suffix =
    last !== undefined && last.result.status === 'ok'
      ? [
          xy(last.graph, last.result.steps[last.result.prefixLength - 1]!.node),
          ...last.result.steps.slice(last.result.prefixLength).map((s) => xy(last.graph, s.node)),
        ]
      : [];
  return missionSvg(layout, title, {
    regions: task.regions.regions,
    prefix,
    suffix,
    trajectory: r.trajectory,
    start: task.start,
    failures: r.failures.map((f) => [r.trajectory[2 * f.t]!, r.trajectory[2 * f.t + 1]!] as const),
  });
}

export interface RunOnceOptions extends Omit<RunOptions, 'audit' | 'world' | 'control'> {
  /** The audit database: a file, true for the default one, false for none. */
  readonly audit: string | boolean;
  readonly operator?: string;
  /** Draw the mission into this SVG file. */
  readonly picture?: string;
  /** Reuse generated backbones from the cache (default true). */
  readonly cache?: boolean;
  readonly log?: (line: string) => void;
  /** How the world is opened (tests substitute a simulated ROS 2 graph, or inject faults). */
  readonly open?: OpenOptions;
  /**
   * Ctrl-C (and SIGTERM) stops the mission: the step in progress is cancelled, the mission ends as stopped and the
   * world is closed (a robot left at rest).
   */
  readonly interruptible?: boolean;
}

/**
 * `witness run`: prepare the task, record and run the mission, draw it, report it. The audit log is
 * created when missing; the models and the log are closed whatever happens.
 */
export async function runOnce(
  req: MissionRequest,
  o: RunOnceOptions,
): Promise<{
  task: MissionTask;
  result: MissionResult;
  report: Record<string, unknown>;
  audit: { file: string; run: string } | null;
}> {
  // A robot is connected first: its pose is the start, and the same connection runs the mission.
  const entry = missionWorld(req.world);
  if (o.picture !== undefined && entry.layout === undefined)
    throw new WitnessError('invalid-input', `${req.world} has no maze layout to draw: drop --picture`, {
      path: '--picture',
    });
  const robot = entry.startsWhereItIs === true ? await entry.open(o.open) : undefined;
  let task: MissionTask | undefined;
  let log: AuditLog | null = null;
  try {
    task = await prepareMission(req, {
      ...(o.log ? { log: o.log } : {}),
      cache: o.cache !== false,
      ...(robot ? { world: robot } : {}),
    });
    const file = auditFileOf(o.audit);
    if (file !== null) log = await openAuditLog(file);
    const {
      audit: _file,
      operator,
      picture: _picture,
      cache: _cache,
      log: _log,
      interruptible: _interruptible,
      ...options
    } = o;
    // From here on the robot may move: Ctrl-C stops the mission (the world then closes, leaving it at rest) instead of
    // exiting at once.
    const stop = o.interruptible === true ? interruptible() : null;
    let run: MissionRun;
    try {
      run = await runMissionTask(task, {
        ...options,
        ...(robot ? { world: robot } : {}),
        ...(log !== null ? { audit: { log, operator: operator ?? operatorName(), via: 'cli' } } : {}),
        ...(stop !== null ? { signal: stop.signal } : {}),
      });
    } finally {
      stop?.release();
    }
    const audit = log !== null && run.auditRun !== null ? { file: log.file, run: run.auditRun } : null;
    if (o.picture !== undefined) {
      await writeFileAtomic(
        o.picture,
        missionPicture(
          task,
          run.result,
          `${task.world.id}: ${task.automaton.formula} (${o.method}, ${run.result.success ? 'success' : 'failed'})`,
        ),
      );
    }
    return { task, result: run.result, report: missionReport(task, o.method, run.result, audit), audit };
  } finally {
    await task?.release();
    await log?.close();
    await robot?.close();
  }
}

export interface MapMissionOptions {
  /** The method chosen: recorded as the run's method; its planner makes every plan of the run. */
  readonly method: MissionMethod;
  /** Replan after a failure within R (default: the method is sagas-replan; the console replans with any planner). */
  readonly replanning?: boolean;
  readonly lambda?: number;
  readonly k?: number;
  readonly replans?: number;
  /** Pose samples before giving up (default MISSION_DEFAULTS.maxSteps). */
  readonly maxSteps?: number;
  /**
   * The audit database: a file, true for the default one, false for none; or a log the caller holds open (the console).
   */
  readonly audit: string | boolean | AuditLog;
  readonly operator?: string;
  readonly via?: string;
  readonly control?: MissionControl;
  /** Stops the mission (the goal is cancelled); Ctrl-C does too when `interruptible`. */
  readonly signal?: AbortSignal;
  readonly interruptible?: boolean;
  readonly open?: OpenOptions;
  readonly onEvent?: (kind: string, body: unknown, step: number) => void;
  /** Sleeps between pose samples (tests); default real time. */
  readonly sleep?: (s: number) => Promise<void>;
  /**
   * A robot already connected and the plan the operator saw from its pose (the console, made with
   * `method`): executed and recorded as it is, not searched again. The caller checked that the
   * robot is still at the plan's start, and closes the world.
   */
  readonly opened?: { readonly world: World; readonly plan: MapPlan; readonly task: MapTask };
  /** Called once the run is recorded (its audit run id, or null without an audit log), before the robot moves. */
  readonly started?: (auditRun: string | null) => void;
}

/** The waypoint driver's figures for a robot: its configuration's, else the driver's defaults. */
function waypointLimits(
  nav: Waypoints,
): Pick<
  WaypointMissionOptions,
  'rounds' | 'goalTimeout_s' | 'minSpeed_m_s' | 'reach_m' | 'maxLink_m' | 'goalTolerance_m'
> {
  const c = nav.limits;
  return {
    rounds: WAYPOINT_DEFAULTS.rounds,
    goalTimeout_s: c?.goalTimeout_s ?? WAYPOINT_DEFAULTS.goalTimeout_s,
    minSpeed_m_s: c?.minSpeed_m_s ?? WAYPOINT_DEFAULTS.minSpeed_m_s,
    reach_m: c?.reach_m ?? WAYPOINT_DEFAULTS.reach_m,
    maxLink_m: c?.maxLink_m ?? WAYPOINT_DEFAULTS.maxLink_m,
    goalTolerance_m: c?.goalTolerance_m ?? WAYPOINT_DEFAULTS.goalTolerance_m,
  };
}

/**
 * `witness run --world ros2:… --graph MAP-GRAPH.json`, and the console's runs on a robot's map:
 * read the map task (app/map-task.ts), connect, record, run the waypoint driver, report.
 */
export async function runMapMission(
  req: MapMissionRequest,
  o: MapMissionOptions,
): Promise<{
  result: MissionResult;
  report: Record<string, unknown>;
  audit: { file: string; run: string } | null;
  start: readonly [number, number];
}> {
  const entry = worldEntry(req.world);
  if (entry.kind !== 'ros2')
    throw new WitnessError(
      'invalid-input',
      `${req.world}: missions on a map graph run on a robot (ros2:<configuration file>); the embedded worlds plan on their latent graphs`,
      { path: '--world' },
    );
  checkInitial(o.opened?.plan, o.method);
  const task = o.opened?.task ?? (await readMapTask(req));
  const world: World = o.opened?.world ?? (await entry.open(o.open));
  let log: AuditLog | null = null;
  const stop = o.interruptible === true ? interruptible() : null;
  try {
    const nav = waypointsOf(world);
    const held = typeof o.audit === 'object' ? o.audit : null;
    const file = held !== null ? null : auditFileOf(o.audit as string | boolean);
    log = held ?? (file !== null ? await openAuditLog(file) : null);
    const { replans, maxSteps, replanning } = budgetsOf(o);
    const rec = await recordRun(
      log,
      {
        world: world.spec.id,
        backend: world.spec.backend,
        operator: o.operator ?? operatorName(),
        software: `witness ${VERSION}`,
        models: { graph: req.graph },
        spec: task.automaton.formula,
        regions: task.regions.text,
        ...(task.map !== null ? { map: task.map } : {}),
        meta: {
          ...methodMeta(o.method, replanning),
          executor: 'waypoints',
          maxSteps,
          replans,
          via: o.via ?? 'cli',
          events: AUDIT_EVENTS_VERSION,
          world: req.world,
        },
      },
      o.onEvent,
    );
    o.started?.(rec.auditRun);
    const signals = [o.signal, stop?.signal].filter((s): s is AbortSignal => s !== undefined);
    const result = await runWaypointMission(
      {
        world: nav,
        graph: task.graph,
        automaton: task.automaton,
        formula: task.formula,
        regions: task.regions.regions.regions,
        now: () => performance.now(),
        ...(rec.audit ? { audit: rec.audit } : {}),
        ...(o.control ? { control: o.control } : {}),
        ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
        ...(o.sleep ? { sleep: o.sleep } : {}),
        ...(o.opened ? { initial: o.opened.plan } : {}),
      },
      {
        method: o.method,
        replanning,
        lambda: o.lambda ?? PLAN_DEFAULTS.lambda,
        k: o.k ?? Infinity,
        tauSoft: PLAN_DEFAULTS.tauSoft,
        replans,
        maxSteps,
        ...waypointLimits(nav),
      },
    );
    await settleRun(log, rec);
    const auditRef = log !== null && rec.auditRun !== null ? { file: log.file, run: rec.auditRun } : null;
    const start: [number, number] = [result.trajectory[0] ?? NaN, result.trajectory[1] ?? NaN];
    const report = missionReport(
      { world: { id: req.world }, automaton: task.automaton, start },
      o.method,
      result,
      auditRef,
    );
    return { result, report: { ...report, executor: 'waypoints', graph: req.graph }, audit: auditRef, start };
  } finally {
    stop?.release();
    if (typeof o.audit !== 'object') await log?.close();
    if (o.opened === undefined) await world.close();
  }
}
