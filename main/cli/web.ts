/** `witness web`: the workbench UI and its API over HTTP and a WebSocket on 127.0.0.1 (web mode). */
import { Command } from 'commander';
import { CliError, EXIT, type Output } from './errors.js';
import { action, intFlag } from './flags.js';

/**
 * Web mode, as the process entry provides it (the CLI itself imports only the app and the contract):
 * `stopped` resolves when Ctrl-C or SIGTERM asks it to end (why, and the code to exit with); `close`
 * stops the running missions and tool loops with that reason (a robot's goal cancelled) and waits for them.
 */
export type ServeWeb = (o: {
  port: number;
  workspace?: string;
  audit?: string;
  fleet?: string;
  log: (line: string) => void;
}) => Promise<{
  url: string;
  workspace: string;
  auditFile: string;
  /** The fleet store the Audit tab reads, its password masked (null: none). */
  fleet: string | null;
  stopped: Promise<{ reason: string; code: number }>;
  close(reason?: string): Promise<void>;
}>;

interface WebFlags {
  port: number;
  workspace?: string;
  audit?: string;
  fleet?: string;
}

export function webCommand(io: Output, setExit: (c: number) => void, serve?: ServeWeb): Command {
  return new Command('web')
    .description('serve the workbench UI and its API on 127.0.0.1 (web mode) and print its URL; Ctrl-C stops it')
    .option('--port <n>', 'port (0 = any free port)', intFlag('--port', 0, 65535), 0)
    .option(
      '--workspace <dir>',
      'the folder the editors open and save in (default: $WITNESS_WORKSPACE, else ~/witness-workspace)',
    )
    .option(
      '--audit <db>',
      'the audit database missions are recorded in (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)',
    )
    .option(
      '--fleet <url>',
      'a fleet store (postgres://…) the Audit tab browses; the PG* variables fill in what the URL leaves out, and its password stays in this process (default: $WITNESS_FLEET, else none)',
    )
    .action(
      action(io, setExit, async (o: WebFlags) => {
        const fleet = o.fleet ?? process.env['WITNESS_FLEET'];
        // Loaded here, not at start-up: the fleet module brings the store's driver and SQLite with it.
        const { isStoreUrl, redactStoreUrl } = await import('../app/fleet.js');
        if (fleet !== undefined && fleet !== '' && !isStoreUrl(fleet))
          throw new CliError(
            `${o.fleet !== undefined ? '--fleet' : '$WITNESS_FLEET'}: ${redactStoreUrl(fleet)} is not a PostgreSQL URL (postgres://user@host:port/database)`,
            EXIT.usage,
          );
        if (serve === undefined)
          throw new CliError(
            'web mode is started by the witness command (bin/witness.js), not by this embedding of the CLI',
            EXIT.internal,
          );
        const web = await serve({
          port: o.port,
          log: (s) => io.err(`${s}\n`),
          ...(o.workspace ? { workspace: o.workspace } : {}),
          ...(o.audit ? { audit: o.audit } : {}),
          ...(fleet ? { fleet } : {}),
        });
        io.out(`Witness web UI: ${web.url}\n`);
        io.err(
          `web: workspace ${web.workspace}; audit log ${web.auditFile}${web.fleet !== null ? `; fleet store ${web.fleet}` : ''}; listening on 127.0.0.1 only; Ctrl-C stops\n`,
        );
        const { reason, code } = await web.stopped;
        await web.close(reason);
        io.err(`web: ${reason}: closed (running missions and tool loops stopped first)\n`);
        return code;
      }),
    );
}
