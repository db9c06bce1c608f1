// @slow: trains policies (not in npm run test:quick)
/**
 * AP-HIQL's trainer: advantage-weighted regression lowers both policies' weighted losses on a tiny
 * dataset and is deterministic from the seed; policies trained briefly on pointmaze-medium, exported
 * to ONNX and run by onnxruntime, reach near goals more often than the same networks untrained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PointMazeSim } from '../../../main/backends/mujoco/pointmaze.js';
import { defaultConfig, generateDataset } from '../../../main/core/data/generators.js';
import { DEFAULT_HIQL, trainHiql } from '../../../main/services/training/hiql-trainer.js';
import { loadModels } from '../../../main/services/models/bundle.js';
import { loadHiql, writeHiql } from '../../../main/services/models/hiql-bundle.js';
import { embedForHiql } from '../../../main/app/hiql.js';
import { worldEntry } from '../../../main/backends/catalogue.js';
import { navigationOf } from '../../../main/core/world/world.js';
import type { Dataset } from '../../../main/core/data/dataset.js';

const models = fileURLToPath(new URL('../../../../assets/models/pointmaze-medium', import.meta.url));

async function dataset(steps: number, seed: number): Promise<Dataset> {
  const sim = await PointMazeSim.create('pointmaze-medium');
  const d = generateDataset(sim, 'pointmaze-medium', defaultConfig('navigate', steps, seed));
  sim.close();
  return d;
}

test('AWR lowers both weighted losses on a tiny dataset, deterministically from the seed', async () => {
  const d = await dataset(4000, 3);
  const m = await loadModels(models);
  try {
    const e = await embedForHiql(d, m);
    const tiny = { ...DEFAULT_HIQL, hidden: [16, 16], batch: 64, steps: 150, learningRate: 1e-3, seed: 4 };
    const a = await trainHiql(d, e, tiny);
    const b = await trainHiql(d, e, tiny);
    assert.deepEqual(Array.from(a.low.layers[0]!.weights), Array.from(b.low.layers[0]!.weights));
    assert.deepEqual(a.evalLoss, b.evalLoss);
    const c = await trainHiql(d, e, { ...tiny, seed: 5 });
    assert.notDeepEqual(Array.from(a.high.layers[0]!.weights), Array.from(c.high.layers[0]!.weights));
    for (const k of ['high', 'low'] as const) {
      const [before, after] = a.evalLoss[k];
      assert.ok(Number.isFinite(before) && after < 0.8 * before, `${k}: ${before} → ${after}`);
    }
    // With a learning rate of 0 nothing moves.
    const still = await trainHiql(d, e, { ...tiny, steps: 20, learningRate: 0 });
    assert.equal(still.evalLoss.low[0], still.evalLoss.low[1]);
  } finally {
    await m.close();
  }
});

test('trained HIQL policies (ONNX, onnxruntime) reach near goals more often than untrained ones', async () => {
  const d = await dataset(20_000, 3);
  const m = await loadModels(models);
  const world = await worldEntry('pointmaze-medium').open();
  try {
    const e = await embedForHiql(d, m);
    const config = { ...DEFAULT_HIQL, steps: 600, seed: 1 };
    const dir = mkdtempSync(join(tmpdir(), 'witness-hiql-'));
    const reached: number[] = [];
    for (const steps of [0, config.steps]) {
      const t = await trainHiql(d, e, { ...config, steps });
      const out = join(dir, `s${steps}`);
      await writeHiql(out, t, {
        key: { steps },
        dims: m.manifest.dims,
        normalization: m.manifest.normalization,
        training: {},
      });
      const hiql = await loadHiql(out, { steps });
      const nav = navigationOf(world);
      let ok = 0;
      // 16 fixed pairs: a dataset state and the state 40 steps later on its trajectory.
      for (let trial = 0; trial < 16; trial++) {
        const i = 500 + trial * 1100;
        const k = d.obsDim,
          gRow = i + 40;
        const goal = d.observations.slice(gRow * k, gRow * k + k);
        const gz = await m.embed(goal, 1);
        let s = await nav.reset({ seed: trial, start: [d.observations[i * k]!, d.observations[i * k + 1]!] });
        for (let step = 0; step < 150; step++) {
          if (Math.hypot(s.pose.x - goal[0]!, s.pose.y - goal[1]!) < 0.5) {
            ok++;
            break;
          }
          const obs = Float32Array.from(s.observation);
          const h = await m.embed(obs, 1);
          const off = gz.map((v, q) => v - h[q]!);
          s = await nav.step(await hiql.act(obs, await hiql.subgoal(obs, off, 1), 1));
        }
      }
      await hiql.close();
      reached.push(ok);
    }
    // On these seeds: 1 of 16 untrained, 6 of 16 after 600 steps (11 after 2000).
    assert.ok(reached[1]! > reached[0]!, `untrained reached ${reached[0]} of 16, trained ${reached[1]}`);
  } finally {
    await world.close();
    await m.close();
  }
});
