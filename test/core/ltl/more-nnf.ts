/** The tests' way into the second rewrites: a formula in NNF through a RewriteMoreFactory (or a broken subclass), with its propositions. */
import { atomicPropositions, type Formula } from '../../../main/core/ltl/ast.js';
import { toNnf, type Node } from '../../../main/core/ltl/nnf.js';
import type { RewriteMoreFactory } from '../../../main/core/ltl/rewrite-more.js';

export function moreNnf(f: Formula, nf: RewriteMoreFactory): { root: Node; aps: string[] } {
  const aps = atomicPropositions(f);
  return { root: toNnf(f, new Map(aps.map((a, i) => [a, i] as const)), nf), aps };
}
