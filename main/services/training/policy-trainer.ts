/**
 * Training the executor π_low (SAGAS Appendix B.1, after GAS): conditioned on the unit latent
 * direction z = (ψ(s_sub) − ψ(s)) / ‖·‖ toward the subgoal s_sub = F(s, H_TD) (the first later state
 * of the trajectory at latent distance ≥ H_TD), rewarded by ⟨ψ(s') − ψ(s), z⟩, and optimised with
 * DDPG+BC (TD3+BC): twin critics with target networks, actor loss −λ·Q(s, z, π(s, z)) + ‖π − a‖²,
 * λ = α / mean|Q|. Deterministic from the seed.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import { type Dataset, trajectoryEnds } from '../../core/data/dataset.js';
import { type Mlp, forward, initMlp } from '../../core/models/mlp.js';
import { type Rng, createRng } from '../../core/random/rng.js';
import { tensorflow } from './tf.js';
import { apply, dispose, ema, readBack, toVariables, variables } from './tf-mlp.js';
import type { Normalization, ResumeOptions, TrainProgress } from './embed-trainer.js';
import { POLICY_DEFAULTS } from '../../contract/defaults.js';
import { type Checkpoint, afterStep, restoreOptimizer, sameRun, saveOptimizer } from './checkpoint.js';

export interface PolicyConfig {
  readonly hidden: readonly number[];
  readonly batch: number;
  readonly steps: number;
  readonly learningRate: number;
  readonly gamma: number;
  readonly tau: number;
  /** TD3+BC's α: larger trusts the critic more, smaller stays closer to the data. */
  readonly alpha: number;
  /** Subgoal horizon in latent distance (the graph's H_TD). */
  readonly H_TD: number;
  /**
   * Subgoal horizons to train on instead of H_TD alone, in latent units, taken in turn row by row
   * (row i uses horizons[i mod length]): an executor trained also on far subgoals learns to follow
   * a latent direction around corners, as it must toward graph waypoints.
   */
  readonly subgoalHorizons?: readonly number[];
  readonly seed: number;
}

export const DEFAULT_POLICY: PolicyConfig = POLICY_DEFAULTS;

export interface Subgoals {
  /** Rows usable for training (with a successor and a non-degenerate direction). */
  readonly rows: Int32Array;
  /** Unit latent directions, rows × d_h, aligned with `rows`. */
  readonly directions: Float32Array;
  /** The subgoal row F(s, H_TD) of each entry of `rows`. */
  readonly targets: Int32Array;
}

/** Normalised observations and their latents for a whole dataset. */
export function embedDataset(
  d: Dataset,
  psi: Mlp,
  norm: Normalization,
): { obs: Float32Array; latent: Float32Array; dim: number } {
  const n = d.terminals.length,
    k = d.obsDim;
  const obs = new Float32Array(n * k);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < k; j++) obs[r * k + j] = (d.observations[r * k + j]! - norm.mean[j]!) / norm.std[j]!;
  const dim = psi.layers[psi.layers.length - 1]!.outputs;
  const latent = new Float32Array(n * dim);
  const chunk = 8192;
  for (let r = 0; r < n; r += chunk) {
    const rows = Math.min(chunk, n - r);
    latent.set(forward(psi, obs.subarray(r * k, (r + rows) * k), rows), r * dim);
  }
  return { obs, latent, dim };
}

