/**
 * Training AP-HIQL's goal-conditioned executor (HIQL, Park et al. 2023; SAGAS Appendix E's learning
 * baseline) on the same offline data as the backbone. HIQL's value V(s, g) is the backbone's own:
 * ψ is an IQL goal-conditioned value with a distance parametrisation, V(s, g) = −‖ψ(s) − ψ(g)‖,
 * fitted by expectile TD on hindsight goals (embed-trainer.ts), and HIQL's subgoal representation φ
 * is that value's representation, φ = ψ. So only the two policies are trained here, both by
 * advantage-weighted regression (a weighted MSE, deterministic policies):
 * - π_h(s, ψ(g) − ψ(s)) → ψ(s_{t+k}) − ψ(s), k = subgoalSteps (capped at the goal and the
 *   trajectory's end), goals drawn uniformly from the same trajectory's future, weight
 *   exp(α_h · (V(s_{t+k}, g) − V(s_t, g))), clipped at maxWeight;
 * - π_l(s, ψ(w) − ψ(s)) → a_t, w = s_{t+k}, weight exp(α_l · (V(s_{t+1}, w) − V(s_t, w))), clipped.
 * Both read ψ offsets from the current state rather than absolute ψ (the same information: the
 * caller has ψ(s) at every step), in units of k (offsets × `latentScale` = 1/k, so inputs and
 * targets are of order 1), which small networks learn far more easily. Deterministic from the seed.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import { type Dataset, trajectoryEnds } from '../../core/data/dataset.js';
import { type Mlp, initMlp } from '../../core/models/mlp.js';
import { type Rng, createRng } from '../../core/random/rng.js';
import { HIQL_DEFAULTS } from '../../contract/defaults.js';
import { tensorflow } from './tf.js';
import { type TfMlp, apply, dispose, readBack, toVariables, variables } from './tf-mlp.js';
import type { TrainProgress } from './embed-trainer.js';
import { breathe } from '../../platform/event-loop.js';

export interface HiqlConfig {
  readonly hidden: readonly number[];
  readonly batch: number;
  /** Gradient steps; each trains both policies on a batch of their own. */
  readonly steps: number;
  readonly learningRate: number;
  /** k: how far ahead (dataset steps) a subgoal lies. */
  readonly subgoalSteps: number;
  /** AWR temperatures of π_h and π_l. */
  readonly highAlpha: number;
  readonly lowAlpha: number;
  readonly maxWeight: number;
  readonly seed: number;
}

export const DEFAULT_HIQL: HiqlConfig = HIQL_DEFAULTS;

export interface TrainedHiql {
  /** π_h: [obs ‖ (ψ(g) − ψ(s))·latentScale] → (ψ(subgoal) − ψ(s))·latentScale (linear). */
  readonly high: Mlp;
  /** π_l: [obs ‖ (ψ(w) − ψ(s))·latentScale] → action in [−1, 1] (tanh). */
  readonly low: Mlp;
  /** 1 / subgoalSteps: how latent offsets are scaled on the way into and out of both networks. */
  readonly latentScale: number;
  readonly config: HiqlConfig;
  /** The weighted losses on one fixed evaluation batch, before and after training. */
  readonly evalLoss: { readonly high: readonly [number, number]; readonly low: readonly [number, number] };
}

/** The dataset's normalised observations and their latents ψ(s) (policy-trainer.ts embedDataset, or any embed.onnx). */
export interface Embedded {
  readonly obs: Float32Array;
  readonly latent: Float32Array;
  readonly dim: number;
}

interface Batch {
  readonly x: Float32Array;
  readonly y: Float32Array;
  readonly w: Float32Array;
}

