/**
 * The audit event catalogue: every kind of event the audit log holds and the shape of its body, as
 * JSON Schema with the TypeScript type derived from it. Writers are typed by it (a body that does not
 * fit does not compile), the log refuses kinds it does not list, the tests validate what missions and
 * tool loops record against it, and the MCAP export publishes these schemas with its channels.
 *
 * Version 2 unified the tool loop's and the missions' failure records, escalations and operator
 * decisions (one shape each, contract/failure.ts). Version-1 logs remain readable: every field
 * version 2 added is optional for readers, and readers fall back to the version-1 names
 * (an escalation's `message`, a mission failure's `kind`).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DECISIONS } from './defaults.js';
import { EscalationCause, FailureRecord, Stream } from './failure.js';
import { StringEnum } from './schema.js';

export const AUDIT_EVENTS_VERSION = 2;

const Json = Type.Unknown();

const RunStart = Type.Object({
  world: Type.String(),
  backend: Type.String(),
  operator: Type.String(),
  software: Type.String(),
  models: Type.Record(Type.String(), Type.String()),
  spec_sha: Type.Union([Type.String(), Type.Null()]),
  regions_sha: Type.Union([Type.String(), Type.Null()]),
  meta: Type.Record(Type.String(), Json),
  /** The catalogue version the run's events follow (absent: version 1). */
  events: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The tool loop's tools: name → the SHA-256 of its argument schema in the blobs table. */
  tool_schemas: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** A map world's occupancy grid: the SHA-256 of its blob (kind `map`, services/audit/map-blob.ts). */
  map_sha: Type.Optional(Type.String()),
});

/** A mission's end (SR, NCC, failure mode) or a tool loop's (outcome, tool calls). */
const RunEnd = Type.Object({
  outcome: Type.String({ description: 'success, failed, escalated, goal-not-met, stopped, safety, …' }),
  failureMode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  steps: Type.Optional(Type.Integer({ minimum: 0 })),
  T_pre: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  T_suf: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  ncc: Type.Optional(Type.Number()),
  toolCalls: Type.Optional(Type.Integer({ minimum: 0 })),
  replans: Type.Integer({ minimum: 0 }),
});

const ToolCall = Type.Object({
  tool: Type.String(),
  arguments: Json,
  start_s: Type.Number(),
  end_s: Type.Number(),
  timeout_s: Type.Number(),
  response: Json,
});

const VerifierResult = Type.Object({
  tool: Type.String(),
  postcondition: Type.String(),
  expr: Type.String(),
  pass: Type.Boolean(),
  observed: Type.Record(Type.String(), Json),
  error: Type.Optional(Type.String()),
});

/** A replan: the tool loop's (another budget round) or a mission's (from the monitor's states). */
const Replan = Type.Object({
  trigger: Type.String({ description: 'the failure label that caused it' }),
  replan: Type.Integer({ minimum: 1 }),
  budget: Type.Optional(Type.Integer({ minimum: 0 })),
  granted_by: Type.Optional(Type.Literal('operator')),
  failure: Type.Optional(Type.Integer({ minimum: 0, description: 'index of the failure record in the run' })),
  from_states: Type.Optional(Type.Array(Type.Integer())),
  prefix_nodes: Type.Optional(Type.Integer()),
});

const MonitorEvent = Type.Object({
  states: Type.Array(Type.Integer()),
  viable: Type.Boolean(),
  accepting: Type.Boolean(),
  labels: Type.Array(Type.String()),
});

