// @slow: the Ant walks in MuJoCo (long simulation) (not in npm run test:quick)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AntMazeSim } from '../../../main/backends/mujoco/antmaze.js';
import { antMazeMjcf } from '../../../main/core/world/ant-mjcf.js';
import { ANT_AGENT, ANT_AGENT_VERSION, antRestPose } from '../../../main/core/data/ant-agent.js';
import {
  type MazeStepper,
  datasetGenerator,
  defaultConfig,
  generateDataset,
} from '../../../main/core/data/generators.js';
import { validateDataset } from '../../../main/core/data/dataset.js';
import { mazePairTrials, openArena, openSpaceTrials } from '../../../main/core/data/ant-trials.js';
import { MAZES } from '../../../main/core/world/maze.js';

async function arena(): Promise<AntMazeSim> {
  const layout = openArena(10);
  return AntMazeSim.create('antmaze-medium', {}, { text: antMazeMjcf(layout), source: layout.id, layout });
}

// Counted, seeded trials: the figures for hundreds of them are in docs/BENCHMARKS.md (`witness bench ant`).
test('the expert reaches open-space waypoints: 30 of 30 without noise, 30 of 30 with action noise σ = 0.2, no flips', async () => {
  const sim = await arena();
  for (const noise of [0, 0.2]) {
    const r = openSpaceTrials(sim, { waypoints: 30, noise, seed: 1 });
    assert.deepEqual(
      { reached: r.reached, flips: r.flips, timeouts: r.timeouts },
      { reached: 30, flips: 0, timeouts: 0 },
      `noise ${noise}`,
    );
    assert.ok(r.speed_m_s > (noise === 0 ? 0.9 : 0.6), `noise ${noise}: ${r.speed_m_s.toFixed(2)} m/s`);
  }
  sim.close();
});

test('the expert walks start–goal pairs through the medium maze with noise σ = 0.2: 8 of 8, no flips', async () => {
  const sim = await AntMazeSim.create('antmaze-medium');
  const r = mazePairTrials(sim, { pairs: 8, noise: 0.2, seed: 2 });
  assert.deepEqual({ reached: r.reached, flips: r.flips, timeouts: r.timeouts }, { reached: 8, flips: 0, timeouts: 0 });
  sim.close();
});

test('a flip is detected: the Ant on its back is fallen, upright it is not', () => {
  const up = antRestPose(0, 0);
  assert.equal(ANT_AGENT.fallen!(up), null);
  const back = antRestPose(0, 0);
  back.set([0, 1, 0, 0], 3); // half a turn about x
  assert.match(ANT_AGENT.fallen!(back)!, /on its back/);
});

/**
 * A stepper whose Ant falls on its back at the 7th step of every episode (the generator's bookkeeping, in isolation).
 */
function fallingStepper(): MazeStepper {
  let k = 0;
  const state = antRestPose(0, 0);
  return {
    layout: MAZES.medium,
    agent: ANT_AGENT,
    reset: () => {
      k = 0;
      state.set(antRestPose(0, 0));
      return state;
    },
    act: () => {
      if (++k >= 7) state.set([0, 1, 0, 0], 3);
      return state;
    },
  };
}

test("flips end their episode and are recorded in the dataset's report, with their rows", () => {
  const d = generateDataset(
    fallingStepper(),
    'antmaze-medium',
    defaultConfig('navigate', 30, 1, ANT_AGENT, MAZES.medium),
  );
  validateDataset(d, 'falling');
  const rows = [...d.terminals.keys()].filter((i) => d.terminals[i] === 1);
  assert.deepEqual(
    rows,
    [6, 13, 20, 27, 29],
    "each episode ends at the row that tipped it over (the last at the dataset's end)",
  );
  assert.deepEqual(d.report, { episodes: 5, flips: 4, stalls: 0, flipRows: [6, 13, 20, 27], stallRows: [] });
});

test('generation in slices (as a CLI generates, answering Ctrl-C between them) gives the same rows, terminals and report, flips mid-slice included', async () => {
  const whole = generateDataset(
    fallingStepper(),
    'antmaze-medium',
    defaultConfig('navigate', 30, 1, ANT_AGENT, MAZES.medium),
  );
  for (const slice of [1, 4, 7, 29]) {
    const g = datasetGenerator(
      fallingStepper(),
      'antmaze-medium',
      defaultConfig('navigate', 30, 1, ANT_AGENT, MAZES.medium),
    );
    assert.throws(() => g.result(), /not complete: 0 of 30 rows/);
    let slices = 0;
    while (!g.run(slice)) slices++;
    assert.equal(slices, Math.ceil(30 / slice) - 1, `slice ${slice}`);
    assert.deepEqual(g.result(), whole, `slice ${slice}`);
    assert.equal(g.run(slice), true, 'a finished generator stays finished');
  }
  const sim = await AntMazeSim.create('antmaze-medium');
  const config = defaultConfig('stitch', 700, 3, ANT_AGENT, sim.layout);
  const a = generateDataset(sim, 'antmaze-medium', config);
  const g = datasetGenerator(sim, 'antmaze-medium', config);
  while (!g.run(333));
  assert.deepEqual(g.result(), a);
  sim.close();
});

test("Ant datasets: 29-D observations and 8-D actions, deterministic, OGBench's regimes and episode lengths, a report", async () => {
  const sim = await AntMazeSim.create('antmaze-medium');
  assert.equal(defaultConfig('navigate', 1, 0, ANT_AGENT, MAZES.giant).episodeLength, 2000);
  assert.deepEqual(defaultConfig('stitch', 1, 0, ANT_AGENT, MAZES.medium), {
    kind: 'stitch',
    steps: 1,
    seed: 0,
    episodeLength: 200,
    noise: 0.2,
    maxCells: 4,
    agent: 'ant',
    agentVersion: ANT_AGENT_VERSION,
  });
  assert.equal(defaultConfig('explore', 1, 0, ANT_AGENT, MAZES.medium).noise, 1);
  for (const kind of ['navigate', 'stitch', 'explore'] as const) {
    const config = defaultConfig(kind, 1200, 5, ANT_AGENT, sim.layout);
    const a = generateDataset(sim, 'antmaze-medium', config);
    const b = generateDataset(sim, 'antmaze-medium', config);
    validateDataset(a, kind);
    assert.equal(a.obsDim, 29);
    assert.equal(a.actDim, 8);
    assert.deepEqual(a.observations, b.observations, kind);
    assert.deepEqual(a.report, b.report, kind);
    assert.ok(
      a.actions.every((x) => x >= -1 && x <= 1),
      kind,
    );
    const r = a.report as { episodes: number; flips: number };
    assert.equal(
      a.terminals.reduce((s, t) => s + t, 0),
      r.episodes,
      `${kind}: one terminal per episode`,
    );
    assert.ok(r.episodes >= Math.ceil(1200 / config.episodeLength), kind);
    assert.equal(a.generator['agent'], 'ant');
  }
  sim.close();
});
