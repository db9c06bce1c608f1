/**
 * LTL → Büchi translation, ours end to end: NNF with rewriting, very weak alternating automaton,
 * generalized Büchi automaton, degeneralization, and reduction (Gastin & Oddoux 2001, plus the
 * recurrence loops of LTL3BA and bisimulation quotients at both automaton levels).
 */
import { type Formula, atomicPropositions, formulaDepth, formulaSize, inFguFragment, mentionsNext } from './ast.js';
import { type BuchiAutomaton, freezeAutomaton } from './automaton.js';
import { Budget, type BudgetOptions, DEFAULT_TIME_LIMIT_MS } from './budget.js';
import { degeneralize, entryChoiceMatters, pruneAcceptanceSets, reduceGba } from './degeneralize.js';
import { type Gba, buildGba } from './gba.js';
import { NodeFactory, toNnf, type Node } from './nnf.js';
import { DEFAULT_MAX_NESTING, type ParseOptions, parseLtl } from './parser.js';
import { LtlBudgetError } from './errors.js';
import { printLtl } from './printer.js';
import {
  type MutableBuchi,
  reduceBuchi,
  toAutomaton,
  withImpliedAcceptance,
  withInitialLoop,
  withRedundantAcceptanceDropped,
  withTransientAcceptance,
} from './reduce.js';
import { type Vwaa, buildVwaa } from './vwaa.js';
import { replaceConstantSubformulas } from './constant.js';
import { RewriteMoreFactory } from './rewrite-more.js';
import { ContainmentFactory } from './containment.js';
import { cosimulationQuotient } from './cosimulation.js';
import { simulatedGba } from './gba-simulation.js';
import { outerSetsFirst, reversedMarks } from './gba-acceptance.js';
import { MERGE_MAX_STATES, provedMerges } from './merge.js';
import { type Term, TRUE_TERM, bitIndices } from './guard.js';
import {
  WDBA_MAX_APS,
  WDBA_MAX_INPUT_STATES,
  acceptsEveryConstantWord,
  explicitOf,
  guardTerms,
  letterClasses,
  minimizeWdba,
  toMutable,
  verifyEquivalent,
} from './wdba.js';

export interface TranslateOptions extends BudgetOptions, ParseOptions {
  /** Language-preserving formula rewrites (default true). */
  readonly rewrite?: boolean;
  /** One marked loop per G F ψ instead of G and F states (default true). */
  readonly gfLoops?: boolean;
  /** Bisimulation quotients of the generalized and Büchi automata (default true). */
  readonly bisimulation?: boolean;
  /**
   * The order in which the degeneralization counts the acceptance sets: 'outer-first' (the
   * default: a set whose formula contains another's first, so the levels follow the order a run
   * meets nested eventualities: gba-acceptance.ts outerSetsFirst) or 'as-built' (the alternating
   * automaton's order, the earlier default). On the mission benchmarks' automata 'outer-first' makes
   * some smaller and none larger (docs/BENCHMARKS.md).
   */
  readonly setOrder?: 'as-built' | 'outer-first';
  /**
   * After reduction (default true): a formula equivalent to true gets the one-state automaton, an
   * automaton the weak deterministic minimisation (obligations) makes smaller is replaced by it,
   * and (formulas with X) states are merged (merge.ts), each only once proved with the negation's
   * automaton. The alternative automata of a simplified formula (constant subformulas,
   * constant.ts; the second rewrites, rewrite-more.ts) are tried only with it.
   */
  readonly minimize?: boolean;
}

