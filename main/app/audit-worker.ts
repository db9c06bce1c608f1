/**
 * Worker thread: the audit browser's reads (app/audit.ts AuditBrowser over its cached read-only
 * connections) and the fleet store's (app/fleet-browser.ts: its sources, a source pulled into its local
 * replica), one request at a time, for app/audit-threads.ts. Reads of a large or hostile log, and a
 * store's answers however slow, take as long as they take here, never on the event loop that answers
 * the E-STOP.
 */
import { workerData } from 'node:worker_threads';
import type { AuditLaneApi } from './audit-threads.js';
import { serveLane } from '../platform/workers.js';
import { AuditBrowser } from './audit.js';
import { FleetBrowser } from './fleet-browser.js';

const data = workerData as { auditFile: string; workspace: string; fleet?: string };
const browser = new AuditBrowser(data);
const fleet = new FleetBrowser(data);

type Handlers = {
  readonly [M in keyof AuditLaneApi]: (p: Parameters<AuditLaneApi[M]>[0], progress: (p: unknown) => void) => unknown;
};
const methods: Handlers = {
  auditRuns: (p) => browser.runs(p),
  auditHead: (p) => browser.head(p),
  auditFacets: (p) => browser.facets(p),
  auditQuery: (p) => browser.query(p),
  auditLocate: (p) => browser.locate(p),
  auditEvent: (p) => browser.event(p),
  auditReplay: (p) => browser.replay(p),
  auditVerify: (p) => browser.verify(p),
  auditExport: (p) => browser.export(p),
  fleetSources: (p) => fleet.sources(p.filter),
  fleetMirror: (p, progress) => fleet.mirror(p.logId, (pulled) => progress({ pulled })),
};

serveLane(
  (method, params, progress) => {
    if (!Object.hasOwn(methods, method)) throw new Error(`the audit worker has no method ${method}`);
    return (methods[method as keyof AuditLaneApi] as (p: unknown, progress: (p: unknown) => void) => unknown)(
      params,
      progress,
    );
  },
  () => ({ connections: browser.openConnections }),
);
