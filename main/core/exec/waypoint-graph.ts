/**
 * A map's labelled graph as a mission on a robot uses it: the robot starts where it is, so its pose
 * becomes the start node, joined to the nearest graph nodes; failures edit edges (penalise, remove)
 * for the rest of the task. The robot's navigation stack plans the path to each waypoint itself,
 * so a start edge is a straight-line estimate of the first leg, not a promise of a clear segment.
 */
import { type EdgeInput, type SemanticGraph, buildRows } from '../plan/semantic.js';

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
  for (let v = 0; v < g.ids.length; v++) if (!Number.isFinite(g.positions[2 * v]!) || !Number.isFinite(g.positions[2 * v + 1]!)) return g.ids[v]!;
  return null;
}

/**
 * The base graph with the edits applied and a start node `id` at (x, y) carrying `labels`, joined to
 * up to four nearest nodes (within 1.5× the nearest distance). Throws a RangeError when the nearest
 * node is farther than `maxLink_m`.
 */
export function withStartAt(base: SemanticGraph, at: { readonly id: string; readonly x: number; readonly y: number; readonly labels: readonly string[] }, edits: EdgeEdits, maxLink_m: number): SemanticGraph {
  const n = base.ids.length;
  const near: { v: number; d: number }[] = [];
  for (let v = 0; v < n; v++) near.push({ v, d: Math.hypot(base.positions[2 * v]! - at.x, base.positions[2 * v + 1]! - at.y) });
  near.sort((a, b) => a.d - b.d || a.v - b.v);
  const first = near[0];
  if (first === undefined) throw new RangeError('the graph has no nodes');
  if (first.d > maxLink_m) {
    throw new RangeError(`the robot is at (${at.x.toFixed(2)}, ${at.y.toFixed(2)}), ${first.d.toFixed(2)} m from the nearest graph node (${base.ids[first.v]}); more than ${maxLink_m} m: is this the graph of the robot's map, and is the robot localised?`);
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
  for (const { v, d } of links) {
    const key = pairKey(at.id, base.ids[v]!);
    if (edits.removed.has(key)) continue;
    list.push({ from: n, to: v, weight: d });
    list.push({ from: v, to: n, weight: d });
  }
  const positions = new Float64Array(2 * (n + 1));
  positions.set(base.positions.subarray(0, 2 * n));
  positions[2 * n] = at.x;
  positions[2 * n + 1] = at.y;
  return {
    ...base,
    ids: [...base.ids, at.id], kinds: [...base.kinds, 'start'], positions,
    // The base rows already hold both directions of an undirected graph: rebuild them as directed.
    ...buildRows(n + 1, list, true),
    labels: [...base.labels, [...at.labels]], start: n, directed: true,
  };
}
