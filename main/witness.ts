/**
 * The `witness` process: the CLI, with web mode provided to it (the CLI imports only the application
 * layer and the contract; this entry composes it with the API's web transport). An interrupted
 * process removes the temporary files of writes in flight, so a cancelled build or generation
 * leaves nothing half-written, and exits as the signal asks — after work that must stop cleanly (a
 * robot's running goal, a robot driven by velocity commands) has been stopped. SIGINT and SIGTERM are
 * Witness's alone: the ROS 2 backend removes the SIGINT handler that loading rclnodejs installs (it
 * would shut ROS 2 down at once, before the goal's cancel could be sent).
 */
import { type Output, processOutput } from './cli/errors.js';
import { type FrontEnds, run } from './cli/main.js';
import { removeInFlightWrites } from './platform/files.js';
import { interruptAll } from './platform/interrupt.js';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const frontEnds: FrontEnds = {
  web: async (o) => (await import('./api/web/serve.js')).serveWebMode(o),
};

export function main(argv: readonly string[], io: Output = processOutput): Promise<number> {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    let asked = false;
    process.on(signal, () => {
      // Work that must stop cleanly (a robot's goal to cancel) is asked first; a second signal exits.
      if (!asked && interruptAll(`interrupted (${signal})`)) {
        asked = true;
        io.err(`witness: ${signal}: stopping the robot first (its goal cancelled, or a zero velocity command); ${signal === 'SIGINT' ? 'Ctrl-C' : 'signal'} again to exit at once\n`);
        return;
      }
      removeInFlightWrites();
      io.err(`witness: ${signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : 'terminated (SIGTERM)'}\n`);
      // Exits even while a read waits (a FIFO nobody writes to): input files are read through pipe
      // handles and non-blocking descriptors (platform/input-files.ts), so no thread is held in a read.
      process.exit(code);
    });
  }
  return run(argv, io, frontEnds);
}

/** Whether this module is the process's entry (`node dist/main/witness.js …`), not imported by bin/witness.js. */
function isEntry(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

// Run directly, it is the command too (it used to exit 0 and do nothing).
if (isEntry()) process.exitCode = await main(process.argv.slice(2));
