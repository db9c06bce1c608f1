// Contract, audit browser: runs, a filtered and paged event table, one event's detail, the chain
// check and exports — always on a read-only connection.

export interface AuditRunSummary {
  id: number;
  started_ms: number;
  ended_ms: number | null;
  world: string;
  backend: string;
  operator: string;
  outcome: string | null;
  events: number;
  spec: string | null;
}

export interface AuditEventRow {
  id: number;
  run: number;
  seq: number;
  t_ms: number;
  kind: string;
  tool: string | null;
  failureLabel: string | null;
  step: number | null;
  /** A one-line summary of the body for the table. */
  summary: string;
}

export interface AuditFilter {
  run?: number;
  kinds?: string[];
  tool?: string;
  failureLabel?: string;
  fromMs?: number;
  toMs?: number;
  text?: string;
}

export interface AuditApi {
  /** The runs of an audit database (default: this session's), newest first. */
  auditRuns(params: { file?: string }): Promise<{ file: string; runs: AuditRunSummary[] }>;
  /** One page of events matching the filter, in order, with a cursor for the next page. */
  auditQuery(params: { file?: string; filter: AuditFilter; cursor?: string | null; limit: number }): Promise<{ events: AuditEventRow[]; next: string | null; total?: number }>;
  /** One event with its full body (arguments, verifier evidence, failure record, plan, …). */
  auditEvent(params: { file?: string; id: number }): Promise<{ row: AuditEventRow; body: unknown; blobs: Record<string, unknown> }>;
}

const FILE = { type: 'string', minLength: 1, maxLength: 1000 } as const;

export const AUDIT_PARAMS = {
  auditRuns: { type: 'object', additionalProperties: false, properties: { file: FILE } },
  auditQuery: {
    type: 'object', required: ['filter', 'limit'], additionalProperties: false,
    properties: {
      file: FILE,
      filter: {
        type: 'object', additionalProperties: false,
        properties: {
          run: { type: 'integer', minimum: 1 },
          kinds: { type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 50 },
          tool: { type: 'string', maxLength: 200 },
          failureLabel: { type: 'string', maxLength: 200 },
          fromMs: { type: 'number' },
          toMs: { type: 'number' },
          text: { type: 'string', maxLength: 1000 },
        },
      },
      cursor: { type: ['string', 'null'], maxLength: 1000 },
      limit: { type: 'integer', minimum: 1, maximum: 5000 },
    },
  },
  auditEvent: { type: 'object', required: ['id'], additionalProperties: false, properties: { file: FILE, id: { type: 'integer', minimum: 1 } } },
} as const satisfies Record<keyof AuditApi, object>;
