/**
 * AP-HIQL's policies as a folder: `high.onnx` (π_h: obs, goal → subgoal), `low.onnx` (π_l: obs,
 * direction → action, the same ports as a bundle's policy.onnx) and `hiql.json` (written last: what
 * they were trained from, the normalisation, the latent scale, the training record, each file's sha256). Loading checks
 * the record against what the caller expects and every file against its hash; onnxruntime runs them.
 */
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import type { Mlp } from '../../core/models/mlp.js';
import { ModelError } from '../../core/models/manifest.js';
import { writeFolderAtomic } from '../../platform/files.js';
import { INPUT, readInputFile } from '../../platform/input-files.js';
import { sha256 } from './bundle.js';
import { policyOnnx, subgoalOnnx } from './onnx-writer.js';
import { parseJsonText } from '../../core/input/json.js';

export interface HiqlRecord {
  readonly format: 'witness-hiql';
  readonly version: 1;
  /** What the policies were trained from (the cache compares it whole). */
  readonly key: Readonly<Record<string, unknown>>;
  readonly dims: { readonly obs: number; readonly latent: number; readonly action: number };
  /** The backbone bundle's observation normalisation (the policies read normalised observations). */
  readonly normalization: { readonly mean: readonly number[]; readonly std: readonly number[] };
  /** Latent offsets are multiplied by this on the way into both networks, and π_h's output divided by it. */
  readonly latentScale: number;
  readonly training: Readonly<Record<string, unknown>>;
  readonly files: { readonly 'high.onnx': string; readonly 'low.onnx': string };
}

/** π_h and π_l, batched over rows; observations raw (normalised here), goals and directions latent offsets. */
export interface HiqlPolicies {
  readonly record: HiqlRecord;
  subgoal(obs: Float32Array, goal: Float32Array, rows: number): Promise<Float32Array>;
  act(obs: Float32Array, direction: Float32Array, rows: number): Promise<Float32Array>;
  close(): Promise<void>;
}

export async function writeHiql(
  dir: string,
  p: { high: Mlp; low: Mlp; latentScale: number },
  record: Omit<HiqlRecord, 'files' | 'format' | 'version' | 'latentScale'>,
): Promise<HiqlRecord> {
  const high = subgoalOnnx(p.high, record.dims.obs, record.dims.latent);
  const low = policyOnnx(p.low, record.dims.obs, record.dims.latent);
  const full: HiqlRecord = {
    format: 'witness-hiql',
    version: 1,
    ...record,
    latentScale: p.latentScale,
    files: { 'high.onnx': sha256(high), 'low.onnx': sha256(low) },
  };
  await writeFolderAtomic(
    dir,
    { 'high.onnx': high, 'low.onnx': low, 'hiql.json': JSON.stringify(full, null, 1) + '\n' },
    { replaceable: ['high.onnx', 'low.onnx', 'hiql.json'] },
  );
  return full;
}

/** Reads the record only (null when missing or not one): the cache's first check. */
export async function readHiqlRecord(dir: string): Promise<HiqlRecord | null> {
  try {
    const r = parseJsonText(
      new TextDecoder().decode(await readInputFile(join(dir, 'hiql.json'), INPUT.config)),
    ) as HiqlRecord;
    return r !== null && typeof r === 'object' && r.format === 'witness-hiql' && r.version === 1 ? r : null;
  } catch {
    return null;
  }
}

export async function loadHiql(dir: string, expectKey?: Readonly<Record<string, unknown>>): Promise<HiqlPolicies> {
  const record = await readHiqlRecord(dir);
  const recordFile = join(dir, 'hiql.json');
  if (record === null) throw new ModelError(recordFile, 'format', 'is not an AP-HIQL record (witness-hiql version 1)');
  if (expectKey !== undefined && JSON.stringify(record.key) !== JSON.stringify(expectKey))
    throw new ModelError(recordFile, 'key', 'the policies were trained from other inputs');
  const sessions: ort.InferenceSession[] = [];
  for (const f of ['high.onnx', 'low.onnx'] as const) {
    const bytes = await readInputFile(join(dir, f), INPUT.model);
    if (sha256(bytes) !== record.files[f])
      throw new ModelError(join(dir, f), 'sha256', 'the file changed after hiql.json was written');
    sessions.push(await ort.InferenceSession.create(bytes));
  }
  const [highS, lowS] = sessions as [ort.InferenceSession, ort.InferenceSession];
  const { obs: k, latent, action } = record.dims;
  const { mean, std } = record.normalization;
  const sc = record.latentScale;
  const scaled = (v: Float32Array, by: number): Float32Array => v.map((x) => x * by);
  const normalize = (x: Float32Array, rows: number): ort.Tensor => {
    const out = new Float32Array(rows * k);
    for (let r = 0; r < rows; r++) for (let j = 0; j < k; j++) out[r * k + j] = (x[r * k + j]! - mean[j]!) / std[j]!;
    return new ort.Tensor('float32', out, [rows, k]);
  };
  const run = async (
    s: ort.InferenceSession,
    feeds: Record<string, ort.Tensor>,
    output: string,
    width: number,
    rows: number,
  ): Promise<Float32Array> => {
    const t = (await s.run(feeds))[output]!;
    if (t.dims[0] !== rows || t.dims[1] !== width)
      throw new ModelError(dir, `output ${output}`, `expected [${rows}, ${width}], got [${t.dims.join(', ')}]`);
    return t.data as Float32Array;
  };
  return {
    record,
    subgoal: async (x, g, rows) =>
      scaled(
        await run(
          highS,
          { obs: normalize(x, rows), goal: new ort.Tensor('float32', scaled(g, sc), [rows, latent]) },
          'subgoal',
          latent,
          rows,
        ),
        1 / sc,
      ),
    act: (x, z, rows) =>
      run(
        lowS,
        { obs: normalize(x, rows), direction: new ort.Tensor('float32', scaled(z, sc), [rows, latent]) },
        'action',
        action,
        rows,
      ),
    close: async () => {
      await highS.release();
      await lowS.release();
    },
  };
}
