/** `witness web`: the workbench UI and its API over HTTP and a WebSocket on 127.0.0.1 (web mode). */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { createDirectApi } from '../api/direct.js';
import { createDispatcher } from '../api/dispatch.js';
import { startWebServer } from '../api/web/server.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, intFlag } from './flags.js';

export const RENDERER_DIST = fileURLToPath(new URL('../../../renderer/dist', import.meta.url));

interface WebFlags { port: number; workspace?: string; audit?: string }

export function webCommand(io: Output, setExit: (c: number) => void): Command {
  return new Command('web')
    .description('serve the workbench UI and its API on 127.0.0.1 (web mode) and print its URL; Ctrl-C stops it')
    .option('--port <n>', 'port (0 = any free port)', intFlag('--port', 0, 65535), 0)
    .option('--workspace <dir>', 'the folder the editors open and save in (default: $WITNESS_WORKSPACE, else ~/witness-workspace)')
    .option('--audit <db>', 'the audit database missions are recorded in (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)')
    .action(action(io, setExit, async (o: WebFlags) => {
      if (!existsSync(path.join(RENDERER_DIST, 'index.html'))) throw new CliError(`the UI is not built (${RENDERER_DIST} has no index.html): run \`npm run build\``);
      const api = createDirectApi({ transport: 'web', ...(o.workspace ? { workspace: o.workspace } : {}), ...(o.audit ? { auditFile: o.audit } : {}) });
      mkdirSync(api.context.workspace, { recursive: true });
      const server = await startWebServer({
        dispatch: createDispatcher(api, (m, e) => io.err(`web: ${m}: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)),
        bus: api.context.bus, root: RENDERER_DIST, port: o.port, log: (s) => io.err(`${s}\n`),
      });
      io.out(`Witness web UI: ${server.url}\n`);
      io.err(`web: workspace ${api.context.workspace}; audit log ${api.context.auditFile}; listening on 127.0.0.1 only; Ctrl-C stops\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      await api.close();
      return EXIT.ok;
    }));
}