interface TranslationStats {
  readonly alternatingStates: number;
  readonly generalizedStates: number;
  readonly acceptanceSets: number;
  readonly degeneralizedStates: number;
  readonly elapsed_ms: number;
  /** Time spent in each stage, in ms. */
  readonly stages_ms: {
    readonly alternating: number;
    readonly generalized: number;
    readonly degeneralize: number;
    readonly reduce: number;
    /** The trivial-language check and obligation minimisation, negation's translation included. */
    readonly minimize: number;
  };
  /**
   * What the last stage did: 'wdba' (replaced by the minimal weak deterministic automaton), 'true'
   * (language universal), 'merged' (states merged, each merge proved with the negation's
   * automaton; merge.ts), or null.
   */
  readonly minimized: 'wdba' | 'true' | 'merged' | null;
  /**
   * Work that only decides whether to take a smaller automaton, skipped for running past a size
   * budget: alternative automata (under the translation's budgets; with ample ones none), and
   * proofs (the negations' translations, under the smaller of those and NEGATION_MAX_*).
   */
  readonly skipped: { readonly alternatives: number; readonly proofs: number };
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
  const minimize = options.minimize ?? true;
  type Run = { core: Core; ba: MutableBuchi; minimized: TranslationStats['minimized']; t4: number };
  function run(f: Formula): Run;
  function run(f: Formula, rewrites: 'more' | 'containment', beat: Run): Run | null;
  function run(f: Formula, rewrites: Rewrites = 'first', beat?: Run): Run | null {
    const core = buildBuchi(f, aps, options, budget, true, rewrites);
    // an alternative not smaller before the last stage is not finished (the stage costs a negation)
    if (core === null || (beat !== undefined && core.ba.accepting.length >= beat.core.ba.accepting.length)) return null;
    const t4 = budget.elapsed_ms();
    if (!minimize) return { core, ba: core.ba, minimized: null, t4 };
    // the last stage only proves a smaller automaton: past a size budget, the automaton stays
    let m = budget.unlessPastSize(() => minimizeStage(core.ba, f, aps, options, budget)) ?? {
      ba: core.ba,
      minimized: null,
    };
    // The generalized automaton's simulation gave a smaller automaton than the plain one; the last
    // stage may still shrink the plain one more (its merges are proved, not predicted): both are
    // finished, and the plain one taken when strictly smaller.
    if (core.plain !== undefined) {
      const plain = core.plain;
      const p = budget.unlessPastSize(() => minimizeStage(plain, f, aps, options, budget)) ?? {
        ba: plain,
        minimized: null,
      };
      if (p.ba.accepting.length < m.ba.accepting.length) m = p;
    }
    return { core, ba: m.ba, minimized: m.minimized, t4 };
  }
  // Subformulas proved equivalent to true or false are replaced (constant.ts); the automaton of
  // the formula so simplified is kept only when strictly smaller, so an automaton the replacement
  // does not shrink stays the one earlier versions built. Each alternative that runs past a size
  // budget is skipped (Budget.unlessPastSize): the budget is for the automaton the translation returns.
  const simplified = minimize ? constantSubformulasReplaced(formula, aps, options, budget) : formula;
  let r = run(formula);
  let from = formula;
  if (simplified !== formula) {
    const other = budget.unlessPastSize(() => run(simplified));
    if (other !== null && other.ba.accepting.length < r.ba.accepting.length) [r, from] = [other, simplified];
  }
  // The second set of rewrites (rewrite-more.ts), when one of them applies, likewise only when
  // smaller; like the replacement above, only with the last stage (minimize: false gives the
  // automaton of the earlier stages alone).
  if (minimize && (options.rewrite ?? true)) {
    const other = budget.unlessPastSize(() => run(from, 'more', r));
    if (other !== null && other.ba.accepting.length < r.ba.accepting.length) r = other;
    // … and with implications proved by automata (containment.ts), likewise; not on formulas of
    // the F/G/U fragment, every mission's and every `bench translate` suite's (as the generalized
    // automaton's simulation below: their automata and time stay as they were).
    if (
      !inFguFragment(from) &&
      aps.length <= CONTAINMENT_MAX_APS &&
      formulaSize(from, CONTAINMENT_MAX_NODES) <= CONTAINMENT_MAX_NODES
    ) {
      const third = budget.unlessPastSize(() => run(from, 'containment', r));
      if (third !== null && third.ba.accepting.length < r.ba.accepting.length) r = third;
    }
  }
  const { core, ba, minimized, t4 } = r;
  const automaton = freezeAutomaton(toAutomaton(ba, aps, printLtl(formula)));
  const t5 = budget.elapsed_ms();
  return {
    formula,
    automaton,
    stats: {
      ...core.stats,
      elapsed_ms: t5,
      stages_ms: { ...core.stats.stages_ms, minimize: t5 - t4 },
      minimized,
      skipped: budget.skipped,
    },
  };
}

