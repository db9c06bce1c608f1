/**
 * The mission workflow on a robot's own map (`witness run --world ros2:CONFIG --graph GRAPH.json`):
 * a labelled graph made from the map (`witness graph from-map`), the plan's waypoints executed as
 * the robot's navigation goals (Nav2), the label function on its pose, the runtime monitor, failure
 * records, replanning from the monitor's states and escalation, all recorded in the audit log as for
 * the embedded worlds. Ctrl-C, the console's stop and E-STOP cancel the running goal.
 */
import { WitnessError } from '../contract/errors.js';
import { AUDIT_EVENTS_VERSION } from '../contract/audit-events.js';
import { MISSION_DEFAULTS, PLAN_DEFAULTS, type MissionMethod, replansByDefault } from '../contract/defaults.js';
import { onRegions } from '../core/plan/crossings.js';
import { type World, waypointsOf } from '../core/world/world.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import { missingPosition } from '../core/exec/waypoint-graph.js';
import { type MapPlan, WAYPOINT_DEFAULTS, planOnMap, runWaypointMission } from '../core/exec/waypoint-mission.js';
import { type MissionAudit, type MissionControl, type MissionResult, checkInitial } from '../core/exec/run-skeleton.js';
import { type OpenOptions, worldEntry } from '../backends/catalogue.js';
import { readGraphInput } from '../services/plan/inputs.js';
import { readMap } from '../services/maps/read.js';
import { mapBlobText } from '../services/audit/map-blob.js';
import type { AuditLog } from '../services/audit/store.js';
import { missionRecorder } from '../services/audit/mission-recorder.js';
import { VERSION } from '../contract/version.js';
import { operatorName } from '../platform/paths.js';
import { interruptible } from '../platform/interrupt.js';
import { auditFileOf, openAuditLog, settleAudit } from './audit-log.js';
import {
  CLI_NAMES,
  type InputNames,
  type RegionsInput,
  methodMeta,
  missionReport,
  specOf,
  taskRegions,
} from './mission.js';

