/**
 * Measured quality of a reachability backbone: (1) Spearman rank correlation between
 * ‖ψ(s) − ψ(g)‖ and the maze's true geodesic distance on held-out pairs; (2) how often π_low,
 * steered by the unit latent direction, brings the agent within ε of a waypoint at latent distance
 * H_TD within its tracking budget, in the simulator.
 */
import { type Dataset, trajectoryEnds } from '../../core/data/dataset.js';
import { WitnessError } from '../../contract/errors.js';
import { type MazeLayout, cellAt, distancesFrom } from '../../core/world/maze.js';
import type { MazeStepper } from '../../core/data/generators.js';
import { spearman } from '../../core/models/spearman.js';
import { createRng } from '../../core/random/rng.js';
import { subgoals } from './policy-trainer.js';
import type { Policy } from '../../core/exec/mission.js';

/** The learned policy (ψ and π_low on raw observations) with its latent size and tracking horizon. */
export interface Backbone extends Policy {
  readonly latentDim: number;
  readonly H_TD: number;
}

export interface EvalResult {
  readonly spearman: number;
  readonly pairs: number;
  readonly policy_success: number;
  readonly trials: number;
  readonly budget_steps: number;
  readonly epsilon: number;
  readonly mean_steps_to_reach: number;
}

export async function spearmanOnPairs(
  b: Backbone,
  layout: MazeLayout,
  heldOut: Dataset,
  pairs: number,
  seed: number,
): Promise<number> {
  const rng = createRng(seed);
  const n = heldOut.terminals.length,
    k = heldOut.obsDim,
    cols = layout.grid[0]!.length;
  const A = new Float32Array(pairs * k),
    G = new Float32Array(pairs * k);
  const geo: number[] = [];
  for (let p = 0; p < pairs;) {
    const i = rng.int(0, n - 1),
      j = rng.int(0, n - 1);
    const ci = cellAt(layout, heldOut.observations[i * k]!, heldOut.observations[i * k + 1]!);
    const cj = cellAt(layout, heldOut.observations[j * k]!, heldOut.observations[j * k + 1]!);
    if (!ci || !cj || layout.grid[ci.i]![ci.j] !== 0 || layout.grid[cj.i]![cj.j] !== 0) continue;
    A.set(heldOut.observations.subarray(i * k, i * k + k), p * k);
    G.set(heldOut.observations.subarray(j * k, j * k + k), p * k);
    geo.push(distancesFrom(layout, ci)[cj.i * cols + cj.j]!);
    p++;
  }
  const za = await b.embed(A, pairs),
    zg = await b.embed(G, pairs);
  const d = b.latentDim;
  const latent = geo.map((_, p) => {
    let s = 0;
    for (let q = 0; q < d; q++) s += (za[p * d + q]! - zg[p * d + q]!) ** 2;
    return Math.sqrt(s);
  });
  return spearman(latent, geo);
}

/** Where the executor trials start and what they aim at (defaults: the recorded state, its H_TD subgoal). */
export interface TrialOptions {
  /**
   * Aim at the state this many recorded steps later on the same trajectory instead of the
   * subgoal F(s, H_TD): a waypoint around corners, as the graph's nodes are to the executor.
   */
  readonly ahead?: number;
  /** Start at rest at the recorded state's position (the world's rest observation), as a mission starts. */
  readonly rest?: (x: number, y: number) => Float32Array;
  /**
   * Aim at ψ of the target's position at rest instead of the recorded target state's own latent, as a
   * mission's executor steers to a waypoint (core/exec/executor.ts, ExecParams.targets).
   */
  readonly goalAtRest?: (x: number, y: number) => Float32Array;
  /**
   * Reached within this task-space distance (m) of the target's position (columns 0 and 1), as a
   * mission accepts an ordinary waypoint, instead of within ε in latent space.
   */
  readonly radius_m?: number;
  /** Told every trial's outcome, for a study of where the executor misses (scripts/executor-trials.mjs). */
  readonly onTrial?: (t: TrialRecord) => void;
}

