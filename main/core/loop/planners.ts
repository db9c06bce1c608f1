/**
 * Planners behind the loop's one interface. The scripted planner follows a JSON plan and retries a
 * failed step as it was; the recovery planner follows the same plan but uses the failure records:
 * a missed grasp lowers the approach height (the seed's step-through), and a plan step may name
 * alternatives per failure label (a weight-limit fault → a two-step alternative). Only the recovery
 * planner has another way past a permanent failure (`handles`), and only where it changes the step.
 */
import { InputError, checkSchema } from '../input/json.js';
import type { FailureRecord, History, Planner, Proposal, ToolCall } from './loop.js';

export interface PlanStep extends ToolCall {
  /** Replacement steps per failure label. */
  readonly on?: Readonly<Record<string, readonly ToolCall[]>>;
}

const SCRIPT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Witness scripted plan',
  type: 'object',
  required: ['steps'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    goal: { type: 'string' },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['tool', 'args'],
        additionalProperties: false,
        properties: {
          tool: { type: 'string' },
          args: { type: 'object' },
          on: {
            type: 'object',
            additionalProperties: {
              type: 'array',
              items: {
                type: 'object',
                required: ['tool', 'args'],
                properties: { tool: { type: 'string' }, args: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  },
} as const;

export function parseScript(value: unknown, file: string): readonly PlanStep[] {
  const s = checkSchema<{ steps: PlanStep[] }>(SCRIPT_SCHEMA, value, file);
  if (s.steps.length === 0) throw new InputError(file, '$.steps', 'a plan needs at least one step');
  return s.steps;
}

/** A call the rules refused before it ran: the planners skip it (nothing else would make the rules allow it). */
const refusedByRule = (r: FailureRecord): boolean => r.stage === 'rule' && r.rule?.phase === 'predicted';

/** Plan steps behind us: passed, abandoned by the operator (skip), or refused by the rules. */
function stepsDone(h: History): number {
  return h.entries.filter(
    (e) =>
      e.kind === 'pass' ||
      (e.kind === 'operator' && e.decision.decision === 'skip') ||
      (e.kind === 'failure' && refusedByRule(e.record)),
  ).length;
}

function lastEntry(h: History): History['entries'][number] | undefined {
  return h.entries[h.entries.length - 1];
}

/**
 * Follows the plan; a failed or invalid step is proposed again unchanged (no recovery knowledge); a skipped one, or one
 * the rules refused, is dropped.
 */
export class ScriptedPlanner implements Planner {
  constructor(private readonly steps: readonly PlanStep[]) {}
  next(h: History): Promise<Proposal> {
    const i = stepsDone(h);
    const s = this.steps[i];
    return Promise.resolve(s === undefined ? { kind: 'done' } : { kind: 'call', call: { tool: s.tool, args: s.args } });
  }
}

/** Approach-height change after a missed grasp (the seed: lower by 2 cm). */
const GRASP_RETRY_DZ_M = -0.02;

/**
 * Follows the plan and recovers from the failure records: the plan's alternative for the failure
 * label if it has one (spliced in place of the step), a lower approach after a missed grasp, and
 * otherwise the step again. After an escalation, the operator's retry recovers from the failure that
 * escalated; a skip drops the current step.
 */
export class RecoveryPlanner implements Planner {
  private queue: PlanStep[];
  private readonly done: number[] = [];

  constructor(steps: readonly PlanStep[]) {
    this.queue = [...steps];
  }

  next(h: History): Promise<Proposal> {
    const last = lastEntry(h);
    if (last?.kind === 'pass') {
      this.queue.shift();
      this.done.push(h.entries.length);
    }
    if (last?.kind === 'failure') this.recover(last.record);
    if (last?.kind === 'operator') {
      const failed = h.entries[h.entries.length - 2];
      if (last.decision.decision === 'skip') this.queue.shift();
      else if (last.decision.decision === 'retry' && failed?.kind === 'failure') this.recover(failed.record);
    }
    const s = this.queue[0];
    return Promise.resolve(s === undefined ? { kind: 'done' } : { kind: 'call', call: { tool: s.tool, args: s.args } });
  }

  /** A permanent failure is replanned only when this planner changes the step for it (an alternative, a split load). */
  handles(r: FailureRecord): boolean {
    return this.queue[0] !== undefined && recovery(this.queue, r) !== null;
  }

  private recover(r: FailureRecord): void {
    this.queue = recovery(this.queue, r) ?? this.queue;
  }
}

/**
 * The queue after a failure of its first step, or null when the planner knows nothing better than
 * the step again: the plan's alternative for the failure label (spliced in place of the step); after
 * a weight-limit fault, whatever rests on the target taken off first (onto the tray); after a missed
 * grasp, the approach 2 cm lower; after grasping the wrong object, that object put down on the tray first; after a
 * refusal by the rules (without an alternative for it), the step dropped.
 */
function recovery(queue: readonly PlanStep[], r: FailureRecord): PlanStep[] | null {
  const s = queue[0];
  if (s === undefined) return null;
  const alt = s.on?.[r.label];
  if (alt !== undefined) return [...alt.map((c) => ({ tool: c.tool, args: c.args })), ...queue.slice(1)];
  // A step the rules refused, with no alternative for it, is skipped.
  if (refusedByRule(r)) return [...queue.slice(1)];
  if (r.label === 'weight-limit' && typeof s.args === 'object' && s.args !== null) {
    // Split the load: whatever rests on the target comes off first (onto the tray), then the target.
    const target = (s.args as Record<string, unknown>)['target'];
    const objects = (r.state['objects'] ?? {}) as Record<string, { on?: string }>;
    const load = Object.keys(objects).find((name) => objects[name]?.on === target);
    if (load !== undefined) {
      return [
        { tool: 'pick', args: { target: load, approach_dz: GRASP_RETRY_DZ_M } },
        { tool: 'place', args: { target: 'tray' } },
        s,
        ...queue.slice(1),
      ];
    }
  }
  if (r.label === 'wrong-object') {
    // Another object is in the hand: put it down on the tray (as a split load goes), then the step again.
    const held = ((r.state['gripper'] ?? {}) as { holding?: unknown }).holding;
    if (typeof held === 'string' && held !== '')
      return [{ tool: 'place', args: { target: 'tray' } }, s, ...queue.slice(1)];
  }
  if (r.label === 'grasp-missed' && typeof s.args === 'object' && s.args !== null) {
    const a = s.args as Record<string, unknown>;
    const dz = typeof a['approach_dz'] === 'number' ? a['approach_dz'] : 0;
    return [{ ...s, args: { ...a, approach_dz: Math.round((dz + GRASP_RETRY_DZ_M) * 1e6) / 1e6 } }, ...queue.slice(1)];
  }
  return null;
}
