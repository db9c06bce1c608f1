// Placeholder until the Cytoscape implementation lands: draws nothing but keeps the state.
import type { AutomatonViewHandle, GraphViewHandle, NodeDetail } from './view.js';

export function createGraphView(root: HTMLElement): GraphViewHandle {
  const listeners: ((d: NodeDetail | null) => void)[] = [];
  root.dataset.nodes = '0';
  return {
    setScene: (s) => { root.dataset.nodes = String(s?.nodes.length ?? 0); },
    setPlan: () => {},
    setRobot: (p) => { root.dataset.robot = p === null ? '' : `${p.x.toFixed(2)},${p.y.toFixed(2)}`; },
    setTrail: () => {},
    setHeat: () => {},
    onSelect: (l) => { listeners.push(l); },
    resize: () => {},
    destroy: () => { root.replaceChildren(); },
  };
}

export function createAutomatonView(root: HTMLElement): AutomatonViewHandle {
  return {
    setAutomaton: (a) => { root.dataset.states = String(a?.states.length ?? 0); },
    setActive: (s) => { root.dataset.active = s.join(','); },
    resize: () => {},
    destroy: () => { root.replaceChildren(); },
  };
}
