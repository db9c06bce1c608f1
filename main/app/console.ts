/**
 * The operator console's missions: plan (a cancellable job: the backbone from the cache or built in a
 * worker, augmentation, product search) into a session the operator inspects, then run exactly that
 * session under the operator's control — pause, stop, the emergency stop, decisions on escalations —
 * with live events, everything recorded in the session's audit log. The mission itself is the one of
 * app/mission.ts; this module only keeps sessions and runs and turns them into console events.
 */
import { randomUUID } from 'node:crypto';
import { WitnessError } from '../contract/errors.js';
import { MISSION_DEFAULTS, PLAN_DEFAULTS, type PlanMethod } from '../contract/defaults.js';
import type { AutomatonView, GraphScene, MissionAction, MissionGraphView, MissionPlanRequest, MissionPlanResult, MissionRunRequest, PlanView, RunState, WorldInfo } from '../contract/api.js';
import { type PlanResult, plan } from '../core/plan/plan.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import { AuditLog } from '../services/audit/store.js';
import { auditSink } from '../services/audit/mission-recorder.js';
import { automatonView, mazeScene, planView } from '../services/ui/scene.js';
import { GraphViewTooLarge, latentScene, productScene } from '../services/ui/graph-views.js';
import { operatorName } from '../platform/paths.js';
import { BackboneCache } from './backbone-cache.js';
import { RunControl } from './run-control.js';
import { API_NAMES, type MissionTask, prepareMission, readMission, runMissionTask } from './mission.js';
import { openAuditLog } from './audit-log.js';
import { bundleDir, consoleWorlds } from './worlds.js';
import type { Session } from './session.js';

interface Planned {
  readonly task: MissionTask;
  /** The plan as the console drew it (the latent and product pictures draw it again). */
  readonly plan: PlanView;
  readonly method: PlanMethod;
  readonly lambda: number;
  readonly k: number;
}

/** The milestones the console's event list shows (the audit log gets everything). */
const PROGRESS_KINDS = new Set(['checkpoint', 'replan', 'escalation', 'operator_decision', 'failure_record']);

function summary(kind: string, body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'checkpoint': return `checkpoint ${String(b['node'])}`;
    case 'failure_record': return `${String(b['kind'])}: ${String(b['rule'])}`;
    case 'replan': return `replan ${String(b['replan'])} after ${String(b['trigger'])}`;
    case 'escalation': return String(b['reason'] ?? b['message']);
    case 'operator_decision': return `operator: ${String(b['decision'])} — ${String(b['reason'])}`;
    default: return kind;
  }
}

export class MissionConsole {
  private readonly backbones = new BackboneCache();
  private readonly sessions = new Map<string, Planned>();
  private readonly runs = new Map<string, { control: RunControl; done: Promise<void> }>();
  /** Where each run's stop and emergency-stop decisions are recorded (the mission records its own escalations). */
  private readonly stopSinks = new Map<string, ReturnType<typeof auditSink>>();
  private audit: Promise<AuditLog> | null = null;

  constructor(private readonly session: Session) {}

  worlds(): WorldInfo[] {
    return consoleWorlds(this.session);
  }

  private auditLog(): Promise<AuditLog> {
    this.audit ??= openAuditLog(this.session.auditFile);
    return this.audit;
  }