/** One executor trial: the held-out rows it started from and aimed at, and how it ended. */
export interface TrialRecord {
  /** The held-out row the trial started from, and the row of its target on the same trajectory. */
  readonly row: number;
  readonly target: number;
  /** The step the target was reached at; −1 when the budget ran out. */
  readonly reached: number;
  /** The closest the body came to the target in latent units, and its last observation. */
  readonly minLatent: number;
  readonly last: Float32Array;
}

/**
 * Trials start at held-out dataset states and aim at their own subgoal F(s, H_TD) along the same
 * trajectory (a waypoint known to be reachable at latent distance H_TD), or at the state `ahead`
 * steps later, from the state itself or from rest at its position.
 */
export async function policySuccess(
  b: Backbone,
  sim: MazeStepper,
  heldOut: Dataset,
  trials: number,
  seed: number,
  budget_steps: number,
  epsilon: number,
  opts: TrialOptions = {},
): Promise<{ success: number; meanSteps: number }> {
  const rng = createRng(seed);
  const n = heldOut.terminals.length,
    k = heldOut.obsDim,
    d = b.latentDim;
  const latent = await b.embed(heldOut.observations, n);
  const sg = subgoals(heldOut.terminals, latent, d, b.H_TD);
  // With `ahead`, the rows whose trajectory goes on that many steps.
  const farRows: number[] = [];
  if (opts.ahead !== undefined) {
    const ends = trajectoryEnds(heldOut.terminals);
    for (let i = 0; i < n; i++) if (i + opts.ahead <= ends[i]!) farRows.push(i);
    if (farRows.length === 0)
      throw new WitnessError('invalid-input', `--ahead ${opts.ahead}: no held-out trajectory is that many steps long`, {
        path: '--ahead',
      });
  }
  let ok = 0,
    steps = 0;
  for (let t = 0; t < trials; t++) {
    let i: number, j: number;
    if (opts.ahead !== undefined) {
      i = farRows[rng.int(0, farRows.length - 1)]!;
      j = i + opts.ahead;
    } else {
      const idx = rng.int(0, sg.rows.length - 1);
      i = sg.rows[idx]!;
      j = sg.targets[idx]!;
    }
    const goal =
      opts.goalAtRest !== undefined
        ? await b.embed(opts.goalAtRest(heldOut.observations[j * k]!, heldOut.observations[j * k + 1]!), 1)
        : latent.slice(j * d, j * d + d);
    const recorded = heldOut.observations.subarray(i * k, i * k + k);
    const start = opts.rest !== undefined ? opts.rest(recorded[0]!, recorded[1]!) : recorded;
    let state = sim.reset(rng.int(0, 2 ** 31 - 1), Array.from(start));
    let reached = false,
      reachedAt = -1,
      minLatent = Infinity;
    for (let step = 0; step < budget_steps; step++) {
      const obs = Float32Array.from(state);
      const z = await b.embed(obs, 1);
      const dir = new Float32Array(d);
      let len = 0;
      for (let q = 0; q < d; q++) {
        dir[q] = goal[q]! - z[q]!;
        len += dir[q]! ** 2;
      }
      len = Math.sqrt(len);
      minLatent = Math.min(minLatent, len);
      const near =
        opts.radius_m !== undefined
          ? Math.hypot(state[0]! - heldOut.observations[j * k]!, state[1]! - heldOut.observations[j * k + 1]!) <=
            opts.radius_m
          : len <= epsilon;
      if (near) {
        reached = true;
        reachedAt = step;
        steps += step;
        break;
      }
      for (let q = 0; q < d; q++) dir[q]! /= len;
      const a = await b.act(obs, dir, 1);
      state = sim.act(a);
    }
    if (reached) ok++;
    opts.onTrial?.({ row: i, target: j, reached: reachedAt, minLatent, last: Float32Array.from(state) });
  }
  return { success: ok / trials, meanSteps: ok > 0 ? steps / ok : NaN };
}
