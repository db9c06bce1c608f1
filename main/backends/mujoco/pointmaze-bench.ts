/**
 * The point-maze simulator measuring itself: raw simulation steps per second and control steps per
 * second (frame skip, action noise) in each maze and, as the baseline in the same process, in an
 * open room with no inner walls.
 */
import { pointMazeMjcf } from '../../core/world/mjcf.js';
import { MAZE_WORLDS } from '../../contract/defaults.js';
import { PointMazeSim } from './pointmaze.js';

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

/** Steps per second: the open room first (the baseline), then each maze. */
export async function pointMazeRates(
  simSteps: number,
  progress?: (label: string) => void,
): Promise<{ scene: string; raw: number; control: number }[]> {
  const open = {
    id: 'open',
    grid: [
      [1, 1, 1],
      [1, 0, 1],
      [1, 1, 1],
    ],
    unit_m: 4,
    offset_m: 4,
  };
  const bare = await PointMazeSim.create('pointmaze-medium', {}, { text: pointMazeMjcf(open), source: 'open-room' });
  progress?.('baseline');
  const rows = [{ scene: 'open room', ...(await stepsPerSecond(bare, simSteps)) }];
  bare.close();
  for (const id of MAZE_WORLDS) {
    progress?.(id);
    const sim = await PointMazeSim.create(id);
    rows.push({ scene: id, ...(await stepsPerSecond(sim, simSteps)) });
    sim.close();
  }
  return rows;
}
