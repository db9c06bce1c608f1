import { LtlBudgetError } from './errors.js';

export interface BudgetOptions {
  /** Most states any stage (alternating, generalized, Büchi) may create. */
  readonly maxStates?: number;
  /** Most transitions one state may have before simplification (default 20 000). */
  readonly maxTransitions?: number;
  /** Most transitions one automaton (alternating, generalized, Büchi) may hold in all (default 1 000 000). */
  readonly maxEdges?: number;
  /** Most nodes of the formula in negation normal form, shared subformulas counted once (default 100 000). */
  readonly maxFormulaNodes?: number;
  /** Wall-clock budget for one translation, in milliseconds. */
  readonly timeLimit_ms?: number;
  /** Milliseconds from an arbitrary origin; injected so the core stays pure. */
  readonly clock?: () => number;
  /** Set `aborted` to stop a running translation (an AbortSignal works). */
  readonly signal?: { readonly aborted: boolean };
}

const DEFAULT_MAX_STATES = 20_000;
export const DEFAULT_TIME_LIMIT_MS = 10_000;
const DEFAULT_MAX_TRANSITIONS = 20_000;
/** F-12 (4096 generalized states, 535 537 edges) fits; what does not would not fit in memory either. */
const DEFAULT_MAX_EDGES = 1_000_000;
const DEFAULT_MAX_FORMULA_NODES = 100_000;

const defaultClock = (): number => globalThis.performance.now();

/** Counts work and fails fast when a translation goes over its budget. */
export class Budget {
  private readonly maxStates: number;
  private readonly maxTransitions: number;
  private readonly maxEdges: number;
  private readonly maxNodes: number;
  private readonly limitMs: number;
  private readonly clock: () => number;
  private readonly start: number;
  private ticks = 0;
  private nextCheck = 256;
  private readonly skips = { alternatives: 0, proofs: 0 };

  constructor(private readonly opts: BudgetOptions = {}) {
    this.maxStates = opts.maxStates ?? DEFAULT_MAX_STATES;
    this.maxTransitions = opts.maxTransitions ?? DEFAULT_MAX_TRANSITIONS;
    this.maxEdges = opts.maxEdges ?? DEFAULT_MAX_EDGES;
    // NodeFactory numbers node pairs as id · 2^22 + id
    this.maxNodes = Math.min(opts.maxFormulaNodes ?? DEFAULT_MAX_FORMULA_NODES, 4_000_000);
    this.limitMs = opts.timeLimit_ms ?? DEFAULT_TIME_LIMIT_MS;
    this.clock = opts.clock ?? defaultClock;
    this.start = this.clock();
  }

  /**
   * Call in inner loops, with the work done since the last call (in small steps; default one);
   * looks at the clock every 256 steps.
   */
  tick(stage: string, work = 1): void {
    if ((this.ticks += work) >= this.nextCheck) {
      this.nextCheck = this.ticks + 256;
      this.checkTime(stage);
    }
  }

  checkTime(stage: string): void {
    if (this.opts.signal?.aborted) {
      throw new LtlBudgetError('cancelled', 0, `translation cancelled during ${stage}`);
    }
    const spent = this.clock() - this.start;
    if (spent > this.limitMs) {
      throw new LtlBudgetError(
        'time',
        this.limitMs,
        `translation exceeded its time budget of ${this.limitMs} ms during ${stage}`,
      );
    }
  }

  states(count: number, stage: string): void {
    if (count > this.maxStates) {
      throw new LtlBudgetError(
        'states',
        this.maxStates,
        `translation exceeded its state budget of ${this.maxStates} states during ${stage}`,
      );
    }
  }

  transitions(count: number, stage: string): void {
    if (count > this.maxTransitions) {
      throw new LtlBudgetError(
        'transitions',
        this.maxTransitions,
        `translation exceeded its budget of ${this.maxTransitions} transitions from one state during ${stage}`,
      );
    }
  }

  /** Transitions one automaton holds in all, checked as they are made. */
  edges(count: number, stage: string): void {
    if (count > this.maxEdges) {
      throw new LtlBudgetError(
        'transitions',
        this.maxEdges,
        `translation exceeded its budget of ${this.maxEdges} transitions in all during ${stage}`,
      );
    }
  }

  /** Nodes of the formula in negation normal form, checked as they are made. */
  nodes(count: number, stage: string): void {
    if (count > this.maxNodes) {
      throw new LtlBudgetError(
        'nodes',
        this.maxNodes,
        `translation exceeded its budget of ${this.maxNodes} formula nodes during ${stage}`,
      );
    }
  }

  elapsed_ms(): number {
    return this.clock() - this.start;
  }

  /** Attempts skipped so far for running past a size budget (see unlessPastSize and proofSkipped). */
  get skipped(): { readonly alternatives: number; readonly proofs: number } {
    return { ...this.skips };
  }

  /** Counts a proof skipped past a size budget of its own (translate.ts gives each proof one). */
  proofSkipped(): void {
    this.skips.proofs++;
  }

  /**
   * `attempt()`, or null when it ran past a size budget (states, transitions, formula nodes): for
   * work that only decides whether to take a smaller automaton (an alternative, a proof), which is
   * then not taken, so a translation fails on size only when the automaton it returns would. Out of
   * time or cancelled, the whole translation is: those errors pass. The size limits bound each
   * automaton and formula as it is built and add nothing up across them, so a skipped attempt
   * leaves nothing to roll back; its time counts, since the deadline is the translation's.
   */
  unlessPastSize<T>(attempt: () => T): T | null {
    try {
      return attempt();
    } catch (e) {
      if (!(e instanceof LtlBudgetError) || e.budget === 'time' || e.budget === 'cancelled') throw e;
      this.skips.alternatives++;
      return null;
    }
  }
}
