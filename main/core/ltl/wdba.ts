/**
 * Obligation minimisation (Dax, Eisinger & Klaedtke 2007, "Mechanizing the powerset construction
 * for restricted classes of ω-automata"; Spot's `minimize_obligation`), and the explicit-alphabet
 * machinery it needs: letter classes, the powerset automaton, and emptiness of products.
 *
 * The Büchi automaton is determinised by the subset construction over the letter classes its
 * guards distinguish; a non-trivial SCC of the powerset automaton is accepting when the word that
 * loops once around it (from one of its states) is accepted by the Büchi automaton from that
 * state's subset. When the language is an obligation (recognisable by a weak deterministic Büchi
 * automaton, WDBA) this marks every SCC correctly. SCCs are then coloured as in Löding's normal
 * form (a transient SCC takes the smallest colour of its successors, so its acceptance is chosen
 * to help merging; SCCs that reach no accepting SCC are dropped), and the result is minimised as
 * a DFA (Moore's partition refinement) with final = even colour.
 *
 * Nothing here decides whether the language is an obligation: the caller keeps the result only
 * after `verifyEquivalent` has shown L(min) = L(A) with the negation's automaton, as Spot does for
 * formulas that are not syntactic obligations.
 */
import { type Term, TRUE_TERM, simplifyGuard } from './guard.js';
import type { MutableBuchi } from './reduce.js';
import type { Budget } from './budget.js';
import { refinePartition } from './partition.js';
import { stronglyConnected } from './scc.js';
import { denseGraph } from './dense-graph.js';

/** Most propositions for which the alphabet is enumerated (2^10 letters). */
export const WDBA_MAX_APS = 10;
/** Largest Büchi automaton the powerset construction starts from. */
export const WDBA_MAX_INPUT_STATES = 256;
/** Most subsets the powerset construction may make before it gives up. */
const WDBA_MAX_SUBSETS = 256;
/** Most word operations (subset size × classes × words) the powerset construction may spend. */
const WDBA_MAX_WORK = 100_000;
/** Most product states one emptiness check may explore before it gives up. */
const PRODUCT_MAX_STATES = 40_000;

const STAGE = 'obligation minimisation';

/** The letters (0 … 2^n − 1) grouped by which of the given terms they satisfy. */
export interface LetterClasses {
  readonly aps: number;
  /** Per letter, its class. */
  readonly classOf: Int32Array;
  /** Per class, one letter of it. */
  readonly reps: number[];
}

