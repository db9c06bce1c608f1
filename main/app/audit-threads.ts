/**
 * The audit browser off the event loop: every read, verification and export of an audit database
 * runs in a worker thread (app/audit-worker.ts), so that the loop which answers the E-STOP is never
 * held by SQLite, however large or hostile the database. Two lanes, each one worker answering in
 * order: browsing (runs, head, facets, pages of events, an event, a replay: quick reads over cached
 * connections) and whole-log work (verification, exports: their own connection each), so that a
 * verification of a large log does not hold the run list back; and, with a fleet store, a third lane for
 * it (listing its sources, pulling a source into its local replica: network and whole-source work, which
 * must hold neither the browsing of that replica nor an export). A request that runs past its lane's
 * time limit stops that worker and fails with 'budget' (the next request gets a fresh worker and
 * fresh connections); closing fails what is pending with 'cancelled' and stops both.
 */
import type { AuditApi, FleetApi } from '../contract/api.js';
import { WorkerLane } from '../platform/workers.js';

/** What the audit workers answer: the audit browser's reads, and the fleet store's sources and mirrors. */
export type AuditLaneApi = AuditApi & Pick<FleetApi, 'fleetSources' | 'fleetMirror'>;

export interface AuditThreadsOptions {
  /** Longest one browsing read may run (default 30 s). */
  readonly browseLimitMs?: number;
  /** Longest a verification or an export may run (default 10 minutes). */
  readonly wholeLogLimitMs?: number;
}

/** Heap a worker may use: a read that needs more fails alone, the process goes on. */
const WORKER_HEAP_MB = 2048;
const WHOLE_LOG: ReadonlySet<keyof AuditLaneApi> = new Set(['auditVerify', 'auditExport', 'fleetMirror']);
const FLEET: ReadonlySet<keyof AuditLaneApi> = new Set(['fleetSources', 'fleetMirror']);

/** What the workers are given: the session's files, and the fleet store's URL (credentials stay in main's threads). */
export interface AuditThreadsSession {
  readonly auditFile: string;
  readonly workspace: string;
  readonly fleet?: string;
}

export class AuditThreads {
  private readonly connections = { browse: 0, wholeLog: 0, fleet: 0 };
  private readonly browse: WorkerLane;
  private readonly wholeLog: WorkerLane;
  private readonly fleet: WorkerLane;
  private readonly limits: Required<AuditThreadsOptions>;

  constructor(
    private readonly session: AuditThreadsSession,
    o: AuditThreadsOptions = {},
  ) {
    this.limits = { browseLimitMs: o.browseLimitMs ?? 30_000, wholeLogLimitMs: o.wholeLogLimitMs ?? 600_000 };
    const url = new URL('./audit-worker.js', import.meta.url);
    const data = {
      auditFile: session.auditFile,
      workspace: session.workspace,
      ...(session.fleet !== undefined ? { fleet: session.fleet } : {}),
    };
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
    this.fleet = lane('the fleet store reader', 'fleet');
  }

  /** Audit databases the workers hold open now (as of their last answer). */
  get openConnections(): number {
    return this.connections.browse + this.connections.wholeLog + this.connections.fleet;
  }

  /** One audit method, in its lane; `signal` abandons it, `progress` hears how far it has come. */
  call<M extends keyof AuditLaneApi>(
    method: M,
    params: Parameters<AuditLaneApi[M]>[0],
    signal?: AbortSignal,
    progress?: (p: unknown) => void,
  ): ReturnType<AuditLaneApi[M]> {
    const whole = WHOLE_LOG.has(method);
    const p = params as { file?: unknown; logId?: unknown } | undefined;
    const on = FLEET.has(method)
      ? `the fleet store${typeof p?.logId === 'string' ? ` (source ${p.logId.slice(0, 12)})` : ''}`
      : typeof p?.file === 'string'
        ? p.file
        : this.session.auditFile;
    return (FLEET.has(method) ? this.fleet : whole ? this.wholeLog : this.browse).request(method, params, {
      timeLimitMs: whole ? this.limits.wholeLogLimitMs : this.limits.browseLimitMs,
      what: `${method} on ${on}`,
      ...(signal !== undefined ? { signal } : {}),
      ...(progress !== undefined ? { progress } : {}),
    }) as ReturnType<AuditLaneApi[M]>;
  }

  /** Fails what is pending ('cancelled') and stops the workers. */
  async close(): Promise<void> {
    await Promise.all([this.browse.close(), this.wholeLog.close(), this.fleet.close()]);
  }
}
