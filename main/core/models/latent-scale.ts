/**
 * The latent's scale at the planner's resolution, and rescaling ψ to a fixed one. Pure.
 *
 * The mission pipeline reads latent distances against H_TD: the graph merges states within H_TD/2
 * and joins nodes within H_TD, the temporal-efficiency filter looks H_TD ahead, the executor accepts
 * a waypoint within H_TD/2. Those thresholds were tuned on expectile-TD embeddings, where a
 * recorded H_TD-step offset spans a little under H_TD latent units (median 0.89·H_TD on the
 * shipped medium ψ). Another ψ objective (path distance) measures a different unit — the
 * low-expectile of recorded steps, about three times larger on giant — and the same thresholds
 * then cut its graph too fine. A final linear layer scaled by a constant changes no ranking and
 * no direction: it only moves the unit, so the backbone can be rescaled to the pipeline's.
 */
import type { Mlp } from './mlp.js';
import { trajectoryEnds } from '../data/dataset.js';

/**
 * The median over recorded offsets of ‖ψ(s_{t+k}) − ψ(s_t)‖ / k, for pairs within one trajectory
 * (`terminals[i] = 1` ends one), sampling every `stride`-th start. Throws when no pair exists.
 */
export function medianOffsetRatio(
  latent: Float32Array,
  dim: number,
  terminals: Uint8Array,
  k: number,
  stride = 1,
): number {
  const n = terminals.length;
  if (latent.length !== n * dim) throw new RangeError(`latents: expected ${n}×${dim} values, got ${latent.length}`);
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`the offset must be a positive integer, got ${k}`);
  if (!(Number.isInteger(stride) && stride >= 1))
    throw new RangeError(`the stride must be a positive integer, got ${stride}`);
  const ends = trajectoryEnds(terminals);
  const ratios: number[] = [];
  for (let t = 0; t < n; t += stride) {
    if (t + k > ends[t]!) continue;
    let s = 0;
    for (let q = 0; q < dim; q++) {
      const x = latent[(t + k) * dim + q]! - latent[t * dim + q]!;
      s += x * x;
    }
    ratios.push(Math.sqrt(s) / k);
  }
  if (ratios.length === 0) throw new RangeError(`no trajectory holds a ${k}-step offset`);
  ratios.sort((a, b) => a - b);
  const m = ratios.length >> 1;
  return ratios.length % 2 === 1 ? ratios[m]! : (ratios[m - 1]! + ratios[m]!) / 2;
}

/** ψ with its output multiplied by `factor` (the last layer's weights and bias; a linear output layer). */
export function scaleOutput(m: Mlp, factor: number): Mlp {
  if (!(Number.isFinite(factor) && factor > 0))
    throw new RangeError(`the scale factor must be a positive number, got ${factor}`);
  const last = m.layers[m.layers.length - 1];
  if (last === undefined) throw new RangeError('an MLP needs at least one layer');
  if (last.activation !== 'linear')
    throw new RangeError(`only a linear output layer can be rescaled, this one is ${last.activation}`);
  return {
    layers: [
      ...m.layers.slice(0, -1),
      { ...last, weights: last.weights.map((w) => w * factor), bias: last.bias.map((b) => b * factor) },
    ],
  };
}

/** The factor that moves the median H-step ratio from `measured` to `target`. */
export function calibrationFactor(measured: number, target: number): number {
  if (!(measured > 0))
    throw new RangeError(
      `the measured latent ratio must be positive, got ${measured}: ψ maps recorded offsets to one point`,
    );
  if (!(target > 0)) throw new RangeError(`the target latent ratio must be positive, got ${target}`);
  return target / measured;
}
