/**
 * Edges carry what they cross. A labelled graph's node carries the labels of its position, but a
 * robot drives the straight edge between two nodes, and the edge may pass through a region neither
 * end is in. Every such edge is split where its labels change (core/world/segment-labels.ts): a
 * crossing node is put inside each run of labels between the two ends, carrying that run's labels,
 * and the edge becomes a chain through them, its weight shared in proportion to length.
 *
 * After the split, along every edge u → v the motion's labels are L(u) for a while and then L(v):
 * the word of the node sequence is the motion's word up to repeated letters. Mission formulas have
 * no X (core/ltl/parser.ts allowNext), so they cannot tell the two apart: a plan whose node word
 * satisfies the formula drives a path that does, and the product search, the certificate, the plan
 * word and the runtime monitor need not change. A second split adds nothing. Pure.
 */
import { WitnessError } from '../../contract/errors.js';
import { type Region, labelAt } from '../world/regions.js';
import { segmentRuns } from '../world/segment-labels.js';
import { type EdgeInput, type SemanticGraph, buildRows } from './semantic.js';

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

/** A node put where an edge crosses into a run of labels. */
export interface CrossingNode extends PlacedNode {
  readonly labels: readonly string[];
  /** The split edge's ends (indices of the input nodes). */
  readonly from: number;
  readonly to: number;
}

/** The id of the k-th crossing node (k from 1, in the edge's direction) on the edge from `a` to `b`. */
const crossingId = (a: string, b: string, k: number): string => `${a}~${b}#${k}`;

/**
 * Splits the edges of placed nodes at the regions: the crossing nodes (numbered after the input's,
 * in order) and the new edge list (edges that cross nothing unchanged, in order). An edge with an
 * end that has no position (NaN) is kept as it is and listed in `unplaced`.
 */
export function splitEdges(
  nodes: readonly PlacedNode[],
  edges: readonly EdgeInput[],
  regions: readonly Region[],
): { crossings: CrossingNode[]; edges: EdgeInput[]; unplaced: number[] } {
  const crossings: CrossingNode[] = [];
  const out: EdgeInput[] = [];
  const unplaced: number[] = [];
  const taken = new Set(nodes.map((n) => n.id));
  edges.forEach((e, i) => {
    const a = nodes[e.from]!,
      b = nodes[e.to]!;
    if (![a.x, a.y, b.x, b.y].every(Number.isFinite)) {
      unplaced.push(i);
      out.push(e);
      return;
    }
    const runs = regions.length === 0 ? [] : segmentRuns(regions, a.x, a.y, b.x, b.y);
    if (runs.length <= 2) {
      out.push(e);
      return;
    }
    let prev = e.from,
      prevT = 0;
    for (let k = 1; k < runs.length - 1; k++) {
      const r = runs[k]!;
      let id = crossingId(a.id, b.id, k);
      while (taken.has(id)) id += "'";
      taken.add(id);
      const index = nodes.length + crossings.length;
      crossings.push({
        id,
        x: a.x + r.t * (b.x - a.x),
        y: a.y + r.t * (b.y - a.y),
        labels: r.labels,
        from: e.from,
        to: e.to,
      });
      out.push({ from: prev, to: index, weight: e.weight * (r.t - prevT) });
      prev = index;
      prevT = r.t;
    }
    out.push({ from: prev, to: e.to, weight: e.weight * (1 - prevT) });
  });
  return { crossings, edges: out, unplaced };
}

/** Each edge of a graph once: u < v for an undirected graph, every row entry for a directed one. */
function graphEdges(g: SemanticGraph): EdgeInput[] {
  const list: EdgeInput[] = [];
  for (let u = 0; u < g.ids.length; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (g.directed || u < v) list.push({ from: u, to: v, weight: g.outW[e]! });
    }
  }
  return list;
}

/**
 * A labelled graph with its edges split at the regions (exact nodes only: crossing nodes are
 * 'labelled' nodes with the labels of their run). The same graph object when nothing crosses.
 * Throws a RangeError naming the first edge whose end has no position.
 */
export function splitCrossings(
  g: SemanticGraph,
  regions: readonly Region[],
): { graph: SemanticGraph; crossings: readonly CrossingNode[] } {
  const n = g.ids.length;
  const nodes = g.ids.map((id, v) => ({ id, x: g.positions[2 * v]!, y: g.positions[2 * v + 1]! }));
  const edges = graphEdges(g);
  const s = splitEdges(nodes, edges, regions);
  if (s.unplaced.length > 0 && regions.length > 0) {
    const e = edges[s.unplaced[0]!]!;
    const which = Number.isFinite(nodes[e.from]!.x) && Number.isFinite(nodes[e.from]!.y) ? e.to : e.from;
    throw new RangeError(
      `node "${g.ids[which]}" has no position, so its edge ${g.ids[e.from]} – ${g.ids[e.to]} cannot be checked against the regions`,
    );
  }
  if (s.crossings.length === 0) return { graph: g, crossings: [] };
  const m = n + s.crossings.length;
  const positions = new Float64Array(2 * m);
  positions.set(g.positions.subarray(0, 2 * n));
  s.crossings.forEach((c, i) => {
    positions[2 * (n + i)] = c.x;
    positions[2 * (n + i) + 1] = c.y;
  });
  const soft = new Map<string, Float64Array>();
  for (const [k, p] of g.soft) {
    const wide = new Float64Array(m);
    wide.set(p.subarray(0, n));
    soft.set(k, wide);
  }
  return {
    graph: {
      ...g,
      ids: [...g.ids, ...s.crossings.map((c) => c.id)],
      kinds: [...g.kinds, ...s.crossings.map(() => 'labelled' as const)],
      labels: [...g.labels, ...s.crossings.map((c) => [...c.labels])],
      positions,
      soft,
      ...buildRows(m, s.edges, g.directed),
    },
    crossings: s.crossings,
  };
}

/**
 * A labelled graph made to agree with the regions a mission labels positions by: every node placed,
 * its labels of those regions exactly the regions its position is in, and every edge split where it
 * crosses one (splitCrossings). Labels that name no region are the graph's own and stay as they are.
 * Errors name the graph file, the node and its JSON path (the graph's node order is the file's).
 */
export function onRegions(
  g: SemanticGraph,
  regions: readonly Region[],
  file: string,
): { graph: SemanticGraph; crossings: readonly CrossingNode[] } {
  if (regions.length === 0) return { graph: g, crossings: [] };
  const names = new Set(regions.map((r) => r.name));
  for (let v = 0; v < g.ids.length; v++) {
    const x = g.positions[2 * v]!,
      y = g.positions[2 * v + 1]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new WitnessError(
        'invalid-input',
        `${file}: node "${g.ids[v]}" has no position ("pos"): with regions, every node must be placed, so that its labels and its edges can be checked against them`,
        { file, path: `$.nodes[${v}]` },
      );
    }
    const have = g.labels[v]!.filter((l) => names.has(l)).sort();
    const want = labelAt(regions, x, y).sort();
    if (have.join(',') !== want.join(',')) {
      throw new WitnessError(
        'invalid-input',
        `${file}: node "${g.ids[v]}" at (${x}, ${y}) is labelled {${have.join(', ')}}, but the regions put it in {${want.join(', ')}}: was the graph made from other regions? (\`witness graph from-map … --regions\`)`,
        { file, path: `$.nodes[${v}]` },
      );
    }
  }
  return splitCrossings(g, regions);
}
