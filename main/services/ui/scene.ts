/**
 * What the graph views draw, built from the planner's own data: a semantic graph as a scene in
 * task-space coordinates, a plan as node ids and automaton states, an automaton with printed
 * guards. Pure functions over data, shaped as the API contract's views.
 */
import type { AutomatonView, GraphScene, PlanExplanation, PlanView, SceneNode } from '../../contract/api.js';
import type { BuchiAutomaton } from '../../core/ltl/automaton.js';
import { formatGuard } from '../../core/ltl/guard.js';
import { type PlanResult, drivenSteps } from '../../core/plan/plan.js';
import type { SemanticGraph } from '../../core/plan/semantic.js';
import { type MazeLayout, mazeBounds } from '../../core/world/maze.js';
import type { Region } from '../../core/world/regions.js';
import { mapRegionsSvg, mazeRegionsSvg, regionColours } from '../../core/world/svg.js';

export interface SceneExtras {
  world: string;
  picture: string | null;
  /** Support-set size per node (latent graphs), when known. */
  support?: ArrayLike<number>;
  /** Bounds of the world; default: the nodes' bounding box with a margin. */
  bounds?: GraphScene['bounds'];
}

/** Soft labels below this are not sent (the heat map cannot show them anyway). */
const SOFT_FLOOR = 0.01;

export function sceneOf(g: SemanticGraph, o: SceneExtras): GraphScene {
  const n = g.ids.length;
  const propositions = [...new Set([...g.soft.keys(), ...g.labels.flat()])].sort();
  const nodes: SceneNode[] = [];
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (let v = 0; v < n; v++) {
    const x = g.positions[2 * v]!,
      y = g.positions[2 * v + 1]!;
    const soft: Record<string, number> = {};
    if (g.kinds[v] === 'cluster') {
      for (const [p, arr] of g.soft) if (arr[v]! >= SOFT_FLOOR) soft[p] = Math.round(arr[v]! * 1000) / 1000;
    }
    const kind = g.kinds[v]!;
    const node: SceneNode = {
      id: g.ids[v]!,
      x: Number.isFinite(x) ? x : 0,
      y: Number.isFinite(y) ? y : 0,
      kind,
      labels: [...g.labels[v]!],
      soft,
      support: o.support?.[v] ?? 0,
    };
    if (kind === 'anchor') node.anchorOf = /^anchor:(.+):\d+$/.exec(node.id)?.[1] ?? g.labels[v]![0] ?? '';
    nodes.push(node);
    minX = Math.min(minX, node.x);
    maxX = Math.max(maxX, node.x);
    minY = Math.min(minY, node.y);
    maxY = Math.max(maxY, node.y);
  }
  const edges: [number, number, number][] = [];
  for (let u = 0; u < n; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      // Undirected graphs store each edge both ways; draw it once.
      if (!g.directed && v < u) continue;
      edges.push([u, v, Math.round(g.outW[e]! * 1000) / 1000]);
    }
  }
  const margin = 0.5;
  const bounds =
    o.bounds ??
    (n === 0
      ? { minX: 0, minY: 0, maxX: 1, maxY: 1 }
      : { minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin });
  const start = g.ids[g.start];
  return {
    world: o.world,
    bounds,
    picture: o.picture,
    propositions,
    nodes,
    edges,
    ...(start !== undefined ? { start } : {}),
  };
}

/** The view of a documented plan: its result, and the explanation its document carries when it has none. */
export function documentedPlanView(d: {
  readonly result: PlanResult;
  readonly graph: SemanticGraph;
  readonly document: Readonly<Record<string, unknown>>;
}): PlanView {
  return planView(d.result, d.graph, d.document['explanation'] as PlanExplanation | undefined);
}

