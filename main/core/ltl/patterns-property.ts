/**
 * The property specification patterns of Dwyer, Avrunin and Corbett (ICSE 1999), with their five scopes, as
 * formulas: the LTL mappings of the pattern catalogue (matthewbdwyer.github.io/psp/patterns/ltl.html), built as
 * syntax trees. P is the property's proposition, S and T the ones it relates to P, Q opens the scope and R closes it.
 * Bounded existence is the catalogue's instance: at most two P-segments. The chains are given globally (their scoped
 * mappings have known errata and need X).
 */
import { type Formula, F, G, U, W, X, and, implies, not, or } from './ast.js';

/** Where a property must hold: the whole run, before the first R, after the first Q, in every Q…R segment. */
export type Scope = 'globally' | 'before' | 'after' | 'between' | 'after-until';

export const SCOPES: readonly Scope[] = ['globally', 'before', 'after', 'between', 'after-until'];

/** The scope's delimiters: Q opens, R closes. */
export function scopeParams(scope: Scope): readonly ('Q' | 'R')[] {
  switch (scope) {
    case 'globally':
      return [];
    case 'before':
      return ['R'];
    case 'after':
      return ['Q'];
    case 'between':
    case 'after-until':
      return ['Q', 'R'];
  }
}

export const SCOPE_TEXT: Record<Scope, string> = {
  globally: 'over the whole run',
  before: 'before the first R (vacuous when R never holds)',
  after: 'from the first Q on',
  between: 'in every segment from a Q to the next R (a segment that R never closes is exempt)',
  'after-until': 'in every segment from a Q to the next R, or forever when R never follows',
};

/** A scoped pattern's parameters by name (P, S, T, Q, R; the scope's own only where it has them). */
export type Args = Readonly<Record<string, Formula>>;

const arg = (a: Args, k: string): Formula => {
  const f = a[k];
  if (f === undefined) throw new RangeError(`missing pattern parameter ${k}`);
  return f;
};

/** Q & !R & F R: a Q that an R closes later. */
const closedOpen = (q: Formula, r: Formula): Formula => and(q, not(r), F(r));

export function absence(scope: Scope, a: Args): Formula {
  const p = arg(a, 'P');
  switch (scope) {
    case 'globally':
      return G(not(p));
    case 'before':
      return implies(F(arg(a, 'R')), U(not(p), arg(a, 'R')));
    case 'after':
      return G(implies(arg(a, 'Q'), G(not(p))));
    case 'between':
      return G(implies(closedOpen(arg(a, 'Q'), arg(a, 'R')), U(not(p), arg(a, 'R'))));
    case 'after-until':
      return G(implies(and(arg(a, 'Q'), not(arg(a, 'R'))), W(not(p), arg(a, 'R'))));
  }
}

export function existence(scope: Scope, a: Args): Formula {
  const p = arg(a, 'P');
  switch (scope) {
    case 'globally':
      return F(p);
    case 'before': {
      const r = arg(a, 'R');
      return W(not(r), and(p, not(r)));
    }
    case 'after': {
      const q = arg(a, 'Q');
      return or(G(not(q)), F(and(q, F(p))));
    }
    case 'between':
    case 'after-until': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      const inner = scope === 'between' ? W(not(r), and(p, not(r))) : U(not(r), and(p, not(r)));
      return G(implies(and(q, not(r)), inner));
    }
  }
}

/** At most two P-segments: ¬P W (P W (¬P W (P W G ¬P))). */
function atMostTwice(p: Formula): Formula {
  return W(not(p), W(p, W(not(p), W(p, G(not(p))))));
}

/**
 * At most two P-segments before R: the segments alternate ¬P, P, ¬P, P, each ending at R (strongly), the last one
 * ¬P until R; `last` replaces that last one (after Q until R lets it be weak or P forever).
 */
function atMostTwiceBefore(p: Formula, r: Formula, last: Formula): Formula {
  let acc = last;
  for (const seg of [p, not(p), p, not(p)]) acc = U(and(seg, not(r)), or(r, acc));
  return acc;
}

