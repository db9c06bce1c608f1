/**
 * Offline dataset generators in the three OGBench regimes, for any body in a maze (its DataAgent,
 * agent.ts, supplies the expert and the explorer):
 * - navigate: a noisy expert travels between random cells along shortest maze paths;
 * - stitch:   short episodes between cells at most 4 cells apart (fragments to be stitched);
 * - explore:  highly noisy random directions with high coverage.
 * A body that falls over (the Ant on its back) ends its episode there; every fall and every stall
 * of the expert is counted in the dataset's report, with the rows where they happened.
 * Deterministic from the seed; pure (the simulator is injected).
 */
import type { Dataset } from './dataset.js';
import type { DatasetKind } from '../../contract/defaults.js';
import { type MazeLayout, cellAt, freeCells } from '../world/maze.js';
import { createRng } from '../random/rng.js';
import { gaussian } from '../random/gaussian.js';
import type { DataAgent, DataEvent, GeneratorConfig, Policy } from './agent.js';
import { POINT_AGENT } from './point-agent.js';

export type { GeneratorConfig } from './agent.js';
/**
 * Bumped whenever the same configuration would generate other point-maze data (caches of generated
 * data key on it). Other bodies record their expert's version in the configuration (agentVersion).
 */
export const GENERATOR_VERSION = 1;

/** The simulator as the generators see it: its body, reset to a seeded start, one control step. */
export interface MazeStepper {
  readonly layout: MazeLayout;
  readonly agent: DataAgent;
  reset(seed: number, state?: readonly number[]): Float64Array;
  act(action: ArrayLike<number>): Float64Array;
}

/** OGBench's settings for a regime, for the point mass unless another body (and its layout) is given. */
export function defaultConfig(
  kind: DatasetKind,
  steps: number,
  seed: number,
  agent: DataAgent = POINT_AGENT,
  layout?: MazeLayout,
): GeneratorConfig {
  return { kind, steps, seed, ...agent.defaults(kind, layout) };
}

export type Progress = (done: number, total: number) => void;

/** Events whose rows a report keeps, at most (the counts are always whole). */
const MAX_EVENT_ROWS = 1000;

/** What happened while recording: episodes, falls and stalls, with (the first 1000 of) their rows. */
interface GenerationReport {
  readonly episodes: number;
  readonly flips: number;
  readonly stalls: number;
  readonly flipRows: number[];
  readonly stallRows: number[];
}

export function generateDataset(
  sim: MazeStepper,
  worldId: string,
  config: GeneratorConfig,
  progress?: Progress,
): Dataset {
  const g = datasetGenerator(sim, worldId, config, progress);
  while (!g.run(Infinity));
  return g.result();
}

/**
 * generateDataset in slices, so that a caller can hand control back between them (a process that
 * must answer Ctrl-C while it generates a million Ant transitions, many minutes): `run(rows)`
 * simulates at least `rows` more rows (whole episodes' worth of work, cut at row boundaries) and
 * says whether the dataset is complete; `result()` returns it once it is. The rows, and so the
 * bytes, are the same however the work is sliced.
 */
export function datasetGenerator(
  sim: MazeStepper,
  worldId: string,
  config: GeneratorConfig,
  progress?: Progress,
): { run(rows: number): boolean; result(): Dataset } {
  if (!Number.isInteger(config.steps) || config.steps < 1)
    throw new RangeError(`steps must be a positive integer, got ${config.steps}`);
  if (!Number.isInteger(config.episodeLength) || config.episodeLength < 1)
    throw new RangeError(`episodeLength must be a positive integer, got ${config.episodeLength}`);
  const agent = sim.agent,
    od = agent.obsDim,
    ad = agent.actDim;
  const rng = createRng(config.seed);
  const gauss = gaussian(rng);
  const n = config.steps;
  const observations = new Float32Array(n * od);
  const actions = new Float32Array(n * ad);
  const terminals = new Uint8Array(n);
  const action = new Float64Array(ad);
  const report = { episodes: 0, flips: 0, stalls: 0, flipRows: [] as number[], stallRows: [] as number[] };
  let t = 0;
  const note = (e: DataEvent): void => {
    if (e === 'flip') report.flips++;
    else report.stalls++;
    const rows = e === 'flip' ? report.flipRows : report.stallRows;
    if (rows.length < MAX_EVENT_ROWS) rows.push(t);
  };
  const ctx = { layout: sim.layout, cells: freeCells(sim.layout), rng, gauss, config, note };
  const policy: Policy = config.kind === 'explore' ? agent.explorer(ctx) : agent.expert(ctx);
  // The episode under way: its state and where it ends (null between episodes).
  let state: Float64Array | null = null;
  let end = 0;
  let done = false;
  return {
    run(rows: number): boolean {
      if (done) return true;
      const stop = Math.min(n, t + rows);
      while (t < stop) {
        if (state === null) {
          state = sim.reset(rng.int(0, 2 ** 31 - 1));
          policy.start(state);
          report.episodes++;
          end = Math.min(n, t + config.episodeLength);
        }
        policy.act(state, action);
        observations.set(state, t * od);
        actions.set(action, t * ad);
        state = sim.act(action);
        if ((t & 4095) === 0) progress?.(t, n);
        // A body on its back cannot go on: the episode ends at the row that tipped it over.
        const fell = agent.fallen?.(state) != null;
        if (fell) note('flip');
        t++;
        if (fell || t >= end) {
          terminals[t - 1] = 1;
          state = null;
        }
      }
      if (t >= n) {
        progress?.(n, n);
        done = true;
      }
      return done;
    },
    result(): Dataset {
      if (!done) throw new Error(`the dataset is not complete: ${t} of ${n} rows`);
      const generator = { ...config, maxCells: Number.isFinite(config.maxCells) ? config.maxCells : null };
      // The point mass cannot fall or stall: its datasets carry no report, as before bodies had one.
      const extra = agent === POINT_AGENT ? {} : { report: { ...report } satisfies GenerationReport };
      return {
        worldId,
        observations,
        actions,
        terminals,
        obsDim: od,
        actDim: ad,
        generator,
        seed: config.seed,
        ...extra,
      };
    },
  };
}

/** Fraction of free cells that some observation lies in, and the per-cell visit counts. */
export function cellCoverage(
  layout: MazeLayout,
  observations: Float32Array,
  obsDim: number,
): { covered: number; free: number; fraction: number } {
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
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const bw = layout.unit_m / binsPerCell;
  const nb = cols * binsPerCell;
  const seen = new Uint8Array(rows * binsPerCell * nb);
  const x0 = -layout.offset_m - layout.unit_m / 2,
    y0 = -layout.offset_m - layout.unit_m / 2;
  for (let r = 0; r < observations.length / obsDim; r++) {
    const bx = Math.floor((observations[r * obsDim]! - x0) / bw),
      by = Math.floor((observations[r * obsDim + 1]! - y0) / bw);
    if (bx >= 0 && by >= 0 && bx < nb && by < rows * binsPerCell) seen[by * nb + bx] = 1;
  }
  let covered = 0,
    total = 0;
  for (let by = 0; by < rows * binsPerCell; by++) {
    for (let bx = 0; bx < nb; bx++) {
      if (layout.grid[Math.floor(by / binsPerCell)]![Math.floor(bx / binsPerCell)] !== 0) continue;
      total++;
      covered += seen[by * nb + bx]!;
    }
  }
  return covered / total;
}
