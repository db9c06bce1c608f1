/**
 * The planner's entry point: preprocess the automaton, build the implicit product, search with the
 * chosen method, check the certificate, and return a plan or a structured infeasibility.
 */
import { WitnessError } from '../../contract/errors.js';
import { PLAN_DEFAULTS, PLAN_METHODS, type PlanMethod } from '../../contract/defaults.js';
import type { BuchiAutomaton, Term } from '../ltl/automaton.js';
import { type SemanticGraph, edgeWeight } from './semantic.js';
import { type WorkingAutomaton, prepareAutomaton } from './prep.js';
import { type Product, buildProduct } from './product.js';
import { buildChainHeuristic, buildHeuristic } from './heuristic.js';
import { type Candidate, type SearchStats, searchPlan } from './search.js';
import { gaGas, lfGas } from './baselines.js';
import { type Certificate, makeCertificate } from './certificate.js';
import { type InfeasibleReason, type RegionInTheWay, type SearchOutcome, diagnose } from './diagnose.js';
import { checkCostRange, checkPlanCost } from './cost-range.js';

export type Method = PlanMethod;

/** Product states (nodes × automaton states) the planner will allocate for; beyond it, a budget error. */
const MAX_PRODUCT_STATES = 30_000_000;

/** The product is too large, or the search ran past its time budget or was cancelled. */
export class PlanBudgetError extends WitnessError {
  override readonly name = 'PlanBudgetError';
  constructor(message: string) {
    super('budget', message);
  }
}

/** A `check` for PlanOptions: throws PlanBudgetError once `limit_ms` has passed on the injected clock. */
export function deadline(limit_ms: number, now: () => number): () => void {
  const end = now() + limit_ms;
  return () => {
    if (now() > end) throw new PlanBudgetError(`planning took longer than its time budget of ${limit_ms} ms`);
  };
}
export const METHODS: readonly Method[] = PLAN_METHODS;

export interface PlanOptions {
  readonly method: Method;
  /** Prefix candidates (Table J.1: 5); Infinity considers every accepting endpoint (exact). */
  readonly k: number;
  /** Prefix–suffix trade-off λ (Table J.1: 0.5). */
  readonly lambda: number;
  /** Soft-label threshold τ_soft (Table J.1, AntMaze: 0.05). */
  readonly tauSoft: number;
  /** Called now and then during search; throw to cancel. */
  readonly check?: () => void;
  /**
   * The prefix A* heuristic: B.13 of the paper (default), or the literal-chain bound, which
   * dominates it and finds the same candidates with fewer expansions (beyond the paper).
   */
  readonly heuristic?: 'b13' | 'chain';
  /** Replanning: start from these automaton states (the runtime monitor's), not from the initial ones. */
  readonly resume?: readonly number[];
}

export const DEFAULT_PLAN: Omit<PlanOptions, 'method'> = {
  k: PLAN_DEFAULTS.k,
  lambda: PLAN_DEFAULTS.lambda,
  tauSoft: PLAN_DEFAULTS.tauSoft,
};

export interface PlanStep {
  readonly node: number;
  /** Original automaton state after reading this node's letter. */
  readonly state: number;
  /** Original state the transition left, and the guard term it used. */
  readonly from: number;
  readonly term: Term;
  /**
   * A letter satisfying the term: the node's label set (exact nodes) or its witnessed propositions (none, for
   * clusters).
   */
  readonly letter: readonly string[];
  /** Edge weight paid to reach this step (0 for the start, a stay or a dwell). */
  readonly cost: number;
}

export interface Plan {
  readonly status: 'ok';
  readonly method: Method;
  /** Steps 0..p are the prefix, p+1..p+c the suffix (its last step is (v_p, q_p) again). */
  readonly steps: readonly PlanStep[];
  readonly prefixLength: number;
  readonly dwell: boolean;
  readonly cost: { readonly prefix: number; readonly suffix: number; readonly objective: number };
  /**
   * The lasso as the search cut it (at an accepting state) and how many steps rotateLasso moved its
   * cycle back on the same path; steps 0 when it was already cut where its cycle begins.
   */
  readonly rotation: {
    readonly steps: number;
    readonly searchPrefix: number;
    readonly searchObjective: number;
    readonly pathSteps: number;
  };
  /**
   * The driven path cut where its cycle begins (cutPath): the node sequence's prefix is steps
   * 0 .. pathPrefix − 1 and its cycle the rest, ending at the prefix's last node. It is the product
   * lasso's prefix shortened while its last node equals the cycle's last, where the automaton's
   * states may differ (so the certificate keeps `prefixLength`). `cost` is this cut's.
   */
  readonly pathPrefix: number;
  readonly stats: SearchStats;
  readonly certificate: Certificate;
}

