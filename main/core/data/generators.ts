/**
 * Offline dataset generators in the three OGBench regimes, over any point-maze stepper:
 * - navigate: a noisy expert travels between random cells along shortest maze paths;
 * - stitch:   short episodes between cells at most 4 cells apart (fragments to be stitched);
 * - explore:  highly noisy random actions with high coverage.
 * Deterministic from the seed; pure (the simulator is injected).
 */
import type { Dataset } from './dataset.js';
import type { DatasetKind } from '../../contract/defaults.js';
import { type Cell, type MazeLayout, cellAt, cellCenter, distancesFrom, freeCells, shortestPath } from '../world/maze.js';
import { createRng, type Rng } from '../random/rng.js';


/** Bumped whenever the same configuration would generate other data (caches of generated data key on it). */
export const GENERATOR_VERSION = 1;

/** The simulator as the generators see it: reset to a seeded start, step with a 2-D action. */
export interface MazeStepper {
  readonly layout: MazeLayout;
  reset(seed: number, state?: readonly number[]): Float64Array;
  step(ax: number, ay: number): Float64Array;
}

export interface GeneratorConfig {
  readonly kind: DatasetKind;
  /** Transitions to record. */
  readonly steps: number;
  readonly seed: number;
  /** Steps per episode (the last one is terminal). */
  readonly episodeLength: number;
  /** Standard deviation of the expert's own action noise (navigate, stitch) or of explore's actions. */
  readonly noise: number;
  /** Most cells between start and goal (stitch). */
  readonly maxCells: number;
}

export function defaultConfig(kind: DatasetKind, steps: number, seed: number): GeneratorConfig {
  switch (kind) {
    case 'navigate': return { kind, steps, seed, episodeLength: 1000, noise: 0.2, maxCells: Infinity };
    case 'stitch': return { kind, steps, seed, episodeLength: 200, noise: 0.2, maxCells: 4 };
    case 'explore': return { kind, steps, seed, episodeLength: 500, noise: 1.0, maxCells: Infinity };
  }
}

export type Progress = (done: number, total: number) => void;

export function generateDataset(sim: MazeStepper, worldId: string, config: GeneratorConfig, progress?: Progress): Dataset {
  if (!Number.isInteger(config.steps) || config.steps < 1) throw new RangeError(`steps must be a positive integer, got ${config.steps}`);
  if (!Number.isInteger(config.episodeLength) || config.episodeLength < 1) throw new RangeError(`episodeLength must be a positive integer, got ${config.episodeLength}`);
  const rng = createRng(config.seed);
  const gauss = gaussian(rng);
  const n = config.steps;
  const observations = new Float32Array(n * 4);
  const actions = new Float32Array(n * 2);
  const terminals = new Uint8Array(n);
  const cells = freeCells(sim.layout);
  const policy = config.kind === 'explore' ? explorer(rng, gauss, config) : expert(sim.layout, cells, rng, gauss, config);
  let t = 0;
  while (t < n) {
    let state = sim.reset(rng.int(0, 2 ** 31 - 1));
    policy.start(state);
    const end = Math.min(n, t + config.episodeLength);
    for (; t < end; t++) {
      const [ax, ay] = policy.act(state);
      observations.set(state, t * 4);
      actions[t * 2] = ax;
      actions[t * 2 + 1] = ay;
      state = sim.step(ax, ay);
      if ((t & 4095) === 0) progress?.(t, n);
    }
    terminals[t - 1] = 1;
  }
  progress?.(n, n);
  return { worldId, observations, actions, terminals, obsDim: 4, actDim: 2, generator: { ...config, maxCells: Number.isFinite(config.maxCells) ? config.maxCells : null }, seed: config.seed };
}

interface Policy {
  start(state: Float64Array): void;
  act(state: Float64Array): [number, number];
}

