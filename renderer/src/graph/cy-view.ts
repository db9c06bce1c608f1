/**
 * The graph view drawn with Cytoscape: preset positions from task space (never a layout run here),
 * the world picture and the trail underneath, the plan as overlay edges in two colours, the robot
 * as a marker over the canvas. Every change is one cy.batch(); no animations. The root's data-* attributes
 * state what is drawn and how long the last setScene took (for tests and for anyone inspecting the
 * page).
 */
import cytoscape, { type Core, type ElementDefinition, type NodeSingular } from 'cytoscape';
import type { GraphScene, PlanView } from '../../../main/contract/api.js';
import type { GraphViewHandle, NodeDetail } from './view.js';
import {
  type Frame,
  frameOf,
  heatOf,
  nodeClasses,
  nodeColour,
  nodeElementId,
  planOverlay,
  planSteps,
  propositionColours,
} from './model.js';
import { graphStyle, planColours } from './cy-style.js';
import { Overlays } from './overlays.js';
import { type WhyDrawing, whyDrawing } from './why-model.js';

export { createAutomatonView } from './cy-automaton.js';

/** The handle plus what the panel and tests may read: Cytoscape itself and the proposition colours. */
export interface CyGraphView extends GraphViewHandle {
  readonly cy: Core;
  colours(): ReadonlyMap<string, string>;
  /** Screen rectangle of the world picture, when one is shown. */
  pictureBox(): { left: number; right: number; top: number; bottom: number } | null;
  /** Where a scene node is on the page (client coordinates), or null when there is no such node. */
  screenOf(id: string): { x: number; y: number } | null;
  /** The scene drawn now (the object last given to setScene). */
  scene(): GraphScene | null;
  /** Where the robot marker is on the page, or null when hidden. */
  robotPoint(): { x: number; y: number } | null;
  /** The whole scene in view. */
  fit(): void;
  /** The id of the scene node a search for `query` finds (see findNode), or null. */
  find(query: string): string | null;
  /**
   * Selects a node (detail listeners told) and centres it, zoomed in far enough to read its name; false when there is
   * no such node.
   */
  focus(id: string): boolean;
}

/** A node drawn at least this many pixels wide shows its name (its id and labels). */
const NAME_PX = 30;

/**
 * A node id for a search: the id itself, else the same id in another case, else — in a product
 * graph, whose ids are `node@q<state>` — a product node of that graph node (one on the plan first).
 */
function findNode(ids: readonly string[], query: string, onPlan: ReadonlySet<string> = new Set()): string | null {
  const q = query.trim();
  if (q === '') return null;
  if (ids.includes(q)) return q;
  const lower = q.toLowerCase();
  const same = ids.find((id) => id.toLowerCase() === lower);
  if (same !== undefined) return same;
  // A graph node in a product graph: the first of its states on the plan, else its first state.
  const states = ids.filter((id) => id.toLowerCase().startsWith(`${lower}@q`));
  return states.find((id) => onPlan.has(id)) ?? states[0] ?? null;
}

export function createGraphView(root: HTMLElement): CyGraphView {
  return new CyGraph(root);
}

/** A Cytoscape instance for a scene: preset positions, no grabbing, a cached texture while panning. */
function createCy(host: HTMLElement, coloursOfPlan: ReturnType<typeof planColours>): Core {
  return cytoscape({
    container: host,
    elements: [],
    style: graphStyle(8, coloursOfPlan),
    layout: { name: 'preset' },
    minZoom: 0.02,
    maxZoom: 40,
    boxSelectionEnabled: false,
    autoungrabify: true,
    selectionType: 'single',
    // Big graphs: draw a cached texture while panning or zooming, no edges and labels meanwhile,
    // one canvas pixel per CSS pixel.
    textureOnViewport: true,
    hideEdgesOnViewport: true,
    hideLabelsOnViewport: true,
    motionBlur: false,
    pixelRatio: 1,
  });
}

/**
 * A scene's nodes as Cytoscape elements (indexed into `index`) and its edges as line segments in
 * model units (x1, y1, x2, y2 each), drawn on the canvas under the nodes (see overlays.ts).
 */