type CoreStats = Omit<TranslationStats, 'elapsed_ms' | 'stages_ms' | 'minimized' | 'skipped'> & {
  readonly stages_ms: Omit<TranslationStats['stages_ms'], 'minimize'>;
};

/** Largest degeneralized automaton for which the second choice of entry levels is tried too. */
const ALTERNATIVE_DEGENERALIZATION_MAX_STATES = 200;

/** The reduced automaton; `plain`, the one without the generalized automaton's simulation, when that was larger. */
type Core = { ba: MutableBuchi; plain?: MutableBuchi; stats: CoreStats };

/**
 * Which rewrites make the NNF: the first set (nnf.ts), the second as well (rewrite-more.ts), or
 * both with implications proved by automata (containment.ts).
 */
type Rewrites = 'first' | 'more' | 'containment';

/** Largest formula (syntax-tree nodes) and most propositions for which implications are proved. */
const CONTAINMENT_MAX_NODES = 200;
const CONTAINMENT_MAX_APS = 8;

/**
 * NNF, alternating, generalized and Büchi automata, reduced; states named when `names`. With
 * 'more' rewrites, the NNF uses the second set of rewrites (rewrite-more.ts), and the result is
 * null when none of them applies (the automaton would be the one without); with 'containment',
 * null when no implication was proved (it would be the 'more' one).
 */
function buildBuchi(
  formula: Formula,
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
  names: boolean,
): Core;
function buildBuchi(
  formula: Formula,
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
  names: boolean,
  rewrites: Rewrites,
): Core | null;
function buildBuchi(
  formula: Formula,
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
  names: boolean,
  rewrites: Rewrites = 'first',
): Core | null {
  const apIndex = new Map(aps.map((name, i) => [name, i] as const));
  const nf = nodeFactory(aps, options, budget, rewrites);
  const root = toNnf(formula, apIndex, nf, budget);
  if (nf instanceof ContainmentFactory && nf.proved === 0) return null;
  if (nf instanceof RewriteMoreFactory && nf.fired === 0 && !nf.hasNext) return null;
  const vwaa = buildVwaa(
    root,
    nf,
    { gfLoops: options.gfLoops ?? true, disjunctionStates: rewrites !== 'first', gfDelays: true },
    budget,
  );
  if (nf instanceof RewriteMoreFactory && nf.fired === 0 && vwaa.disjunctionStates === 0) return null;
  const t1 = budget.elapsed_ms();
  const bisim = options.bisimulation ?? true;
  let gba = buildGba(vwaa, budget);
  const generalizedStates = gba.sets.length;
  if (bisim) gba = reduceGba(gba, budget);
  gba = pruneAcceptanceSets(gba, budget);
  if ((options.setOrder ?? 'outer-first') === 'outer-first')
    gba = outerSetsFirst(
      gba,
      vwaa.states.map((st) => st.node),
    );
  const t2 = budget.elapsed_ms();
  const r: Reducing = {
    aps: aps.length,
    budget,
    bisim,
    names,
    describe: stateNamer(vwaa, aps, budget),
    nf,
    root,
    t3: -1,
  };
  // (the stats are the plain automata's: the generalized automaton's own degeneralization)
  const plain = reducedBuchi(r, gba);
  const degeneralizedStates = plain.degeneralizedStates;
  let ba = plain.ba;
  if (bisim && !inFguFragment(formula)) {
    for (const c of simulatedCandidates(gba, aps.length, budget)) {
      const other = budget.unlessPastSize(() => reducedBuchi(r, c));
      if (other !== null && other.ba.accepting.length < ba.accepting.length) ba = other.ba;
    }
  }
  const t4 = budget.elapsed_ms();
  const t3 = r.t3;
  return {
    ba,
    ...(ba === plain.ba ? {} : { plain: plain.ba }),
    stats: {
      alternatingStates: vwaa.states.length,
      generalizedStates,
      acceptanceSets: gba.nAcc,
      degeneralizedStates,
      stages_ms: { alternating: t1, generalized: t2 - t1, degeneralize: t3 - t2, reduce: t4 - t3 },
    },
  };
}

