/**
 * The operator console's missions: plan (a cancellable job: the backbone from the cache or built in a
 * worker, augmentation, product search) into a session the operator inspects, then run exactly that
 * session under the operator's control — pause, stop, the emergency stop, decisions on escalations —
 * with live events, everything recorded in the session's audit log. The mission itself is the one of
 * app/mission.ts; this module only keeps sessions and runs and turns them into console events.
 */
import { randomUUID } from 'node:crypto';
import { WitnessError } from '../contract/errors.js';
import {
  type DecisionKind,
  MISSION_DEFAULTS,
  PLAN_DEFAULTS,
  type PlanMethod,
  datasetRegime,
} from '../contract/defaults.js';
import type {
  AutomatonView,
  EstopState,
  GraphScene,
  MissionAction,
  MissionGraphView,
  MissionLive,
  MissionPlanRequest,
  MissionPlanResult,
  MissionRunRequest,
  PlanView,
  RunState,
  WorldInfo,
} from '../contract/api.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import type { DocumentedPlan } from '../core/plan/document.js';
import { AuditLog } from '../services/audit/store.js';
import { auditSink, planSha } from '../services/audit/mission-recorder.js';
import { automatonView, documentedPlanView, mapScene, mazeScene, planView } from '../services/ui/scene.js';
import { GraphViewTooLarge, latentScene, productScene } from '../services/ui/graph-views.js';
import { operatorName } from '../platform/paths.js';
import { BackboneCache } from './backbone-cache.js';
import { RunControl } from './run-control.js';
import {
  type MissionResult,
  type MissionTask,
  prepareMission,
  readMission,
  runMapMission,
  runMissionTask,
} from './mission.js';
import { API_NAMES, type Spec } from './task-inputs.js';
import { openAuditLog } from './audit-log.js';
import { EmergencyStop } from './estop.js';
import { durableLatch } from './estop-latch.js';
import { reasonProblem } from '../contract/reason.js';
import { LiveMission } from './live-mission.js';
import { type PlanChoice, outcomeOf } from '../core/exec/run-skeleton.js';
import { GRAPHS_DIR, bundleDir, bundleRegime, consoleWorlds, robotWorlds } from './worlds.js';
import {
  type MapMissionRequest,
  type MapPlanRequest,
  type MapTask,
  planMapMission,
  readMapTask,
  startTolerance,
} from './map-task.js';
import { workspaceFile } from './plan.js';
import type { MapPlan } from '../core/exec/waypoint-mission.js';
import { type World, waypointsOf } from '../core/world/world.js';
import { worldEntry } from '../backends/catalogue.js';
import { type Session, sessionOpen } from './session.js';

interface PlannedMaze {
  readonly kind: 'maze';
  /** What the console was shown. */
  shown?: MissionPlanResult;
  readonly task: MissionTask;
  /** The plan shown, with its document: Run executes and records this very object. */
  readonly served: DocumentedPlan;
  readonly method: PlanMethod;
  readonly lambda: number;
  readonly k: number;
}

/** A plan on a robot's map graph: the robot stays connected until it runs (once) or a new plan replaces it. */
interface PlannedRobot {
  readonly kind: 'robot';
  shown?: MissionPlanResult;
  readonly request: MapMissionRequest;
  readonly task: MapTask;
  readonly world: World;
  /** The plan shown, with its document: Run executes and records this very object. */
  readonly plan: MapPlan;
  readonly method: PlanMethod;
  readonly lambda: number;
  readonly k: number;
  readonly tolerance_m: number;
  readonly title: string;
}

type Planned = PlannedMaze | PlannedRobot;

/** The milestones the console's event list shows (the audit log gets everything). */
const PROGRESS_KINDS = new Set(['checkpoint', 'replan', 'escalation', 'operator_decision', 'failure_record']);
/**
 * Of the executor's events (audit kind 'checkpoint'), the ones the event list shows: anchors verified, and a stalled
 * body walking back.
 */
const EXEC_MILESTONES = new Set(['checkpoint', 'recovery']);

