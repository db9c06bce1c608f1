/**
 * A map's labelled graph as a mission on a robot uses it: the robot starts where it is, so its pose
 * becomes the start node, joined to the nearest graph nodes; failures edit edges (penalise, remove)
 * for the rest of the task. The robot's navigation stack plans the path to each waypoint itself,
 * so a start edge is a straight-line estimate of the first leg, not a promise of a clear segment;
 * like every edge, it is split where it crosses a region (core/plan/crossings.ts).
 */
import { type EdgeInput, type SemanticGraph, buildRows } from '../plan/semantic.js';
import { splitEdges } from '../plan/crossings.js';
import type { Region } from '../world/regions.js';

/** How many graph nodes the start joins, and how much farther than the nearest they may be. */
const START_LINKS = 4;
const START_SLACK = 1.5;

export interface EdgeEdits {
  /** Weight factors per undirected node pair ("a|b" with a < b by id). */
  readonly factor: Map<string, number>;
  readonly removed: Set<string>;
}

export const pairKey = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);

export function noEdits(): EdgeEdits {
  return { factor: new Map(), removed: new Set() };
}

/** Every node of a graph has a position (a map graph); else the first that has none. */
export function missingPosition(g: SemanticGraph): string | null {
  for (let v = 0; v < g.ids.length; v++)
    if (!Number.isFinite(g.positions[2 * v]!) || !Number.isFinite(g.positions[2 * v + 1]!)) return g.ids[v]!;
  return null;
}

/**
 * The base graph with the edits applied and a start node `id` at (x, y) carrying `labels`, joined to
 * up to four nearest nodes (within 1.5× the nearest distance), each link split where it crosses one
 * of `regions`. Throws a RangeError when the nearest node is farther than `maxLink_m`.
 */
export function withStartAt(
  base: SemanticGraph,
  at: { readonly id: string; readonly x: number; readonly y: number; readonly labels: readonly string[] },
  edits: EdgeEdits,
  maxLink_m: number,
  regions: readonly Region[] = [],
): SemanticGraph {
  const n = base.ids.length;
  const near: { v: number; d: number }[] = [];
  for (let v = 0; v < n; v++)
    near.push({ v, d: Math.hypot(base.positions[2 * v]! - at.x, base.positions[2 * v + 1]! - at.y) });
  near.sort((a, b) => a.d - b.d || a.v - b.v);
  const first = near[0];
  if (first === undefined) throw new RangeError('the graph has no nodes');
  if (first.d > maxLink_m) {
    throw new RangeError(
      `the robot is at (${at.x.toFixed(2)}, ${at.y.toFixed(2)}), ${first.d.toFixed(2)} m from the nearest graph node (${base.ids[first.v]}); more than ${maxLink_m} m: is this the graph of the robot's map, and is the robot localised?`,
    );
  }
  const links = near.filter((c, i) => i < START_LINKS && c.d <= Math.max(first.d * START_SLACK, first.d + 0.05));
  const list: EdgeInput[] = [];
  for (let u = 0; u < n; u++) {
    for (let e = base.outStart[u]!; e < base.outStart[u + 1]!; e++) {
      const v = base.outTo[e]!;
      const key = pairKey(base.ids[u]!, base.ids[v]!);
      if (edits.removed.has(key)) continue;
      list.push({ from: u, to: v, weight: base.outW[e]! * (edits.factor.get(key) ?? 1) });
    }
  }
  const placed = [
    ...base.ids.map((id, v) => ({ id, x: base.positions[2 * v]!, y: base.positions[2 * v + 1]! })),
    { id: at.id, x: at.x, y: at.y },
  ];
  const starts: EdgeInput[] = [];
  for (const { v, d } of links)
    if (!edits.removed.has(pairKey(at.id, base.ids[v]!))) starts.push({ from: n, to: v, weight: d });
  // The start's links carry what they cross too (core/plan/crossings.ts), both ways.
  const split = splitEdges(placed, starts, regions);
  for (const e of split.edges) list.push(e, { from: e.to, to: e.from, weight: e.weight });
  const m = n + 1 + split.crossings.length;
  const positions = new Float64Array(2 * m);
  positions.set(base.positions.subarray(0, 2 * n));
  [at, ...split.crossings].forEach((c, i) => {
    positions[2 * (n + i)] = c.x;
    positions[2 * (n + i) + 1] = c.y;
  });
  return {
    ...base,
    ids: [...base.ids, at.id, ...split.crossings.map((c) => c.id)],
    kinds: [...base.kinds, 'start', ...split.crossings.map(() => 'labelled' as const)],
    positions,
    // The base rows already hold both directions of an undirected graph: rebuild them as directed.
    ...buildRows(m, list, true),
    labels: [...base.labels, [...at.labels], ...split.crossings.map((c) => [...c.labels])],
    start: n,
    directed: true,
  };
}
