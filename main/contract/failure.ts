/**
 * Failure records and escalations: one shape for the tool loop and for missions. A failure record is
 * what went wrong, judged on sensor evidence (a violated postcondition of a tool call, or a monitor
 * or tracking failure of a mission's transition), with its class and the rule that decided it; an
 * escalation is the question put to the operator past the replanning budget (or in a replan loop),
 * and the operator's decision is the answer. The audit log, the CLI, the console and the replanners
 * all read these types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { DECISIONS } from './defaults.js';
import { StringEnum } from './schema.js';

/** Whether a failure is worth trying again. */
export const FAILURE_CLASSES = ['transient', 'permanent'] as const;
/** The two parts of a lasso plan a mission realises. */
export const Stream = StringEnum(['prefix', 'suffix']);

const FailureClass = StringEnum(FAILURE_CLASSES, {
  description: 'transient: trying again (or replanning) may succeed; permanent: the same attempt will fail again',
});
type FailureClass = Static<typeof FailureClass>;

const common = {
  /** Machine-readable label (a tool's failure rule label, or the mission failure kind). */
  label: Type.String({ minLength: 1, description: 'machine-readable failure label' }),
  class: FailureClass,
  violated: Type.String({ description: 'the violated condition, literal or checkpoint, by name' }),
};

/** A tool call whose precondition, postcondition, timeout or skill failed, with the evidence. */
export const ToolFailureRecord = Type.Object({
  source: Type.Literal('tool'),
  ...common,
  tool: Type.String(),
  args: Type.Unknown(),
  /** The condition's CEL expression and the observed values it read. */
  expr: Type.String(),
  observed: Type.Record(Type.String(), Type.Unknown()),
  t_s: Type.Number({ description: 'seconds since the loop started' }),
  stage: StringEnum(['precondition', 'postcondition', 'timeout', 'world-error', 'rule']),
  /** stage rule: the rules-file rule the call would break (refused before it) or broke (seen after it). */
  rule: Type.Optional(
    Type.Object({
      name: Type.String(),
      ltl: Type.String({ description: 'the rule as written' }),
      proposition: Type.String({ description: 'the proposition that decides it' }),
      phase: StringEnum(['predicted', 'observed'], {
        description: 'predicted: refused before the call; observed: the evidence after it broke the rule',
      }),
    }),
  ),
  error: Type.Optional(
    Type.String({ description: 'why the condition could not be evaluated; absent when it evaluated to false' }),
  ),
  /**
   * The world's error when the skill failed (stage timeout or world-error): what failure rules read as error.kind,
   * error.message.
   */
  world_error: Type.Optional(
    Type.Object({
      kind: Type.String({
        description:
          'the WorldError kind: timeout, cancelled, failed, invalid-input, closed, not-found (e.g. no action server), rejected, aborted, disconnected',
      }),
      message: Type.String(),
    }),
  ),
  /** Why, in words, from the failure rule that classified it (absent when the rule gives none or no rule matched). */
  reason: Type.Optional(Type.String({ description: "the matching failure rule's reason" })),
  subtask: Type.Integer({ minimum: 0, description: 'index of the subtask (steps passed or skipped so far)' }),
  state: Type.Record(Type.String(), Type.Unknown(), { description: 'the observed state the verdict was made on' }),
});
export type ToolFailureRecord = Static<typeof ToolFailureRecord>;

/**
 * forbidden-label, tracking-timeout, missed-anchor: the learned executor's (and the waypoint
 * driver's) failures; goal-aborted: the robot's navigation stack aborted or refused a waypoint goal;
 * goal-missed: the robot reports a waypoint reached but the labels the plan needs there are not observed;
 * overturned: a legged body fell and cannot go on (Table G.1's locomotion failure; never replanned);
 * safety: the robot's planner would drive through a region the specification forbids (the goal is
 * not sent; replanned), or the robot was found inside one (it is stopped; the run ends).
 */
export const MissionFailureKind = StringEnum([
  'forbidden-label',
  'tracking-timeout',
  'missed-anchor',
  'goal-aborted',
  'goal-missed',
  'overturned',
  'safety',
]);
export type MissionFailureKind = Static<typeof MissionFailureKind>;