/** The event list's line for an audit event of a running mission, or null when the list does not show it. */
export function progressLine(kind: string, body: unknown): string | null {
  if (!PROGRESS_KINDS.has(kind)) return null;
  if (kind === 'checkpoint' && !EXEC_MILESTONES.has(String((body as { kind?: unknown } | null)?.kind))) return null;
  return summary(kind, body);
}

function summary(kind: string, body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'checkpoint': {
      if (b['kind'] !== 'recovery') return `checkpoint ${String(b['node'])}`;
      const to = Array.isArray(b['to']) ? (b['to'] as unknown[]).map((v) => Number(v).toFixed(2)).join(', ') : '?';
      return `stalled on the way to ${String(b['node'])} (moved ${Number(b['moved_m']).toFixed(2)} m): walking back to ${to}`;
    }
    case 'failure_record':
      return `${String(b['kind'])}: ${String(b['rule'])}`;
    case 'replan':
      return `replan ${String(b['replan'])} after ${String(b['trigger'])}`;
    case 'escalation':
      return String(b['reason'] ?? b['message']);
    case 'operator_decision':
      return `operator: ${String(b['decision'])} — ${String(b['reason'])}`;
    default:
      return kind;
  }
}

/** A mission's first plan on the maze's augmented graph, as plain data (the planning worker makes it). */
export interface FirstPlanRequest {
  readonly graph: SemanticGraph;
  readonly automaton: Spec['automaton'];
  readonly choice: PlanChoice;
  readonly formula: Spec['formula'];
}

/**
 * What the console hands to the planning worker (app/plan-threads.ts), off the event loop that answers
 * the E-STOP: a specification parsed and translated (task-inputs.ts specOf, named as the API names
 * its fields), a maze mission's first plan (core documentedPlan) and a robot's (map-task.ts mapPlanOf).
 */
export interface ConsolePlanning {
  spec(text: string): Promise<Spec>;
  /** The plan made and documented, without the graph it was asked on (the request's). */
  plan(r: FirstPlanRequest): Promise<Omit<DocumentedPlan, 'graph'>>;
  mapPlan(r: MapPlanRequest): Promise<MapPlan>;
}

export class MissionConsole {
  private readonly backbones = new BackboneCache();
  private readonly sessions = new Map<string, Planned>();
  private readonly runs = new Map<string, { control: RunControl; done: Promise<void> }>();
  /** Where each run's stop and emergency-stop decisions are recorded (the mission records its own escalations). */
  private readonly stopSinks = new Map<string, ReturnType<typeof auditSink>>();
  private audit: Promise<AuditLog> | null = null;
  /** The current mission run, or the last one: what a window that opens now joins. */
  private live: LiveMission | null = null;
  /** The emergency stop's latch, shared by everything the console runs. */
  readonly estop: EmergencyStop;

  constructor(
    private readonly session: Session,
    private readonly planning: ConsolePlanning,
  ) {
    this.estop = new EmergencyStop({
      auditLog: () => this.auditLog(),
      operator: operatorName,
      via: `console (${session.transport})`,
      publish: (state) => session.bus.emit({ topic: 'estop', state }),
      durable: durableLatch(session.workspace, session.auditFile),
      warn: (line) => process.stderr.write(`witness: ${line}\n`),
    });
  }

  async worlds(): Promise<WorldInfo[]> {
    return [...consoleWorlds(this.session), ...(await robotWorlds(this.session))];
  }

  /** The session's audit log, opened on first use (missions, tool loops and the E-STOP share it). */
  auditLog(): Promise<AuditLog> {
    this.audit ??= openAuditLog(this.session.auditFile);
    return this.audit;
  }

