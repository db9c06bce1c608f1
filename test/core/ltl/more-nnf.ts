/**
 * The tests' way into the rewrites: a formula in NNF through a node factory (a RewriteMoreFactory, a
 * ContainmentFactory, or a broken subclass), with its propositions.
 */
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { type NodeFactory, toNnf, type Node } from '../../../main/core/ltl/nnf.js';

export function moreNnf(f: Formula, nf: NodeFactory): { root: Node; aps: string[] } {
  const aps = atomicPropositions(f);
  return { root: toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf), aps };
}
