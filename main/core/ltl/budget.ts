import { LtlBudgetError } from './errors.js';

export interface BudgetOptions {
  /** Most states any stage (alternating, generalized, Büchi) may create. */
  readonly maxStates?: number;
  /** Most transitions one state may have before simplification (default 20 000). */
  readonly maxTransitions?: number;
  /** Wall-clock budget for one translation, in milliseconds. */
  readonly timeLimit_ms?: number;
  /** Milliseconds from an arbitrary origin; injected so the core stays pure. */
  readonly clock?: () => number;
  /** Set `aborted` to stop a running translation (an AbortSignal works). */
  readonly signal?: { readonly aborted: boolean };
}

export const DEFAULT_MAX_STATES = 20_000;
export const DEFAULT_TIME_LIMIT_MS = 10_000;
export const DEFAULT_MAX_TRANSITIONS = 20_000;

const defaultClock = (): number => globalThis.performance.now();

/** Counts work and fails fast when a translation goes over its budget. */
export class Budget {
  private readonly maxStates: number;
  private readonly maxTransitions: number;
  private readonly limitMs: number;
  private readonly clock: () => number;
  private readonly start: number;
  private ticks = 0;

  constructor(private readonly opts: BudgetOptions = {}) {
    this.maxStates = opts.maxStates ?? DEFAULT_MAX_STATES;
    this.maxTransitions = opts.maxTransitions ?? DEFAULT_MAX_TRANSITIONS;
    this.limitMs = opts.timeLimit_ms ?? DEFAULT_TIME_LIMIT_MS;
    this.clock = opts.clock ?? defaultClock;
    this.start = this.clock();
  }

  /** Call in inner loops; looks at the clock every 256 calls. */
  tick(stage: string): void {
    if ((++this.ticks & 255) === 0) this.checkTime(stage);
  }

  checkTime(stage: string): void {
    if (this.opts.signal?.aborted) {
      throw new LtlBudgetError('cancelled', 0, `translation cancelled during ${stage}`);
    }
    const spent = this.clock() - this.start;
    if (spent > this.limitMs) {
      throw new LtlBudgetError('time', this.limitMs,
        `translation exceeded its time budget of ${this.limitMs} ms during ${stage}`);
    }
  }

  states(count: number, stage: string): void {
    if (count > this.maxStates) {
      throw new LtlBudgetError('states', this.maxStates,
        `translation exceeded its state budget of ${this.maxStates} states during ${stage}`);
    }
  }

  transitions(count: number, stage: string): void {
    if (count > this.maxTransitions) {
      throw new LtlBudgetError('transitions', this.maxTransitions,
        `translation exceeded its budget of ${this.maxTransitions} transitions from one state during ${stage}`);
    }
  }

  elapsed_ms(): number {
    return this.clock() - this.start;
  }
}