/** The node factory of a rewriting pass. */
function nodeFactory(
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
  rewrites: Rewrites,
): NodeFactory {
  if (rewrites === 'containment')
    return new ContainmentFactory(
      aps,
      {
        toFormula: (n) => nodeToFormula(n, aps, CONTAINMENT_MAX_NODES),
        empty: (g) => provedEmpty(g, aps, options, budget, CONTAINMENT_STAGE),
      },
      budget,
    );
  return rewrites === 'more' ? new RewriteMoreFactory(true, budget) : new NodeFactory(options.rewrite ?? true, budget);
}

/** A generalized state's name: its alternating states' formulas joined by &, cut at STATE_NAME_MAX_CHARS. */
function stateNamer(vwaa: Vwaa, aps: readonly string[], budget: Budget): (set: bigint) => string {
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
  return (set: bigint): string => {
    if (set === 1n) return 'init';
    let name = '';
    for (const s of bitIndices(set)) {
      name += (name === '' ? '' : ' & ') + partName(s);
      if (name.length > STATE_NAME_MAX_CHARS) return `${name.slice(0, STATE_NAME_MAX_CHARS)}…`;
    }
    return name === '' ? 'true' : name;
  };
}

/**
 * The generalized automaton with its marks simplified SCC by SCC and reduced by simulation (gba-simulation.ts), each
 * to be taken only when its automaton comes out strictly smaller: on some formulas the automaton without it
 * degeneralizes into a smaller one. Not tried on formulas of the F/G/U fragment (every mission's): there it costs
 * more time than it saves states, and the set order, which the outer-first default gives at no cost, already gains
 * most of it (docs/BENCHMARKS.md). The degeneralization counts acceptance sets in their order, and the other order
 * is sometimes smaller: each simulated automaton is tried with its sets reversed too. Two simulated automata: with
 * little brothers dropped whole, and with guards refined as well (each wins on some formulas).
 */
function simulatedCandidates(gba: Gba, aps: number, budget: Budget): Gba[] {
  const candidates: Gba[] = [];
  for (const refine of [false, true]) {
    const simulated = simulatedGba(gba, aps, budget, refine);
    if (simulated === gba || candidates.some((c) => sameGba(c, simulated))) continue;
    candidates.push(simulated);
    if (simulated.nAcc >= 2) candidates.push(reversedMarks(simulated));
  }
  return candidates;
}

/** What the degeneralization and reductions of one generalized automaton need; `t3`: when the first one began. */
interface Reducing {
  readonly aps: number;
  readonly budget: Budget;
  readonly bisim: boolean;
  readonly names: boolean;
  readonly describe: (set: bigint) => string;
  readonly nf: NodeFactory;
  readonly root: Node;
  t3: number;
}

