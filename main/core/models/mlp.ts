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

export function mlpInputs(m: Mlp): number {
  return m.layers[0]!.inputs;
}

export function mlpOutputs(m: Mlp): number {
  return m.layers[m.layers.length - 1]!.outputs;
}

/** Checks that the layers chain and the arrays have the declared sizes. */
export function validateMlp(m: Mlp, where: string): void {
  if (m.layers.length === 0) throw new RangeError(`${where}: an MLP needs at least one layer`);
  m.layers.forEach((l, k) => {
    if (l.weights.length !== l.inputs * l.outputs) throw new RangeError(`${where}: layers[${k}].weights has ${l.weights.length} values, expected ${l.inputs}×${l.outputs}`);
    if (l.bias.length !== l.outputs) throw new RangeError(`${where}: layers[${k}].bias has ${l.bias.length} values, expected ${l.outputs}`);
    if (k > 0 && m.layers[k - 1]!.outputs !== l.inputs) throw new RangeError(`${where}: layers[${k}] takes ${l.inputs} inputs but layers[${k - 1}] gives ${m.layers[k - 1]!.outputs}`);
  });
}

/** He/Glorot-style uniform initialisation from a seeded generator. */
export function initMlp(rng: Rng, sizes: readonly number[], hidden: Activation, output: Activation): Mlp {
  const layers: DenseLayer[] = [];
  for (let k = 0; k + 1 < sizes.length; k++) {
    const inputs = sizes[k]!, outputs = sizes[k + 1]!;
    const limit = Math.sqrt(6 / (inputs + outputs));
    const weights = new Float32Array(inputs * outputs);
    for (let i = 0; i < weights.length; i++) weights[i] = (rng.next() * 2 - 1) * limit;
    layers.push({ inputs, outputs, weights, bias: new Float32Array(outputs), activation: k + 2 === sizes.length ? output : hidden });
  }
  return { layers };
}

/** Forward pass on a batch (rows × inputs, row-major); float32 results, float64 accumulation. */
export function forward(m: Mlp, x: Float32Array, rows: number): Float32Array {
  let cur = x;
  for (const l of m.layers) {
    const next = new Float32Array(rows * l.outputs);
    for (let r = 0; r < rows; r++) {
      for (let o = 0; o < l.outputs; o++) {
        let s = l.bias[o]!;
        for (let i = 0; i < l.inputs; i++) s += cur[r * l.inputs + i]! * l.weights[i * l.outputs + o]!;
        next[r * l.outputs + o] = l.activation === 'relu' ? Math.max(0, s) : l.activation === 'tanh' ? Math.tanh(s) : s;
      }
    }
    cur = next;
  }
  return cur;
}
