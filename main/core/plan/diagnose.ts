/**
 * Structured infeasibility (SAGAS Appendix B.4 and B.6): when no plan exists, say which of the
 * paper's causes it is and name what was missing — the unavailable propositions, the automaton
 * transitions no reachable node could enable, or the endpoints without a return cycle.
 */
import { formatTerm } from '../ltl/guard.js';
import { prepareAutomaton } from './prep.js';
import type { PlanContext } from './plan.js';
import type { BuchiAutomaton } from '../ltl/automaton.js';
import { canReachGoodCycle } from '../ltl/scc.js';

/** Whether the automaton accepts some word (on some graph): an initial state reaches a cycle through acceptance. */
export function satisfiable(a: BuchiAutomaton): boolean {
  const succ: number[][] = a.states.map(() => []);
  for (const e of a.edges) if (e.guard.length > 0) succ[e.from]!.push(e.to);
  const live = canReachGoodCycle(
    a.states.length,
    (q) => succ[q]!,
    (q) => a.states[q]!.accepting,
  );
  return a.initial.some((q) => live[q] === 1);
}

interface BlockedTransition {
  readonly from: number;
  readonly to: number;
  readonly term: string;
}

/** Where a region stands in the way: the first node, on a plan that ignores the region, that carries it. */
export interface RegionInTheWay {
  readonly region: string;
  readonly node: string;
  /** The node's position, when it has one. */
  readonly at: readonly [number, number] | null;
}

export type InfeasibleReason = InfeasibleCause & {
  /**
   * Set when taking one proposition off every node would let the mission be met: where a plan would
   * have to enter it (core/plan/plan.ts forbiddenEntries), so the region stands in the way.
   */
  readonly enters?: readonly RegionInTheWay[];
};

export type InfeasibleCause =
  | { readonly kind: 'start-rejected'; readonly message: string; readonly startLetter: readonly string[] }
  | { readonly kind: 'unavailable-propositions'; readonly message: string; readonly propositions: readonly string[] }
  | { readonly kind: 'simultaneous-regions'; readonly message: string; readonly terms: readonly string[] }
  | { readonly kind: 'unsatisfiable'; readonly message: string }
  | {
      readonly kind: 'no-accepting-prefix';
      readonly message: string;
      readonly reachedStates: readonly number[];
      readonly blocked: readonly BlockedTransition[];
      readonly unavailable: readonly string[];
    }
  | {
      readonly kind: 'no-suffix-cycle';
      readonly message: string;
      readonly endpoints: readonly { readonly node: string; readonly state: number }[];
    };

export interface SearchOutcome {
  readonly endpoints: readonly number[];
  readonly reachedStates: Uint8Array;
  /** A baseline's own account of where it stopped. */
  readonly failure?: string;
}

export function diagnose(ctx: PlanContext, r: SearchOutcome | null): InfeasibleCause {
  const { work: w, graph: g, automaton: a } = ctx;
  if (r === null || w.empty) {
    const startLetter = [...g.labels[g.start]!];
    if (!satisfiable(a))
      return { kind: 'unsatisfiable', message: 'the formula is unsatisfiable: its automaton accepts no word' };
    if (w.startRejected) {
      return {
        kind: 'start-rejected',
        startLetter,
        message: `the start label {${startLetter.join(', ')}} already violates the formula`,
      };
    }
    const relaxed = prepareAutomaton(a, { disjoint: g.disjoint, unavailable: new Set(), startLetter });
    if (!relaxed.empty) {
      const used = new Set(w.dropped.filter((d) => d.reason === 'unavailable').flatMap((d) => d.propositions));
      const propositions = ctx.unavailable.filter((x) => used.has(x));
      return {
        kind: 'unavailable-propositions',
        propositions,
        message: `every accepting run needs ${propositions.join(', ')}, which no node of the graph witnesses (no connectable anchor or label)`,
      };
    }
    if (g.disjoint) {
      const free = prepareAutomaton(a, { disjoint: false, unavailable: new Set(), startLetter });
      if (!free.empty) {
        const terms = [
          ...new Set(w.dropped.filter((d) => d.reason === 'disjoint').map((d) => formatTerm(d.term, a.aps))),
        ];
        return {
          kind: 'simultaneous-regions',
          terms,
          message: `every accepting run needs two regions at once (${terms.slice(0, 3).join('; ')}), but the regions are pairwise disjoint`,
        };
      }
    }
    return {
      kind: 'unsatisfiable',
      message: `the formula has no accepting run from the start label {${startLetter.join(', ')}}`,
    };
  }
  const p = ctx.product;
  if (r.endpoints.length === 0) {
    const reached = [...r.reachedStates.keys()].filter((q) => r.reachedStates[q] === 1);
    const blocked: BlockedTransition[] = [];
    for (const q of reached) {
      for (const t of w.out[q]!) {
        if (r.reachedStates[t.to] !== 1)
          blocked.push({ from: w.origin[q]!, to: w.origin[t.to]!, term: formatTerm(t.term, a.aps) });
      }
    }
    const needs = [...new Set(blocked.map((b) => b.term))];
    const base = r.failure !== undefined ? `${r.failure}; ` : '';
    return {
      kind: 'no-accepting-prefix',
      reachedStates: reached.map((q) => w.origin[q]!),
      blocked,
      unavailable: ctx.unavailable,
      message:
        `${base}no accepting product state is reachable from the start: no reachable node enables ${
          needs.length > 0
            ? needs
                .slice(0, 4)
                .map((t) => `"${t}"`)
                .join(' or ')
            : 'a transition towards acceptance'
        }` + (ctx.unavailable.length > 0 ? ` (unavailable: ${ctx.unavailable.join(', ')})` : ''),
    };
  }
  const endpoints = r.endpoints.map((z) => {
    const q = z % p.nq;
    return { node: g.ids[(z - q) / p.nq]!, state: w.origin[q]! };
  });
  const base = r.failure !== undefined ? `${r.failure}; ` : '';
  return {
    kind: 'no-suffix-cycle',
    endpoints,
    message: `${base}none of the ${endpoints.length} accepting endpoint(s) has a dwell or a return cycle (${endpoints
      .slice(0, 4)
      .map((e) => `${e.node}@q${e.state}`)
      .join(', ')})`,
  };
}