/** s_sub = F(s, H) for every row (H = H_TD, or horizons[row mod length]), and the unit direction toward it. */
export function subgoals(
  terminals: Uint8Array,
  latent: Float32Array,
  dim: number,
  H_TD: number,
  horizons?: readonly number[],
): Subgoals {
  if (horizons !== undefined && (horizons.length === 0 || horizons.some((h) => !(h > 0))))
    throw new RangeError(`subgoal horizons must be positive latent distances, got [${horizons.join(', ')}]`);
  const n = terminals.length;
  // Typed arrays sized for every row, cut to the rows kept: a JS array of rows × dim directions
  // passes V8's largest array past about 2M rows of a 64-D latent (a fatal error, not an exception).
  const rows = new Int32Array(n);
  const dirs = new Float32Array(n * dim);
  const targets = new Int32Array(n);
  let kept = 0;
  const ends = trajectoryEnds(terminals);
  const dist = (a: number, b: number): number => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += (latent[a * dim + j]! - latent[b * dim + j]!) ** 2;
    return Math.sqrt(s);
  };
  for (let i = 0; i < n; i++) {
    if (terminals[i] === 1) continue;
    let j = i + 1;
    const H = horizons !== undefined ? horizons[i % horizons.length]! : H_TD;
    while (j < ends[i]! && dist(i, j) < H) j++;
    const len = dist(i, j);
    if (len < 1e-6) continue;
    rows[kept] = i;
    targets[kept] = j;
    for (let q = 0; q < dim; q++) dirs[kept * dim + q] = (latent[j * dim + q]! - latent[i * dim + q]!) / len;
    kept++;
  }
  return { rows: rows.slice(0, kept), directions: dirs.slice(0, kept * dim), targets: targets.slice(0, kept) };
}

/**
 * Samples a batch: a transition, a subgoal direction from it, and the reward, the latent step's projection on the
 * direction.
 */
function fillPolicyBatch(
  bt: { S: Float32Array; SN: Float32Array; Z: Float32Array; A: Float32Array; R: Float32Array },
  d: { obs: Float32Array; latent: Float32Array; dim: number; actions: Float32Array; k: number; a: number },
  sg: { rows: Int32Array | number[]; directions: Float32Array },
  rng: Rng,
): void {
  const { S, SN, Z, A, R } = bt;
  const { obs, latent, dim, actions, k, a } = d;
  for (let b = 0; b < R.length; b++) {
    const t = rng.int(0, sg.rows.length - 1);
    const i = sg.rows[t]!;
    S.set(obs.subarray(i * k, i * k + k), b * k);
    SN.set(obs.subarray((i + 1) * k, (i + 2) * k), b * k);
    Z.set(sg.directions.subarray(t * dim, t * dim + dim), b * dim);
    A.set(actions.subarray(i * a, i * a + a), b * a);
    let r = 0;
    for (let j = 0; j < dim; j++)
      r += (latent[(i + 1) * dim + j]! - latent[i * dim + j]!) * sg.directions[t * dim + j]!;
    R[b] = r;
  }
}

export interface TrainedPolicy {
  readonly mlp: Mlp;
  readonly config: PolicyConfig;
  readonly finalCriticLoss: number;
}

/**
 * `embedded` holds the dataset's normalised observations and their latents ψ(s) (from our ψ or
 * from any embed.onnx), so the executor can be trained on an embedding trained elsewhere.
 */
