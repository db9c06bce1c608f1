/**
 * A model bundle (embed.onnx, policy.onnx, manifest.json) from a dataset: the steps `witness train`
 * runs one by one, and all of them at once for the UI's training job.
 */
import ort from 'onnxruntime-node';
import type { Dataset } from '../../core/data/dataset.js';
import { MODEL_FILES, ModelError } from '../../core/models/manifest.js';
import { datasetHash } from '../datasets/format.js';
import { type EmbedConfig, type Normalization, trainEmbedding } from './embed-trainer.js';
import { type PolicyConfig, trainPolicy } from './policy-trainer.js';
import { embedOnnx, policyOnnx } from '../models/onnx-writer.js';
import { sha256, writeBundle } from '../models/bundle.js';
import { INPUT, InputRefused, readInputText } from '../../platform/input-files.js';
import { parseJsonText } from '../../core/input/json.js';

/** The manifest of a bundle (docs/FORMATS.md, "Model bundles"). */
export function bundleManifest(
  d: Dataset,
  dataFile: string,
  latent: number,
  H_TD: number,
  normalization: Normalization,
  training: { embed: Record<string, unknown>; policy: Record<string, unknown> },
  files: Record<(typeof MODEL_FILES)[number], Uint8Array>,
): string {
  return (
    JSON.stringify(
      {
        format: 'witness-models',
        version: 1,
        world: d.worldId,
        dims: { obs: d.obsDim, latent, action: d.actDim },
        H_TD,
        normalization,
        training,
        dataset: { sha256: datasetHash(d), file: dataFile },
        files: {
          'embed.onnx': { sha256: sha256(files['embed.onnx']) },
          'policy.onnx': { sha256: sha256(files['policy.onnx']) },
        },
      },
      null,
      2,
    ) + '\n'
  );
}

export type StageProgress = (stage: 'embedding' | 'policy', step: number, total: number) => void;

/** Trains ψ, embeds the dataset with the exported ONNX model, trains π_low, and writes the bundle to `out`. */
export async function trainBundle(
  d: Dataset,
  dataFile: string,
  embed: EmbedConfig,
  policy: PolicyConfig,
  out: string,
  progress: StageProgress,
): Promise<void> {
  const started = Date.now();
  const e = await trainEmbedding(d, embed, (s, total) => progress('embedding', s, total));
  const embedBytes = embedOnnx(e.mlp);
  const embedSeconds = (Date.now() - started) / 1000;
  const embedded = await embedWithOnnx(embedBytes, 'embed.onnx (in memory)', d, e.normalization, embed.latent);
  const p = await trainPolicy(d, embedded, policy, (s, total) => progress('policy', s, total));
  const files = { 'embed.onnx': embedBytes, 'policy.onnx': policyOnnx(p.mlp, d.obsDim, embed.latent) };
  const manifest = bundleManifest(
    d,
    dataFile,
    embed.latent,
    policy.H_TD,
    e.normalization,
    {
      embed: { objective: 'expectile-td', ...embed, finalLoss: e.finalLoss, seconds: embedSeconds },
      policy: {
        objective: 'ddpg+bc',
        ...policy,
        finalCriticLoss: p.finalCriticLoss,
        seconds: (Date.now() - started) / 1000 - embedSeconds,
      },
    },
    files,
  );
  await writeBundle(out, files, manifest);
}

export interface EmbedJson {
  readonly world: string;
  readonly dims: { readonly obs: number; readonly latent: number };
  readonly normalization: Normalization;
  readonly training: Record<string, unknown>;
}

export async function readEmbedJson(file: string): Promise<EmbedJson> {
  let raw: unknown;
  try {
    raw = parseJsonText(await readInputText(file, INPUT.config));
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new ModelError(file, 'json', e instanceof Error ? e.message : String(e));
  }
  const o = raw as Partial<EmbedJson>;
  if (typeof o.world !== 'string') throw new ModelError(file, 'world', 'expected a world id');
  if (!o.dims || !Number.isInteger(o.dims.latent) || !Number.isInteger(o.dims.obs))
    throw new ModelError(file, 'dims', 'expected { obs, latent }');
  if (!o.normalization || !Array.isArray(o.normalization.mean) || !Array.isArray(o.normalization.std))
    throw new ModelError(file, 'normalization', 'expected { mean, std }');
  return { world: o.world, dims: o.dims, normalization: o.normalization, training: o.training ?? {} };
}

/** ψ of the whole dataset through onnxruntime, so any embed.onnx with the contract's names works. */
export async function embedWithOnnx(
  bytes: Uint8Array,
  file: string,
  d: { observations: Float32Array; terminals: Uint8Array; obsDim: number },
  norm: Normalization,
  latentDim: number,
): Promise<{ obs: Float32Array; latent: Float32Array; dim: number }> {
  let s: ort.InferenceSession;
  try {
    s = await ort.InferenceSession.create(bytes);
  } catch (e) {
    throw new ModelError(file, 'onnx', `onnxruntime cannot load it: ${e instanceof Error ? e.message : String(e)}`);
  }
  const n = d.terminals.length,
    k = d.obsDim;
  const obs = new Float32Array(n * k);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < k; j++) obs[r * k + j] = (d.observations[r * k + j]! - norm.mean[j]!) / norm.std[j]!;
  const latent = new Float32Array(n * latentDim);
  const chunk = 16384;
  for (let r = 0; r < n; r += chunk) {
    const rows = Math.min(chunk, n - r);
    const out = await s.run({ obs: new ort.Tensor('float32', obs.slice(r * k, (r + rows) * k), [rows, k]) });
    const t = out['latent'];
    if (!t || t.dims[1] !== latentDim) throw new ModelError(file, 'output latent', `expected [N, ${latentDim}]`);
    latent.set(t.data as Float32Array, r * latentDim);
  }
  await s.release();
  return { obs, latent, dim: latentDim };
}
