/**
 * Escalations and the operator's answer to them. Past the replan budget, or when the same failure
 * repeats (a replan loop), the loop stops and asks: an injected `decide` hook — the CLI's flag or
 * terminal prompt today, the UI's escalation dialog later — answers abort, retry or skip. These
 * types are the whole contract between the loop and whoever answers.
 */
import type { FailureRecord } from './loop.js';

export const DECISIONS = ['abort', 'retry', 'skip'] as const;
export type DecisionKind = (typeof DECISIONS)[number];

export interface Escalation {
  /** 1-based, per run: the decision that answers it names it. */
  readonly n: number;
  readonly cause: 'replan-budget' | 'replan-loop';
  readonly reason: string;
  /** The failure that escalated, and every failure record of the run so far (the trace). */
  readonly failure: FailureRecord;
  readonly failures: readonly FailureRecord[];
  readonly replans: number;
  readonly budget: number;
}

export interface OperatorDecision {
  /** abort: end the run (escalated, aborted); retry: one more replan budget round; skip: abandon the subtask, go on. */
  readonly decision: DecisionKind;
  readonly reason: string;
  readonly operator?: string;
}

export type Decide = (e: Escalation) => Promise<OperatorDecision>;

/** A decision as the loop records it: what it answered and when. */
export interface DecisionRecord extends OperatorDecision {
  readonly escalation: number;
  readonly t_s: number;
}

export function isDecision(x: string): x is DecisionKind {
  return (DECISIONS as readonly string[]).includes(x);
}

/**
 * Asks, and never lets a broken or malformed answer move the robot: a hook that throws or answers
 * something other than abort/retry/skip counts as abort, with the reason saying why.
 */
export async function askOperator(decide: Decide, e: Escalation): Promise<OperatorDecision> {
  let d: unknown;
  try {
    d = await decide(e);
  } catch (err) {
    return { decision: 'abort', reason: `the decision hook failed (${err instanceof Error ? err.message : String(err)}); aborting` };
  }
  const o = (d ?? {}) as Partial<Record<keyof OperatorDecision, unknown>>;
  if (typeof o.decision !== 'string' || !isDecision(o.decision)) {
    return { decision: 'abort', reason: `the decision hook answered ${JSON.stringify(o.decision)}, not one of ${DECISIONS.join(', ')}; aborting` };
  }
  return {
    decision: o.decision,
    reason: typeof o.reason === 'string' && o.reason.trim() !== '' ? o.reason : '(no reason given)',
    ...(typeof o.operator === 'string' && o.operator !== '' ? { operator: o.operator } : {}),
  };
}
