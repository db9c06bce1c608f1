/**
 * The implicit product of the semantic graph with the working automaton (SAGAS Appendix B.5) and
 * its successor oracle (B.9–B.12). Product state z = v·nq + q. A node's evidence is compiled into
 * two masks over the automaton's propositions: `has`, the propositions it witnesses (exact nodes:
 * their label set; cluster nodes: none), and `risk`, the propositions that may hold there (exact
 * nodes: the same set; cluster nodes: those with P̂(ℓ | v) ≥ τ_soft). A guard term is enabled at a
 * successor v′ when its positive literals are witnessed and none of its negative literals is at
 * risk — for cluster nodes exactly B.12's soft screen, for anchors the witness-label-set test, for
 * the start node its observed label.
 */
import type { SemanticGraph } from './semantic.js';
import { type WorkingAutomaton, maskOf } from './prep.js';

export interface Product {
  readonly g: SemanticGraph;
  readonly w: WorkingAutomaton;
  readonly n: number;
  readonly nq: number;
  readonly has: Int32Array;
  readonly risk: Int32Array;
  /** Flattened transitions: those of working state q are tStart[q] .. tStart[q+1]. */
  readonly tStart: Int32Array;
  readonly tTo: Int32Array;
  readonly tPos: Int32Array;
  readonly tNeg: Int32Array;
  /** Stay moves in the search (zero cost, same node). */
  readonly stay: boolean;
}

export function buildProduct(g: SemanticGraph, w: WorkingAutomaton, tauSoft: number): Product {
  const n = g.ids.length;
  const has = new Int32Array(n);
  const risk = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    if (g.kinds[v] === 'cluster') {
      let r = 0;
      w.aps.forEach((ap, i) => {
        const p = g.soft.get(ap);
        // A proposition the graph has no estimate for is treated as possibly true (conservative).
        if (p === undefined || !(p[v]! < tauSoft)) r |= 1 << i;
      });
      risk[v] = r;
    } else {
      has[v] = risk[v] = maskOf(w.aps, g.labels[v]!);
    }
  }
  const nq = w.nq;
  const tStart = new Int32Array(nq + 1);
  for (let q = 0; q < nq; q++) tStart[q + 1] = tStart[q]! + w.out[q]!.length;
  const m = tStart[nq]!;
  const tTo = new Int32Array(m),
    tPos = new Int32Array(m),
    tNeg = new Int32Array(m);
  for (let q = 0; q < nq; q++) {
    w.out[q]!.forEach((t, k) => {
      const i = tStart[q]! + k;
      tTo[i] = t.to;
      tPos[i] = t.pos;
      tNeg[i] = t.neg;
    });
  }
  return { g, w, n, nq, has, risk, tStart, tTo, tPos, tNeg, stay: g.stay };
}

export function enabled(p: Product, t: number, v: number): boolean {
  return (p.tPos[t]! & ~p.has[v]!) === 0 && (p.tNeg[t]! & p.risk[v]!) === 0;
}

/** Calls visit(z′, cost, transition) for every product successor of z (B.9): stays first, then edges. */
export function forEachSuccessor(p: Product, z: number, visit: (z2: number, cost: number, t: number) => void): void {
  const nq = p.nq;
  const q = z % nq;
  const v = (z - q) / nq;
  const t0 = p.tStart[q]!,
    t1 = p.tStart[q + 1]!;
  if (p.stay) {
    for (let t = t0; t < t1; t++) if (enabled(p, t, v)) visit(v * nq + p.tTo[t]!, 0, t);
  }
  const g = p.g;
  for (let e = g.outStart[v]!; e < g.outStart[v + 1]!; e++) {
    const v2 = g.outTo[e]!;
    const has = p.has[v2]!,
      risk = p.risk[v2]!;
    for (let t = t0; t < t1; t++) {
      if ((p.tPos[t]! & ~has) === 0 && (p.tNeg[t]! & risk) === 0) visit(v2 * nq + p.tTo[t]!, g.outW[e]!, t);
    }
  }
}

/** A dwell at z: an automaton self-loop whose guard term the node's evidence enables; −1 if none. */
export function dwellTransition(p: Product, z: number): number {
  const q = z % p.nq;
  const v = (z - q) / p.nq;
  for (let t = p.tStart[q]!; t < p.tStart[q + 1]!; t++) if (p.tTo[t] === q && enabled(p, t, v)) return t;
  return -1;
}
