/**
 * The graph view's pure part: where scene nodes go on the canvas, their colours, the plan's
 * overlay edges and a node's product states. No DOM and no Cytoscape here, so it stays testable
 * and the view stays thin.
 */
import type { GraphScene, PlanView, SceneNode } from '../../../main/contract/api.js';

export { propositionColours } from '../../../main/contract/colours.js';

/** Model units the longer side of a scene's bounds spans on the canvas (world metres are tiny). */
const MODEL_EXTENT = 1000;

/** World (metres, y up unless the scene says yDown) ↔ canvas model coordinates (y down). */
export interface Frame {
  readonly scale: number;
  toModel(x: number, y: number): { x: number; y: number };
  toWorld(mx: number, my: number): { x: number; y: number };
  /** Node diameter in model units: about half the mean spacing, within [4, 24]. */
  readonly nodeSize: number;
  /** World y grows downwards on screen (no flip). */
  readonly yDown: boolean;
}

export function frameOf(scene: GraphScene): Frame {
  const b = scene.bounds;
  const w = Math.max(1e-9, b.maxX - b.minX),
    h = Math.max(1e-9, b.maxY - b.minY);
  const scale = MODEL_EXTENT / Math.max(w, h);
  const area = w * scale * (h * scale);
  const nodeSize = Math.min(24, Math.max(4, 0.5 * Math.sqrt(area / Math.max(1, scene.nodes.length))));
  const sy = scene.yDown === true ? 1 : -1;
  return {
    scale,
    nodeSize,
    yDown: scene.yDown === true,
    toModel: (x, y) => ({ x: x * scale, y: sy * y * scale }),
    toWorld: (mx, my) => ({ x: mx / scale, y: (sy * my) / scale }),
  };
}

export const nodeElementId = (index: number): string => `n${index}`;

const CLUSTER_GREY = '#9aa3ad';
const PLAIN = '#d5dae0';

/** A node's own colour: its anchor's or first label's proposition, grey for clusters and plain nodes. */
export function nodeColour(n: SceneNode, colours: ReadonlyMap<string, string>): string {
  if (n.kind === 'anchor' && n.anchorOf !== undefined) return colours.get(n.anchorOf) ?? PLAIN;
  if (n.kind === 'cluster') return CLUSTER_GREY;
  const first = n.labels[0];
  return first === undefined ? PLAIN : (colours.get(first) ?? PLAIN);
}

/** Node classes the stylesheet keys on. */
export function nodeClasses(n: SceneNode, start: boolean): string {
  const c = ['scene', n.kind];
  if (start) c.push('start');
  if (n.labels.length > 0) c.push('has-labels');
  return c.join(' ');
}

/** A node's heat for `prop`: its soft label, or 1/0 for an exact node that does or does not carry it. */
export function heatOf(n: SceneNode, prop: string): number {
  const s = n.soft[prop];
  if (s !== undefined) return s;
  return n.kind === 'cluster' ? 0 : n.labels.includes(prop) ? 1 : 0;
}

export interface OverlayEdge {
  id: string;
  source: string;
  target: string;
  part: 'prefix' | 'suffix';
}

/**
 * The plan as its own edges between consecutive plan nodes (a replanned plan may jump between
 * nodes with no scene edge between them). The suffix closes the cycle from the prefix's last node.
 * Stays (the same node twice) draw nothing. Unknown ids are reported, not drawn.
 */
export function planOverlay(
  plan: PlanView,
  index: ReadonlyMap<string, number>,
): { edges: OverlayEdge[]; unknown: string[] } {
  const edges: OverlayEdge[] = [];
  const unknown = new Set<string>();
  const walk = (ids: readonly string[], part: OverlayEdge['part'], from: string | undefined): void => {
    let prev = from;
    ids.forEach((id) => {
      if (!index.has(id)) {
        unknown.add(id);
        prev = undefined;
        return;
      }
      if (prev !== undefined && prev !== id) {
        edges.push({
          id: `plan-${part}-${edges.length}`,
          source: nodeElementId(index.get(prev)!),
          target: nodeElementId(index.get(id)!),
          part,
        });
      }
      prev = id;
    });
  };
  walk(plan.prefix, 'prefix', undefined);
  // The cycle closes from the prefix's last node only when that node is drawn (a plan of another
  // scene names nodes this one lacks; an edge from one would have no source).
  const last = plan.prefix[plan.prefix.length - 1];
  walk(plan.suffix, 'suffix', last !== undefined && index.has(last) ? last : undefined);
  return { edges, unknown: [...unknown] };
}

export interface PlanStepRef {
  part: 'prefix' | 'suffix';
  /** Step index within its part. */
  index: number;
  /** Automaton state after the step. */
  state: number;
}

/** Where a node occurs on the plan, and the automaton states it is paired with there. */
export function planSteps(plan: PlanView | null, id: string): { steps: PlanStepRef[]; productStates: number[] } {
  const steps: PlanStepRef[] = [];
  if (plan !== null) {
    plan.prefix.forEach((p, i) => {
      if (p === id) steps.push({ part: 'prefix', index: i, state: plan.prefixStates[i] ?? -1 });
    });
    plan.suffix.forEach((p, i) => {
      if (p === id) steps.push({ part: 'suffix', index: i, state: plan.suffixStates[i] ?? -1 });
    });
  }
  const productStates = [...new Set(steps.map((s) => s.state).filter((q) => q >= 0))].sort((a, b) => a - b);
  return { steps, productStates };
}

/** Soft labels, strongest first (ties by name). */
export function sortedSoft(n: SceneNode): [string, number][] {
  return Object.entries(n.soft).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