  /** Plans a mission as a job with progress; the session it returns is what `run` executes. */
  async plan(req: MissionPlanRequest): Promise<MissionPlanResult> {
    const worlds = await this.worlds();
    const world = worlds.find((w) => w.id === req.world);
    if (world === undefined)
      throw new WitnessError(
        'invalid-params',
        `unknown world "${req.world}" (known: ${worlds.map((w) => w.id).join(', ')})`,
        { path: '$.world' },
      );
    if (world.kind === 'robot') return this.planRobot(req, world);
    if (req.graph !== undefined)
      throw new WitnessError('invalid-params', `${req.world} plans on its learned graph: a map graph is for robots`, {
        path: '$.graph',
      });
    if (world.models.length === 0)
      throw new WitnessError(
        'not-found',
        `no model bundle for ${req.world} (train one, or install the shipped models)`,
        { path: '$.world' },
      );
    const bundle = req.models ?? world.models[0]!;
    if (!world.models.includes(bundle))
      throw new WitnessError(
        'invalid-params',
        `unknown model bundle "${bundle}" for ${req.world} (available: ${world.models.join(', ')})`,
        { path: '$.models' },
      );
    const seed = req.seed ?? MISSION_DEFAULTS.seed;
    const datasetSteps = req.datasetSteps ?? MISSION_DEFAULTS.consoleDatasetSteps;
    const modelsDir = bundleDir(this.session, bundle);
    const request = {
      world: req.world,
      spec: req.spec,
      regions: { text: req.regions },
      seed,
      names: API_NAMES,
      ...(req.start !== undefined ? { start: req.start } : {}),
    };
    // The specification, the regions and the start are checked before the job starts.
    const inputs = await readMission({ ...request, translated: await this.planning.spec(req.spec) });
    return this.session.jobs.run(req.job, `Planning in ${req.world}`, async (signal, progress) => {
      const cancelled = (e: unknown): never => {
        if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
        throw e;
      };
      const regime = bundleRegime(modelsDir);
      const backbone = await this.backbones
        .get({ world: req.world, modelsDir, steps: datasetSteps, seed, kind: regime }, signal, progress)
        .catch(cancelled);
      const task = await prepareMission({ ...request, backbone }, { progress, signal, inputs }).catch(cancelled);
      if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
      progress('product search', 0, 1);
      const method: PlanMethod = req.method ?? 'sagas';
      const lambda = req.lambda ?? PLAN_DEFAULTS.lambda;
      const k = req.k ?? PLAN_DEFAULTS.k;
      const made = await this.planning.plan({
        graph: task.graph,
        automaton: task.automaton,
        choice: { method, lambda, k, tauSoft: PLAN_DEFAULTS.tauSoft },
        formula: task.formula,
      });
      const served: DocumentedPlan = { ...made, graph: task.graph };
      const id = randomUUID();
      const planned: PlannedMaze = { kind: 'maze', task, served, method, lambda, k };
      this.sessions.set(id, planned);
      return (planned.shown = {
        session: id,
        scene: this.scene(task, served.graph),
        plan: documentedPlanView(served),
        plan_sha: planSha(served.document),
        method,
        automaton: automatonView(task.automaton),
        planning_ms: served.planning_ms,
        report: {
          anchors: task.report.nodes.anchors,
          unavailable: [...task.report.unavailable],
          nodes: task.graph.ids.length,
          dataset: {
            regime: datasetRegime(backbone.dataset.generator) ?? 'imported',
            transitions: backbone.dataset.terminals.length,
          },
        },
      });
    });
  }