export interface MapMissionRequest {
  /** A ROS 2 world whose configuration has a "waypoints" section. */
  readonly world: string;
  readonly spec: string;
  readonly regions: RegionsInput;
  /** The map's labelled graph (graph JSON with node positions in the map frame). */
  readonly graph: string;
  readonly names?: InputNames;
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

export interface MapTask {
  readonly graph: SemanticGraph;
  readonly formula: ReturnType<typeof specOf>['formula'];
  readonly automaton: ReturnType<typeof specOf>['automaton'];
  readonly regions: Awaited<ReturnType<typeof taskRegions>>;
  /**
   * The map the graph names (its "map"), as the audit log keeps it (services/audit/map-blob.ts); null when it names
   * none.
   */
  readonly map: string | null;
}

/**
 * Reads and checks the task before anything connects: the specification, the regions, the graph
 * (labelled, every node placed, its labels those the regions give its position).
 */
export async function readMapTask(req: MapMissionRequest): Promise<MapTask> {
  const names = req.names ?? CLI_NAMES;
  const { formula, automaton } = specOf(req.spec, names);
  const regions = await taskRegions(req.regions, automaton.aps, names);
  const input = await readGraphInput(req.graph);
  if (input.kind !== 'labelled') {
    throw new WitnessError(
      'invalid-input',
      `${req.graph} is a latent graph (.wgraph): the learned path on a robot needs --data (and models) too; a map graph is graph JSON from \`witness graph from-map\``,
      { file: req.graph },
    );
  }
  const unplaced = missingPosition(input.graph);
  if (unplaced !== null)
    throw new WitnessError(
      'invalid-input',
      `${req.graph}: node "${unplaced}" has no position ("pos"): a robot's mission needs every node placed in the map frame (\`witness graph from-map\` writes them)`,
      { file: req.graph },
    );
  // The graph's labels and the label function on the pose must agree, or the plan and the monitor
  // disagree from the start; and edges carry what they cross, by these regions.
  const { graph } = onRegions(input.graph, regions.regions.regions, req.graph);
  return {
    graph,
    formula,
    automaton,
    regions,
    map: input.map !== undefined ? await graphMap(req.graph, input.map) : null,
  };
}

/** The map a map graph was made from, read for the audit log; an unreadable one is the graph's error. */
async function graphMap(graphFile: string, mapFile: string): Promise<string> {
  try {
    const m = await readMap(mapFile);
    return mapBlobText(m.name, m.grid);
  } catch (e) {
    if (e instanceof WitnessError)
      throw new WitnessError(
        e.code,
        `${graphFile}: its "map" ${mapFile} (recorded with the run): ${e.message}`,
        { file: graphFile, path: '$.map' },
        { cause: e },
      );
    throw e;
  }
}

/** `witness run --world ros2:… --graph MAP-GRAPH.json`: read, connect, record, run, report. */
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
    const replans = o.replans ?? MISSION_DEFAULTS.replans,
      maxSteps = o.maxSteps ?? MISSION_DEFAULTS.maxSteps;
    const k = o.k ?? Infinity,
      lambda = o.lambda ?? PLAN_DEFAULTS.lambda;
    const replanning = o.replanning ?? replansByDefault(o.method);
    const auditRun =
      log === null
        ? null
        : await log.startRun({
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
          });
    o.started?.(auditRun);
    const recorder = log !== null && auditRun !== null ? missionRecorder(log, auditRun) : undefined;
    const audit: MissionAudit | undefined =
      recorder === undefined || o.onEvent === undefined
        ? recorder
        : {
            plan: (t, trigger, doc, ms) => recorder.plan(t, trigger, doc, ms),
            event: (kind, body, e) => {
              recorder.event(kind, body, e);
              o.onEvent!(kind, body, e?.step ?? 0);
            },
          };
    const signals = [o.signal, stop?.signal].filter((s): s is AbortSignal => s !== undefined);
    const c = nav.limits;
    const result = await runWaypointMission(
      {
        world: nav,
        graph: task.graph,
        automaton: task.automaton,
        formula: task.formula,
        regions: task.regions.regions.regions,
        now: () => performance.now(),
        ...(audit ? { audit } : {}),
        ...(o.control ? { control: o.control } : {}),
        ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
        ...(o.sleep ? { sleep: o.sleep } : {}),
        ...(o.opened ? { initial: o.opened.plan } : {}),
      },
      {
        method: o.method,
        replanning,
        lambda,
        k,
        tauSoft: PLAN_DEFAULTS.tauSoft,
        replans,
        maxSteps,
        rounds: WAYPOINT_DEFAULTS.rounds,
        goalTimeout_s: c?.goalTimeout_s ?? WAYPOINT_DEFAULTS.goalTimeout_s,
        minSpeed_m_s: c?.minSpeed_m_s ?? WAYPOINT_DEFAULTS.minSpeed_m_s,
        reach_m: c?.reach_m ?? WAYPOINT_DEFAULTS.reach_m,
        maxLink_m: c?.maxLink_m ?? WAYPOINT_DEFAULTS.maxLink_m,
        goalTolerance_m: c?.goalTolerance_m ?? WAYPOINT_DEFAULTS.goalTolerance_m,
      },
    );
    if (log !== null) await settleAudit(log, recorder !== undefined ? [recorder] : []);
    const auditRef = log !== null && auditRun !== null ? { file: log.file, run: auditRun } : null;
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

/** How far a robot may be from where its plan starts and still run it (metres): the reach of a waypoint. */
export function startTolerance(world: World): number {
  return waypointsOf(world).limits?.reach_m ?? WAYPOINT_DEFAULTS.reach_m;
}

/**
 * Plans a mission on a robot's map graph from where the robot is now (the console shows this plan
 * before Run): the pose read from the connected robot joins the graph as the start node.
 */
export async function planMapMission(
  task: MapTask,
  world: World,
  o: { readonly method: MissionMethod; readonly lambda?: number; readonly k?: number },
): Promise<MapPlan> {
  const nav = waypointsOf(world);
  const pose = await nav.pose();
  try {
    return planOnMap(
      task.graph,
      task.automaton,
      task.regions.regions.regions,
      pose,
      {
        method: o.method,
        lambda: o.lambda ?? PLAN_DEFAULTS.lambda,
        k: o.k ?? Infinity,
        tauSoft: PLAN_DEFAULTS.tauSoft,
        maxLink_m: nav.limits?.maxLink_m ?? WAYPOINT_DEFAULTS.maxLink_m,
      },
      () => performance.now(),
    );
  } catch (e) {
    if (e instanceof RangeError) throw new WitnessError('invalid-input', e.message, { path: '$.graph' });
    throw e;
  }
}
