/**
 * Worker thread: the audit browser's reads (app/audit.ts AuditBrowser over its cached read-only
 * connections), one request at a time, for app/audit-threads.ts. Reads of a large or hostile log
 * take as long as they take here, never on the event loop that answers the E-STOP.
 */
import { workerData } from 'node:worker_threads';
import type { AuditApi } from '../contract/api.js';
import { serveLane } from '../platform/workers.js';
import { AuditBrowser } from './audit.js';

const browser = new AuditBrowser(workerData as { auditFile: string; workspace: string });

type Handlers = { readonly [M in keyof AuditApi]: (p: Parameters<AuditApi[M]>[0]) => unknown };
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
};

serveLane(
  (method, params) => {
    if (!Object.hasOwn(methods, method)) throw new Error(`the audit worker has no method ${method}`);
    return (methods[method as keyof AuditApi] as (p: unknown) => unknown)(params);
  },
  () => ({ connections: browser.openConnections }),
);