export async function trainPolicy(
  d: Dataset,
  embedded: { obs: Float32Array; latent: Float32Array; dim: number },
  c: PolicyConfig,
  progress?: TrainProgress,
  ro: ResumeOptions = {},
): Promise<TrainedPolicy> {
  const tf = await tensorflow();
  const rng = createRng(c.seed);
  const k = d.obsDim,
    a = d.actDim;
  const { obs, latent, dim } = embedded;
  const sg = subgoals(d.terminals, latent, dim, c.H_TD, c.subgoalHorizons);
  if (sg.rows.length === 0) throw new RangeError('no usable transitions: every trajectory is shorter than one step');

  const actorInit = initMlp(rng, [k + dim, ...c.hidden, a], 'relu', 'tanh');
  const criticInit1 = initMlp(rng, [k + dim + a, ...c.hidden, 1], 'relu', 'linear');
  const criticInit2 = initMlp(rng, [k + dim + a, ...c.hidden, 1], 'relu', 'linear');
  const runConfig = { ...c, hidden: [...c.hidden] } as unknown as Record<string, unknown>;
  const from = ro.resume?.nets;
  if (ro.resume) {
    const why = sameRun(ro.resume.config, runConfig);
    if (why !== null) throw new RangeError(`cannot resume: ${why}`);
    rng.setState(ro.resume.rng);
  }
  const actor = toVariables(tf, from?.['actor'] ?? actorInit),
    actorT = toVariables(tf, from?.['actorTarget'] ?? actorInit, false);
  const q1 = toVariables(tf, from?.['q1'] ?? criticInit1),
    q1T = toVariables(tf, from?.['q1Target'] ?? criticInit1, false);
  const q2 = toVariables(tf, from?.['q2'] ?? criticInit2),
    q2T = toVariables(tf, from?.['q2Target'] ?? criticInit2, false);
  const actorOpt = tf.train.adam(c.learningRate),
    criticOpt = tf.train.adam(c.learningRate);
  if (ro.resume) {
    await restoreOptimizer(tf, actorOpt, ro.resume.optimizers['actor'] ?? []);
    await restoreOptimizer(tf, criticOpt, ro.resume.optimizers['critic'] ?? []);
  }
  const checkpoint = async (step: number): Promise<Checkpoint> => ({
    kind: 'policy',
    step,
    config: runConfig,
    rng: rng.getState(),
    nets: {
      actor: await readBack(actor),
      actorTarget: await readBack(actorT),
      q1: await readBack(q1),
      q1Target: await readBack(q1T),
      q2: await readBack(q2),
      q2Target: await readBack(q2T),
    },
    optimizers: { actor: await saveOptimizer(actorOpt), critic: await saveOptimizer(criticOpt) },
  });

  const B = c.batch;
  const S = new Float32Array(B * k),
    SN = new Float32Array(B * k),
    Z = new Float32Array(B * dim),
    A = new Float32Array(B * a),
    R = new Float32Array(B);
  let lastLoss = NaN;
  for (let step = ro.resume?.step ?? 0; step < c.steps; step++) {
    fillPolicyBatch({ S, SN, Z, A, R }, { obs, latent, dim, actions: d.actions, k, a }, sg, rng);
    const loss = tf.tidy(() => {
      const s = tf.tensor2d(S, [B, k]),
        sn = tf.tensor2d(SN, [B, k]),
        z = tf.tensor2d(Z, [B, dim]),
        act = tf.tensor2d(A, [B, a]);
      const r = tf.tensor1d(R);
      const sz = tf.concat([s, z], 1),
        snz = tf.concat([sn, z], 1);
      const nextA = apply(tf, actorT, snz);
      const qIn = tf.concat([snz, nextA], 1);
      const target = tf.add(r, tf.mul(c.gamma, tf.minimum(apply(tf, q1T, qIn), apply(tf, q2T, qIn)).reshape([B])));
      const criticLoss = criticOpt.minimize(
        () => {
          const x = tf.concat([sz, act], 1);
          const e1 = tf.sub(apply(tf, q1, x).reshape([B]), target),
            e2 = tf.sub(apply(tf, q2, x).reshape([B]), target);
          return tf.add(tf.mean<tfTypes.Scalar>(tf.square(e1)), tf.mean<tfTypes.Scalar>(tf.square(e2)));
        },
        true,
        [...variables(q1), ...variables(q2)],
      );
      // λ is a constant for the actor step: computed outside the differentiated function.
      const lambda = tf.div(
        c.alpha,
        tf.add(tf.mean(tf.abs(apply(tf, q1, tf.concat([sz, apply(tf, actor, sz)], 1)))), 1e-6),
      );
      actorOpt.minimize(
        () => {
          const pi = apply(tf, actor, sz);
          const q = apply(tf, q1, tf.concat([sz, pi], 1));
          return tf.add(tf.neg(tf.mul(lambda, tf.mean(q))), tf.mean<tfTypes.Scalar>(tf.square(tf.sub(pi, act))));
        },
        false,
        variables(actor),
      );
      ema(tf, actor, actorT, c.tau);
      ema(tf, q1, q1T, c.tau);
      ema(tf, q2, q2T, c.tau);
      return criticLoss!;
    });
    lastLoss =
      (await afterStep(step, c.steps, loss, progress, ro.checkpointEvery, ro.onCheckpoint, checkpoint)) ?? lastLoss;
  }
  const mlp = await readBack(actor);
  dispose(actor, actorT, q1, q1T, q2, q2T);
  actorOpt.dispose();
  criticOpt.dispose();
  return { mlp, config: c, finalCriticLoss: lastLoss };
}
