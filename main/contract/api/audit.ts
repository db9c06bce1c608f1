// Contract, audit browser: runs, a filtered and paged event table, one event's detail, a run's
// replay data for the timeline and graph view, the chain check and exports — always on a read-only
// connection. `file` names another audit database (absolute, or relative to the workspace); without
// it the session's own database is read.
import { type Static, Type } from '@sinclair/typebox';
import type { AutomatonView, GraphScene, PlanView } from './scene.js';
import { StringEnum } from '../schema.js';
import { AUDIT_EXPORT_FORMATS } from '../defaults.js';

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
  /**
   * Verifier failures in the run: its failure records, and its failed postconditions (verifier results that did not
   * pass).
   */
  failures: { records: number; postconditions: number };
  /** The specification text (mission spec or goal), when the run recorded one. */
  spec: string | null;
  /** The run's metadata (method, start, seed, …). */
  meta: Record<string, unknown>;
  /**
   * Why the runs table disagrees with the run's chained run_start (the values shown are the run_start's); absent when
   * they agree.
   */
  tampered?: string;
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
  /** A verifier failure: a failure record, a failed postcondition, evidence with a failure label. */
  failed: boolean;
}

const FILE = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: "another audit database (absolute, ~/…, or relative to the workspace); default: the session's",
});
const RUN = Type.String({ minLength: 1, maxLength: 100 });
const strict = { additionalProperties: false } as const;

export const AuditFilter = Type.Object(
  {
    run: Type.Optional(RUN),
    kinds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 50,
        description: 'any of these kinds (empty or absent: every kind)',
      }),
    ),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    failureLabel: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    fromMs: Type.Optional(Type.Number({ description: 'time window, ms since 1970, inclusive' })),
    toMs: Type.Optional(Type.Number()),
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'free text inside the event body (case-insensitive)' }),
    ),
  },
  strict,
);
export type AuditFilter = Static<typeof AuditFilter>;

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
  /** The sha256 naming the plan document (its plan event's plan_sha) and the planner that made it. */
  sha: string;
  method: string;
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
/** One verdict of a run's rules in the replay. */
export interface RuleVerdictView {
  seq: number;
  at: number;
  /** The event's hash in the log's chain. */
  hash: string;
  phase: 'predicted' | 'observed';
  ok: boolean;
  tool: string;
  /** The first broken rule and the proposition that decides it. */
  rule?: string;
  proposition?: string;
  /** The propositions that held on the letter judged. */
  letter: string[];
  rules: { name: string; states: number[]; viable: boolean }[];
  /** Observed: what the rules then demand of the next call. */
  obligations: string[];
}

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
  plans: {
    seq: number;
    at: number;
    trigger: string;
    /** The plan document's blob hash. */ sha: string;
    plan: PlanView;
  }[];
  /** Robot positions from evidence events (columnar), in order; at most `maxPositions`. */
  positions: { seq: number[]; at: number[]; x: number[]; y: number[]; total: number };
  /** The runtime monitor's state set each time it changed. */
  monitor: { seq: number; at: number; states: number[]; viable: boolean; accepting: boolean; labels: string[] }[];
  /** Failures, replans, escalations, the end, the rules' refusals and violations: marks on the timeline. */
  marks: { seq: number; at: number; kind: string; label: string }[];
  /**
   * A tool loop run's rules (a rules file): every verdict in order, at its place on the axis, with its event's chain
   * hash — `predicted` before a call (a refusal when not ok), `observed` after it — and each rule's monitor state.
   */
  rules: RuleVerdictView[];
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
  firstBad?: { table: 'events' | 'blobs' | 'runs' | 'schema'; key: string; reason: string };
  /** Every problem found: missing or altered triggers (table 'schema'), then the first row that does not match. */
  problems?: { table: 'events' | 'blobs' | 'runs' | 'schema'; key: string; reason: string }[];
  chain_ms: number;
}

export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

/** Runs in a page of auditRuns when the request gives no limit. */
export const AUDIT_RUNS_PAGE = 200;

