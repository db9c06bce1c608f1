/**
 * Rebuilds a cached backbone's graph (~/.cache/witness/backbones/<entry>) with this checkout's builder,
 * prints how long it took, and checks it against the cached graph (node count, edges, every state's
 * support). Used for the graph builder's figures in docs/BENCHMARKS.md:
 *   node scripts/graph-rebuild.mjs "$PWD" ~/.cache/witness/backbones/<entry> assets/models/<world>
 */
const root = process.argv[2];
const { readDataset } = await import(`${root}/dist/main/services/datasets/format.js`);
const { loadModels } = await import(`${root}/dist/main/services/models/bundle.js`);
const { buildGraph } = await import(`${root}/dist/main/core/graph/build.js`);
const { readGraph } = await import(`${root}/dist/main/services/graph/store.js`);
const [, , , dir, modelsDir] = process.argv;
const d = await readDataset(`${dir}/dataset.wds`);
const m = await loadModels(modelsDir);
const n = d.terminals.length,
  dim = m.manifest.dims.latent;
const latent = new Float32Array(n * dim);
for (let r = 0; r < n; r += 16384) {
  const rows = Math.min(16384, n - r);
  latent.set(await m.embed(d.observations.subarray(r * d.obsDim, (r + rows) * d.obsDim), rows), r * dim);
}
let t = performance.now(),
  last = t;
const g = buildGraph(latent, dim, d.terminals, { H_TD: m.manifest.H_TD, teThreshold: 0.99 }, (stage, done, total) => {
  const now = performance.now();
  if (done === total || done === 0) console.log(stage, done, total, ((now - last) / 1000).toFixed(1));
  last = now;
});
console.log('nodes', g.nodeCount, 'edges', g.edgeU.length, 'total s', ((performance.now() - t) / 1000).toFixed(1));
const files = m.manifest.files;
const a = await readGraph(`${dir}/graph.wgraph`, {
  world: d.worldId,
  models: { embed: files['embed.onnx'].sha256, policy: files['policy.onnx'].sha256 },
});
let diff = 0;
for (let i = 0; i < n; i++) if (a.graph.support[i] !== g.support[i]) diff++;
console.log(
  'cached nodes',
  a.graph.nodeCount,
  'support differences',
  diff,
  'edges equal',
  a.graph.edgeU.length === g.edgeU.length && a.graph.edgeU.every((x, i) => x === g.edgeU[i]),
);
await m.close();
