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
export const NAME_PX = 30;

/**
 * A node id for a search: the id itself, else the same id in another case, else — in a product
 * graph, whose ids are `node@q<state>` — a product node of that graph node (one on the plan first).
 */
export function findNode(
  ids: readonly string[],
  query: string,
  onPlan: ReadonlySet<string> = new Set(),
): string | null {
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
  root.classList.add('gv');
  const under = document.createElement('div');
  under.className = 'gv-under';
  const host = document.createElement('div');
  host.className = 'gv-cy';
  const over = document.createElement('div');
  over.className = 'gv-over';
  root.replaceChildren(under, host, over);
  const layers = new Overlays(under, over);
  const coloursOfPlan = planColours();
  const cy = cytoscape({
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

  let scene: GraphScene | null = null;
  let frame: Frame | null = null;
  let plan: PlanView | null = null;
  let heat: string | null = null;
  let colours = new Map<string, string>();
  const index = new Map<string, number>();
  let needsFit = false;
  const listeners: ((d: NodeDetail | null) => void)[] = [];

  let named = false;
  /** Names on when a node is drawn NAME_PX wide or more, off below (one batch, only when it flips). */
  const syncNames = (): void => {
    const on = frame !== null && cy.zoom() * frame.nodeSize >= NAME_PX;
    root.dataset.names = on ? 'shown' : 'hidden';
    if (on === named) return;
    named = on;
    cy.batch(() => {
      if (on) cy.nodes('.scene').addClass('named');
      else cy.nodes('.scene').removeClass('named');
    });
  };
  /** The viewport is the fitted one (no pan, zoom or focus since): a resize fits again. */
  let fitted = false;
  let programmatic = false;
  cy.on('viewport', () => {
    if (!programmatic) fitted = false;
  });
  const syncLayers = (): void => {
    layers.update({ pan: cy.pan(), zoom: cy.zoom(), width: host.clientWidth, height: host.clientHeight });
    syncNames();
  };
  cy.on('viewport', syncLayers);
  /** Fits the scene's bounds (not Cytoscape's bounding box, which would measure every label). */
  const fit = (): void => {
    const w = host.clientWidth,
      h = host.clientHeight;
    if (w === 0 || h === 0) {
      needsFit = true;
      return;
    }
    needsFit = false;
    fitted = true;
    cy.resize();
    if (scene !== null && frame !== null) {
      const b = scene.bounds,
        pad = 20;
      // Two opposite corners in model units (which is on top depends on the frame: y up or down).
      const tl = frame.toModel(b.minX, b.maxY),
        br = frame.toModel(b.maxX, b.minY);
      const zoom = Math.min(
        cy.maxZoom(),
        Math.max(
          cy.minZoom(),
          Math.min(
            (w - 2 * pad) / Math.max(1e-9, Math.abs(br.x - tl.x)),
            (h - 2 * pad) / Math.max(1e-9, Math.abs(br.y - tl.y)),
          ),
        ),
      );
      programmatic = true;
      cy.viewport({ zoom, pan: { x: w / 2 - (zoom * (tl.x + br.x)) / 2, y: h / 2 - (zoom * (tl.y + br.y)) / 2 } });
      programmatic = false;
    }
    syncLayers();
  };

  const detailOf = (i: number): NodeDetail | null => {
    const node = scene?.nodes[i];
    if (node === undefined) return null;
    return { node, ...planSteps(plan, node.id) };
  };
  const emit = (d: NodeDetail | null): void => {
    root.dataset.selected = d?.node.id ?? '';
    for (const l of listeners) l(d);
  };
  cy.on('tap', 'node.scene', (e) => emit(detailOf((e.target as NodeSingular).data('index') as number)));
  cy.on('tap', (e) => {
    if (e.target === cy) emit(null);
  });

  const applyHeat = (): void => {
    if (scene === null) return;
    const nodes = cy.nodes('.scene');
    cy.batch(() => {
      if (heat === null) {
        nodes.removeClass('heat');
        return;
      }
      nodes.forEach((n) => {
        const i = n.data('index') as number;
        n.data('heat', heatOf(scene!.nodes[i]!, heat!));
      });
      nodes.filter((n) => !n.hasClass('anchor') && !n.hasClass('start')).addClass('heat');
    });
    root.dataset.heat = heat ?? '';
  };

  /** Draws `plan` over the scene; a plan naming nodes the scene lacks is refused (nothing drawn, an error thrown). */
  const applyPlan = (): void => {
    const overlay = plan !== null && plan.status === 'ok' && scene !== null ? planOverlay(plan, index) : null;
    if (overlay !== null && overlay.unknown.length > 0) {
      plan = null;
      applyPlan();
      const u = overlay.unknown;
      throw new Error(
        `the plan names ${u.length} node${u.length === 1 ? '' : 's'} this graph does not have (${u.slice(0, 5).join(', ')}${u.length > 5 ? ', …' : ''})`,
      );
    }
    cy.batch(() => {
      cy.edges('.plan').remove();
      cy.nodes('.on-prefix, .on-suffix, .why-cut').removeClass('on-prefix on-suffix why-cut');
      // An infeasible plan's explanation: the cut of each forbidden region every plan would have to cross.
      for (const id of plan?.explanation?.regions.flatMap((r) => r.cut ?? []) ?? [])
        cy.getElementById(nodeElementId(index.get(id) ?? -1)).addClass('why-cut');
      if (plan === null || plan.status !== 'ok' || overlay === null) return;
      const { edges } = overlay;
      cy.add(
        edges.map((e) => ({
          group: 'edges' as const,
          data: { id: e.id, source: e.source, target: e.target },
          classes: `plan plan-${e.part}`,
        })),
      );
      for (const id of plan.prefix) cy.getElementById(nodeElementId(index.get(id) ?? -1)).addClass('on-prefix');
      for (const id of plan.suffix) cy.getElementById(nodeElementId(index.get(id) ?? -1)).addClass('on-suffix');
    });
    root.dataset.whyCut = String(cy.nodes('.why-cut').length);
    root.dataset.prefixEdges = String(cy.edges('.plan-prefix').length);
    root.dataset.suffixEdges = String(cy.edges('.plan-suffix').length);
  };

  const view: CyGraphView = {
    cy,
    colours: () => colours,
    pictureBox: () => layers.pictureBox(),
    robotPoint: () => layers.robotPoint(),
    scene: () => scene,
    fit,
    find: (query) =>
      findNode(
        scene?.nodes.map((n) => n.id) ?? [],
        query,
        new Set(plan?.status === 'ok' ? [...plan.prefix, ...plan.suffix] : []),
      ),
    focus(id) {
      const i = index.get(id);
      if (i === undefined || frame === null) return false;
      view.select(id);
      const w = host.clientWidth,
        h = host.clientHeight;
      const zoom = Math.min(cy.maxZoom(), Math.max(cy.zoom(), (1.5 * NAME_PX) / frame.nodeSize));
      const p = cy.getElementById(nodeElementId(i)).position();
      cy.viewport({ zoom, pan: { x: w / 2 - zoom * p.x, y: h / 2 - zoom * p.y } });
      root.dataset.focused = id;
      return true;
    },
    screenOf(id) {
      const i = index.get(id);
      if (i === undefined) return null;
      const p = cy.getElementById(nodeElementId(i)).renderedPosition();
      const box = host.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    },
    setScene(s) {
      const started = performance.now();
      delete root.dataset.frameMs;
      scene = s;
      // A plan belongs to the scene it was made on: a new scene drops it until setPlan gives the next.
      plan = null;
      index.clear();
      frame = s === null ? null : frameOf(s);
      // The scene's own colours (its regions', as its picture draws them), else the propositions' by name.
      colours =
        s?.colours !== undefined
          ? new Map([...propositionColours(s.propositions), ...Object.entries(s.colours)])
          : propositionColours(s?.propositions ?? []);
      const els: ElementDefinition[] = [];
      let lines = new Float64Array(0);
      if (s !== null && frame !== null) {
        const f = frame;
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
        // Scene edges go on the canvas under the nodes (see overlays.ts), not into Cytoscape.
        lines = new Float64Array(s.edges.length * 4);
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
        lines = lines.subarray(0, k);
      }
      cy.batch(() => {
        cy.elements().remove();
        cy.style(graphStyle(frame?.nodeSize ?? 8, coloursOfPlan));
        cy.add(els);
      });
      named = false;
      const ok = layers.setPicture(s?.picture ?? null, frame, s?.bounds ?? { minX: 0, minY: 0, maxX: 1, maxY: 1 });
      layers.setTrail(new Float64Array(0));
      layers.setRobot(null);
      root.dataset.picture = s?.picture == null ? '' : ok ? 'shown' : 'invalid';
      root.dataset.nodes = String(s?.nodes.length ?? 0);
      layers.setEdges(lines, (frame?.nodeSize ?? 8) * 0.12);
      root.dataset.edges = String(lines.length / 4);
      root.dataset.robot = '';
      emit(null);
      applyPlan();
      applyHeat();
      fit();
      // How long this took, and until the second frame after it (the first one Cytoscape draws).
      root.dataset.sceneMs = (performance.now() - started).toFixed(0);
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          root.dataset.frameMs = (performance.now() - started).toFixed(0);
        }),
      );
    },
    setPlan(p) {
      plan = p;
      applyPlan();
      // Product states shown for a selected node belong to the plan: refresh them.
      const sel = cy.nodes('.scene:selected').first();
      if (sel.nonempty()) emit(detailOf(sel.data('index') as number));
    },
    setRobot(pos) {
      if (pos === null || frame === null) {
        layers.setRobot(null);
        root.dataset.robot = '';
        return;
      }
      layers.setRobot(frame.toModel(pos.x, pos.y));
      root.dataset.robot = `${pos.x.toFixed(3)},${pos.y.toFixed(3)}`;
    },
    setTrail(points) {
      const f = frame;
      const out = new Float64Array(f === null ? 0 : points.length * 2);
      if (f !== null) {
        points.forEach(([x, y], k) => {
          // The frame's own mapping: a maze picture is y-down, a robot's map y-up.
          const m = f.toModel(x, y);
          out[2 * k] = m.x;
          out[2 * k + 1] = m.y;
        });
      }
      layers.setTrail(out);
      root.dataset.trail = String(out.length / 2);
    },
    setHeat(p) {
      heat = p;
      applyHeat();
    },
    onSelect(l) {
      listeners.push(l);
    },
    colourOf(id) {
      const i = index.get(id);
      return i === undefined ? null : String(cy.getElementById(nodeElementId(i)).data('colour'));
    },
    select(id) {
      cy.nodes(':selected').unselect();
      const i = id === null ? undefined : index.get(id);
      if (i === undefined) return emit(null);
      cy.getElementById(nodeElementId(i)).select();
      emit(detailOf(i));
    },
    resize() {
      cy.resize();
      if (needsFit || fitted) fit();
      else syncLayers();
    },
    destroy() {
      layers.destroy();
      cy.destroy();
      root.replaceChildren();
    },
  };
  root.dataset.nodes = '0';
  return view;
}
