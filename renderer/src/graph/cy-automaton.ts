/**
 * The Büchi automaton as its own small graph: states on a circle in breadth-first order from the
 * initial states, accepting states double-circled, each initial state entered by an arrow from a
 * dot, the monitor's current state set highlighted. Guards are readable: every label is level and
 * placed on its own edge clear of the states and of every other label, at a size one can read
 * (automaton-layout.ts computes where; this file measures the labels and draws). When the guards
 * do not fit so, the edges carry numbers and the list under the picture gives each number's
 * transition and guard; an automaton too large even for numbers is drawn without edge labels, the
 * list beside it. The list is always in the page (out of sight while the guards are on the edges),
 * so the guards can be searched and read out.
 */
import cytoscape, { type Core, type EdgeSingular, type ElementDefinition } from 'cytoscape';
import type { AutomatonView } from '../../../main/contract/api.js';
import type { AutomatonViewHandle } from './view.js';
import { AUTOMATON_GEOMETRY as GEOMETRY, GUARD_FONT, NUMBER_FONT, automatonStyle, planColours } from './cy-style.js';
import {
  type Arrangement,
  type ShapeEdge,
  type ShapeState,
  arrange,
  bestArrangement,
  fitZoom,
  circlePoints,
  circleRadius,
  guardText,
  stateOrder,
  statesFit,
} from './automaton-layout.js';

/**
 * How the edges are labelled: with their guards, with numbers that the list explains, or not at all (the list alone).
 */
type GuardLabels = 'guards' | 'numbers' | 'list';

