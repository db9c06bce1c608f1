/**
 * Plan certificates (SAGAS Lemma 1). A certificate lists the product sequence — node, automaton
 * state, the guard term chosen for the transition into it and a letter satisfying that term — and
 * `checkCertificate` re-derives, from the certificate, the original (unpruned) automaton and the
 * graph alone, that it is a run of the product ending in an accepting lasso: every term belongs to
 * the original guard, every letter satisfies its term and agrees with the node's evidence, every
 * move is an edge or a stay, and the guard word is accepted by the original automaton. It shares no
 * code with the search.
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import { letterBits } from '../ltl/automaton.js';
import { formatTerm, termHolds } from '../ltl/guard.js';
import { acceptsLasso } from '../ltl/accept.js';
import type { SemanticGraph } from './semantic.js';
import { edgeWeight } from './semantic.js';
import type { PlanContext, PlanStep } from './plan.js';

interface CertificateStep {
  readonly node: string;
  readonly state: number;
  readonly from: number;
  readonly term: { readonly text: string; readonly pos: readonly string[]; readonly neg: readonly string[] };
  readonly letter: readonly string[];
}

export interface Certificate {
  readonly formula: string;
  readonly automaton: {
    readonly states: number;
    readonly initial: readonly number[];
    readonly accepting: readonly number[];
  };
  /** The product sequence (v0, q0) … (vp, qp) then the suffix up to (vp, qp) again. */
  readonly steps: readonly CertificateStep[];
  /** Index of the first suffix step (= p + 1). */
  readonly suffixStart: number;
  readonly dwell: boolean;
  readonly cost: { readonly prefix: number; readonly suffix: number };
  /**
   * A resumed mission (replanning): the automaton states the run was in at the start node, as the
   * runtime monitor tracked them; step 0 is then one of them and reads no letter.
   */
  readonly resume?: readonly number[];
  /** Filled by the check: the guard word u·v^ω was accepted by the original automaton. */
  readonly checked: { readonly guardWordAccepted: boolean; readonly errors: readonly string[] };
}

const names = (aps: readonly string[], bits: bigint): string[] =>
  aps.filter((_, i) => ((bits >> BigInt(i)) & 1n) === 1n);

export function makeCertificate(
  ctx: PlanContext,
  steps: readonly PlanStep[],
  prefixLength: number,
  dwell: boolean,
  tauSoft: number,
  resume?: readonly number[],
): Certificate {
  const a = ctx.automaton;
  const g = ctx.graph;
  let pre = 0,
    suf = 0;
  steps.forEach((s, i) => {
    if (i < prefixLength) pre += s.cost;
    else suf += s.cost;
  });
  const draft: Certificate = {
    formula: a.formula,
    automaton: {
      states: a.states.length,
      initial: [...a.initial],
      accepting: a.states.flatMap((s, q) => (s.accepting ? [q] : [])),
    },
    steps: steps.map((s) => ({
      node: g.ids[s.node]!,
      state: s.state,
      from: s.from,
      term: { text: formatTerm(s.term, a.aps), pos: names(a.aps, s.term.pos), neg: names(a.aps, s.term.neg) },
      letter: [...s.letter].sort(),
    })),
    suffixStart: prefixLength,
    dwell,
    cost: { prefix: pre, suffix: suf },
    ...(resume ? { resume: [...resume] } : {}),
    checked: { guardWordAccepted: false, errors: [] },
  };
  const r = checkCertificate(a, g, draft, tauSoft);
  return { ...draft, checked: { guardWordAccepted: r.ok, errors: r.errors } };
}

