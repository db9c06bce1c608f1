// Contract, core: the application, LTL translation, planning on a labelled graph, long jobs.

export type LtlOutputFormat = 'hoa' | 'json' | 'dot';

export interface LtlTranslateRequest {
  formula: string;
  format?: LtlOutputFormat;
}

/** A failure the caller can show: `line` and `column` are 1-based positions in the input. */
export interface ApiError {
  message: string;
  line?: number;
  column?: number;
  /** A machine-readable kind: 'invalid-params', 'unknown-method', 'cancelled', 'conflict', 'not-found', 'busy', 'internal', … */
  code?: string;
  /** Where in the request (a JSON path such as `$.spec`) or in a file the problem is. */
  path?: string;
}

export type LtlTranslateResponse =
  | { ok: true; output: string }
  | { ok: false; error: ApiError };

export interface PlanGraphRequest {
  /** A labelled graph as graph JSON (docs/FORMATS.md), already parsed. */
  graph: unknown;
  /** The LTL specification. */
  spec: string;
  method?: 'sagas' | 'lf-gas' | 'ga-gas';
  /** Prefix–suffix trade-off λ in [0, 1] (default 0.5). */
  lambda?: number;
  /** Prefix candidates, or 'all' for the exact optimum (the default on labelled graphs). */
  k?: number | 'all';
}

/** The plan document of docs/FORMATS.md ("Plans"): status "ok" with prefix, suffix, cost and certificate, or "infeasible" with a reason. */
export interface PlanDocument {
  status: 'ok' | 'infeasible';
  method: string;
  prefix?: string[];
  suffix?: string[];
  cost?: { prefix: number; suffix: number; objective: number };
  reason?: { kind: string; message: string };
  [field: string]: unknown;
}

export type PlanGraphResponse =
  | { ok: true; plan: PlanDocument }
  | { ok: false; error: ApiError };

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

export interface CoreApi {
  /** Plans a mission on a labelled graph (SAGAS or a baseline); infeasibility is a plan document, not an error. */
  planGraph(request: PlanGraphRequest): Promise<PlanGraphResponse>;
  /** Translates an LTL formula to a Büchi automaton, printed in `format` (default 'hoa'). */
  ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse>;
  /** The application version (package.json "version"). */
  version(params?: Record<string, never>): Promise<string>;
  /** Version, transport, workspace folder and audit database of this session. */
  appInfo(params?: Record<string, never>): Promise<AppInfo>;
  /** ROS 2 availability; loads rclnodejs on the first call only (the app starts without it). */
  ros2Status(params?: Record<string, never>): Promise<Ros2Status>;
  /** Cancels a running job; resolves to whether one was running. */
  cancelJob(params: { job: string }): Promise<{ cancelled: boolean }>;
}

const EMPTY = { type: 'object', additionalProperties: false } as const;

export const CORE_PARAMS = {
  planGraph: { type: 'object' },
  ltlTranslate: { type: 'object' },
  version: EMPTY,
  appInfo: EMPTY,
  ros2Status: EMPTY,
  cancelJob: { type: 'object', required: ['job'], additionalProperties: false, properties: { job: { type: 'string', minLength: 1, maxLength: 200 } } },
} as const satisfies Record<keyof CoreApi, object>;