/** A box on the page (client pixels). */
interface LabelBox {
  id: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface CyAutomatonView extends AutomatonViewHandle {
  readonly cy: cytoscape.Core;
  /**
   * What is drawn, in client pixels, for tests and for anyone inspecting the page: every edge
   * label's box, every state's box, the drawing area, the labels' font size on the screen and how
   * the edges are labelled now.
   */
  labelBoxes(): { mode: GuardLabels; labels: LabelBox[]; states: LabelBox[]; area: LabelBox; fontPx: number };
}

const stateId = (q: number): string => `q${q}`;

/** Guards drawn smaller than this (CSS pixels) give way to numbers, and numbers to the list alone. */
const MIN_GUARD_PX = 9;
const MIN_NUMBER_PX = 8;
const PAD = 12;

function automatonElements(a: AutomatonView): ElementDefinition[] {
  const els: ElementDefinition[] = [];
  for (const s of a.states) {
    const classes = ['state', s.accepting ? 'accepting' : '', s.initial ? 'initial' : ''].filter(Boolean).join(' ');
    els.push({ group: 'nodes', data: { id: stateId(s.id), label: `q${s.id}`, state: s.id }, classes });
    if (s.initial) {
      els.push({ group: 'nodes', data: { id: `entry${s.id}` }, classes: 'entry' });
      els.push({
        group: 'edges',
        data: { id: `entry-e${s.id}`, source: `entry${s.id}`, target: stateId(s.id), guard: '' },
        classes: 'entry',
      });
    }
  }
  a.edges.forEach((e, k) => {
    els.push({
      group: 'edges',
      data: {
        id: `t${k}`,
        source: stateId(e.from),
        target: stateId(e.to),
        guard: e.guard,
        number: k + 1,
        text: guardText(e.guard),
        mx: 0,
        my: 0,
        cd: 0,
        loop: 0,
      },
      classes: e.from === e.to ? 'transition loop' : 'transition',
    });
  });
  return els;
}

const LABEL_ONLY = {
  includeLabels: true,
  includeNodes: false,
  includeEdges: false,
  includeOverlays: false,
  includeUnderlays: false,
} as const;

/** The transitions list: one item per edge (its number, from → to, its guard). */
function transitionList(a: AutomatonView | null): HTMLElement[] {
  if (a === null) return [];
  return a.edges.map((e, k) => {
    const li = document.createElement('li');
    li.dataset.edge = `t${k}`;
    const num = document.createElement('span');
    num.className = 'av-num';
    num.textContent = String(k + 1);
    const arc = document.createElement('span');
    arc.className = 'av-arc';
    arc.textContent = `q${e.from} → q${e.to}`;
    const guard = document.createElement('code');
    guard.className = 'av-guard';
    guard.textContent = e.guard;
    li.append(num, arc, guard);
    return li;
  });
}

/** Shows the edges' guards, their numbers (with the list), or nothing on the edges (the list alone). */
function setMode(cy: Core, root: HTMLElement, mode: GuardLabels): void {
  root.dataset.labels = mode;
  cy.batch(() => {
    cy.edges('.transition').forEach((e) => {
      const text =
        mode === 'guards' ? guardText(e.data('guard') as string) : mode === 'numbers' ? String(e.data('number')) : '';
      e.data({ text, mx: 0, my: 0 });
    });
    if (mode === 'numbers') cy.edges('.transition').addClass('numbered');
    else cy.edges('.transition').removeClass('numbered');
  });
}

/** The edges' label boxes as drawn now (the states must be apart: an edge of no length has no label box). */
function measure(cy: Core): ShapeEdge[] {
  const edges = cy.edges('.transition');
  // One pass over all of them first: Cytoscape then answers each edge from what it computed.
  edges.boundingBox(LABEL_ONLY);
  return edges.map((e) => {
    const b = e.boundingBox(LABEL_ONLY);
    return {
      id: e.id(),
      from: e.source().data('state') as number,
      to: e.target().data('state') as number,
      w: b.w,
      h: b.h,
    };
  });
}

/** Places the states, entry arrows, edge curves and labels of an arrangement. */
function applyArrangement(cy: Core, root: HTMLElement, a: Arrangement): void {
  cy.batch(() => {
    for (const [q, p] of a.positions) cy.getElementById(stateId(q)).position(p);
    for (const [q, p] of a.entries) cy.getElementById(`entry${q}`).position(p);
    cy.edges('.transition').forEach((e) => {
      const x = a.edges.get(e.id())!;
      e.data({ cd: x.controlDistance, loop: x.loopDirection ?? 0 });
    });
  });
  root.dataset.scale = String(a.scale);
  if (root.dataset.labels === 'list') return;
  // Each label where it was placed: its offset from the middle Cytoscape finds for its edge.
  const edges = cy.edges('.transition');
  edges.boundingBox(LABEL_ONLY);
  const offsets = edges.map((e) => {
    const m = e.midpoint(),
      c = a.edges.get(e.id())!.label;
    return { e, mx: c.x - m.x, my: c.y - m.y };
  });
  cy.batch(() => {
    for (const { e, mx, my } of offsets) e.data({ mx, my });
  });
}

/** Everything drawn in view, PAD from the sides (as automaton-layout.ts's fitZoom reckons: overlays left out). */
function fitAll(cy: Core, host: HTMLElement): void {
  const b = cy.elements().boundingBox({ includeOverlays: false, includeUnderlays: false });
  const zoom = Math.max(cy.minZoom(), fitZoom(b, host.clientWidth, host.clientHeight, PAD, cy.maxZoom()));
  cy.viewport({
    zoom,
    pan: {
      x: host.clientWidth / 2 - (zoom * (b.x1 + b.x2)) / 2,
      y: host.clientHeight / 2 - (zoom * (b.y1 + b.y2)) / 2,
    },
  });
}

/** A list item and its edge light up together. */
function wireHover(cy: Core, list: HTMLElement): void {
  const light = (id: string, on: boolean): void => {
    const edge = cy.getElementById(id);
    if (on) edge.addClass('lit');
    else edge.removeClass('lit');
    list.querySelector(`li[data-edge="${id}"]`)?.classList.toggle('lit', on);
  };
  for (const type of ['mouseover', 'mouseout'] as const) {
    list.addEventListener(type, (ev) => {
      const li = (ev.target as HTMLElement).closest('li');
      if (li?.dataset.edge !== undefined) light(li.dataset.edge, type === 'mouseover');
    });
  }
  cy.on('mouseover', 'edge.transition', (e) => light((e.target as EdgeSingular).id(), true));
  cy.on('mouseout', 'edge.transition', (e) => light((e.target as EdgeSingular).id(), false));
}

/** The guard labels and states on the page, for the tests' overlap checks. */
function labelBoxes(cy: Core, host: HTMLElement, root: HTMLElement): ReturnType<CyAutomatonView['labelBoxes']> {
  const r = host.getBoundingClientRect();
  const page = (id: string, b: { x1: number; y1: number; x2: number; y2: number }): LabelBox => ({
    id,
    x1: r.left + b.x1,
    y1: r.top + b.y1,
    x2: r.left + b.x2,
    y2: r.top + b.y2,
  });
  const mode = (root.dataset.labels ?? 'guards') as GuardLabels;
  return {
    mode,
    labels: cy
      .edges('.transition')
      .filter((e) => (e.data('text') as string) !== '')
      .map((e) => page(e.id(), e.renderedBoundingBox(LABEL_ONLY))),
    states: cy
      .nodes('.state')
      .map((n) =>
        page(n.id(), n.renderedBoundingBox({ includeLabels: false, includeOverlays: false, includeUnderlays: false })),
      ),
    area: { id: 'area', x1: r.left, y1: r.top, x2: r.right, y2: r.bottom },
    fontPx: cy.zoom() * (mode === 'guards' ? GUARD_FONT : NUMBER_FONT),
  };
}

export function createAutomatonView(root: HTMLElement): CyAutomatonView {
  root.classList.add('av');
  const host = document.createElement('div');
  host.className = 'av-cy';
  const list = document.createElement('ol');
  list.className = 'av-list';
  list.setAttribute('aria-label', 'Transitions of the automaton: number, from → to, guard');
  root.replaceChildren(host, list);
  const cy = cytoscape({
    container: host,
    elements: [],
    style: automatonStyle(planColours()),
    // A two-state automaton fitted to the pane would be drawn huge: cap the zoom.
    minZoom: 0.05,
    maxZoom: 1.5,
    autoungrabify: false,
    boxSelectionEnabled: false,
    autounselectify: true,
  });
  let automaton: AutomatonView | null = null;
  let needsLayout = false;
  /** The picture's size after the last layout: a resize to another size lays out again. */
  let laidOut = { w: -1, h: -1 };

  const layout = (): void => {
    if (automaton === null || cy.nodes().empty()) return;
    if (host.clientWidth === 0 || host.clientHeight === 0) {
      needsLayout = true;
      return;
    }
    needsLayout = false;
    const a = automaton;
    // The states apart (on the circle at scale 1) before the labels are measured.
    const order = stateOrder(a.states, a.edges);
    const pts = circlePoints(order.length, circleRadius(order.length, GEOMETRY.spacing, GEOMETRY.minRadius));
    cy.batch(() => order.forEach((q, i) => cy.getElementById(stateId(q)).position(pts[i]!)));
    const states: ShapeState[] = a.states.map((s) => ({
      id: s.id,
      initial: s.initial,
      half:
        cy
          .getElementById(stateId(s.id))
          .boundingBox({ includeLabels: false, includeOverlays: false, includeUnderlays: false }).w / 2,
    }));
    const bare = a.edges.map((e, k) => ({ id: `t${k}`, from: e.from, to: e.to, w: 0, h: 0 }));
    const modes: [GuardLabels, number][] = [
      ['guards', MIN_GUARD_PX / GUARD_FONT],
      ['numbers', MIN_NUMBER_PX / NUMBER_FONT],
    ];
    let done = false;
    for (const [mode, minZoom] of modes) {
      // The picture's size with this mode's list (shown under numbers: a pane of fixed height gives it room).
      setMode(cy, root, mode);
      const pane = { width: host.clientWidth, height: host.clientHeight, pad: PAD, maxZoom: cy.maxZoom() };
      // No labels can fit where the states and edges alone would be drawn too small.
      if (!statesFit(states, bare, GEOMETRY, pane, minZoom)) continue;
      cy.resize();
      const best = bestArrangement(states, measure(cy), GEOMETRY, pane, minZoom);
      if (best !== null) {
        applyArrangement(cy, root, best.arrangement);
        done = true;
        break;
      }
    }
    if (!done) {
      setMode(cy, root, 'list');
      applyArrangement(cy, root, arrange(states, bare, GEOMETRY, 1)!);
    }
    cy.resize();
    fitAll(cy, host);
    laidOut = { w: host.clientWidth, h: host.clientHeight };
  };

  wireHover(cy, list);
  root.dataset.states = '0';
  root.dataset.active = '';
  return {
    cy,
    setAutomaton(a) {
      automaton = a;
      cy.batch(() => {
        cy.elements().remove();
        if (a !== null) cy.add(automatonElements(a));
      });
      list.replaceChildren(...transitionList(a));
      root.dataset.states = String(a?.states.length ?? 0);
      root.dataset.edges = String(a?.edges.length ?? 0);
      root.dataset.formula = a?.formula ?? '';
      root.dataset.active = '';
      delete root.dataset.labels;
      delete root.dataset.scale;
      layout();
    },
    setActive(states) {
      const set = new Set(states);
      cy.batch(() => {
        cy.nodes('.state').forEach((n) => {
          if (set.has(n.data('state') as number)) n.addClass('active');
          else n.removeClass('active');
        });
      });
      root.dataset.active = cy
        .nodes('.state.active')
        .map((n) => String(n.data('state')))
        .join(',');
    },
    labelBoxes: () => labelBoxes(cy, host, root),
    resize() {
      cy.resize();
      if (needsLayout || host.clientWidth !== laidOut.w || host.clientHeight !== laidOut.h) layout();
    },
    destroy() {
      cy.destroy();
      root.replaceChildren();
    },
  };
}
