/**
 * Removal of dominated transitions, shared by the alternating and generalized stages.
 * A transition (α, e, M) is dominated by (α', e', M') when α ⇒ α', e' ⊆ e and M ⊆ M':
 * the other one asks for less, promises less, and is accepting at least as often.
 */
import { type Term } from './guard.js';
import type { Budget } from './budget.js';

export interface Move {
  readonly g: Term;
  /** Target: a conjunction of states, as a bitset. */
  readonly to: bigint;
  /** Acceptance marks, as a bitset. */
  readonly acc: bigint;
}

const LOW31 = (1n << 31n) - 1n;

/** ORs the bits of x into `bits` bits (x's bit i lands on bit i mod bits); keeps ⊆. */
function fold(x: bigint, bits: number): number {
  if (x <= LOW31) {
    const v = Number(x);
    return bits === 31 ? v : foldNumber(v, bits);
  }
  const mask = (1n << BigInt(bits)) - 1n;
  let r = 0;
  while (x !== 0n) {
    r |= Number(x & mask);
    x >>= BigInt(bits);
  }
  return r;
}

function foldNumber(v: number, bits: number): number {
  const mask = (1 << bits) - 1;
  let r = 0;
  while (v !== 0) {
    r |= v & mask;
    v >>>= bits;
  }
  return r;
}

/**
 * Keeps the non-dominated moves (one of each group of equal ones), in their original order.
 * Folded 31-bit signatures reject most pairs before any bigint work: folding keeps ⊆.
 */
export function removeDominated<M extends Move>(moves: readonly M[], budget?: Budget): M[] {
  const n = moves.length;
  budget?.transitions(n, 'transition simplification');
  if (n <= 1) return [...moves];
  const sp = new Int32Array(n);
  const sn = new Int32Array(n);
  const sa = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const m = moves[i]!;
    sp[i] = fold(m.g.pos, 31);
    sn[i] = fold(m.g.neg, 15) | (fold(m.to, 16) << 15);
    sa[i] = fold(m.acc, 31);
  }
  const dead = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const t = moves[i]!;
    const pi = sp[i]!,
      ni = sn[i]!,
      ai = sa[i]!;
    for (let j = 0; j < n; j++) {
      if (i === j || dead[j] === 1) continue;
      // j dominates i?
      if ((sp[j]! & ~pi) !== 0 || (sn[j]! & ~ni) !== 0 || (ai & ~sa[j]!) !== 0) continue;
      const d = moves[j]!;
      if ((d.g.pos & ~t.g.pos) !== 0n || (d.g.neg & ~t.g.neg) !== 0n) continue;
      if ((d.to & ~t.to) !== 0n || (t.acc & ~d.acc) !== 0n) continue;
      const equal = d.g.pos === t.g.pos && d.g.neg === t.g.neg && d.to === t.to && d.acc === t.acc;
      if (equal && j > i) continue; // of equal moves keep the first
      dead[i] = 1;
      break;
    }
    budget?.tick('transition simplification');
  }
  const out: M[] = [];
  for (let i = 0; i < n; i++) if (dead[i] === 0) out.push(moves[i]!);
  return out;
}
