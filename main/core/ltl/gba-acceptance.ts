/**
 * Acceptance marks of a generalized Büchi automaton simplified SCC by SCC (what Spot's scc_filter
 * does before its simulations). A run ends up in one SCC, so marks count only on edges inside the
 * SCC it ends in, and each SCC can be read on its own:
 * - an SCC whose edges do not carry every set accepts no run: its edges, and the edges entering
 *   it, lose their marks;
 * - an SCC where every cycle carries every set (for each set, the SCC's edges without it have no
 *   cycle) accepts every run that ends in it: its edges carry every set;
 * - in the others, a set that every edge carrying some other kept set carries too is implied (a
 *   run that sees the other infinitely often sees it too) and is dropped;
 * - the sets kept in each SCC are then renumbered from 0 (a run never sees two SCCs' sets
 *   together), each accepting SCC keeping as many as the one that needs most.
 * Edges between SCCs keep the marks of the SCC they enter, renumbered alike (they are taken once;
 * the degeneralization reads them to choose the level it enters at).
 */
import type { Gba, GbaEdge } from './gba.js';
import type { Node } from './nnf.js';
import { stronglyConnected } from './scc.js';
import { withSets } from './degeneralize.js';
import type { Budget } from './budget.js';

const STAGE = 'acceptance set pruning';

/**
 * The automaton with its marks simplified SCC by SCC; the automaton itself when nothing changes.
 * `conditions` is for the tests' mutants: an accepting SCC taken for one where every cycle accepts
 * without checking its cycles changes languages.
 */
export function simplifyAcceptanceBySccs(gba: Gba, budget?: Budget, conditions = { cycles: true }): Gba {
  budget?.checkTime(STAGE);
  const k = gba.nAcc;
  if (k === 0) return gba;
  const n = gba.sets.length;
  const comp = stronglyConnected(n, (q) => gba.edges[q]!.map((e) => e.to));
  let sccs = 0;
  for (let q = 0; q < n; q++) sccs = Math.max(sccs, comp[q]! + 1);
  const all = (1n << BigInt(k)) - 1n;
  // the distinct marks on each SCC's inner edges
  const inner: Set<bigint>[] = Array.from({ length: sccs }, () => new Set<bigint>());
  const union = new Array<bigint>(sccs).fill(0n);
  const hasInner = new Uint8Array(sccs);
  gba.edges.forEach((list, q) => {
    budget?.tick(STAGE, list.length);
    for (const e of list) {
      if (comp[e.to] !== comp[q]) continue;
      hasInner[comp[q]!] = 1;
      inner[comp[q]!]!.add(e.acc);
      union[comp[q]!]! |= e.acc;
    }
  });
  const accepting = Array.from({ length: sccs }, (_, c) => hasInner[c] === 1 && union[c] === all);
  const weak = accepting.map((acc, c) => acc && (!conditions.cycles || everyCycleAccepting(gba, comp, c, k, budget)));
  // per accepting SCC: the sets kept, in order
  const kept: number[][] = accepting.map((acc, c) => (!acc ? [] : weak[c] ? [0] : usefulSets(inner[c]!, k)));
  const width = Math.max(1, ...kept.map((s) => s.length));
  // SCCs needing fewer sets keep some implied ones too (they never hurt), up to `width`
  kept.forEach((s, c) => {
    if (!accepting[c]) return;
    for (let x = 0; x < k && s.length < width; x++) if (!s.includes(x)) s.push(x);
    s.sort((a, b) => a - b);
  });
  const widthAll = (1n << BigInt(width)) - 1n;
  const remap = (q: number, e: GbaEdge): bigint => {
    const c = comp[e.to]!;
    if (!accepting[c]) return 0n;
    // a weak SCC's edges carry every set; an edge entering it, every set when it carried every one
    if (weak[c]) return comp[q] === c || e.acc === all ? widthAll : 0n;
    let r = 0n;
    kept[c]!.forEach((x, i) => {
      if ((e.acc >> BigInt(x)) & 1n) r |= 1n << BigInt(i);
    });
    return r;
  };
  let changed = width !== k;
  const edges: GbaEdge[][] = gba.edges.map((list, q) =>
    list.map((e) => {
      const acc = remap(q, e);
      if (acc === e.acc) return e;
      changed = true;
      return { ...e, acc };
    }),
  );
  if (!changed) return gba;
  return { ...gba, edges, nAcc: width, accSource: gba.accSource.slice(0, width) };
}

