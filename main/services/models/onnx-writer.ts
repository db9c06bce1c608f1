/**
 * Writes our MLPs as ONNX graphs with the contract's names (no exporter exists for our trainer):
 * `embed.onnx`  obs [N, d_s] → latent [N, d_h];
 * `policy.onnx` obs [N, d_s], direction [N, d_h] → action [N, d_a] (tanh-bounded to [−1, 1]).
 * Observations reach the models already normalised (the manifest holds mean and std).
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';
import type { Mlp } from '../../core/models/mlp.js';

// onnx-proto is a CommonJS protobufjs module: its namespace hangs off the default export.
const { onnx } = onnxProto;
type TensorProto = OnnxTypes.TensorProto;
type ValueInfoProto = OnnxTypes.ValueInfoProto;
type NodeProto = OnnxTypes.NodeProto;
type GraphProto = OnnxTypes.GraphProto;

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const OPSET = 17;

function tensor(name: string, dims: number[], data: Float32Array): TensorProto {
  // rawData is little-endian float32; copy so the bytes own their buffer.
  const bytes = new Uint8Array(data.byteLength);
  new Float32Array(bytes.buffer).set(data);
  return onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: bytes });
}

function valueInfo(name: string, width: number): ValueInfoProto {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: FLOAT,
        shape: onnx.TensorShapeProto.create({
          dim: [
            onnx.TensorShapeProto.Dimension.create({ dimParam: 'N' }),
            onnx.TensorShapeProto.Dimension.create({ dimValue: width }),
          ],
        }),
      }),
    }),
  });
}

/** Gemm + activation per layer; returns the nodes and the name of the last output. */
function mlpNodes(m: Mlp, prefix: string, input: string, output: string): { nodes: NodeProto[]; inits: TensorProto[] } {
  const nodes: NodeProto[] = [];
  const inits: TensorProto[] = [];
  let cur = input;
  m.layers.forEach((l, k) => {
    const last = k === m.layers.length - 1;
    const w = `${prefix}.${k}.weight`,
      b = `${prefix}.${k}.bias`;
    inits.push(tensor(w, [l.inputs, l.outputs], l.weights), tensor(b, [l.outputs], l.bias));
    const pre = l.activation === 'linear' && last ? output : `${prefix}.${k}.pre`;
    nodes.push(
      onnx.NodeProto.create({ opType: 'Gemm', input: [cur, w, b], output: [pre], name: `${prefix}.${k}.gemm` }),
    );
    if (l.activation === 'linear') {
      cur = pre;
    } else {
      const act = last ? output : `${prefix}.${k}.out`;
      nodes.push(
        onnx.NodeProto.create({
          opType: l.activation === 'relu' ? 'Relu' : 'Tanh',
          input: [pre],
          output: [act],
          name: `${prefix}.${k}.act`,
        }),
      );
      cur = act;
    }
  });
  if (cur !== output)
    nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [cur], output: [output], name: `${prefix}.out` }));
  return { nodes, inits };
}

function model(graph: GraphProto, doc: string): Uint8Array {
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: OPSET })],
      producerName: 'witness',
      docString: doc,
      graph,
    }),
  ).finish();
}

export function embedOnnx(m: Mlp): Uint8Array {
  const { nodes, inits } = mlpNodes(m, 'psi', 'obs', 'latent');
  const first = m.layers[0]!,
    last = m.layers[m.layers.length - 1]!;
  return model(
    onnx.GraphProto.create({
      name: 'embed',
      node: nodes,
      initializer: inits,
      input: [valueInfo('obs', first.inputs)],
      output: [valueInfo('latent', last.outputs)],
    }),
    'temporal-distance embedding psi(s)',
  );
}

/** The policy MLP reads concat(obs, direction); its last layer must be tanh. */
export function policyOnnx(m: Mlp, obsDim: number, latentDim: number): Uint8Array {
  const first = m.layers[0]!,
    last = m.layers[m.layers.length - 1]!;
  if (first.inputs !== obsDim + latentDim)
    throw new RangeError(`policy MLP takes ${first.inputs} inputs, expected obs ${obsDim} + direction ${latentDim}`);
  if (last.activation !== 'tanh') throw new RangeError('policy MLP must end in tanh so that actions lie in [-1, 1]');
  const concat = onnx.NodeProto.create({
    opType: 'Concat',
    input: ['obs', 'direction'],
    output: ['policy.input'],
    name: 'policy.concat',
    attribute: [onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 1 })],
  });
  const { nodes, inits } = mlpNodes(m, 'pi', 'policy.input', 'action');
  return model(
    onnx.GraphProto.create({
      name: 'policy',
      node: [concat, ...nodes],
      initializer: inits,
      input: [valueInfo('obs', obsDim), valueInfo('direction', latentDim)],
      output: [valueInfo('action', last.outputs)],
    }),
    'goal-conditioned executor pi_low(a | s, z)',
  );
}

/** AP-HIQL's π_h: concat(obs, goal) → subgoal, a latent offset (linear last layer). */
export function subgoalOnnx(m: Mlp, obsDim: number, latentDim: number): Uint8Array {
  const first = m.layers[0]!,
    last = m.layers[m.layers.length - 1]!;
  if (first.inputs !== obsDim + latentDim)
    throw new RangeError(`subgoal MLP takes ${first.inputs} inputs, expected obs ${obsDim} + goal ${latentDim}`);
  if (last.outputs !== latentDim)
    throw new RangeError(`subgoal MLP writes ${last.outputs} values, expected a latent of ${latentDim}`);
  const concat = onnx.NodeProto.create({
    opType: 'Concat',
    input: ['obs', 'goal'],
    output: ['high.input'],
    name: 'high.concat',
    attribute: [onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 1 })],
  });
  const { nodes, inits } = mlpNodes(m, 'high', 'high.input', 'subgoal');
  return model(
    onnx.GraphProto.create({
      name: 'subgoal',
      node: [concat, ...nodes],
      initializer: inits,
      input: [valueInfo('obs', obsDim), valueInfo('goal', latentDim)],
      output: [valueInfo('subgoal', latentDim)],
    }),
    'HIQL high-level policy pi_h(z | s, g): latent offset of the subgoal',
  );
}
