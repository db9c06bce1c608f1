/**
 * Drawing a mission's plan on the graph views as one step that either completes or leaves nothing
 * drawn: the console keeps a plan (and lets it run) only when this returned, so a plan on the
 * screen is the plan that runs and a plan that could not be drawn cannot run.
 */
import type { AutomatonView, GraphScene, PlanView } from '../../../main/contract/api.js';
import { errorText } from '../api.js';
import type { AutomatonViewHandle, GraphViewHandle } from './view.js';

class DrawError extends Error {
  constructor(cause: unknown) {
    super(`the plan could not be drawn, so it was not kept and cannot be run: ${errorText(cause)}`, { cause });
    this.name = 'DrawError';
  }
}

/**
 * Draws scene, plan and automaton (its initial states active); on any failure clears both views and throws a DrawError.
 */
export function drawMission(
  graph: GraphViewHandle | null,
  automaton: AutomatonViewHandle | null,
  scene: GraphScene,
  plan: PlanView | null,
  a: AutomatonView | null,
): void {
  try {
    graph?.setScene(scene);
    graph?.setPlan(plan);
    if (a !== null) {
      automaton?.setAutomaton(a);
      automaton?.setActive(a.states.filter((q) => q.initial).map((q) => q.id));
    }
  } catch (e) {
    try {
      graph?.setScene(null);
      automaton?.setAutomaton(null);
    } catch {
      // Clearing is best effort: the error that matters is the first one.
    }
    throw new DrawError(e);
  }
}