/** The degeneralized automaton, reduced, with the alternatives below tried on it. */
function reducedBuchi(r: Reducing, gba: Gba): { ba: MutableBuchi; degeneralizedStates: number } {
  const { budget, bisim, aps } = r;
  const gbaNames = new Map<number, string>();
  const gbaName = (q: number): string => {
    let name = gbaNames.get(q);
    if (name === undefined) gbaNames.set(q, (name = r.describe(gba.sets[q]!)));
    return name;
  };
  const degen = (entry: 'accepting' | 'zero'): MutableBuchi => {
    const raw = degeneralize(gba, r.names ? gbaName : () => '', budget, entry);
    return {
      accepting: raw.accepting,
      names: raw.names,
      initial: raw.initial,
      out: raw.accepting.map((_, i) => raw.edges.get(i) ?? new Map<number, Term[]>()),
    };
  };
  const zero = degen('zero');
  let ba = zero;
  const degeneralizedStates = ba.accepting.length;
  if (r.t3 < 0) r.t3 = budget.elapsed_ms();
  ba = reduceBuchi(ba, budget, bisim, aps);
  // Each alternative below is reduced and kept only when strictly smaller, so an automaton none
  // of them shrinks is the one earlier versions built (the mission benchmarks' automata stay as
  // they were); one that runs past a size budget is skipped, as it would not be taken.
  const keepSmaller = (candidate: () => MutableBuchi | null): void => {
    const other = budget.unlessPastSize(() => {
      const c = candidate();
      return c === null ? null : reduceBuchi(c, budget, bisim, aps);
    });
    if (other !== null && other.accepting.length < ba.accepting.length) ba = other;
  };
  if (bisim) {
    // The other choice of entry levels, when it can differ (some acceptance set) and is cheap enough to try.
    // Not built when it would be the same automaton (every entry already lands on the accepting
    // level: most mission formulas); not reduced when it is the same after all, or has more states
    // before reduction: such a one came out smaller on none of the formulas measured and was the slow
    // tail of the hard suite's translation time (docs/BENCHMARKS.md).
    if (degeneralizedStates <= ALTERNATIVE_DEGENERALIZATION_MAX_STATES && entryChoiceMatters(gba)) {
      keepSmaller(() => {
        const other = degen('accepting');
        return other.accepting.length > degeneralizedStates || sameBuchi(other, zero) ? null : other;
      });
    }
    // Transient states' acceptance is free: made accepting, they may merge with accepting twins.
    keepSmaller(() => withTransientAcceptance(ba, true));
    // … and so are the marks of accepting states whose every cycle passes another accepting state.
    keepSmaller(() => withRedundantAcceptanceDropped(ba, budget));
    keepSmaller(() => withInitialLoop(ba, r.nf.eventual(r.root)));
    // States with the same past (backward simulation) merge, where forward simulation keeps them
    // apart.
    keepSmaller(() => cosimulationQuotient(ba, aps, budget));
    // Non-accepting states whose every cycle passes an accepting state may be accepting (a run
    // visiting one infinitely often is accepted anyway), and then merge with accepting twins.
    keepSmaller(() => withImpliedAcceptance(ba, budget));
  }
  return { ba, degeneralizedStates };
}

/**
 * Whether two automata are the same, state for state (numbering, acceptance, initial state, and
 * each state's targets and guard terms in order): the reductions are deterministic, so they would
 * reduce both alike. Names are not compared; they do not steer any reduction.
 */
export function sameBuchi(a: MutableBuchi, b: MutableBuchi): boolean {
  const n = a.accepting.length;
  if (n !== b.accepting.length || a.initial !== b.initial) return false;
  for (let q = 0; q < n; q++) {
    if (a.accepting[q] !== b.accepting[q]) return false;
    const x = a.out[q]!,
      y = b.out[q]!;
    if (x.size !== y.size) return false;
    const ys = y.entries();
    for (const [to, g] of x) {
      const [to2, h] = ys.next().value!;
      if (to !== to2 || g.length !== h.length) return false;
      for (let i = 0; i < g.length; i++) if (g[i]!.pos !== h[i]!.pos || g[i]!.neg !== h[i]!.neg) return false;
    }
  }
  return true;
}

