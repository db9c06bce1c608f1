/**
 * `witness audit ls|show|query|export --from postgres://…`: the read commands on a fleet store, with the filters that
 * choose its sources (--source, --robot, --world, --host, --since, --until). `ls` and `query` print the lines and JSON
 * they print for a local log, each line after its source (host/robot/log id) and each JSON object with a `source`;
 * `show` and `export` read the mirror of the one source the filters (and the run) select (app/fleet-reads.ts).
 */
import type { Command } from 'commander';
import type { FleetQuery, SourceFilter, SourceRow } from '../app/fleet-reads.js';
import type { EventRow } from '../app/audit.js';
import { CliError, type Output } from './errors.js';
import { timeFlag } from './flags.js';
import { TAMPERED_RUNS_WARNING, printEvent, runLine } from './audit-lines.js';
import { printable, printableJson } from './printable.js';

const fleet = (): Promise<typeof import('../app/fleet-reads.js')> => import('../app/fleet-reads.js');

export interface FleetFlags {
  readonly source?: string;
  readonly robot?: string;
  readonly world?: string;
  readonly host?: string;
  readonly since?: number;
  readonly until?: number;
}

/** The options that choose a fleet store's sources. */
export function fleetFilterOptions(c: Command): Command {
  return c
    .option('--source <id>', 'fleet store: the source with this log id (or a unique prefix of it)')
    .option('--robot <name>', 'fleet store: the sources of this robot (or world, as pushed)')
    .option('--world <name>', 'fleet store: the runs of this world (and the sources that hold one)')
    .option('--host <name>', 'fleet store: the sources pushed from this host')
    .option(
      '--since <time>',
      'fleet store: from this time (ISO 8601, ms, or back from now: 7d, 12h)',
      timeFlag('--since'),
    )
    .option('--until <time>', 'fleet store: before this time', timeFlag('--until'));
}

const FILTERS = ['source', 'robot', 'world', 'host', 'since', 'until'] as const;

/**
 * Which the command reads: the local log `file` or the store `from`, exactly one (a usage error otherwise, and for a
 * filter without a store).
 */
export function targetOf(file: string | undefined, from: string | undefined, o: FleetFlags): 'file' | 'store' {
  if ((file === undefined) === (from === undefined))
    throw new CliError('name an audit database, or a fleet store with --from postgres://…, not both');
  const used = FILTERS.filter((k) => o[k] !== undefined);
  if (from === undefined && used.length > 0)
    throw new CliError(
      `${used.map((k) => `--${k}`).join(', ')} ${used.length === 1 ? 'filters' : 'filter'} a fleet store's sources: name one with --from postgres://…`,
    );
  if (o.since !== undefined && o.until !== undefined && o.until <= o.since)
    throw new CliError('--until must come after --since');
  return from === undefined ? 'file' : 'store';
}

/** The filters as the fleet reads take them. */
export function filterOf(o: FleetFlags, run?: string): SourceFilter {
  return {
    ...(o.source !== undefined ? { source: o.source } : {}),
    ...(o.robot !== undefined ? { robot: o.robot } : {}),
    ...(o.world !== undefined ? { world: o.world } : {}),
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(o.since !== undefined ? { since_ms: o.since } : {}),
    ...(o.until !== undefined ? { until_ms: o.until } : {}),
    ...(run !== undefined ? { run } : {}),
  };
}

/** `ls --from`: the runs of every selected source, each line after its source, each JSON object with it. */
export async function lsFleet(io: Output, url: string, f: SourceFilter, json: boolean): Promise<void> {
  const app = await fleet();
  let n = 0,
    tampered = false;
  for await (const { source, runs } of app.fleetRunPages(url, f)) {
    if (json)
      io.out(
        (n === 0 ? '[' : ',') + runs.map((r) => printableJson({ ...r, source: app.sourceJson(source) })).join(','),
      );
    else for (const r of runs) io.out(runLine(r, `${printable(app.sourceText(source))}  `));
    n += runs.length;
    tampered ||= runs.some((r) => r.tampered !== undefined);
  }
  if (json) io.out(n === 0 ? '[]\n' : ']\n');
  else if (tampered) io.err(TAMPERED_RUNS_WARNING);
}

/** `query --from`: the events of every selected source matching the query, in the order (source, seq). */
export async function queryFleet(
  io: Output,
  url: string,
  f: SourceFilter,
  q: FleetQuery,
  o: { after?: string; follow: boolean; json: boolean },
): Promise<void> {
  const app = await fleet();
  const audit = await import('../app/audit.js');
  const store = (await import('../app/fleet.js')).redactStoreUrl(url);
  const print = (s: SourceRow, e: EventRow): void => {
    if (o.json) io.out(printableJson({ ...audit.eventJson(store, e), source: app.sourceJson(s) }) + '\n');
    else printEvent(io, e, `${printable(app.sourceText(s))}  `);
  };
  await app.fleetQuery(url, f, q, {
    ...(o.after !== undefined ? { after: o.after } : {}),
    follow: o.follow,
    page: (rows) => {
      for (const r of rows) print(r.source, r.event);
    },
    incomplete: (next) =>
      io.err(`(the text search stopped at ${next} to keep the page quick: continue with --after ${next})\n`),
  });
}

/**
 * The mirror of the one source the filters select (`show`, `export`), brought up to the store: its file, read as a
 * local log. On a terminal, how many events it pulls.
 */
export async function mirrorOf(io: Output, url: string, f: SourceFilter, what: string): Promise<string> {
  const tty = process.stderr.isTTY === true;
  const r = await (
    await fleet()
  ).fleetMirror(
    url,
    f,
    what,
    tty ? { progress: (n) => io.err(`\rpulling the source into its mirror: ${n} events`) } : {},
  );
  if (tty && r.pulled > 0) io.err('\n');
  return r.file;
}