export function planView(r: PlanResult, g: SemanticGraph, explanation?: PlanExplanation): PlanView {
  if (r.status !== 'ok') {
    return {
      status: 'infeasible',
      prefix: [],
      suffix: [],
      prefixStates: [],
      suffixStates: [],
      reason: { kind: r.reason.kind, message: r.reason.message },
      ...(explanation !== undefined ? { explanation } : {}),
    };
  }
  const { prefix: pre, cycle: suf } = drivenSteps(r);
  return {
    status: 'ok',
    prefix: pre.map((s) => g.ids[s.node]!),
    suffix: suf.map((s) => g.ids[s.node]!),
    prefixStates: pre.map((s) => s.state),
    suffixStates: suf.map((s) => s.state),
    cost: { ...r.cost },
    certificate: r.certificate,
  };
}

export function automatonView(a: BuchiAutomaton): AutomatonView {
  const initial = new Set(a.initial);
  return {
    formula: a.formula,
    states: a.states.map((s, id) => ({ id, initial: initial.has(id), accepting: s.accepting })),
    edges: a.edges.map((e) => ({ from: e.from, to: e.to, guard: formatGuard(e.guard, a.aps) })),
  };
}

/**
 * A picture drawn in its own pixel space (mazeSvg, say: x right, y growing down the rows) placed
 * over the world rectangle `rect` (metres) as GraphScene.picture wants it: an outer SVG whose
 * viewBox is the rectangle, with the original nested in it and stretched to fill it. Its pixel
 * (0, 0) lands on (rect.minX, rect.minY).
 */
export function pictureInWorld(svg: string, rect: GraphScene['bounds']): string {
  const w = rect.maxX - rect.minX,
    h = rect.maxY - rect.minY;
  if (!(w > 0 && h > 0)) throw new RangeError(`pictureInWorld: empty rectangle ${JSON.stringify(rect)}`);
  const body = svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
  const open = /<svg\b([^>]*)>/.exec(body);
  if (open === null) throw new Error('pictureInWorld: no <svg> element in the picture');
  // The nested element keeps its own viewBox; its size and place become the world rectangle.
  const attrs = open[1]!.replace(/\s(?:x|y|width|height|preserveAspectRatio)="[^"]*"/g, '');
  const nested = `<svg${attrs} x="${rect.minX}" y="${rect.minY}" width="${w}" height="${h}" preserveAspectRatio="none">`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${rect.minX} ${rect.minY} ${w} ${h}">${body.slice(0, open.index)}${nested}${body.slice(open.index + open[0].length)}</svg>`;
}

/**
 * A maze scene's picture (walls and regions, drawn as `witness run --picture` draws them) in world
 * coordinates over mazeBounds; such scenes are yDown.
 */
export function mazePicture(layout: MazeLayout, title: string, regions: readonly Region[]): string {
  return pictureInWorld(mazeRegionsSvg(layout, title, regions), mazeBounds(layout));
}

/** A task's graph over a maze and its regions, oriented as the maze pictures are (rows down). */
export function mazeScene(
  world: string,
  layout: MazeLayout,
  g: SemanticGraph,
  title: string,
  regions: readonly Region[],
): GraphScene {
  return {
    ...sceneOf(g, { world, picture: mazePicture(layout, title, regions), bounds: mazeBounds(layout) }),
    yDown: true,
    colours: Object.fromEntries(regionColours(regions)),
  };
}

/** A robot's map graph with its regions, in the map frame (y up): the console's scene for a mission on a robot. */
export function mapScene(world: string, g: SemanticGraph, title: string, regions: readonly Region[]): GraphScene {
  const base = sceneOf(g, { world, picture: null });
  const b = { ...base.bounds };
  for (const r of regions) {
    const [x0, y0, x1, y1] =
      r.kind === 'disk'
        ? [r.center[0] - r.radius, r.center[1] - r.radius, r.center[0] + r.radius, r.center[1] + r.radius]
        : [r.min[0], r.min[1], r.max[0], r.max[1]];
    b.minX = Math.min(b.minX, x0 - 0.2);
    b.minY = Math.min(b.minY, y0 - 0.2);
    b.maxX = Math.max(b.maxX, x1 + 0.2);
    b.maxY = Math.max(b.maxY, y1 + 0.2);
  }
  return {
    ...base,
    bounds: b,
    picture: mapRegionsSvg(regions, b, title),
    colours: Object.fromEntries(regionColours(regions)),
  };
}
