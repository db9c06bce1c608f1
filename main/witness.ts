/**
 * The `witness` process: the CLI, with web mode provided to it (the CLI imports only the
 * application layer and the contract; this entry composes it with the API's web transport). Ctrl-C
 * and SIGTERM end it within moments whatever it is doing: while nothing needs a clean stop the
 * signals keep their default action (the kernel ends the process, even in the middle of a
 * synchronous read, decode or translation); while something does (platform/interrupt.ts
 * holdSignals: an atomic write's temporary file, a robot's running goal or a robot driven by
 * velocity commands, web mode), the handler below is installed: it stops that work first (the goal
 * cancelled, or a zero velocity command; web mode closes, its running missions and tool loops
 * stopped and their goals cancelled), removes the temporary files of writes in flight, so a
 * cancelled build or generation leaves nothing half-written, stops what the process started (a
 * benchmark's private PostgreSQL), and exits 130 (Ctrl-C) or 143 (SIGTERM). SIGINT and SIGTERM are
 * Witness's alone: the ROS 2 backend removes the SIGINT handler that loading rclnodejs installs (it
 * would shut ROS 2 down at once, before the goal's cancel could be sent).
 */
import { type Output, processOutput } from './cli/errors.js';
import { type FrontEnds, run } from './cli/main.js';
import { removeInFlightWrites } from './platform/files.js';
import { interruptAll, interruptible, runCleanups, stopping, watchSignalHolds } from './platform/interrupt.js';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The signal the handler is answering (web mode exits with its code once it has closed). */
let received: { readonly reason: string; readonly code: number } = { reason: 'interrupted (SIGINT)', code: 130 };

const frontEnds: FrontEnds = {
  web: async (o) => {
    // The first Ctrl-C or SIGTERM closes web mode cleanly: its running missions and tool loops stop
    // (a robot's goal cancelled) before it exits; the signals stay held until it has closed, so a
    // second one exits at once.
    const stop = interruptible(
      "stopping the running missions and tool loops first (a robot's goal cancelled), then closing web mode",
    );
    try {
      const web = await (await import('./api/web/serve.js')).serveWebMode(o);
      const stopped = new Promise<{ reason: string; code: number }>((resolve) =>
        stop.signal.addEventListener('abort', () => resolve(received), { once: true }),
      );
      return {
        ...web,
        stopped,
        close: async (reason?: string) => {
          try {
            await web.close(reason);
          } finally {
            stop.release();
          }
        },
      };
    } catch (e) {
      stop.release();
      throw e;
    }
  },
};

let installed = false;

/** The handlers, installed while a hold is taken (so never while the signals must keep their default action). */
function handleSignals(io: Output): void {
  if (installed) return;
  installed = true;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    let asked = false;
    const handler = (): void => {
      // Work that must stop cleanly (a robot's goal to cancel) is asked first; a second signal exits.
      const what = stopping();
      received = { reason: `interrupted (${signal})`, code };
      if (!asked && interruptAll(received.reason)) {
        asked = true;
        io.err(
          `witness: ${signal}: ${what.join('; ')}; ${signal === 'SIGINT' ? 'Ctrl-C' : 'signal'} again to exit at once\n`,
        );
        return;
      }
      removeInFlightWrites();
      runCleanups();
      io.err(`witness: ${signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : 'terminated (SIGTERM)'}\n`);
      // Exits even while a read waits (a FIFO nobody writes to): input files are read through pipe
      // handles and non-blocking descriptors (platform/input-files.ts), so no thread is held in a read.
      process.exit(code);
    };
    return [signal, handler] as const;
  });
  watchSignalHolds((held) => {
    for (const [signal, handler] of handlers) {
      if (held) process.on(signal, handler);
      else process.removeListener(signal, handler);
    }
  });
}

export function main(argv: readonly string[], io: Output = processOutput): Promise<number> {
  handleSignals(io);
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
