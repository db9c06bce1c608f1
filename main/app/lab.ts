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
import type { ToolDef } from '../core/loop/tools.js';
import type { LoopResult } from '../core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, type PlanStep } from '../core/loop/planners.js';
import { worldEntry } from '../backends/catalogue.js';
import type { AuditLog } from '../services/audit/store.js';
import { operatorName } from '../platform/paths.js';
import { act, tabletopTools } from './act.js';
import { openAuditLog, settleAudit } from './audit-log.js';

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

interface LabOptions {
  readonly episodes: number;
  readonly seed: number;
  readonly thresholds_cm: readonly number[];
  readonly budgets: readonly number[];
  readonly progress?: (label: string) => void;
  /** Where to record the episodes (one run each), and who ran them. */
  readonly audit?: { readonly log: AuditLog; readonly operator: string };
}

const TARGETS = ['red_mug', 'marker'] as const;

function withThreshold(pick: ToolDef, t: number): ToolDef {
  return {
    ...pick,
    postconditions: pick.postconditions.map((c) =>
      c.name === 'grasp_success' ? { ...c, expr: `gripper.width_cm > ${t}` } : c,
    ),
    failures: pick.failures.map((f) => (f.label === 'grasp-missed' ? { ...f, when: `gripper.width_cm <= ${t}` } : f)),
  };
}

function stats(rs: readonly { r: LoopResult; target: string }[]): LabStats {
  const n = rs.length;
  const ok = rs.filter((x) => x.r.outcome === 'success');
  let replans = 0,
    falseReplans = 0;
  for (const { r, target } of rs) {
    for (const f of r.failures) {
      replans++;
      const holding = ((f.state['gripper'] as { holding?: string } | undefined)?.holding ?? '') === target;
      if (f.violated === 'grasp_success' && holding) falseReplans++;
    }
  }
  const fromReplan = ok.filter((x) => x.r.recovered).length;
  return {
    episodes: n,
    sr: ok.length / n,
    tool_calls_per_episode: rs.reduce((s, x) => s + x.r.toolCalls, 0) / n,
    successes_from_replan: fromReplan,
    replan_share_of_successes: ok.length === 0 ? 0 : fromReplan / ok.length,
    false_replan_rate: replans === 0 ? 0 : falseReplans / replans,
    replans_per_episode: replans / n,
  };
}

/** Episodes of pick and place on the tabletop with the shipped tools, blind and verified, and the verified sweep. */
async function runLab(o: LabOptions): Promise<LabResult> {
  const tools = tabletopTools();
  const pick = tools.find((t) => t.file === 'pick.json')!.def,
    place = tools.find((t) => t.file === 'place.json')!.def;
  const world = await worldEntry('tabletop').open();
  const a = o.audit;
  const runs: { errors: readonly Error[] }[] = [];
  try {
    const episode = async (
      e: number,
      mode: 'blind' | 'verified',
      threshold: number,
      replans: number,
    ): Promise<{ r: LoopResult; target: string }> => {
      const target = TARGETS[e % TARGETS.length]!;
      const seed = o.seed * 100_003 + e;
      const plan: PlanStep[] = [
        { tool: 'pick', args: { target } },
        { tool: 'place', args: { target: 'tray' } },
      ];
      let clock = 0;
      const { result: r, auditErrors } = await act({
        world,
        tools: [
          { def: withThreshold(pick, threshold), file: 'pick.json' },
          { def: place, file: 'place.json' },
        ],
        planner: mode === 'blind' ? new ScriptedPlanner(plan) : new RecoveryPlanner(plan),
        goal: `put the ${target} on the tray`,
        verify: `objects.${target}.on == "tray"`,
        seed,
        replans,
        blind: mode === 'blind',
        clock: () => (clock += 1),
        maxSteps: 20,
        ...(a !== undefined
          ? {
              audit: {
                log: a.log,
                operator: a.operator,
                via: 'lab',
                meta: {
                  lab: 'verify-vs-blind',
                  mode,
                  threshold_cm: threshold,
                  budget: replans,
                  episode: e,
                  seed,
                  lab_seed: o.seed,
                  target,
                },
              },
            }
          : {}),
      });
      runs.push({ errors: auditErrors });
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
    if (a !== undefined) await settleAudit(a.log, runs);
    return { blind, verified, sweep };
  } finally {
    await world.close();
  }
}

/**
 * `witness lab verify-vs-blind`: the shipped pick and place tools, grasp thresholds 1, 3, 5 cm and
 * replan budgets 0, 1, 2; one audit run per episode and configuration in `audit` (a file), or none.
 */
export async function verifyVsBlind(o: {
  episodes: number;
  seed: number;
  audit: string | null;
  progress?: (label: string) => void;
}): Promise<LabResult & { audit?: { file: string; runs: number } }> {
  const log = o.audit === null ? null : await openAuditLog(o.audit);
  try {
    const r = await runLab({
      episodes: o.episodes,
      seed: o.seed,
      thresholds_cm: [1, 3, 5],
      budgets: [0, 1, 2],
      ...(o.progress ? { progress: o.progress } : {}),
      ...(log !== null ? { audit: { log, operator: operatorName() } } : {}),
    });
    return { ...r, ...(log !== null ? { audit: { file: log.file, runs: o.episodes * (2 + r.sweep.length) } } : {}) };
  } finally {
    await log?.close();
  }
}
