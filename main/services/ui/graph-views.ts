/**
 * The other pictures of a planned mission the Graph tab opens: the latent graph alone (the
 * backbone's cluster nodes and the edges between them, without the task's anchors and start) and
 * the product graph (graph × working automaton, SAGAS B.5), laid out as one copy of the task space
 * per automaton state, the plan drawn through its product states. Pure functions over data.
 */
import type { GraphScene, PlanView, SceneNode } from '../../contract/api.js';
import type { BuchiAutomaton } from '../../core/ltl/automaton.js';
import { planContext } from '../../core/plan/plan.js';
import { forEachSuccessor } from '../../core/plan/product.js';
import type { SemanticGraph } from '../../core/plan/semantic.js';

/** Product states drawn at most (a product over this would not be readable, nor quick to send). */
const MAX_PRODUCT_NODES = 60_000;

export class GraphViewTooLarge extends Error {}

/**
 * The latent graph of a mission's scene: its cluster nodes and the edges between them; the plan keeps the steps on
 * clusters.
 */
export function latentScene(
  scene: GraphScene,
  plan: PlanView | null,
): { scene: GraphScene; plan: PlanView | null; anchors: number } {
  const keep = new Map<number, number>();
  const nodes: SceneNode[] = [];
  scene.nodes.forEach((n, i) => {
    if (n.kind !== 'cluster') return;
    keep.set(i, nodes.length);
    nodes.push(n);
  });
  const edges: [number, number, number][] = [];
  for (const [u, v, w] of scene.edges) {
    const a = keep.get(u),
      b = keep.get(v);
    if (a !== undefined && b !== undefined) edges.push([a, b, w]);
  }
  const ids = new Set(nodes.map((n) => n.id));
  const { start: _start, ...rest } = scene;
  let out: PlanView | null = null;
  if (plan !== null) {
    const part = (xs: readonly string[], qs: readonly number[]): [string[], number[]] => {
      const a: string[] = [],
        b: number[] = [];
      xs.forEach((x, i) => {
        if (ids.has(x)) {
          a.push(x);
          b.push(qs[i]!);
        }
      });
      return [a, b];
    };
    const [prefix, prefixStates] = part(plan.prefix, plan.prefixStates);
    const [suffix, suffixStates] = part(plan.suffix, plan.suffixStates);
    out = { ...plan, prefix, suffix, prefixStates, suffixStates };
  }
  return {
    scene: { ...rest, nodes, edges },
    plan: out,
    anchors: scene.nodes.filter((n) => n.kind === 'anchor').length,
  };
}

const productNodeId = (node: string, state: number): string => `${node}@q${state}`;

/**
 * The product of `g` with `automaton` reachable from the start node's initial product states:
 * node (v, q) drawn at v's place in the copy of the task space for state q (copies in a grid, left
 * to right, then down), each copy with the world's picture and a caption; edges are the product's
 * moves (stays that change the state included). The plan is mapped onto its product states.
 */
