/**
 * Why a mission cannot be met: a minimal set of the specification's top-level conjuncts that no plan on
 * this graph satisfies together (deletion-based: start from all, drop each conjunct while the rest stays
 * infeasible), and then the smallest weakening of that conflict that is still infeasible — a subformula
 * the specification implies — with the regions it needs: labelled nowhere, unreachable from the start,
 * or forbidden on every path (the planner's own `enters` diagnosis, core/plan/plan.ts). Every check is a
 * product search with our planner (SAGAS, every prefix candidate); the work is bounded and says so.
 */
import { type Formula, atomicPropositions } from '../ltl/ast.js';
import { WitnessError } from '../../contract/errors.js';
import { printLtl } from '../ltl/printer.js';
import type { BuchiAutomaton } from '../ltl/automaton.js';
import { translateFormula } from '../ltl/translate.js';
import { type InfeasibleReason, satisfiable } from './diagnose.js';
import { type PlanOptions, type PlanResult, carries, hasPlan, plan } from './plan.js';
import type { SemanticGraph } from './semantic.js';

/** Planner searches one explanation may make before it reports what it has. */
const MAX_EXPLAIN_CHECKS = 64;

/** Why a region the conflict needs cannot be had. */
interface RegionCause {
  readonly region: string;
  readonly why: 'labelled-nowhere' | 'unreachable' | 'forbidden';
  /** Forbidden: the first node a plan ignoring the region would enter it at, and its position. */
  readonly node?: string;
  readonly at?: readonly [number, number] | null;
  /** Forbidden: the nodes carrying the region that border what the start reaches without entering it. */
  readonly cut?: readonly string[];
}

export interface Explanation {
  /** The specification's top-level conjuncts, printed. */
  readonly conjuncts: readonly string[];
  /** Indices into `conjuncts` of a set that cannot hold together on this graph (empty: see `message`). */
  readonly conflict: readonly number[];
  /** Whether dropping any one member of `conflict` was checked to leave a feasible set. */
  readonly minimal: boolean;
  /** The conflict holds on no graph: its conjuncts contradict each other (its automaton accepts no word). */
  readonly contradiction: boolean;
  /** The smallest infeasible weakening of the conflict (a formula the specification implies). */
  readonly core: string | null;
  /** The planner's own infeasibility reason for `core`. */
  readonly reason: InfeasibleReason | null;
  readonly regions: readonly RegionCause[];
  /** Planner searches made. */
  readonly checks: number;
  /** Set when the bound (checks or the time budget) stopped the work: the result is then partial. */
  readonly bound?: string;
  /** The explanation in words a specification author can act on. */
  readonly message: string;
}

interface ExplainOptions {
  /** The plan options of the failed request; searches use SAGAS with every prefix candidate. */
  readonly plan: Omit<PlanOptions, 'method' | 'k'>;
  /** The automaton of a formula (default: translateFormula with its default budget); may throw a budget error. */
  readonly automaton?: (f: Formula) => BuchiAutomaton;
  readonly maxChecks?: number;
}

/** The top-level conjuncts of a formula (nested conjunctions flattened). */
export function conjunctsOf(f: Formula): Formula[] {
  return f.kind === 'and' ? f.args.flatMap(conjunctsOf) : [f];
}

const conj = (fs: readonly Formula[]): Formula =>
  fs.length === 0 ? { kind: 'true' } : fs.length === 1 ? fs[0]! : { kind: 'and', args: fs };

class Bounded extends Error {}

/** Runs the planner within the check bound; a budget error from the planner or the translation ends the work. */
class Checker {
  checks = 0;
  bound: string | undefined;
  readonly automaton: (f: Formula) => BuchiAutomaton;
  constructor(
    readonly g: SemanticGraph,
    readonly o: ExplainOptions,
  ) {
    this.automaton = o.automaton ?? ((f) => translateFormula(f).automaton);
  }

  private bounded<T>(work: () => T): T {
    const max = this.o.maxChecks ?? MAX_EXPLAIN_CHECKS;
    if (this.checks >= max) {
      this.bound = `stopped after ${max} planner searches`;
      throw new Bounded();
    }
    this.checks++;
    try {
      return work();
    } catch (e) {
      if (e instanceof WitnessError && e.code === 'budget') {
        this.bound = e.message;
        throw new Bounded();
      }
      throw e;
    }
  }

  infeasible(f: Formula): boolean {
    return !this.bounded(() => hasPlan(this.g, this.automaton(f), { ...this.o.plan, method: 'sagas', k: Infinity }));
  }
}

/**
 * A minimal conflicting set of conjuncts (deletion-based), as indices; `minimal` false when the bound
 * stopped it (the set is then conflicting but not proven minimal).
 */
