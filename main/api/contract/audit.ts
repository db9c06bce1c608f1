// Contract, audit browser: runs, a filtered and paged event table, one event's detail, a run's
// replay data for the timeline and graph view, the chain check and exports — always on a read-only
// connection. `file` names another audit database (absolute, or relative to the workspace); without
// it the session's own database is read.
import type { AutomatonView, GraphScene, PlanView } from './scene.js';

export interface AuditRunSummary {
  /** The run's id (a UUID). */
  id: string;
  started_ms: number;
  ended_ms: number | null;
  world: string;
  backend: string;
  operator: string;
  software: string;
  /** run_end's outcome, or null for a run without an end (still running, or killed). */
  outcome: string | null;
  events: number;
  /** The specification text (mission spec or goal), when the run recorded one. */
  spec: string | null;
  /** The run's metadata (method, start, seed, …). */
  meta: Record<string, unknown>;
}

export interface AuditEventRow {
  /** The event's sequence number in its database (unique, increasing). */
  id: number;
  run: string;
  t_ms: number;
  kind: string;
  tool: string | null;
  failureLabel: string | null;
  step: number | null;
  /** A one-line summary of the body for the table. */
  summary: string;
}

export interface AuditFilter {
  run?: string;
  /** Any of these kinds (empty or absent: every kind). */
  kinds?: string[];
  tool?: string;
  failureLabel?: string;
  /** Time window, ms since 1970, inclusive. */
  fromMs?: number;
  toMs?: number;
  /** Free text inside the event body (case-insensitive). */
  text?: string;
}

export interface AuditQueryResult {
  events: AuditEventRow[];
  /** Continue from here for the next page; null at the end. */
  next: string | null;
  /** False when a free-text search stopped early to keep the page quick: continue with `next`. */
  complete: boolean;
  /** How many events match, on the first page (absent for free-text searches, which would scan the whole log). */
  total?: number;
}

/** A plan and what it changed, for the detail pane. */
export interface AuditPlanDiff {
  before: AuditPlanDoc | null;
  after: AuditPlanDoc | null;
  /** Node-by-node difference of the prefix and of the suffix (LCS): '=' kept, '-' dropped, '+' added. */
  prefix: { op: '=' | '-' | '+'; node: string }[];
  suffix: { op: '=' | '-' | '+'; node: string }[];
  /** Why a part is missing (e.g. the run's planner records no plans). */
  note?: string;
}

export interface AuditPlanDoc {
  seq: number;
  step: number | null;
  trigger: string;
  status: string;
  prefix: string[];
  suffix: string[];
  cost: { prefix: number; suffix: number; objective: number } | null;
  /** The whole plan document with its certificate (docs/FORMATS.md, "Plans"). */
  document: Record<string, unknown>;
}

export interface AuditEventDetail {
  row: AuditEventRow;
  body: unknown;
  prev_hash: string;
  hash: string;
  /** Blobs the event refers to, parsed where they are JSON: plan documents, spec, regions. */
  blobs: Record<string, unknown>;
  /** For replan and plan events: the plan before and after, with their difference. */
  plans?: AuditPlanDiff;
}

/** Everything the timeline needs to scrub a run and replay it on the graph view. */
export interface AuditReplay {
  run: AuditRunSummary;
  /** The scrubbing axis: simulation steps when the run recorded them, else time since its start. */
  axis: 'step' | 'time';
  /** Axis range (steps, or ms since the run started). */
  min: number;
  max: number;
  /** The run's world as a scene: its picture and the plans' nodes placed where the log tells. */
  scene: GraphScene;
  /** Every plan in order: the first, then one per replan (node ids as in `scene`). */
  plans: { seq: number; at: number; trigger: string; plan: PlanView }[];
  /** Robot positions from evidence events (columnar), in order; at most `maxPositions`. */
  positions: { seq: number[]; at: number[]; x: number[]; y: number[]; total: number };
  /** The runtime monitor's state set each time it changed. */
  monitor: { seq: number; at: number; states: number[]; viable: boolean; accepting: boolean; labels: string[] }[];
  /** Failures, replans, escalations, the end: marks on the timeline. */
  marks: { seq: number; at: number; kind: string; label: string }[];
  /** The specification's automaton (for the monitor view), when the spec is LTL. */
  automaton: AutomatonView | null;
  /** What the replay could not know from the log, in words. */
  notes: string[];
}

export interface AuditVerifyResult {
  file: string;
  ok: boolean;
  events: number;
  blobs: number;
  head: string;
  integrity: string;
  /** The first row that does not match, and why. */
  firstBad?: { table: 'events' | 'blobs'; key: string; reason: string };
  chain_ms: number;
}