function sceneElements(
  s: GraphScene,
  f: Frame,
  colours: ReadonlyMap<string, string>,
  index: Map<string, number>,
): { els: ElementDefinition[]; lines: Float64Array } {
  const els: ElementDefinition[] = [];
  s.nodes.forEach((n, i) => {
    index.set(n.id, i);
    els.push({
      group: 'nodes',
      data: {
        id: nodeElementId(i),
        index: i,
        colour: nodeColour(n, colours),
        label: n.labels.join(','),
        name: n.labels.length > 0 ? `${n.id} {${n.labels.join(',')}}` : n.id,
        heat: 0,
      },
      position: f.toModel(n.x, n.y),
      classes: nodeClasses(n, n.kind === 'start' || n.id === s.start),
    });
  });
  const lines = new Float64Array(s.edges.length * 4);
  let k = 0;
  for (const [u, v] of s.edges) {
    const a = s.nodes[u],
      b = s.nodes[v];
    if (a === undefined || b === undefined || u === v) continue;
    const p = f.toModel(a.x, a.y),
      q = f.toModel(b.x, b.y);
    lines[k++] = p.x;
    lines[k++] = p.y;
    lines[k++] = q.x;
    lines[k++] = q.y;
  }
  return { els, lines: lines.subarray(0, k) };
}

/** The zoom and pan that fit a scene's bounds in a w × h view with a margin. */
function fitViewport(
  scene: GraphScene,
  frame: Frame,
  w: number,
  h: number,
  limits: { min: number; max: number },
): { zoom: number; pan: { x: number; y: number } } {
  const b = scene.bounds,
    pad = 20;
  // Two opposite corners in model units (which is on top depends on the frame: y up or down).
  const tl = frame.toModel(b.minX, b.maxY),
    br = frame.toModel(b.maxX, b.minY);
  const fits = Math.min(
    (w - 2 * pad) / Math.max(1e-9, Math.abs(br.x - tl.x)),
    (h - 2 * pad) / Math.max(1e-9, Math.abs(br.y - tl.y)),
  );
  const zoom = Math.min(limits.max, Math.max(limits.min, fits));
  return { zoom, pan: { x: w / 2 - (zoom * (tl.x + br.x)) / 2, y: h / 2 - (zoom * (tl.y + br.y)) / 2 } };
}

function unknownNodesError(u: readonly string[]): Error {
  return new Error(
    `the plan names ${u.length} node${u.length === 1 ? '' : 's'} this graph does not have (${u.slice(0, 5).join(', ')}${u.length > 5 ? ', …' : ''})`,
  );
}

class CyGraph implements CyGraphView {
  readonly cy: Core;
  private readonly host: HTMLElement;
  private readonly layers: Overlays;
  private readonly coloursOfPlan = planColours();
  private shownScene: GraphScene | null = null;
  private frame: Frame | null = null;
  private plan: PlanView | null = null;
  private heat: string | null = null;
  private colourMap = new Map<string, string>();
  private readonly index = new Map<string, number>();
  private needsFit = false;
  private readonly listeners: ((d: NodeDetail | null) => void)[] = [];
  private named = false;
  /** The viewport is the fitted one (no pan, zoom or focus since): a resize fits again. */
  private fitted = false;
  private programmatic = false;

  constructor(private readonly root: HTMLElement) {
    root.classList.add('gv');
    const under = document.createElement('div');
    under.className = 'gv-under';
    const host = (this.host = document.createElement('div'));
    host.className = 'gv-cy';
    const over = document.createElement('div');
    over.className = 'gv-over';
    root.replaceChildren(under, host, over);
    this.layers = new Overlays(under, over);
    const cy = (this.cy = createCy(host, this.coloursOfPlan));
    cy.on('viewport', () => {
      if (!this.programmatic) this.fitted = false;
    });
    cy.on('viewport', () => this.syncLayers());
    cy.on('tap', 'node.scene', (e) => this.emit(this.detailOf((e.target as NodeSingular).data('index') as number)));
    cy.on('tap', (e) => {
      if (e.target === cy) this.emit(null);
    });
    root.dataset.nodes = '0';
  }

  /** Names on when a node is drawn NAME_PX wide or more, off below (one batch, only when it flips). */
  private syncNames(): void {
    const on = this.frame !== null && this.cy.zoom() * this.frame.nodeSize >= NAME_PX;
    this.root.dataset.names = on ? 'shown' : 'hidden';
    if (on === this.named) return;
    this.named = on;
    this.cy.batch(() => {
      if (on) this.cy.nodes('.scene').addClass('named');
      else this.cy.nodes('.scene').removeClass('named');
    });
  }

  private syncLayers(): void {
    const { cy, host } = this;
    this.layers.update({ pan: cy.pan(), zoom: cy.zoom(), width: host.clientWidth, height: host.clientHeight });
    this.syncNames();
  }

  /** Fits the scene's bounds (not Cytoscape's bounding box, which would measure every label). */
  fit(): void {
    const { cy, host } = this;
    const w = host.clientWidth,
      h = host.clientHeight;
    if (w === 0 || h === 0) {
      this.needsFit = true;
      return;
    }
    this.needsFit = false;
    this.fitted = true;
    cy.resize();
    if (this.shownScene !== null && this.frame !== null) {
      this.programmatic = true;
      cy.viewport(fitViewport(this.shownScene, this.frame, w, h, { min: cy.minZoom(), max: cy.maxZoom() }));
      this.programmatic = false;
    }
    this.syncLayers();
  }

