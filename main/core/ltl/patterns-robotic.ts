/**
 * The robotic mission specification patterns of Menghi, Tsigkanos, Pelliccione, Ghezzi and Berger ("Specification
 * Patterns for Robotic Missions", IEEE TSE 2021), as formulas over location (or condition) propositions l1 … ln.
 * The strict and fair patterns use X as the catalogue does: they assume a robot is in one location at a time and a
 * position of the run is one step. Restricted avoidance counts visits as entries (maximal runs of positions in the
 * location), so it needs no X.
 */
import { type Formula, F, G, U, X, and, iff, implies, not, or } from './ast.js';

/** The conjunction, with conjunctions among the parts flattened into it. */
const all = (...fs: Formula[]): Formula => and(...fs.flatMap((f) => (f.kind === 'and' ? f.args : [f])));

/** F(l1 & F(l2 & … F ln)). */
function nested(ls: readonly Formula[]): Formula {
  let acc = F(ls[ls.length - 1]!);
  for (let i = ls.length - 2; i >= 0; i--) acc = F(and(ls[i]!, acc));
  return acc;
}

/** l(i+1) is not entered before li: (!l2 U l1) & (!l3 U l2) & … */
function noneBeforePredecessor(ls: readonly Formula[]): Formula[] {
  return ls.slice(1).map((next, i) => U(not(next), ls[i]!));
}

/** After each li, no li again before its successor (cyclically): G(li -> X(!li U l(i+1 mod n))). */
function cyclicSuccessor(ls: readonly Formula[]): Formula[] {
  return ls.map((l, i) => G(implies(l, X(U(not(l), ls[(i + 1) % ls.length]!)))));
}

export const visit = (ls: readonly Formula[]): Formula => and(...ls.map(F));

export const sequencedVisit = (ls: readonly Formula[]): Formula => nested(ls);

export const orderedVisit = (ls: readonly Formula[]): Formula => all(nested(ls), ...noneBeforePredecessor(ls));

/** Ordered visit where li is not visited twice before l(i+1): (!li U (li & X(!li U l(i+1)))). */
export const strictOrderedVisit = (ls: readonly Formula[]): Formula =>
  and(orderedVisit(ls), ...ls.slice(0, -1).map((l, i) => U(not(l), and(l, X(U(not(l), ls[i + 1]!))))));

export const fairVisit = (ls: readonly Formula[]): Formula => all(visit(ls), ...cyclicSuccessor(ls));

export const patrolling = (ls: readonly Formula[]): Formula => and(...ls.map((l) => G(F(l))));

export const sequencedPatrolling = (ls: readonly Formula[]): Formula => G(nested(ls));

/** Sequenced patrolling where, each round, l(i+1) is entered only after li: G(l(i+1) -> X(!l(i+1) U li)). */
export const orderedPatrolling = (ls: readonly Formula[]): Formula =>
  all(
    sequencedPatrolling(ls),
    ...noneBeforePredecessor(ls),
    ...ls.map((l, i) => {
      const next = ls[(i + 1) % ls.length]!;
      return G(implies(next, X(U(not(next), l))));
    }),
  );

export const strictOrderedPatrolling = (ls: readonly Formula[]): Formula =>
  all(orderedPatrolling(ls), ...cyclicSuccessor(ls));

export const fairPatrolling = (ls: readonly Formula[]): Formula => all(patrolling(ls), ...cyclicSuccessor(ls));

/** Never p. */
export const globalAvoidance = (p: Formula): Formula => G(not(p));

/** Avoid p until c has held (p may follow once c held). */
export const pastAvoidance = (c: Formula, p: Formula): Formula => U(not(p), c);

/** Once c holds, never p again. */
export const futureAvoidance = (c: Formula, p: Formula): Formula => G(implies(c, G(not(p))));

/** At least n entries into l (n ≥ 1): F(l & F(!l & F(l & … F l))). */
function atLeastVisits(l: Formula, n: number): Formula {
  let acc = F(l);
  for (let k = 2; k <= n; k++) acc = F(and(l, F(and(not(l), acc))));
  return acc;
}

/** Lower restricted avoidance: l is entered at least n times. */
export const lowerRestrictedAvoidance = (l: Formula, n: number): Formula => atLeastVisits(l, n);

/** Upper restricted avoidance: l is entered at most n times. */
export const upperRestrictedAvoidance = (l: Formula, n: number): Formula => not(atLeastVisits(l, n + 1));

/** Exact restricted avoidance: l is entered exactly n times. */
export const exactRestrictedAvoidance = (l: Formula, n: number): Formula =>
  and(atLeastVisits(l, n), not(atLeastVisits(l, n + 1)));

/** Stay where l holds until c. */
export const wait = (l: Formula, c: Formula): Formula => U(l, c);

/** Whenever c holds, p holds at the same position. */
export const instantaneousReaction = (c: Formula, p: Formula): Formula => G(implies(c, p));

/** Whenever c holds, p holds then or later (a response with a delay). */
export const delayedReaction = (c: Formula, p: Formula): Formula => G(implies(c, F(p)));

/** Whenever c holds, p holds at the next position. */
export const promptReaction = (c: Formula, p: Formula): Formula => G(implies(c, X(p)));

/** p holds exactly when c holds. */
export const boundReaction = (c: Formula, p: Formula): Formula => G(iff(c, p));

/** p holds exactly one position after c holds. */
export const boundDelay = (c: Formula, p: Formula): Formula => G(iff(c, X(p)));

/** Whenever c holds, p holds within k positions (then or at one of the next k). */
export function reactionWithin(c: Formula, p: Formula, k: number): Formula {
  const options: Formula[] = [p];
  let step = p;
  for (let i = 1; i <= k; i++) options.push((step = X(step)));
  return G(implies(c, or(...options)));
}
