/**
 * The state-set monitor: reads a label word letter by letter and keeps every automaton state some
 * run can be in. The runtime monitor of a mission uses it; an empty set means the word so far has
 * no continuation that satisfies the specification.
 */
import type { BuchiAutomaton } from './automaton.js';
import { LetterSteps } from './forbidden.js';

export interface MonitorStep {
  /** States reachable after the letters read so far (sorted). */
  readonly states: readonly number[];
  /** Some reachable state can still reach an accepting cycle. */
  readonly viable: boolean;
  /** Some reachable state is accepting. */
  readonly accepting: boolean;
  /** Letters read so far. */
  readonly position: number;
}

export class StateSetMonitor {
  private readonly steps: LetterSteps;
  private current: Set<number>;
  private position = 0;

  constructor(
    private readonly automaton: BuchiAutomaton,
    start?: Iterable<number>,
  ) {
    this.steps = new LetterSteps(automaton);
    this.current = new Set(start ?? automaton.initial);
    for (const q of this.current) {
      if (!Number.isInteger(q) || q < 0 || q >= automaton.states.length) {
        throw new RangeError(
          `monitor start state ${q} is not a state of the automaton (0..${automaton.states.length - 1})`,
        );
      }
    }
  }

  /** Reads one letter: the set of propositions that hold (names unknown to the automaton are ignored). */
  step(letter: Iterable<string>): MonitorStep {
    this.current = new Set(this.steps.next(this.current, letter));
    this.position++;
    return this.snapshot();
  }

  snapshot(): MonitorStep {
    const states = [...this.current].sort((x, y) => x - y);
    return {
      states,
      viable: this.steps.viable(states),
      accepting: states.some((q) => this.automaton.states[q]!.accepting),
      position: this.position,
    };
  }
}

/** Runs the monitor over a whole finite word and returns every step. */
export function monitorWord(a: BuchiAutomaton, word: readonly Iterable<string>[]): MonitorStep[] {
  const m = new StateSetMonitor(a);
  return word.map((l) => m.step(l));
}
