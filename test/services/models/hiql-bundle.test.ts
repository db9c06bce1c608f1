/**
 * AP-HIQL's policy folder: written with its record last, loaded and run by onnxruntime with the
 * latent scale applied both ways; a changed file or a record of other inputs is refused by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initMlp } from '../../../main/core/models/mlp.js';
import { createRng } from '../../../main/core/random/rng.js';
import { loadHiql, writeHiql } from '../../../main/services/models/hiql-bundle.js';

test('hiql bundle: round trip through ONNX, the latent scale, and refusals of changed files or other inputs', async () => {
  const rng = createRng(3);
  const high = initMlp(rng, [4 + 2, 8, 2], 'relu', 'linear');
  const low = initMlp(rng, [4 + 2, 8, 2], 'relu', 'tanh');
  // An identity π_h (weights zero but for a pass-through of the goal) shows the scale: out = goal.
  for (const l of high.layers) {
    l.weights.fill(0);
    l.bias.fill(0);
  }
  const dir = join(mkdtempSync(join(tmpdir(), 'witness-hiql-bundle-')), 'p');
  const rec = {
    key: { a: 1 },
    dims: { obs: 4, latent: 2, action: 2 },
    normalization: { mean: [0, 0, 0, 0], std: [1, 1, 1, 1] },
    training: {},
  };
  const written = await writeHiql(dir, { high, low, latentScale: 0.04 }, rec);
  assert.equal(written.latentScale, 0.04);
  const p = await loadHiql(dir, { a: 1 });
  const z = await p.subgoal(Float32Array.of(1, 2, 0, 0), Float32Array.of(25, -50), 1);
  assert.deepEqual(Array.from(z), [0, 0], 'a zero network proposes no offset');
  const a = await p.act(Float32Array.of(1, 2, 0, 0), Float32Array.of(25, -50), 1);
  assert.equal(a.length, 2);
  assert.ok(a.every((v) => v >= -1 && v <= 1));
  await p.close();
  await assert.rejects(loadHiql(dir, { a: 2 }), /hiql\.json: key: the policies were trained from other inputs/);
  const file = join(dir, 'low.onnx');
  const bytes = readFileSync(file);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  writeFileSync(file, bytes);
  await assert.rejects(loadHiql(dir, { a: 1 }), /low\.onnx: sha256: the file changed after hiql\.json was written/);
  await assert.rejects(loadHiql(join(dir, 'missing')), /is not an AP-HIQL record/);
});
