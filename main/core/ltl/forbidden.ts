/**
 * What a specification forbids now. From the runtime monitor's state set S, a letter is forbidden
 * (dead) when reading it leaves no state with an accepting continuation: every infinite word that
 * goes on with that letter violates the specification. A region x is forbidden when the letter the
 * robot reads inside it and nowhere else, {x}, is dead: `G !x` always; `!x U y` until y has held.
 * A point inside several regions reads all their names: whether it is forbidden is the question for
 * that letter, which callers ask with `dead` (overlaps are not judged region by region). Pure.
 */
import { type BuchiAutomaton, letterBits, outgoing } from './automaton.js';
import { guardHolds } from './guard.js';
import { canReachGoodCycle } from './scc.js';

export class LetterSteps {
  private readonly out;
  /** live[q] = 1: some accepting cycle is reachable from q (the monitor's "viable"). */
  readonly live: Uint8Array;

  constructor(readonly automaton: BuchiAutomaton) {
    this.out = outgoing(automaton);
    this.live = canReachGoodCycle(
      automaton.states.length,
      (q) => this.out[q]!.map((e) => e.to),
      (q) => automaton.states[q]!.accepting,
    );
  }

  /** The states reachable from `states` by reading `letter` (sorted; names the automaton does not know are ignored). */
  next(states: Iterable<number>, letter: Iterable<string>): number[] {
    const bits = letterBits(this.automaton, letter);
    const to = new Set<number>();
    for (const q of states) for (const e of this.out[q]!) if (guardHolds(e.guard, bits)) to.add(e.to);
    return [...to].sort((x, y) => x - y);
  }

  /** Some state of the set still has an accepting continuation. */
  viable(states: Iterable<number>): boolean {
    for (const q of states) if (this.live[q] === 1) return true;
    return false;
  }

  /** Reading `letter` from `states` leaves no state with an accepting continuation. */
  dead(states: Iterable<number>, letter: Iterable<string>): boolean {
    return !this.viable(this.next(states, letter));
  }

  /** The regions (proposition names) x whose letter {x} is dead from `states`, in the order given. */
  forbiddenRegions(states: readonly number[], names: readonly string[]): string[] {
    return names.filter((x) => this.dead(states, [x]));
  }
}
