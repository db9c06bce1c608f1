/**
 * HIQL goal reaching alone (no LTL): the executor of AP-HIQL (core/exec/hiql-mission.ts) driven
 * toward one goal observation for a budget of steps, OGBench style — π_h proposes a subgoal from
 * (s, ψ(g) − ψ(s)) every step, π_l acts on it — and success once the robot is within `radius` m of
 * the goal's position. No per-goal timeout: the rollout records where the mission executor's
 * no-progress rule (H_low steps without `minProgress` latent improvement) would have given up, so
 * the cost of that rule can be read off. Pure: the world and the executor are injected.
 */
import type { HiqlExecutor } from './hiql-mission.js';
import { type Navigation, WorldError } from '../world/world.js';
import { type RecoveryParams, StallRecovery } from './recovery.js';

export interface ReachParams {
  readonly maxSteps: number;
  /** Success within this distance (m) of the goal's position. */
  readonly radius: number;
  /** The mission executor's no-progress rule, only recorded here. */
  readonly H_low: number;
  readonly minProgress: number;
  readonly seed: number;
  /** Stall recovery (core/exec/recovery.ts) as in the mission loop (HiqlExecParams.recovery); null or absent: none. */
  readonly recovery?: RecoveryParams | null;
}

export interface ReachResult {
  readonly success: boolean;
  /** Steps taken (the step on which the goal was reached, or the budget). */
  readonly steps: number;
  /** Distances (m) to the goal's position at the end and at the closest. */
  readonly finalDistance: number;
  readonly minDistance: number;
  /** The step at which the no-progress rule would have abandoned the goal, or null. */
  readonly timeoutAt: number | null;
  /** Positions (x, y) per step. */
  readonly trajectory: Float32Array;
  /** Stall recoveries begun (ReachParams.recovery). */
  readonly recoveries: number;
  readonly error?: string;
}

export async function reachGoal(
  world: Navigation,
  executor: HiqlExecutor,
  start: readonly [number, number],
  goal: Float32Array,
  o: ReachParams,
): Promise<ReachResult> {
  const gx = goal[0]!,
    gy = goal[1]!;
  const traj: number[] = [];
  let minDistance = Infinity,
    finalDistance = Infinity,
    timeoutAt: number | null = null,
    recoveries = 0;
  const recovery = o.recovery == null ? null : new StallRecovery(o.recovery);
  const result = (success: boolean, steps: number, error?: string): ReachResult => ({
    success,
    steps,
    finalDistance,
    minDistance,
    timeoutAt,
    trajectory: Float32Array.from(traj),
    recoveries,
    ...(error !== undefined ? { error } : {}),
  });
  let state;
  try {
    state = await world.reset({ seed: o.seed, start: [start[0], start[1]] });
  } catch (e) {
    if (!(e instanceof WorldError)) throw e;
    return result(false, 0, e.message);
  }
  const g = await executor.embed(goal, 1);
  let best = Infinity,
    lastProgress = 0;
  for (let t = 0; t < o.maxSteps; t++) {
    const x = state.pose.x,
      y = state.pose.y;
    traj.push(x, y);
    finalDistance = Math.hypot(x - gx, y - gy);
    minDistance = Math.min(minDistance, finalDistance);
    if (finalDistance <= o.radius) return result(true, t);
    const obs = Float32Array.from(state.observation);
    const h = await executor.embed(obs, 1);
    const offset = new Float32Array(h.length);
    let d = 0;
    for (let q = 0; q < h.length; q++) {
      offset[q] = g[q]! - h[q]!;
      d += offset[q]! ** 2;
    }
    d = Math.sqrt(d);
    if (d < best - o.minProgress) {
      best = d;
      lastProgress = t;
    } else if (timeoutAt === null && t - lastProgress >= o.H_low) {
      timeoutAt = t;
    }
    const back = recovery?.step(0, h, x, y) ?? null;
    if (back?.started) recoveries++;
    const z = back?.offset ?? (await executor.subgoal(obs, offset, 1));
    const a = await executor.act(obs, z, 1);
    try {
      state = await world.step(a);
    } catch (e) {
      if (!(e instanceof WorldError)) throw e;
      return result(false, t + 1, e.message);
    }
  }
  return result(false, o.maxSteps);
}
