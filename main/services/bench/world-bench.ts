/**
 * The world benchmark: simulator steps per second per scene (against a bare point mass with no
 * walls, in the same process), dataset generation time, and the state coverage of each regime.
 */
import { PointMazeSim, POINTMAZE_IDS } from '../../backends/mujoco/pointmaze.js';
import { MAZES } from '../../core/world/maze.js';
import { pointMazeMjcf } from '../../core/world/mjcf.js';
import { DATASET_KINDS, binCoverage, cellCoverage, defaultConfig, generateDataset } from '../../core/data/generators.js';
import { fmt } from './stats.js';

export interface WorldBenchOptions {
  readonly simSteps: number;
  readonly datasetSteps: number;
  readonly navigateMediumSteps: number;
  readonly progress?: (label: string) => void;
}

async function stepsPerSecond(sim: PointMazeSim, n: number): Promise<{ raw: number; control: number }> {
  sim.reset(1, [0, 0, 0, 0]);
  sim.rawSteps(2000, 0.3, 0.7); // warm-up
  let best = 0;
  for (let rep = 0; rep < 3; rep++) {
    sim.reset(1, [0, 0, 0, 0]);
    const t0 = performance.now();
    sim.rawSteps(n, 0.3, 0.7);
    best = Math.max(best, n / ((performance.now() - t0) / 1000));
  }
  const m = Math.max(1000, Math.floor(n / 5));
  sim.reset(2);
  const t1 = performance.now();
  for (let k = 0; k < m; k++) sim.step(Math.sin(k / 40), Math.cos(k / 60));
  return Promise.resolve({ raw: best, control: m / ((performance.now() - t1) / 1000) });
}

export async function runWorldBench(o: WorldBenchOptions): Promise<string> {
  const lines: string[] = [];
  // Baseline: the same point mass in an open 3×3 room (one free cell, no inner walls).
  const open = { id: 'open', grid: [[1, 1, 1], [1, 0, 1], [1, 1, 1]], unit_m: 4, offset_m: 4 };
  const bare = await PointMazeSim.create('pointmaze-medium', {}, { text: pointMazeMjcf(open), source: 'open-room' });
  o.progress?.('baseline');
  const base = await stepsPerSecond(bare, o.simSteps);
  bare.close();
  lines.push('| scene | sim steps/s | vs open room | control steps/s (5 sim steps, noise) |', '|---|---|---|---|');
  lines.push(`| open room (baseline) | ${fmt(base.raw, 0)} | 1.00 | ${fmt(base.control, 0)} |`);
  for (const id of POINTMAZE_IDS) {
    o.progress?.(id);
    const sim = await PointMazeSim.create(id);
    const r = await stepsPerSecond(sim, o.simSteps);
    lines.push(`| ${id} | ${fmt(r.raw, 0)} | ${fmt(r.raw / base.raw, 2)} | ${fmt(r.control, 0)} |`);
    sim.close();
  }
  lines.push('', `| world | regime | transitions | seconds | transitions/s | free cells covered | 1 m² bins covered |`, '|---|---|---|---|---|---|---|');
  for (const id of POINTMAZE_IDS) {
    const sim = await PointMazeSim.create(id);
    for (const kind of DATASET_KINDS) {
      const steps = id === 'pointmaze-medium' && kind === 'navigate' ? o.navigateMediumSteps : o.datasetSteps;
      o.progress?.(`${id} ${kind}`);
      const t0 = performance.now();
      const d = generateDataset(sim, id, defaultConfig(kind, steps, 1));
      const s = (performance.now() - t0) / 1000;
      const layout = MAZES[id.replace('pointmaze-', '') as keyof typeof MAZES];
      const cov = cellCoverage(layout, d.observations, d.obsDim);
      const bins = binCoverage(layout, d.observations, d.obsDim);
      lines.push(`| ${id} | ${kind} | ${steps} | ${fmt(s, 1)} | ${fmt(steps / s, 0)} | ${cov.covered}/${cov.free} (${fmt(cov.fraction * 100, 0)}%) | ${fmt(bins * 100, 0)}% |`);
    }
    sim.close();
  }
  return lines.join('\n');
}
