/**
 * The Ant as the generators drive it (OGBench's regimes, our own expert): the navigator's trot
 * (ant-navigator.ts) toward random goal cells, with Gaussian action noise; the explorer walks the
 * same gait in a random direction redrawn every 10 steps, with large noise. The Ant can fall on its
 * back (`fallen`: the episode ends), and the expert reports a stall when the navigator does (it
 * then picks another goal).
 */
import type { DatasetKind } from '../../contract/defaults.js';
import { type Cell, type MazeLayout, cellAt, distancesFrom } from '../world/maze.js';
import { type DataAgent, type Policy, type PolicyContext, clip1 } from './agent.js';
import { AntGait, antUprightness } from './ant-gait.js';
import { AntNavigator } from './ant-navigator.js';

export const ANT_OBS_DIM = 29;
export const ANT_ACT_DIM = 8;
/** Bumped whenever the Ant's expert or explorer would record other data for the same configuration. */
export const ANT_AGENT_VERSION = 2;

/**
 * The Ant at rest with no control: the pose it settles into from its initial pose (its ankles sink
 * to their 30° stop and hold it there, the torso 0.37 m up), measured once; the backend's tests check
 * the simulator still settles there and stays. Torso height and ankle bend; hips straight, heading +x.
 */
export const ANT_REST = { z: 0.3725, ankle: 0.5236 } as const;
/** The ankles' range (magnitude, rad): 30° to 70°. */
export const ANKLE_RANGE = [Math.PI / 6, (7 * Math.PI) / 18] as const;

/** The whole 29-D state of the Ant at rest at (x, y), heading `yaw` (rad): qpos then zero velocities. */
export function antRestPose(x: number, y: number, yaw = 0): Float64Array {
  const a = ANT_REST.ankle;
  const s = new Float64Array(ANT_OBS_DIM);
  s.set([x, y, ANT_REST.z, Math.cos(yaw / 2), 0, 0, Math.sin(yaw / 2), 0, a, 0, -a, 0, -a, 0, a]);
  return s;
}

/** The observation of the Ant at rest at (x, y): what ψ embeds for a position. */
export const antRestObservation = (x: number, y: number): Float32Array => Float32Array.from(antRestPose(x, y));

/** The explorer keeps a direction this many steps (OGBench's explore regime). */
const EXPLORE_HOLD = 10;

function expert({ layout, cells, rng, gauss, config: c, note }: PolicyContext): Policy {
  const nav = new AntNavigator(layout);
  const cols = layout.grid[0]!.length;
  const pickGoal = (from: Cell): Cell => {
    const d = distancesFrom(layout, from);
    const options = cells.filter((x) => {
      const dist = d[x.i * cols + x.j]!;
      return dist > 0 && dist <= c.maxCells;
    });
    return options.length > 0 ? rng.pick(options) : from;
  };
  return {
    start: (s) => nav.start(s, pickGoal(cellAt(layout, s[0]!, s[1]!) ?? cells[0]!)),
    act: (s, out) => {
      if (nav.reached(s)) nav.setGoal(pickGoal(nav.goal));
      if (nav.act(s, out) === 'stall') {
        // Recorded, and the expert gives that goal up for another from where it is stuck.
        note('stall');
        nav.setGoal(pickGoal(nav.cellOf(s)));
      }
      for (let k = 0; k < ANT_ACT_DIM; k++) out[k] = clip1(out[k]! + c.noise * gauss());
    },
  };
}

function explorer({ rng, gauss, config: c }: PolicyContext): Policy {
  const gait = new AntGait();
  let dx = 0,
    dy = 0,
    step = 0;
  return {
    start: (s) => {
      gait.start(s);
      step = 0;
    },
    act: (s, out) => {
      if (step++ % EXPLORE_HOLD === 0) {
        const a = rng.next() * 2 * Math.PI;
        dx = Math.cos(a);
        dy = Math.sin(a);
      }
      gait.act(s, dx, dy, out);
      for (let k = 0; k < ANT_ACT_DIM; k++) out[k] = clip1(out[k]! + c.noise * gauss());
    },
  };
}

/** The Ant: observation qpos (15) and qvel (14), x and y first; action 8 joint torques. */
export const ANT_AGENT: DataAgent = {
  name: 'ant',
  obsDim: ANT_OBS_DIM,
  actDim: ANT_ACT_DIM,
  defaults(kind: DatasetKind, layout?: MazeLayout) {
    const v = { agent: 'ant', agentVersion: ANT_AGENT_VERSION };
    switch (kind) {
      // OGBench: 1000-step navigate episodes, 2000 in the giant maze; 200-step stitch fragments.
      case 'navigate':
        return { episodeLength: layout?.id === 'giant' ? 2000 : 1000, noise: 0.2, maxCells: Infinity, ...v };
      case 'stitch':
        return { episodeLength: 200, noise: 0.2, maxCells: 4, ...v };
      case 'explore':
        return { episodeLength: 500, noise: 1.0, maxCells: Infinity, ...v };
    }
  },
  expert,
  explorer,
  fallen: (s) => (antUprightness(s) < 0 ? 'the Ant is on its back' : null),
};
