/**
 * The Ant simulator measuring itself: raw simulation steps per second (the Ant standing, no
 * control) and control steps per second (frame skip 5, the scripted gait walking toward goals, its
 * own cost included) in an open arena — the baseline, no inner walls — and in each Ant maze.
 */
import { ANT_WORLDS } from '../../contract/defaults.js';
import { antMazeMjcf } from '../../core/world/ant-mjcf.js';
import { type MazeLayout, cellCenter, freeCells } from '../../core/world/maze.js';
import { createRng } from '../../core/random/rng.js';
import { ANT_ACT_DIM } from '../../core/data/ant-agent.js';
import { AntNavigator } from '../../core/data/ant-navigator.js';
import { openArena } from '../../core/data/ant-trials.js';
import { AntMazeSim } from './antmaze.js';

export interface AntRate {
  readonly scene: string;
  readonly geoms: number;
  readonly raw: number;
  readonly control: number;
}

function rates(sim: AntMazeSim, simSteps: number): { raw: number; control: number } {
  const cells = freeCells(sim.layout);
  const at = cellCenter(sim.layout, cells[0]!);
  const zero = new Float64Array(ANT_ACT_DIM);
  sim.reset(1, [at.x, at.y]);
  sim.rawSteps(2000, zero); // warm-up
  let raw = 0;
  for (let rep = 0; rep < 3; rep++) {
    sim.reset(1, [at.x, at.y]);
    const t0 = performance.now();
    sim.rawSteps(simSteps, zero);
    raw = Math.max(raw, simSteps / ((performance.now() - t0) / 1000));
  }
  // Walking between random cells, as the dataset expert does (no noise: rates, not robustness).
  const rng = createRng(2);
  const nav = new AntNavigator(sim.layout);
  const out = new Float64Array(ANT_ACT_DIM);
  const m = Math.max(1000, Math.floor(simSteps / 5));
  let s = sim.reset(2, [at.x, at.y]);
  nav.start(s, rng.pick(cells));
  const t1 = performance.now();
  for (let k = 0; k < m; k++) {
    if (nav.reached(s)) nav.setGoal(rng.pick(cells));
    nav.act(s, out);
    s = sim.act(out);
  }
  return { raw, control: m / ((performance.now() - t1) / 1000) };
}

/** Steps per second: the open arena first (the baseline), then each Ant maze. */
export async function antMazeRates(simSteps: number, progress?: (label: string) => void): Promise<AntRate[]> {
  const scenes: { scene: string; id: string; layout?: MazeLayout }[] = [
    { scene: 'open arena, 10×10 cells (baseline)', id: 'antmaze-medium', layout: openArena(10) },
    ...ANT_WORLDS.map((id) => ({ scene: id, id })),
  ];
  const rows: AntRate[] = [];
  for (const { scene, id, layout } of scenes) {
    progress?.(scene);
    const sim = await AntMazeSim.create(
      id,
      {},
      layout !== undefined ? { text: antMazeMjcf(layout), source: layout.id, layout } : undefined,
    );
    try {
      rows.push({ scene, geoms: sim.geoms, ...rates(sim, simSteps) });
    } finally {
      sim.close();
    }
  }
  return rows;
}
