/**
 * AP-HIQL (SAGAS Appendix E, the learning-based baseline): an automaton-only accepting label lasso
 * (plan/label-lasso.ts, no graph, no latent waypoints), dataset representatives of the required
 * regions as goals, and a HIQL goal-conditioned executor that reaches them in order — π_h proposes a
 * subgoal from (s, goal) every step, π_l acts on it — while the runtime monitor watches the realised
 * labels. Success is decided as for every other method: the lasso evaluator on the realised label
 * word (the prefix, then M suffix traversals, the last one as the cycle), the same C_max and NCC.
 *
 * Progress: the plan's blocks are realised in order; a block is done on the first step whose label
 * is its letter (inside its region, or in no region), one block per step. The goal steered for is
 * the representative of the next region block; for a no-region block whose next region is the one
 * the robot is in (or when no region block follows), a dataset state outside every region near the
 * robot's region. No per-goal timeout by default, as in the paper's AP-HIQL: the rollout budget
 * C_max bounds the mission, as for every method. Two optional rules (off by default): a goal is
 * abandoned as a failure of its stage (prefix or suffix) after `goalSteps` steps steered for it, or
 * when ‖ψ(s) − ψ(goal)‖ has not improved by `minProgress` within H_low steps (the former default
 * H_low = 100 abandoned goals HIQL goes on to reach: `witness backbone eval-hiql`). A monitor with no accepting
 * continuation left ends the run at once (a forbidden label). Pure: the world, ψ, the policies and the clock are
 * injected (app/hiql-mission.ts assembles them).
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import { StateSetMonitor } from '../ltl/monitor.js';
import { type LabelBlock, type LabelLasso, labelLasso } from '../plan/label-lasso.js';
import { type Region, inRegion, labelAt } from '../world/regions.js';
import { type Navigation, type NavState, WorldError } from '../world/world.js';
import { lassoVerdict } from './mission.js';
import { type RecoveryParams, StallRecovery } from './recovery.js';

export interface HiqlExecParams {
  /** Steps allowed without progress toward the current goal; null: no such rule (the default). */
  readonly H_low: number | null;
  /** Latent improvement that counts as progress (ψ distances are in environment steps). */
  readonly minProgress: number;
  /** Steps allowed per goal, counted from when it became the goal; null: C_max alone. */
  readonly goalSteps: number | null;
  /** Suffix traversals of the finite evaluation criterion (Appendix E: M = 2). */
  readonly M: number;
  /** Prefix–suffix trade-off λ of NCC. */
  readonly lambda: number;
  /** The rollout budget C_max. */
  readonly maxSteps: number;
  readonly seed: number;
  /**
   * Stall recovery (core/exec/recovery.ts), per goal: when the body stalls, the low-level policy is
   * steered back along the body's own path instead of toward π_h's subgoal; null: none (the paper's
   * AP-HIQL). `grant` is unused: AP-HIQL has no per-goal budget to give steps back to.
   */
  readonly recovery: RecoveryParams | null;
}

export const DEFAULT_HIQL_EXEC: Pick<HiqlExecParams, 'H_low' | 'minProgress' | 'goalSteps' | 'M' | 'recovery'> = {
  H_low: null,
  minProgress: 0.5,
  goalSteps: null,
  M: 2,
  recovery: null,
};

/** ψ, and HIQL's two policies over latent offsets from the current state, batched over rows. */
export interface HiqlExecutor {
  embed(obs: Float32Array, rows: number): Promise<Float32Array>;
  subgoal(obs: Float32Array, goal: Float32Array, rows: number): Promise<Float32Array>;
  act(obs: Float32Array, direction: Float32Array, rows: number): Promise<Float32Array>;
}

/** The goals a mission may steer for: dataset observations, per region, and outside every region. */
export interface GoalSource {
  /** Observations, rows × obsDim, x and y first. */
  readonly observations: Float32Array;
  readonly obsDim: number;
}

export interface HiqlMissionInput {
  readonly world: Navigation;
  readonly executor: HiqlExecutor;
  readonly automaton: BuchiAutomaton;
  readonly formula: Formula;
  readonly regions: readonly Region[];
  readonly start: readonly [number, number];
  readonly goals: GoalSource;
  readonly now?: () => number;
}

export type HiqlFailureMode = 'planning' | 'prefix' | 'suffix' | 'world';

