/**
 * Language containment and equivalence of two formulas, decided by our own automata: L(a) ⊆ L(b) iff the product of
 * a's Büchi automaton with the automaton of ¬b has no accepting cycle (wdba.ts productEmpty, over the letter classes
 * of both automata's guards). The pattern catalogue's test proves each template equal to its published LTL with it.
 */
import { type Formula, not } from './ast.js';
import type { BuchiAutomaton } from './automaton.js';
import { Budget } from './budget.js';
import type { Term } from './guard.js';
import type { MutableBuchi } from './reduce.js';
import { type TranslateOptions, translateFormula } from './translate.js';
import { type Explicit, WDBA_MAX_APS, explicitOf, guardTerms, letterClasses, productEmpty } from './wdba.js';

/** The term with bit i (over `from`) moved to the bit of the same proposition in `to`. */
function remapTerm(t: Term, from: readonly string[], to: ReadonlyMap<string, number>): Term {
  const move = (bits: bigint): bigint => {
    let out = 0n;
    from.forEach((name, i) => {
      if ((bits >> BigInt(i)) & 1n) out |= 1n << BigInt(to.get(name)!);
    });
    return out;
  };
  return { pos: move(t.pos), neg: move(t.neg) };
}

/** The automaton over the joint propositions (one initial state; the others are added back as Explicit initials). */
function mutableOver(a: BuchiAutomaton, index: ReadonlyMap<string, number>): MutableBuchi {
  const out = a.states.map(() => new Map<number, Term[]>());
  for (const e of a.edges)
    out[e.from]!.set(
      e.to,
      e.guard.map((t) => remapTerm(t, a.aps, index)),
    );
  return {
    accepting: a.states.map((s) => s.accepting),
    names: a.states.map((s) => s.name),
    initial: a.initial[0]!,
    out,
  };
}

/** Whether L(x) ∩ L(y) is empty; null when the product is too large to decide or the propositions too many. */
function intersectionEmpty(x: BuchiAutomaton, y: BuchiAutomaton, budget = new Budget()): boolean | null {
  const aps = [...new Set([...x.aps, ...y.aps])];
  if (aps.length > WDBA_MAX_APS) return null;
  if (x.initial.length === 0 || y.initial.length === 0) return true;
  const index = new Map(aps.map((p, i) => [p, i] as const));
  const [mx, my] = [mutableOver(x, index), mutableOver(y, index)];
  const lc = letterClasses(aps.length, [...guardTerms(mx), ...guardTerms(my)], budget);
  const ex: Explicit = { ...explicitOf(mx, lc, budget), initial: x.initial };
  const ey: Explicit = { ...explicitOf(my, lc, budget), initial: y.initial };
  return productEmpty(ex, ey, budget);
}

/** L(a) ⊆ L(b): every word a accepts, b accepts. Null when undecided (too large). */
export function languageContained(a: Formula, b: Formula, options: TranslateOptions = {}): boolean | null {
  const x = translateFormula(a, options).automaton;
  const y = translateFormula(not(b), options).automaton;
  return intersectionEmpty(x, y, new Budget(options));
}

/** L(a) = L(b), containment both ways; false as soon as one way fails, null when a way is undecided. */
export function languageEquivalent(a: Formula, b: Formula, options: TranslateOptions = {}): boolean | null {
  const ab = languageContained(a, b, options);
  if (ab === false) return false;
  const ba = languageContained(b, a, options);
  if (ba === false) return false;
  return ab === true && ba === true ? true : null;
}