/**
 * Sets not implied by another kept set on the SCC's inner marks (Spot's `useless` read the other
 * way round): x is kept unless, when it is its turn, an earlier kept set implies it.
 */
function usefulSets(marks: ReadonlySet<bigint>, k: number): number[] {
  const useless = new Set<number>();
  for (let x = 0; x < k; x++) {
    if (useless.has(x)) continue;
    // the sets every mark carrying x carries too
    let always = ((1n << BigInt(k)) - 1n) & ~(1n << BigInt(x));
    for (const u of useless) always &= ~(1n << BigInt(u));
    for (const m of marks) if ((m >> BigInt(x)) & 1n) always &= m;
    for (let y = 0; y < k; y++) if ((always >> BigInt(y)) & 1n) useless.add(y);
  }
  const out: number[] = [];
  for (let x = 0; x < k; x++) if (!useless.has(x)) out.push(x);
  return out;
}

/** Whether every cycle of SCC c carries every set: for each set, the SCC's edges without it form no cycle. */
function everyCycleAccepting(gba: Gba, comp: Int32Array, c: number, k: number, budget?: Budget): boolean {
  const states: number[] = [];
  for (let q = 0; q < comp.length; q++) if (comp[q] === c) states.push(q);
  const local = new Map(states.map((q, i) => [q, i] as const));
  for (let x = 0; x < k; x++) {
    const bit = 1n << BigInt(x);
    const succ = (i: number): number[] => {
      const q = states[i]!;
      budget?.tick(STAGE, gba.edges[q]!.length);
      const out: number[] = [];
      for (const e of gba.edges[q]!) if (comp[e.to] === c && (e.acc & bit) === 0n) out.push(local.get(e.to)!);
      return out;
    };
    const sub = stronglyConnected(states.length, succ);
    const size = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) size[sub[i]!]!++;
    for (let i = 0; i < states.length; i++) {
      if (size[sub[i]!]! > 1 || succ(i).includes(i)) return false;
    }
  }
  return true;
}

/**
 * The acceptance sets reordered so that a set whose formula contains another's comes before it,
 * the sets otherwise in their order (a stable topological order); the automaton itself when that
 * is the order already. `nodes` gives each alternating state's formula (accSource indexes it). A
 * run meets nested eventualities outside in — G F (a & F (b & F c)) sees a, then b, then c — and
 * the degeneralization counts the sets in order, so counting them outside in needs fewer level
 * copies; the alternating automaton numbers its states inside out.
 */
export function outerSetsFirst(gba: Gba, nodes: readonly (Node | null)[]): Gba {
  const k = gba.nAcc;
  if (k < 2) return gba;
  const of = gba.accSource.map((s) => nodes[s] ?? null);
  const memo = new Map<string, boolean>();
  const contains = (outer: Node | null, inner: Node | null): boolean => {
    if (outer === null || inner === null || outer === inner) return false;
    const key = `${outer.id}/${inner.id}`;
    let r = memo.get(key);
    if (r !== undefined) return r;
    r = false;
    const seen = new Set<number>();
    const stack = [...outer.kids];
    while (stack.length > 0 && !r) {
      const n = stack.pop()!;
      if (n === inner) r = true;
      else if (!seen.has(n.id)) {
        seen.add(n.id);
        stack.push(...n.kids);
      }
    }
    memo.set(key, r);
    return r;
  };
  const order: number[] = [];
  const placed = new Uint8Array(k);
  while (order.length < k) {
    // the first set in the current order that no unplaced set contains (the containment is a
    // strict order on a DAG's nodes, so one always exists)
    for (let j = 0; j < k; j++) {
      if (placed[j] === 1) continue;
      let free = true;
      for (let i = 0; i < k && free; i++) if (i !== j && placed[i] === 0 && contains(of[i]!, of[j]!)) free = false;
      if (free) {
        order.push(j);
        placed[j] = 1;
        break;
      }
      if (j === k - 1) throw new Error('outerSetsFirst: containment is not a strict order');
    }
  }
  return order.every((x, i) => x === i) ? gba : withSets(gba, order);
}

/** The automaton with its acceptance sets numbered the other way round (the degeneralization counts them in order). */
export function reversedMarks(gba: Gba): Gba {
  return withSets(
    gba,
    Array.from({ length: gba.nAcc }, (_, i) => gba.nAcc - 1 - i),
  );
}