export interface HiqlMissionResult {
  readonly success: boolean;
  readonly failureMode: HiqlFailureMode | null;
  /** 'no-label-lasso' or 'no-representative' when the failure mode is 'planning'. */
  readonly planningReason?: string;
  readonly message: string;
  readonly plan: LabelLasso;
  /** The dataset row steered for, per region the plan enters. */
  readonly representatives: Readonly<Record<string, number>>;
  readonly planning_ms: number;
  readonly steps: number;
  readonly T_pre: number | null;
  readonly T_suf: number | null;
  readonly ncc: number;
  /** Positions (x, y) per step, and the label of each step. */
  readonly trajectory: Float32Array;
  readonly labels: readonly (readonly string[])[];
  /** Steps at which a forbidden label (no accepting continuation) or a timeout ended the run. */
  readonly failures: readonly { readonly t: number; readonly kind: 'violation' | 'timeout' | 'overturned' }[];
  /** Stall recoveries begun (HiqlExecParams.recovery): when, and where the body walked back to. */
  readonly recoveries: readonly {
    readonly t: number;
    readonly moved_m: number;
    readonly to: readonly [number, number];
  }[];
  readonly stepTimes_ms: Float64Array;
}

const centre = (r: Region): [number, number] =>
  r.kind === 'disk' ? [r.center[0], r.center[1]] : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];

/** Distance from a point outside a region to it (0 inside). */
function outside(r: Region, x: number, y: number): number {
  if (r.kind === 'disk') return Math.max(0, Math.hypot(x - r.center[0], y - r.center[1]) - r.radius);
  const dx = Math.max(r.min[0] - x, 0, x - r.max[0]),
    dy = Math.max(r.min[1] - y, 0, y - r.max[1]);
  return Math.hypot(dx, dy);
}

/**
 * The dataset representative of a region: among the rows inside it (and in no other region), the
 * one nearest its centre, a slow one preferred (score = distance to the centre in m + speed in
 * units/step of the observation's velocity); ties to the lower row. −1 when no row is inside.
 */
export function regionRepresentative(g: GoalSource, regions: readonly Region[], name: string): number {
  const r = regions.find((x) => x.name === name);
  if (r === undefined) return -1;
  const [cx, cy] = centre(r);
  const k = g.obsDim,
    n = g.observations.length / k;
  let best = -1,
    score = Infinity;
  for (let i = 0; i < n; i++) {
    const x = g.observations[i * k]!,
      y = g.observations[i * k + 1]!;
    if (!inRegion(r, x, y) || labelAt(regions, x, y).length !== 1) continue;
    const speed = k >= 4 ? Math.hypot(g.observations[i * k + 2]!, g.observations[i * k + 3]!) : 0;
    const s = Math.hypot(x - cx, y - cy) + speed;
    if (s < score) {
      score = s;
      best = i;
    }
  }
  return best;
}

/**
 * A slow dataset state outside every region, at least `clearance` m from each, nearest to (x, y):
 * where to go to leave a region when no other goal lies ahead. −1 when there is none.
 */
export function outsideRepresentative(
  g: GoalSource,
  regions: readonly Region[],
  x: number,
  y: number,
  clearance = 0.5,
): number {
  const k = g.obsDim,
    n = g.observations.length / k;
  let best = -1,
    score = Infinity;
  for (let i = 0; i < n; i++) {
    const px = g.observations[i * k]!,
      py = g.observations[i * k + 1]!;
    if (regions.some((r) => outside(r, px, py) < clearance)) continue;
    const speed = k >= 4 ? Math.hypot(g.observations[i * k + 2]!, g.observations[i * k + 3]!) : 0;
    const s = Math.hypot(px - x, py - y) + speed;
    if (s < score) {
      score = s;
      best = i;
    }
  }
  return best;
}

const sameLetter = (block: LabelBlock, label: readonly string[]): boolean =>
  block.region === null ? label.length === 0 : label.length === 1 && label[0] === block.region;