export function letterClasses(aps: number, terms: Iterable<Term>, budget: Budget): LetterClasses {
  const L = 1 << aps;
  let cls = new Int32Array(L);
  let count = 1;
  const seen = new Set<string>();
  for (const t of terms) {
    const key = `${t.pos}/${t.neg}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const pos = Number(t.pos),
      neg = Number(t.neg);
    // split every class by the term: new id = (old id, holds)
    const ids = new Int32Array(count * 2).fill(-1);
    const next = new Int32Array(L);
    let n = 0;
    for (let x = 0; x < L; x++) {
      const k = cls[x]! * 2 + ((pos & ~x) === 0 && (neg & x) === 0 ? 1 : 0);
      let id = ids[k]!;
      if (id === -1) ids[k] = id = n++;
      next[x] = id;
    }
    budget.tick(STAGE, L >> 4);
    cls = next;
    count = n;
  }
  const reps = new Array<number>(count).fill(-1);
  for (let x = 0; x < L; x++) if (reps[cls[x]!] === -1) reps[cls[x]!] = x;
  return { aps, classOf: cls, reps };
}

/** An automaton over letter classes: per state and class, the successors; Büchi acceptance on states. */
export interface Explicit {
  readonly accepting: readonly boolean[];
  /** succ[q * classes + c]: successors of q on class c. */
  readonly succ: readonly (readonly number[])[];
  readonly initial: readonly number[];
  readonly classes: number;
}

/**
 * The Büchi automaton on letter classes: an edge reads class c when one of its terms holds on the
 * letters of c (every letter of a class satisfies the same terms), found by enumerating each
 * term's letters, 2^(free propositions) of them.
 */
export function explicitOf(a: MutableBuchi, lc: LetterClasses, budget: Budget): Explicit {
  const C = lc.reps.length;
  const full = (1 << lc.aps) - 1;
  const succ: number[][] = [];
  const seen = new Int32Array(C).fill(-1);
  let stamp = 0;
  for (let q = 0; q < a.accepting.length; q++) {
    for (let c = 0; c < C; c++) succ.push([]);
    for (const [to, g] of a.out[q]!) {
      stamp++;
      let work = 0;
      for (const t of g) {
        const pos = Number(t.pos);
        const free = full & ~(pos | Number(t.neg));
        for (let sub = free; ; sub = (sub - 1) & free) {
          const c = lc.classOf[pos | sub]!;
          if (seen[c] !== stamp) {
            seen[c] = stamp;
            succ[q * C + c]!.push(to);
          }
          work++;
          if (sub === 0) break;
        }
      }
      budget.tick(STAGE, work >> 3);
    }
  }
  return { accepting: a.accepting, succ, initial: [a.initial], classes: C };
}

export function guardTerms(a: MutableBuchi): Term[] {
  const out: Term[] = [];
  for (const m of a.out) for (const g of m.values()) out.push(...g);
  return out;
}

/** A deterministic automaton over letter classes (−1: no successor), with final states. */
export interface Deterministic {
  readonly final: boolean[];
  readonly delta: Int32Array;
  readonly initial: number;
  readonly classes: number;
  /** Per state, the subset of Büchi states it stands for (its first member for a merged block). */
  readonly members: number[][];
}

export interface PowersetResult {
  /** The minimised WDBA candidate, or null when the construction gave up or found nothing to keep. */
  readonly dba: Deterministic | null;
  /** The powerset construction went past its cap. */
  readonly capped: boolean;
  /** No subset explored lacked a successor on some letter (a necessary condition for universality). */
  readonly complete: boolean;
}

/** The subset construction's result: every subset reached, and its successor per letter class (−1: none). */
interface Subsets {
  readonly members: number[][];
  readonly delta: number[];
  /** No subset lacked a successor on some letter. */
  readonly complete: boolean;
}

/** The subset construction, subsets as bitsets of W words; `capped` past its caps. */
function subsetConstruction(
  a: MutableBuchi,
  ex: Explicit,
  budget: Budget,
): Subsets | { capped: true; complete: boolean } {
  const C = ex.classes;
  const nq = a.accepting.length;
  const W = (nq + 31) >>> 5;
  const bits = new Uint32Array(nq * C * W);
  for (let q = 0; q < nq; q++) {
    for (let c = 0; c < C; c++) {
      const base = (q * C + c) * W;
      for (const t of ex.succ[q * C + c]!) bits[base + (t >>> 5)]! |= 1 << (t & 31);
    }
  }
  // subsets hashed on their words; pool holds every subset's words, id * W on
  const index = new Map<number, number[]>();
  const pool: number[] = [];
  const members: number[][] = [];
  const delta: number[] = [];
  let complete = true;
  let work = 0;
  const next = new Uint32Array(W);
  const intern = (): number => {
    let h = 0;
    for (let w = 0; w < W; w++) h = (Math.imul(h, 0x9e3779b1) + next[w]!) | 0;
    let bucket = index.get(h);
    if (bucket === undefined) index.set(h, (bucket = []));
    for (const id of bucket) {
      let same = true;
      for (let w = 0; w < W && same; w++) same = pool[id * W + w] === next[w];
      if (same) return id;
    }
    const id = members.length;
    bucket.push(id);
    const set: number[] = [];
    for (let w = 0; w < W; w++) {
      pool.push(next[w]!);
      for (let b = next[w]!; b !== 0; b &= b - 1) set.push((w << 5) + (31 - Math.clz32(b & -b)));
    }
    members.push(set);
    return id;
  };
  next[a.initial >>> 5] = 1 << (a.initial & 31);
  intern();
  for (let s = 0; s < members.length; s++) {
    if (members.length > WDBA_MAX_SUBSETS) return { capped: true, complete };
    const set = members[s]!;
    work += set.length * C * W;
    if (work > WDBA_MAX_WORK) return { capped: true, complete };
    for (let c = 0; c < C; c++) {
      next.fill(0);
      let any = 0;
      for (const q of set) {
        const base = (q * C + c) * W;
        for (let w = 0; w < W; w++) any |= next[w]! |= bits[base + w]!;
      }
      if (any === 0) {
        complete = false;
        delta.push(-1);
      } else {
        delta.push(intern());
      }
    }
    budget.tick(STAGE, (set.length * C * W) >> 4);
  }
  if (members.length > WDBA_MAX_SUBSETS) return { capped: true, complete };
  return { members, delta, complete };
}

/** The powerset automaton's SCCs with Löding's colours (even: accepting) and which can reach no accepting loop. */
interface Colouring {
  readonly comp: Int32Array;
  readonly colour: Int32Array;
  readonly useless: Uint8Array;
}

/** The SCCs (Tarjan numbers them successors first) and their colours; 'mixed' when an SCC's loops disagree. */
function colourSccs(ex: Explicit, p: Subsets, budget: Budget): Colouring | 'mixed' {
  const C = ex.classes;
  const { delta, members } = p;
  const n = members.length;
  const succOf = (s: number): number[] => {
    const out: number[] = [];
    for (let c = 0; c < C; c++) {
      const t = delta[s * C + c]!;
      if (t >= 0) out.push(t);
    }
    return out;
  };
  const comp = stronglyConnected(n, succOf);
  let compCount = 0;
  for (let s = 0; s < n; s++) compCount = Math.max(compCount, comp[s]! + 1);
  const statesOf: number[][] = Array.from({ length: compCount }, () => []);
  for (let s = 0; s < n; s++) statesOf[comp[s]!]!.push(s);
  const k = (compCount | 1) + 1; // an even number above every SCC index
  const colour = new Int32Array(compCount);
  const useless = new Uint8Array(compCount);
  for (let m = 0; m < compCount; m++) {
    const states = statesOf[m]!;
    const succComps = new Set<number>();
    let selfLoop = false;
    for (const s of states) {
      for (const t of succOf(s)) {
        if (comp[t] === m) selfLoop = true;
        else succComps.add(comp[t]!);
      }
    }
    const transient = !selfLoop;
    if (transient && succComps.size === 0) {
      useless[m] = 1;
      colour[m] = k - 1;
      continue;
    }
    let l = k;
    let isUseless = true;
    for (const j of succComps) {
      if (useless[j] === 0) isUseless = false;
      l = Math.min(l, colour[j]!);
    }
    if (transient) {
      colour[m] = l;
    } else {
      const v = sccVerdict(ex, states, comp, m, delta, members, budget);
      if (v === 'mixed') return 'mixed';
      if (v) {
        isUseless = false;
        colour[m] = l & ~1;
      } else {
        colour[m] = (l - 1) | 1;
      }
    }
    useless[m] = isUseless ? 1 : 0;
  }
  return { comp, colour, useless };
}

/** Moore minimisation of the useful part, final = even colour; null when the initial subset is useless. */
function mooreQuotient(p: Subsets, C: number, k: Colouring, budget: Budget): Deterministic | null {
  const { delta, members } = p;
  const { comp, colour, useless } = k;
  const n = members.length;
  const keep: number[] = [];
  const local = new Int32Array(n).fill(-1);
  for (let s = 0; s < n; s++) {
    if (useless[comp[s]!] === 0) {
      local[s] = keep.length;
      keep.push(s);
    }
  }
  if (local[0] === -1) return null;
  const finalOf = (s: number): boolean => (colour[comp[s]!]! & 1) === 0;
  const target = (s: number, c: number): number => {
    const t = delta[s * C + c]!;
    return t >= 0 ? local[t]! : -1;
  };
  const block = refinePartition(
    keep.length,
    (i) => (finalOf(keep[i]!) ? 'F' : 'N'),
    (i, b) => {
      budget.tick(STAGE, C);
      let sig = '';
      for (let c = 0; c < C; c++) {
        const t = target(keep[i]!, c);
        sig += `${t === -1 ? '-' : b[t]},`;
      }
      return sig;
    },
    () => budget.tick(STAGE),
  );
  let blocks = 0;
  for (const b of block) blocks = Math.max(blocks, b + 1);
  const rep = new Int32Array(blocks).fill(-1);
  for (let i = 0; i < keep.length; i++) if (rep[block[i]!] === -1) rep[block[i]!] = i;
  // number blocks from the initial state's
  const order: number[] = [];
  const newId = new Int32Array(blocks).fill(-1);
  const visit = (b: number): number => {
    if (newId[b] === -1) {
      newId[b] = order.length;
      order.push(b);
    }
    return newId[b]!;
  };
  visit(block[0]!);
  const outDelta: number[] = [];
  for (let j = 0; j < order.length; j++) {
    const s = keep[rep[order[j]!]!]!;
    for (let c = 0; c < C; c++) {
      const t = target(s, c);
      outDelta.push(t === -1 ? -1 : visit(block[t]!));
    }
  }
  return {
    final: order.map((b) => finalOf(keep[rep[b]!]!)),
    delta: Int32Array.from(outDelta),
    initial: 0,
    classes: C,
    members: order.map((b) => members[keep[rep[b]!]!]!),
  };
}

/**
 * The powerset automaton, its SCC acceptance, Löding's colouring and the Moore quotient. Returns the
 * minimised candidate (not yet known to be equivalent).
 */
export function minimizeWdba(a: MutableBuchi, ex: Explicit, budget: Budget): PowersetResult {
  budget.checkTime(STAGE);
  const p = subsetConstruction(a, ex, budget);
  if (!('members' in p)) return { dba: null, capped: true, complete: p.complete };
  const colouring = colourSccs(ex, p, budget);
  if (colouring === 'mixed') return { dba: null, capped: false, complete: p.complete };
  return { dba: mooreQuotient(p, ex.classes, colouring, budget), capped: false, complete: p.complete };
}

/** States of one non-trivial SCC of the powerset automaton whose loops are tried. */
const STATES_TRIED_PER_SCC = 16;

/**
 * The SCC's verdict: are the words that loop around it accepted by the Büchi automaton (from the
 * subset the loop starts in)? For an obligation every loop of one SCC agrees (Dax et al.), so one
 * loop decides; a few more are tried (a shortest loop through each of up to 16 states, and the
 * first and last self-loop of each), and 'mixed' says the language is not an obligation.
 */
function sccVerdict(
  ex: Explicit,
  states: number[],
  comp: Int32Array,
  m: number,
  delta: number[],
  members: number[][],
  budget: Budget,
): boolean | 'mixed' {
  const C = ex.classes;
  let verdict: boolean | undefined;
  const agrees = (start: number, word: number[]): boolean => {
    const v = loopAccepted(ex, members[start]!, word, budget);
    if (verdict === undefined) verdict = v;
    return v === verdict;
  };
  const tried = states.slice(0, STATES_TRIED_PER_SCC);
  for (const start of tried) {
    const word = cycleThrough(start, comp, m, delta, C, budget);
    if (word !== null && !agrees(start, word)) return 'mixed';
  }
  for (const start of tried) {
    let first = -1,
      last = -1;
    for (let c = 0; c < C; c++) {
      if (delta[start * C + c] !== start) continue;
      if (first === -1) first = c;
      last = c;
    }
    if (first !== -1 && !agrees(start, [first])) return 'mixed';
    if (last !== first && !agrees(start, [last])) return 'mixed';
  }
  return verdict ?? false;
}

/** A shortest loop from `start` back to itself inside SCC m, as classes. */
function cycleThrough(
  start: number,
  comp: Int32Array,
  m: number,
  delta: number[],
  C: number,
  budget: Budget,
): number[] | null {
  const parent = new Map<number, { from: number; c: number }>();
  const queue: number[] = [start];
  let found: { from: number; c: number } | null = null;
  for (let h = 0; h < queue.length && found === null; h++) {
    const s = queue[h]!;
    for (let c = 0; c < C; c++) {
      const t = delta[s * C + c]!;
      if (t === start) {
        found = { from: s, c };
        break;
      }
      if (t >= 0 && comp[t] === m && !parent.has(t)) {
        parent.set(t, { from: s, c });
        queue.push(t);
      }
    }
    budget.tick(STAGE, C);
  }
  if (found === null) return null;
  const word: number[] = [found.c];
  for (let s = found.from; s !== start; s = parent.get(s)!.from) word.push(parent.get(s)!.c);
  return word.reverse();
}

/**
 * Is word^ω accepted by the Büchi automaton from some state of `from`? The product of the automaton
 * with the word's positions is searched for a cycle through an accepting state.
 */
function loopAccepted(ex: Explicit, from: readonly number[], word: readonly number[], budget: Budget): boolean {
  const C = ex.classes;
  const len = word.length;
  // product nodes q * len + i: in Büchi state q before reading word[i]
  const { nodes, succ, visit: visitNode } = denseGraph();
  for (const q of from) visitNode(q * len);
  for (let x = 0; x < nodes.length; x++) {
    const key = nodes[x]!;
    const q = Math.floor(key / len),
      i = key % len;
    for (const t of ex.succ[q * C + word[i]!]!) succ[x]!.push(visitNode(t * len + ((i + 1) % len)));
    budget.tick(STAGE);
  }
  const pc = stronglyConnected(nodes.length, (x) => succ[x]!);
  const size = new Map<number, number>();
  for (const c of pc) size.set(c, (size.get(c) ?? 0) + 1);
  return nodes.some(
    (key, x) => ex.accepting[Math.floor(key / len)]! && (size.get(pc[x]!)! > 1 || succ[x]!.includes(x)),
  );
}

/** Every non-trivial SCC all final or all not: then flipping acceptance (with a sink) complements it. */
export function isWeak(d: Deterministic): boolean {
  const C = d.classes;
  const n = d.final.length;
  const succOf = (s: number): number[] => {
    const out: number[] = [];
    for (let c = 0; c < C; c++) if (d.delta[s * C + c]! >= 0) out.push(d.delta[s * C + c]!);
    return out;
  };
  const comp = stronglyConnected(n, succOf);
  const kind = new Map<number, boolean>();
  for (let s = 0; s < n; s++) {
    const cyclic = succOf(s).some((t) => comp[t] === comp[s]);
    if (!cyclic) continue;
    const prev = kind.get(comp[s]!);
    if (prev !== undefined && prev !== d.final[s]) return false;
    kind.set(comp[s]!, d.final[s]!);
  }
  return true;
}

/**
 * Reads a deterministic automaton over the coarse classes `coarse` on the classes `fine` (finer or
 * equal: each fine class lies inside one coarse class). With `complement`, a sink completes it and
 * acceptance is flipped (the complement, for a weak automaton).
 */
function deterministicOn(d: Deterministic, coarse: LetterClasses, fine: LetterClasses, complement: boolean): Explicit {
  const C = fine.reps.length;
  const n = d.final.length;
  const sink = n;
  const succ: number[][] = [];
  const states = complement ? n + 1 : n;
  for (let s = 0; s < states; s++) {
    for (let c = 0; c < C; c++) {
      if (s === sink) {
        succ.push([sink]);
        continue;
      }
      const t = d.delta[s * d.classes + coarse.classOf[fine.reps[c]!]!]!;
      succ.push(t >= 0 ? [t] : complement ? [sink] : []);
    }
  }
  const accepting: boolean[] = [];
  for (let s = 0; s < states; s++) accepting.push(complement ? s === sink || !d.final[s]! : d.final[s]!);
  return { accepting, succ, initial: [d.initial], classes: C };
}

/**
 * Is the intersection of two Büchi automata over the same classes empty? Explores the reachable
 * product and looks for a non-trivial SCC holding an accepting state of each. Null when the product
 * grows past PRODUCT_MAX_STATES (the caller then keeps what it had).
 */
export function productEmpty(x: Explicit, y: Explicit, budget: Budget): boolean | null {
  const C = x.classes;
  const ny = y.accepting.length;
  const { nodes, succ, visit: visitNode } = denseGraph();
  for (const p of x.initial) for (const q of y.initial) visitNode(p * ny + q);
  for (let v = 0; v < nodes.length; v++) {
    if (nodes.length > PRODUCT_MAX_STATES) return null;
    const key = nodes[v]!;
    const p = Math.floor(key / ny),
      q = key % ny;
    for (let c = 0; c < C; c++) {
      const ys = y.succ[q * C + c]!;
      if (ys.length === 0) continue;
      for (const p2 of x.succ[p * C + c]!) for (const q2 of ys) succ[v]!.push(visitNode(p2 * ny + q2));
    }
    budget.tick(STAGE, C);
  }
  const comp = stronglyConnected(nodes.length, (v) => succ[v]!);
  const size = new Map<number, number>();
  for (const c of comp) size.set(c, (size.get(c) ?? 0) + 1);
  const accX = new Set<number>();
  const accY = new Set<number>();
  nodes.forEach((key, v) => {
    const cyclic = size.get(comp[v]!)! > 1 || succ[v]!.includes(v);
    if (!cyclic) return;
    if (x.accepting[Math.floor(key / ny)]) accX.add(comp[v]!);
    if (y.accepting[key % ny]) accY.add(comp[v]!);
  });
  for (const c of accX) if (accY.has(c)) return false;
  return true;
}

/**
 * L(d) = L(a), given the negation's automaton `neg` (L(neg) = complement of L(a)): L(d) ∩ L(neg) = ∅
 * and L(a) ∩ complement(d) = ∅. False when either product is too large to decide.
 */
export function verifyEquivalent(
  a: MutableBuchi,
  neg: MutableBuchi,
  d: Deterministic,
  coarse: LetterClasses,
  budget: Budget,
): boolean {
  if (!isWeak(d)) return false;
  const fine = letterClasses(coarse.aps, [...guardTerms(a), ...guardTerms(neg)], budget);
  const negEx = explicitOf(neg, fine, budget);
  if (productEmpty(deterministicOn(d, coarse, fine, false), negEx, budget) !== true) return false;
  return productEmpty(explicitOf(a, fine, budget), deterministicOn(d, coarse, fine, true), budget) === true;
}

/** The deterministic automaton as a Büchi automaton with DNF guards (letters merged by simplifyGuard). */
export function toMutable(
  d: Deterministic,
  lc: LetterClasses,
  name: (s: number) => string,
  budget: Budget,
): MutableBuchi {
  const C = d.classes;
  const L = lc.classOf.length;
  const full = L - 1;
  const out: Map<number, Term[]>[] = [];
  for (let s = 0; s < d.final.length; s++) {
    const byTarget = new Map<number, number[]>();
    for (let c = 0; c < C; c++) {
      const t = d.delta[s * C + c]!;
      if (t < 0) continue;
      let cs = byTarget.get(t);
      if (cs === undefined) byTarget.set(t, (cs = []));
      cs.push(c);
    }
    const m = new Map<number, Term[]>();
    for (const [t, cs] of byTarget) {
      const inSet = new Uint8Array(C);
      for (const c of cs) inSet[c] = 1;
      const terms: Term[] = [];
      if (cs.length === C) terms.push(TRUE_TERM);
      else {
        for (let x = 0; x < L; x++) {
          if (inSet[lc.classOf[x]!] === 1) terms.push({ pos: BigInt(x), neg: BigInt(full & ~x) });
        }
      }
      budget.tick(STAGE, terms.length * lc.aps);
      m.set(t, simplifyGuard(terms));
    }
    out.push(m);
  }
  return {
    accepting: [...d.final],
    names: d.final.map((_, s) => name(s)),
    initial: d.initial,
    out,
  };
}

/**
 * Does the automaton accept c^ω for every letter class c? A universal language must; most
 * automata reject one such word, so this is the cheap sign before a universality check.
 */
export function acceptsEveryConstantWord(ex: Explicit, budget: Budget): boolean {
  const C = ex.classes;
  const n = ex.accepting.length;
  for (let c = 0; c < C; c++) {
    const seen = new Uint8Array(n);
    const stack = [...ex.initial];
    for (const q of stack) seen[q] = 1;
    while (stack.length > 0) {
      const q = stack.pop()!;
      for (const t of ex.succ[q * C + c]!) {
        if (seen[t] === 0) {
          seen[t] = 1;
          stack.push(t);
        }
      }
    }
    const succ = (q: number): readonly number[] => (seen[q] === 1 ? ex.succ[q * C + c]! : []);
    const comp = stronglyConnected(n, succ);
    let ok = false;
    for (let q = 0; q < n && !ok; q++) {
      if (seen[q] === 1 && ex.accepting[q] && succ(q).some((t) => comp[t] === comp[q])) ok = true;
    }
    budget.tick(STAGE, n);
    if (!ok) return false;
  }
  return true;
}
