/**
 * How many steps a plan takes, counted one way by every view (the Mission tab, the Graph tab, the
 * CLI): the prefix lists the nodes from the start node to where the cycle begins, so its steps are
 * its moves, one fewer than its nodes (the start node is where the robot already is); the suffix
 * lists the cycle's nodes after that one, each a step (a dwell suffix is one step: a stay).
 */
export function planSteps(plan: { prefix: readonly string[]; suffix: readonly string[] }): {
  prefix: number;
  suffix: number;
} {
  return { prefix: Math.max(0, plan.prefix.length - 1), suffix: plan.suffix.length };
}
