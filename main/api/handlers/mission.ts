/**
 * Operator-console handlers: the worlds, planning a mission (a cancellable job: backbone in a worker,
 * augmentation, product search), running it under the operator's control with live events, the
 * emergency stop, and the operator's decision on an escalation — all recorded in the audit log.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { MissionApi, MissionPlanRequest, MissionPlanResult, MissionRunRequest, TrainModelsRequest, WorldInfo } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';
import { POINTMAZE_IDS, PointMazeSim, layoutOf } from '../../backends/mujoco/pointmaze.js';
import { parseLtl } from '../../core/ltl/parser.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { LtlBudgetError, LtlSyntaxError } from '../../core/ltl/errors.js';
import type { Formula } from '../../core/ltl/ast.js';
import type { BuchiAutomaton } from '../../core/ltl/automaton.js';
import { InputError, parseJson } from '../../core/input/json.js';
import { type Region, type RegionSet, parseRegions } from '../../core/world/regions.js';
import { cellAt, cellCenter, freeCells, isFree } from '../../core/world/maze.js';
import { createRng } from '../../core/random/rng.js';
import { DEFAULT_AUGMENT } from '../../core/graph/augment.js';
import { DEFAULT_PLAN, type Method, type PlanResult, plan } from '../../core/plan/plan.js';
import type { SemanticGraph } from '../../core/plan/semantic.js';
import { DEFAULT_EXEC } from '../../core/exec/executor.js';
import { augmentTask, type Backbone } from '../../services/plan/inputs.js';
import { DEFAULT_MAX_STEPS, DEFAULT_REPLANS, type MissionAudit, runMission } from '../../services/exec/mission.js';
import { AuditLog } from '../../services/audit/store.js';
import { auditSink, missionRecorder, operatorName } from '../../services/audit/mission-recorder.js';
import { BackboneCache } from '../../services/ui/backbone.js';
import { RunControl } from '../../services/ui/run-control.js';
import { inWorker } from '../../services/ui/worker.js';
import type { TrainJob } from '../../services/ui/train-worker.js';
import { DEFAULT_EMBED } from '../../services/training/embed-trainer.js';
import { DEFAULT_POLICY } from '../../services/training/policy-trainer.js';
import { automatonView, mazeBounds, mazePicture, planView, sceneOf } from '../../services/ui/scene.js';
import type { GraphScene } from '../contract.js';
import { VERSION } from '../../version.js';

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return [];
  }
}

/** The README's mission, over the shipped medium-maze regions. */
const EXAMPLE_SPECS: Record<string, string> = { 'pointmaze-medium': 'F e2 & G F e1 & G F e4 & G !e0' };

/** Bundles trained in the workspace (models/<name>/manifest.json), by world. */
function workspaceBundles(ctx: ApiContext): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = path.join(ctx.workspace, 'models');
  for (const name of listDirs(dir)) {
    try {
      const m = JSON.parse(readFileSync(path.join(dir, name, 'manifest.json'), 'utf8')) as { world?: unknown };
      if (typeof m.world === 'string') out.set(m.world, [...(out.get(m.world) ?? []), `workspace/${name}`]);
    } catch {
      /* not a bundle */
    }
  }
  return out;
}

/** Where a models id of WorldInfo.models lives. */
export function modelsDir(ctx: ApiContext, id: string): string {
  return id.startsWith('workspace/') ? path.join(ctx.workspace, 'models', id.slice('workspace/'.length)) : path.join(ctx.assets, 'models', id);
}

export function worldsOf(ctx: ApiContext): WorldInfo[] {
  const trained = workspaceBundles(ctx);
  return POINTMAZE_IDS.map((id) => {
    const file = path.join(ctx.assets, 'regions', `${id}.json`);
    const has = existsSync(file);
    return {
      id,
      title: `Point maze (${id.replace('pointmaze-', '')})`,
      kind: 'maze' as const,
      regions: has ? `regions/${id}.json` : null,
      regionsText: has ? readFileSync(file, 'utf8') : null,
      exampleSpec: EXAMPLE_SPECS[id] ?? null,
      models: [...listDirs(path.join(ctx.assets, 'models')).filter((m) => m === id), ...(trained.get(id) ?? [])],
    };
  });
}

/** The default navigate dataset of a console mission: big enough for a good graph, built in seconds. */
export const CONSOLE_DATASET_STEPS = 100_000;

