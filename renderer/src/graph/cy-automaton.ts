/**
 * The Büchi automaton as its own small graph: layered from the initial states (Cytoscape's
 * breadthfirst layout), accepting states double-circled, each initial state entered by an arrow
 * from a dot, guards on the edges, and the monitor's current state set highlighted.
 */
import cytoscape, { type ElementDefinition } from 'cytoscape';
import type { AutomatonView } from '../../../main/contract/api.js';
import type { AutomatonViewHandle } from './view.js';
import { automatonStyle, planColours } from './cy-style.js';

export interface CyAutomatonView extends AutomatonViewHandle {
  readonly cy: cytoscape.Core;
}

const stateId = (q: number): string => `q${q}`;

export function automatonElements(a: AutomatonView): ElementDefinition[] {
  const els: ElementDefinition[] = [];
  for (const s of a.states) {
    const classes = ['state', s.accepting ? 'accepting' : '', s.initial ? 'initial' : ''].filter(Boolean).join(' ');
    els.push({ group: 'nodes', data: { id: stateId(s.id), label: `q${s.id}`, state: s.id }, classes });
    if (s.initial) {
      els.push({ group: 'nodes', data: { id: `entry${s.id}` }, classes: 'entry' });
      els.push({ group: 'edges', data: { id: `entry-e${s.id}`, source: `entry${s.id}`, target: stateId(s.id), guard: '' }, classes: 'entry' });
    }
  }
  a.edges.forEach((e, k) => {
    els.push({ group: 'edges', data: { id: `t${k}`, source: stateId(e.from), target: stateId(e.to), guard: e.guard } });
  });
  return els;
}

export function createAutomatonView(root: HTMLElement): CyAutomatonView {
  root.classList.add('av');
  const host = document.createElement('div');
  host.className = 'av-cy';
  root.replaceChildren(host);
  const cy = cytoscape({
    container: host, elements: [], style: automatonStyle(planColours()),
    // A two-state automaton fitted to the pane would be drawn huge: cap the zoom.
    minZoom: 0.1, maxZoom: 1.5, autoungrabify: false, boxSelectionEnabled: false, autounselectify: true,
  });
  let needsLayout = false;
  const layout = (): void => {
    if (cy.nodes().empty()) return;
    if (host.clientWidth === 0 || host.clientHeight === 0) {
      needsLayout = true;
      return;
    }
    needsLayout = false;
    cy.resize();
    cy.layout({
      name: 'breadthfirst', directed: true, roots: (cy.nodes('.entry').nonempty() ? cy.nodes('.entry') : cy.nodes().first()).map((n) => n.id()),
      spacingFactor: 1.9, padding: 12, animate: false, avoidOverlap: true,
    }).run();
    cy.fit(undefined, 12);
  };
  root.dataset.states = '0';
  root.dataset.active = '';
  return {
    cy,
    setAutomaton(a) {
      cy.batch(() => {
        cy.elements().remove();
        if (a !== null) cy.add(automatonElements(a));
      });
      root.dataset.states = String(a?.states.length ?? 0);
      root.dataset.edges = String(a?.edges.length ?? 0);
      root.dataset.formula = a?.formula ?? '';
      root.dataset.active = '';
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
      root.dataset.active = cy.nodes('.state.active').map((n) => String(n.data('state'))).join(',');
    },
    resize() {
      cy.resize();
      if (needsLayout) layout();
    },
    destroy() {
      cy.destroy();
      root.replaceChildren();
    },
  };
}
