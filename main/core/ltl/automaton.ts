/** The Büchi automaton Witness plans and monitors with. Immutable once built. */
import { type Guard, type Term } from './guard.js';

interface BuchiState {
  readonly accepting: boolean;
  /** What the state stands for, for people reading the automaton (generalized state and level). */
  readonly name: string;
}

/** One edge per (from, to); its guard is a DNF of terms. */
export interface BuchiEdge {
  readonly from: number;
  readonly to: number;
  readonly guard: Guard;
}

export interface BuchiAutomaton {
  /** Proposition names; bit i of a term or letter refers to aps[i]. */
  readonly aps: readonly string[];
  readonly states: readonly BuchiState[];
  readonly initial: readonly number[];
  readonly edges: readonly BuchiEdge[];
  /** The formula it was translated from, as printed canonically. */
  readonly formula: string;
}

export function freezeAutomaton(a: BuchiAutomaton): BuchiAutomaton {
  for (const s of a.states) Object.freeze(s);
  for (const e of a.edges) {
    for (const t of e.guard) Object.freeze(t);
    Object.freeze(e.guard);
    Object.freeze(e);
  }
  Object.freeze(a.states);
  Object.freeze(a.initial);
  Object.freeze(a.edges);
  Object.freeze(a.aps);
  return Object.freeze(a);
}

/** Outgoing edges per state. */
export function outgoing(a: BuchiAutomaton): BuchiEdge[][] {
  const out: BuchiEdge[][] = a.states.map(() => []);
  for (const e of a.edges) out[e.from]!.push(e);
  return out;
}

export function transitionCount(a: BuchiAutomaton): number {
  return a.edges.reduce((n, e) => n + e.guard.length, 0);
}

/** Letter (set of true propositions) → bitset over a.aps; names the automaton does not know are ignored. */
export function letterBits(a: BuchiAutomaton, letter: Iterable<string>): bigint {
  let bits = 0n;
  for (const name of letter) {
    const i = a.aps.indexOf(name);
    if (i >= 0) bits |= 1n << BigInt(i);
  }
  return bits;
}

export interface Counts {
  readonly states: number;
  /** Edges (one per pair of states). */
  readonly edges: number;
  /** Guard terms: the transitions of the automaton with every DNF term as its own transition. */
  readonly transitions: number;
}

export function counts(a: BuchiAutomaton): Counts {
  return { states: a.states.length, edges: a.edges.length, transitions: transitionCount(a) };
}

export type { Term };
