/**
 * What a mission does after a recoverable failure, the same for the learned executor and for
 * waypoints through a robot's navigation: replan while the budget R lasts; past it, with an operator
 * there (a replanning run), ask — retry grants another R — and otherwise end, escalated (or, without
 * replanning, in the failure's stage).
 */
import type { Escalation, MissionFailureRecord } from '../../contract/failure.js';
import { askOperator, decisionEvent, escalationEvent } from '../loop/escalation.js';
import type { FailureMode, MissionAudit, MissionControl } from './run-skeleton.js';

export type BudgetVerdict =
  | { readonly kind: 'replan'; readonly budget: number }
  | {
      readonly kind: 'end';
      readonly failureMode: FailureMode;
      readonly message: string;
      readonly escalation?: Escalation;
      /** The escalation is in the audit log already. */ readonly recorded: boolean;
    };

export interface BudgetContext {
  /** The run replans after a failure (sagas-replan, or the console's runs with any planner). */
  readonly replanning: boolean;
  /** R, as asked. */
  readonly R: number;
  /** Replans so far, and the budget now (R plus the operator's grants). */
  readonly replans: number;
  readonly budget: number;
  readonly failures: readonly MissionFailureRecord[];
  readonly record: MissionFailureRecord;
  /** Where the mission ends without replanning. */
  readonly stage: FailureMode;
  readonly t: number;
  readonly control?: MissionControl;
  readonly audit?: MissionAudit;
  readonly escalation: (cause: Escalation['cause'], reason: string, t: number, budget: number) => Escalation;
}

export async function afterFailure(c: BudgetContext): Promise<BudgetVerdict> {
  let budget = c.budget;
  if (c.replans >= budget && c.control !== undefined && c.replanning) {
    // An operator is there: the escalation goes to them, and the mission waits for the answer.
    const message = `replanning budget R = ${budget} exhausted at ${c.record.kind} on ${c.record.to}; escalating with ${c.failures.length} failure record(s)`;
    const esc = c.escalation('replan-budget', message, c.t, budget);
    c.audit?.event('escalation', escalationEvent(esc), { step: c.t });
    const d = await askOperator(c.control.decide, esc);
    c.audit?.event('operator_decision', decisionEvent(d, esc), { step: c.t });
    // An operator's stop (stop, E-STOP) while the mission waited is a stop, not a failure.
    if (d.decision !== 'retry' && c.control.signal?.aborted === true)
      return {
        kind: 'end',
        failureMode: 'stopped',
        message: `${d.reason}, while the mission waited for a decision (${message})`,
        recorded: true,
      };
    if (d.decision !== 'retry')
      return {
        kind: 'end',
        failureMode: 'escalated',
        message: `${message}; the operator aborted: ${d.reason}`,
        recorded: true,
      };
    budget += Math.max(1, c.R);
  }
  if (c.replans >= budget) {
    if (budget === 0)
      return {
        kind: 'end',
        failureMode: c.stage,
        message: `${c.record.kind} at ${c.record.to}: ${c.record.rule}`,
        recorded: false,
      };
    const message = `replanning budget R = ${budget} exhausted; escalating with ${c.failures.length} failure record(s)`;
    return {
      kind: 'end',
      failureMode: 'escalated',
      message,
      escalation: c.escalation('replan-budget', message, c.t, budget),
      recorded: false,
    };
  }
  return { kind: 'replan', budget };
}
