/**
 * Spot's parametric pattern families ("the GF/F/U/R/Gh families"), written from the
 * generators of spot/gen/formulas.cc in Spot 2.9.6 as vendored in moves-rwth/storm under
 * spot/spot_src/ (commit 893193f7ba9d5e5c9e8d373dfaac35185753def5), at small parameters.
 *
 * Spot's published `ltl2tgba -B` state counts exist for very few of these. Spot 2.9.6's regression
 * test tests/core/ltl2tgba2.test lists only `genltl --dac --eh --sb --hkrss --p` (spot-patterns.ts);
 * its genltl.test records sizes for some parametric families, but for other translations
 * (`ltl2tgba --low --det`, a transition-based generalized Büchi automaton, and `-G -D`, `-P -D`),
 * which are not comparable with a state-based Büchi automaton, so they are not used here. The `-B`
 * figures found are in Spot's own documentation as built for the 2.9.6 release (doc/userdoc):
 * hoa.html runs `genltl --and-gf=1..3 | ltl2tgba -B | autfilt --randomize` (three HOA automata of 2,
 * 3 and 4 states, complete and deterministic, so transitions = states × 2^|AP|), and ltl2tgba.html
 * runs `ltl2tgba -B 'GFa -> GFb' -d` (ambig1.svg: 4 states, 18 transitions as %t counts them), which
 * is gf-implies=1 and sejk-j=1 up to the names of the propositions; or-gf=1 is and-gf=1's formula.
 * Every other row has `spotB: null`: it is here for the differential checks and for our own
 * regression guard (spot-guard.ts), not as a comparison.
 *
 * Each generator follows its formulas.cc function, with the trivial identities Spot's formula
 * constructors apply (true/false absorbed by & | X F G -> <->, & and | flattened), and prints in
 * Spot's syntax as genltl does; operands of & and | are in increasing index order, as genltl prints
 * them (formulas.cc builds some in the other order; Spot sorts them, and no automaton's size
 * depends on the order). Propositions are named as genltl names them. Facts only: no Spot code.
 */

type F =
  | { readonly k: 'tt' | 'ff' }
  | { readonly k: 'ap'; readonly name: string }
  | { readonly k: '!' | 'X' | 'F' | 'G'; readonly a: F }
  | { readonly k: '&' | '|'; readonly xs: readonly F[] }
  | { readonly k: 'U' | 'R' | 'W' | '->' | '<->' | '^'; readonly l: F; readonly r: F };

const tt: F = { k: 'tt' };
const ff: F = { k: 'ff' };
const ap = (name: string): F => ({ k: 'ap', name });
const same = (a: F, b: F): boolean => show(a) === show(b);

function not(a: F): F {
  if (a.k === 'tt') return ff;
  if (a.k === 'ff') return tt;
  if (a.k === '!') return a.a;
  return { k: '!', a };
}
function X(a: F): F {
  return a.k === 'tt' || a.k === 'ff' ? a : { k: 'X', a };
}
function Xn(a: F, n: number): F {
  let r = a;
  for (let i = 0; i < n; i++) r = X(r);
  return r;
}
function Fo(a: F): F {
  return a.k === 'tt' || a.k === 'ff' || a.k === 'F' ? a : { k: 'F', a };
}
function Go(a: F): F {
  return a.k === 'tt' || a.k === 'ff' || a.k === 'G' ? a : { k: 'G', a };
}
function multop(k: '&' | '|', xs: readonly F[]): F {
  const unit = k === '&' ? 'tt' : 'ff';
  const zero = k === '&' ? 'ff' : 'tt';
  const flat: F[] = [];
  for (const x of xs) {
    if (x.k === zero) return x;
    if (x.k === unit) continue;
    for (const y of x.k === k ? x.xs : [x]) if (!flat.some((z) => same(z, y))) flat.push(y);
  }
  if (flat.length === 0) return k === '&' ? tt : ff;
  return flat.length === 1 ? flat[0]! : { k, xs: flat };
}
const and = (...xs: F[]): F => multop('&', xs);
const or = (...xs: F[]): F => multop('|', xs);
const U = (l: F, r: F): F => ({ k: 'U', l, r });
const R = (l: F, r: F): F => ({ k: 'R', l, r });
const W = (l: F, r: F): F => ({ k: 'W', l, r });
const xor = (l: F, r: F): F => ({ k: '^', l, r });
function implies(l: F, r: F): F {
  if (l.k === 'tt') return r;
  if (l.k === 'ff' || r.k === 'tt' || same(l, r)) return tt;
  if (r.k === 'ff') return not(l);
  return { k: '->', l, r };
}
function equiv(l: F, r: F): F {
  if (l.k === 'tt') return r;
  if (r.k === 'tt') return l;
  if (l.k === 'ff') return not(r);
  if (r.k === 'ff') return not(l);
  return same(l, r) ? tt : { k: '<->', l, r };
}