interface Infeasible {
  readonly status: 'infeasible';
  readonly method: Method;
  readonly reason: InfeasibleReason;
  readonly stats: SearchStats;
}

export type PlanResult = Plan | Infeasible;

/** Working automaton facts the planner needs beyond the search (also used by the baselines). */
export interface PlanContext {
  readonly graph: SemanticGraph;
  readonly automaton: BuchiAutomaton;
  readonly work: WorkingAutomaton;
  readonly product: Product;
  readonly unavailable: readonly string[];
}

/** Propositions of the formula that no node of the graph witnesses. */
export function unavailablePropositions(g: SemanticGraph, a: BuchiAutomaton): string[] {
  const seen = new Set<string>();
  g.ids.forEach((_, v) => {
    if (g.kinds[v] !== 'cluster') for (const l of g.labels[v]!) seen.add(l);
  });
  return a.aps.filter((x) => !seen.has(x));
}

export function planContext(
  g: SemanticGraph,
  a: BuchiAutomaton,
  tauSoft: number,
  resume?: readonly number[],
): PlanContext {
  const unavailable = unavailablePropositions(g, a);
  const work = prepareAutomaton(a, {
    disjoint: g.disjoint,
    unavailable: new Set(unavailable),
    startLetter: g.labels[g.start]!,
    ...(resume ? { resume } : {}),
  });
  return { graph: g, automaton: a, work, product: buildProduct(g, work, tauSoft), unavailable };
}

function checkRequest(g: SemanticGraph, a: BuchiAutomaton, o: PlanOptions): void {
  if (!(o.lambda >= 0 && o.lambda <= 1)) throw new RangeError(`λ must be in [0, 1], got ${o.lambda}`);
  if (!(o.k >= 1)) throw new RangeError(`K must be at least 1, got ${o.k}`);
  const size = g.ids.length * a.states.length;
  if (size > MAX_PRODUCT_STATES) {
    throw new PlanBudgetError(
      `the product has up to ${g.ids.length} nodes × ${a.states.length} automaton states = ${size} states, over the planner's budget of ${MAX_PRODUCT_STATES}`,
    );
  }
  // Weights whose sums overflow would read as "unreachable": refuse them with that cause instead.
  checkCostRange(g, a.states.length);
}

/** Whether plan() would find a plan: the same search, without the certificate or the infeasibility diagnosis. */
export function hasPlan(g: SemanticGraph, a: BuchiAutomaton, o: PlanOptions): boolean {
  checkRequest(g, a, o);
  return search(g, a, o).best !== null;
}

export function plan(g: SemanticGraph, a: BuchiAutomaton, o: PlanOptions): PlanResult {
  checkRequest(g, a, o);
  const s = search(g, a, o);
  if (s.best === null) {
    const reason = diagnose(s.ctx, s.outcome);
    const enters = s.outcome === null ? [] : forbiddenEntries(g, a, o);
    return {
      status: 'infeasible',
      method: o.method,
      reason: enters.length === 0 ? reason : withEntries(reason, enters),
      stats: s.stats,
    };
  }
  const r = rotateLasso(s.ctx, s.best);
  return assemble(s.ctx, o, r.lasso, s.stats, r.rotated, s.best.prefix.cost);
}

/**
 * The search alone: the best candidate (null: none), and what the diagnosis reads (null: the working automaton is
 * empty).
 */
function search(
  g: SemanticGraph,
  a: BuchiAutomaton,
  o: PlanOptions,
): { ctx: PlanContext; best: Candidate | null; outcome: SearchOutcome | null; stats: SearchStats } {
  const ctx = planContext(g, a, o.tauSoft, o.resume);
  const stats: SearchStats = { expandedPrefix: 0, expandedSuffix: 0, endpoints: 0, withSuffix: 0 };
  if (ctx.work.empty) return { ctx, best: null, outcome: null, stats };
  const start = ctx.work.init.map((i) => g.start * ctx.product.nq + i.state);
  if (o.method === 'sagas') {
    const heuristic = o.heuristic === 'chain' ? buildChainHeuristic(ctx.product) : buildHeuristic(ctx.product);
    const result = searchPlan(ctx.product, start, {
      k: o.k,
      lambda: o.lambda,
      heuristic,
      ...(o.check ? { check: o.check } : {}),
    });
    Object.assign(stats, result.stats);
    return { ctx, best: result.best, outcome: result, stats };
  }
  const r = o.method === 'lf-gas' ? lfGas(ctx, o.lambda) : gaGas(ctx, o.lambda);
  Object.assign(stats, r.stats);
  return { ctx, best: r.best, outcome: r, stats };
}