export function boundedExistence(scope: Scope, a: Args): Formula {
  const p = arg(a, 'P');
  switch (scope) {
    case 'globally':
      return atMostTwice(p);
    case 'before': {
      const r = arg(a, 'R');
      return implies(F(r), atMostTwiceBefore(p, r, U(not(p), r)));
    }
    case 'after': {
      const q = arg(a, 'Q');
      return implies(F(q), U(not(q), and(q, atMostTwice(p))));
    }
    case 'between': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      return G(implies(and(q, F(r)), atMostTwiceBefore(p, r, U(not(p), r))));
    }
    case 'after-until': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      // the innermost disjunction of the published mapping: R | (!P W R) | G P
      const tail = U(and(p, not(r)), or(r, W(not(p), r), G(p)));
      let acc = tail;
      for (const seg of [not(p), p, not(p)]) acc = U(and(seg, not(r)), or(r, acc));
      return G(implies(q, acc));
    }
  }
}

export function universality(scope: Scope, a: Args): Formula {
  const p = arg(a, 'P');
  switch (scope) {
    case 'globally':
      return G(p);
    case 'before':
      return implies(F(arg(a, 'R')), U(p, arg(a, 'R')));
    case 'after':
      return G(implies(arg(a, 'Q'), G(p)));
    case 'between':
      return G(implies(closedOpen(arg(a, 'Q'), arg(a, 'R')), U(p, arg(a, 'R'))));
    case 'after-until':
      return G(implies(and(arg(a, 'Q'), not(arg(a, 'R'))), W(p, arg(a, 'R'))));
  }
}

/** S precedes P: no P before the first S. */
export function precedence(scope: Scope, a: Args): Formula {
  const [p, s] = [arg(a, 'P'), arg(a, 'S')];
  switch (scope) {
    case 'globally':
      return W(not(p), s);
    case 'before': {
      const r = arg(a, 'R');
      return implies(F(r), U(not(p), or(s, r)));
    }
    case 'after': {
      const q = arg(a, 'Q');
      return or(G(not(q)), F(and(q, W(not(p), s))));
    }
    case 'between': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      return G(implies(closedOpen(q, r), U(not(p), or(s, r))));
    }
    case 'after-until': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      return G(implies(and(q, not(r)), W(not(p), or(s, r))));
    }
  }
}

/** S responds to P: every P is followed by an S. */
export function response(scope: Scope, a: Args): Formula {
  const [p, s] = [arg(a, 'P'), arg(a, 'S')];
  // before R, an S must come before R
  const answered = (r: Formula): Formula => implies(p, U(not(r), and(s, not(r))));
  switch (scope) {
    case 'globally':
      return G(implies(p, F(s)));
    case 'before': {
      const r = arg(a, 'R');
      return implies(F(r), U(answered(r), r));
    }
    case 'after':
      return G(implies(arg(a, 'Q'), G(implies(p, F(s)))));
    case 'between': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      return G(implies(closedOpen(q, r), U(answered(r), r)));
    }
    case 'after-until': {
      const [q, r] = [arg(a, 'Q'), arg(a, 'R')];
      return G(implies(and(q, not(r)), W(answered(r), r)));
    }
  }
}

/** S, T precede P (two causes, one effect), globally: a P comes only after an S followed (later) by a T. */
export function precedenceChain(a: Args): Formula {
  const [p, s, t] = [arg(a, 'P'), arg(a, 'S'), arg(a, 'T')];
  return implies(F(p), U(not(p), and(s, not(p), X(U(not(p), t)))));
}

/** S, T respond to P (one stimulus, two responses), globally: every P is followed by an S and later a T. */
export function responseChain(a: Args): Formula {
  const [p, s, t] = [arg(a, 'P'), arg(a, 'S'), arg(a, 'T')];
  return G(implies(p, F(and(s, X(F(t))))));
}
