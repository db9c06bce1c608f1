/**
 * LTL → Büchi translation, ours end to end: NNF with rewriting, very weak alternating automaton,
 * generalized Büchi automaton, degeneralization, and reduction (Gastin & Oddoux 2001, plus the
 * recurrence loops of LTL3BA and bisimulation quotients at both automaton levels).
 */
import { type Formula, atomicPropositions, formulaDepth } from './ast.js';
import { type BuchiAutomaton, freezeAutomaton } from './automaton.js';
import { Budget, type BudgetOptions } from './budget.js';
import { degeneralize, pruneAcceptanceSets, reduceGba } from './degeneralize.js';
import { buildGba } from './gba.js';
import { NodeFactory, toNnf, type Node } from './nnf.js';
import { DEFAULT_MAX_NESTING, type ParseOptions, parseLtl } from './parser.js';
import { LtlBudgetError } from './errors.js';
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

/** Longest state name (more is cut with '…'): names are for people, and every state has one. */
export const STATE_NAME_MAX_CHARS = 1000;
/**
 * Largest formula (in operator and atom nodes) spelled out in a state name: every node prints as
 * one character at least, so a larger one would be cut anyway; it is named by its state instead.
 */
const STATE_NAME_MAX_NODES = STATE_NAME_MAX_CHARS;

/**
 * Every stage runs under one budget (time, states, transitions, formula nodes) and says which
 * stage ran out. The formula's depth is checked first (the parser checks it as well; a formula
 * built in code may not have been parsed), since the passes over the formula recurse.
 */
export function translateFormula(formula: Formula, options: TranslateOptions = {}): Translation {
  const budget = new Budget(options);
  const maxNesting = options.maxNesting ?? DEFAULT_MAX_NESTING;
  if (formulaDepth(formula) > maxNesting) {
    throw new LtlBudgetError('depth', maxNesting, `formula nests deeper than ${maxNesting} levels`);
  }
  const aps = atomicPropositions(formula);
  const apIndex = new Map(aps.map((name, i) => [name, i] as const));
  const nf = new NodeFactory(options.rewrite ?? true, budget);
  const root = toNnf(formula, apIndex, nf, budget);
  const vwaa = buildVwaa(root, nf, { gfLoops: options.gfLoops ?? true }, budget);
  const t1 = budget.elapsed_ms();
  const bisim = options.bisimulation ?? true;
  let gba = buildGba(vwaa, budget);
  const generalizedStates = gba.sets.length;
  if (bisim) gba = reduceGba(gba, budget);
  gba = pruneAcceptanceSets(gba, budget);
  const partNames = new Map<number, string>();
  const partName = (s: number): string => {
    let name = partNames.get(s);
    if (name === undefined) {
      budget.checkTime('naming states');
      const f = nodeToFormula(vwaa.states[s]!.node!, aps, STATE_NAME_MAX_NODES);
      name = f === null ? `(alternating state ${s})` : printLtl(f);
      partNames.set(s, name);
    }
    return name;
  };
  const describe = (set: bigint): string => {
    if (set === 1n) return 'init';
    let name = '';
    for (const s of bitIndices(set)) {
      name += (name === '' ? '' : ' & ') + partName(s);
      if (name.length > STATE_NAME_MAX_CHARS) return `${name.slice(0, STATE_NAME_MAX_CHARS)}…`;
    }
    return name === '' ? 'true' : name;
  };
  const gbaNames = new Map<number, string>();
  const gbaName = (q: number): string => {
    let name = gbaNames.get(q);
    if (name === undefined) gbaNames.set(q, (name = describe(gba.sets[q]!)));
    return name;
  };
  const t2 = budget.elapsed_ms();
  const raw = degeneralize(gba, gbaName, budget);
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

/**
 * Back from NNF nodes to formulas, for naming states; null when the formula would have more than
 * `maxNodes` nodes (shared subformulas are written out in full, so a DAG can stand for a huge tree).
 */
export function nodeToFormula(n: Node, aps: readonly string[], maxNodes = Infinity): Formula | null {
  let left = maxNodes;
  const go = (n: Node): Formula => {
    if (--left < 0) throw TOO_LARGE;
    switch (n.op) {
      case 'tt': return { kind: 'true' };
      case 'ff': return { kind: 'false' };
      case 'lit': {
        const a: Formula = { kind: 'ap', name: aps[n.ap]! };
        return n.neg ? { kind: 'not', arg: a } : a;
      }
      case 'and': case 'or':
        return { kind: n.op, args: n.kids.map(go) };
      case 'U': {
        const [l, r] = n.kids as [Node, Node];
        if (l.op === 'tt') return { kind: 'F', arg: go(r) };
        return { kind: 'U', left: go(l), right: go(r) };
      }
      case 'R': {
        const [l, r] = n.kids as [Node, Node];
        if (l.op === 'ff') return { kind: 'G', arg: go(r) };
        return { kind: 'R', left: go(l), right: go(r) };
      }
      case 'X': return { kind: 'X', arg: go(n.kids[0]!) };
    }
  };
  try {
    return go(n);
  } catch (e) {
    if (e === TOO_LARGE) return null;
    throw e;
  }
}

const TOO_LARGE = new Error('formula too large to name a state');
