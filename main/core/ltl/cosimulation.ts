/**
 * Backward (reverse) direct simulation, as Somenzi & Bloem use it: p backward-simulates q when p
 * is accepting whenever q is, initial whenever q is, and every edge into q (from q1, on a letter)
 * is matched by an edge into p on that letter from a state that backward-simulates q1. States
 * that backward-simulate each other are merged. That keeps the language: any run of the quotient
 * can be traced back, position by position, through states at least as accepting, to an initial
 * state, and König's lemma turns those finite runs into an infinite one. It merges states that
 * forward simulation keeps apart because their futures differ while their pasts agree (the
 * obligations of Dwyer's X-chain patterns met in different orders).
 */
import { type Term, simplifyGuard } from './guard.js';
import type { MutableBuchi } from './reduce.js';
import type { Budget } from './budget.js';
import { type LetterEdge, SIMULATION_MAX_APS, edgeLetters, simulationRelation, subset } from './simulation.js';

/**
 * The quotient by mutual backward simulation; null when no two states merge (or the alphabet or
 * the work is too large). `conditions` is for the tests' mutants: without the acceptance or the
 * initial condition the quotient is wrong.
 */
export function cosimulationQuotient(
  a: MutableBuchi,
  apCount: number,
  budget: Budget,
  conditions = { acceptance: true, initial: true },
): MutableBuchi | null {
  budget.checkTime('simulation reduction');
  if (apCount > SIMULATION_MAX_APS) return null;
  const n = a.accepting.length;
  const LW = ((1 << apCount) + 31) >>> 5;
  const { edges } = edgeLetters(a, apCount, budget);
  // the edges reversed, and the letters each state can be entered on
  const into: LetterEdge[][] = Array.from({ length: n }, () => []);
  const entered = new Uint32Array(n * LW);
  edges.forEach((list, q) => {
    for (const e of list) {
      into[e.to]!.push({ to: q, letters: e.letters });
      for (let w = 0; w < LW; w++) entered[e.to * LW + w]! |= e.letters[w]!;
    }
  });
  const acc = a.accepting;
  const has = simulationRelation(
    into,
    LW,
    (p, q) =>
      (!conditions.acceptance || !(acc[q] && !acc[p])) &&
      (!conditions.initial || q !== a.initial || p === a.initial) &&
      subset(entered, q, p, LW),
    budget,
  );
  if (has === null) return null;
  const rep = new Int32Array(n);
  let merged = 0;
  for (let q = 0; q < n; q++) {
    rep[q] = q;
    budget.tick('simulation reduction', q);
    for (let p = 0; p < q; p++) {
      if (rep[p] === p && has(p, q) && has(q, p)) {
        rep[q] = p;
        merged++;
        break;
      }
    }
  }
  if (merged === 0) return null;
  // every member's edges leave from its representative
  const out: Map<number, Term[]>[] = a.out.map(() => new Map<number, Term[]>());
  for (let q = 0; q < n; q++) {
    const m = out[rep[q]!]!;
    for (const [to, g] of a.out[q]!) m.set(rep[to]!, [...(m.get(rep[to]!) ?? []), ...g]);
  }
  for (const m of out) for (const [to, g] of m) m.set(to, simplifyGuard(g));
  return { accepting: [...a.accepting], names: [...a.names], initial: a.initial, out };
}