export function productScene(
  g: SemanticGraph,
  automaton: BuchiAutomaton,
  base: GraphScene,
  plan: PlanView | null,
  tauSoft: number,
): { scene: GraphScene; plan: PlanView | null; states: number } {
  const ctx = planContext(g, automaton, tauSoft);
  const p = ctx.product,
    w = ctx.work,
    nq = p.nq;
  const seen = new Map<number, number>();
  const order: number[] = [];
  const queue: number[] = [];
  const visit = (z: number): void => {
    if (seen.has(z)) return;
    if (order.length >= MAX_PRODUCT_NODES)
      throw new GraphViewTooLarge(
        `the product has more than ${MAX_PRODUCT_NODES} reachable states (${g.ids.length} nodes × ${nq} automaton states): too many to draw`,
      );
    seen.set(z, order.length);
    order.push(z);
    queue.push(z);
  };
  for (const i of w.init) visit(g.start * nq + i.state);
  const edges: [number, number, number][] = [];
  while (queue.length > 0) {
    const z = queue.shift()!;
    forEachSuccessor(p, z, (z2, cost) => {
      if (z2 === z) return;
      visit(z2);
      edges.push([seen.get(z)!, seen.get(z2)!, Math.round(cost * 1000) / 1000]);
    });
  }
  // The copies: a grid of nq panels, each the size of the task space plus a gap for the caption.
  const b = base.bounds,
    W = b.maxX - b.minX,
    H = b.maxY - b.minY;
  const cols = Math.ceil(Math.sqrt(nq));
  const gap = 0.12 * Math.max(W, H);
  const down = base.yDown === true ? 1 : -1;
  const offset = (q: number): { dx: number; dy: number } => ({
    dx: (q % cols) * (W + gap),
    dy: down * Math.floor(q / cols) * (H + gap),
  });
  const byId = new Map(base.nodes.map((n) => [n.id, n] as const));
  const accepting = new Set(automaton.states.flatMap((s, i) => (s.accepting ? [i] : [])));
  const nodes: SceneNode[] = order.map((z) => {
    const q = z % nq,
      v = (z - q) / nq;
    const id = g.ids[v]!,
      own = byId.get(id);
    const { dx, dy } = offset(q);
    const x = (own?.x ?? g.positions[2 * v]!) + dx,
      y = (own?.y ?? g.positions[2 * v + 1]!) + dy;
    const node: SceneNode = {
      id: productNodeId(id, w.origin[q]!),
      x,
      y,
      kind: own?.kind ?? g.kinds[v]!,
      labels: own?.labels ?? [...g.labels[v]!],
      soft: own?.soft ?? {},
      support: own?.support ?? 0,
    };
    if (own?.anchorOf !== undefined) node.anchorOf = own.anchorOf;
    return node;
  });
  const panels = Array.from({ length: nq }, (_, q) => ({
    ...offset(q),
    state: w.origin[q]!,
    accepting: accepting.has(w.origin[q]!),
  }));
  const bounds = panelBounds(b, panels, gap);
  const scene: GraphScene = {
    world: `${base.world} × automaton`,
    bounds,
    picture: productPicture(base, panels, gap),
    propositions: base.propositions,
    nodes,
    edges,
    ...(base.yDown === true ? { yDown: true } : {}),
    ...(g.ids[g.start] !== undefined && w.init[0] !== undefined
      ? { start: productNodeId(g.ids[g.start]!, w.origin[w.init[0].state]!) }
      : {}),
  };
  let out: PlanView | null = null;
  if (plan !== null) {
    out = {
      ...plan,
      prefix: plan.prefix.map((id, i) => productNodeId(id, plan.prefixStates[i]!)),
      suffix: plan.suffix.map((id, i) => productNodeId(id, plan.suffixStates[i]!)),
    };
  }
  return { scene, plan: out, states: nq };
}

/** The rectangle the copies and their captions cover (a gap above and below every copy). */
function panelBounds(
  b: GraphScene['bounds'],
  panels: readonly { dx: number; dy: number }[],
  gap: number,
): GraphScene['bounds'] {
  const xs = panels.map((p) => p.dx),
    ys = panels.map((p) => p.dy);
  return {
    minX: b.minX + Math.min(...xs),
    maxX: b.maxX + Math.max(...xs),
    minY: b.minY + Math.min(...ys) - gap,
    maxY: b.maxY + Math.max(...ys) + gap,
  };
}

/** Copies of the base picture (or a plain frame) for each automaton state, captioned with the state. */
function productPicture(
  base: GraphScene,
  panels: readonly { dx: number; dy: number; state: number; accepting: boolean }[],
  gap: number,
): string {
  const b = base.bounds,
    W = b.maxX - b.minX,
    H = b.maxY - b.minY;
  const inner =
    base.picture === null
      ? null
      : /<svg\b[^>]*>([\s\S]*)<\/svg>\s*$/.exec(base.picture.replace(/^\s*<\?xml[^>]*\?>\s*/, ''));
  const box = base.picture === null ? null : (/viewBox="([^"]+)"/.exec(base.picture)?.[1] ?? null);
  const { minX, minY, maxX, maxY } = panelBounds(b, panels, gap);
  const font = gap * 0.55;
  const parts = panels.map((p) => {
    const x = b.minX + p.dx,
      y = b.minY + p.dy;
    const body =
      inner !== null && box !== null
        ? `<svg x="${x}" y="${y}" width="${W}" height="${H}" viewBox="${box}" preserveAspectRatio="none">${inner[1]}</svg>`
        : `<rect x="${x}" y="${y}" width="${W}" height="${H}" fill="#f4f4f0" stroke="#9aa3ad" stroke-width="${W / 400}"/>`;
    // The caption sits above the copy on screen: before its top row when y runs down, after it when y runs up.
    const cy = base.yDown === true ? y - gap * 0.25 : y + H + gap * 0.75;
    const caption = `<text class="q-caption" x="${x}" y="${cy}" font-family="Helvetica, sans-serif" font-size="${font}" fill="#1d232b"${base.yDown === true ? '' : ` transform="translate(0 ${2 * cy}) scale(1 -1)"`}>q${p.state}${p.accepting ? ' (accepting)' : ''}</text>`;
    return body + caption;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${minX} ${minY} ${maxX - minX} ${maxY - minY}">${parts.join('')}</svg>`;
}