  /** Plans a mission as a job with progress; the session it returns is what `run` executes. */
  async plan(req: MissionPlanRequest): Promise<MissionPlanResult> {
    const world = this.worlds().find((w) => w.id === req.world);
    if (world === undefined) throw new WitnessError('invalid-params', `unknown world "${req.world}" (known: ${this.worlds().map((w) => w.id).join(', ')})`, { path: '$.world' });
    if (world.models.length === 0) throw new WitnessError('not-found', `no model bundle for ${req.world} (train one, or install the shipped models)`, { path: '$.world' });
    const bundle = req.models ?? world.models[0]!;
    if (!world.models.includes(bundle)) throw new WitnessError('invalid-params', `unknown model bundle "${bundle}" for ${req.world} (available: ${world.models.join(', ')})`, { path: '$.models' });
    const seed = req.seed ?? MISSION_DEFAULTS.seed;
    const datasetSteps = req.datasetSteps ?? MISSION_DEFAULTS.consoleDatasetSteps;
    const modelsDir = bundleDir(this.session, bundle);
    const request = { world: req.world, spec: req.spec, regions: { text: req.regions }, seed, names: API_NAMES, ...(req.start !== undefined ? { start: req.start } : {}) };
    // The specification, the regions and the start are checked before the job starts.
    const inputs = await readMission(request);
    return this.session.jobs.run(req.job, `Planning in ${req.world}`, async (signal, progress) => {
      const cancelled = (e: unknown): never => {
        if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
        throw e;
      };
      const backbone = await this.backbones.get({ world: req.world, modelsDir, steps: datasetSteps, seed }, signal, progress).catch(cancelled);
      const task = await prepareMission({ ...request, backbone }, { progress, signal, inputs }).catch(cancelled);
      if (signal.aborted) throw new WitnessError('cancelled', 'planning cancelled');
      progress('product search', 0, 1);
      const method: PlanMethod = req.method ?? 'sagas';
      const lambda = req.lambda ?? PLAN_DEFAULTS.lambda;
      const k = req.k ?? PLAN_DEFAULTS.k;
      const t0 = performance.now();
      const result: PlanResult = plan(task.graph, task.automaton, { method, lambda, k, tauSoft: PLAN_DEFAULTS.tauSoft });
      const planning_ms = performance.now() - t0;
      const id = randomUUID();
      const view = planView(result, task.graph);
      this.sessions.set(id, { task, plan: view, method, lambda, k });
      return {
        session: id,
        scene: this.scene(task, task.graph),
        plan: view,
        automaton: automatonView(task.automaton),
        planning_ms,
        report: { anchors: task.report.nodes.anchors, unavailable: [...task.report.unavailable], nodes: task.graph.ids.length },
      };
    });
  }

  /** A planned mission's latent graph or product graph, with its plan (API missionGraph). */
  graph(session: string, view: MissionGraphView): { view: MissionGraphView; scene: GraphScene; plan: PlanView | null; automaton: AutomatonView; note: string } {
    const s = this.sessions.get(session);
    if (s === undefined) throw new WitnessError('not-found', `no planned mission ${session}: plan it first`, { path: '$.session' });
    const task = s.task, scene = this.scene(task, task.graph), automaton = automatonView(task.automaton);
    if (view === 'latent') {
      const l = latentScene(scene, s.plan);
      return { view, scene: l.scene, plan: l.plan, automaton, note: `the latent graph: ${l.scene.nodes.length} cluster nodes; the task's ${l.anchors} anchors and its start are not part of it (the plan is shown through its cluster nodes)` };
    }
    try {
      const p = productScene(task.graph, task.automaton, scene, s.plan, PLAN_DEFAULTS.tauSoft);
      return { view, scene: p.scene, plan: p.plan, automaton, note: `the product graph: ${p.scene.nodes.length} reachable (node, state) pairs, one copy of the maze per automaton state (${p.states})` };
    } catch (e) {
      if (e instanceof GraphViewTooLarge) throw new WitnessError('invalid-params', e.message, { path: '$.view' });
      throw e;
    }
  }

  private scene(task: MissionTask, g: SemanticGraph): MissionPlanResult['scene'] {
    return mazeScene(task.world.id, task.world.layout!, g, `${task.world.id}: ${task.automaton.formula}`, task.regions.regions);
  }

