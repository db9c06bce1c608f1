/**
 * Training the temporal-distance embedding ψ (SAGAS Appendix B.1, after GAS/HILP): the value
 * V(s, g) = −‖ψ(s) − ψ(g)‖ is fitted to the TD target r + γ·m·V̄(s', g) with an expectile loss
 * (IQL style), on hindsight goals: the state itself, a geometric-offset future state of the same
 * trajectory, or a random state. r = 0 and m = 0 when the goal is the state itself, else r = −1.
 * V̄ is a slowly moving (EMA) copy. Deterministic from the seed.
 */
import { type Dataset, trajectoryEnds } from '../../core/data/dataset.js';
import { type Mlp, initMlp } from '../../core/models/mlp.js';
import { type Rng, createRng } from '../../core/random/rng.js';
import { EMBED_DEFAULTS } from '../../contract/defaults.js';
import { tensorflow } from './tf.js';
import { type TfMlp, apply, dispose, ema, readBack, toVariables, variables } from './tf-mlp.js';
import { type Checkpoint, afterStep, restoreOptimizer, sameRun, saveOptimizer } from './checkpoint.js';
import type * as tfTypes from '@tensorflow/tfjs';

export interface EmbedConfig {
  readonly hidden: readonly number[];
  readonly latent: number;
  readonly batch: number;
  readonly steps: number;
  readonly learningRate: number;
  readonly gamma: number;
  readonly expectile: number;
  /** EMA rate of the target network. */
  readonly tau: number;
  readonly pCurrent: number;
  readonly pTrajectory: number;
  /**
   * Trajectory goals k steps ahead also bound the value from below by the recorded path's return,
   * −(1 − γ^k)/(1 − γ): the TD target is raised to it. Long distances then need not propagate
   * through one bootstrap per step (what kept a large maze's ψ flat within a short training).
   */
  readonly pathBound?: boolean;
  /**
   * 'expectile-td' (default): the TD fit above. 'path-distance': no bootstrapping — ‖ψ(s) − ψ(g)‖
   * is fitted to the number of steps k from s to a later state g of the same trajectory with a low
   * expectile (1 − expectile), so it settles near the shortest of the recorded ways between two
   * states rather than their mean; goals are geometric offsets (with γ) or uniform to the
   * trajectory's end, half each. The distance is in steps at every range, where the discounted
   * value flattens past its horizon 1/(1 − γ).
   */
  readonly objective?: 'expectile-td' | 'path-distance';
  /**
   * The observation entries ψ reads (absent: all). The others are zero in training and their
   * first-layer weights zero in the result, so ψ is exactly invariant to them: an Ant's ψ reads its
   * planar state (x, y, ẋ, ẏ) and not the gait's joint phase, which would split every place into
   * many latent nodes; π_low still reads the whole observation.
   */
  readonly inputs?: readonly number[];
  readonly seed: number;
}

export const DEFAULT_EMBED: EmbedConfig = EMBED_DEFAULTS;

export interface Normalization {
  readonly mean: number[];
  readonly std: number[];
}

function normalization(d: Dataset): Normalization {
  const n = d.terminals.length,
    k = d.obsDim;
  const mean = new Array<number>(k).fill(0),
    sq = new Array<number>(k).fill(0);
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) mean[j]! += d.observations[r * k + j]!;
  for (let j = 0; j < k; j++) mean[j]! /= n;
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) sq[j]! += (d.observations[r * k + j]! - mean[j]!) ** 2;
  return { mean, std: sq.map((s) => Math.max(1e-3, Math.sqrt(s / n))) };
}

export interface TrainProgress {
  (step: number, total: number, loss: number): void;
}

export interface TrainedEmbedding {
  readonly mlp: Mlp;
  readonly normalization: Normalization;
  readonly config: EmbedConfig;
  readonly finalLoss: number;
}

export interface ResumeOptions {
  /** Continue from this checkpoint (same configuration except the number of steps). */
  readonly resume?: Checkpoint;
  /** Call onCheckpoint every this many steps (and at the end). */
  readonly checkpointEvery?: number;
  readonly onCheckpoint?: (ck: Checkpoint) => Promise<void>;
}

