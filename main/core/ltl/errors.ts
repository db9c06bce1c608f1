import { WitnessError } from '../../contract/errors.js';

/** A position in the source text, 1-based as editors show it. */
export interface SourcePos {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** A malformed formula. `message` reads `line:column: detail`. */
export class LtlSyntaxError extends WitnessError {
  override readonly name = 'LtlSyntaxError';
  constructor(
    readonly pos: SourcePos,
    readonly detail: string,
  ) {
    super('invalid-spec', `${pos.line}:${pos.column}: ${detail}`, { line: pos.line, column: pos.column });
  }
  get line(): number {
    return this.pos.line;
  }
  get column(): number {
    return this.pos.column;
  }
}

export type BudgetKind = 'length' | 'depth' | 'nodes' | 'states' | 'transitions' | 'time' | 'cancelled';

/** A formula or translation that exceeds a configured budget. Raised early, never after a long wait. */
export class LtlBudgetError extends WitnessError {
  override readonly name = 'LtlBudgetError';
  constructor(
    readonly budget: BudgetKind,
    readonly limit: number,
    detail: string,
  ) {
    super('budget', detail);
  }
}
