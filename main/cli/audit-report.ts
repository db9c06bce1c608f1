/** `witness audit report failures|replans|estops`: the fleet reports, on a fleet store (--from) or a local log. */
import { Command, Option } from 'commander';
import { CliError, type Output } from './errors.js';
import { action, timeFlag } from './flags.js';
import { printable, printableJson } from './printable.js';

const app = (): Promise<typeof import('../app/audit-report.js')> => import('../app/audit-report.js');

interface ReportFlags {
  from?: string;
  by?: string;
  every?: 'hour' | 'day' | 'week';
  source?: string;
  robot?: string;
  world?: string;
  host?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

/** A time flag's value (contract/time.ts); a usage error (exit 2) names the flag. */
function timeOf(flag: string, v: string | undefined, now: number): number | undefined {
  return v === undefined ? undefined : timeFlag(flag, () => now)(v);
}

/** The report's target and query from its flags; usage errors (exit 2) for what does not make sense. */
async function queryOf(file: string | undefined, o: ReportFlags) {
  const a = await app();
  if ((file === undefined) === (o.from === undefined))
    throw new CliError('name an audit database, or a fleet store with --from postgres://…, not both');
  if (file !== undefined && (o.robot !== undefined || o.host !== undefined))
    throw new CliError(
      '--robot and --host filter a fleet store (--from): a local log does not record its robot or host (they are recorded when it is pushed)',
    );
  if (o.source !== undefined && !/^[0-9a-f]{1,64}$/.test(o.source))
    throw new CliError(`--source must be a log id or a prefix of one (hexadecimal), got '${o.source}'`);
  const now = Date.now();
  const since = timeOf('--since', o.since, now);
  const until = timeOf('--until', o.until, now);
  if (since !== undefined && until !== undefined && until <= since)
    throw new CliError(`--until must come after --since (${o.until} is not after ${o.since})`);
  let by = a.DEFAULT_REPORT_KEYS;
  if (o.by !== undefined) {
    const keys = a.parseReportKeys(o.by);
    if (typeof keys === 'string') throw new CliError(`--by: ${keys}`);
    by = keys;
  }
  const filter = {
    ...(o.source !== undefined ? { source: o.source } : {}),
    ...(o.robot !== undefined ? { robot: o.robot } : {}),
    ...(o.world !== undefined ? { world: o.world } : {}),
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(since !== undefined ? { since_ms: since } : {}),
    ...(until !== undefined ? { until_ms: until } : {}),
  };
  const target = o.from !== undefined ? { url: o.from } : { file: file! };
  return { target, q: { by, every: o.every ?? null, filter } };
}

function withFilters(c: Command): Command {
  return c
    .argument('[db]', 'audit database (a local log)')
    .option('--from <url>', 'a fleet store (postgres://user@host:port/database; PG* variables fill in the rest)')
    .option('--source <log-id>', 'only this source (its log id, or a prefix of it)')
    .option('--robot <name>', 'only sources pushed for this robot (fleet store)')
    .option('--world <name>', 'only runs in this world')
    .option('--host <name>', 'only sources pushed from this host (fleet store)')
    .option('--since <time>', 'from this time: 7d, 12h, 30m back from now, ISO 8601, or ms since 1970')
    .option('--until <time>', 'before this time (same forms)')
    .option('--json', 'JSON');
}

export function registerAuditReport(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const report = cmd
    .command('report')
    .description('fleet reports: failures by tool, verifier, kind, robot…; replans per run; E-STOPs with who and why');
  const print = (lines: string[]): void => io.out(lines.map((l) => printable(l) + '\n').join(''));
  withFilters(
    report
      .command('failures')
      .description('failure records grouped by the keys, with counts and first and last time (over time with --every)')
      .option(
        '--by <keys>',
        'comma-separated keys: tool, verifier, kind, robot, source, world, host (default tool,robot)',
      )
      .addOption(new Option('--every <span>', 'count per hour, day or week (UTC)').choices(['hour', 'day', 'week'])),
  ).action(
    action(io, setExit, async (file: string | undefined, o: ReportFlags) => {
      const { target, q } = await queryOf(file, o);
      const a = await app();
      const r = await a.reportFailures(target, q);
      if (o.json) io.out(printableJson(r) + '\n');
      else print(a.failuresText(r));
    }),
  );
  withFilters(
    report
      .command('replans')
      .description('replans and escalations per run (mission or tool loop): counts, outcome, robot, world'),
  ).action(
    action(io, setExit, async (file: string | undefined, o: ReportFlags) => {
      const { target, q } = await queryOf(file, o);
      const a = await app();
      const r = await a.reportReplans(target, q);
      if (o.json) io.out(printableJson(r) + '\n');
      else print(a.replansText(r));
    }),
  );
  withFilters(
    report
      .command('estops')
      .description('every E-STOP: when, who (operator, window, source), why, the run and robot, and its reset'),
  ).action(
    action(io, setExit, async (file: string | undefined, o: ReportFlags) => {
      const { target, q } = await queryOf(file, o);
      const a = await app();
      const r = await a.reportEstops(target, q);
      if (o.json) io.out(printableJson(r) + '\n');
      else print(a.estopsText(r));
    }),
  );
}