/**
 * Whether node v may carry proposition x: an exact label, or a cluster's soft label at or above τ_soft (or unknown).
 */
export function carries(g: SemanticGraph, v: number, x: string, tauSoft: number): boolean {
  if (g.kinds[v] !== 'cluster') return g.labels[v]!.includes(x);
  const p = g.soft.get(x)?.[v];
  return p === undefined || !(p < tauSoft);
}

/**
 * The regions that alone make the mission infeasible: for each proposition some node carries, the
 * same search on the graph with that proposition taken off every node; where that finds a plan, the
 * first node on it that carried the proposition is the place the mission would have to enter it.
 * A mission that can be met only by crossing a forbidden region names the region and the place.
 */
function forbiddenEntries(g: SemanticGraph, a: BuchiAutomaton, o: PlanOptions): RegionInTheWay[] {
  const out: RegionInTheWay[] = [];
  for (const x of a.aps) {
    const on = g.ids.map((_, v) => carries(g, v, x, o.tauSoft));
    if (!on.some(Boolean)) continue;
    const soft = new Map(g.soft);
    const p = soft.get(x);
    soft.set(x, p === undefined ? new Float64Array(g.ids.length) : p.map((q, v) => (on[v] ? 0 : q)));
    const relaxed: SemanticGraph = { ...g, labels: g.labels.map((l) => l.filter((y) => y !== x)), soft };
    const s = search(relaxed, a, o);
    if (s.best === null) continue;
    const nq = s.ctx.product.nq;
    const path = [...s.best.prefix.states, ...s.best.suffix.states].map((z) => (z - (z % nq)) / nq);
    const v = path.find((u) => on[u]);
    if (v === undefined) continue;
    const px = g.positions[2 * v]!,
      py = g.positions[2 * v + 1]!;
    out.push({ region: x, node: g.ids[v]!, at: Number.isFinite(px) && Number.isFinite(py) ? [px, py] : null });
  }
  return out;
}

const place = (e: RegionInTheWay): string =>
  `"${e.region}" at ${e.at === null ? '' : `(${+e.at[0].toFixed(3)}, ${+e.at[1].toFixed(3)}), `}node ${e.node}`;

function withEntries(r: InfeasibleReason, enters: readonly RegionInTheWay[]): InfeasibleReason {
  return {
    ...r,
    enters,
    message: `${r.message}; every plan would have to enter ${enters.map(place).join(', or ')}, where the specification forbids it`,
  };
}

/**
 * Where a lasso's cycle begins is an accident of where the automaton happened to accept: while the
 * prefix's last step repeats the cycle's last step (the same product state before the endpoint),
 * the same infinite run is a shorter prefix and the cycle rotated by one. The path and the cycle's
 * cost stay the same; the prefix cost can only drop. Dwell suffixes stay as they are.
 */
function rotateLasso(ctx: PlanContext, c: Candidate): { lasso: Candidate; rotated: number } {
  if (c.dwell) return { lasso: c, rotated: 0 };
  const p = ctx.product;
  const pre = [...c.prefix.states],
    preT = [...c.prefix.transitions];
  let suf = [...c.suffix.states],
    sufT = [...c.suffix.transitions];
  let preCost = c.prefix.cost,
    rotated = 0;
  const node = (z: number): number => (z - (z % p.nq)) / p.nq;
  while (pre.length >= 2 && suf.length >= 2 && pre[pre.length - 2] === suf[suf.length - 2]) {
    const end = pre.pop()!;
    preT.pop();
    const before = pre[pre.length - 1]!;
    preCost -= node(before) === node(end) ? 0 : edgeCost(ctx.graph, node(before), node(end));
    // The cycle now starts by entering `end` (as its last step used to) and ends back at `before`.
    suf = [end, ...suf.slice(0, -1)];
    sufT = [sufT[sufT.length - 1]!, ...sufT.slice(0, -1)];
    rotated++;
  }
  if (rotated === 0) return { lasso: c, rotated: 0 };
  preCost = Math.max(0, preCost);
  return {
    lasso: {
      prefix: { states: pre, transitions: preT, cost: preCost },
      suffix: { states: suf, transitions: sufT, cost: c.suffix.cost },
      dwell: false,
      objective: c.objective,
    },
    rotated,
  };
}