  /** A planned mission's latent graph or product graph, with its plan (API missionGraph). */
  graph(
    session: string,
    view: MissionGraphView,
  ): { view: MissionGraphView; scene: GraphScene; plan: PlanView | null; automaton: AutomatonView; note: string } {
    const s = this.sessions.get(session);
    if (s === undefined)
      throw new WitnessError('not-found', `no planned mission ${session}: plan it first`, { path: '$.session' });
    const shown = s.shown?.plan;
    if (shown === undefined)
      throw new WitnessError('not-found', `no planned mission ${session}: plan it first`, { path: '$.session' });
    const automaton = automatonView(s.task.automaton);
    if (s.kind === 'robot') {
      if (view === 'latent')
        throw new WitnessError(
          'invalid-params',
          'a robot plans on its map graph: there is no latent graph (the map graph is on the Mission tab)',
          { path: '$.view' },
        );
      try {
        const p = productScene(
          s.plan.graph,
          s.task.automaton,
          this.robotScene(s, s.plan.graph),
          shown,
          PLAN_DEFAULTS.tauSoft,
        );
        return {
          view,
          scene: p.scene,
          plan: p.plan,
          automaton,
          note: `the product graph: ${p.scene.nodes.length} reachable (node, state) pairs, one copy of the map per automaton state (${p.states})`,
        };
      } catch (e) {
        if (e instanceof GraphViewTooLarge) throw new WitnessError('invalid-params', e.message, { path: '$.view' });
        throw e;
      }
    }
    const task = s.task,
      scene = this.scene(task, task.graph);
    if (view === 'latent') {
      const l = latentScene(scene, shown);
      return {
        view,
        scene: l.scene,
        plan: l.plan,
        automaton,
        note: `the latent graph: ${l.scene.nodes.length} cluster nodes; the task's ${l.anchors} anchors and its start are not part of it (the plan is shown through its cluster nodes)`,
      };
    }
    try {
      const p = productScene(task.graph, task.automaton, scene, shown, PLAN_DEFAULTS.tauSoft);
      return {
        view,
        scene: p.scene,
        plan: p.plan,
        automaton,
        note: `the product graph: ${p.scene.nodes.length} reachable (node, state) pairs, one copy of the maze per automaton state (${p.states})`,
      };
    } catch (e) {
      if (e instanceof GraphViewTooLarge) throw new WitnessError('invalid-params', e.message, { path: '$.view' });
      throw e;
    }
  }

  private scene(task: MissionTask, g: SemanticGraph): MissionPlanResult['scene'] {
    return mazeScene(
      task.world.id,
      task.world.layout!,
      g,
      `${task.world.id}: ${task.automaton.formula}`,
      task.regions.regions,
    );
  }

  private robotScene(p: Pick<PlannedRobot, 'task' | 'title'>, g: SemanticGraph): MissionPlanResult['scene'] {
    return mapScene(p.title, g, `${p.title}: ${p.task.automaton.formula}`, p.task.regions.regions.regions);
  }

  /** The robot connections held by plans not yet run; the one of `keep` stays. */
  private async releaseRobots(keep?: string): Promise<void> {
    for (const [id, p] of [...this.sessions]) {
      if (p.kind !== 'robot' || id === keep) continue;
      this.sessions.delete(id);
      await p.world.close().catch(() => undefined);
    }
  }

