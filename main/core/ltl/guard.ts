/**
 * Symbolic guards over atomic propositions, indexed 0..n-1. A term is a conjunction of literals
 * (Pos, Neg as bitsets); a guard is a disjunction of terms (DNF), as SAGAS Appendix B.4 uses them.
 */
export interface Term {
  readonly pos: bigint;
  readonly neg: bigint;
}

export type Guard = readonly Term[];

export const TRUE_TERM: Term = Object.freeze({ pos: 0n, neg: 0n });

export function term(pos: bigint, neg: bigint): Term {
  return { pos, neg };
}

export function termAnd(a: Term, b: Term): Term | null {
  const pos = a.pos | b.pos;
  const neg = a.neg | b.neg;
  return (pos & neg) === 0n ? { pos, neg } : null;
}

/** a ⇒ b: every literal of b is in a. */
export function termImplies(a: Term, b: Term): boolean {
  return (b.pos & ~a.pos) === 0n && (b.neg & ~a.neg) === 0n;
}

/** Does the letter (set of true propositions as a bitset) satisfy the term? */
export function termHolds(t: Term, letter: bigint): boolean {
  return (t.pos & ~letter) === 0n && (t.neg & letter) === 0n;
}

export function guardHolds(g: Guard, letter: bigint): boolean {
  for (const t of g) if (termHolds(t, letter)) return true;
  return false;
}

export function popcount(x: bigint): number {
  let n = 0;
  while (x !== 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}

export function bitIndices(x: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; x !== 0n; i++, x >>= 1n) if ((x & 1n) !== 0n) out.push(i);
  return out;
}

function termKey(t: Term): string {
  return `${t.pos.toString(36)}/${t.neg.toString(36)}`;
}

/**
 * Simplifies a DNF without changing its meaning: drops duplicates and absorbed terms (a term
 * implied by another), and merges pairs that differ in the sign of one literal ((x∧a) ∨ (x∧¬a) → x).
 * The result is sorted so that equal simplified guards print equally.
 */
export function simplifyGuard(terms: readonly Term[]): Term[] {
  let cur = dedupe(terms);
  for (;;) {
    cur = absorb(cur);
    const merged = mergeResolvents(cur);
    if (merged === null) break;
    cur = merged;
  }
  return cur.sort(compareTerms);
}

function dedupe(terms: readonly Term[]): Term[] {
  const seen = new Map<string, Term>();
  for (const t of terms) if ((t.pos & t.neg) === 0n) seen.set(termKey(t), t);
  return [...seen.values()];
}

function absorb(terms: Term[]): Term[] {
  const sorted = [...terms].sort((a, b) => popcount(a.pos | a.neg) - popcount(b.pos | b.neg));
  const kept: Term[] = [];
  for (const t of sorted) {
    if (!kept.some((k) => termImplies(t, k))) kept.push(t);
  }
  return kept;
}

/** One round of resolvent merging; null when nothing merged. */
function mergeResolvents(terms: Term[]): Term[] | null {
  const byKey = new Map<string, Term>();
  for (const t of terms) byKey.set(termKey(t), t);
  const removed = new Set<string>();
  const added: Term[] = [];
  for (const t of terms) {
    const tk = termKey(t);
    for (let lits = t.pos; lits !== 0n; lits &= lits - 1n) {
      const bit = lits & -lits;
      const other = { pos: t.pos & ~bit, neg: t.neg | bit };
      const ok = termKey(other);
      if (byKey.has(ok)) {
        removed.add(tk);
        removed.add(ok);
        added.push({ pos: t.pos & ~bit, neg: t.neg });
      }
    }
  }
  if (added.length === 0) return null;
  return dedupe([...terms.filter((t) => !removed.has(termKey(t))), ...added]);
}

function compareTerms(a: Term, b: Term): number {
  const ca = popcount(a.pos | a.neg);
  const cb = popcount(b.pos | b.neg);
  if (ca !== cb) return ca - cb;
  if (a.pos !== b.pos) return a.pos < b.pos ? -1 : 1;
  if (a.neg !== b.neg) return a.neg < b.neg ? -1 : 1;
  return 0;
}

export function guardKey(g: Guard): string {
  return g.map(termKey).join('|');
}

/** Renders a term with proposition names, e.g. `a & !b`, or `true`. */
export function formatTerm(t: Term, aps: readonly string[], style: 'text' | 'hoa' = 'text'): string {
  const lits: string[] = [];
  const name = (i: number): string => (style === 'hoa' ? String(i) : (aps[i] ?? `p${i}`));
  const all = bitIndices(t.pos | t.neg);
  for (const i of all) {
    const bit = 1n << BigInt(i);
    lits.push((t.neg & bit) !== 0n ? `!${name(i)}` : name(i));
  }
  if (lits.length === 0) return style === 'hoa' ? 't' : 'true';
  return lits.join(' & ');
}

export function formatGuard(g: Guard, aps: readonly string[], style: 'text' | 'hoa' = 'text'): string {
  if (g.length === 0) return style === 'hoa' ? 'f' : 'false';
  return g.map((t) => formatTerm(t, aps, style)).join(' | ');
}