interface Session {
  readonly world: string;
  readonly backbone: Backbone;
  readonly graph: SemanticGraph;
  readonly automaton: BuchiAutomaton;
  readonly formula: Formula;
  readonly regions: RegionSet;
  readonly regionsText: string;
  readonly start: [number, number];
  readonly method: Method;
  readonly lambda: number;
  readonly k: number;
  readonly seed: number;
}

/** The task's graph over the maze and its regions, oriented as the maze pictures are. */
function mazeScene(world: string, g: SemanticGraph, title: string, regions: readonly Region[]): GraphScene {
  const layout = layoutOf(world);
  return { ...sceneOf(g, { world, picture: mazePicture(layout, title, regions), bounds: mazeBounds(layout) }), yDown: true };
}

function specError(e: unknown): never {
  if (e instanceof LtlSyntaxError) throw fail('invalid-spec', `spec:${e.line}:${e.column}: ${e.detail}`, { line: e.line, column: e.column, path: '$.spec' });
  if (e instanceof LtlBudgetError) throw fail('invalid-spec', `spec: ${e.message}`, { path: '$.spec' });
  throw e;
}

export function missionHandlers(ctx: ApiContext): { api: MissionApi; close(): Promise<void> } {
  const backbones = new BackboneCache();
  const sessions = new Map<string, Session>();
  const runs = new Map<string, { control: RunControl; done: Promise<void> }>();
  /** Where each run's stop and emergency-stop decisions are recorded (the mission records its own escalations). */
  const stopSinks = new Map<string, ReturnType<typeof auditSink>>();
  let audit: AuditLog | null = null;
  const auditLog = (): AuditLog => {
    if (audit === null) {
      mkdirSync(path.dirname(ctx.auditFile), { recursive: true });
      audit = AuditLog.open(ctx.auditFile);
    }
    return audit;
  };

  async function missionPlan(req: MissionPlanRequest): Promise<MissionPlanResult> {
    const world = worldsOf(ctx).find((w) => w.id === req.world);
    if (world === undefined) throw fail('invalid-params', `unknown world "${req.world}" (known: ${POINTMAZE_IDS.join(', ')})`, { path: '$.world' });
    if (world.models.length === 0) throw fail('not-found', `no model bundle for ${req.world} in ${path.join(ctx.assets, 'models')}`, { path: '$.world' });
    const bundle = req.models ?? world.models[0]!;
    if (!world.models.includes(bundle)) throw fail('invalid-params', `unknown model bundle "${bundle}" for ${req.world} (available: ${world.models.join(', ')})`, { path: '$.models' });
    let formula: Formula, automaton: BuchiAutomaton;
    try {
      formula = parseLtl(req.spec);
      automaton = translateFormula(formula).automaton;
    } catch (e) {
      specError(e);
    }
    let regions: RegionSet;
    try {
      regions = parseRegions(parseJson(req.regions, 'regions'), 'regions');
    } catch (e) {
      if (e instanceof InputError) throw fail('invalid-regions', `regions ${e.path}: ${e.detail}`, { path: e.path });
      throw e;
    }
    const unknown = automaton.aps.filter((ap) => !regions.regions.some((r) => r.name === ap));
    if (unknown.length > 0) throw fail('invalid-spec', `the spec mentions ${unknown.join(', ')}, which the regions do not define (they define ${regions.regions.map((r) => r.name).join(', ') || 'none'})`, { path: '$.spec' });
    const task: RegionSet = { ...regions, regions: regions.regions.filter((r) => automaton.aps.includes(r.name)) };
    const seed = req.seed ?? 0;
    const rng = createRng(seed);
    const layout = layoutOf(req.world);
    const start: [number, number] = req.start ?? (() => {
      const c = cellCenter(layout, rng.pick(freeCells(layout)));
      return [c.x, c.y];
    })();
    const cell = cellAt(layout, start[0], start[1]);
    if (cell === null || !isFree(layout, cell.i, cell.j)) {
      throw fail('invalid-params', `start (${start[0]}, ${start[1]}) is ${cell === null ? `outside the ${req.world} maze` : `inside a wall (cell row ${cell.i}, column ${cell.j})`}`, { path: '$.start' });
    }
    return ctx.jobs.run(req.job, `Planning in ${req.world}`, async (signal, progress) => {
      const backbone = await backbones.get(
        { world: req.world, modelsDir: modelsDir(ctx, bundle), steps: req.datasetSteps ?? CONSOLE_DATASET_STEPS, seed },
        signal, progress,
      ).catch((e: unknown) => {
        if (signal.aborted) throw fail('cancelled', 'planning cancelled');
        throw e;
      });
      progress('augmenting the graph', 0, 1);
      let augmented;
      try {
        augmented = await augmentTask(backbone, task, start, DEFAULT_AUGMENT, rng, { regions: 'regions', start: 'start' });
      } catch (e) {
        if (e instanceof InputError) throw fail('invalid-params', `${e.file} ${e.path}: ${e.detail}`, { path: e.file === 'start' ? '$.start' : '$.regions' });
        throw e;
      }
      if (signal.aborted) throw fail('cancelled', 'planning cancelled');
      progress('product search', 0, 1);
      const method: Method = req.method ?? 'sagas';
      const lambda = req.lambda ?? DEFAULT_PLAN.lambda;
      const k = req.k ?? DEFAULT_PLAN.k;
      const t0 = performance.now();
      const result: PlanResult = plan(augmented.graph, automaton, { ...DEFAULT_PLAN, method, lambda, k });
      const planning_ms = performance.now() - t0;
      const session = randomUUID();
      sessions.set(session, { world: req.world, backbone, graph: augmented.graph, automaton, formula, regions: task, regionsText: req.regions, start, method, lambda, k, seed });
      return {
        session,
        scene: mazeScene(req.world, augmented.graph, `${req.world}: ${automaton.formula}`, task.regions),
        plan: planView(result, augmented.graph),
        automaton: automatonView(automaton),
        planning_ms,
        report: { anchors: augmented.report.nodes.anchors, unavailable: [...augmented.report.unavailable], nodes: augmented.graph.ids.length },
      };
    });
  }

  async function missionRun(req: MissionRunRequest): Promise<{ run: string; auditRun: string | null }> {
    const s = sessions.get(req.session);
    if (s === undefined) throw fail('not-found', `no planned mission ${req.session}: plan it first`, { path: '$.session' });
    if ([...runs.values()].some((r) => r.control.active)) throw fail('busy', 'a mission is already running: stop it first');
    const log = auditLog();
    const b = s.backbone;
    const replans = req.replans ?? DEFAULT_REPLANS;
    const maxSteps = req.maxSteps ?? DEFAULT_MAX_STEPS;
    const auditRun = await log.startRun({
      world: s.world, backend: 'mujoco', operator: operatorName(), software: `witness ${VERSION} (console)`,
      models: { embed: b.artifact.models.embed, policy: b.artifact.models.policy, graph: b.files.graph, dataset: b.artifact.dataset.sha256 },
      spec: s.automaton.formula, regions: s.regionsText,
      meta: { method: 'sagas-replan', start: s.start, seed: s.seed, maxSteps, replans, via: ctx.transport },
    });
    const recorder = missionRecorder(log, auditRun);
    const run = randomUUID();
    const control = new RunControl(run, (e) => ctx.bus.emit(e), req.speed ?? 0);
    const progressKinds = new Set(['checkpoint', 'replan', 'escalation', 'operator_decision', 'failure_record']);
    // The recorder gets everything; the console hears about the milestones.
    const tee: MissionAudit = {
      plan: (t, trigger, doc, ms) => recorder.plan(t, trigger, doc, ms),
      event: (kind, body, o) => {
        recorder.event(kind, body, o);
        if (progressKinds.has(kind) && !(kind === 'checkpoint' && (body as { kind?: string }).kind !== 'checkpoint')) {
          control.event(o?.step ?? 0, kind, summary(kind, body));
        }
      },
    };
    control.replanned = (t, result, graph) => ctx.bus.emit({ topic: 'mission.replan', run, t, plan: planView(result, graph), scene: mazeScene(s.world, graph, `${s.world}: ${s.automaton.formula}`, s.regions.regions) });
    const sim = await PointMazeSim.create(s.world);
    const H_TD = b.artifact.params.H_TD;
    const done = (async () => {
      try {
        const r = await runMission(
          { sim, models: b.models, graph: s.graph, automaton: s.automaton, formula: s.formula, regions: s.regions.regions, start: s.start, audit: tee, control },
          { method: 'sagas-replan', lambda: s.lambda, k: s.k, tauSoft: DEFAULT_PLAN.tauSoft, exec: { ...DEFAULT_EXEC, H_TD, epsAnchor: H_TD / 2, epsWaypoint: H_TD / 2 }, maxSteps, replans, seed: s.seed },
        );
        control.finished();
        await log.flush();
        ctx.bus.emit({ topic: 'mission.end', run, success: r.success, failureMode: r.failureMode, message: r.message, steps: r.steps, auditRun });
      } catch (e) {
        control.stop(`internal error: ${e instanceof Error ? e.message : String(e)}`, false);
        ctx.bus.emit({ topic: 'mission.end', run, success: false, failureMode: 'error', message: e instanceof Error ? e.message : String(e), steps: 0, auditRun });
      } finally {
        sim.close();
      }
    })();
    runs.set(run, { control, done });
    stopSinks.set(run, auditSink(log, auditRun));
    return { run, auditRun };
  }

  const stopRun = (run: string, emergency: boolean): void => {
    const r = runs.get(run);
    if (r === undefined || !r.control.active) return;
    const reason = emergency ? 'emergency stop by the operator' : 'stopped by the operator';
    stopSinks.get(run)?.event('operator_decision', { decision: emergency ? 'estop' : 'stop', reason, operator: operatorName() });
    r.control.stop(reason, emergency);
  };

  async function trainModels(req: TrainModelsRequest): Promise<{ models: string; dir: string }> {
    if (!(POINTMAZE_IDS as readonly string[]).includes(req.world)) throw fail('invalid-params', `unknown world "${req.world}" (known: ${POINTMAZE_IDS.join(', ')})`, { path: '$.world' });
    const out = path.join(ctx.workspace, 'models', req.name);
    if (existsSync(out)) throw fail('conflict', `${out} already exists: choose another name`, { path: '$.name' });
    mkdirSync(path.dirname(out), { recursive: true });
    const job: TrainJob = {
      world: req.world, out, datasetSteps: req.datasetSteps ?? 100_000, seed: req.seed ?? 0,
      embedSteps: req.embedSteps ?? DEFAULT_EMBED.steps, policySteps: req.policySteps ?? DEFAULT_POLICY.steps,
    };
    return ctx.jobs.run(req.job, `Training models ${req.name}`, async (signal, progress) => {
      try {
        await inWorker(new URL('../../services/ui/train-worker.js', import.meta.url), job, signal, progress);
      } catch (e) {
        // A cancelled job may leave the bundle's temporary folder; never a half-written bundle.
        for (const f of listDirs(path.dirname(out))) if (f.startsWith(`.${req.name}.tmp-`)) rmSync(path.join(path.dirname(out), f), { recursive: true, force: true });
        if (signal.aborted) throw fail('cancelled', 'training cancelled');
        throw e;
      }
      return { models: `workspace/${req.name}`, dir: out };
    });
  }

  return {
    api: {
      listWorlds: () => Promise.resolve(worldsOf(ctx)),
      trainModels,
      missionPlan,
      missionRun,
      missionControl: ({ run, action }) => {
        const r = runs.get(run);
        if (r === undefined) return Promise.reject(fail('not-found', `no mission run ${run}`, { path: '$.run' }));
        if (action === 'pause') r.control.pause();
        else if (action === 'resume') r.control.resumeRun();
        else stopRun(run, action === 'estop');
        return Promise.resolve({ state: r.control.state });
      },
      emergencyStop: () => {
        const stopped = [...runs.entries()].filter(([, r]) => r.control.active).map(([id]) => id);
        for (const id of stopped) stopRun(id, true);
        return Promise.resolve({ stopped });
      },
      escalationDecide: ({ run, escalation, decision, reason }) => {
        const r = runs.get(run);
        if (r === undefined) return Promise.reject(fail('not-found', `no mission run ${run}`, { path: '$.run' }));
        if (reason.trim() === '') return Promise.reject(fail('invalid-params', 'a decision needs a reason', { path: '$.reason' }));
        return Promise.resolve({ accepted: r.control.decide(escalation, decision, reason.trim()) });
      },
    },
    close: async () => {
      for (const id of runs.keys()) stopRun(id, false);
      await Promise.all([...runs.values()].map((r) => r.done));
      await backbones.close();
      await audit?.close();
    },
  };
}

function summary(kind: string, body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'checkpoint': return `checkpoint ${String(b['node'])}`;
    case 'failure_record': return `${String(b['kind'])}: ${String(b['rule'])}`;
    case 'replan': return `replan ${String(b['replan'])} after ${String(b['trigger'])}`;
    case 'escalation': return String(b['message']);
    case 'operator_decision': return `operator: ${String(b['decision'])} — ${String(b['reason'])}`;
    default: return kind;
  }
}
