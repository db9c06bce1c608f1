/**
 * The graph artifact (`.wgraph`, version 1): built once per dataset and model bundle, it records
 * both hashes so that a graph whose models changed is refused as stale. Layout: magic `WGR1`, a
 * uint32 LE header length, a JSON header (space-padded to 8 bytes), then little-endian arrays:
 * nodes f32 [m×d], positions f32 [m×2], edgeU i32, edgeV i32, edgeW f32, support i32 [n].
 */
import { WitnessError } from '../../contract/errors.js';
import { createHash } from 'node:crypto';
import type { LatentGraph, GraphParams } from '../../core/graph/build.js';
import { align8 } from '../datasets/io.js';
import { writeFileAtomic } from '../../platform/files.js';
import { INPUT, readInputFile } from '../../platform/input-files.js';
import { parseJsonText } from '../../core/input/json.js';

export class GraphError extends WitnessError {
  override readonly name = 'GraphError';
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super('invalid-input', `${file}: ${field}: ${detail}`, { file, path: field });
  }
}

export interface GraphArtifact {
  readonly world: string;
  readonly dataset: { readonly sha256: string };
  readonly models: { readonly embed: string; readonly policy: string };
  readonly params: GraphParams;
  readonly graph: LatentGraph;
  /** Task-space position of each node: Π of the mean of its support. */
  readonly positions: Float32Array;
}

const MAGIC = 'WGR1';

function arrays(a: GraphArtifact): { name: string; data: Float32Array | Int32Array }[] {
  const g = a.graph;
  return [
    { name: 'nodes', data: g.nodes },
    { name: 'positions', data: a.positions },
    { name: 'edgeU', data: g.edgeU },
    { name: 'edgeV', data: g.edgeV },
    { name: 'edgeW', data: g.edgeW },
    { name: 'support', data: g.support },
  ];
}

export function encodeGraph(a: GraphArtifact): Uint8Array {
  const parts = arrays(a);
  let offset = 0;
  const fields = parts.map((p) => {
    const f = {
      name: p.name,
      dtype: p.data instanceof Float32Array ? 'float32' : 'int32',
      length: p.data.length,
      offset,
    };
    offset = align8(offset + p.data.byteLength);
    return f;
  });
  const payload = new Uint8Array(offset);
  parts.forEach((p, i) =>
    payload.set(new Uint8Array(p.data.buffer, p.data.byteOffset, p.data.byteLength), fields[i]!.offset),
  );
  const g = a.graph;
  const header = {
    format: 'witness-graph',
    version: 1,
    world: a.world,
    dataset: a.dataset,
    models: a.models,
    params: a.params,
    dim: g.dim,
    nodeCount: g.nodeCount,
    edgeCount: g.edgeU.length,
    states: g.support.length,
    stats: { retained: g.retained, bridges: g.bridges, componentsBefore: g.componentsBefore },
    fields,
    sha256: createHash('sha256').update(payload).digest('hex'),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLen = align8(8 + json.length) - 8;
  const out = new Uint8Array(8 + headerLen + payload.length);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(4, headerLen, true);
  out.set(json, 8);
  out.fill(0x20, 8 + json.length, 8 + headerLen);
  out.set(payload, 8 + headerLen);
  return out;
}

export async function writeGraph(path: string, a: GraphArtifact): Promise<void> {
  await writeFileAtomic(path, encodeGraph(a));
}

interface Header {
  world: string;
  dataset: { sha256: string };
  models: { embed: string; policy: string };
  params: GraphParams;
  dim: number;
  nodeCount: number;
  edgeCount: number;
  states: number;
  stats: { retained: number; bridges: number; componentsBefore: number };
  fields: { name: string; dtype: string; length: number; offset: number }[];
  sha256: string;
}

export async function readGraph(
  path: string,
  expect: { models?: { embed: string; policy: string }; world?: string } = {},
): Promise<GraphArtifact> {
  const bytes = await readInputFile(path, INPUT.graph);
  const fail = (field: string, detail: string): never => {
    throw new GraphError(path, field, detail);
  };
  if (bytes.length < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC)
    fail('magic', `not a witness graph (expected "${MAGIC}")`);
  const headerLen = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
  if (8 + headerLen > bytes.length)
    fail('header', `truncated: header needs ${8 + headerLen} bytes, file has ${bytes.length}`);
  let h: Header;
  try {
    h = parseJsonText(new TextDecoder().decode(bytes.subarray(8, 8 + headerLen))) as Header;
  } catch (e) {
    return fail('header', `not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if ((h as unknown as { format?: string }).format !== 'witness-graph') fail('format', 'expected "witness-graph"');
  const payload = bytes.subarray(8 + headerLen);
  const need = Math.max(0, ...h.fields.map((f) => f.offset + f.length * 4));
  if (payload.length < need) fail('payload', `truncated: expected at least ${need} bytes, found ${payload.length}`);
  if (createHash('sha256').update(payload).digest('hex') !== h.sha256)
    fail('sha256', 'the payload does not match its hash (corrupt file)');
  if (expect.world !== undefined && h.world !== expect.world)
    fail('world', `the graph is for ${h.world}, not ${expect.world}`);
  if (expect.models && (expect.models.embed !== h.models.embed || expect.models.policy !== h.models.policy)) {
    fail(
      'models',
      'stale: the graph was built with other models (their sha256 differ); rebuild it with `witness graph build`',
    );
  }
  const get = (name: string): Float32Array | Int32Array => {
    const f = h.fields.find((x) => x.name === name) ?? fail('fields', `missing ${name}`);
    // copy: `payload` may be a Buffer view whose .buffer is the whole file
    const copy = new Uint8Array(f.length * 4);
    copy.set(payload.subarray(f.offset, f.offset + f.length * 4));
    const buf = copy.buffer;
    return f.dtype === 'float32' ? new Float32Array(buf) : new Int32Array(buf);
  };
  const graph: LatentGraph = {
    dim: h.dim,
    nodeCount: h.nodeCount,
    nodes: get('nodes') as Float32Array,
    edgeU: get('edgeU') as Int32Array,
    edgeV: get('edgeV') as Int32Array,
    edgeW: get('edgeW') as Float32Array,
    support: get('support') as Int32Array,
    ...h.stats,
  };
  return {
    world: h.world,
    dataset: h.dataset,
    models: h.models,
    params: h.params,
    graph,
    positions: get('positions') as Float32Array,
  };
}

/** Plain labelled-graph JSON for inspection and for `witness plan`. */
export function graphJson(a: GraphArtifact): object {
  const g = a.graph;
  const sizes = new Int32Array(g.nodeCount);
  for (const v of g.support) sizes[v]!++;
  return {
    format: 'witness-graph-json',
    version: 1,
    world: a.world,
    H_TD: a.params.H_TD,
    nodes: Array.from({ length: g.nodeCount }, (_, v) => ({
      id: v,
      position: [a.positions[v * 2]!, a.positions[v * 2 + 1]!],
      support: sizes[v]!,
      latent: Array.from(g.nodes.subarray(v * g.dim, (v + 1) * g.dim)),
    })),
    edges: Array.from(g.edgeU, (u, e) => ({ u, v: g.edgeV[e]!, w: g.edgeW[e]! })),
  };
}