function minimalConflict(c: Checker, parts: readonly Formula[]): { set: number[]; minimal: boolean } {
  let set = parts.map((_, i) => i);
  for (let i = 0; i < parts.length; i++) {
    const rest = set.filter((j) => j !== i);
    try {
      if (c.infeasible(conj(rest.map((j) => parts[j]!)))) set = rest;
    } catch (e) {
      if (e instanceof Bounded) return { set, minimal: false };
      throw e;
    }
  }
  return { set, minimal: true };
}

/** The size of a formula (its nodes). */
function size(f: Formula): number {
  switch (f.kind) {
    case 'true':
    case 'false':
    case 'ap':
      return 1;
    case 'not':
    case 'F':
    case 'G':
    case 'X':
      return 1 + size(f.arg);
    case 'and':
    case 'or':
      return 1 + f.args.reduce((s, x) => s + size(x), 0);
    default:
      return 1 + size(f.left) + size(f.right);
  }
}

/**
 * The formulas one weakening step away, each implied by `f`: where `f` occurs with polarity `pos`
 * (true: positive), a positive conjunction (or a negated disjunction) keeps one argument or drops one,
 * and a positive `l U r` becomes `F r`. Operands of `iff` and `xor` have both polarities: left alone.
 */
export function weakenings(f: Formula, pos = true): Formula[] {
  const out: Formula[] = [];
  if ((f.kind === 'and' && pos) || (f.kind === 'or' && !pos)) {
    out.push(...f.args);
    if (f.args.length > 2) f.args.forEach((_, i) => out.push({ ...f, args: f.args.filter((_, j) => j !== i) }));
  }
  if (f.kind === 'U' && pos) out.push({ kind: 'F', arg: f.right });
  switch (f.kind) {
    case 'not':
      return [...out, ...weakenings(f.arg, !pos).map((arg) => ({ ...f, arg }))];
    case 'F':
    case 'G':
    case 'X':
      return [...out, ...weakenings(f.arg, pos).map((arg) => ({ ...f, arg }))];
    case 'and':
    case 'or':
      f.args.forEach((a, i) => {
        for (const w of weakenings(a, pos)) out.push({ ...f, args: f.args.map((b, j) => (j === i ? w : b)) });
      });
      return out;
    case 'implies':
    case 'U':
    case 'R':
    case 'W':
    case 'M':
      for (const w of weakenings(f.left, f.kind === 'implies' ? !pos : pos)) out.push({ ...f, left: w });
      for (const w of weakenings(f.right, pos)) out.push({ ...f, right: w });
      return out;
    default:
      return out;
  }
}

/** Whether a formula holds on no graph at all (a translation over budget: not known, so false). */
function contradicts(c: Checker, f: Formula): boolean {
  try {
    return !satisfiable(c.automaton(f));
  } catch (e) {
    if (e instanceof WitnessError && e.code === 'budget') return false;
    throw e;
  }
}

/** The smallest infeasible formula reached by weakening `f` step by step (greedy: the smallest first). */
function smallestCause(c: Checker, f: Formula): { core: Formula; result: PlanResult | null } {
  let core = f;
  try {
    for (;;) {
      const next = weakenings(core)
        .sort((x, y) => size(x) - size(y))
        .find((w) => c.infeasible(w));
      if (next === undefined) break;
      core = next;
    }
  } catch (e) {
    if (!(e instanceof Bounded)) throw e;
  }
  // The planner's reason for what was found (with its `enters` diagnosis): one search, even past the bound.
  c.checks++;
  try {
    return { core, result: plan(c.g, c.automaton(core), { ...c.o.plan, method: 'sagas', k: Infinity }) };
  } catch (e) {
    if (e instanceof WitnessError && e.code === 'budget') return { core, result: null };
    throw e;
  }
}

/** Nodes the start reaches (edges followed forwards), optionally never entering a node `avoid` marks. */
function reachable(g: SemanticGraph, avoid: (v: number) => boolean = () => false): Uint8Array {
  const seen = new Uint8Array(g.ids.length);
  const stack = [g.start];
  seen[g.start] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (seen[v] === 0 && !avoid(v)) {
        seen[v] = 1;
        stack.push(v);
      }
    }
  }
  return seen;
}

/** The propositions occurring positively in `f` (those it may need true somewhere), in order of first occurrence. */
export function positivePropositions(f: Formula, pos = true, out = new Set<string>()): string[] {
  switch (f.kind) {
    case 'ap':
      if (pos) out.add(f.name);
      break;
    case 'not':
      positivePropositions(f.arg, !pos, out);
      break;
    case 'F':
    case 'G':
    case 'X':
      positivePropositions(f.arg, pos, out);
      break;
    case 'and':
    case 'or':
      for (const a of f.args) positivePropositions(a, pos, out);
      break;
    case 'iff':
    case 'xor':
      for (const x of atomicPropositions(f)) out.add(x);
      break;
    case 'implies':
      positivePropositions(f.left, !pos, out);
      positivePropositions(f.right, pos, out);
      break;
    case 'true':
    case 'false':
      break;
    default:
      positivePropositions(f.left, pos, out);
      positivePropositions(f.right, pos, out);
  }
  return [...out];
}