  /**
   * Plans a mission on a robot's map graph: connects to the robot (a job: the connection can take
   * the configuration's connect timeout), reads its pose, and plans from there. The robot stays
   * connected for Run, which refuses the plan if the robot has moved away from its start since.
   */
  private async planRobot(req: MissionPlanRequest, info: WorldInfo): Promise<MissionPlanResult> {
    if (info.problem !== undefined) throw new WitnessError('invalid-input', info.problem, { path: '$.world' });
    if (req.models !== undefined)
      throw new WitnessError(
        'invalid-params',
        `${req.world} is a robot: it plans on a map graph, with no learned models`,
        { path: '$.models' },
      );
    if (req.start !== undefined)
      throw new WitnessError('invalid-params', 'a robot starts where it is: no start is given', { path: '$.start' });
    if (req.graph === undefined)
      throw new WitnessError(
        'invalid-params',
        `choose a map graph for ${info.title}${(info.graphs ?? []).length === 0 ? ` (none in the workspace: \`witness graph from-map\` … --out <workspace>/${GRAPHS_DIR}/NAME.json)` : ''}`,
        { path: '$.graph' },
      );
    if (!(info.graphs ?? []).includes(req.graph))
      throw new WitnessError('not-found', `no map graph "${req.graph}" in the workspace's ${GRAPHS_DIR}/ folder`, {
        path: '$.graph',
      });
    const file = await workspaceFile(this.session.workspace, req.graph);
    const request: MapMissionRequest = {
      world: req.world,
      spec: req.spec,
      regions: { text: req.regions },
      graph: file,
      names: API_NAMES,
    };
    // The specification, the regions and the graph are checked before anything connects.
    const task = await readMapTask({ ...request, translated: await this.planning.spec(req.spec) });
    const method: PlanMethod = req.method ?? 'sagas';
    const lambda = req.lambda ?? PLAN_DEFAULTS.lambda;
    const k = req.k ?? Infinity;
    const title = info.title.replace(/^ROS 2: /, '');
    return this.session.jobs.run(req.job, `Planning on ${title}`, async (signal, progress) => {
      progress('connecting to the robot', 0, 2);
      const world = await worldEntry(req.world).open(sessionOpen(this.session));
      let kept = false;
      try {
        if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
        progress('reading the pose; product search', 1, 2);
        const mapPlan = await planMapMission(task, world, { method, lambda, k }, (r) => this.planning.mapPlan(r));
        if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
        const id = randomUUID();
        const planned: PlannedRobot = {
          kind: 'robot',
          request,
          task,
          world,
          plan: mapPlan,
          method,
          lambda,
          k,
          tolerance_m: startTolerance(world),
          title,
        };
        this.sessions.set(id, planned);
        kept = true;
        await this.releaseRobots(id);
        const n = task.graph.ids.length;
        return (planned.shown = {
          session: id,
          scene: this.robotScene(planned, mapPlan.graph),
          plan: documentedPlanView(mapPlan),
          plan_sha: planSha(mapPlan.document),
          method,
          automaton: automatonView(task.automaton),
          planning_ms: mapPlan.planning_ms,
          report: { anchors: 0, unavailable: [], nodes: n + 1 },
          robot: { x: mapPlan.pose.x, y: mapPlan.pose.y, tolerance_m: planned.tolerance_m },
        });
      } finally {
        if (!kept) await world.close().catch(() => undefined);
      }
    });
  }

  /** A plan the workbench still holds, as it was shown. */
  shown(session: string): MissionPlanResult {
    const s = this.sessions.get(session)?.shown;
    if (s === undefined)
      throw new WitnessError(
        'not-found',
        `no planned mission ${session} (the workbench restarted, or a robot's plan ran)`,
        { path: '$.session' },
      );
    return s;
  }

  /** Starts executing a planned session; progress arrives as mission.* events on the session's bus. */
  async run(req: MissionRunRequest): Promise<{ run: string; auditRun: string | null }> {
    const s = this.sessions.get(req.session);
    if (s === undefined)
      throw new WitnessError(
        'not-found',
        `no planned mission ${req.session}: plan it first (a robot's plan runs once: the robot has moved since)`,
        { path: '$.session' },
      );
    this.estop.assertClear('start a mission');
    if ([...this.runs.values()].some((r) => r.control.active))
      throw new WitnessError('busy', 'a mission is already running: stop it first');
    if (s.kind === 'robot') return this.runRobot(req, s);
    // The plan shown runs as it is, recorded as the method chosen; replans (within R, then the operator) use the same
    // planner.
    return this.launch(
      this.shownOf(req.session, s),
      req.speed ?? 0,
      (graph) => this.scene(s.task, graph),
      (hooks) =>
        runMissionTask(s.task, {
          method: s.method,
          replanning: true,
          first: s.served,
          lambda: s.lambda,
          k: s.k,
          replans: req.replans ?? MISSION_DEFAULTS.replans,
          maxSteps: req.maxSteps ?? MISSION_DEFAULTS.maxSteps,
          audit: { log: hooks.log, operator: operatorName(), via: `console (${this.session.transport})` },
          control: hooks.control,
          onEvent: hooks.onEvent,
          started: hooks.started,
          open: sessionOpen(this.session),
        }),
    );
  }

  /**
   * Starts a run in the background — a mission on a maze or on a robot — under a RunControl the
   * operator holds (and the E-STOP stops), its milestones as console events; resolves once the run
   * is recorded, or rejects when it failed before that. `after` runs when it has ended, whatever the end.
   */
  private async launch(
    shown: { session: string; plan: MissionPlanResult },
    speed: number,
    sceneOf: (g: SemanticGraph) => MissionPlanResult['scene'],
    work: (hooks: {
      log: AuditLog;
      control: RunControl;
      onEvent: (kind: string, body: unknown, step: number) => void;
      started: (id: string | null) => void;
    }) => Promise<{ result: MissionResult }>,
    after?: () => Promise<void>,
  ): Promise<{ run: string; auditRun: string | null }> {
    const log = await this.auditLog();
    const bus = this.session.bus;
    const run = randomUUID();
    const live = new LiveMission({
      run,
      session: shown.session,
      scene: shown.plan.scene,
      plan: shown.plan.plan,
      plan_sha: shown.plan.plan_sha,
      automaton: shown.plan.automaton,
    });
    this.live = live;
    const control = new RunControl(
      run,
      (e) => {
        live.record(e);
        bus.emit(e);
      },
      speed,
    );
    control.replanned = (t, result, graph, document) =>
      control.publish({
        topic: 'mission.replan',
        run,
        t,
        plan: planView(result, graph),
        plan_sha: planSha(document),
        scene: sceneOf(graph),
      });
    let auditRun: string | null = null;
    let started!: () => void;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    let failedEarly: unknown = null;
    const done = (async () => {
      try {
        const r = await work({
          log,
          control,
          onEvent: (kind, body, step) => {
            const line = progressLine(kind, body);
            if (line !== null) control.event(step, kind, line);
          },
          started: (id) => {
            auditRun = id;
            live.recorded(id);
            if (id !== null) this.stopSinks.set(run, auditSink(log, id));
            started();
          },
        });
        control.finished();
        const trajectory = Array.from(r.result.trajectory, (v) => Math.round(v * 1000) / 1000);
        control.publish({
          topic: 'mission.end',
          run,
          success: r.result.success,
          outcome: outcomeOf(r.result),
          failureMode: r.result.failureMode,
          message: r.result.message,
          steps: r.result.steps,
          auditRun,
          trajectory,
        });
      } catch (e) {
        failedEarly = e;
        started();
        control.stop(`internal error: ${e instanceof Error ? e.message : String(e)}`, false);
        control.publish({
          topic: 'mission.end',
          run,
          success: false,
          outcome: 'failed',
          failureMode: 'error',
          message: e instanceof Error ? e.message : String(e),
          steps: 0,
          auditRun,
          trajectory: [],
        });
      } finally {
        await after?.().catch(() => undefined);
      }
    })();
    this.runs.set(run, { control, done });
    this.estop.register(run, {
      get active() {
        return control.active;
      },
      estop: (reason) => this.stopRun(run, true, reason),
      auditRun: ready.then(() => auditRun),
    });
    await ready;
    if (failedEarly !== null && auditRun === null)
      throw failedEarly instanceof Error ? failedEarly : new Error('the mission failed to start');
    return { run, auditRun };
  }

  /**
   * Runs a robot's plan as it was shown: only if the robot is still where the plan starts (within
   * the reach of a waypoint); the plan is spent once it runs.
   */
  private async runRobot(req: MissionRunRequest, s: PlannedRobot): Promise<{ run: string; auditRun: string | null }> {
    const pose = await waypointsOf(s.world).pose();
    const moved = Math.hypot(pose.x - s.plan.pose.x, pose.y - s.plan.pose.y);
    if (moved > s.tolerance_m) {
      throw new WitnessError(
        'conflict',
        `the robot has moved ${moved.toFixed(2)} m since the plan (from (${s.plan.pose.x.toFixed(2)}, ${s.plan.pose.y.toFixed(2)}) to (${pose.x.toFixed(2)}, ${pose.y.toFixed(2)}); more than ${s.tolerance_m} m): plan again, so that what runs is what you saw`,
        { path: '$.session' },
      );
    }
    const session = [...this.sessions.entries()].find(([, p]) => p === s)![0];
    const shown = this.shownOf(session, s);
    this.sessions.delete(session);
    return this.launch(
      shown,
      0,
      (graph) => this.robotScene(s, graph),
      (hooks) =>
        runMapMission(s.request, {
          method: s.method,
          replanning: true,
          lambda: s.lambda,
          k: s.k,
          replans: req.replans ?? MISSION_DEFAULTS.replans,
          maxSteps: req.maxSteps ?? MISSION_DEFAULTS.maxSteps,
          audit: hooks.log,
          operator: operatorName(),
          via: `console (${this.session.transport})`,
          control: hooks.control,
          opened: { world: s.world, plan: s.plan, task: s.task },
          onEvent: hooks.onEvent,
          started: hooks.started,
        }),
      () => s.world.close(),
    );
  }

  /** The plan a run starts from, as the console was shown it. */
  private shownOf(session: string, s: Planned): { session: string; plan: MissionPlanResult } {
    if (s.shown === undefined)
      throw new WitnessError('not-found', `no planned mission ${session}: plan it first`, { path: '$.session' });
    return { session, plan: s.shown };
  }

  /** The current mission run, or the last one; null when none ran (API missionLive). */
  liveMission(): { mission: MissionLive | null } {
    return { mission: this.live?.snapshot() ?? null };
  }

  private stopRun(run: string, emergency: boolean, why?: string): void {
    const r = this.runs.get(run);
    if (r === undefined || !r.control.active) return;
    const reason = why ?? (emergency ? 'emergency stop by the operator' : 'stopped by the operator');
    this.stopSinks
      .get(run)
      ?.event('operator_decision', { decision: emergency ? 'estop' : 'stop', reason, operator: operatorName() });
    r.control.stop(reason, emergency);
  }

  control(run: string, action: MissionAction): { state: RunState } {
    const r = this.runs.get(run);
    if (r === undefined) throw new WitnessError('not-found', `no mission run ${run}`, { path: '$.run' });
    if (action === 'pause') r.control.pause();
    else if (action === 'resume') {
      this.estop.assertClear('resume a mission');
      r.control.resumeRun();
    } else if (action === 'estop') void this.estop.fire();
    else this.stopRun(run, false);
    return { state: r.control.state };
  }

  /**
   * The emergency stop: every running mission and tool loop stops at once and the latch holds until
   * an operator resets it. `note`: what the operator was typing (kept in the stop's reason). Resolves
   * to the audit runs it stopped, once they are known.
   */
  async emergencyStop(note?: string): Promise<{ stopped: string[]; state: EstopState }> {
    const { stopped } = await this.estop.fire(note);
    return { stopped, state: this.estop.state() };
  }

  /** The operator's answer to an open escalation; false when it is not the one open. */
  decide(run: string, escalation: string, decision: DecisionKind, reason: string): { accepted: boolean } {
    const r = this.runs.get(run);
    if (r === undefined) throw new WitnessError('not-found', `no mission run ${run}`, { path: '$.run' });
    const problem = reasonProblem(reason.trim());
    if (problem !== null)
      throw new WitnessError('invalid-params', `a decision needs a reason: this one ${problem}`, { path: '$.reason' });
    if (decision === 'retry') this.estop.assertClear('retry a mission');
    return { accepted: r.control.answer(escalation, decision, reason.trim(), operatorName()) };
  }

  /**
   * Stops every running mission (`why`: recorded with each; default: the operator stopped it) and waits for them to
   * end.
   */
  async stopAll(why?: string): Promise<void> {
    for (const id of this.runs.keys()) this.stopRun(id, false, why);
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  /** Stops running missions, waits for them, releases the robots, the backbones and the audit log. */
  async close(why?: string): Promise<void> {
    await this.stopAll(why);
    await this.estop.settled();
    await this.releaseRobots();
    await this.backbones.close();
    await (await this.audit)?.close();
  }
}
