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
 * when ‖ψ(s) − ψ(goal)‖ has not improved by `minProgress` within H_low steps (a rule that abandons
 * goals HIQL goes on to reach: `witness backbone eval-hiql` shows how far it gets). A monitor with no
 * accepting continuation left ends the run at once (a forbidden label). The realised labels, the
 * monitor and the verdict are the run skeleton's (run-skeleton.ts RunTrace). Pure: the world, ψ, the
 * policies and the clock are injected (app/hiql.ts assembles them).
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import type { Formula } from '../ltl/ast.js';
import { type LabelBlock, type LabelLasso, labelLasso } from '../plan/label-lasso.js';
import { type Region, inRegion, labelAt } from '../world/regions.js';
import { type Navigation, type NavState, WorldError } from '../world/world.js';
import { RunTrace, lassoEnd, lassoTimes, nccOf } from './run-skeleton.js';
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

type HiqlFailureMode = 'planning' | 'prefix' | 'suffix' | 'world';

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
function outsideRepresentative(
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

/** The plan's lasso of label blocks, the representative row of each region it enters, or why there is none. */
function planHiql(input: HiqlMissionInput): {
  plan: LabelLasso;
  representatives: Record<string, number>;
  reason?: string;
  message: string;
} {
  const { automaton, regions } = input;
  const startLabel = labelAt(regions, input.start[0], input.start[1]);
  const plan = labelLasso(
    automaton,
    regions.map((r) => r.name),
    startLabel[0] ?? null,
  );
  const representatives: Record<string, number> = {};
  if (plan.status === 'none')
    return { plan, representatives, reason: 'no-label-lasso', message: `no plan: ${plan.reason}` };
  for (const b of [...plan.prefix, ...plan.cycle]) {
    if (b.region === null || b.region in representatives) continue;
    const row = regionRepresentative(input.goals, regions, b.region);
    if (row < 0)
      return {
        plan,
        representatives,
        reason: 'no-representative',
        message: `no plan: no dataset state lies inside region ${b.region}, so AP-HIQL has no goal for it`,
      };
    representatives[b.region] = row;
  }
  return { plan, representatives, message: '' };
}

/** An AP-HIQL run: the trace, the plan's block stream and the goal being steered for. */
interface Steering {
  readonly input: HiqlMissionInput;
  readonly o: HiqlExecParams;
  readonly trace: RunTrace;
  readonly now: () => number;
  readonly base: Pick<HiqlMissionResult, 'plan' | 'representatives' | 'planning_ms'>;
  readonly cycle: readonly LabelBlock[];
  /** The block stream: the prefix once, then the cycle M times; blocks before the first traversal. */
  readonly stream: readonly LabelBlock[];
  readonly prefixEnd: number;
  readonly failures: { t: number; kind: 'violation' | 'timeout' | 'overturned' }[];
  readonly recoveries: { t: number; moved_m: number; to: readonly [number, number] }[];
  readonly recovery: StallRecovery | null;
  /** Goal latents by dataset row, and the row to leave a region toward, per block. */
  readonly latentOf: Map<number, Float32Array>;
  readonly leave: Map<number, number>;
  state: NavState;
  /** The pending block, and the goal's row, best latent distance, last progress and start step. */
  c: number;
  goalRow: number;
  best: number;
  lastProgress: number;
  goalSince: number;
}

type HiqlEnd = { success: boolean; failureMode: HiqlFailureMode | null; message: string; planningReason?: string };

function finish(s: Steering, p: HiqlEnd, steps: number): HiqlMissionResult {
  const { T_pre, T_suf } = lassoTimes(s.trace.marks);
  return {
    ...p,
    ...s.base,
    steps,
    T_pre,
    T_suf,
    ncc: nccOf(p.success, T_pre, T_suf, s.o.lambda, s.o.maxSteps),
    trajectory: Float32Array.from(s.trace.positions),
    labels: s.trace.labels,
    failures: s.failures,
    recoveries: s.recoveries,
    stepTimes_ms: Float64Array.from(s.trace.times),
  };
}

export async function runHiqlMission(input: HiqlMissionInput, o: HiqlExecParams): Promise<HiqlMissionResult> {
  const now = input.now ?? ((): number => 0);
  const t0 = now();
  const planned = planHiql(input);
  const { plan, representatives } = planned;
  const base = { plan, representatives, planning_ms: now() - t0 };
  const cycle = plan.status === 'none' ? [] : plan.cycle;
  const stream: LabelBlock[] = plan.status === 'none' ? [] : [...plan.prefix];
  for (let m = 0; m < o.M; m++) stream.push(...cycle);
  const s = {
    input,
    o,
    trace: new RunTrace(input.automaton, input.regions),
    now,
    base,
    cycle,
    stream,
    prefixEnd: plan.status === 'none' ? 0 : plan.prefix.length,
    failures: [],
    recoveries: [],
    recovery: o.recovery === null ? null : new StallRecovery(o.recovery),
    latentOf: new Map(),
    leave: new Map(),
    c: 0,
    goalRow: -2,
    best: Infinity,
    lastProgress: 0,
    goalSince: 0,
  } as Omit<Steering, 'state'> as Steering;
  if (planned.reason !== undefined)
    return finish(
      s,
      { success: false, failureMode: 'planning', planningReason: planned.reason, message: planned.message },
      0,
    );
  try {
    s.state = await input.world.reset({ seed: o.seed, start: [input.start[0], input.start[1]] });
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return finish(s, { success: false, failureMode: 'world', message: e.message }, 0);
  }
  for (let t = 0; t < o.maxSteps; t++) {
    const end = await hiqlStep(s, t);
    if (end !== null) return end;
  }
  return finish(s, failedAt(s, `rollout budget of ${o.maxSteps} steps exhausted`), o.maxSteps);
}

/** A failure of the stage the pending block is in. */
const failedAt = (s: Steering, message: string): HiqlEnd => ({
  success: false,
  failureMode: s.c < s.prefixEnd ? 'prefix' : 'suffix',
  message,
});

/** The dataset row's latent, embedded once. */
async function goalLatent(s: Steering, row: number): Promise<Float32Array> {
  let z = s.latentOf.get(row);
  if (z === undefined) {
    const k = s.input.goals.obsDim;
    z = await s.input.executor.embed(s.input.goals.observations.slice(row * k, row * k + k), 1);
    s.latentOf.set(row, z);
  }
  return z;
}

/** The row to steer for while block c is pending, standing at (x, y) with label `here`. */
function target(s: Steering, c: number, here: readonly string[], x: number, y: number): number {
  const { stream, cycle } = s;
  const representatives = s.base.representatives;
  const b = stream[c]!;
  if (b.region !== null) return representatives[b.region]!;
  const inside = here[0];
  for (let j = c + 1; j < stream.length + cycle.length; j++) {
    const nb = stream[j] ?? cycle[(j - stream.length) % cycle.length]!;
    if (nb.region === null) continue;
    if (nb.region !== inside) return representatives[nb.region]!;
    break;
  }
  // Computed once per block (a scan of the dataset), from where the robot stands when it needs it.
  let row = s.leave.get(c);
  if (row === undefined) {
    row = outsideRepresentative(s.input.goals, s.input.regions, x, y);
    s.leave.set(c, row);
  }
  return row;
}

/** Block progress on this step's label: marks the prefix and traversals; the verdict once the stream is realised. */
function advance(s: Steering, t: number, label: readonly string[]): HiqlEnd | null {
  const marks = s.trace.marks;
  if (s.c >= s.stream.length || !sameLetter(s.stream[s.c]!, label)) return null;
  s.c++;
  if (s.c === s.prefixEnd) marks.prefixDone = t;
  if (s.c > s.prefixEnd && (s.c - s.prefixEnd) % s.cycle.length === 0) marks.traversals.push(t);
  if (s.c < s.stream.length) return null;
  return lassoEnd(s.input.formula, s.trace.labels, marks, 'the label sequence was realised') as HiqlEnd;
}

/**
 * One step: observe, progress, the goal's latent offset, the progress rules, then π_h's subgoal (or
 * a walk back) and π_l.
 */
async function hiqlStep(s: Steering, t: number): Promise<HiqlMissionResult | null> {
  const { trace, input, now } = s;
  const { x, y } = s.state.pose;
  const t1 = now();
  const { label, m } = trace.observe(x, y);
  const end = (e: HiqlEnd): HiqlMissionResult => {
    trace.times.push(now() - t1);
    return finish(s, e, t + 1);
  };
  if (!m.viable) {
    s.failures.push({ t, kind: 'violation' });
    return end(
      failedAt(s, `forbidden label {${label.join(', ')}} at step ${t}: the monitor has no accepting continuation left`),
    );
  }
  const verdict = advance(s, t, label);
  if (verdict !== null) return end(verdict);
  const fell = input.world.fallen?.(s.state) ?? null;
  if (fell !== null) {
    s.failures.push({ t, kind: 'overturned' });
    return end(failedAt(s, `overturned at step ${t}: ${fell}`));
  }
  const obs = Float32Array.from(s.state.observation);
  const h = await input.executor.embed(obs, 1);
  const row = target(s, s.c, label, x, y);
  if (row < 0) return end(failedAt(s, 'no dataset state lies outside every region to leave toward'));
  const g = await goalLatent(s, row);
  const offset = new Float32Array(h.length);
  let d = 0;
  for (let q = 0; q < h.length; q++) {
    offset[q] = g[q]! - h[q]!;
    d += offset[q]! ** 2;
  }
  const why = progressRule(s, t, row, Math.sqrt(d));
  if (why !== null) {
    s.failures.push({ t, kind: 'timeout' });
    return end(failedAt(s, why));
  }
  // A stalled body walks back along its path (the offset to where it was, given to the low-level
  // policy in place of π_h's subgoal offset); otherwise π_h proposes the subgoal.
  const back = s.recovery?.step(row, h, x, y) ?? null;
  if (back?.started) s.recoveries.push({ t, ...back.started });
  const z = back?.offset ?? (await input.executor.subgoal(obs, offset, 1));
  const a = await input.executor.act(obs, z, 1);
  trace.times.push(now() - t1);
  try {
    s.state = await input.world.step(a);
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return finish(s, { success: false, failureMode: 'world', message: e.message }, t + 1);
  }
  return null;
}

/** The optional goal rules: no progress within H_low steps, or the goal not reached within goalSteps; null: go on. */
function progressRule(s: Steering, t: number, row: number, d: number): string | null {
  const o = s.o;
  if (row !== s.goalRow) {
    s.goalRow = row;
    s.best = d;
    s.lastProgress = t;
    s.goalSince = t;
  } else if (d < s.best - o.minProgress) {
    s.best = d;
    s.lastProgress = t;
  }
  const stalled = o.H_low !== null && t - s.lastProgress >= o.H_low;
  if (!stalled && !(o.goalSteps !== null && t - s.goalSince >= o.goalSteps)) return null;
  const block = `block ${s.c} (${s.stream[s.c]!.region ?? 'no region'})`;
  return stalled
    ? `no progress toward the goal of ${block} within ${o.H_low} steps`
    : `the goal of ${block} not reached within ${o.goalSteps} steps`;
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
