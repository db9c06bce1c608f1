/** `--foxglove PORT` on the commands that run something (run, act): the run served live to Foxglove or Lichtblick. */
import type { Command } from 'commander';
import { auditFileOf } from '../app/audit-log.js';
import { CliError, type Output } from './errors.js';
import { intFlag } from './flags.js';

export interface FoxgloveFlags {
  readonly foxglove?: number;
  readonly foxgloveHost?: string;
  readonly foxgloveAllowRemote?: boolean;
  readonly audit: string | boolean;
}

export function foxgloveOptions(c: Command): Command {
  return c
    .option(
      '--foxglove <port>',
      'serve the run live over the Foxglove WebSocket protocol on this port (0: any free one), for Foxglove or Lichtblick: robot pose, scene, log',
      intFlag('--foxglove', 0, 65535),
    )
    .option(
      '--foxglove-host <host>',
      'address to serve --foxglove on (default: 127.0.0.1; others need --foxglove-allow-remote)',
    )
    .option('--foxglove-allow-remote', 'let --foxglove-host be a non-loopback address (other machines can watch)');
}

/**
 * Runs `work` with the live server up when --foxglove asks for it, and closes it after (what the log holds is sent
 * first).
 */
export async function withFoxglove<T>(io: Output, o: FoxgloveFlags, work: () => Promise<T>): Promise<T> {
  if (o.foxglove === undefined) {
    if (o.foxgloveHost !== undefined || o.foxgloveAllowRemote === true)
      throw new CliError('--foxglove-host and --foxglove-allow-remote go with --foxglove PORT');
    return work();
  }
  const file = auditFileOf(o.audit);
  if (file === null) throw new CliError('--foxglove serves the run from its audit log: drop --no-audit');
  const { serveFoxgloveLive } = await import('../app/foxglove.js');
  const live = await serveFoxgloveLive({
    port: o.foxglove,
    auditFile: file,
    ...(o.foxgloveHost !== undefined ? { host: o.foxgloveHost } : {}),
    ...(o.foxgloveAllowRemote === true ? { allowRemote: true } : {}),
    log: (line) => io.err(`${line}\n`),
  });
  io.err(
    `foxglove: serving the run live on ${live.url} (in Foxglove or Lichtblick: Open connection → Foxglove WebSocket; layout: docs/foxglove/witness-layout.json)\n`,
  );
  try {
    return await work();
  } finally {
    await live.close();
    io.err(`foxglove: sent ${live.sent.pose} poses, ${live.sent.scene} scenes, ${live.sent.log} log lines\n`);
  }
}
