// Contract, core: the application, LTL translation, planning on a labelled graph, long jobs.
import { type Static, Type } from '@sinclair/typebox';
import { LTL_OUTPUT_FORMATS, PLAN_METHODS } from '../defaults.js';
import { StringEnum } from '../schema.js';

export const LtlTranslateRequest = Type.Object(
  {
    formula: Type.String({ maxLength: 100_000 }),
    format: Type.Optional(StringEnum(LTL_OUTPUT_FORMATS, { description: 'default hoa' })),
  },
  { additionalProperties: false },
);
export type LtlTranslateRequest = Static<typeof LtlTranslateRequest>;

/** A failure the caller can show: `line` and `column` are 1-based positions in the input. */
export interface ApiError {
  message: string;
  line?: number;
  column?: number;
  /** A machine-readable kind, one of contract/errors.ts ERROR_CODES ('invalid-params', 'not-found', 'cancelled', …). */
  code?: string;
  /** Where in the request (a JSON path such as `$.spec`) or in a file the problem is. */
  path?: string;
}

export type LtlTranslateResponse = { ok: true; output: string } | { ok: false; error: ApiError };

export const PlanGraphRequest = Type.Object(
  {
    graph: Type.Unknown({ description: 'a labelled graph as graph JSON (docs/FORMATS.md), already parsed' }),
    spec: Type.String({ maxLength: 100_000, description: 'the LTL specification' }),
    method: Type.Optional(StringEnum(PLAN_METHODS)),
    lambda: Type.Optional(Type.Number({ description: 'prefix–suffix trade-off λ in [0, 1] (default 0.5)' })),
    k: Type.Optional(
      Type.Union([Type.Number(), Type.Literal('all')], {
        description: "prefix candidates, or 'all' for the exact optimum (the default on labelled graphs)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PlanGraphRequest = Static<typeof PlanGraphRequest>;

/**
 * The plan document of docs/FORMATS.md ("Plans"): status "ok" with prefix, suffix, cost and certificate, or
 * "infeasible" with a reason.
 */
export interface PlanDocument {
  status: 'ok' | 'infeasible';
  method: string;
  prefix?: string[];
  suffix?: string[];
  cost?: { prefix: number; suffix: number; objective: number };
  reason?: { kind: string; message: string };
  [field: string]: unknown;
}

export type PlanGraphResponse = { ok: true; plan: PlanDocument } | { ok: false; error: ApiError };

export interface AppInfo {
  version: string;
  transport: 'electron' | 'web' | 'direct';
  /** The workspace folder the editors open and save in. */
  workspace: string;
  /** The audit database missions are recorded in. */
  auditFile: string;
}

/** Progress of a long job (planning, building a graph, …), pushed while it runs. */
export interface JobEvent {
  topic: 'job';
  job: string;
  title: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  phase: string;
  done: number;
  total: number;
  message?: string;
}

/**
 * Whether the ROS 2 backend can be used in this process: the distribution and rclnodejs version, or
 * exactly what is missing (ROS 2 not sourced, rclnodejs not installed or not loading) and the fix.
 */
export type Ros2Status =
  | { available: true; distro: string; version: string | null; notes: string[] }
  | { available: false; problem: string; message: string; fix: string };

/** A method without parameters. */
export const NoParams = Type.Object({}, { additionalProperties: false });
export type NoParams = Static<typeof NoParams>;

const CancelJobRequest = Type.Object(
  { job: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export interface CoreApi {
  /** Plans a mission on a labelled graph (SAGAS or a baseline); infeasibility is a plan document, not an error. */
  planGraph(request: PlanGraphRequest): Promise<PlanGraphResponse>;
  /** Translates an LTL formula to a Büchi automaton, printed in `format` (default 'hoa'). */
  ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse>;
  /** The application version (package.json "version"). */
  version(params?: NoParams): Promise<string>;
  /** Version, transport, workspace folder and audit database of this session. */
  appInfo(params?: NoParams): Promise<AppInfo>;
  /** ROS 2 availability; loads rclnodejs on the first call only (the app starts without it). */
  ros2Status(params?: NoParams): Promise<Ros2Status>;
  /** Cancels a running job; resolves to whether one was running. */
  cancelJob(params: Static<typeof CancelJobRequest>): Promise<{ cancelled: boolean }>;
}

export const CORE_PARAMS = {
  planGraph: PlanGraphRequest,
  ltlTranslate: LtlTranslateRequest,
  version: NoParams,
  appInfo: NoParams,
  ros2Status: NoParams,
  cancelJob: CancelJobRequest,
} as const satisfies Record<keyof CoreApi, object>;
