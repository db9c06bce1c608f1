/**
 * A model bundle: `embed.onnx`, `policy.onnx` and `manifest.json` in one folder. Loading checks the
 * manifest, every file's sha256, the ONNX input/output names, dtypes and shapes against the
 * manifest, and a probe inference, and says exactly what does not match.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type ort from 'onnxruntime-node';
import {
  MODEL_FILES,
  ModelError,
  type ModelFile,
  type ModelManifest,
  validateManifest,
} from '../../core/models/manifest.js';
import type { Mlp } from '../../core/models/mlp.js';
import type { Policy } from '../../core/exec/mission.js';
import { writeFolderAtomic } from '../../platform/files.js';
import { INPUT, InputRefused, readInputFile, readInputTextSync } from '../../platform/input-files.js';
import { embedOnnx, policyOnnx } from './onnx-writer.js';
import { parseJsonText } from '../../core/input/json.js';

/** The bundle's ψ (rows × d_s → rows × d_h) and π_low (→ rows × d_a in [−1, 1]), loaded from `dir`. */
export interface LoadedModels extends Policy {
  readonly dir: string;
  readonly manifest: ModelManifest;
  close(): Promise<void>;
}

export interface LoadOptions {
  readonly expectWorld?: string;
}

/** The hex sha256 a manifest records for a file. */
export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

async function readOrFail(dir: string, name: string): Promise<Uint8Array> {
  try {
    return await readInputFile(join(dir, name), name.endsWith('.onnx') ? INPUT.model : INPUT.config);
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new ModelError(
      join(dir, name),
      'file',
      `cannot read: ${(e as { cause?: NodeJS.ErrnoException }).cause?.code ?? String(e)}`,
    );
  }
}

/**
 * A bundle's manifest as plain JSON, read without checking it or loading the models (for listing
 * bundles and looking one up); null when it cannot be read or is not a JSON object — loadModels
 * says why when the bundle is used.
 */
