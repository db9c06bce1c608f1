/**
 * Costs must stay finite. Edge weights near the largest double (1.8e308) add up to Infinity, and a
 * shortest-path search that compares Infinity with Infinity improves nothing: the search would
 * report "no accepting product state is reachable" for a graph that is only badly scaled. So the
 * planner bounds every cost it can form before it searches, and refuses a graph whose bound
 * overflows with that cause, instead of a wrong infeasibility.
 *
 * The bound: every path the searches settle is simple in the product (graph nodes × automaton
 * states), so it takes each directed graph edge at most once per automaton state — its cost is at
 * most Q · Σw. A search key adds an admissible heuristic (no more than the remaining cost), the
 * objective mixes prefix and suffix costs (λ·p + (1−λ)·s ≤ max(p, s)), and the baselines join a
 * few such paths; HEADROOM covers those sums. A plan whose cost still comes out non-finite (a
 * baseline joining more segments than that) is refused the same way (`checkPlanCost`).
 */
import { WitnessError } from '../../contract/errors.js';
import type { SemanticGraph } from './semantic.js';

/** How many bounded costs the planner may add together (path + heuristic, prefix + suffix, a baseline's segments). */
export const HEADROOM = 4;

/** The graph's weights make costs overflow: the graph is malformed for planning (exit 2), not infeasible. */
export class CostOverflowError extends WitnessError {
  override readonly name = 'CostOverflowError';
  constructor(detail: string) {
    super(
      'invalid-graph',
      `cost overflow: ${detail}; scale the edge weights down (dividing every weight by the same factor changes no plan)`,
    );
  }
}

/** The largest and the sum of the graph's stored (directed) edge weights. */
function weights(g: SemanticGraph): { max: number; sum: number; edges: number } {
  let max = 0,
    sum = 0;
  for (let e = 0; e < g.outW.length; e++) {
    const w = g.outW[e]!;
    if (!(w >= 0) || w === Infinity) {
      throw new WitnessError(
        'invalid-graph',
        `edge ${g.ids[edgeSource(g, e)]} → ${g.ids[g.outTo[e]!]} has weight ${w}: weights must be finite and non-negative`,
      );
    }
    if (w > max) max = w;
    sum += w;
  }
  return { max, sum, edges: g.outW.length };
}

function edgeSource(g: SemanticGraph, e: number): number {
  let u = 0;
  while (g.outStart[u + 1]! <= e) u++;
  return u;
}

/**
 * Throws CostOverflowError when a cost the planner forms over `g` with an automaton of
 * `automatonStates` states could exceed the largest finite number.
 */
export function checkCostRange(g: SemanticGraph, automatonStates: number): void {
  const { max, sum, edges } = weights(g);
  const bound = sum * Math.max(1, automatonStates) * HEADROOM;
  if (!(bound <= Number.MAX_VALUE)) {
    throw new CostOverflowError(
      `the graph's ${edges} directed edge weights (largest ${max.toExponential(3)}) sum to ${sum === Infinity ? 'more than the largest finite number' : sum.toExponential(3)}, ` +
        `so a path through the product with ${automatonStates} automaton state(s) could cost more than ${Number.MAX_VALUE.toExponential(3)}`,
    );
  }
}

/** A plan's costs must be finite (the baselines' joined segments are checked here, after the search). */
export function checkPlanCost(cost: {
  readonly prefix: number;
  readonly suffix: number;
  readonly objective: number;
}): void {
  for (const [name, x] of Object.entries(cost)) {
    if (!Number.isFinite(x))
      throw new CostOverflowError(`the plan's ${name} cost is ${x}: the edge weights are too large to add up`);
  }
}
