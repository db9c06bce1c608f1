/** MLPs as TensorFlow.js variables: built from our Mlp data, applied, averaged, read back. */
import type * as tfTypes from '@tensorflow/tfjs';
import type { Mlp } from '../../core/models/mlp.js';
import type { Tf } from './tf.js';

export interface TfMlp {
  readonly spec: Mlp;
  readonly params: { readonly w: tfTypes.Variable; readonly b: tfTypes.Variable }[];
}

export function toVariables(tf: Tf, m: Mlp, trainable = true): TfMlp {
  return {
    spec: m,
    params: m.layers.map((l) => ({
      w: tf.variable(tf.tensor2d(l.weights, [l.inputs, l.outputs]), trainable),
      b: tf.variable(tf.tensor1d(l.bias), trainable),
    })),
  };
}

/**
 * x·w whose gradient transposes explicitly: dx = dy·transpose(w), dw = transpose(x)·dy. The wasm
 * backend runs a matrix multiply with transpose flags (what matMul's own gradient issues) many times
 * slower than a plain one, so backpropagation spent most of its time there; the explicit transposes
 * give the same gradients (to float rounding) several times faster.
 */
const denseCache = new WeakMap<Tf, (x: tfTypes.Tensor2D, w: tfTypes.Tensor2D) => tfTypes.Tensor2D>();
function denseMatMul(tf: Tf): (x: tfTypes.Tensor2D, w: tfTypes.Tensor2D) => tfTypes.Tensor2D {
  let f = denseCache.get(tf);
  if (!f) {
    const g = tf.customGrad(((...args: (tfTypes.Tensor | tfTypes.GradSaveFunc)[]) => {
      const [x, w, save] = args as [tfTypes.Tensor2D, tfTypes.Tensor2D, tfTypes.GradSaveFunc];
      save([x, w]);
      return {
        value: tf.matMul(x, w),
        gradFunc: (dy: tfTypes.Tensor2D, saved: tfTypes.Tensor[]) => {
          const [sx, sw] = saved as [tfTypes.Tensor2D, tfTypes.Tensor2D];
          return [tf.matMul(dy, tf.transpose(sw)), tf.matMul(tf.transpose(sx), dy)];
        },
      };
    }) as unknown as Parameters<Tf['customGrad']>[0]);
    f = (x, w) => g(x, w) as tfTypes.Tensor2D;
    denseCache.set(tf, f);
  }
  return f;
}

export function apply(tf: Tf, m: TfMlp, x: tfTypes.Tensor2D): tfTypes.Tensor2D {
  const mm = denseMatMul(tf);
  let h = x;
  m.params.forEach((p, i) => {
    h = tf.add(mm(h, p.w as tfTypes.Tensor2D), p.b);
    const act = m.spec.layers[i]!.activation;
    if (act === 'relu') h = tf.relu(h);
    else if (act === 'tanh') h = tf.tanh(h);
  });
  return h;
}

export function variables(m: TfMlp): tfTypes.Variable[] {
  return m.params.flatMap((p) => [p.w, p.b]);
}

/** target ← τ·online + (1 − τ)·target (inside the caller's tidy). */
export function ema(tf: Tf, online: TfMlp, target: TfMlp, tau: number): void {
  online.params.forEach((p, i) => {
    target.params[i]!.w.assign(tf.add(tf.mul(p.w, tau), tf.mul(target.params[i]!.w, 1 - tau)));
    target.params[i]!.b.assign(tf.add(tf.mul(p.b, tau), tf.mul(target.params[i]!.b, 1 - tau)));
  });
}

export async function readBack(m: TfMlp): Promise<Mlp> {
  return {
    layers: await Promise.all(
      m.params.map(async (p, i) => ({
        ...m.spec.layers[i]!,
        weights: new Float32Array(await p.w.data()),
        bias: new Float32Array(await p.b.data()),
      })),
    ),
  };
}

export function dispose(...ms: TfMlp[]): void {
  for (const m of ms)
    for (const p of m.params) {
      p.w.dispose();
      p.b.dispose();
    }
}
