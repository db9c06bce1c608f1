/**
 * Hand-built labelled transition systems for exact planning (a warehouse map, a lab floor): the
 * graph JSON of `witness plan` (docs/FORMATS.md). Labels are exact and may overlap; every node may
 * also stay where it is at zero cost.
 */
import { InputError, checkSchema } from '../input/json.js';
import { type SemanticGraph, buildRows } from './semantic.js';

export const GRAPH_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://witness.invalid/schemas/graph.schema.json',
  title: 'Witness labelled graph',
  description: 'A labelled transition system for `witness plan`: nodes with exact label sets, weighted edges, a start node.',
  type: 'object',
  required: ['nodes', 'start'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    nodes: {
      type: 'array', minItems: 1,
      items: {
        type: 'object', required: ['id'], additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1 },
          labels: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
          pos: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 3 },
        },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object', required: ['from', 'to'], additionalProperties: false,
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          weight: { type: 'number', minimum: 0, description: 'Non-negative cost; 1 when absent.' },
        },
      },
    },
    start: { type: 'string' },
    directed: { type: 'boolean', description: 'Edges go one way only; false (both ways) when absent.' },
  },
} as const;

export interface GraphJson {
  readonly name?: string;
  readonly nodes: readonly { readonly id: string; readonly labels?: readonly string[]; readonly pos?: readonly number[] }[];
  readonly edges?: readonly { readonly from: string; readonly to: string; readonly weight?: number }[];
  readonly start: string;
  readonly directed?: boolean;
}

/** Validates graph JSON (schema, then references) and builds the semantic graph. */
export function labelledGraph(value: unknown, file: string): SemanticGraph {
  const j = checkSchema<GraphJson>(GRAPH_SCHEMA, value, file);
  const index = new Map<string, number>();
  j.nodes.forEach((n, i) => {
    const prev = index.get(n.id);
    if (prev !== undefined) throw new InputError(file, `$.nodes[${i}].id`, `duplicate node id "${n.id}" (also $.nodes[${prev}])`);
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
    ids: j.nodes.map((x) => x.id), kinds: j.nodes.map(() => 'labelled' as const), positions,
    ...buildRows(n, edges, directed),
    labels: j.nodes.map((x) => [...(x.labels ?? [])]), soft: new Map(), start,
    stay: true, directed, disjoint: false,
  };
}
