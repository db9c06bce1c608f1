/**
 * Trial merges proved with the negation's automaton: merging two states p and q (q's edges and
 * the edges into q go to p, p accepting when either was) can only add runs, so the quotient's
 * language contains the automaton's; it is the same language exactly when the quotient's product
 * with the negation's automaton is empty. Pairs of the same acceptance are tried in order, each
 * merge proved this way is kept (the automaton is then reduced and the pairs tried again), so the
 * result is a quotient no single proved merge shrinks further. This catches merges that no
 * simulation sees because the two states differ in what they promise but not in what the whole
 * formula accepts from them (dac 55: `!p2 U θ` with and without the pending `(!p2 & !p5) U p4`
 * of an earlier θ, under the until that re-imposes it).
 */
import type { Budget } from './budget.js';
import { simplifyGuard, type Term } from './guard.js';
import { type MutableBuchi, reduceBuchi } from './reduce.js';
import { explicitOf, guardTerms, letterClasses, productEmpty } from './wdba.js';

/** Largest automaton whose pairs are tried (each try is a product with the negation's automaton). */
export const MERGE_MAX_STATES = 12;

/** The automaton with p and q one state (p's index), q left without edges (trimmed by reduction). */
function mergedPair(a: MutableBuchi, p: number, q: number): MutableBuchi {
  const blk = (v: number): number => (v === q ? p : v);
  const out = a.out.map(() => new Map<number, Term[]>());
  a.out.forEach((m, v) => {
    const o = out[blk(v)]!;
    for (const [t, g] of m) {
      const prev = o.get(blk(t));
      o.set(blk(t), prev === undefined ? g : simplifyGuard([...prev, ...g]));
    }
  });
  out[q] = new Map();
  const accepting = [...a.accepting];
  accepting[p] = a.accepting[p]! || a.accepting[q]!;
  accepting[q] = false;
  return { accepting, names: [...a.names], initial: blk(a.initial), out };
}

/**
 * `a` with every merge proved by `neg` (an automaton of the complement of a's language) done;
 * null when none is, or a is larger than MERGE_MAX_STATES.
 */
export function provedMerges(a: MutableBuchi, neg: MutableBuchi, apCount: number, budget: Budget): MutableBuchi | null {
  if (a.accepting.length > MERGE_MAX_STATES) return null;
  const lc = letterClasses(apCount, [...guardTerms(a), ...guardTerms(neg)], budget);
  const negEx = explicitOf(neg, lc, budget);
  let cur = a;
  let changed = false;
  for (let again = true; again;) {
    again = false;
    const n = cur.accepting.length;
    for (let p = 0; p < n && !again; p++) {
      for (let q = p + 1; q < n && !again; q++) {
        if (cur.accepting[p] !== cur.accepting[q]) continue;
        const c = mergedPair(cur, p, q);
        if (productEmpty(explicitOf(c, lc, budget), negEx, budget) !== true) continue;
        cur = reduceBuchi(c, budget, true, apCount);
        changed = again = true;
      }
    }
  }
  return changed ? cur : null;
}