/** The escalation as recorded: the contract's Escalation without the repeated last failure. */
const EscalationBody = Type.Object({
  n: Type.Integer({ minimum: 1 }),
  cause: EscalationCause,
  reason: Type.String(),
  failures: Type.Array(FailureRecord),
  replans: Type.Optional(Type.Integer({ minimum: 0 })),
  budget: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * The operator's answer to an escalation, an operator's stop or emergency stop of a mission, or the
 * reset of a latched emergency stop (recorded in the latch's own run).
 */
const OperatorDecisionBody = Type.Object({
  decision: StringEnum([...DECISIONS, 'stop', 'estop', 'estop-reset']),
  reason: Type.String(),
  operator: Type.Union([Type.String(), Type.Null()]),
  escalation: Type.Optional(
    Type.Object({
      n: Type.Integer({ minimum: 1 }),
      cause: EscalationCause,
      reason: Type.String(),
      label: Type.String(),
      violated: Type.String(),
      tool: Type.Optional(Type.String()),
      subtask: Type.Optional(Type.Integer()),
    }),
  ),
});

/** The seed's evidence row: instruction, world-state estimate, action, verifier result, failure label. */
const Evidence = Type.Object({
  instruction: Json,
  state: Type.Optional(Json),
  action: Type.Optional(Type.String()),
  verifier: Type.String(),
  result: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.String())),
  failure_label: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

const PlanBody = Type.Object({
  t: Type.Integer({ minimum: 0 }),
  trigger: Type.String({ description: 'initial or replan' }),
  plan_sha: Type.String({ description: 'the plan document (docs/FORMATS.md) in the blobs table' }),
  status: Type.String(),
  method: Type.String(),
  cost: Type.Union([
    Type.Object({ prefix: Type.Number(), suffix: Type.Number(), objective: Type.Number() }),
    Type.Null(),
  ]),
  planning_ms: Type.Number(),
});

/** An executor event of a mission (core/exec/executor.ts ExecEvent). */
const Checkpoint = Type.Object({
  kind: StringEnum(['waypoint', 'checkpoint', 'prefix-done', 'suffix-traversal', 'violation', 'timeout', 'recovery']),
  t: Type.Integer({ minimum: 0 }),
  stream: Type.Optional(Stream),
  index: Type.Optional(Type.Integer()),
  node: Type.Optional(Type.String()),
  skipped: Type.Optional(Type.Integer()),
  labels: Type.Optional(Type.Array(Type.String())),
  count: Type.Optional(Type.Integer()),
  literal: Type.Optional(Type.String()),
  term: Type.Optional(Type.String()),
  checkpoint: Type.Optional(Type.Boolean()),
  distance: Type.Optional(Type.Number()),
  /** recovery: how far the body moved over the stall window, and the point of its own path it walks back to. */
  moved_m: Type.Optional(Type.Number()),
  to: Type.Optional(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })),
});

/**
 * A verdict of the tool loop's rules (a rules file) on one call: `predicted` before it (on the call and its tool's
 * declared effect; a refusal when not ok), `observed` after it (on the sensor evidence; a violation when not ok).
 */
const RuleVerdictBody = Type.Object({
  phase: StringEnum(['predicted', 'observed']),
  ok: Type.Boolean(),
  tool: Type.String(),
  arguments: Json,
  letter: Type.Array(Type.String(), { description: 'the propositions that hold on the letter judged' }),
  open: Type.Array(Type.String(), { description: "propositions the tool's declaration leaves open, tried both ways" }),
  rule: Type.Optional(Type.String()),
  ltl: Type.Optional(Type.String()),
  proposition: Type.Optional(Type.String()),
  broken: Type.Array(Type.String()),
  observed: Type.Record(Type.String(), Json),
  errors: Type.Array(Type.Object({ proposition: Type.String(), error: Type.String() })),
  rules: Type.Array(Type.Object({ name: Type.String(), states: Type.Array(Type.Integer()), viable: Type.Boolean() }), {
    description: "each rule's monitor state after the verdict",
  }),
  obligations: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "observed: what the calls so far have left pending, in words: each rule's demands of the next call beyond those it makes from its start (a safety rule's standing prohibition is not pending)",
    }),
  ),
});

/** Every event kind and its body. */
export const AUDIT_EVENTS = {
  run_start: RunStart,
  run_end: RunEnd,
  tool_call: ToolCall,
  verifier_result: VerifierResult,
  failure_record: FailureRecord,
  replan: Replan,
  monitor_event: MonitorEvent,
  escalation: EscalationBody,
  operator_decision: OperatorDecisionBody,
  evidence: Evidence,
  plan: PlanBody,
  checkpoint: Checkpoint,
  rule_verdict: RuleVerdictBody,
} as const satisfies Record<string, TSchema>;

export type AuditEventKind = keyof typeof AUDIT_EVENTS;
export type AuditEventBody<K extends AuditEventKind> = Static<(typeof AUDIT_EVENTS)[K]>;