/** Checks a certificate against the original automaton and the graph; independent of the search. */
export function checkCertificate(
  a: BuchiAutomaton,
  g: SemanticGraph,
  c: Certificate,
  tauSoft: number,
): { ok: boolean; errors: string[] } {
  const errors: string[] = [];
  const fail = (m: string): void => {
    errors.push(m);
  };
  const index = new Map(g.ids.map((id, i) => [id, i] as const));
  const steps = c.steps;
  if (steps.length < 2 || c.suffixStart < 1 || c.suffixStart >= steps.length) {
    return {
      ok: false,
      errors: [`a lasso needs a prefix and a non-empty suffix (steps ${steps.length}, suffix from ${c.suffixStart})`],
    };
  }
  const bitsOf = (xs: readonly string[]): bigint => letterBits(a, xs);
  const nodes: number[] = [];
  steps.forEach((s, i) => {
    const v = index.get(s.node);
    if (v === undefined) {
      fail(`step ${i}: unknown node ${s.node}`);
      nodes.push(-1);
      return;
    }
    nodes.push(v);
    if (s.term.pos.some((x) => !a.aps.includes(x)) || s.term.neg.some((x) => !a.aps.includes(x)))
      fail(`step ${i}: the term mentions propositions outside the formula`);
    const term = { pos: bitsOf(s.term.pos), neg: bitsOf(s.term.neg) };
    const resumed = i === 0 && c.resume !== undefined;
    const edge = a.edges.find((e) => e.from === s.from && e.to === s.state);
    if (resumed) {
      if (!c.resume.includes(s.state))
        fail(`step 0: state ${s.state} is not one of the resumed states {${c.resume.join(', ')}}`);
    } else if (edge === undefined || !edge.guard.some((t) => t.pos === term.pos && t.neg === term.neg)) {
      fail(
        `step ${i}: "${s.term.text}" is not a guard term of the original automaton from state ${s.from} to ${s.state}`,
      );
    }
    const letter = bitsOf(s.letter);
    if (!termHolds(term, letter)) fail(`step ${i}: letter {${s.letter.join(', ')}} does not satisfy "${s.term.text}"`);
    // The letter must be what the node's evidence supports.
    if (g.kinds[v] === 'cluster') {
      if (s.letter.length > 0)
        fail(`step ${i}: cluster node ${s.node} witnesses no proposition, letter {${s.letter.join(', ')}}`);
      for (const x of s.term.neg) {
        const p = g.soft.get(x)?.[v];
        if (p === undefined || !(p < tauSoft))
          fail(`step ${i}: ¬${x} at cluster node ${s.node} with P̂ = ${p ?? 'unknown'} ≥ τ_soft = ${tauSoft}`);
      }
    } else {
      const want = [...g.labels[v]!].sort().join(',');
      if ([...s.letter].sort().join(',') !== want)
        fail(`step ${i}: letter {${s.letter.join(', ')}} differs from ${s.node}'s labels {${want}}`);
    }
    if (i === 0) {
      if (v !== g.start) fail(`step 0: the plan starts at ${s.node}, not at the start node ${g.ids[g.start]}`);
      if (!resumed && !a.initial.includes(s.from)) fail(`step 0: ${s.from} is not an initial state`);
    } else {
      const prev = steps[i - 1]!;
      if (s.from !== prev.state) fail(`step ${i}: leaves state ${s.from}, but the run is in state ${prev.state}`);
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  let pre = 0,
    suf = 0;
  for (let i = 1; i < steps.length; i++) {
    const u = nodes[i - 1]!,
      v = nodes[i]!;
    let w = 0;
    if (u !== v) {
      const e = edgeWeight(g, u, v);
      if (e === undefined) {
        fail(`step ${i}: no edge ${g.ids[u]} → ${g.ids[v]}`);
        continue;
      }
      w = e;
    }
    if (i < c.suffixStart) pre += w;
    else suf += w;
  }
  const close = (x: number, y: number): boolean => Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
  if (!close(pre, c.cost.prefix) || !close(suf, c.cost.suffix))
    fail(`costs: edges sum to ${pre} + ${suf}, the plan says ${c.cost.prefix} + ${c.cost.suffix}`);
  const end = steps[c.suffixStart - 1]!,
    last = steps[steps.length - 1]!;
  // The cycle must visit an accepting state (after rotateLasso it need not start in one).
  if (!steps.slice(c.suffixStart).some((s) => a.states[s.state]?.accepting))
    fail('the cycle visits no accepting state');
  if (last.node !== end.node || last.state !== end.state)
    fail(`the suffix ends at (${last.node}, ${last.state}), not back at (${end.node}, ${end.state})`);
  const letters = steps.map((s) => new Set(s.letter));
  // Resumed: the run is already in step 0's state, which has read its letter.
  const accepted =
    c.resume !== undefined
      ? acceptsLasso(
          { ...a, initial: [steps[0]!.state] },
          { prefix: letters.slice(1, c.suffixStart), cycle: letters.slice(c.suffixStart) },
        )
      : acceptsLasso(a, { prefix: letters.slice(0, c.suffixStart), cycle: letters.slice(c.suffixStart) });
  if (!accepted) {
    fail('the guard word is not accepted by the original automaton');
  }
  return { ok: errors.length === 0, errors };
}