export async function runHiqlMission(input: HiqlMissionInput, o: HiqlExecParams): Promise<HiqlMissionResult> {
  const { world, executor, automaton, formula, regions } = input;
  const now = input.now ?? ((): number => 0);
  const traj: number[] = [];
  const labels: string[][] = [];
  const times: number[] = [];
  const failures: { t: number; kind: 'violation' | 'timeout' | 'overturned' }[] = [];
  const recoveries: { t: number; moved_m: number; to: readonly [number, number] }[] = [];
  const recovery = o.recovery === null ? null : new StallRecovery(o.recovery);
  const t0 = now();
  const startLabel = labelAt(regions, input.start[0], input.start[1]);
  const plan = labelLasso(
    automaton,
    regions.map((r) => r.name),
    startLabel[0] ?? null,
  );
  const representatives: Record<string, number> = {};
  let planningReason: string | undefined,
    planningMessage = '';
  if (plan.status === 'none') {
    planningReason = 'no-label-lasso';
    planningMessage = `no plan: ${plan.reason}`;
  } else {
    for (const b of [...plan.prefix, ...plan.cycle]) {
      if (b.region === null || b.region in representatives) continue;
      const row = regionRepresentative(input.goals, regions, b.region);
      if (row < 0) {
        planningReason = 'no-representative';
        planningMessage = `no plan: no dataset state lies inside region ${b.region}, so AP-HIQL has no goal for it`;
        break;
      }
      representatives[b.region] = row;
    }
  }
  const planning_ms = now() - t0;
  const base = { plan, representatives, planning_ms };
  const finish = (
    p: { success: boolean; failureMode: HiqlFailureMode | null; message: string; planningReason?: string },
    steps: number,
    T_pre: number | null,
    T_suf: number | null,
  ): HiqlMissionResult => {
    const cost = T_pre !== null && T_suf !== null ? o.lambda * T_pre + (1 - o.lambda) * T_suf : Infinity;
    return {
      ...p,
      ...base,
      steps,
      T_pre,
      T_suf,
      ncc: p.success ? Math.min(cost, o.maxSteps) / o.maxSteps : 1,
      trajectory: Float32Array.from(traj),
      labels,
      failures,
      recoveries,
      stepTimes_ms: Float64Array.from(times),
    };
  };
  if (plan.status === 'none' || planningReason !== undefined)
    return finish(
      { success: false, failureMode: 'planning', planningReason: planningReason!, message: planningMessage },
      0,
      null,
      null,
    );

  // The block stream: the prefix once, then the cycle M times.
  const stream: LabelBlock[] = [...plan.prefix];
  for (let m = 0; m < o.M; m++) stream.push(...plan.cycle);
  const prefixEnd = plan.prefix.length; // blocks before the first traversal
  const latentOf = new Map<number, Float32Array>();
  const goalLatent = async (row: number): Promise<Float32Array> => {
    let z = latentOf.get(row);
    if (z === undefined) {
      const k = input.goals.obsDim;
      z = await executor.embed(input.goals.observations.slice(row * k, row * k + k), 1);
      latentOf.set(row, z);
    }
    return z;
  };
  /** The row to steer for while block c is pending, standing at (x, y) with label `here`. */
  const target = (c: number, here: readonly string[], x: number, y: number): number => {
    const b = stream[c]!;
    if (b.region !== null) return representatives[b.region]!;
    const inside = here[0];
    for (let j = c + 1; j < stream.length + plan.cycle.length; j++) {
      const nb = stream[j] ?? plan.cycle[(j - stream.length) % plan.cycle.length]!;
      if (nb.region === null) continue;
      if (nb.region !== inside) return representatives[nb.region]!;
      break;
    }
    // Computed once per block (a scan of the dataset), from where the robot stands when it needs it.
    let row = leave.get(c);
    if (row === undefined) {
      row = outsideRepresentative(input.goals, regions, x, y);
      leave.set(c, row);
    }
    return row;
  };
  const leave = new Map<number, number>();

  let state: NavState;
  try {
    state = await world.reset({ seed: o.seed, start: [input.start[0], input.start[1]] });
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return finish({ success: false, failureMode: 'world', message: e.message }, 0, null, null);
  }
  const monitor = new StateSetMonitor(automaton);
  let c = 0,
    prefixDone: number | null = null;
  const traversals: number[] = [];
  let goalRow = -2,
    best = Infinity,
    lastProgress = 0,
    goalSince = 0;
  const stage = (): 'prefix' | 'suffix' => (c < prefixEnd ? 'prefix' : 'suffix');
  const T = (): [number | null, number | null] => [
    prefixDone,
    prefixDone !== null && traversals.length > 0 ? traversals[0]! - prefixDone : null,
  ];
  for (let t = 0; t < o.maxSteps; t++) {
    const x = state.pose.x,
      y = state.pose.y;
    const t1 = now();
    const label = labelAt(regions, x, y);
    const m = monitor.step(label);
    labels.push(label);
    traj.push(x, y);
    if (!m.viable) {
      failures.push({ t, kind: 'violation' });
      times.push(now() - t1);
      const [a, b] = T();
      return finish(
        {
          success: false,
          failureMode: stage(),
          message: `forbidden label {${label.join(', ')}} at step ${t}: the monitor has no accepting continuation left`,
        },
        t + 1,
        a,
        b,
      );
    }
    if (c < stream.length && sameLetter(stream[c]!, label)) {
      c++;
      if (c === prefixEnd) prefixDone = t;
      if (c > prefixEnd && (c - prefixEnd) % plan.cycle.length === 0) traversals.push(t);
      if (c === stream.length) {
        times.push(now() - t1);
        const cycleStart = (traversals.length >= 2 ? traversals[traversals.length - 2]! : prefixDone!) + 1;
        const ok = lassoVerdict(formula, labels, cycleStart, traversals[traversals.length - 1]!);
        const [a, b] = T();
        return finish(
          {
            success: ok,
            failureMode: ok ? null : 'suffix',
            message: ok
              ? `prefix and ${o.M} suffix traversal(s) realised; the lasso evaluator accepts the realised labels`
              : 'the label sequence was realised, but the realised label word does not satisfy the formula (finite-lasso check)',
          },
          t + 1,
          a,
          b,
        );
      }
    }
    const fell = world.fallen?.(state) ?? null;
    if (fell !== null) {
      failures.push({ t, kind: 'overturned' });
      times.push(now() - t1);
      const [a, b] = T();
      return finish({ success: false, failureMode: stage(), message: `overturned at step ${t}: ${fell}` }, t + 1, a, b);
    }
    const obs = Float32Array.from(state.observation);
    const h = await executor.embed(obs, 1);
    const row = target(c, label, x, y);
    if (row < 0) {
      times.push(now() - t1);
      const [a, b] = T();
      return finish(
        { success: false, failureMode: stage(), message: 'no dataset state lies outside every region to leave toward' },
        t + 1,
        a,
        b,
      );
    }
    const g = await goalLatent(row);
    const offset = new Float32Array(h.length);
    let d = 0;
    for (let q = 0; q < h.length; q++) {
      offset[q] = g[q]! - h[q]!;
      d += offset[q]! ** 2;
    }
    d = Math.sqrt(d);
    if (row !== goalRow) {
      goalRow = row;
      best = d;
      lastProgress = t;
      goalSince = t;
    } else if (d < best - o.minProgress) {
      best = d;
      lastProgress = t;
    }
    const stalled = o.H_low !== null && t - lastProgress >= o.H_low;
    if (stalled || (o.goalSteps !== null && t - goalSince >= o.goalSteps)) {
      failures.push({ t, kind: 'timeout' });
      times.push(now() - t1);
      const [a, b] = T();
      const why = stalled
        ? `no progress toward the goal of block ${c} (${stream[c]!.region ?? 'no region'}) within ${o.H_low} steps`
        : `the goal of block ${c} (${stream[c]!.region ?? 'no region'}) not reached within ${o.goalSteps} steps`;
      return finish({ success: false, failureMode: stage(), message: why }, t + 1, a, b);
    }
    // A stalled body walks back along its path (the offset to where it was, given to the low-level
    // policy in place of π_h's subgoal offset); otherwise π_h proposes the subgoal.
    const back = recovery?.step(row, h, x, y) ?? null;
    if (back?.started) recoveries.push({ t, ...back.started });
    const z = back?.offset ?? (await executor.subgoal(obs, offset, 1));
    const a = await executor.act(obs, z, 1);
    times.push(now() - t1);
    try {
      state = await world.step(a);
    } catch (e) {
      if (!(e instanceof WorldError)) throw e;
      const [p, s] = T();
      return finish({ success: false, failureMode: 'world', message: e.message }, t + 1, p, s);
    }
  }
  const [a, b] = T();
  return finish(
    { success: false, failureMode: stage(), message: `rollout budget of ${o.maxSteps} steps exhausted` },
    o.maxSteps,
    a,
    b,
  );
}

/**
 * What ended a failed AP-HIQL execution, in the words of the graph methods' executionCause
 * (core/exec/mission.ts): a forbidden label, a tracking time-out, the body overturned; 'budget' when
 * the rollout budget ran out, 'lasso' when the realised labels do not satisfy the formula, 'no-goal'
 * when no dataset state could serve as the next goal. null for successes, planning and world failures.
 */
export function hiqlExecutionCause(
  h: Pick<HiqlMissionResult, 'success' | 'failureMode' | 'failures' | 'steps'>,
  maxSteps: number,
): string | null {
  if (h.success || h.failureMode === 'planning' || h.failureMode === 'world') return null;
  const last = h.failures[h.failures.length - 1];
  if (last === undefined) return h.steps >= maxSteps ? 'budget' : h.failureMode === 'suffix' ? 'lasso' : 'no-goal';
  return last.kind === 'violation' ? 'forbidden-label' : last.kind === 'timeout' ? 'tracking-timeout' : last.kind;
}
