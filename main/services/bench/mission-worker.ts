/**
 * A piscina worker of the LTL mission benchmark: loads the backbone and the simulator once, then
 * runs every method on each task it is given (the same augmentation for all of them).
 */
import { parseLtl } from '../../core/ltl/parser.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { DEFAULT_AUGMENT } from '../../core/graph/augment.js';
import { DEFAULT_EXEC } from '../../core/exec/executor.js';
import { DEFAULT_PLAN } from '../../core/plan/plan.js';
import { createRng } from '../../core/random/rng.js';
import { layoutOf, PointMazeSim } from '../../backends/mujoco/pointmaze.js';
import { missionSvg } from '../../core/world/svg.js';
import { type Backbone, augmentTask, loadBackbone } from '../plan/inputs.js';
import { type MissionMethod, type MissionResult, runMission } from '../exec/mission.js';
import type { BenchTask } from './tasks.js';
import { AuditLog } from '../audit/store.js';
import { missionRecorder } from '../audit/mission-recorder.js';
import { VERSION } from '../../version.js';

export interface WorkerJob {
  readonly task: BenchTask;
  readonly methods: readonly MissionMethod[];
  readonly world: string;
  readonly files: { readonly graph: string; readonly data: string; readonly models: string };
  readonly maxSteps: number;
  readonly replans: number;
  readonly picture: boolean;
  /** The audit database every mission of this job is recorded in, if any. */
  readonly audit?: string;
}

export interface MethodOutcome {
  readonly method: MissionMethod;
  readonly success: boolean;
  readonly failureMode: string | null;
  readonly message: string;
  readonly ncc: number;
  readonly steps: number;
  readonly T_pre: number | null;
  readonly T_suf: number | null;
  readonly planning_ms: number;
  readonly replans: number;
  readonly disagreements: number;
  readonly stepTimes: { readonly p50: number; readonly p95: number; readonly n: number };
  readonly svg?: string;
}

export interface TaskOutcome {
  readonly id: string;
  readonly difficulty: string;
  readonly index: number;
  readonly formula: string;
  readonly augment_ms: number;
  readonly results: readonly MethodOutcome[];
}

let loaded: { key: string; b: Backbone; sim: PointMazeSim } | null = null;
let auditLog: AuditLog | null = null;

function auditFor(file: string | undefined): AuditLog | null {
  if (file === undefined) return null;
  if (auditLog?.file !== file) auditLog = AuditLog.open(file, { busyTimeout_ms: 30_000 });
  return auditLog;
}

async function backbone(job: WorkerJob): Promise<{ b: Backbone; sim: PointMazeSim }> {
  const key = `${job.files.graph}|${job.files.data}|${job.files.models}`;
  if (loaded?.key !== key) {
    loaded = { key, b: await loadBackbone(job.files.graph, job.files.data, job.files.models), sim: await PointMazeSim.create(job.world) };
  }
  return loaded;
}

function quantile(xs: Float64Array, q: number): number {
  if (xs.length === 0) return 0;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export default async function run(job: WorkerJob): Promise<TaskOutcome> {
  const { b, sim } = await backbone(job);
  const t = job.task;
  const formula = parseLtl(t.formula);
  const automaton = translateFormula(formula).automaton;
  const regions = t.regions.filter((r) => automaton.aps.includes(r.name));
  const task = await augmentTask(b, { regions }, t.start, DEFAULT_AUGMENT, createRng(t.seed));
  const H = b.artifact.params.H_TD;
  const results: MethodOutcome[] = [];
  const log = auditFor(job.audit);
  for (const method of job.methods) {
    const runId = log === null ? null : await log.startRun({
      world: job.world, backend: 'mujoco', operator: 'bench', software: `witness ${VERSION}`,
      models: { embed: b.artifact.models.embed, policy: b.artifact.models.policy, dataset: b.artifact.dataset.sha256 },
      spec: automaton.formula, regions: JSON.stringify({ regions }), meta: { bench: 'ltl', task: t.id, method, seed: t.seed, start: t.start },
    });
    const recorder = log !== null && runId !== null ? missionRecorder(log, runId) : undefined;
    const r: MissionResult = await runMission(
      { sim, models: b.models, graph: task.graph, automaton, formula, regions, start: t.start, ...(recorder ? { audit: recorder } : {}) },
      {
        method, lambda: DEFAULT_PLAN.lambda, k: DEFAULT_PLAN.k, tauSoft: DEFAULT_PLAN.tauSoft,
        exec: { ...DEFAULT_EXEC, H_TD: H, epsAnchor: H / 2, epsWaypoint: H / 2 },
        maxSteps: job.maxSteps, replans: job.replans, seed: t.seed,
      },
    );
    if (log !== null) {
      await log.flush();
      if (recorder !== undefined && recorder.errors.length > 0) throw recorder.errors[0]!;
    }
    let svg: string | undefined;
    if (job.picture) {
      const p0 = r.plans[0]?.result;
      const g = r.plans[0]?.graph;
      const xy = (v: number): [number, number] => [g!.positions[2 * v]!, g!.positions[2 * v + 1]!];
      svg = missionSvg(layoutOf(job.world), `${t.id} ${method}: ${t.formula} (${r.success ? 'success' : `failed: ${r.failureMode}`})`, {
        regions, start: t.start, trajectory: r.trajectory,
        prefix: p0?.status === 'ok' ? p0.steps.slice(0, p0.prefixLength).map((s) => xy(s.node)) : [],
        suffix: p0?.status === 'ok' ? p0.steps.slice(p0.prefixLength - 1).map((s) => xy(s.node)) : [],
        failures: r.failures.map((f) => [r.trajectory[2 * f.t]!, r.trajectory[2 * f.t + 1]!] as const),
      });
    }
    results.push({
      method, success: r.success, failureMode: r.failureMode, message: r.message, ncc: r.ncc, steps: r.steps,
      T_pre: r.T_pre, T_suf: r.T_suf, planning_ms: r.plans.reduce((s, p) => s + p.planning_ms, 0),
      replans: Math.max(0, r.plans.length - 1), disagreements: r.disagreements.length,
      stepTimes: { p50: quantile(r.stepTimes_ms, 0.5), p95: quantile(r.stepTimes_ms, 0.95), n: r.stepTimes_ms.length },
      ...(svg !== undefined ? { svg } : {}),
    });
  }
  return { id: t.id, difficulty: t.difficulty, index: t.index, formula: t.formula, augment_ms: task.augment_ms, results };
}
