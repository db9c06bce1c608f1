/**
 * Web mode as a whole: the session's API behind the transport-independent dispatcher, served with
 * the built UI on 127.0.0.1. `witness web` starts it (the process entry passes it to the CLI).
 */
import { mkdirSync } from 'node:fs';
import { WitnessError } from '../../contract/errors.js';
import { createDirectApi } from '../direct.js';
import { createDispatcher } from '../dispatch.js';
import { startWebServer } from './server.js';
import { uiBuilt, UI_DIR } from '../../app/session.js';
import { redactStoreUrl } from '../../app/fleet.js';

export interface WebModeOptions {
  readonly port: number;
  readonly workspace?: string;
  readonly audit?: string;
  /** The fleet store the Audit tab browses (a PostgreSQL URL; its password stays in this process). */
  readonly fleet?: string;
  readonly log: (line: string) => void;
}

export interface WebMode {
  readonly url: string;
  readonly workspace: string;
  readonly auditFile: string;
  /** The fleet store, its password masked (null: none). */
  readonly fleet: string | null;
  /** Stops the running missions and tool loops (`reason`: why, recorded with each), waits for them, and closes. */
  close(reason?: string): Promise<void>;
}

export async function serveWebMode(o: WebModeOptions): Promise<WebMode> {
  if (!uiBuilt())
    throw new WitnessError('invalid-input', `the UI is not built (${UI_DIR} has no index.html): run \`npm run build\``);
  const api = createDirectApi({
    transport: 'web',
    ...(o.workspace ? { workspace: o.workspace } : {}),
    ...(o.audit ? { auditFile: o.audit } : {}),
    ...(o.fleet ? { fleet: o.fleet } : {}),
  });
  mkdirSync(api.context.workspace, { recursive: true });
  const server = await startWebServer({
    dispatch: createDispatcher(api, (m, e) =>
      o.log(`web: ${m}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    ),
    bus: api.context.bus,
    root: UI_DIR,
    port: o.port,
    log: o.log,
  });
  return {
    url: server.url,
    workspace: api.context.workspace,
    auditFile: api.context.auditFile,
    fleet: api.context.fleet !== undefined ? redactStoreUrl(api.context.fleet) : null,
    close: async (reason) => {
      await server.close();
      await api.close(reason);
    },
  };
}
