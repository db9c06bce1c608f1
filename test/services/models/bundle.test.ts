import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import onnxProto from 'onnx-proto';
import { forward, initMlp, type Mlp } from '../../../main/core/models/mlp.js';
import { ModelError, type ModelManifest } from '../../../main/core/models/manifest.js';
import { createRng } from '../../../main/core/random/rng.js';
import { loadModels, writeModels } from '../../../main/services/models/bundle.js';

const { onnx } = onnxProto;
const HASH = 'a'.repeat(64);

function base(obs: number, latent: number, action: number): Omit<ModelManifest, 'files' | 'format' | 'version'> {
  return {
    world: 'pointmaze-medium',
    dims: { obs, latent, action },
    H_TD: 8,
    normalization: {
      mean: Array.from({ length: obs }, (_, i) => i * 0.5),
      std: Array.from({ length: obs }, (_, i) => 1 + i),
    },
    training: { test: true },
    dataset: { sha256: HASH },
  };
}

async function bundle(
  seed: number,
  obs = 4,
  latent = 8,
  action = 2,
): Promise<{ dir: string; embed: Mlp; policy: Mlp; manifest: ModelManifest }> {
  const rng = createRng(seed);
  const embed = initMlp(rng, [obs, 16, 16, latent], 'relu', 'linear');
  const policy = initMlp(rng, [obs + latent, 16, action], 'tanh', 'tanh');
  const dir = mkdtempSync(join(tmpdir(), 'witness-models-'));
  const manifest = await writeModels(dir, { embed, policy }, base(obs, latent, action));
  return { dir, embed, policy, manifest };
}

test('onnxruntime gives the same numbers as our forward pass (within 1e-4), normalisation included', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 9 }),
      async (seed, obs, latent) => {
        const { dir, embed, policy, manifest } = await bundle(seed, obs, latent, 2);
        const m = await loadModels(dir, { expectWorld: 'pointmaze-medium' });
        const rows = 5;
        const rng = createRng(seed + 1);
        const x = Float32Array.from({ length: rows * obs }, () => rng.next() * 10 - 5);
        const z = Float32Array.from({ length: rows * latent }, () => rng.next() * 2 - 1);
        const norm = x.map(
          (v, i) => (v - manifest.normalization.mean[i % obs]!) / manifest.normalization.std[i % obs]!,
        );
        const wantLatent = forward(embed, norm, rows);
        const gotLatent = await m.embed(x, rows);
        wantLatent.forEach((v, i) =>
          assert.ok(
            Math.abs(v - gotLatent[i]!) <= 1e-4 * Math.max(1, Math.abs(v)),
            `latent ${i}: ${v} vs ${gotLatent[i]}`,
          ),
        );
        const cat = new Float32Array(rows * (obs + latent));
        for (let r = 0; r < rows; r++) {
          cat.set(norm.subarray(r * obs, (r + 1) * obs), r * (obs + latent));
          cat.set(z.subarray(r * latent, (r + 1) * latent), r * (obs + latent) + obs);
        }
        const wantAct = forward(policy, cat, rows);
        const gotAct = await m.act(x, z, rows);
        wantAct.forEach((v, i) => assert.ok(Math.abs(v - gotAct[i]!) <= 1e-4, `action ${i}: ${v} vs ${gotAct[i]}`));
        await m.close();
      },
    ),
    { numRuns: 12, seed: 3 },
  );
});

test('manifest problems name the file and the field', async () => {
  const { dir } = await bundle(1);
  const file = join(dir, 'manifest.json');
  const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const cases: [unknown, RegExp][] = [
    [{ ...good, format: 'other' }, /manifest\.json: format: expected "witness-models"/],
    [{ ...good, dims: { obs: 4, latent: 0, action: 2 } }, /dims\.latent: expected a positive integer/],
    [
      { ...good, normalization: { mean: [0, 0, 0, 0], std: [1, 0, 1, 1] } },
      /normalization\.std: every entry must be positive/,
    ],
    [{ ...good, dataset: {} }, /dataset\.sha256: expected a hex sha256/],
  ];
  for (const [m, msg] of cases) {
    writeFileSync(file, JSON.stringify(m));
    await assert.rejects(loadModels(dir), (e: unknown) => e instanceof ModelError && msg.test(e.message));
  }
  writeFileSync(file, '{ not json');
  await assert.rejects(loadModels(dir), /manifest\.json: json: /);
  writeFileSync(file, JSON.stringify(good));
  await assert.rejects(
    loadModels(dir, { expectWorld: 'pointmaze-giant' }),
    /the models are for pointmaze-medium, not pointmaze-giant/,
  );
});

test('a model file changed after the manifest was written is refused', async () => {
  const { dir } = await bundle(2);
  const f = join(dir, 'embed.onnx');
  const bytes = readFileSync(f);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  writeFileSync(f, bytes);
  await assert.rejects(
    loadModels(dir),
    (e: unknown) => e instanceof ModelError && /embed\.onnx: sha256: is [0-9a-f]+, the manifest says/.test(e.message),
  );
});

