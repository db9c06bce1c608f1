// The one API contract shared by every transport (Electron IPC, WebSocket, direct calls).
// Pure types plus the channel table: no runtime imports, so the renderer may `import type`
// from here and the sandboxed preload may mirror the channel table without bundling.

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

/**
 * Whether the ROS 2 backend can be used in this process: the distribution and rclnodejs version, or
 * exactly what is missing (ROS 2 not sourced, rclnodejs not installed or not loading) and the fix.
 */
export type Ros2Status =
  | { available: true; distro: string; version: string | null; notes: string[] }
  | { available: false; problem: string; message: string; fix: string };

export interface WitnessApi {
  /** Plans a mission on a labelled graph (SAGAS or a baseline); infeasibility is a plan document, not an error. */
  planGraph(request: PlanGraphRequest): Promise<PlanGraphResponse>;
  /** Translates an LTL formula to a Büchi automaton, printed in `format` (default 'hoa'). */
  ltlTranslate(request: LtlTranslateRequest): Promise<LtlTranslateResponse>;
  /** The application version (package.json "version"). */
  version(): Promise<string>;
  /** ROS 2 availability; loads rclnodejs on the first call only (the app starts without it). */
  ros2Status(): Promise<Ros2Status>;
}

export type ApiMethod = keyof WitnessApi;

/** IPC / WebSocket channel name for each API method. */
export const API_CHANNELS = Object.freeze({
  ltlTranslate: 'witness:ltl-translate',
  planGraph: 'witness:plan-graph',
  version: 'witness:version',
  ros2Status: 'witness:ros2-status',
} as const satisfies Record<ApiMethod, `witness:${string}`>);

export type ApiChannels = typeof API_CHANNELS;
export type ApiChannel = ApiChannels[ApiMethod];
