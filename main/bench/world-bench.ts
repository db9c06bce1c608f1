/**
 * The world benchmark: simulator steps per second per scene (against a bare point mass with no
 * walls, in the same process), dataset generation time, and the state coverage of each regime.
 */
import { MAZE_WORLDS } from '../contract/defaults.js';
import { DATASET_KINDS } from '../contract/defaults.js';
import { binCoverage, cellCoverage, defaultConfig, generateDataset } from '../core/data/generators.js';
import { worldEntry } from '../backends/catalogue.js';
import { pointMazeRates } from '../backends/mujoco/pointmaze-bench.js';
import { fmt } from './stats.js';

export interface WorldBenchOptions {
  readonly simSteps: number;
  readonly datasetSteps: number;
  readonly navigateMediumSteps: number;
  readonly progress?: (label: string) => void;
}

export async function runWorldBench(o: WorldBenchOptions): Promise<string> {
  const lines: string[] = [];
  // Baseline: the same point mass in an open 3×3 room (one free cell, no inner walls).
  const [base, ...mazes] = await pointMazeRates(o.simSteps, o.progress);
  lines.push('| scene | sim steps/s | vs open room | control steps/s (5 sim steps, noise) |', '|---|---|---|---|');
  lines.push(`| open room (baseline) | ${fmt(base!.raw, 0)} | 1.00 | ${fmt(base!.control, 0)} |`);
  for (const r of mazes)
    lines.push(`| ${r.scene} | ${fmt(r.raw, 0)} | ${fmt(r.raw / base!.raw, 2)} | ${fmt(r.control, 0)} |`);
  lines.push(
    '',
    `| world | regime | transitions | seconds | transitions/s | free cells covered | 1 m² bins covered |`,
    '|---|---|---|---|---|---|---|',
  );
  for (const id of MAZE_WORLDS) {
    const world = worldEntry(id);
    const layout = world.layout!;
    const sim = await world.stepper!();
    for (const kind of DATASET_KINDS) {
      const steps = id === 'pointmaze-medium' && kind === 'navigate' ? o.navigateMediumSteps : o.datasetSteps;
      o.progress?.(`${id} ${kind}`);
      const t0 = performance.now();
      const d = generateDataset(sim, id, defaultConfig(kind, steps, 1));
      const s = (performance.now() - t0) / 1000;
      const cov = cellCoverage(layout, d.observations, d.obsDim);
      const bins = binCoverage(layout, d.observations, d.obsDim);
      lines.push(
        `| ${id} | ${kind} | ${steps} | ${fmt(s, 1)} | ${fmt(steps / s, 0)} | ${cov.covered}/${cov.free} (${fmt(cov.fraction * 100, 0)}%) | ${fmt(bins * 100, 0)}% |`,
      );
    }
    sim.close();
  }
  return lines.join('\n');
}