/** A hand-made embed model with chosen port names, dtype and widths, and a manifest that vouches for it. */
function foreignEmbed(
  dir: string,
  input: { name: string; width: number | string; type?: number },
  output: { name: string; width: number },
): void {
  const T = onnx.TensorProto.DataType;
  const vi = (name: string, width: number | string, type: number = T.FLOAT) =>
    onnx.ValueInfoProto.create({
      name,
      type: onnx.TypeProto.create({
        tensorType: onnx.TypeProto.Tensor.create({
          elemType: type,
          shape: onnx.TensorShapeProto.create({
            dim: [
              onnx.TensorShapeProto.Dimension.create({ dimParam: 'N' }),
              typeof width === 'number'
                ? onnx.TensorShapeProto.Dimension.create({ dimValue: width })
                : onnx.TensorShapeProto.Dimension.create({ dimParam: width }),
            ],
          }),
        }),
      }),
    });
  const w = typeof input.width === 'number' ? input.width : 4;
  const weights = new Float32Array(w * output.width).fill(0.1);
  const graph = onnx.GraphProto.create({
    name: 'foreign',
    node: [onnx.NodeProto.create({ opType: 'MatMul', input: [input.name, 'W'], output: [output.name] })],
    initializer: [
      onnx.TensorProto.create({
        name: 'W',
        dims: [w, output.width],
        dataType: input.type ?? T.FLOAT,
        ...(input.type === T.DOUBLE
          ? { rawData: new Uint8Array(new Float64Array(weights).buffer) }
          : { rawData: new Uint8Array(weights.buffer) }),
      }),
    ],
    input: [vi(input.name, input.width, input.type)],
    output: [vi(output.name, output.width, input.type)],
  });
  const bytes = onnx.ModelProto.encode(
    onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }),
  ).finish();
  writeFileSync(join(dir, 'embed.onnx'), bytes);
  const mf = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    files: Record<string, { sha256: string }>;
  };
  mf.files['embed.onnx']!.sha256 = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(mf));
}

test('models trained elsewhere load when the names, dtypes and shapes match, and are refused precisely when not', async () => {
  const { dir } = await bundle(3, 4, 8, 2);
  foreignEmbed(dir, { name: 'obs', width: 4 }, { name: 'latent', width: 8 });
  const ok = await loadModels(dir);
  assert.equal((await ok.embed(new Float32Array(4), 1)).length, 8);
  await ok.close();
  foreignEmbed(dir, { name: 'observation', width: 4 }, { name: 'latent', width: 8 });
  await assert.rejects(loadModels(dir), /embed\.onnx: inputs: expected \[obs\], found \[observation\]/);
  foreignEmbed(dir, { name: 'obs', width: 4 }, { name: 'z', width: 8 });
  await assert.rejects(loadModels(dir), /embed\.onnx: outputs: expected \[latent\], found \[z\]/);
  foreignEmbed(dir, { name: 'obs', width: 6 }, { name: 'latent', width: 8 });
  await assert.rejects(loadModels(dir), /embed\.onnx: input obs: expected shape \[N, 4\], found \[N, 6\]/);
  foreignEmbed(dir, { name: 'obs', width: 4 }, { name: 'latent', width: 16 });
  await assert.rejects(loadModels(dir), /embed\.onnx: output latent: expected shape \[N, 8\], found \[N, 16\]/);
  foreignEmbed(dir, { name: 'obs', width: 4, type: onnx.TensorProto.DataType.DOUBLE }, { name: 'latent', width: 8 });
  await assert.rejects(loadModels(dir), /embed\.onnx: input obs: expected float32, found float64/);
});

test('NaN outputs are caught when the models are loaded', async () => {
  const rng = createRng(4);
  const embed = initMlp(rng, [4, 8], 'relu', 'linear');
  embed.layers[0]!.weights[0] = NaN;
  const policy = initMlp(rng, [12, 2], 'tanh', 'tanh');
  const dir = mkdtempSync(join(tmpdir(), 'witness-models-nan-'));
  await writeModels(dir, { embed, policy }, base(4, 8, 2));
  await assert.rejects(loadModels(dir), /embed\.onnx: output latent: value \d+ is NaN/);
});

test('the shipped pointmaze-medium bundle loads and passes every check', async () => {
  const { fileURLToPath } = await import('node:url');
  const dir = fileURLToPath(new URL('../../../../assets/models/pointmaze-medium', import.meta.url));
  const m = await loadModels(dir, { expectWorld: 'pointmaze-medium' });
  assert.equal(m.manifest.dims.latent, 32);
  assert.match(
    String((m.manifest.training as { command?: string }).command),
    /^witness backbone train --world pointmaze-medium/,
  );
  const z = await m.embed(new Float32Array([0, 0, 0, 0, 4, 0, 0, 0]), 2);
  assert.equal(z.length, 64);
  await m.close();
});
