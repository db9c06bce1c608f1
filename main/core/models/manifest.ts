/**
 * The manifest beside `embed.onnx` and `policy.onnx`: what the models expect and where they came
 * from. Anyone who trained ψ and π_low elsewhere writes one of these to load them here.
 */
import { WitnessError } from '../../contract/errors.js';

export const MODEL_FILES = ['embed.onnx', 'policy.onnx'] as const;
export type ModelFile = (typeof MODEL_FILES)[number];

export interface ModelManifest {
  readonly format: 'witness-models';
  readonly version: 1;
  readonly world: string;
  readonly dims: { readonly obs: number; readonly latent: number; readonly action: number };
  /** Temporal-distance horizon H_TD (steps) the embedding and graph use. */
  readonly H_TD: number;
  /** Observations are standardised as (obs − mean) / std before either model sees them. */
  readonly normalization: { readonly mean: readonly number[]; readonly std: readonly number[] };
  /** Free-form: how the models were trained (objective, sizes, steps, seed, …). */
  readonly training: Readonly<Record<string, unknown>>;
  /** The dataset the models were trained on. */
  readonly dataset: { readonly sha256: string; readonly file?: string };
  readonly files: Readonly<Record<ModelFile, { readonly sha256: string }>>;
}

export class ModelError extends WitnessError {
  override readonly name = 'ModelError';
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super('invalid-input', `${file}: ${field}: ${detail}`, { file, path: field });
  }
}

const SHA = /^[0-9a-f]{64}$/;

/** Checks a parsed manifest; errors name the file and the field. */
export function validateManifest(raw: unknown, file: string): ModelManifest {
  const fail = (field: string, detail: string): never => {
    throw new ModelError(file, field, detail);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('(root)', 'expected an object');
  const m = raw as Record<string, unknown>;
  if (m['format'] !== 'witness-models') fail('format', `expected "witness-models", got ${JSON.stringify(m['format'])}`);
  if (m['version'] !== 1) fail('version', `expected 1, got ${JSON.stringify(m['version'])}`);
  if (typeof m['world'] !== 'string' || m['world'] === '') fail('world', 'expected a world id');
  const dims = m['dims'] as Record<string, unknown> | undefined;
  if (typeof dims !== 'object' || dims === null) fail('dims', 'expected { obs, latent, action }');
  for (const k of ['obs', 'latent', 'action']) {
    const v = dims![k];
    if (!Number.isInteger(v) || (v as number) < 1)
      fail(`dims.${k}`, `expected a positive integer, got ${JSON.stringify(v)}`);
  }
  const H = m['H_TD'];
  if (typeof H !== 'number' || !(H > 0)) fail('H_TD', `expected a positive number, got ${JSON.stringify(H)}`);
  const norm = m['normalization'] as Record<string, unknown> | undefined;
  if (typeof norm !== 'object' || norm === null) fail('normalization', 'expected { mean, std }');
  for (const k of ['mean', 'std']) {
    const v = norm![k];
    if (
      !Array.isArray(v) ||
      v.length !== (dims!['obs'] as number) ||
      !v.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      fail(`normalization.${k}`, `expected ${String(dims!['obs'])} finite numbers`);
    }
    if (k === 'std' && (v as number[]).some((x) => !(x > 0))) fail('normalization.std', 'every entry must be positive');
  }
  if (typeof m['training'] !== 'object' || m['training'] === null) fail('training', 'expected an object');
  const ds = m['dataset'] as Record<string, unknown> | undefined;
  if (typeof ds !== 'object' || ds === null || typeof ds['sha256'] !== 'string' || !SHA.test(ds['sha256']))
    fail('dataset.sha256', 'expected a hex sha256');
  const files = m['files'] as Record<string, unknown> | undefined;
  if (typeof files !== 'object' || files === null) fail('files', `expected entries for ${MODEL_FILES.join(', ')}`);
  for (const f of MODEL_FILES) {
    const e = files![f] as Record<string, unknown> | undefined;
    if (typeof e !== 'object' || e === null || typeof e['sha256'] !== 'string' || !SHA.test(e['sha256']))
      fail(`files["${f}"].sha256`, 'expected a hex sha256');
  }
  return m as unknown as ModelManifest;
}
