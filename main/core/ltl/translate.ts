/**
 * LTL → Büchi translation, ours end to end: NNF with rewriting, very weak alternating automaton,
 * generalized Büchi automaton, degeneralization, and reduction (Gastin & Oddoux 2001, plus the
 * recurrence loops of LTL3BA and bisimulation quotients at both automaton levels).
 */
import { type Formula, atomicPropositions } from './ast.js';
import { type BuchiAutomaton, freezeAutomaton } from './automaton.js';
import { Budget, type BudgetOptions } from './budget.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from './degeneralize.js';
import { buildGba } from './gba.js';
import { NodeFactory, toNnf, type Node } from './nnf.js';
import { type ParseOptions, parseLtl } from './parser.js';
import { printLtl } from './printer.js';
import { type MutableBuchi, reduceBuchi, toAutomaton } from './reduce.js';
import { buildVwaa } from './vwaa.js';
import { type Term, bitIndices } from './guard.js';

export interface TranslateOptions extends BudgetOptions, ParseOptions {
  /** Language-preserving formula rewrites (default true). */
  readonly rewrite?: boolean;
  /** One marked loop per G F ψ instead of G and F states (default true). */
  readonly gfLoops?: boolean;
  /** Bisimulation quotients of the generalized and Büchi automata (default true). */
  readonly bisimulation?: boolean;
}

export interface TranslationStats {
  readonly alternatingStates: number;
  readonly generalizedStates: number;
  readonly acceptanceSets: number;
  readonly degeneralizedStates: number;
  readonly elapsed_ms: number;
  /** Time spent in each stage, in ms. */
  readonly stages_ms: { readonly alternating: number; readonly generalized: number; readonly degeneralize: number; readonly reduce: number };
}

export interface Translation {
  readonly formula: Formula;
  readonly automaton: BuchiAutomaton;
  readonly stats: TranslationStats;
}

export function translateLtl(text: string, options: TranslateOptions = {}): Translation {
  return translateFormula(parseLtl(text, options), options);
}

export function translateFormula(formula: Formula, options: TranslateOptions = {}): Translation {
  const budget = new Budget(options);
  const aps = atomicPropositions(formula);
  const apIndex = new Map(aps.map((name, i) => [name, i] as const));
  const nf = new NodeFactory(options.rewrite ?? true);
  const root = toNnf(formula, apIndex, nf);
  const vwaa = buildVwaa(root, nf, { gfLoops: options.gfLoops ?? true }, budget);
  const t1 = budget.elapsed_ms();
  const bisim = options.bisimulation ?? true;
  let gba = buildGba(vwaa, budget);
  const generalizedStates = gba.sets.length;
  if (bisim) gba = reduceGba(gba, budget);
  gba = pruneAcceptanceSets(gba);
  const describe = (set: bigint): string => {
    if (set === 1n) return 'init';
    const parts = bitIndices(set).map((s) => printLtl(nodeToFormula(vwaa.states[s]!.node!, aps)));
    return parts.length === 0 ? 'true' : parts.join(' & ');
  };
  const t2 = budget.elapsed_ms();
  const raw = degeneralize(gba, (q) => describe(gba.sets[q]!), budget);
  let ba: MutableBuchi = {
    accepting: raw.accepting,
    names: raw.names,
    initial: raw.initial,
    out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
  };
  const degeneralizedStates = ba.accepting.length;
  const t3 = budget.elapsed_ms();
  ba = reduceBuchi(ba, budget, bisim, aps.length);
  const automaton = freezeAutomaton(toAutomaton(ba, aps, printLtl(formula)));
  const t4 = budget.elapsed_ms();
  return {
    formula,
    automaton,
    stats: {
      alternatingStates: vwaa.states.length,
      generalizedStates,
      acceptanceSets: gba.nAcc,
      degeneralizedStates,
      elapsed_ms: t4,
      stages_ms: { alternating: t1, generalized: t2 - t1, degeneralize: t3 - t2, reduce: t4 - t3 },
    },
  };
}

/** Back from NNF nodes to formulas, for naming states. */
export function nodeToFormula(n: Node, aps: readonly string[]): Formula {
  switch (n.op) {
    case 'tt': return { kind: 'true' };
    case 'ff': return { kind: 'false' };
    case 'lit': {
      const a: Formula = { kind: 'ap', name: aps[n.ap]! };
      return n.neg ? { kind: 'not', arg: a } : a;
    }
    case 'and': case 'or':
      return { kind: n.op, args: n.kids.map((k) => nodeToFormula(k, aps)) };
    case 'U': {
      const [l, r] = n.kids as [Node, Node];
      if (l.op === 'tt') return { kind: 'F', arg: nodeToFormula(r, aps) };
      return { kind: 'U', left: nodeToFormula(l, aps), right: nodeToFormula(r, aps) };
    }
    case 'R': {
      const [l, r] = n.kids as [Node, Node];
      if (l.op === 'ff') return { kind: 'G', arg: nodeToFormula(r, aps) };
      return { kind: 'R', left: nodeToFormula(l, aps), right: nodeToFormula(r, aps) };
    }
  }
}