/** Whether two generalized automata are the same, state for state and edge for edge. */
function sameGba(a: Gba, b: Gba): boolean {
  if (a.sets.length !== b.sets.length || a.nAcc !== b.nAcc || a.initial !== b.initial) return false;
  return a.edges.every((l, q) => {
    const m = b.edges[q]!;
    return (
      l.length === m.length &&
      l.every((e, i) => e.to === m[i]!.to && e.acc === m[i]!.acc && e.g.pos === m[i]!.g.pos && e.g.neg === m[i]!.g.neg)
    );
  });
}

/** The negation's translation may make this many states in any stage; past it the checks are skipped. */
const NEGATION_MAX_STATES = 512;
/** … and this many transitions in all per automaton. */
const NEGATION_MAX_EDGES = 20_000;
/** Most guard terms × letters the last stage reads its automaton on; a larger one is left as it is. */
const EXPLICIT_MAX_WORK = 1_000_000;

const MINIMIZE_STAGE = 'obligation minimisation';

/** A budget for a check's own translation: NEGATION_MAX_* sizes, the translation's time left. */
function checkBudget(options: TranslateOptions, budget: Budget): Budget {
  return new Budget({
    ...options,
    maxStates: Math.min(options.maxStates ?? NEGATION_MAX_STATES, NEGATION_MAX_STATES),
    maxEdges: Math.min(options.maxEdges ?? NEGATION_MAX_EDGES, NEGATION_MAX_EDGES),
    timeLimit_ms: Math.max(0, (options.timeLimit_ms ?? DEFAULT_TIME_LIMIT_MS) - budget.elapsed_ms()),
  });
}

/**
 * Whether g's automaton is empty (trimmed to no transition from the initial state); null when its
 * translation ran past the check's budget. Out of the translation's own time, or cancelled, it
 * says so as this translation.
 */
function provedEmpty(
  g: Formula,
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
  stage: string,
): boolean | null {
  budget.checkTime(stage);
  try {
    const a = buildBuchi(g, aps, options, checkBudget(options, budget), false).ba;
    return a.out[a.initial]!.size === 0;
  } catch (e) {
    if (!(e instanceof LtlBudgetError)) throw e;
    if (e.budget === 'time' || e.budget === 'cancelled') budget.checkTime(stage);
    else budget.proofSkipped();
    return null;
  }
}

const CONSTANT_STAGE = 'constant subformulas';
const CONTAINMENT_STAGE = 'containment proofs';

/** The formula with subformulas proved equivalent to true or false replaced (see constant.ts). */
export function constantSubformulasReplaced(
  formula: Formula,
  aps: readonly string[] = atomicPropositions(formula),
  options: TranslateOptions = {},
  budget = new Budget(options),
): Formula {
  return replaceConstantSubformulas(formula, aps, (g) => provedEmpty(g, aps, options, budget, CONSTANT_STAGE));
}

/** One state, a true self-loop, accepting: the automaton of `true`. */
function universalBuchi(): MutableBuchi {
  return { accepting: [true], names: ['init'], initial: 0, out: [new Map([[0, [TRUE_TERM]]])] };
}

function isUniversalShape(a: MutableBuchi): boolean {
  if (a.accepting.length !== 1 || !a.accepting[0]) return false;
  const g = a.out[0]!.get(0);
  return g !== undefined && g.length === 1 && g[0]!.pos === 0n && g[0]!.neg === 0n;
}

/**
 * The trivial-language check and WDBA minimisation (see wdba.ts), then, for formulas with X, trial
 * merges of states (merge.ts). The negation is translated only when it can pay: to prove a smaller
 * candidate or a merge, or when the powerset construction ran past its cap without meeting a
 * letter the automaton cannot read, and the automaton accepts c^ω for every letter c (φ may then
 * be equivalent to true). It runs under size budgets of its own (NEGATION_MAX_*; past them the
 * check is skipped, deterministically) and the translation's time budget.
 */