/** The regions `core` needs that it cannot have: labelled nowhere, unreachable, or forbidden (with the cut). */
function regionCauses(g: SemanticGraph, core: Formula, reason: InfeasibleReason | null, tau: number): RegionCause[] {
  const out: RegionCause[] = [];
  const reach = reachable(g);
  for (const x of positivePropositions(core)) {
    const on = g.ids.map((_, v) => carries(g, v, x, tau));
    if (!on.some(Boolean)) out.push({ region: x, why: 'labelled-nowhere' });
    else if (!on.some((b, v) => b && reach[v] === 1)) out.push({ region: x, why: 'unreachable' });
  }
  for (const e of reason?.enters ?? []) {
    const inside = (v: number): boolean => carries(g, v, e.region, tau);
    const free = reachable(g, inside);
    const cut = new Set<string>();
    g.ids.forEach((_, u) => {
      if (free[u] !== 1) return;
      for (let k = g.outStart[u]!; k < g.outStart[u + 1]!; k++) if (inside(g.outTo[k]!)) cut.add(g.ids[g.outTo[k]!]!);
    });
    out.push({ region: e.region, why: 'forbidden', node: e.node, at: e.at, cut: [...cut] });
  }
  return out;
}

const WHY: Record<RegionCause['why'], string> = {
  'labelled-nowhere': 'labels no node of the graph',
  unreachable: 'labels only nodes the start cannot reach',
  forbidden: 'lies on every path, where the specification forbids it',
};

function describe(
  parts: readonly string[],
  set: readonly number[],
  contradiction: boolean,
  core: string | null,
  rs: RegionCause[],
): string {
  const where = contradiction ? 'on any graph: they contradict each other' : 'on this graph';
  const which =
    set.length === 1
      ? `the conjunct ${parts[set[0]!]} cannot be met ${contradiction ? 'on any graph: it is unsatisfiable' : where}`
      : `the conjuncts ${set.map((i) => parts[i]).join(' and ')} cannot hold together ${where}`;
  const why = rs.map((r) => `"${r.region}" ${WHY[r.why]}${r.node !== undefined ? ` (entered at node ${r.node})` : ''}`);
  return `${which}${core !== null ? `; the smallest part that fails is ${core}` : ''}${
    why.length > 0 ? `: ${why.join('; ')}` : ''
  }`;
}

/**
 * Explains an infeasible specification on a graph. Null-free: when the exact search does find a plan (the
 * request's method stopped short), the explanation says so with an empty conflict.
 */
export function explainInfeasible(g: SemanticGraph, spec: Formula, o: ExplainOptions): Explanation {
  const parts = conjunctsOf(spec);
  const printed = parts.map((p) => printLtl(p));
  const c = new Checker(g, o);
  const partial = (message: string): Explanation => ({
    conjuncts: printed,
    conflict: [],
    minimal: false,
    contradiction: false,
    core: null,
    reason: null,
    regions: [],
    checks: c.checks,
    ...(c.bound !== undefined ? { bound: c.bound } : {}),
    message,
  });
  try {
    if (!c.infeasible(spec))
      return partial(
        "the exact search (SAGAS, every prefix candidate) finds a plan: the method's own search stopped short",
      );
  } catch (e) {
    if (e instanceof Bounded) return partial(`no explanation: ${c.bound}`);
    throw e;
  }
  const { set, minimal } = minimalConflict(c, parts);
  const contradiction = contradicts(c, conj(set.map((i) => parts[i]!)));
  const { core, result } = smallestCause(c, conj(set.map((i) => parts[i]!)));
  const reason = result !== null && result.status === 'infeasible' ? result.reason : null;
  const regions = result === null ? [] : regionCauses(g, core, reason, o.plan.tauSoft);
  const coreText = result === null ? null : printLtl(core);
  const smaller = coreText !== null && coreText !== printLtl(conj(set.map((i) => parts[i]!)));
  const bound = c.bound !== undefined ? `; the explanation is partial (${c.bound})` : '';
  return {
    conjuncts: printed,
    conflict: set,
    minimal,
    contradiction,
    core: coreText,
    reason,
    regions,
    checks: c.checks,
    ...(c.bound !== undefined ? { bound: c.bound } : {}),
    message: describe(printed, set, contradiction, smaller ? coreText : null, regions) + bound,
  };
}

/** The explanation of a plan result on `g` for `spec`: undefined when it is a plan. */
export function explainResult(
  r: PlanResult,
  g: SemanticGraph,
  spec: Formula,
  o: ExplainOptions,
): Explanation | undefined {
  return r.status === 'ok' ? undefined : explainInfeasible(g, spec, o);
}
