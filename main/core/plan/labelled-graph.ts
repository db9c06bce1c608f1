/**
 * Hand-built labelled transition systems for exact planning (a warehouse map, a lab floor): the
 * graph JSON of `witness plan` (docs/FORMATS.md). Labels are exact and may overlap; every node may
 * also stay where it is at zero cost.
 */
import { InputError, checkSchema } from '../input/json.js';
import { GraphDocument, jsonSchema } from '../../contract/formats.js';
import { type SemanticGraph, buildRows } from './semantic.js';

/** The published schema of graph files (docs/schemas/graph.schema.json). */
export const GRAPH_SCHEMA = jsonSchema(GraphDocument);

export type GraphJson = GraphDocument;

/** Validates graph JSON (schema, then references) and builds the semantic graph. */
export function labelledGraph(value: unknown, file: string): SemanticGraph {
  const j = checkSchema<GraphJson>(GraphDocument, value, file);
  const index = new Map<string, number>();
  j.nodes.forEach((n, i) => {
    const prev = index.get(n.id);
    if (prev !== undefined)
      throw new InputError(file, `$.nodes[${i}].id`, `duplicate node id "${n.id}" (also $.nodes[${prev}])`);
    index.set(n.id, i);
  });
  const edges = (j.edges ?? []).map((e, i) => {
    const from = index.get(e.from);
    if (from === undefined) throw new InputError(file, `$.edges[${i}].from`, `unknown node "${e.from}"`);
    const to = index.get(e.to);
    if (to === undefined) throw new InputError(file, `$.edges[${i}].to`, `unknown node "${e.to}"`);
    return { from, to, weight: e.weight ?? 1 };
  });
  const start = index.get(j.start);
  if (start === undefined) throw new InputError(file, '$.start', `unknown node "${j.start}"`);
  const n = j.nodes.length;
  const directed = j.directed ?? false;
  const positions = new Float64Array(n * 2).fill(NaN);
  j.nodes.forEach((nd, i) => {
    if (nd.pos) {
      positions[2 * i] = nd.pos[0]!;
      positions[2 * i + 1] = nd.pos[1]!;
    }
  });
  return {
    ids: j.nodes.map((x) => x.id),
    kinds: j.nodes.map(() => 'labelled' as const),
    positions,
    ...buildRows(n, edges, directed),
    labels: j.nodes.map((x) => [...(x.labels ?? [])]),
    soft: new Map(),
    start,
    stay: true,
    directed,
    disjoint: false,
  };
}