/** Spot's printer's shape: unary operators glue to atoms and unary operands, binary operands are parenthesized. */
function show(f: F): string {
  switch (f.k) {
    case 'tt':
      return 'true';
    case 'ff':
      return 'false';
    case 'ap':
      return f.name;
    case '!':
    case 'X':
    case 'F':
    case 'G': {
      const inner =
        f.a.k === 'ap' || f.a.k === '!' || f.a.k === 'X' || f.a.k === 'F' || f.a.k === 'G'
          ? show(f.a)
          : `(${show(f.a)})`;
      return `${f.k}${inner}`;
    }
    case '&':
    case '|':
      return f.xs.map(operand).join(` ${f.k} `);
    default:
      return `${operand(f.l)} ${f.k} ${operand(f.r)}`;
  }
}
function operand(f: F): string {
  return f.k === '&' ||
    f.k === '|' ||
    f.k === 'U' ||
    f.k === 'R' ||
    f.k === 'W' ||
    f.k === '->' ||
    f.k === '<->' ||
    f.k === '^'
    ? `(${show(f)})`
    : show(f);
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const aps = (name: string, from: number, to: number): F[] => range(from, to).map((i) => ap(`${name}${i}`));

// The generators of formulas.cc, one per family (its function named in each comment).

/** combunop_n / GF_n / FG_n: OP(p1) & … & OP(pn), or |. */
const combunop =
  (op: (a: F) => F, conj: boolean) =>
  (n: number): F =>
    multop(conj ? '&' : '|', aps('p', 1, n).map(op));
const GF = (a: F): F => Go(Fo(a));
const FG = (a: F): F => Fo(Go(a));

/** bin_n: (((p1 OP p2) OP p3) … OP pn), or right-associated. */
function binN(op: (l: F, r: F) => F, right: boolean, n: number): F {
  const ps = aps('p', 1, Math.max(n, 1));
  if (right) return ps.reduceRight((acc, p) => op(p, acc));
  return ps.reduce((acc, p) => op(acc, p));
}

/** Q_n (gh-q): (F(p1)|G(p2)) & … & (F(pn)|G(p{n+1})); R_n (gh-r): with GF and FG. */
const ghQ = (n: number): F => and(...range(1, n).map((i) => or(Fo(ap(`p${i}`)), Go(ap(`p${i + 1}`)))));
const ghR = (n: number): F => and(...range(1, n).map((i) => or(GF(ap(`p${i}`)), FG(ap(`p${i + 1}`)))));

/** E_n: F(p1 & F(p2 & … F(pn))). */
function eN(name: string, n: number): F {
  if (n <= 0) return tt;
  let r: F | null = null;
  for (let i = n; i > 0; i--) r = Fo(r === null ? ap(`${name}${i}`) : and(ap(`${name}${i}`), r));
  return r!;
}
/** phi_n: p OP X(p OP X(… p)). */
function phiN(name: string, n: number, op: '&' | '|'): F {
  if (n <= 0) return tt;
  const p = ap(name);
  let r: F = p;
  for (let i = 1; i < n; i++) r = multop(op, [p, X(r)]);
  return r;
}
/** phi_prime_n: p OP Xp OP XXp … OP X^(n-1)p. */
function phiPrimeN(name: string, n: number, op: '&' | '|'): F {
  if (n <= 0) return tt;
  return multop(
    op,
    range(0, n - 1).map((i) => Xn(ap(name), i)),
  );
}
/** GF_n. */
const gfN = (name: string, n: number, conj = true): F => multop(conj ? '&' : '|', aps(name, 1, n).map(GF));

/** fair_response (go-theta): !((GFp1 & … & GFpn) -> G(q -> Fr)). */
const goTheta = (n: number): F => not(implies(gfN('p', n), Go(implies(ap('q'), Fo(ap('r'))))));

/** GXF_and_n: G(p0 & XF(p1 & XF(… & XF(pn)))); FXG_or_n: F(p0 | XG(p1 | XG(… pn))). */
function gxfAnd(n: number): F {
  let r: F = tt;
  for (let i = n; i >= 0; i--) r = and(ap(`p${i}`), X(Fo(r)));
  return Go(r);
}
function fxgOr(n: number): F {
  let r: F = ff;
  for (let i = n; i >= 0; i--) r = or(ap(`p${i}`), X(Go(r)));
  return Fo(r);
}

/** GF_equiv_implies: (GFa1 & … & GFan) <-> GFz, or ->; GF_equiv_implies_xn: GF(a <-> X^n a), or ->. */
const gfEquiv =
  (equivalent: boolean) =>
  (n: number): F =>
    (equivalent ? equiv : implies)(gfN('a', n), GF(ap('z')));
const gfXn =
  (equivalent: boolean) =>
  (n: number): F =>
    GF((equivalent ? equiv : implies)(ap('a'), Xn(ap('a'), n)));

/** ms_example(a, b, n, m): GF(a1 & X(a2 & … X(an))) & F(b1 & F(b2 & … F(bm))). */
function msExample(n: number, m: number): F {
  let ax: F = tt;
  for (let i = n; i > 0; i--) ax = and(ap(`a${i}`), X(ax));
  let fb: F = tt;
  for (let i = m; i > 0; i--) fb = Fo(and(ap(`b${i}`), fb));
  return and(Go(Fo(ax)), fb);
}
/** ms_phi_h: FG(a|b) | FG(!a|Xb) | FG(a|XXb) | … (n+1 disjuncts). */
function msPhiH(n: number): F {
  let fa = ap('a');
  let fb = ap('b');
  const out: F[] = [];
  for (let i = 0; i <= n; i++) {
    out.push(FG(or(fa, fb)));
    fa = not(fa);
    fb = X(fb);
  }
  return or(...out);
}
/** ms_phi_rs: r: (FGa_n & GFb_n) | sub(n-1, s); s: (FGa_n | GFb_n) & sub(n-1, r). */
function msPhiRS(n: number, r: boolean): F {
  const fgan = FG(ap(`a${n}`));
  const gfbn = GF(ap(`b${n}`));
  const top = r ? and(fgan, gfbn) : or(fgan, gfbn);
  if (n === 0) return top;
  const sub = msPhiRS(n - 1, !r);
  return r ? or(sub, top) : and(sub, top);
}

/**
 * sejk_f: f(0,m) = GFa0 U X^m b, f(i,m) = GFai U G(f(i-1,m)); sejk_j: (GFa1&…&GFan) -> (GFb1&…&GFbn); sejk_k:
 * (GFa1|FGb1)&…&(GFan|FGbn).
 */
function sejkF(n: number, m: number): F {
  let f = U(GF(ap('a0')), Xn(ap('b'), m));
  for (let i = 1; i <= n; i++) f = U(GF(ap(`a${i}`)), Go(f));
  return f;
}
const sejkJ = (n: number): F => implies(gfN('a', n), gfN('b', n));
const sejkK = (n: number): F => and(...range(1, n).map((i) => or(GF(ap(`a${i}`)), FG(ap(`b${i}`)))));

/** tv_f1/f2/g1/g2: G(p -> phi'(q)) / G(p -> phi(q)) with | or &; tv_uu: G(p1 -> (p1 U (p2 & (p2 U … p{n+1})))). */
const tv =
  (prime: boolean, op: '&' | '|') =>
  (n: number): F =>
    Go(implies(ap('p'), (prime ? phiPrimeN : phiN)('q', n, op)));
function tvUU(n: number): F {
  let f = ap(`p${n + 1}`);
  let q = f;
  for (let i = n; i > 0; i--) {
    q = ap(`p${i}`);
    f = U(q, f);
    if (i > 1) f = and(q, f);
  }
  return Go(implies(q, f));
}

/** ltl_counter (rv-counter, rv-counter-linear): an n-bit counter on bit b with marker m. */
function rvCounter(n: number, linear: boolean): F {
  const b = ap('b'),
    nb = not(b),
    m = ap('m'),
    nm = not(m);
  const andX = (x: F, y: F): F => (linear ? X(and(x, y)) : and(X(x), X(y)));
  const marker = linear
    ? and(m, Go(implies(m, X(range(1, n - 1).reduce((p) => and(nm, X(p)), m)))))
    : and(m, Go(implies(m, and(...range(1, n - 1).map((i) => Xn(nm, i)), Xn(m, n)))));
  const zero = linear
    ? range(1, n - 1).reduce((p) => and(nb, X(p)), nb)
    : and(...range(0, n - 1).map((i) => Xn(nb, i)));
  const xnm1b = Xn(b, n - 1),
    xnb = X(xnm1b),
    xnm1nb = Xn(nb, n - 1),
    xnnb = X(xnm1nb);
  const lsb0 = Go(implies(and(m, nb), andX(xnm1b, U(and(not(m), equiv(b, xnb)), m))));
  const lsb1 = Go(
    implies(
      and(m, b),
      andX(xnm1nb, U(and(and(b, nm), xnnb), or(m, and(and(nm, nb), andX(xnm1b, U(and(nm, equiv(b, xnb)), m)))))),
    ),
  );
  return and(marker, zero, lsb0, lsb1);
}
/** ltl_counter_carry (rv-counter-carry, rv-counter-carry-linear): the same with a carry c. */
function rvCounterCarry(n: number, linear: boolean): F {
  const b = ap('b'),
    nb = not(b),
    m = ap('m'),
    nm = not(m),
    c = ap('c'),
    nc = not(c);
  const marker = linear
    ? and(m, Go(implies(m, X(range(1, n - 1).reduce((p) => and(nm, X(p)), m)))))
    : and(m, Go(implies(m, and(...range(1, n - 1).map((i) => Xn(nm, i)), Xn(m, n)))));
  const zero = linear
    ? range(1, n - 1).reduce((p) => and(nb, X(p)), nb)
    : and(...range(0, n - 1).map((i) => Xn(nb, i)));
  const xnb = Xn(b, n),
    xnnb = Xn(nb, n);
  const r2 = Go(implies(and(m, nb), and(nc, xnb)));
  const r3 = Go(implies(and(m, b), and(c, xnnb)));
  const r4 = linear
    ? Go(implies(and(nc, X(nm)), X(and(not(c), equiv(b, xnb)))))
    : Go(implies(and(nc, X(nm)), and(X(not(c)), equiv(X(b), X(xnb)))));
  const r5 = linear
    ? Go(implies(c, X(and(implies(nb, and(nc, xnb)), implies(b, and(c, xnnb))))))
    : Go(implies(c, and(implies(X(nb), and(X(nc), X(xnb))), implies(X(b), and(X(c), X(xnnb))))));
  return and(marker, zero, r2, r3, r4, r5);
}
/** pps_arbiter (pps-arbiter-standard, pps-arbiter-strict) with requests r1…rn and grants g1…gn. */
function ppsArbiter(n: number, strict: boolean): F {
  const r = aps('r', 1, n),
    g = aps('g', 1, n);
  const thetaE = and(...r.map(not));
  const thetaS = and(...g.map(not));
  const psiE = and(...range(0, n - 1).map((i) => implies(xor(r[i]!, g[i]!), equiv(r[i]!, X(r[i]!)))));
  const psiS = and(
    ...range(0, n - 1).flatMap((i) => [
      ...range(0, i - 1).map((j) => not(and(g[i]!, g[j]!))),
      implies(equiv(r[i]!, g[i]!), equiv(g[i]!, X(g[i]!))),
    ]),
  );
  const phiE = and(...range(0, n - 1).map((i) => GF(not(and(r[i]!, g[i]!)))));
  const phiS = and(...range(0, n - 1).map((i) => GF(equiv(r[i]!, g[i]!))));
  if (!strict) return implies(thetaE, and(thetaS, implies(and(Go(psiE), phiE), and(Go(psiS), phiS))));
  return implies(thetaE, and(thetaS, W(psiS, not(psiE)), implies(and(Go(psiE), phiE), phiS)));
}

export interface FamilyRow {
  /** genltl's option name, without the dashes. */
  readonly family: string;
  /** genltl's argument(s): `--ms-example=2,1` is [2, 1]. */
  readonly params: readonly number[];
  /** In Spot's syntax (X, R, <->; parse with allowNext). */
  readonly formula: string;
  /** Spot 2.9.6's `ltl2tgba -B` states and transitions (%t) where published; null where not. */
  readonly spotB: { readonly states: number; readonly transitions: number } | null;
  /** Where spotB was read (a file of Spot 2.9.6's doc/userdoc), null with it. */
  readonly spotSource: string | null;
}

/** The row's name as genltl's `--format=%F=%L` writes it: `and-gf=3`, `ms-example=2,1`. */
export function familyRowName(r: FamilyRow): string {
  return `${r.family}=${r.params.join(',')}`;
}

type Gen1 = (n: number) => F;
/** Each family with its generator and the parameters taken here (small, so each translates in well under a second). */
const ONE_PARAMETER: readonly (readonly [string, Gen1, readonly number[]])[] = [
  ['and-f', combunop(Fo, true), range(1, 5)],
  ['or-g', combunop(Go, false), range(1, 5)],
  ['and-fg', combunop(FG, true), range(1, 4)],
  ['or-fg', combunop(FG, false), range(1, 4)],
  ['and-gf', combunop(GF, true), range(1, 4)],
  ['or-gf', combunop(GF, false), range(1, 4)],
  ['u-left', (n) => binN(U, false, n), range(1, 5)],
  ['u-right', (n) => binN(U, true, n), range(1, 5)],
  ['r-left', (n) => binN(R, false, n), range(1, 5)],
  ['r-right', (n) => binN(R, true, n), range(1, 5)],
  ['gh-q', ghQ, range(1, 4)],
  ['gh-r', ghR, range(1, 3)],
  ['go-theta', goTheta, range(1, 3)],
  ['ccj-alpha', (n) => and(eN('p', n), eN('q', n)), range(1, 3)],
  ['ccj-beta', (n) => and(Fo(phiN('p', n, '&')), Fo(phiN('q', n, '&'))), range(1, 3)],
  ['ccj-beta-prime', (n) => and(Fo(phiPrimeN('p', n, '&')), Fo(phiPrimeN('q', n, '&'))), range(1, 3)],
  ['fxg-or', fxgOr, range(0, 3)],
  ['gxf-and', gxfAnd, range(0, 3)],
  ['gf-equiv', gfEquiv(true), range(0, 3)],
  ['gf-implies', gfEquiv(false), range(0, 3)],
  ['gf-equiv-xn', gfXn(true), range(1, 3)],
  ['gf-implies-xn', gfXn(false), range(1, 3)],
  ['ms-phi-h', msPhiH, range(0, 3)],
  ['ms-phi-r', (n) => msPhiRS(n, true), range(0, 2)],
  ['ms-phi-s', (n) => msPhiRS(n, false), range(0, 2)],
  ['sejk-j', sejkJ, range(1, 3)],
  ['sejk-k', sejkK, range(1, 3)],
  ['tv-f1', tv(true, '|'), range(1, 3)],
  ['tv-f2', tv(false, '|'), range(1, 3)],
  ['tv-g1', tv(true, '&'), range(1, 3)],
  ['tv-g2', tv(false, '&'), range(1, 3)],
  ['tv-uu', tvUU, range(1, 3)],
  ['rv-counter', (n) => rvCounter(n, false), range(1, 3)],
  ['rv-counter-linear', (n) => rvCounter(n, true), range(1, 3)],
  ['rv-counter-carry', (n) => rvCounterCarry(n, false), range(1, 3)],
  ['rv-counter-carry-linear', (n) => rvCounterCarry(n, true), range(1, 3)],
  ['pps-arbiter-standard', (n) => ppsArbiter(n, false), range(1, 3)],
  ['pps-arbiter-strict', (n) => ppsArbiter(n, true), range(1, 3)],
];
const TWO_PARAMETERS: readonly (readonly [
  string,
  (n: number, m: number) => F,
  readonly number[],
  readonly number[],
])[] = [
  ['ms-example', msExample, range(1, 3), range(1, 3)],
  ['sejk-f', sejkF, range(0, 2), range(0, 2)],
];

const HOA = 'doc/userdoc/hoa.html: genltl --and-gf=1..3 | ltl2tgba -B | autfilt --randomize';
const AMBIG = "doc/userdoc/ltl2tgba.html (ambig1.svg): ltl2tgba -B 'GFa -> GFb' -d";
/** The published `ltl2tgba -B` figures (see the header). */
const PUBLISHED_B: Readonly<Record<string, { states: number; transitions: number; source: string }>> = {
  'and-gf=1': { states: 2, transitions: 4, source: HOA },
  'and-gf=2': { states: 3, transitions: 12, source: HOA },
  'and-gf=3': { states: 4, transitions: 32, source: HOA },
  'or-gf=1': { states: 2, transitions: 4, source: `${HOA} (GFp1, the same formula as and-gf=1)` },
  'gf-implies=1': { states: 4, transitions: 18, source: `${AMBIG} (GFa1 -> GFz renamed)` },
  'sejk-j=1': { states: 4, transitions: 18, source: `${AMBIG} (GFa1 -> GFb1 renamed)` },
};

function row(family: string, params: readonly number[], f: F): FamilyRow {
  const published = PUBLISHED_B[`${family}=${params.join(',')}`];
  return {
    family,
    params,
    formula: show(f),
    spotB: published === undefined ? null : { states: published.states, transitions: published.transitions },
    spotSource: published?.source ?? null,
  };
}

export const SPOT_PARAMETRIC_FAMILIES: readonly string[] = [
  ...ONE_PARAMETER.map((e) => e[0]),
  ...TWO_PARAMETERS.map((e) => e[0]),
  'sejk-patterns',
];

export const SPOT_FAMILY_ROWS: readonly FamilyRow[] = [
  ...ONE_PARAMETER.flatMap(([family, gen, ns]) => ns.map((n) => row(family, [n], gen(n)))),
  ...TWO_PARAMETERS.flatMap(([family, gen, ns, ms]) =>
    ns.flatMap((n) => ms.map((m) => row(family, [n, m], gen(n, m)))),
  ),
];

/** The rows of `genltl --sejk-patterns` (fixed formulas, genltl.test's expected output). */
const SPOT_SEJK_PATTERNS: readonly FamilyRow[] = [
  'GF(Fp0 | Gp1 | FG(p0 | Xp1))',
  'FG(Gp0 | F!p1 | GF(p0 & Xp1))',
  'GF(Fp0 | GXp1 | FG(p0 | XXp1))',
].map((formula, i) => ({ family: 'sejk-patterns', params: [i + 1], formula, spotB: null, spotSource: null }));

export const ALL_FAMILY_ROWS: readonly FamilyRow[] = [...SPOT_FAMILY_ROWS, ...SPOT_SEJK_PATTERNS];
