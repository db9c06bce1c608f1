// Contract, the tool loop in the console: what can run (tool worlds, tool folders, scripted plans),
// running the careful control loop with the user's tools, stopping it, and its live steps.
import { type Static, Type } from '@sinclair/typebox';
import type { AuditEventBody } from '../audit-events.js';
import { NoParams } from './core.js';
import { StringEnum } from '../schema.js';

const ACT_PLANNERS = ['recovery', 'scripted'] as const;

interface ActChoice {
  /** What actRun takes. */
  id: string;
  title: string;
  /** Why it cannot be used as it is, if so (a robot configuration that does not check). */
  problem?: string;
}

export interface ActOptions {
  /** Tool worlds: the tabletop, and ROS 2 robots whose configurations name skills. */
  worlds: ActChoice[];
  /** Folders of tool files: the workspace's (`tools/` and its subfolders) and the shipped ones. */
  tools: ActChoice[];
  /** Scripted plans: the workspace's `plans/*.json` and the shipped ones. */
  plans: ActChoice[];
  /** Rules files (temporal rules over the calls): the workspace's `*.rules.json` and the shipped ones. */
  rules: ActChoice[];
  /** The warehouse example (the seed's): a world, tools, a plan, a goal verifier and the task in words. */
  example: { world: string; tools: string; plan: string; goal: string; task: string };
}

const ID = Type.String({ minLength: 1, maxLength: 2000 });

export const ActRunRequest = Type.Object(
  {
    world: ID,
    tools: Type.String({ minLength: 1, maxLength: 2000, description: 'a tool folder: one of ActOptions.tools' }),
    plan: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'a scripted plan: one of ActOptions.plans' }),
    ),
    rules: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'a rules file: one of ActOptions.rules' }),
    ),
    planner: Type.Optional(StringEnum(ACT_PLANNERS, { description: 'default recovery' })),
    goal: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: 'the goal verifier: a CEL condition on the observed state',
    }),
    task: Type.Optional(
      Type.String({ maxLength: 10_000, description: "the instruction in words (recorded as the run's specification)" }),
    ),
    replans: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type ActRunRequest = Static<typeof ActRunRequest>;

const ActStopRequest = Type.Object({ run: ID }, { additionalProperties: false });

/** The tools a run registered: what the step view labels its calls with. */
export interface ActTool {
  name: string;
  skill: string;
  preconditions: string[];
  postconditions: string[];
}

/** A rule a run enforces (from its rules file): what the step view names beside each call. */
export interface ActRule {
  name: string;
  ltl: string;
  description?: string;
}

type ActStepKind =
  | 'tool_call'
  | 'verifier_result'
  | 'failure_record'
  | 'replan'
  | 'escalation'
  | 'operator_decision'
  | 'evidence'
  | 'rule_verdict';

export type ActEvent =
  /** A call about to run, its preconditions checked on the state just observed (a refused one fails next). */
  | {
      topic: 'act.call';
      run: string;
      n: number;
      tool: string;
      args: unknown;
      subtask: number;
      timeout_s: number;
      preconditions: { name: string; expr: string; pass: boolean; observed: Record<string, unknown>; error?: string }[];
    }
  /** One of the loop's audit events, as it is recorded. */
  | { topic: 'act.step'; run: string; n: number; kind: ActStepKind; body: AuditEventBody<ActStepKind> }
  | {
      topic: 'act.end';
      run: string;
      outcome: 'success' | 'escalated' | 'goal-not-met' | 'stopped' | 'error';
      reason: string;
      toolCalls: number;
      replans: number;
      auditRun: string | null;
    };

export interface ActApi {
  /** The tool worlds, tool folders and plans the console can run the loop with. */
  actOptions(params?: NoParams): Promise<ActOptions>;
  /**
   * Runs the careful control loop with a tool folder, a plan and a goal verifier on a tool world;
   * everything is checked before anything moves. Steps arrive as act.* events; escalations as
   * mission.escalation (the same dialog, escalationDecide); stop with actStop or the E-STOP.
   */
  actRun(params: ActRunRequest): Promise<{ run: string; auditRun: string | null; tools: ActTool[]; rules: ActRule[] }>;
  /** Stops a running loop: the running skill is cancelled; recorded as the operator's stop. */
  actStop(params: Static<typeof ActStopRequest>): Promise<{ stopped: boolean }>;
}

export const ACT_PARAMS = {
  actOptions: NoParams,
  actRun: ActRunRequest,
  actStop: ActStopRequest,
} as const satisfies Record<keyof ActApi, object>;
