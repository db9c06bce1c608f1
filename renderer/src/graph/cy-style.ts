/** Cytoscape stylesheets of the graph view and the automaton view. */
import type { EdgeSingular, StylesheetJson } from 'cytoscape';
import type { AutomatonGeometry } from './automaton-layout.js';

export interface PlanColours {
  prefix: string;
  suffix: string;
}

/** The app's plan colours (style.css's --prefix / --suffix), so every panel draws plans alike. */
export function planColours(): PlanColours {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  return { prefix: read('--prefix', '#1f6feb'), suffix: read('--suffix', '#d9480f') };
}

const HEAT_LOW = '#e6e1ee';
const HEAT_HIGH = '#b30000';

/** What an infeasible plan's explanation draws (why-model.ts): the regions it names by role, and the cut. */
function whyStyle(size: number): StylesheetJson {
  return [
    // The regions an explanation names: unreachable ones ringed violet, forbidden ones pale red (the cut over them).
    {
      selector: 'node.why-unreachable',
      style: { 'border-width': size * 0.4, 'border-color': '#7048e8', 'border-style': 'double', 'z-index': 22 },
    },
    {
      selector: 'node.why-forbidden',
      style: { 'border-width': size * 0.22, 'border-color': '#ff8787', 'z-index': 22 },
    },
    // The cut an infeasible plan's explanation names: the forbidden nodes every plan would have to cross.
    {
      selector: 'node.why-cut',
      style: {
        width: size * 1.8,
        height: size * 1.8,
        'border-width': size * 0.3,
        'border-color': '#e03131',
        'border-style': 'dashed',
        'z-index': 25,
      },
    },
    {
      // The cut's edges: where a plan from the start's side would enter a forbidden region.
      selector: 'edge.why-cut-edge',
      style: {
        'curve-style': 'straight',
        width: size * 0.45,
        'line-color': '#c92a2a',
        'target-arrow-shape': 'tee',
        'target-arrow-color': '#c92a2a',
        'arrow-scale': 0.8,
        opacity: 0.9,
        'z-index': 9,
      },
    },
  ];
}

/** Sizes scale with the scene's node spacing (model units), so small and large graphs both read. */
export function graphStyle(size: number, c: PlanColours): StylesheetJson {
  const font = Math.max(4, size * 0.9);
  return [
    {
      selector: 'node',
      style: {
        width: size,
        height: size,
        'background-color': 'data(colour)',
        'border-width': 0,
        label: '',
        'min-zoomed-font-size': 9,
      },
    },
    { selector: 'node.cluster', style: { width: size * 0.7, height: size * 0.7 } },
    {
      selector: 'node.anchor',
      style: {
        shape: 'diamond',
        width: size * 1.5,
        height: size * 1.5,
        'border-width': size * 0.12,
        'border-color': '#1d232b',
      },
    },
    {
      selector: 'node.has-labels',
      style: {
        label: 'data(label)',
        'font-size': font,
        color: '#1d232b',
        'text-valign': 'top',
        'text-margin-y': -size * 0.2,
        'text-outline-color': '#fff',
        'text-outline-width': font * 0.12,
      },
    },
    {
      // Zoomed in far enough (cy-view.ts toggles the class): every node says its id, and its labels.
      selector: 'node.named',
      style: {
        label: 'data(name)',
        'font-size': Math.max(3, size * 0.45),
        color: '#1d232b',
        'text-valign': 'bottom',
        'text-margin-y': size * 0.1,
        'text-outline-color': '#fff',
        'text-outline-width': Math.max(0.5, size * 0.06),
        'min-zoomed-font-size': 0,
      },
    },
    {
      selector: 'node.start',
      style: {
        shape: 'star',
        width: size * 2,
        height: size * 2,
        'background-color': '#111',
        'border-width': size * 0.12,
        'border-color': '#fff',
        'z-index': 20,
      },
    },
    { selector: 'node.heat', style: { 'background-color': `mapData(heat, 0, 1, ${HEAT_LOW}, ${HEAT_HIGH})` } },
    { selector: 'node.on-prefix', style: { 'border-width': size * 0.18, 'border-color': c.prefix } },
    { selector: 'node.on-suffix', style: { 'border-width': size * 0.18, 'border-color': c.suffix } },
    ...whyStyle(size),
    { selector: 'node:selected', style: { 'border-width': size * 0.3, 'border-color': '#ffd43b', 'z-index': 30 } },
    {
      // Only the plan is drawn as Cytoscape edges; the scene's edges lie on a canvas underneath.
      selector: 'edge.plan',
      style: {
        // Bezier, so a prefix and a suffix over the same pair of nodes are drawn side by side.
        'curve-style': 'bezier',
        'control-point-step-size': size * 0.6,
        width: size * 0.3,
        opacity: 0.95,
        'z-index': 10,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.6,
      },
    },
    { selector: 'edge.plan-prefix', style: { 'line-color': c.prefix, 'target-arrow-color': c.prefix } },
    {
      selector: 'edge.plan-suffix',
      style: { 'line-color': c.suffix, 'target-arrow-color': c.suffix, 'line-style': 'solid' },
    },
  ];
}

