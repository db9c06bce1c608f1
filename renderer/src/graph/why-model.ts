/**
 * What an infeasible plan's explanation draws on a scene: the nodes of each region it names, by why the region cannot
 * be had (unreachable from the start, or forbidden on every path; a region labelled nowhere has no nodes to draw), and
 * the cut — the forbidden nodes every plan would have to cross, and the scene edges that cross into them from outside
 * the region. Pure: the graph view turns it into node classes and edges.
 */
import type { GraphScene, PlanExplanation, SceneNode } from '../../../main/contract/api.js';
import { PLAN_DEFAULTS } from '../../../main/contract/defaults.js';

type WhyRole = PlanExplanation['regions'][number]['why'];

interface WhyRegion {
  readonly region: string;
  readonly role: WhyRole;
  /** The scene nodes that carry the region (none for a region labelled nowhere). */
  readonly nodes: readonly string[];
}

export interface WhyDrawing {
  readonly regions: readonly WhyRegion[];
  /** The cut's nodes this scene has (ids), and those it names that the scene lacks. */
  readonly cutNodes: readonly string[];
  readonly missing: readonly string[];
  /** The scene edges [start-side node id, cut node id] that enter the cut, each pair once. */
  readonly cutEdges: readonly (readonly [string, string])[];
}

/**
 * Whether a scene node carries a region as the planner decides it: a hard label (or the anchor of the region), and on
 * a cluster node a soft label not below the planner's default threshold.
 */
export function carriesRegion(n: SceneNode, region: string): boolean {
  if (n.labels.includes(region) || n.anchorOf === region) return true;
  const p = n.soft[region];
  return n.kind === 'cluster' && p !== undefined && p >= PLAN_DEFAULTS.tauSoft;
}

/** Each node's neighbours, the scene's edges taken both ways (a scene draws an undirected edge once). */
function neighbours(scene: GraphScene): number[][] {
  const out = scene.nodes.map((): number[] => []);
  for (const [u, v] of scene.edges) {
    if (u === v || out[u] === undefined || out[v] === undefined) continue;
    out[u].push(v);
    out[v].push(u);
  }
  return out;
}

/** The nodes the start reaches without entering `region` (the start's side of its cut); null without a start. */
function startSide(scene: GraphScene, next: readonly number[][], region: string): Set<number> | null {
  const start = scene.nodes.findIndex((n) => (scene.start !== undefined ? n.id === scene.start : n.kind === 'start'));
  if (start < 0) return null;
  const seen = new Set([start]);
  const todo = [start];
  for (let u = todo.pop(); u !== undefined; u = todo.pop())
    for (const v of next[u]!)
      if (!seen.has(v) && !carriesRegion(scene.nodes[v]!, region)) {
        seen.add(v);
        todo.push(v);
      }
  return seen;
}

/**
 * The drawing of an explanation on a scene; null when there is nothing to explain (no explanation, or no scene). The
 * cut's edges are those from the start's side into the cut (without a start: from any node outside the region).
 */
export function whyDrawing(e: PlanExplanation | undefined, scene: GraphScene | null): WhyDrawing | null {
  if (e === undefined || scene === null) return null;
  const regions = e.regions.map((r): WhyRegion => ({
    region: r.region,
    role: r.why,
    nodes: r.why === 'labelled-nowhere' ? [] : scene.nodes.filter((n) => carriesRegion(n, r.region)).map((n) => n.id),
  }));
  const index = new Map(scene.nodes.map((n, i) => [n.id, i]));
  const next = neighbours(scene);
  const cutNodes = new Set<number>();
  const missing = new Set<string>();
  const cutEdges: [string, string][] = [];
  const seen = new Set<string>();
  for (const r of e.regions) {
    const side = r.cut !== undefined && r.cut.length > 0 ? startSide(scene, next, r.region) : null;
    for (const id of r.cut ?? []) {
      const v = index.get(id);
      if (v === undefined) {
        missing.add(id);
        continue;
      }
      cutNodes.add(v);
      for (const u of next[v]!) {
        const key = `${u}>${v}`;
        if (seen.has(key) || (side !== null ? !side.has(u) : carriesRegion(scene.nodes[u]!, r.region))) continue;
        seen.add(key);
        cutEdges.push([scene.nodes[u]!.id, id]);
      }
    }
  }
  return { regions, cutNodes: [...cutNodes].map((i) => scene.nodes[i]!.id), missing: [...missing], cutEdges };
}
