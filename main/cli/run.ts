/** `witness run`: one mission end to end in an embedded world — plan, execute, monitor, replan. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditLog } from '../services/audit/store.js';
import { defaultAuditFile, missionRecorder, operatorName } from '../services/audit/mission-recorder.js';
import { VERSION } from '../version.js';
import { Command, Option } from 'commander';
import { translateFormula } from '../core/ltl/translate.js';
import { DEFAULT_PLAN } from '../core/plan/plan.js';
import { planDocument } from '../core/plan/document.js';
import { DEFAULT_AUGMENT } from '../core/graph/augment.js';
import { DEFAULT_EXEC } from '../core/exec/executor.js';
import { createRng } from '../core/random/rng.js';
import { cellCenter, freeCells } from '../core/world/maze.js';
import { missionSvg } from '../core/world/svg.js';
import { POINTMAZE_IDS, PointMazeSim, layoutOf } from '../backends/mujoco/pointmaze.js';
import { augmentTask } from '../services/plan/inputs.js';
import { DEFAULT_MAX_STEPS, DEFAULT_REPLANS, MISSION_METHODS, type MissionMethod, type MissionResult, runMission } from '../services/exec/mission.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, intFlag, numberFlag, pointFlag } from './flags.js';
import { parseSpec, taskBackbone, taskRegions } from './task-inputs.js';

interface RunFlags {
  world: string; spec: string; regions: string; start?: [number, number]; method: MissionMethod; lambda: number; k?: number;
  replans: number; maxSteps: number; graph?: string; data?: string; models?: string; datasetSteps: number; seed: number;
  json?: boolean; picture?: string; audit: string | boolean; operator?: string;
}

function summary(io: Output, r: MissionResult): void {
  const fmt = (x: number | null): string => (x === null ? '–' : String(x));
  io.out(`  outcome: ${r.success ? 'SUCCESS' : `FAILED (${r.failureMode})`} after ${r.steps} steps — ${r.message}\n`);
  io.out(`  T_pre ${fmt(r.T_pre)}, T_suf ${fmt(r.T_suf)}, NCC ${r.ncc.toFixed(3)}; runtime monitor: ${r.monitorViable ? 'an accepting continuation remains' : 'VIOLATED'}\n`);
  const checkpoints = r.events.filter((e) => e.kind === 'checkpoint');
  io.out(`  checkpoints: ${checkpoints.length === 0 ? 'none' : checkpoints.map((e) => `${e.node}@${e.t}`).join(', ')}\n`);
  const traversals = r.events.filter((e) => e.kind === 'suffix-traversal').map((e) => e.t);
  io.out(`  prefix done at ${fmt(r.events.find((e) => e.kind === 'prefix-done')?.t ?? null)}; suffix traversals at ${traversals.join(', ') || '–'}\n`);
  for (const f of r.failures) io.out(`  failure at t=${f.t}: ${f.kind} ${f.from} → ${f.to} (term ${f.term}, violated ${f.violated}, labels {${f.labels.join(', ')}}): ${f.class}, ${f.action} — ${f.rule}\n`);
  for (const d of r.disagreements) io.out(`  monitor disagreement at t=${d.t} (${d.node}): the plan expected state ${d.planned}, the monitor has {${d.monitor.join(', ')}}\n`);
  if (r.plans.length > 1) io.out(`  replans: ${r.plans.length - 1}\n`);
}

export function runCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('run')
    .description('run one LTL mission end to end in an embedded world: plan on the latent graph, execute with π_low, monitor, replan')
    .addOption(new Option('--world <id>', 'embedded world').choices([...POINTMAZE_IDS]).default('pointmaze-medium'))
    .requiredOption('--spec <formula>', 'the LTL specification')
    .requiredOption('--regions <file>', 'the regions file (docs/FORMATS.md)')
    .option('--start <x,y>', 'start position in metres (default: a random free cell from --seed)', pointFlag)
    .addOption(new Option('--method <m>', 'planner; sagas-replan replans after monitor failures').choices([...MISSION_METHODS]).default('sagas'))
    .option('--lambda <x>', 'prefix–suffix trade-off λ', numberFlag('--lambda', 0, 1), DEFAULT_PLAN.lambda)
    .option('--k <n>', 'prefix candidates K', intFlag('--k', 1), DEFAULT_PLAN.k)
    .option('--replans <n>', 'replanning budget R (sagas-replan)', intFlag('--replans', 0, 100), DEFAULT_REPLANS)
    .option('--max-steps <n>', 'rollout budget C_max in environment steps', intFlag('--max-steps', 1), DEFAULT_MAX_STEPS)
    .option('--graph <file>', 'a latent graph artifact (with --data) instead of building one here')
    .option('--data <file>', 'the dataset the graph was built from')
    .option('--models <dir>', 'the model bundle (default: the shipped one for the world)')
    .option('--dataset-steps <n>', 'transitions of the navigate dataset generated when no --graph is given', intFlag('--dataset-steps', 1000), 300_000)
    .option('--seed <n>', 'seed of the dataset, the start, anchor retrieval and the simulator noise', intFlag('--seed', 0), 0)
    .option('--picture <file>', 'draw the mission (maze, regions, prefix and suffix, rollout) as SVG')
    .option('--audit <db>', 'the audit database to record the run in (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)')
    .option('--no-audit', 'do not record the run')
    .option('--operator <name>', 'who runs the mission (recorded in the audit log; default: the user)')
    .option('--json', 'one JSON document on stdout')
    .action(action(io, setExit, async (o: RunFlags) => {
      const formula = parseSpec(o.spec);
      const automaton = translateFormula(formula).automaton;
      const regions = await taskRegions(o.regions, automaton.aps);
      const layout = layoutOf(o.world);
      const rng = createRng(o.seed);
      const start: [number, number] = o.start ?? (() => {
        const c = cellCenter(layout, rng.pick(freeCells(layout)));
        return [c.x, c.y];
      })();
      const log = (s: string): void => io.err(`run: ${s}\n`);
      const b = await taskBackbone({ ...o, requireWorld: true }, log);
      const sim = await PointMazeSim.create(o.world);
      let auditLog: AuditLog | null = null;
      try {
        const auditFile = o.audit === false ? null : typeof o.audit === 'string' ? o.audit : defaultAuditFile();
        if (auditFile !== null) {
          mkdirSync(dirname(auditFile), { recursive: true });
          auditLog = AuditLog.open(auditFile);
        }
        const runId = auditLog === null ? null : await auditLog.startRun({
          world: o.world, backend: 'mujoco', operator: o.operator ?? operatorName(), software: `witness ${VERSION}`,
          models: { embed: b.artifact.models.embed, policy: b.artifact.models.policy, graph: b.files.graph, dataset: b.artifact.dataset.sha256 },
          spec: automaton.formula, regions: JSON.stringify(regions),
          meta: { method: o.method, start, seed: o.seed, maxSteps: o.maxSteps, replans: o.replans },
        });
        const recorder = auditLog !== null && runId !== null ? missionRecorder(auditLog, runId) : undefined;
        const task = await augmentTask(b, regions, start, DEFAULT_AUGMENT, rng, { regions: o.regions, start: '--start' });
        const r = await runMission(
          { sim, models: b.models, graph: task.graph, automaton, formula, regions: regions.regions, start, ...(recorder ? { audit: recorder } : {}) },
          {
            method: o.method, lambda: o.lambda, k: o.k ?? DEFAULT_PLAN.k, tauSoft: DEFAULT_PLAN.tauSoft,
            exec: { ...DEFAULT_EXEC, H_TD: b.artifact.params.H_TD, epsAnchor: b.artifact.params.H_TD / 2, epsWaypoint: b.artifact.params.H_TD / 2 },
            maxSteps: o.maxSteps, replans: o.replans, seed: o.seed,
          },
        );
        if (auditLog !== null) {
          await auditLog.flush();
          if (recorder !== undefined && recorder.errors.length > 0) throw new CliError(`audit log ${auditLog.file}: ${recorder.errors[0]!.message}`);
          if (!o.json) io.err(`run: recorded as run ${runId} in ${auditLog.file}\n`);
        }
        const last = r.plans[r.plans.length - 1]!;
        if (o.picture !== undefined) {
          const lp = last.result;
          const xy = (v: number): [number, number] => [last.graph.positions[2 * v]!, last.graph.positions[2 * v + 1]!];
          const first = r.plans[0]!.result;
          const nodes = first.status === 'ok' ? first.steps.map((s) => xy(s.node)) : [];
          const pre = first.status === 'ok' ? nodes.slice(0, first.prefixLength) : [];
          const suf = lp.status === 'ok' ? [xy(lp.steps[lp.prefixLength - 1]!.node), ...lp.steps.slice(lp.prefixLength).map((s) => xy(s.node))] : [];
          writeFileSync(o.picture, missionSvg(layout, `${o.world}: ${automaton.formula} (${o.method}, ${r.success ? 'success' : 'failed'})`, {
            regions: regions.regions, prefix: pre, suffix: suf, trajectory: r.trajectory, start,
            failures: r.failures.map((f) => [r.trajectory[2 * f.t]!, r.trajectory[2 * f.t + 1]!] as const),
          }));
        }
        if (o.json) {
          const steps = [...r.stepTimes_ms].sort((a, b) => a - b);
          io.out(JSON.stringify({
            status: r.success ? 'success' : 'failed', failureMode: r.failureMode, message: r.message, world: o.world, method: o.method,
            formula: automaton.formula, start, steps: r.steps, T_pre: r.T_pre, T_suf: r.T_suf, ncc: r.ncc,
            executorComplete: r.executorComplete, monitorViable: r.monitorViable,
            plans: r.plans.map((p) => ({ t: p.t, planning_ms: p.planning_ms, ...planDocument(p.result, p.graph, {}) })),
            events: r.events, failures: r.failures, disagreements: r.disagreements, augmentation: task.report,
            ...(runId !== null ? { audit: { file: auditLog!.file, run: runId } } : {}),
            step_ms: { p50: steps[Math.floor(steps.length * 0.5)] ?? 0, p95: steps[Math.floor(steps.length * 0.95)] ?? 0 },
          }) + '\n');
        } else {
          io.out(`mission in ${o.world} (${o.method}): ${automaton.formula}\n  start (${start[0].toFixed(2)}, ${start[1].toFixed(2)}); ${task.report.nodes.anchors} anchors${task.report.unavailable.length > 0 ? `, unavailable: ${task.report.unavailable.join(', ')}` : ''}\n`);
          const p0 = r.plans[0]!.result;
          if (p0.status === 'ok') io.out(`  plan: ${p0.prefixLength - 1} prefix and ${p0.steps.length - p0.prefixLength} suffix waypoints${p0.dwell ? ' (dwell suffix)' : ''}, objective ${p0.cost.objective.toFixed(1)}, ${r.plans[0]!.planning_ms.toFixed(1)} ms\n`);
          summary(io, r);
          if (o.picture !== undefined) io.out(`  wrote ${o.picture}\n`);
        }
        return r.success ? EXIT.ok : EXIT.negative;
      } finally {
        sim.close();
        await b.models.close();
        await auditLog?.close();
      }
    }));
}