  private detailOf(i: number): NodeDetail | null {
    const node = this.shownScene?.nodes[i];
    if (node === undefined) return null;
    return { node, ...planSteps(this.plan, node.id) };
  }

  private emit(d: NodeDetail | null): void {
    this.root.dataset.selected = d?.node.id ?? '';
    for (const l of this.listeners) l(d);
  }

  private applyHeat(): void {
    const scene = this.shownScene,
      heat = this.heat;
    if (scene === null) return;
    const nodes = this.cy.nodes('.scene');
    this.cy.batch(() => {
      if (heat === null) {
        nodes.removeClass('heat');
        return;
      }
      nodes.forEach((n) => {
        const i = n.data('index') as number;
        n.data('heat', heatOf(scene.nodes[i]!, heat));
      });
      nodes.filter((n) => !n.hasClass('anchor') && !n.hasClass('start')).addClass('heat');
    });
    this.root.dataset.heat = heat ?? '';
  }

  /**
   * An infeasible plan's explanation (inside applyPlan's batch): the regions it names by role, and the cut of each
   * forbidden region — its nodes every plan would have to cross and the edges into them — in the plan's edge style.
   */
  private applyWhy(d: WhyDrawing | null): void {
    const { cy, index } = this;
    if (d === null) return;
    const node = (id: string): ReturnType<Core['getElementById']> =>
      cy.getElementById(nodeElementId(index.get(id) ?? -1));
    for (const r of d.regions) for (const id of r.nodes) node(id).addClass(`why-${r.role}`);
    for (const id of d.cutNodes) node(id).addClass('why-cut');
    cy.add(
      d.cutEdges.map(([from, to], k) => ({
        group: 'edges' as const,
        data: { id: `why-cut-${k}`, source: nodeElementId(index.get(from)!), target: nodeElementId(index.get(to)!) },
        classes: 'why-cut-edge',
      })),
    );
  }

  /** Draws the plan over the scene; a plan naming nodes the scene lacks is refused (nothing drawn, an error thrown). */
  private applyPlan(): void {
    const { cy, index, plan } = this;
    const overlay = plan !== null && plan.status === 'ok' && this.shownScene !== null ? planOverlay(plan, index) : null;
    if (overlay !== null && overlay.unknown.length > 0) {
      this.plan = null;
      this.applyPlan();
      throw unknownNodesError(overlay.unknown);
    }
    cy.batch(() => {
      cy.edges('.plan, .why-cut-edge').remove();
      cy.nodes('.on-prefix, .on-suffix, .why-cut, .why-unreachable, .why-forbidden').removeClass(
        'on-prefix on-suffix why-cut why-unreachable why-forbidden',
      );
      this.applyWhy(whyDrawing(plan?.explanation, this.shownScene));
      if (plan === null || plan.status !== 'ok' || overlay === null) return;
      cy.add(
        overlay.edges.map((e) => ({
          group: 'edges' as const,
          data: { id: e.id, source: e.source, target: e.target },
          classes: `plan plan-${e.part}`,
        })),
      );
      for (const id of plan.prefix) cy.getElementById(nodeElementId(index.get(id) ?? -1)).addClass('on-prefix');
      for (const id of plan.suffix) cy.getElementById(nodeElementId(index.get(id) ?? -1)).addClass('on-suffix');
    });
    this.root.dataset.whyCut = String(cy.nodes('.why-cut').length);
    this.root.dataset.whyCutEdges = String(cy.edges('.why-cut-edge').length);
    this.root.dataset.whyUnreachable = String(cy.nodes('.why-unreachable').length);
    this.root.dataset.whyForbidden = String(cy.nodes('.why-forbidden').length);
    this.root.dataset.prefixEdges = String(cy.edges('.plan-prefix').length);
    this.root.dataset.suffixEdges = String(cy.edges('.plan-suffix').length);
  }

  colours(): ReadonlyMap<string, string> {
    return this.colourMap;
  }
  pictureBox(): ReturnType<CyGraphView['pictureBox']> {
    return this.layers.pictureBox();
  }
  robotPoint(): { x: number; y: number } | null {
    return this.layers.robotPoint();
  }
  scene(): GraphScene | null {
    return this.shownScene;
  }
  find(query: string): string | null {
    const plan = this.plan;
    return findNode(
      this.shownScene?.nodes.map((n) => n.id) ?? [],
      query,
      new Set(plan?.status === 'ok' ? [...plan.prefix, ...plan.suffix] : []),
    );
  }
  focus(id: string): boolean {
    const { cy, host, frame } = this;
    const i = this.index.get(id);
    if (i === undefined || frame === null) return false;
    this.select(id);
    const w = host.clientWidth,
      h = host.clientHeight;
    const zoom = Math.min(cy.maxZoom(), Math.max(cy.zoom(), (1.5 * NAME_PX) / frame.nodeSize));
    const p = cy.getElementById(nodeElementId(i)).position();
    cy.viewport({ zoom, pan: { x: w / 2 - zoom * p.x, y: h / 2 - zoom * p.y } });
    this.root.dataset.focused = id;
    return true;
  }
  screenOf(id: string): { x: number; y: number } | null {
    const i = this.index.get(id);
    if (i === undefined) return null;
    const p = this.cy.getElementById(nodeElementId(i)).renderedPosition();
    const box = this.host.getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }

