/**
 * Counted trials of the Ant's scripted expert, shared by the tests and `witness bench ant`: random
 * waypoints in an open arena (the gait alone), and start–goal pairs through a maze (the navigator).
 * Action noise is added here, from the trial's own seed, as the dataset generators add it. Every
 * outcome is counted: reached, fell on its back (flip), ran out of steps (timeout), and the stalls
 * the navigator reported on the way. Pure: the simulator is injected.
 */
import { type MazeLayout, cellCenter, distancesFrom, freeCells } from '../world/maze.js';
import { createRng } from '../random/rng.js';
import { gaussian } from '../random/gaussian.js';
import { clip1 } from './agent.js';
import { ANT_ACT_DIM, antRestPose } from './ant-agent.js';
import { AntGait, DEFAULT_GAIT, type GaitParams, antUprightness } from './ant-gait.js';
import { AntNavigator } from './ant-navigator.js';

/** The simulator as the trials see it (AntMazeSim). */
export interface AntStepper {
  readonly layout: MazeLayout;
  reset(seed: number, state?: readonly number[]): Float64Array;
  act(action: ArrayLike<number>): Float64Array;
}

export interface TrialCounts {
  readonly trials: number;
  readonly reached: number;
  readonly flips: number;
  readonly timeouts: number;
  readonly stalls: number;
  /** Control steps each reached trial took, in trial order. */
  readonly steps: readonly number[];
  /** Straight-line metres per second over the reached trials. */
  readonly speed_m_s: number;
}

/** A square arena of n × n free cells inside one ring of wall (the open space of the gait checks). */
export function openArena(n: number, unit_m = 4): MazeLayout {
  const grid = Array.from({ length: n + 2 }, (_, i) =>
    Array.from({ length: n + 2 }, (_, j) => (i === 0 || j === 0 || i === n + 1 || j === n + 1 ? 1 : 0)),
  );
  return { id: `open-${n}`, grid, unit_m, offset_m: unit_m };
}

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function noisy(out: Float64Array, noise: number, gauss: () => number): Float64Array {
  if (noise > 0) for (let k = 0; k < ANT_ACT_DIM; k++) out[k] = clip1(out[k]! + noise * gauss());
  return out;
}

/**
 * Waypoints 2–4 m apart in random directions, each to be reached within 0.5 m in `budget` steps,
 * in an open arena (openArena, at least 3 × 3 cells; the same start for both coordinates). After a flip the Ant is set
 * back on its feet at the centre; after a timeout it walks on to the next waypoint from where it is.
 */
export function openSpaceTrials(
  sim: AntStepper,
  o: { waypoints: number; noise: number; seed: number; budget?: number; gait?: GaitParams },
): TrialCounts {
  const budget = o.budget ?? 300;
  const rng = createRng(o.seed),
    gauss = gaussian(rng);
  const gait = new AntGait(o.gait ?? DEFAULT_GAIT);
  // Free space spans the inner cells; waypoints keep 3 m from the walls.
  const u = sim.layout.unit_m,
    n = sim.layout.grid.length - 2,
    x0 = u - sim.layout.offset_m - u / 2;
  const lo = x0 + 3,
    hi = x0 + n * u - 3,
    centre = x0 + (n * u) / 2;
  const out = new Float64Array(ANT_ACT_DIM);
  let s = sim.reset(o.seed, [centre, centre]);
  gait.start(s);
  let reached = 0,
    flips = 0,
    timeouts = 0,
    metres = 0,
    secs = 0;
  const steps: number[] = [];
  for (let w = 0; w < o.waypoints; w++) {
    const a = rng.next() * 2 * Math.PI,
      r = 2 + 2 * rng.next();
    const tx = Math.min(hi, Math.max(lo, s[0]! + r * Math.cos(a))),
      ty = Math.min(hi, Math.max(lo, s[1]! + r * Math.sin(a)));
    const from = Math.hypot(tx - s[0]!, ty - s[1]!);
    let k = 0,
      fell = false;
    for (; k < budget && Math.hypot(tx - s[0]!, ty - s[1]!) >= 0.5; k++) {
      s = sim.act(noisy(gait.act(s, tx - s[0]!, ty - s[1]!, out), o.noise, gauss));
      if (antUprightness(s) < 0) {
        fell = true;
        break;
      }
    }
    if (fell) {
      flips++;
      s = sim.reset(o.seed + w + 1, [centre, centre]);
      gait.start(s);
    } else if (k >= budget) timeouts++;
    else {
      reached++;
      steps.push(k);
      metres += from;
      secs += k * 0.05;
    }
  }
  return { trials: o.waypoints, reached, flips, timeouts, stalls: 0, steps, speed_m_s: secs > 0 ? metres / secs : 0 };
}

/**
 * Start–goal pairs of distinct free cells drawn at random (a random heading at the start), each
 * walked by the navigator until it is within 1 m of the goal cell's centre, it falls, or `budget`
 * steps pass. Stalls are counted; the navigator keeps its goal through them.
 */
export function mazePairTrials(
  sim: AntStepper,
  o: { pairs: number; noise: number; seed: number; budget?: number; gait?: GaitParams },
): TrialCounts {
  const budget = o.budget ?? 2000;
  const rng = createRng(o.seed),
    gauss = gaussian(rng);
  const nav = new AntNavigator(sim.layout, o.gait ?? DEFAULT_GAIT);
  const cells = freeCells(sim.layout),
    cols = sim.layout.grid[0]!.length;
  const out = new Float64Array(ANT_ACT_DIM);
  let reached = 0,
    flips = 0,
    timeouts = 0,
    stalls = 0,
    metres = 0,
    secs = 0;
  const steps: number[] = [];
  for (let p = 0; p < o.pairs; p++) {
    const start = rng.pick(cells);
    const goal = rng.pick(cells.filter((c) => c.i !== start.i || c.j !== start.j));
    const a = cellCenter(sim.layout, start);
    let s = sim.reset(rng.int(0, 2 ** 31 - 1), Array.from(antRestPose(a.x, a.y, (rng.next() * 2 - 1) * Math.PI)));
    nav.start(s, goal);
    let k = 0,
      fell = false;
    for (; k < budget && !nav.reached(s); k++) {
      if (nav.act(s, out) === 'stall') stalls++;
      s = sim.act(noisy(out, o.noise, gauss));
      if (antUprightness(s) < 0) {
        fell = true;
        break;
      }
    }
    if (fell) flips++;
    else if (k >= budget) timeouts++;
    else {
      reached++;
      steps.push(k);
      metres += distancesFrom(sim.layout, start)[goal.i * cols + goal.j]! * sim.layout.unit_m;
      secs += k * 0.05;
    }
  }
  return { trials: o.pairs, reached, flips, timeouts, stalls, steps, speed_m_s: secs > 0 ? metres / secs : 0 };
}
