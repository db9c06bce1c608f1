/**
 * Escalations and the operator's answer to them. Past the replan budget, or when the same failure
 * repeats (a replan loop), the loop stops and asks: an injected `decide` hook — the CLI's flag or
 * terminal prompt, the console's escalation dialog — answers abort, retry or skip. The shapes are
 * the contract's (contract/failure.ts), shared with missions.
 */
import { DECISIONS, type DecisionKind } from '../../contract/defaults.js';
import type { Decide, Escalation, OperatorDecision } from '../../contract/failure.js';
import type { AuditEventBody } from '../../contract/audit-events.js';

/** A decision as the loop records it: what it answered and when. */
export interface DecisionRecord extends OperatorDecision {
  readonly escalation: number;
  readonly t_s: number;
}

function isDecision(x: string): x is DecisionKind {
  return (DECISIONS as readonly string[]).includes(x);
}

/**
 * Asks, and never lets a broken or malformed answer move the robot: a hook that throws or answers
 * something other than one of the escalation's options counts as abort, with the reason saying why.
 */
export async function askOperator(decide: Decide, e: Escalation): Promise<OperatorDecision> {
  let d: unknown;
  try {
    d = await decide(e);
  } catch (err) {
    return {
      decision: 'abort',
      reason: `the decision hook failed (${err instanceof Error ? err.message : String(err)}); aborting`,
    };
  }
  const o = (d ?? {}) as Partial<Record<keyof OperatorDecision, unknown>>;
  if (typeof o.decision !== 'string' || !isDecision(o.decision) || !e.options.includes(o.decision)) {
    return {
      decision: 'abort',
      reason: `the decision hook answered ${JSON.stringify(o.decision)}, not one of ${e.options.join(', ')}; aborting`,
    };
  }
  return {
    decision: o.decision,
    reason: typeof o.reason === 'string' && o.reason.trim() !== '' ? o.reason : '(no reason given)',
    ...(typeof o.operator === 'string' && o.operator !== '' ? { operator: o.operator } : {}),
  };
}

/**
 * The `escalation` audit body: the escalation without the repeated last failure (the trace holds it).
 * Key order is part of the record (the audit chain hashes bodies): keep it.
 */
export function escalationEvent(
  e: Pick<Escalation, 'n' | 'cause' | 'reason' | 'failures' | 'replans' | 'budget'>,
): AuditEventBody<'escalation'> {
  return { n: e.n, cause: e.cause, reason: e.reason, failures: [...e.failures], replans: e.replans, budget: e.budget };
}

/**
 * The `operator_decision` audit body: the answer, and a summary of the escalation it answers (a tool
 * failure's summary also names the tool and the subtask). Key order is part of the record: keep it.
 */
export function decisionEvent(
  d: OperatorDecision,
  e: Pick<Escalation, 'n' | 'cause' | 'reason' | 'failure'>,
): AuditEventBody<'operator_decision'> {
  const f = e.failure;
  return {
    decision: d.decision,
    reason: d.reason,
    operator: d.operator ?? null,
    escalation:
      f.source === 'tool'
        ? {
            n: e.n,
            cause: e.cause,
            reason: e.reason,
            tool: f.tool,
            violated: f.violated,
            label: f.label,
            subtask: f.subtask,
          }
        : { n: e.n, cause: e.cause, reason: e.reason, label: f.label, violated: f.violated },
  };
}