export async function trainEmbedding(
  d: Dataset,
  c: EmbedConfig,
  progress?: TrainProgress,
  ro: ResumeOptions = {},
): Promise<TrainedEmbedding> {
  const tf = await tensorflow();
  const rng = createRng(c.seed);
  const norm = normalization(d);
  const k = d.obsDim,
    n = d.terminals.length;
  const obs = new Float32Array(d.observations.length);
  const read = inputMask(c.inputs, k);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < k; j++)
      obs[r * k + j] = read[j] ? (d.observations[r * k + j]! - norm.mean[j]!) / norm.std[j]! : 0;
  const ends = trajectoryEnds(d.terminals);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) if (d.terminals[i] === 0) starts.push(i); // rows with a successor
  if (starts.length === 0) throw new RangeError('the dataset has no transition with a successor state');

  const init = initMlp(rng, [k, ...c.hidden, c.latent], 'relu', 'linear');
  const runConfig = { ...c, hidden: [...c.hidden] } as unknown as Record<string, unknown>;
  if (ro.resume) {
    const why = sameRun(ro.resume.config, runConfig);
    if (why !== null) throw new RangeError(`cannot resume: ${why}`);
    rng.setState(ro.resume.rng);
  }
  const online = toVariables(tf, ro.resume?.nets['online'] ?? init);
  const target = toVariables(tf, ro.resume?.nets['target'] ?? init, false);
  const psi = (m: TfMlp, x: tfTypes.Tensor2D): tfTypes.Tensor2D => apply(tf, m, x);
  const dist = (a: tfTypes.Tensor2D, b: tfTypes.Tensor2D): tfTypes.Tensor1D =>
    tf.sqrt(tf.add(tf.sum(tf.square(tf.sub(a, b)), 1), 1e-6)) as tfTypes.Tensor1D;
  const optimizer = tf.train.adam(c.learningRate);
  const varList = variables(online);
  if (ro.resume) await restoreOptimizer(tf, optimizer, ro.resume.optimizers['adam'] ?? []);
  const checkpoint = async (step: number): Promise<Checkpoint> => ({
    kind: 'embed',
    step,
    config: runConfig,
    rng: rng.getState(),
    nets: { online: await readBack(online), target: await readBack(target) },
    optimizers: { adam: await saveOptimizer(optimizer) },
  });

  const B = c.batch;
  const bt: EmbedBatch = {
    S: new Float32Array(B * k),
    SN: new Float32Array(B * k),
    G: new Float32Array(B * k),
    R: new Float32Array(B),
    M: new Float32Array(B),
    L: new Float32Array(B),
  };
  const { S, SN, G, R, M, L } = bt;
  const pathDistance = c.objective === 'path-distance';
  let lastLoss = NaN;
  for (let step = ro.resume?.step ?? 0; step < c.steps; step++) {
    fillEmbedBatch(bt, { obs, starts, ends, n, k }, rng, c);
    const loss = pathDistance
      ? tf.tidy(() => {
          const s = tf.tensor2d(S, [B, k]),
            g = tf.tensor2d(G, [B, k]),
            steps = tf.tensor1d(R);
          const l = optimizer.minimize(
            () => {
              const resid = tf.sub(steps, dist(psi(online, s), psi(online, g)));
              const weight = tf.where(
                tf.greaterEqual(resid, 0),
                tf.fill([B], 1 - c.expectile),
                tf.fill([B], c.expectile),
              );
              return tf.mean<tfTypes.Scalar>(tf.mul(weight, tf.square(resid)));
            },
            true,
            varList,
          );
          return l!;
        })
      : tf.tidy(() => {
          const s = tf.tensor2d(S, [B, k]),
            sn = tf.tensor2d(SN, [B, k]),
            g = tf.tensor2d(G, [B, k]);
          const r = tf.tensor1d(R),
            m = tf.tensor1d(M);
          const tg = psi(target, g);
          const td = tf.add(r, tf.mul(c.gamma, tf.mul(m, tf.neg(dist(psi(target, sn), tg)))));
          const tgt = c.pathBound === true ? tf.maximum(td, tf.tensor1d(L)) : td;
          const adv = tf.sub(tgt, tf.neg(dist(psi(target, s), tg)));
          const weight = tf.where(tf.greaterEqual(adv, 0), tf.fill([B], c.expectile), tf.fill([B], 1 - c.expectile));
          const l = optimizer.minimize(
            () => {
              const v = tf.neg(dist(psi(online, s), psi(online, g)));
              return tf.mean<tfTypes.Scalar>(tf.mul(weight, tf.square(tf.sub(tgt, v))));
            },
            true,
            varList,
          );
          ema(tf, online, target, c.tau);
          return l!;
        });
    lastLoss =
      (await afterStep(step, c.steps, loss, progress, ro.checkpointEvery, ro.onCheckpoint, checkpoint)) ?? lastLoss;
  }
  const mlp = ignoreInputs(await readBack(online), read);
  dispose(online, target);
  optimizer.dispose();
  return { mlp, normalization: norm, config: c, finalLoss: lastLoss };
}