  /** Starts executing a planned session; progress arrives as mission.* events on the session's bus. */
  async run(req: MissionRunRequest): Promise<{ run: string; auditRun: string | null }> {
    const s = this.sessions.get(req.session);
    if (s === undefined) throw new WitnessError('not-found', `no planned mission ${req.session}: plan it first`, { path: '$.session' });
    if ([...this.runs.values()].some((r) => r.control.active)) throw new WitnessError('busy', 'a mission is already running: stop it first');
    const log = await this.auditLog();
    const bus = this.session.bus;
    const run = randomUUID();
    const control = new RunControl(run, (e) => bus.emit(e), req.speed ?? 0);
    control.replanned = (t, result, graph) => bus.emit({ topic: 'mission.replan', run, t, plan: planView(result, graph), scene: this.scene(s.task, graph) });
    let auditRun: string | null = null;
    let started!: () => void;
    const ready = new Promise<void>((resolve) => { started = resolve; });
    let failedEarly: unknown = null;
    const done = (async () => {
      try {
        const r = await runMissionTask(s.task, {
          method: 'sagas-replan', lambda: s.lambda, k: s.k, replans: req.replans ?? MISSION_DEFAULTS.replans, maxSteps: req.maxSteps ?? MISSION_DEFAULTS.maxSteps,
          audit: { log, operator: operatorName(), via: `console (${this.session.transport})` }, control,
          onEvent: (kind, body, step) => {
            if (PROGRESS_KINDS.has(kind) && !(kind === 'checkpoint' && (body as { kind?: string }).kind !== 'checkpoint')) control.event(step, kind, summary(kind, body));
          },
          started: (id) => {
            auditRun = id;
            if (id !== null) this.stopSinks.set(run, auditSink(log, id));
            started();
          },
        });
        control.finished();
        const trajectory = Array.from(r.result.trajectory, (v) => Math.round(v * 1000) / 1000);
        bus.emit({ topic: 'mission.end', run, success: r.result.success, failureMode: r.result.failureMode, message: r.result.message, steps: r.result.steps, auditRun, trajectory });
      } catch (e) {
        failedEarly = e;
        started();
        control.stop(`internal error: ${e instanceof Error ? e.message : String(e)}`, false);
        bus.emit({ topic: 'mission.end', run, success: false, failureMode: 'error', message: e instanceof Error ? e.message : String(e), steps: 0, auditRun, trajectory: [] });
      }
    })();
    this.runs.set(run, { control, done });
    await ready;
    if (failedEarly !== null && auditRun === null) throw failedEarly instanceof Error ? failedEarly : new Error('the mission failed to start');
    return { run, auditRun };
  }

  private stopRun(run: string, emergency: boolean): void {
    const r = this.runs.get(run);
    if (r === undefined || !r.control.active) return;
    const reason = emergency ? 'emergency stop by the operator' : 'stopped by the operator';
    this.stopSinks.get(run)?.event('operator_decision', { decision: emergency ? 'estop' : 'stop', reason, operator: operatorName() });
    r.control.stop(reason, emergency);
  }

  control(run: string, action: MissionAction): { state: RunState } {
    const r = this.runs.get(run);
    if (r === undefined) throw new WitnessError('not-found', `no mission run ${run}`, { path: '$.run' });
    if (action === 'pause') r.control.pause();
    else if (action === 'resume') r.control.resumeRun();
    else this.stopRun(run, action === 'estop');
    return { state: r.control.state };
  }

  /** Stops every running mission at once; the runs it stopped. */
  emergencyStop(): { stopped: string[] } {
    const stopped = [...this.runs.entries()].filter(([, r]) => r.control.active).map(([id]) => id);
    for (const id of stopped) this.stopRun(id, true);
    return { stopped };
  }

  /** The operator's answer to an open escalation; false when it is not the one open. */
  decide(run: string, escalation: string, decision: 'abort' | 'retry', reason: string): { accepted: boolean } {
    const r = this.runs.get(run);
    if (r === undefined) throw new WitnessError('not-found', `no mission run ${run}`, { path: '$.run' });
    if (reason.trim() === '') throw new WitnessError('invalid-params', 'a decision needs a reason', { path: '$.reason' });
    return { accepted: r.control.answer(escalation, decision, reason.trim(), operatorName()) };
  }

  /** Stops running missions, waits for them, releases the backbones and the audit log. */
  async close(): Promise<void> {
    for (const id of this.runs.keys()) this.stopRun(id, false);
    await Promise.all([...this.runs.values()].map((r) => r.done));
    await this.backbones.close();
    await (await this.audit)?.close();
  }
}
