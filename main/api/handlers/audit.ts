/** Audit-browser handlers: read-only connections to audit databases. */
import type { AuditApi } from '../contract.js';
import type { ApiContext } from '../context.js';
import { fail } from '../failure.js';

export function auditHandlers(_ctx: ApiContext): { api: AuditApi; close(): Promise<void> } {
  const todo = (): Promise<never> => Promise.reject(fail('not-implemented', 'not implemented yet'));
  return { api: { auditRuns: todo, auditQuery: todo, auditEvent: todo }, close: () => Promise.resolve() };
}