export type AuditExportFormat = 'jsonl' | 'csv' | 'mcap';

export interface AuditApi {
  /**
   * The runs of an audit database (default: this session's), newest first. A session database that
   * does not exist yet is an empty list with a message; a named file that is missing, not SQLite,
   * or not a Witness audit database of a version this build reads is an ApiError naming the file.
   */
  auditRuns(params: { file?: string }): Promise<{ file: string; exists: boolean; runs: AuditRunSummary[]; message?: string }>;
  /** Kinds (with counts), tools, failure labels and the time range of one run: the filter choices. */
  auditFacets(params: { file?: string; run: string }): Promise<{ kinds: { kind: string; n: number }[]; tools: string[]; failureLabels: string[]; firstMs: number | null; lastMs: number | null }>;
  /**
   * One page of events matching the filter, in order. Continue with `cursor` (the previous page's
   * `next`), or jump with `offset` (an index into the matching events; not with free text).
   */
  auditQuery(params: { file?: string; filter: AuditFilter; cursor?: string | null; offset?: number; limit: number }): Promise<AuditQueryResult>;
  /** The matching event nearest to a step (or a time, ms since 1970) and its index among the matches. */
  auditLocate(params: { file?: string; filter: AuditFilter & { run: string }; step?: number; tMs?: number }): Promise<{ index: number; row: AuditEventRow } | { index: -1; row: null }>;
  /** One event with its full body (arguments, verifier evidence, failure record, plans, …). */
  auditEvent(params: { file?: string; id: number }): Promise<AuditEventDetail>;
  /** What the timeline replays: plans, robot positions, monitor states, marks, the scene. */
  auditReplay(params: { file?: string; run: string; maxPositions?: number }): Promise<AuditReplay>;
  /** Walks the hash chain and the blobs; names the first row that does not match. */
  auditVerify(params: { file?: string }): Promise<AuditVerifyResult>;
  /**
   * Exports one run (or the whole database) into the workspace's exports/ folder — a file the
   * operator can open in both desktop and web mode; returns where it went and its size.
   */
  auditExport(params: { file?: string; run?: string; format: AuditExportFormat }): Promise<{ path: string; bytes: number; format: AuditExportFormat; summary: string }>;
}

const FILE = { type: 'string', minLength: 1, maxLength: 1000 } as const;
const RUN = { type: 'string', minLength: 1, maxLength: 100 } as const;
const FILTER_PROPS = {
  run: RUN,
  kinds: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, maxItems: 50 },
  tool: { type: 'string', minLength: 1, maxLength: 200 },
  failureLabel: { type: 'string', minLength: 1, maxLength: 200 },
  fromMs: { type: 'number' },
  toMs: { type: 'number' },
  text: { type: 'string', minLength: 1, maxLength: 1000 },
} as const;

export const AUDIT_PARAMS = {
  auditRuns: { type: 'object', additionalProperties: false, properties: { file: FILE } },
  auditFacets: { type: 'object', required: ['run'], additionalProperties: false, properties: { file: FILE, run: RUN } },
  auditQuery: {
    type: 'object', required: ['filter', 'limit'], additionalProperties: false,
    properties: {
      file: FILE,
      filter: { type: 'object', additionalProperties: false, properties: FILTER_PROPS },
      cursor: { type: ['string', 'null'], maxLength: 100 },
      offset: { type: 'integer', minimum: 0 },
      limit: { type: 'integer', minimum: 1, maximum: 5000 },
    },
  },
  auditLocate: {
    type: 'object', required: ['filter'], additionalProperties: false,
    properties: {
      file: FILE,
      filter: { type: 'object', required: ['run'], additionalProperties: false, properties: FILTER_PROPS },
      step: { type: 'number' },
      tMs: { type: 'number' },
    },
  },
  auditEvent: { type: 'object', required: ['id'], additionalProperties: false, properties: { file: FILE, id: { type: 'integer', minimum: 1 } } },
  auditReplay: {
    type: 'object', required: ['run'], additionalProperties: false,
    properties: { file: FILE, run: RUN, maxPositions: { type: 'integer', minimum: 2, maximum: 200_000 } },
  },
  auditVerify: { type: 'object', additionalProperties: false, properties: { file: FILE } },
  auditExport: {
    type: 'object', required: ['format'], additionalProperties: false,
    properties: { file: FILE, run: RUN, format: { enum: ['jsonl', 'csv', 'mcap'] } },
  },
} as const satisfies Record<keyof AuditApi, object>;
