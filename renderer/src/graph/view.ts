/**
 * The graph view's handle, used by the mission console (plan and live run) and the audit browser
 * (replay). The implementation behind it draws with Cytoscape.
 */
import type { AutomatonView, GraphScene, PlanView, SceneNode } from '../../../main/contract/api.js';

export interface NodeDetail {
  node: SceneNode;
  /** Automaton states paired with this node on the plan (its product states). */
  productStates: number[];
  /** Where the node occurs on the plan: part, step index within it, automaton state there. */
  steps: { part: 'prefix' | 'suffix'; index: number; state: number }[];
}

export interface GraphViewHandle {
  /** Draws a scene (and drops the plan drawn on the previous one: give the new one with setPlan). */
  setScene(scene: GraphScene | null): void;
  /** Draws a plan over the scene; throws (and draws none) when the plan names nodes the scene lacks. */
  setPlan(plan: PlanView | null): void;
  /** The robot's position (task space), or null to hide it. */
  setRobot(pos: { x: number; y: number } | null): void;
  /** A driven trajectory (task space), drawn as a trail. */
  setTrail(points: readonly (readonly [number, number])[]): void;
  /** The proposition whose soft labels are drawn as a heat map, or null. */
  setHeat(proposition: string | null): void;
  onSelect(listener: (detail: NodeDetail | null) => void): void;
  /** Selects a scene node by id (as a click would, listeners included), or clears the selection. */
  select(id: string | null): void;
  /** The colour a scene node is drawn with (its proposition's), or null when the scene has no such node. */
  colourOf(id: string): string | null;
  /** Redraw after the container changed size or became visible. */
  resize(): void;
  destroy(): void;
}

export interface AutomatonViewHandle {
  setAutomaton(automaton: AutomatonView | null): void;
  /** The monitor's current state set. */
  setActive(states: readonly number[]): void;
  resize(): void;
  destroy(): void;
}

export { createGraphView, createAutomatonView } from './cy-view.js';