/** One batch of the embedding's training: states, next states, goals, rewards, masks and path bounds. */
interface EmbedBatch {
  readonly S: Float32Array;
  readonly SN: Float32Array;
  readonly G: Float32Array;
  readonly R: Float32Array;
  readonly M: Float32Array;
  readonly L: Float32Array;
}

/**
 * Samples a batch: a row with a successor, and a goal that is the row itself, a later row of its trajectory
 * (geometric offset) or any row, in the configured proportions.
 */
function fillEmbedBatch(
  bt: EmbedBatch,
  d: { obs: Float32Array; starts: readonly number[]; ends: ArrayLike<number>; n: number; k: number },
  rng: Rng,
  c: EmbedConfig,
): void {
  const { S, SN, G, R, M, L } = bt;
  const { obs, starts, ends, n, k } = d;
  const noBound = -1e9;
  const pathDistance = c.objective === 'path-distance';
  const geometric = (): number => Math.max(1, Math.ceil(Math.log(1 - rng.next()) / Math.log(c.gamma)));
  for (let b = 0; b < R.length; b++) {
    const i = starts[rng.int(0, starts.length - 1)]!;
    const u = rng.next();
    let g: number;
    L[b] = noBound;
    if (pathDistance) {
      g = u < c.pCurrent ? i : rng.next() < 0.5 ? Math.min(ends[i]!, i + geometric()) : rng.int(i + 1, ends[i]!);
      R[b] = g - i;
      S.set(obs.subarray(i * k, i * k + k), b * k);
      G.set(obs.subarray(g * k, g * k + k), b * k);
      continue;
    }
    if (u < c.pCurrent) g = i;
    else if (u < c.pCurrent + c.pTrajectory) {
      g = Math.min(ends[i]!, i + geometric());
      if (c.pathBound === true) L[b] = -(1 - c.gamma ** (g - i)) / (1 - c.gamma);
    } else g = rng.int(0, n - 1);
    S.set(obs.subarray(i * k, i * k + k), b * k);
    SN.set(obs.subarray((i + 1) * k, (i + 2) * k), b * k);
    G.set(obs.subarray(g * k, g * k + k), b * k);
    const success = g === i;
    R[b] = success ? 0 : -1;
    M[b] = success ? 0 : 1;
  }
}

/** Which of k observation entries ψ reads (EmbedConfig.inputs); a bad index is a RangeError. */
export function inputMask(inputs: readonly number[] | undefined, k: number): boolean[] {
  if (inputs === undefined) return Array.from({ length: k }, () => true);
  if (inputs.length === 0) throw new RangeError('ψ must read at least one observation entry (inputs is empty)');
  const bad = inputs.find((i) => !Number.isInteger(i) || i < 0 || i >= k);
  if (bad !== undefined)
    throw new RangeError(`ψ's inputs name entry ${bad}, but the observation has ${k} entries (0 to ${k - 1})`);
  const read = Array.from({ length: k }, () => false);
  for (const i of inputs) read[i] = true;
  return read;
}

/** The MLP with the first-layer weights of unread inputs set to zero: its output no longer depends on them. */
function ignoreInputs(m: Mlp, read: readonly boolean[]): Mlp {
  if (read.every((x) => x)) return m;
  const [first, ...rest] = m.layers;
  const w = Float32Array.from(first!.weights);
  for (let i = 0; i < first!.inputs; i++) if (read[i] !== true) w.fill(0, i * first!.outputs, (i + 1) * first!.outputs);
  return { layers: [{ ...first!, weights: w }, ...rest] };
}

/** The trainer's own forward pass (TensorFlow.js), for parity checks against exported models. */
export async function tfForward(m: Mlp, x: Float32Array, rows: number): Promise<Float32Array> {
  const tf = await tensorflow();
  const y = tf.tidy(() => {
    let h: tfTypes.Tensor2D = tf.tensor2d(x, [rows, m.layers[0]!.inputs]);
    for (const l of m.layers) {
      h = tf.add(tf.matMul(h, tf.tensor2d(l.weights, [l.inputs, l.outputs])), tf.tensor1d(l.bias));
      if (l.activation === 'relu') h = tf.relu(h);
      else if (l.activation === 'tanh') h = tf.tanh(h);
    }
    return h;
  });
  const out = new Float32Array(await y.data());
  y.dispose();
  return out;
}