export async function trainHiql(
  d: Dataset,
  e: Embedded,
  c: HiqlConfig,
  progress?: TrainProgress,
): Promise<TrainedHiql> {
  const tf = await tensorflow();
  const rng = createRng(c.seed);
  const k = d.obsDim,
    a = d.actDim,
    { obs, latent, dim } = e;
  const n = d.terminals.length;
  const ends = trajectoryEnds(d.terminals);
  const rows: number[] = [];
  for (let i = 0; i < n; i++) if (d.terminals[i] === 0) rows.push(i);
  if (rows.length === 0) throw new RangeError('the dataset has no transition with a successor state');
  const dist = (i: number, j: number): number => {
    let s = 0;
    for (let q = 0; q < dim; q++) s += (latent[i * dim + q]! - latent[j * dim + q]!) ** 2;
    return Math.sqrt(s);
  };
  const weight = (alpha: number, adv: number): number => Math.min(c.maxWeight, Math.exp(alpha * adv));
  const B = c.batch;
  const sc = 1 / c.subgoalSteps;
  const highBatch = (r: Rng): Batch => {
    const x = new Float32Array(B * (k + dim)),
      y = new Float32Array(B * dim),
      w = new Float32Array(B);
    for (let b = 0; b < B; b++) {
      const i = rows[r.int(0, rows.length - 1)]!;
      const g = r.int(i + 1, ends[i]!);
      const s = Math.min(i + c.subgoalSteps, g);
      x.set(obs.subarray(i * k, i * k + k), b * (k + dim));
      for (let q = 0; q < dim; q++) {
        x[b * (k + dim) + k + q] = (latent[g * dim + q]! - latent[i * dim + q]!) * sc;
        y[b * dim + q] = (latent[s * dim + q]! - latent[i * dim + q]!) * sc;
      }
      w[b] = weight(c.highAlpha, dist(i, g) - dist(s, g));
    }
    return { x, y, w };
  };
  const lowBatch = (r: Rng): Batch => {
    const x = new Float32Array(B * (k + dim)),
      y = new Float32Array(B * a),
      w = new Float32Array(B);
    for (let b = 0; b < B; b++) {
      const i = rows[r.int(0, rows.length - 1)]!;
      const s = Math.min(i + c.subgoalSteps, ends[i]!);
      x.set(obs.subarray(i * k, i * k + k), b * (k + dim));
      for (let q = 0; q < dim; q++) x[b * (k + dim) + k + q] = (latent[s * dim + q]! - latent[i * dim + q]!) * sc;
      y.set(d.actions.subarray(i * a, i * a + a), b * a);
      w[b] = weight(c.lowAlpha, dist(i, s) - dist(i + 1, s));
    }
    return { x, y, w };
  };

  const high = toVariables(tf, initMlp(rng, [k + dim, ...c.hidden, dim], 'relu', 'linear'));
  const low = toVariables(tf, initMlp(rng, [k + dim, ...c.hidden, a], 'relu', 'tanh'));
  const highOpt = tf.train.adam(c.learningRate),
    lowOpt = tf.train.adam(c.learningRate);
  /**
   * mean_b w_b · ‖π(x_b) − y_b‖² (the weights normalised by their mean, so the scale of the step does not depend on α).
   */
  const loss = (m: TfMlp, bt: Batch, out: number): tfTypes.Scalar => {
    const x = tf.tensor2d(bt.x, [B, k + dim]),
      y = tf.tensor2d(bt.y, [B, out]),
      w = tf.tensor1d(bt.w);
    const wn = tf.div(w, tf.add(tf.mean(w), 1e-8));
    return tf.mean<tfTypes.Scalar>(tf.mul(wn, tf.sum(tf.square(tf.sub(apply(tf, m, x), y)), 1)));
  };
  const evalRng = createRng(c.seed + 0x5eed);
  const evalHigh = highBatch(evalRng),
    evalLow = lowBatch(evalRng);
  const evaluate = async (): Promise<[number, number]> => {
    const [h, l] = tf.tidy(() => [loss(high, evalHigh, dim), loss(low, evalLow, a)]);
    const out: [number, number] = [(await h.data())[0]!, (await l.data())[0]!];
    h.dispose();
    l.dispose();
    return out;
  };
  const before = await evaluate();
  for (let step = 0; step < c.steps; step++) {
    const hb = highBatch(rng),
      lb = lowBatch(rng);
    const l = tf.tidy(() => {
      const lh = highOpt.minimize(() => loss(high, hb, dim), true, variables(high))!;
      lowOpt.minimize(() => loss(low, lb, a), false, variables(low));
      return lh;
    });
    if (progress !== undefined && ((step + 1) % 100 === 0 || step + 1 === c.steps))
      progress(step + 1, c.steps, (await l.data())[0]!);
    l.dispose();
    await breathe();
  }
  const after = await evaluate();
  const result: TrainedHiql = {
    high: await readBack(high),
    low: await readBack(low),
    latentScale: sc,
    config: c,
    evalLoss: { high: [before[0], after[0]], low: [before[1], after[1]] },
  };
  dispose(high, low);
  highOpt.dispose();
  lowOpt.dispose();
  return result;
}
