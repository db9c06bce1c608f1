/**
 * The audit browser off the event loop: every read, verification and export of an audit database
 * runs in a worker thread (app/audit-worker.ts), so that the loop which answers the E-STOP is never
 * held by SQLite, however large or hostile the database. Two lanes, each one worker answering in
 * order: browsing (runs, head, facets, pages of events, an event, a replay: quick reads over cached
 * connections) and whole-log work (verification, exports: their own connection each), so that a
 * verification of a large log does not hold the run list back. A request that runs past its lane's
 * time limit stops that worker and fails with 'budget' (the next request gets a fresh worker and
 * fresh connections); closing fails what is pending with 'cancelled' and stops both.
 */
import type { AuditApi } from '../contract/api.js';
import { WorkerLane } from '../platform/workers.js';

export interface AuditThreadsOptions {
  /** Longest one browsing read may run (default 30 s). */
  readonly browseLimitMs?: number;
  /** Longest a verification or an export may run (default 10 minutes). */
  readonly wholeLogLimitMs?: number;
}

/** Heap a worker may use: a read that needs more fails alone, the process goes on. */
const WORKER_HEAP_MB = 2048;
const WHOLE_LOG: ReadonlySet<keyof AuditApi> = new Set(['auditVerify', 'auditExport']);

export class AuditThreads {
  private readonly connections = { browse: 0, wholeLog: 0 };
  private readonly browse: WorkerLane;
  private readonly wholeLog: WorkerLane;
  private readonly limits: Required<AuditThreadsOptions>;

  constructor(
    private readonly session: { readonly auditFile: string; readonly workspace: string },
    o: AuditThreadsOptions = {},
  ) {
    this.limits = { browseLimitMs: o.browseLimitMs ?? 30_000, wholeLogLimitMs: o.wholeLogLimitMs ?? 600_000 };
    const url = new URL('./audit-worker.js', import.meta.url);
    const data = { auditFile: session.auditFile, workspace: session.workspace };
    const lane = (name: string, key: keyof typeof this.connections): WorkerLane =>
      new WorkerLane(url, data, {
        name,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        onState: (s) => {
          this.connections[key] = (s as { connections?: number } | null)?.connections ?? 0;
        },
      });
    this.browse = lane('the audit reader', 'browse');
    this.wholeLog = lane('the audit verifier and exporter', 'wholeLog');
  }

  /** Audit databases the workers hold open now (as of their last answer). */
  get openConnections(): number {
    return this.connections.browse + this.connections.wholeLog;
  }

  /** One audit method, in its lane; `signal` abandons it. */
  call<M extends keyof AuditApi>(
    method: M,
    params: Parameters<AuditApi[M]>[0],
    signal?: AbortSignal,
  ): ReturnType<AuditApi[M]> {
    const whole = WHOLE_LOG.has(method);
    const file = (params as { file?: unknown } | undefined)?.file;
    const what = `${method} on ${typeof file === 'string' ? file : this.session.auditFile}`;
    return (whole ? this.wholeLog : this.browse).request(method, params, {
      timeLimitMs: whole ? this.limits.wholeLogLimitMs : this.limits.browseLimitMs,
      what,
      ...(signal !== undefined ? { signal } : {}),
    }) as ReturnType<AuditApi[M]>;
  }

  /** Fails what is pending ('cancelled') and stops the workers. */
  async close(): Promise<void> {
    await Promise.all([this.browse.close(), this.wholeLog.close()]);
  }
}
