/**
 * A piscina worker of the LTL mission benchmark: opens the backbone and the world once, then runs
 * every method on each task it is given (the same augmentation for all of them), through the one
 * mission workflow of app/mission.ts — AP-HIQL, which plans without the graph, through app/hiql.ts
 * with the policies the parent trained or found in the cache (not recorded in the audit log).
 */
import { HIQL_METHOD_LOW, isBaselineMethod, type BenchMethod } from '../contract/defaults.js';
import { methodRun } from './ablations.js';
import type { World } from '../core/world/world.js';
import { openBackbone, type Backbone } from '../app/backbone.js';
import { missionPicture, prepareMission, runMissionTask } from '../app/mission.js';
import { executionCause } from '../core/exec/mission.js';
import { hiqlExecutionCause } from '../core/exec/hiql-mission.js';
import { openAuditLog } from '../app/audit-log.js';
import type { AuditLog } from '../services/audit/store.js';
import type { BenchTask } from './tasks.js';
import { hiqlPicture, runHiqlTask } from '../app/hiql.js';
import { type HiqlPolicies, loadHiql } from '../services/models/hiql-bundle.js';

export interface WorkerJob {
  readonly task: BenchTask;
  readonly methods: readonly BenchMethod[];
  readonly world: string;
  readonly files: { readonly graph: string; readonly data: string; readonly models: string };
  readonly maxSteps: number;
  readonly replans: number;
  readonly picture: boolean;
  /** The audit database every mission of this job is recorded in, if any. */
  readonly audit?: string;
  /** The folder of AP-HIQL's trained policies (app/hiql.ts), when the methods include ap-hiql. */
  readonly hiql?: string;
}

export interface MethodOutcome {
  readonly method: BenchMethod;
  readonly success: boolean;
  readonly failureMode: string | null;
  /** The planner's reason kind (core/plan/diagnose.ts) when the failure mode is 'planning'. */
  readonly planningReason?: string;
  /**
   * What ended a failed execution (core/exec/mission.ts executionCause: overturned, stalled, drifted, …); absent
   * otherwise.
   */
  readonly cause?: string;
  readonly message: string;
  readonly ncc: number;
  readonly steps: number;
  readonly T_pre: number | null;
  readonly T_suf: number | null;
  readonly planning_ms: number;
  readonly replans: number;
  readonly disagreements: number;
  /** Steps on which runtime steering bent the direction (0 for sagas-nosteer). */
  readonly steeredSteps: number;
  readonly stepTimes: { readonly p50: number; readonly p95: number; readonly n: number };
  readonly svg?: string;
}

export interface TaskOutcome {
  readonly id: string;
  readonly difficulty: string;
  readonly index: number;
  readonly formula: string;
  readonly start: readonly [number, number];
  readonly augment_ms: number;
  readonly results: readonly MethodOutcome[];
}

let loaded: { key: string; b: Backbone; world: World } | null = null;
let auditLog: Promise<AuditLog> | null = null;
let hiqlLoaded: { dir: string; p: HiqlPolicies } | null = null;

async function hiqlOf(dir: string | undefined): Promise<HiqlPolicies> {
  if (dir === undefined) throw new Error('ap-hiql needs its trained policies (job.hiql)');
  if (hiqlLoaded?.dir !== dir) {
    await hiqlLoaded?.p.close();
    hiqlLoaded = { dir, p: await loadHiql(dir) };
  }
  return hiqlLoaded.p;
}
let auditFile: string | null = null;

function auditFor(file: string | undefined): Promise<AuditLog> | null {
  if (file === undefined) return null;
  if (auditFile !== file) {
    auditFile = file;
    auditLog = openAuditLog(file, { busyTimeout_ms: 30_000 });
  }
  return auditLog;
}

async function backbone(job: WorkerJob): Promise<{ b: Backbone; world: World }> {
  const key = `${job.files.graph}|${job.files.data}|${job.files.models}|${job.world}`;
  if (loaded?.key !== key) {
    const b = await openBackbone({ kind: 'files', ...job.files });
    const { worldEntry } = await import('../backends/catalogue.js');
    loaded = { key, b, world: await worldEntry(job.world).open() };
  }
  return loaded;
}

function quantile(xs: Float64Array, q: number): number {
  if (xs.length === 0) return 0;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export default async function run(job: WorkerJob): Promise<TaskOutcome> {
  const { b, world } = await backbone(job);
  const t = job.task;
  const task = await prepareMission({
    world: job.world,
    spec: t.formula,
    regions: { text: JSON.stringify({ regions: t.regions }) },
    start: t.start,
    seed: t.seed,
    backbone: b,
  });
  const log = await auditFor(job.audit);
  const results: MethodOutcome[] = [];
  for (const method of job.methods) {
    if (isBaselineMethod(method)) {
      const h = await runHiqlTask(task, await hiqlOf(job.hiql), {
        maxSteps: job.maxSteps,
        world,
        low: HIQL_METHOD_LOW[method],
      });
      const svg = job.picture
        ? hiqlPicture(
            task,
            h,
            `${t.id} ${method}: ${t.formula} (${h.success ? 'success' : `failed: ${h.failureMode}`})`,
          )
        : undefined;
      const cause = hiqlExecutionCause(h, job.maxSteps);
      results.push({
        method,
        success: h.success,
        failureMode: h.failureMode,
        ...(h.planningReason !== undefined ? { planningReason: h.planningReason } : {}),
        ...(cause !== null ? { cause } : {}),
        message: h.message,
        ncc: h.ncc,
        steps: h.steps,
        T_pre: h.T_pre,
        T_suf: h.T_suf,
        planning_ms: h.planning_ms,
        replans: 0,
        disagreements: 0,
        steeredSteps: 0,
        stepTimes: {
          p50: quantile(h.stepTimes_ms, 0.5),
          p95: quantile(h.stepTimes_ms, 0.95),
          n: h.stepTimes_ms.length,
        },
        ...(svg !== undefined ? { svg } : {}),
      });
      continue;
    }
    const { result: r } = await runMissionTask(task, {
      ...methodRun(method),
      maxSteps: job.maxSteps,
      replans: job.replans,
      world,
      ...(log !== null
        ? { audit: { log, operator: 'bench', via: 'bench', meta: { bench: 'ltl', task: t.id, benchMethod: method } } }
        : {}),
    });
    const svg = job.picture
      ? missionPicture(
          task,
          r,
          `${t.id} ${method}: ${t.formula} (${r.success ? 'success' : `failed: ${r.failureMode}`})`,
        )
      : undefined;
    const cause = executionCause(r);
    results.push({
      method,
      success: r.success,
      failureMode: r.failureMode,
      ...(r.planningReason !== undefined ? { planningReason: r.planningReason } : {}),
      ...(cause !== null ? { cause } : {}),
      message: r.message,
      ncc: r.ncc,
      steps: r.steps,
      T_pre: r.T_pre,
      T_suf: r.T_suf,
      planning_ms: r.plans.reduce((s, p) => s + p.planning_ms, 0),
      replans: Math.max(0, r.plans.length - 1),
      disagreements: r.disagreements.length,
      steeredSteps: r.steeredSteps,
      stepTimes: { p50: quantile(r.stepTimes_ms, 0.5), p95: quantile(r.stepTimes_ms, 0.95), n: r.stepTimes_ms.length },
      ...(svg !== undefined ? { svg } : {}),
    });
  }
  return {
    id: t.id,
    difficulty: t.difficulty,
    index: t.index,
    formula: t.formula,
    start: t.start,
    augment_ms: task.augment_ms,
    results,
  };
}
