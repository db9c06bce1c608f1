/**
 * Two embeddings side by side as one MLP: ψ(x) = [a(x); k·b(x)]. Pure.
 *
 * Why: the expectile-TD ψ measures temporal distance locally as the executor and
 * the graph need it, but its discounted value saturates past its horizon, so far pairs are ranked by
 * noise; a path-distance ψ ranks far pairs well but separates states by velocity at short range.
 * Concatenated, with the second scaled down, the Euclidean distance is sqrt(d_a² + k²·d_b²): near, d_a
 * dominates and the local geometry stays the TD ψ's; far, where d_a has flattened, k·d_b still grows
 * and orders the pairs. The result stays a plain MLP (block-diagonal hidden layers), so the model
 * bundle, its ONNX export and every consumer are unchanged.
 */
import type { DenseLayer, Mlp } from './mlp.js';

/** The MLP computing [a(x); scaleB·b(x)] for two MLPs of equal depth over the same input. */
export function concatMlps(a: Mlp, b: Mlp, scaleB: number): Mlp {
  if (!(Number.isFinite(scaleB) && scaleB > 0))
    throw new RangeError(`the second embedding's scale must be a positive number, got ${scaleB}`);
  if (a.layers.length !== b.layers.length)
    throw new RangeError(
      `the embeddings have ${a.layers.length} and ${b.layers.length} layers: they must have the same depth`,
    );
  if (a.layers.length === 0) throw new RangeError('an MLP needs at least one layer');
  if (a.layers[0]!.inputs !== b.layers[0]!.inputs)
    throw new RangeError(
      `the embeddings read ${a.layers[0]!.inputs} and ${b.layers[0]!.inputs} inputs: they must read the same observation`,
    );
  const layers: DenseLayer[] = a.layers.map((la, k) => {
    const lb = b.layers[k]!;
    if (la.activation !== lb.activation)
      throw new RangeError(`layers[${k}]: activations ${la.activation} and ${lb.activation} differ`);
    const first = k === 0,
      last = k === a.layers.length - 1;
    const inputs = first ? la.inputs : la.inputs + lb.inputs,
      outputs = la.outputs + lb.outputs;
    const s = last ? scaleB : 1;
    const weights = new Float32Array(inputs * outputs);
    for (let i = 0; i < la.inputs; i++)
      for (let o = 0; o < la.outputs; o++) weights[i * outputs + o] = la.weights[i * la.outputs + o]!;
    // The first layer shares the input; later layers read only their own half of the previous one.
    const rowOffset = first ? 0 : la.inputs;
    for (let i = 0; i < lb.inputs; i++)
      for (let o = 0; o < lb.outputs; o++)
        weights[(rowOffset + i) * outputs + la.outputs + o] = lb.weights[i * lb.outputs + o]! * s;
    const bias = new Float32Array(outputs);
    bias.set(la.bias);
    for (let o = 0; o < lb.outputs; o++) bias[la.outputs + o] = lb.bias[o]! * s;
    return { inputs, outputs, weights, bias, activation: la.activation };
  });
  return { layers };
}
