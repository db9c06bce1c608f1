import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { PointMazeSim, pointMazeRest } from '../../../main/backends/mujoco/pointmaze.js';
import { defaultConfig, generateDataset } from '../../../main/core/data/generators.js';
import { loadModels } from '../../../main/services/models/bundle.js';
import { buildArtifact } from '../../../main/services/graph/build-artifact.js';
import { DEFAULT_EXEC, type ExecParams, Executor, type Waypoint } from '../../../main/core/exec/executor.js';
import { createRng } from '../../../main/core/random/rng.js';

const MODELS = fileURLToPath(new URL('../../../../assets/models/pointmaze-large', import.meta.url));

/**
 * One hop of a plan as the executor runs it: from rest at a graph node's position to the node at the
 * other end of one of its edges (at least 1.5 m away), within the tracking budget H_low, accepted
 * within reach_m in task space. A cluster node's own latent is the mean of its member states, which
 * move every way; steered toward it, π_low comes to a halt short of some nodes. Steered toward ψ of
 * the node's position at rest, it reaches them (docs/BENCHMARKS.md, "Where waypoints steer").
 * Measured with this setup (seed 7): pointmaze-large 95 / 100 (node latents) against 100 / 100 (rest);
 * 200 hops on giant: 171 against 200.
 */
test('rest targets: π_low reaches every graph hop from rest on the large maze; steered to the node latents it halts short of some', async () => {
  const models = await loadModels(MODELS);
  const gen = await PointMazeSim.create('pointmaze-large');
  const dataset = generateDataset(gen, 'pointmaze-large', defaultConfig('navigate', 100_000, 1));
  gen.close();
  const art = await buildArtifact(dataset, models, 0.99);
  const sim = await PointMazeSim.create('pointmaze-large');
  try {
    const g = art.graph,
      dim = g.dim,
      P = art.positions;
    const rng = createRng(7);
    const reached = { rest: 0, node: 0 };
    let hops = 0;
    while (hops < 100) {
      const k = rng.int(0, g.edgeU.length - 1);
      const u = g.edgeU[k]!,
        v = g.edgeV[k]!;
      if (Math.hypot(P[2 * v]! - P[2 * u]!, P[2 * v + 1]! - P[2 * u + 1]!) < 1.5) continue;
      hops++;
      const target: Waypoint = {
        node: v,
        id: `c${v}`,
        latent: g.nodes.slice(v * dim, (v + 1) * dim),
        position: [P[2 * v]!, P[2 * v + 1]!],
        rest: await models.embed(pointMazeRest(P[2 * v]!, P[2 * v + 1]!), 1),
        pos: [],
        neg: [],
        term: 'true',
        checkpoint: false,
        state: 0,
        from: 0,
        transition: 1,
      };
      for (const targets of ['rest', 'node'] as const) {
        const params: ExecParams = { ...DEFAULT_EXEC, targets, M: 1 };
        const ex = new Executor(
          { prefix: [target], suffix: [target], dwell: true, anchors: new Map(), dim },
          params,
          `c${u}`,
        );
        let s = sim.reset(hops, Array.from(pointMazeRest(P[2 * u]!, P[2 * u + 1]!)));
        for (let t = 0; ex.status === 'running'; t++) {
          const obs = Float32Array.from(s);
          const r = ex.step(t, await models.embed(obs, 1), new Set(), s[0]!, s[1]!);
          if (r.direction === null) break;
          const a = await models.act(obs, r.direction, 1);
          s = sim.step(a[0]!, a[1]!);
        }
        if (ex.status === 'complete') reached[targets]++;
      }
    }
    assert.equal(reached.rest, 100, `rest targets reached ${reached.rest} of 100 hops`);
    assert.ok(
      reached.node <= 97,
      `node-latent targets reached ${reached.node} of 100 hops: the ablation should miss some`,
    );
  } finally {
    sim.close();
    await models.close();
  }
});
