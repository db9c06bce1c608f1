/**
 * The point mass as the generators drive it: a PD expert along shortest maze paths and an explorer
 * of random held directions. Moved here unchanged from generators.ts when the generators learned
 * other bodies: every random draw happens in the same order, so point-maze datasets stay byte for
 * byte what they were (test/core/data/generators.test.ts pins their hashes).
 */
import { type Cell, cellAt, cellCenter, distancesFrom, shortestPath } from '../world/maze.js';
import { type DataAgent, type Policy, type PolicyContext, clip1 } from './agent.js';

/** PD steering to the next cell centre on a shortest path, with Gaussian action noise. */
function expert({ layout, cells, rng, gauss, config: c }: PolicyContext): Policy {
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
    act: (s, out) => {
      let target = cellCenter(layout, path[k]!);
      if (Math.hypot(target.x - s[0]!, target.y - s[1]!) < (0.6 * layout.unit_m) / 2) {
        if (k + 1 < path.length) k++;
        else pickGoal(path[k]!);
        target = cellCenter(layout, path[k]!);
      }
      const ex = target.x - s[0]!,
        ey = target.y - s[1]!;
      let ax = 0.8 * ex - 0.3 * s[2]!,
        ay = 0.8 * ey - 0.3 * s[3]!;
      const norm = Math.hypot(ax, ay);
      if (norm > 1) {
        ax /= norm;
        ay /= norm;
      }
      out[0] = clip1(ax + c.noise * gauss());
      out[1] = clip1(ay + c.noise * gauss());
    },
  };
}

/** Random directions held for a few steps, with large noise. */
function explorer({ rng, gauss, config: c }: PolicyContext): Policy {
  let dir: [number, number] = [0, 0];
  let hold = 0;
  return {
    start: () => {
      hold = 0;
    },
    act: (_s, out) => {
      if (hold-- <= 0) {
        const a = rng.next() * 2 * Math.PI;
        dir = [Math.cos(a), Math.sin(a)];
        hold = rng.int(1, 10);
      }
      out[0] = clip1(dir[0] + c.noise * gauss());
      out[1] = clip1(dir[1] + c.noise * gauss());
    },
  };
}

/** The point mass: observation (x, y, vx, vy), action a force (fx, fy). */
export const POINT_AGENT: DataAgent = {
  name: 'point-mass',
  obsDim: 4,
  actDim: 2,
  defaults(kind) {
    switch (kind) {
      case 'navigate':
        return { episodeLength: 1000, noise: 0.2, maxCells: Infinity };
      case 'stitch':
        return { episodeLength: 200, noise: 0.2, maxCells: 4 };
      case 'explore':
        return { episodeLength: 500, noise: 1.0, maxCells: Infinity };
    }
  },
  expert,
  explorer,
};
