/**
 * Training checkpoints: networks, optimiser state and the generator's state at a step boundary, so
 * that a resumed run continues as an uninterrupted one would (to float rounding: the optimiser's
 * bias-correction powers are recomputed on restore). Stored as JSON with the
 * arrays base64-encoded (the networks are small), written atomically.
 */
import { WitnessError } from '../../contract/errors.js';
import type * as tfTypes from '@tensorflow/tfjs';
import type { Mlp } from '../../core/models/mlp.js';
import { writeFileAtomic } from '../../platform/files.js';
import { breathe } from '../../platform/event-loop.js';
import { INPUT, InputRefused, readInputText } from '../../platform/input-files.js';
import type { Tf } from './tf.js';
import { parseJsonText } from '../../core/input/json.js';

export interface OptimizerState {
  readonly name: string;
  readonly shape: number[];
  readonly data: Float32Array;
}

export interface Checkpoint {
  readonly kind: 'embed' | 'policy';
  /** Gradient steps done. */
  readonly step: number;
  /** The run's configuration without `steps` (a resumed run must match it). */
  readonly config: Record<string, unknown>;
  readonly rng: number[];
  readonly nets: Record<string, Mlp>;
  readonly optimizers: Record<string, OptimizerState[]>;
}

class CheckpointError extends WitnessError {
  override readonly name = 'CheckpointError';
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super('invalid-input', `${file}: ${detail}`, { file });
  }
}

const b64 = (a: Float32Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const unb64 = (s: string): Float32Array => {
  const b = Buffer.from(s, 'base64');
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
};

export async function saveOptimizer(opt: tfTypes.Optimizer): Promise<OptimizerState[]> {
  const ws = await opt.getWeights();
  return Promise.all(
    ws.map(async (w) => ({ name: w.name, shape: [...w.tensor.shape], data: new Float32Array(await w.tensor.data()) })),
  );
}

export async function restoreOptimizer(
  tf: Tf,
  opt: tfTypes.Optimizer,
  state: readonly OptimizerState[],
): Promise<void> {
  await opt.setWeights(state.map((s) => ({ name: s.name, tensor: tf.tensor(s.data, s.shape) })));
}

/** Configurations must agree on everything but the number of steps. */
export function sameRun(a: Record<string, unknown>, b: Record<string, unknown>): string | null {
  const strip = (x: Record<string, unknown>): string =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(x)
          .filter(([k]) => k !== 'steps')
          .sort(),
      ),
    );
  return strip(a) === strip(b) ? null : `the checkpoint was made with ${strip(a)}, this run uses ${strip(b)}`;
}

export async function writeCheckpoint(path: string, ck: Checkpoint): Promise<void> {
  const json = {
    format: 'witness-checkpoint',
    version: 1,
    kind: ck.kind,
    step: ck.step,
    config: ck.config,
    rng: ck.rng,
    nets: Object.fromEntries(
      Object.entries(ck.nets).map(([k, m]) => [
        k,
        m.layers.map((l) => ({ ...l, weights: b64(l.weights), bias: b64(l.bias) })),
      ]),
    ),
    optimizers: Object.fromEntries(
      Object.entries(ck.optimizers).map(([k, os]) => [k, os.map((o) => ({ ...o, data: b64(o.data) }))]),
    ),
  };
  await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(json)));
}

export async function readCheckpoint(path: string, kind: Checkpoint['kind']): Promise<Checkpoint> {
  let j: Record<string, unknown>;
  try {
    j = parseJsonText(await readInputText(path, INPUT.checkpoint)) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new CheckpointError(path, `not a checkpoint: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (j['format'] !== 'witness-checkpoint' || j['version'] !== 1)
    throw new CheckpointError(path, 'not a witness checkpoint (format/version)');
  if (j['kind'] !== kind) throw new CheckpointError(path, `is a ${String(j['kind'])} checkpoint, expected ${kind}`);
  type L = {
    inputs: number;
    outputs: number;
    weights: string;
    bias: string;
    activation: Mlp['layers'][number]['activation'];
  };
  const nets = Object.fromEntries(
    Object.entries(j['nets'] as Record<string, L[]>).map(([k, ls]) => [
      k,
      {
        layers: ls.map((l) => ({
          inputs: l.inputs,
          outputs: l.outputs,
          activation: l.activation,
          weights: unb64(l.weights),
          bias: unb64(l.bias),
        })),
      },
    ]),
  );
  const optimizers = Object.fromEntries(
    Object.entries(j['optimizers'] as Record<string, { name: string; shape: number[]; data: string }[]>).map(
      ([k, os]) => [k, os.map((o) => ({ ...o, data: unb64(o.data) }))],
    ),
  );
  return {
    kind,
    step: j['step'] as number,
    config: j['config'] as Record<string, unknown>,
    rng: j['rng'] as number[],
    nets,
    optimizers,
  };
}

/**
 * After a gradient step: read the loss every 100 steps (and at the end) for progress, and write a
 * checkpoint when one is due. Returns the loss when it was read.
 */
export async function afterStep(
  step: number,
  total: number,
  loss: tfTypes.Tensor,
  progress: ((step: number, total: number, loss: number) => void) | undefined,
  every: number | undefined,
  onCheckpoint: ((ck: Checkpoint) => Promise<void>) | undefined,
  checkpoint: (step: number) => Promise<Checkpoint>,
): Promise<number | undefined> {
  let value: number | undefined;
  if (step % 100 === 0 || step === total - 1) {
    value = (await loss.data())[0]!;
    progress?.(step + 1, total, value);
  }
  loss.dispose();
  await breathe();
  if (onCheckpoint && every && ((step + 1) % every === 0 || step === total - 1))
    await onCheckpoint(await checkpoint(step + 1));
  return value;
}