/** What the task's graph edit after a mission failure is. */
const FailureAction = StringEnum(['penalize-edge', 'remove-edge', 'remove-anchor', 'none']);
type FailureAction = Static<typeof FailureAction>;

/** A planned transition of a mission that the executor or the runtime monitor saw fail. */
export const MissionFailureRecord = Type.Object({
  source: Type.Literal('mission'),
  ...common,
  /** The same value as `label` (kept under its first name for readers of older logs). */
  kind: MissionFailureKind,
  t: Type.Integer({ minimum: 0, description: 'environment step' }),
  stream: Stream,
  /** Index of the failed transition in its stream, and the edge it was realising. */
  index: Type.Integer(),
  from: Type.String(),
  to: Type.String(),
  term: Type.String({ description: 'the guard term of the transition' }),
  labels: Type.Array(Type.String(), { description: 'the labels observed at the failure' }),
  latent: Type.Array(Type.Number(), { description: 'ψ of the state at the failure' }),
  rule: Type.String({ description: 'the rule that classified it, in words' }),
  action: FailureAction,
  unrecoverable: Type.Boolean({
    description: 'a committed violation: no accepting continuation remains; never replanned',
  }),
  /**
   * tracking-timeout: how far the body's position moved (task space, m) over the last H_low steps,
   * and whether that is a stall (less than the waypoint reach radius: it stood, walked on the spot
   * or pushed against a wall) rather than a drift (it moved, but not to the waypoint). Table G.1's
   * locomotion stalls; absent in older logs and for robots driving to goals.
   */
  moved_m: Type.Optional(Type.Number({ minimum: 0 })),
  stalled: Type.Optional(Type.Boolean()),
  /** safety: the place (map frame, m) where the path or the robot entered the forbidden region `violated` names. */
  at: Type.Optional(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })),
});
export type MissionFailureRecord = Static<typeof MissionFailureRecord>;

export const FailureRecord = Type.Union([ToolFailureRecord, MissionFailureRecord]);
export type FailureRecord = ToolFailureRecord | MissionFailureRecord;

const DecisionKind = StringEnum(DECISIONS);

/**
 * Why a run stopped to ask: past the replanning budget; the same failure twice in a row (a replan
 * loop); a permanent failure the planner has no other way past (asked at once, the budget unspent);
 * a replan that found no plan; the planner gave up; it kept proposing invalid calls; the loop's
 * step limit.
 */
export const EscalationCause = StringEnum([
  'replan-budget',
  'replan-loop',
  'permanent-failure',
  'no-plan',
  'gave-up',
  'invalid-proposals',
  'step-limit',
  'rule-violation',
]);
export type EscalationCause = Static<typeof EscalationCause>;

/** The question put to the operator: why, the failure that escalated, the trace, what may be answered. */
export const Escalation = Type.Object({
  /** 1-based, per run: the decision that answers it names it. */
  n: Type.Integer({ minimum: 1 }),
  cause: EscalationCause,
  reason: Type.String(),
  failure: FailureRecord,
  failures: Type.Array(FailureRecord, { description: 'every failure record of the run so far, oldest first' }),
  replans: Type.Integer({ minimum: 0 }),
  budget: Type.Integer({ minimum: 0 }),
  /** What the operator may decide (a mission has no subtask to skip). */
  options: Type.Array(DecisionKind),
  /** The mission's environment step, when a mission escalated. */
  step: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type Escalation = Omit<Static<typeof Escalation>, 'failure' | 'failures' | 'options'> & {
  readonly failure: FailureRecord;
  readonly failures: readonly FailureRecord[];
  readonly options: readonly (typeof DECISIONS)[number][];
};

export const OperatorDecision = Type.Object({
  /** abort: end the run; retry: one more replan budget round; skip: abandon the subtask, go on. */
  decision: DecisionKind,
  reason: Type.String(),
  operator: Type.Optional(Type.String()),
});
export type OperatorDecision = Static<typeof OperatorDecision>;

/** Whoever answers escalations: the CLI's flags or terminal, the console's dialog. */
export type Decide = (e: Escalation) => Promise<OperatorDecision>;
