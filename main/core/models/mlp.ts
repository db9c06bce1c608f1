/**
 * Small multilayer perceptrons as plain data: the form the trainer produces, the ONNX writer
 * exports and the tests use as the reference forward pass. Pure.
 */
import type { Rng } from '../random/rng.js';

export type Activation = 'relu' | 'tanh' | 'linear';

export interface DenseLayer {
  readonly inputs: number;
  readonly outputs: number;
  /** inputs × outputs, row-major (x · W, as ONNX Gemm without transposes). */
  readonly weights: Float32Array;
  readonly bias: Float32Array;
  readonly activation: Activation;
}

export interface Mlp {
  readonly layers: readonly DenseLayer[];
}

/** Checks that the layers chain and the arrays have the declared sizes. */
export function validateMlp(m: Mlp, where: string): void {
  if (m.layers.length === 0) throw new RangeError(`${where}: an MLP needs at least one layer`);
  m.layers.forEach((l, k) => {
    if (l.weights.length !== l.inputs * l.outputs)
      throw new RangeError(
        `${where}: layers[${k}].weights has ${l.weights.length} values, expected ${l.inputs}×${l.outputs}`,
      );
    if (l.bias.length !== l.outputs)
      throw new RangeError(`${where}: layers[${k}].bias has ${l.bias.length} values, expected ${l.outputs}`);
    if (k > 0 && m.layers[k - 1]!.outputs !== l.inputs)
      throw new RangeError(
        `${where}: layers[${k}] takes ${l.inputs} inputs but layers[${k - 1}] gives ${m.layers[k - 1]!.outputs}`,
      );
  });
}

/** He/Glorot-style uniform initialisation from a seeded generator. */
export function initMlp(rng: Rng, sizes: readonly number[], hidden: Activation, output: Activation): Mlp {
  const layers: DenseLayer[] = [];
  for (let k = 0; k + 1 < sizes.length; k++) {
    const inputs = sizes[k]!,
      outputs = sizes[k + 1]!;
    const limit = Math.sqrt(6 / (inputs + outputs));
    const weights = new Float32Array(inputs * outputs);
    for (let i = 0; i < weights.length; i++) weights[i] = (rng.next() * 2 - 1) * limit;
    layers.push({
      inputs,
      outputs,
      weights,
      bias: new Float32Array(outputs),
      activation: k + 2 === sizes.length ? output : hidden,
    });
  }
  return { layers };
}

/** Forward pass on a batch (rows × inputs, row-major); float32 results, float64 accumulation. */
export function forward(m: Mlp, x: Float32Array, rows: number): Float32Array {
  let cur = x;
  for (const l of m.layers) {
    const next = new Float32Array(rows * l.outputs);
    const n = l.inputs,
      k = l.outputs,
      w = l.weights;
    // Inputs outer, outputs inner: the weights are read row by row, contiguously, and an input that
    // is 0 (half of a ReLU layer's) is skipped. Each output still sums bias, then input 0, 1, … in
    // order, in float64, so the results are the same values as summing output by output (adding
    // ±0 can change only the sign of an exact zero).
    const acc = new Float64Array(k);
    for (let r = 0; r < rows; r++) {
      for (let o = 0; o < k; o++) acc[o] = l.bias[o]!;
      for (let i = 0; i < n; i++) {
        const xi = cur[r * n + i]!,
          row = i * k;
        if (xi === 0) continue;
        for (let o = 0; o < k; o++) acc[o]! += xi * w[row + o]!;
      }
      for (let o = 0; o < k; o++) {
        const s = acc[o]!;
        next[r * k + o] = l.activation === 'relu' ? Math.max(0, s) : l.activation === 'tanh' ? Math.tanh(s) : s;
      }
    }
    cur = next;
  }
  return cur;
}