/** Font sizes (model units) of guards and of numbers on the automaton's edges. */
export const GUARD_FONT = 11;
export const NUMBER_FONT = 10;

/**
 * The automaton drawing's sizes in model units, for automaton-layout.ts to compute with: they must
 * agree with the stylesheet below (a state 34 wide with its border, a loop's control points
 * 1.4 × its step size out at ±25°).
 */
export const AUTOMATON_GEOMETRY: AutomatonGeometry = {
  stateRadius: 18,
  spacing: 90,
  minRadius: 55,
  pairDistance: 18,
  loopDistance: 26,
  loopSweep: (-50 * Math.PI) / 180,
  entryLength: 22,
  edgeHalfAngle: (22 * Math.PI) / 180,
};

export function automatonStyle(c: PlanColours): StylesheetJson {
  const g = AUTOMATON_GEOMETRY;
  return [
    {
      selector: 'node.state',
      style: {
        width: 34,
        height: 34,
        label: 'data(label)',
        'text-valign': 'center',
        'text-halign': 'center',
        'font-size': 12,
        'background-color': '#fff',
        'border-width': 2,
        'border-color': '#1d232b',
        color: '#1d232b',
      },
    },
    // The usual picture of an accepting state: a double circle.
    { selector: 'node.accepting', style: { 'border-style': 'double', 'border-width': 6 } },
    { selector: 'node.initial', style: { 'font-weight': 'bold' } },
    { selector: 'node.active', style: { 'background-color': '#ffd43b', 'border-color': c.suffix } },
    { selector: 'node.entry', style: { width: 4, height: 4, 'background-color': '#1d232b', label: '', events: 'no' } },
    {
      selector: 'edge',
      style: {
        'curve-style': 'straight',
        width: 1.5,
        'line-color': '#5a6472',
        'target-arrow-shape': 'triangle',
        'target-arrow-color': '#5a6472',
        label: '',
      },
    },
    {
      // Transitions run as automaton-layout.ts computed them (straight, two opposite ones bowed apart,
      // a self-loop where its state has room). Guards readable: level, on an opaque framed label,
      // where it placed them (clear of the states and of each other); a disjunction stacked a term a line.
      selector: 'edge.transition',
      style: {
        'curve-style': 'unbundled-bezier',
        'edge-distances': 'node-position',
        'control-point-weights': 0.5,
        'control-point-distances': (e: EdgeSingular) => e.data('cd') as number,
        'loop-direction': (e: EdgeSingular) => `${e.data('loop') as number}rad`,
        'loop-sweep': `${g.loopSweep}rad`,
        'control-point-step-size': g.loopDistance,
        label: 'data(text)',
        'font-size': GUARD_FONT,
        color: '#1d232b',
        'text-rotation': 'none',
        'text-background-color': '#fff',
        'text-background-opacity': 1,
        'text-background-padding': '2px',
        'text-border-width': 1,
        'text-border-color': '#d5dbe3',
        'text-border-opacity': 1,
        'text-wrap': 'wrap',
        'text-max-width': '1000px',
        'text-margin-x': (e: EdgeSingular) => e.data('mx') as number,
        'text-margin-y': (e: EdgeSingular) => e.data('my') as number,
      },
    },
    // Numbers instead of guards: the list under the picture says what each one is.
    {
      selector: 'edge.numbered',
      style: {
        'font-size': NUMBER_FONT,
        'font-weight': 'bold',
        color: '#1b4b8f',
        'text-border-color': '#8fb0dc',
        'text-background-shape': 'roundrectangle',
        'text-background-padding': '2px',
      },
    },
    {
      selector: 'edge.lit',
      style: {
        width: 3,
        'line-color': c.prefix,
        'target-arrow-color': c.prefix,
        'text-border-color': c.prefix,
        color: c.prefix,
        'z-index': 10,
      },
    },
  ];
}
