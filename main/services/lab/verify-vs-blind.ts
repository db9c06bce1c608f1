/**
 * The seed's lab: postcondition verification versus blind tool calls, in the MuJoCo tabletop. Each
 * episode asks for an object (the red mug or the thin marker, alternately) on the tray with a
 * pick-then-place plan. Blind trusts the skills' return codes; verified checks the postconditions on
 * sensor evidence and replans with the recovery planner. Swept: the grasp-width threshold of the
 * pick postcondition and the replan budget. Success is decided by the goal verifier on the final
 * observed state, for both. With an audit log, every episode of every configuration is one run in
 * it, tagged with its configuration, holding every call, verifier result, failure record, replan and
 * escalation.
 */
import { parseTool, registerTools, type ToolDef } from '../../core/loop/tools.js';
import { runLoop, type LoopResult } from '../../core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, type PlanStep } from '../../core/loop/planners.js';
import { TABLETOP_VOCABULARY, TabletopWorld } from '../../backends/mujoco/tabletop.js';
import type { AuditLog } from '../audit/store.js';
import { type AuditSink, auditSink } from '../audit/mission-recorder.js';
import { loopEvents } from '../audit/loop-recorder.js';

export interface LabStats {
  readonly episodes: number;
  readonly sr: number;
  readonly tool_calls_per_episode: number;
  /** Successes that needed at least one replan, and their share of all successes. */
  readonly successes_from_replan: number;
  readonly replan_share_of_successes: number;
  /** Replans triggered although the grasp had in fact succeeded (ground truth), over all replans. */
  readonly false_replan_rate: number;
  readonly replans_per_episode: number;
}

export interface LabResult {
  readonly blind: LabStats;
  readonly verified: LabStats & { readonly threshold_cm: number; readonly replans: number };
  readonly sweep: readonly (LabStats & { readonly threshold_cm: number; readonly replans: number })[];
}

export interface LabOptions {
  readonly episodes: number;
  readonly seed: number;
  readonly thresholds_cm: readonly number[];
  readonly budgets: readonly number[];
  readonly tools: { readonly pick: unknown; readonly place: unknown };
  readonly progress?: (label: string) => void;
  /** Where to record the episodes (one run each), and who and what ran them. */
  readonly audit?: { readonly log: AuditLog; readonly operator: string; readonly software: string };
}

const TARGETS = ['red_mug', 'marker'] as const;

function withThreshold(pick: ToolDef, t: number): ToolDef {
  return { ...pick, postconditions: pick.postconditions.map((c) => (c.name === 'grasp_success' ? { ...c, expr: `gripper.width_cm > ${t}` } : c)), failures: pick.failures.map((f) => (f.label === 'grasp-missed' ? { ...f, when: `gripper.width_cm <= ${t}` } : f)) };
}

function stats(rs: readonly { r: LoopResult; target: string }[]): LabStats {
  const n = rs.length;
  const ok = rs.filter((x) => x.r.outcome === 'success');
  let replans = 0, falseReplans = 0;
  for (const { r, target } of rs) {
    for (const f of r.failures) {
      replans++;
      const holding = ((f.state['gripper'] as { holding?: string } | undefined)?.holding ?? '') === target;
      if (f.violated === 'grasp_success' && holding) falseReplans++;
    }
  }
  const fromReplan = ok.filter((x) => x.r.recovered).length;
  return {
    episodes: n, sr: ok.length / n, tool_calls_per_episode: rs.reduce((s, x) => s + x.r.toolCalls, 0) / n,
    successes_from_replan: fromReplan, replan_share_of_successes: ok.length === 0 ? 0 : fromReplan / ok.length,
    false_replan_rate: replans === 0 ? 0 : falseReplans / replans, replans_per_episode: replans / n,
  };
}

export async function runLab(o: LabOptions): Promise<LabResult> {
  const pick = parseTool(o.tools.pick, 'pick.json');
  const place = parseTool(o.tools.place, 'place.json');
  const world = await TabletopWorld.create();
  const a = o.audit;
  const sinks: AuditSink[] = [];
  for (const def of [pick, place]) a?.log.putBlob(`tool-schema:${def.name}`, JSON.stringify(def.arguments));
  try {
    const episode = async (e: number, mode: 'blind' | 'verified', threshold: number, replans: number): Promise<{ r: LoopResult; target: string }> => {
      const target = TARGETS[e % TARGETS.length]!;
      const tools = registerTools([{ def: withThreshold(pick, threshold), file: 'pick.json' }, { def: place, file: 'place.json' }], TABLETOP_VOCABULARY);
      const seed = o.seed * 100_003 + e;
      await world.reset(seed);
      const plan: PlanStep[] = [{ tool: 'pick', args: { target } }, { tool: 'place', args: { target: 'tray' } }];
      const planner = mode === 'blind' ? new ScriptedPlanner(plan) : new RecoveryPlanner(plan);
      const goal = `put the ${target} on the tray`;
      // Committing the run's start is the only wait per episode; its events go in one batch later.
      const run = a === undefined ? null : await a.log.startRun({
        world: 'tabletop', backend: 'mujoco', operator: a.operator, software: a.software, models: {}, spec: goal,
        meta: { lab: 'verify-vs-blind', mode, threshold_cm: threshold, budget: replans, episode: e, seed, lab_seed: o.seed, target },
      });
      const sink = a === undefined || run === null ? null : auditSink(a.log, run);
      if (sink !== null) sinks.push(sink);
      let clock = 0;
      const r = await runLoop(tools, world, planner, goal, {
        replans, goal: `objects.${target}.on == "tray"`, blind: mode === 'blind', clock: () => (clock += 1), maxSteps: 20,
        ...(sink !== null ? { onEvent: loopEvents(sink) } : {}),
      });
      sink?.event('run_end', { outcome: r.outcome, reason: r.reason, toolCalls: r.toolCalls, replans: r.replans });
      return { r, target };
    };
    const run = async (mode: 'blind' | 'verified', t: number, R: number): Promise<LabStats> => {
      const rs = [];
      for (let e = 0; e < o.episodes; e++) rs.push(await episode(e, mode, t, R));
      return stats(rs);
    };
    o.progress?.('blind');
    const blind = await run('blind', 1.5, 0);
    o.progress?.('verified (1.5 cm, R = 2)');
    const verified = { ...(await run('verified', 1.5, 2)), threshold_cm: 1.5, replans: 2 };
    const sweep = [];
    for (const t of o.thresholds_cm) {
      for (const R of o.budgets) {
        o.progress?.(`sweep ${t} cm, R = ${R}`);
        sweep.push({ ...(await run('verified', t, R)), threshold_cm: t, replans: R });
      }
    }
    if (a !== undefined) {
      await a.log.flush();
      const failed = sinks.find((x) => x.errors.length > 0);
      if (failed !== undefined) throw failed.errors[0]!;
    }
    return { blind, verified, sweep };
  } finally {
    world.close();
  }
}
