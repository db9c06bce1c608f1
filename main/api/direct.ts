/**
 * The API served by direct calls: the implementation every transport (IPC, WebSocket) wraps, over one
 * session of the application.
 */
import type { WitnessApi } from '../contract/api.js';
import { type Session, type SessionOptions, createSession } from '../app/session.js';
import { handlers } from './handlers.js';

export interface DirectApi extends WitnessApi {
  readonly context: Session;
  /** Audit databases the audit browser holds open now. */
  auditConnections(): number;
  /**
   * Stops running missions and tool loops (`reason`: why, recorded with each) and closes what the handlers hold open.
   */
  close(reason?: string): Promise<void>;
}

export function createDirectApi(options: SessionOptions = {}): DirectApi {
  const context = createSession(options);
  const h = handlers(context);
  return { ...h.api, context, auditConnections: h.auditConnections, close: h.close };
}