function minimizeStage(
  ba: MutableBuchi,
  formula: Formula,
  aps: readonly string[],
  options: TranslateOptions,
  budget: Budget,
): { ba: MutableBuchi; minimized: TranslationStats['minimized'] } {
  const unchanged = { ba, minimized: null };
  budget.checkTime(MINIMIZE_STAGE);
  // empty (trimmed to the one-state false automaton) or already the automaton of true
  if (ba.out[ba.initial]!.size === 0 || isUniversalShape(ba)) return unchanged;
  if (aps.length > WDBA_MAX_APS) return unchanged;
  let transitions = 0;
  for (const m of ba.out) for (const g of m.values()) transitions += g.length;
  // reading every guard on every letter class costs up to transitions × 2^aps
  if (transitions * 2 ** aps.length > EXPLICIT_MAX_WORK) return unchanged;
  let negation: MutableBuchi | null | undefined;
  const negated = (): MutableBuchi | null => {
    if (negation !== undefined) return negation;
    const sub = checkBudget(options, budget);
    try {
      negation = buildBuchi({ kind: 'not', arg: formula }, aps, options, sub, false).ba;
    } catch (e) {
      if (!(e instanceof LtlBudgetError)) throw e;
      // out of the translation's own time, or cancelled: say so as this translation
      if (e.budget === 'time' || e.budget === 'cancelled') budget.checkTime(MINIMIZE_STAGE);
      else budget.proofSkipped();
      negation = null;
    }
    return negation;
  };
  const wdbaOrTrue = (): { ba: MutableBuchi; minimized: TranslationStats['minimized'] } => {
    const lc = letterClasses(aps.length, guardTerms(ba), budget);
    const ex = explicitOf(ba, lc, budget);
    // past the powerset's input size only the universality check is left
    const r =
      ba.accepting.length > WDBA_MAX_INPUT_STATES
        ? { dba: null, capped: true, complete: true }
        : minimizeWdba(ba, ex, budget);
    if (r.dba !== null) {
      const d = r.dba;
      const n = d.final.length;
      if (n >= ba.accepting.length) return unchanged;
      const names = (s: number): string => {
        let name = '';
        for (const q of d.members[s]!) {
          name += (name === '' ? '' : ' | ') + ba.names[q]!;
          if (name.length > STATE_NAME_MAX_CHARS) return `${name.slice(0, STATE_NAME_MAX_CHARS)}…`;
        }
        return name;
      };
      const cand = toMutable(d, lc, names, budget);
      const neg = negated();
      if (neg === null || !verifyEquivalent(ba, neg, d, lc, budget)) return unchanged;
      return isUniversalShape(cand) ? { ba: universalBuchi(), minimized: 'true' } : { ba: cand, minimized: 'wdba' };
    }
    if (r.capped && r.complete && acceptsEveryConstantWord(ex, budget)) {
      const neg = negated();
      if (neg !== null && neg.out[neg.initial]!.size === 0) return { ba: universalBuchi(), minimized: 'true' };
    }
    return unchanged;
  };
  const r = wdbaOrTrue();
  if (r.minimized !== null) return r;
  // Trial merges proved with the negation's automaton (merge.ts), only on formulas with X: the
  // mission formulas have none, so their automata (and the mission tables) stay as they were.
  if (mentionsNext(formula) && ba.accepting.length <= MERGE_MAX_STATES) {
    const neg = negated();
    const m = neg === null ? null : provedMerges(ba, neg, aps.length, budget);
    if (m !== null && m.accepting.length < ba.accepting.length) return { ba: m, minimized: 'merged' };
  }
  return unchanged;
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
      case 'tt':
        return { kind: 'true' };
      case 'ff':
        return { kind: 'false' };
      case 'lit': {
        const a: Formula = { kind: 'ap', name: aps[n.ap]! };
        return n.neg ? { kind: 'not', arg: a } : a;
      }
      case 'and':
      case 'or':
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
      case 'X':
        return { kind: 'X', arg: go(n.kids[0]!) };
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