function assemble(
  ctx: PlanContext,
  o: PlanOptions,
  c: Candidate,
  stats: SearchStats,
  rotated: number,
  searchPrefix: number,
): Plan {
  const p = ctx.product;
  const w = ctx.work;
  const g = ctx.graph;
  const letterOf = (v: number): string[] => (g.kinds[v] === 'cluster' ? [] : [...g.labels[v]!]);
  const steps: PlanStep[] = [];
  const push = (z: number, t: number, prev: number | null): void => {
    const q = z % p.nq;
    const v = (z - q) / p.nq;
    let from: number, term: Term;
    if (t < 0) {
      const init = w.init.find((i) => i.state === q)!;
      from = init.from;
      term = init.term;
    } else {
      const pq = prev! % p.nq;
      from = w.origin[pq]!;
      term = w.out[pq]![t - p.tStart[pq]!]!.term;
    }
    const pv = prev === null ? v : (prev - (prev % p.nq)) / p.nq;
    const cost = prev === null || pv === v ? 0 : edgeCost(g, pv, v);
    steps.push({ node: v, state: w.origin[q]!, from, term, letter: letterOf(v), cost });
  };
  c.prefix.states.forEach((z, i) => push(z, c.prefix.transitions[i]!, i === 0 ? null : c.prefix.states[i - 1]!));
  const end = c.prefix.states[c.prefix.states.length - 1]!;
  c.suffix.states.forEach((z, i) => push(z, c.suffix.transitions[i]!, i === 0 ? end : c.suffix.states[i - 1]!));
  const prefixLength = c.prefix.states.length;
  const certificate = makeCertificate(ctx, steps, prefixLength, c.dwell, o.tauSoft, o.resume);
  if (!certificate.checked.guardWordAccepted) {
    // Never expected: the search and the independent check disagree. Refuse to hand out the plan.
    throw new Error(`plan certificate rejected: ${certificate.checked.errors.join('; ')}`);
  }
  const suffixCost = c.suffix.cost;
  const path = cutPath(
    steps.map((x) => x.node),
    prefixLength,
    c.dwell,
    c.prefix.cost,
    (u, v) => edgeCost(g, u, v),
  );
  const cost = {
    prefix: path.prefix,
    suffix: suffixCost,
    objective: o.lambda * path.prefix + (1 - o.lambda) * suffixCost,
  };
  checkPlanCost(cost);
  return {
    status: 'ok',
    method: o.method,
    steps,
    prefixLength,
    pathPrefix: path.prefixLength,
    dwell: c.dwell,
    cost,
    rotation: {
      steps: rotated,
      searchPrefix: searchPrefix,
      searchObjective: o.lambda * searchPrefix + (1 - o.lambda) * suffixCost,
      pathSteps: prefixLength - path.prefixLength,
    },
    stats,
    certificate,
  };
}

/**
 * The driven path's steps as Plan.pathPrefix cuts it: the prefix, and the cycle's first lap as the
 * run makes it (steps pathPrefix … pathPrefix + c − 1: the node path repeats from its cut on).
 */
export function drivenSteps(r: Plan): { prefix: readonly PlanStep[]; cycle: readonly PlanStep[] } {
  const c = r.steps.length - r.prefixLength;
  return { prefix: r.steps.slice(0, r.pathPrefix), cycle: r.steps.slice(r.pathPrefix, r.pathPrefix + c) };
}

/**
 * The driven path's own cut of a lasso of nodes (prefix nodes[0 .. prefixLength), cycle the rest,
 * ending at the prefix's last node): the same infinite node path is the prefix shortened by one and
 * the cycle rotated by one while the prefix's last-but-one node equals the cycle's last-but-one —
 * whatever the automaton's states there. The cycle's cost stays; the prefix's can only drop. A
 * dwell is its own cut.
 */
function cutPath(
  nodes: readonly number[],
  prefixLength: number,
  dwell: boolean,
  prefixCost: number,
  cost: (u: number, v: number) => number,
): { prefixLength: number; prefix: number } {
  if (dwell) return { prefixLength, prefix: prefixCost };
  const cycle = nodes.slice(prefixLength);
  let p = prefixLength,
    prefix = prefixCost;
  // The cycle read backwards from its last-but-one node, one step further per cut.
  while (
    p >= 2 &&
    cycle.length >= 2 &&
    nodes[p - 2] === cycle[(((cycle.length - 2 - (prefixLength - p)) % cycle.length) + cycle.length) % cycle.length]
  ) {
    const u = nodes[p - 2]!,
      v = nodes[p - 1]!;
    prefix -= u === v ? 0 : cost(u, v);
    p--;
  }
  return { prefixLength: p, prefix: Math.max(0, prefix) };
}

function edgeCost(g: SemanticGraph, u: number, v: number): number {
  const w = edgeWeight(g, u, v);
  if (w === undefined) throw new Error(`internal: no edge ${g.ids[u]} → ${g.ids[v]} on a planned path`);
  return w;
}