const AuditRunsRequest = Type.Object(
  {
    file: Type.Optional(FILE),
    cursor: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 10_000 }), Type.Null()], {
        description: 'continue after the page that gave this `next`',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: `runs in the page (default ${AUDIT_RUNS_PAGE})` }),
    ),
  },
  strict,
);
const AuditHeadRequest = Type.Object({ file: Type.Optional(FILE) }, strict);
const AuditFacetsRequest = Type.Object({ file: Type.Optional(FILE), run: RUN }, strict);
const AuditQueryRequest = Type.Object(
  {
    file: Type.Optional(FILE),
    filter: AuditFilter,
    cursor: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Integer({ minimum: 1, maximum: 5000 }),
  },
  strict,
);
const AuditLocateRequest = Type.Object(
  {
    file: Type.Optional(FILE),
    filter: Type.Composite([AuditFilter, Type.Object({ run: RUN })], strict),
    step: Type.Optional(Type.Number()),
    tMs: Type.Optional(Type.Number()),
  },
  strict,
);
const AuditEventRequest = Type.Object({ file: Type.Optional(FILE), id: Type.Integer({ minimum: 1 }) }, strict);
const AuditReplayRequest = Type.Object(
  { file: Type.Optional(FILE), run: RUN, maxPositions: Type.Optional(Type.Integer({ minimum: 2, maximum: 200_000 })) },
  strict,
);
const AuditVerifyRequest = Type.Object({ file: Type.Optional(FILE) }, strict);
const AuditExportRequest = Type.Object(
  {
    file: Type.Optional(FILE),
    run: Type.Optional(RUN),
    format: StringEnum(AUDIT_EXPORT_FORMATS),
  },
  strict,
);

export interface AuditApi {
  /**
   * A page of the runs of an audit database (default: this session's), newest first (runs not
   * under the hash chain after the others); `next` continues with the following page (null after
   * the last). A session database that does not exist yet is an empty list with a message; a named
   * file that is missing, not SQLite, or not a Witness audit database of a version this build reads
   * is an ApiError naming the file.
   */
  auditRuns(
    params: Static<typeof AuditRunsRequest>,
  ): Promise<{ file: string; exists: boolean; runs: AuditRunSummary[]; next: string | null; message?: string }>;
  /**
   * How far a database has been written: its runs and its last event's sequence number — cheap, so
   * the browser can poll it and tail a database another process (a mission, the CLI) is writing.
   * Errors as auditRuns.
   */
  auditHead(
    params: Static<typeof AuditHeadRequest>,
  ): Promise<{ file: string; exists: boolean; runs: number; lastSeq: number }>;
  /** Kinds (with counts), tools, failure labels and the time range of one run: the filter choices. */
  auditFacets(params: Static<typeof AuditFacetsRequest>): Promise<{
    kinds: { kind: string; n: number }[];
    tools: string[];
    failureLabels: string[];
    firstMs: number | null;
    lastMs: number | null;
  }>;
  /**
   * One page of events matching the filter, in order. Continue with `cursor` (the previous page's
   * `next`), or jump with `offset` (an index into the matching events; not with free text).
   */
  auditQuery(params: Static<typeof AuditQueryRequest>): Promise<AuditQueryResult>;
  /** The matching event nearest to a step (or a time, ms since 1970) and its index among the matches. */
  auditLocate(
    params: Static<typeof AuditLocateRequest>,
  ): Promise<{ index: number; row: AuditEventRow } | { index: -1; row: null }>;
  /** One event with its full body (arguments, verifier evidence, failure record, plans, …). */
  auditEvent(params: Static<typeof AuditEventRequest>): Promise<AuditEventDetail>;
  /** What the timeline replays: plans, robot positions, monitor states, marks, the scene. */
  auditReplay(params: Static<typeof AuditReplayRequest>): Promise<AuditReplay>;
  /** Walks the hash chain and the blobs; names the first row that does not match. */
  auditVerify(params: Static<typeof AuditVerifyRequest>): Promise<AuditVerifyResult>;
  /**
   * Exports one run (or the whole database) into the workspace's exports/ folder — a file the
   * operator can open in both desktop and web mode; returns where it went and its size.
   */
  auditExport(
    params: Static<typeof AuditExportRequest>,
  ): Promise<{ path: string; bytes: number; format: AuditExportFormat; summary: string }>;
}

export const AUDIT_PARAMS = {
  auditRuns: AuditRunsRequest,
  auditHead: AuditHeadRequest,
  auditFacets: AuditFacetsRequest,
  auditQuery: AuditQueryRequest,
  auditLocate: AuditLocateRequest,
  auditEvent: AuditEventRequest,
  auditReplay: AuditReplayRequest,
  auditVerify: AuditVerifyRequest,
  auditExport: AuditExportRequest,
} as const satisfies Record<keyof AuditApi, object>;