  setScene(s: GraphScene | null): void {
    const { cy, root, layers } = this;
    const started = performance.now();
    delete root.dataset.frameMs;
    this.shownScene = s;
    // A plan belongs to the scene it was made on: a new scene drops it until setPlan gives the next.
    this.plan = null;
    this.index.clear();
    const frame = (this.frame = s === null ? null : frameOf(s));
    // The scene's own colours (its regions', as its picture draws them), else the propositions' by name.
    this.colourMap =
      s?.colours !== undefined
        ? new Map([...propositionColours(s.propositions), ...Object.entries(s.colours)])
        : propositionColours(s?.propositions ?? []);
    const { els, lines } =
      s !== null && frame !== null
        ? sceneElements(s, frame, this.colourMap, this.index)
        : { els: [], lines: new Float64Array(0) };
    cy.batch(() => {
      cy.elements().remove();
      cy.style(graphStyle(frame?.nodeSize ?? 8, this.coloursOfPlan));
      cy.add(els);
    });
    this.named = false;
    const ok = layers.setPicture(s?.picture ?? null, frame, s?.bounds ?? { minX: 0, minY: 0, maxX: 1, maxY: 1 });
    layers.setTrail(new Float64Array(0));
    layers.setRobot(null);
    root.dataset.picture = s?.picture == null ? '' : ok ? 'shown' : 'invalid';
    root.dataset.nodes = String(s?.nodes.length ?? 0);
    layers.setEdges(lines, (frame?.nodeSize ?? 8) * 0.12);
    root.dataset.edges = String(lines.length / 4);
    root.dataset.robot = '';
    this.emit(null);
    this.applyPlan();
    this.applyHeat();
    this.fit();
    // How long this took, and until the second frame after it (the first one Cytoscape draws).
    root.dataset.sceneMs = (performance.now() - started).toFixed(0);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        root.dataset.frameMs = (performance.now() - started).toFixed(0);
      }),
    );
  }
  setPlan(p: PlanView | null): void {
    this.plan = p;
    this.applyPlan();
    // Product states shown for a selected node belong to the plan: refresh them.
    const sel = this.cy.nodes('.scene:selected').first();
    if (sel.nonempty()) this.emit(this.detailOf(sel.data('index') as number));
  }
  setRobot(pos: { x: number; y: number } | null): void {
    if (pos === null || this.frame === null) {
      this.layers.setRobot(null);
      this.root.dataset.robot = '';
      return;
    }
    this.layers.setRobot(this.frame.toModel(pos.x, pos.y));
    this.root.dataset.robot = `${pos.x.toFixed(3)},${pos.y.toFixed(3)}`;
  }
  setTrail(points: readonly (readonly [number, number])[]): void {
    const f = this.frame;
    const out = new Float64Array(f === null ? 0 : points.length * 2);
    if (f !== null) {
      points.forEach(([x, y], k) => {
        // The frame's own mapping: a maze picture is y-down, a robot's map y-up.
        const m = f.toModel(x, y);
        out[2 * k] = m.x;
        out[2 * k + 1] = m.y;
      });
    }
    this.layers.setTrail(out);
    this.root.dataset.trail = String(out.length / 2);
  }
  setHeat(p: string | null): void {
    this.heat = p;
    this.applyHeat();
  }
  onSelect(l: (d: NodeDetail | null) => void): void {
    this.listeners.push(l);
  }
  colourOf(id: string): string | null {
    const i = this.index.get(id);
    return i === undefined ? null : String(this.cy.getElementById(nodeElementId(i)).data('colour'));
  }
  select(id: string | null): void {
    this.cy.nodes(':selected').unselect();
    const i = id === null ? undefined : this.index.get(id);
    if (i === undefined) return this.emit(null);
    this.cy.getElementById(nodeElementId(i)).select();
    this.emit(this.detailOf(i));
  }
  resize(): void {
    this.cy.resize();
    if (this.needsFit || this.fitted) this.fit();
    else this.syncLayers();
  }
  destroy(): void {
    this.layers.destroy();
    this.cy.destroy();
    this.root.replaceChildren();
  }
}