export function peekManifest(dir: string): Record<string, unknown> | null {
  try {
    const m: unknown = parseJsonText(readInputTextSync(join(dir, 'manifest.json'), INPUT.config));
    return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Writes both models and the manifest (last, so its hashes vouch for the files before it). */
export async function writeModels(
  dir: string,
  models: { embed: Mlp; policy: Mlp },
  manifest: Omit<ModelManifest, 'files' | 'format' | 'version'>,
): Promise<ModelManifest> {
  const files: Record<ModelFile, Uint8Array> = {
    'embed.onnx': embedOnnx(models.embed),
    'policy.onnx': policyOnnx(models.policy, manifest.dims.obs, manifest.dims.latent),
  };
  const full: ModelManifest = {
    format: 'witness-models',
    version: 1,
    ...manifest,
    files: {
      'embed.onnx': { sha256: sha256(files['embed.onnx']) },
      'policy.onnx': { sha256: sha256(files['policy.onnx']) },
    },
  };
  await writeBundle(dir, files, JSON.stringify(full, null, 2) + '\n');
  return full;
}

/**
 * Writes a bundle as one folder: a reader sees the old bundle or the whole new one, never a mix.
 * Only a folder that holds nothing but a bundle is ever replaced (never `--out .` with other files).
 */
export async function writeBundle(out: string, files: Record<ModelFile, Uint8Array>, manifest: string): Promise<void> {
  await writeFolderAtomic(
    out,
    { ...files, 'manifest.json': manifest },
    { replaceable: ['embed.onnx', 'policy.onnx', 'manifest.json', 'embed.json'] },
  );
}

type Session = ort.InferenceSession;

interface Expect {
  readonly name: string;
  readonly width: number;
}

function checkPorts(
  file: string,
  kind: 'input' | 'output',
  meta: readonly ort.InferenceSession.ValueMetadata[],
  want: readonly Expect[],
): void {
  const found = meta.map((m) => m.name);
  const missing = want.filter((w) => !found.includes(w.name)).map((w) => w.name);
  if (missing.length > 0 || (kind === 'input' && found.length !== want.length)) {
    throw new ModelError(
      file,
      `${kind}s`,
      `expected [${want.map((w) => w.name).join(', ')}], found [${found.join(', ')}]`,
    );
  }
  for (const w of want) {
    const m = meta.find((x) => x.name === w.name)!;
    if (!m.isTensor || m.type !== 'float32')
      throw new ModelError(
        file,
        `${kind} ${w.name}`,
        `expected float32, found ${m.isTensor ? m.type : 'a non-tensor'}`,
      );
    const shape = m.shape;
    const show = `[${shape.map((d) => (typeof d === 'number' && d >= 0 ? String(d) : String(d))).join(', ')}]`;
    if (shape.length !== 2)
      throw new ModelError(file, `${kind} ${w.name}`, `expected shape [N, ${w.width}], found ${show}`);
    const [batch, width] = shape;
    if (typeof batch === 'number' && batch > 0)
      throw new ModelError(file, `${kind} ${w.name}`, `the batch dimension must be dynamic, found ${show}`);
    if (typeof width === 'number' && width >= 0 && width !== w.width)
      throw new ModelError(file, `${kind} ${w.name}`, `expected shape [N, ${w.width}], found ${show}`);
  }
}

/** onnxruntime, loaded when a model is (a command that only reads a bundle's manifest does not load it). */
const onnxRuntime = async (): Promise<typeof ort> => (await import('onnxruntime-node')).default;

async function session(file: string, bytes: Uint8Array): Promise<Session> {
  const runtime = await onnxRuntime();
  try {
    return await runtime.InferenceSession.create(bytes);
  } catch (e) {
    throw new ModelError(file, 'onnx', `onnxruntime cannot load it: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function finite(file: string, name: string, data: Float32Array): void {
  const i = data.findIndex((x) => !Number.isFinite(x));
  if (i >= 0) throw new ModelError(file, `output ${name}`, `value ${i} is ${String(data[i])}`);
}

export async function loadModels(dir: string, opts: LoadOptions = {}): Promise<LoadedModels> {
  const manifestFile = join(dir, 'manifest.json');
  let raw: unknown;
  try {
    raw = parseJsonText(new TextDecoder().decode(await readOrFail(dir, 'manifest.json')));
  } catch (e) {
    if (e instanceof ModelError) throw e;
    throw new ModelError(manifestFile, 'json', e instanceof Error ? e.message : String(e));
  }
  const manifest = validateManifest(raw, manifestFile);
  if (opts.expectWorld !== undefined && manifest.world !== opts.expectWorld) {
    throw new ModelError(manifestFile, 'world', `the models are for ${manifest.world}, not ${opts.expectWorld}`);
  }
  const bytes = {} as Record<ModelFile, Uint8Array>;
  for (const f of MODEL_FILES) {
    bytes[f] = await readOrFail(dir, f);
    const have = sha256(bytes[f]);
    if (have !== manifest.files[f].sha256) {
      throw new ModelError(
        join(dir, f),
        'sha256',
        `is ${have}, the manifest says ${manifest.files[f].sha256}: the file changed after the manifest was written`,
      );
    }
  }
  const { obs, latent, action } = manifest.dims;
  const embedFile = join(dir, 'embed.onnx'),
    policyFile = join(dir, 'policy.onnx');
  const embedS = await session(embedFile, bytes['embed.onnx']);
  const policyS = await session(policyFile, bytes['policy.onnx']);
  checkPorts(embedFile, 'input', embedS.inputMetadata, [{ name: 'obs', width: obs }]);
  checkPorts(embedFile, 'output', embedS.outputMetadata, [{ name: 'latent', width: latent }]);
  checkPorts(policyFile, 'input', policyS.inputMetadata, [
    { name: 'obs', width: obs },
    { name: 'direction', width: latent },
  ]);
  checkPorts(policyFile, 'output', policyS.outputMetadata, [{ name: 'action', width: action }]);

  const { Tensor } = await onnxRuntime();
  const { mean, std } = manifest.normalization;
  const normalize = (x: Float32Array, rows: number): Float32Array => {
    if (x.length !== rows * obs) throw new RangeError(`observations: expected ${rows}×${obs} values, got ${x.length}`);
    const out = new Float32Array(x.length);
    for (let r = 0; r < rows; r++)
      for (let k = 0; k < obs; k++) out[r * obs + k] = (x[r * obs + k]! - mean[k]!) / std[k]!;
    return out;
  };
  const run = async (
    s: Session,
    file: string,
    feeds: Record<string, ort.Tensor>,
    output: string,
    width: number,
    rows: number,
  ): Promise<Float32Array> => {
    const res = await s.run(feeds);
    const t = res[output]!;
    const data = t.data as Float32Array;
    if (t.dims.length !== 2 || t.dims[0] !== rows || t.dims[1] !== width) {
      throw new ModelError(file, `output ${output}`, `expected shape [${rows}, ${width}], got [${t.dims.join(', ')}]`);
    }
    finite(file, output, data);
    return data;
  };
  const models: LoadedModels = {
    dir,
    manifest,
    embed: (x, rows) =>
      run(embedS, embedFile, { obs: new Tensor('float32', normalize(x, rows), [rows, obs]) }, 'latent', latent, rows),
    act: async (x, direction, rows) => {
      if (direction.length !== rows * latent)
        throw new RangeError(`directions: expected ${rows}×${latent} values, got ${direction.length}`);
      const a = await run(
        policyS,
        policyFile,
        {
          obs: new Tensor('float32', normalize(x, rows), [rows, obs]),
          direction: new Tensor('float32', direction, [rows, latent]),
        },
        'action',
        action,
        rows,
      );
      const bad = a.findIndex((v) => v < -1 - 1e-6 || v > 1 + 1e-6);
      if (bad >= 0) throw new ModelError(policyFile, 'output action', `value ${bad} is ${a[bad]}, outside [-1, 1]`);
      return a;
    },
    close: async () => {
      await embedS.release();
      await policyS.release();
    },
  };
  // Probe: both models run on a small batch and give finite values of the right shape.
  const probe = new Float32Array(2 * obs);
  for (let k = 0; k < obs; k++) {
    probe[k] = mean[k]!;
    probe[obs + k] = mean[k]! + std[k]!;
  }
  await models.embed(probe, 2);
  const dir0 = new Float32Array(2 * latent);
  dir0[0] = 1;
  dir0[latent] = 1;
  await models.act(probe, dir0, 2);
  return models;
}
