/** The E-STOP reset dialog's rule, without a DOM (estop.ts draws it). */
import { reasonProblem } from '../../main/contract/reason.js';

/**
 * Whether the reset dialog lets the operator reset: the acknowledgement ticked and a reason the API would accept
 * (contract/reason.ts); the problem with the reason is said once something is typed (an empty box needs no telling).
 */
export function resetCheck(acknowledged: boolean, reason: string): { allowed: boolean; message: string } {
  const problem = reasonProblem(reason.trim());
  return {
    allowed: acknowledged && problem === null,
    message: problem !== null && reason !== '' ? `The reason ${problem}.` : '',
  };
}