/** PD steering to the next cell centre on a shortest path, with Gaussian action noise. */
function expert(layout: MazeLayout, cells: Cell[], rng: Rng, gauss: () => number, c: GeneratorConfig): Policy {
  let path: Cell[] = [];
  let k = 0;
  const pickGoal = (from: Cell): void => {
    const cols = layout.grid[0]!.length;
    const d = distancesFrom(layout, from);
    const options = cells.filter((x) => {
      const dist = d[x.i * cols + x.j]!;
      return dist > 0 && dist <= c.maxCells;
    });
    const goal = options.length > 0 ? rng.pick(options) : from;
    path = shortestPath(layout, from, goal) ?? [from];
    k = Math.min(1, path.length - 1);
  };
  const here = (s: Float64Array): Cell => cellAt(layout, s[0]!, s[1]!) ?? cells[0]!;
  return {
    start: (s) => pickGoal(here(s)),
    act: (s) => {
      let target = cellCenter(layout, path[k]!);
      if (Math.hypot(target.x - s[0]!, target.y - s[1]!) < 0.6 * layout.unit_m / 2) {
        if (k + 1 < path.length) k++;
        else pickGoal(path[k]!);
        target = cellCenter(layout, path[k]!);
      }
      const ex = target.x - s[0]!, ey = target.y - s[1]!;
      let ax = 0.8 * ex - 0.3 * s[2]!, ay = 0.8 * ey - 0.3 * s[3]!;
      const norm = Math.hypot(ax, ay);
      if (norm > 1) {
        ax /= norm;
        ay /= norm;
      }
      return [clip(ax + c.noise * gauss()), clip(ay + c.noise * gauss())];
    },
  };
}

/** Random directions held for a few steps, with large noise. */
function explorer(rng: Rng, gauss: () => number, c: GeneratorConfig): Policy {
  let dir: [number, number] = [0, 0];
  let hold = 0;
  return {
    start: () => { hold = 0; },
    act: () => {
      if (hold-- <= 0) {
        const a = rng.next() * 2 * Math.PI;
        dir = [Math.cos(a), Math.sin(a)];
        hold = rng.int(1, 10);
      }
      return [clip(dir[0] + c.noise * gauss()), clip(dir[1] + c.noise * gauss())];
    },
  };
}

function clip(x: number): number {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}

/** Standard normals from a seeded generator (Box–Muller). */
export function gaussian(rng: Rng): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = rng.next();
    const v = rng.next();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** Fraction of free cells that some observation lies in, and the per-cell visit counts. */
export function cellCoverage(layout: MazeLayout, observations: Float32Array, obsDim: number): { covered: number; free: number; fraction: number } {
  const cols = layout.grid[0]!.length;
  const seen = new Uint8Array(layout.grid.length * cols);
  for (let r = 0; r < observations.length / obsDim; r++) {
    const c = cellAt(layout, observations[r * obsDim]!, observations[r * obsDim + 1]!);
    if (c && layout.grid[c.i]![c.j] === 0) seen[c.i * cols + c.j] = 1;
  }
  const free = freeCells(layout).length;
  const covered = seen.reduce((a, b) => a + b, 0);
  return { covered, free, fraction: covered / free };
}

/**
 * Finer state coverage: free space cut into binsPerCell² squares per cell, and the fraction of
 * them some observation falls in (cell coverage saturates quickly; this tells regimes apart).
 */
export function binCoverage(layout: MazeLayout, observations: Float32Array, obsDim: number, binsPerCell = 4): number {
  const rows = layout.grid.length, cols = layout.grid[0]!.length;
  const bw = layout.unit_m / binsPerCell;
  const nb = cols * binsPerCell;
  const seen = new Uint8Array(rows * binsPerCell * nb);
  const x0 = -layout.offset_m - layout.unit_m / 2, y0 = -layout.offset_m - layout.unit_m / 2;
  for (let r = 0; r < observations.length / obsDim; r++) {
    const bx = Math.floor((observations[r * obsDim]! - x0) / bw), by = Math.floor((observations[r * obsDim + 1]! - y0) / bw);
    if (bx >= 0 && by >= 0 && bx < nb && by < rows * binsPerCell) seen[by * nb + bx] = 1;
  }
  let covered = 0, total = 0;
  for (let by = 0; by < rows * binsPerCell; by++) {
    for (let bx = 0; bx < nb; bx++) {
      if (layout.grid[Math.floor(by / binsPerCell)]![Math.floor(bx / binsPerCell)] !== 0) continue;
      total++;
      covered += seen[by * nb + bx]!;
    }
  }
  return covered / total;
}
