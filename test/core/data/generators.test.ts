import { test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { PointMazeSim } from '../../../main/backends/mujoco/pointmaze.js';
import { cellCoverage, defaultConfig, generateDataset } from '../../../main/core/data/generators.js';
import { validateDataset } from '../../../main/core/data/dataset.js';
import { encodeDataset } from '../../../main/services/datasets/format.js';
import { cellAt, distancesFrom } from '../../../main/core/world/maze.js';

test('generators are deterministic, well-formed, and end every episode with a terminal', async () => {
  const sim = await PointMazeSim.create('pointmaze-medium');
  for (const kind of ['navigate', 'stitch', 'explore'] as const) {
    const a = generateDataset(sim, 'pointmaze-medium', defaultConfig(kind, 3000, 11));
    const b = generateDataset(sim, 'pointmaze-medium', defaultConfig(kind, 3000, 11));
    assert.deepEqual(a.observations, b.observations, kind);
    assert.deepEqual(a.actions, b.actions, kind);
    validateDataset(a, kind);
    const episode = defaultConfig(kind, 1, 1).episodeLength;
    const terminals = a.terminals.reduce((s, t) => s + t, 0);
    assert.equal(terminals, Math.ceil(3000 / episode), kind);
    assert.ok(a.actions.every((x) => x >= -1 && x <= 1));
  }
  sim.close();
});

test('navigate covers the maze and travels far; explore covers it too; stitch fragments stay short', async () => {
  const sim = await PointMazeSim.create('pointmaze-medium');
  const nav = generateDataset(sim, 'pointmaze-medium', defaultConfig('navigate', 20000, 1));
  assert.equal(cellCoverage(sim.layout, nav.observations, 4).fraction, 1);
  const explore = generateDataset(sim, 'pointmaze-medium', defaultConfig('explore', 20000, 1));
  assert.ok(cellCoverage(sim.layout, explore.observations, 4).fraction > 0.8);
  // stitch: within a 200-step episode the agent stays within a few cells of where it started
  const stitch = generateDataset(sim, 'pointmaze-medium', defaultConfig('stitch', 20000, 2));
  const cols = sim.layout.grid[0]!.length;
  let start = cellAt(sim.layout, stitch.observations[0]!, stitch.observations[1]!)!;
  let worst = 0;
  for (let r = 0; r < 20000; r++) {
    const c = cellAt(sim.layout, stitch.observations[r * 4]!, stitch.observations[r * 4 + 1]!)!;
    worst = Math.max(worst, distancesFrom(sim.layout, start)[c.i * cols + c.j]!);
    if (stitch.terminals[r] === 1 && r + 1 < 20000)
      start = cellAt(sim.layout, stitch.observations[(r + 1) * 4]!, stitch.observations[(r + 1) * 4 + 1]!)!;
  }
  assert.ok(worst <= 8, `a stitch fragment strayed ${worst} cells`);
  sim.close();
});

test('point-maze datasets are byte for byte what they were before the generators learned other bodies', async () => {
  // The file hashes of `witness data gen pointmaze-medium --kind K --steps 30000 --seed 3`, taken
  // with the point-mass-only generators (commit 6575eb1); caches key on these bytes (GENERATOR_VERSION).
  const before: Record<string, string> = {
    navigate: '2e36aba526095c77bca42b47625c2d2eefb2d8f34a6f6184b3b480952d89a9e9',
    stitch: '32f38bca9320b2fc48ef5d50dde5ae46ae4157060538f07442e6a643bd2f4b67',
    explore: '2c2a6c8ee3f69dd35dbc03e927e08ec1db5eaf393557cb44f250d4fe952b3c57',
  };
  const sim = await PointMazeSim.create('pointmaze-medium');
  for (const kind of ['navigate', 'stitch', 'explore'] as const) {
    const bytes = encodeDataset(
      generateDataset(sim, 'pointmaze-medium', defaultConfig(kind, 30000, 3, sim.agent, sim.layout)),
    );
    assert.equal(createHash('sha256').update(bytes).digest('hex'), before[kind], kind);
  }
  sim.close();
});
