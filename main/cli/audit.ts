/**
 * `witness audit …`: forensics on an audit database, always opened read-only; the read commands on a fleet store too
 * (--from postgres://…: cli/audit-fleet.ts).
 */
import { Command, Option } from 'commander';
import type { AuditExportFormat } from '../contract/api.js';
import type { EventQuery } from '../app/audit.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, durationFlag, intFlag, timeFlag } from './flags.js';
import { printable, printableJson } from './printable.js';
import { TAMPERED_RUNS_WARNING, printEvent, runHeader, runLine } from './audit-lines.js';
import {
  type FleetFlags,
  filterOf,
  fleetFilterOptions,
  lsFleet,
  mirrorOf,
  queryFleet,
  targetOf,
} from './audit-fleet.js';
import { registerAuditReport } from './audit-report.js';
import { registerAuditReplay } from './audit-replay.js';

const audit = (): Promise<typeof import('../app/audit.js')> => import('../app/audit.js');

const STORE_HELP = 'a fleet store (postgres://user@host:port/database; PG* variables fill in the rest)';

interface QueryFlags extends FleetFlags {
  run?: string;
  kind?: string;
  tool?: string;
  failure?: string;
  text?: string;
  from?: string;
  to?: number;
  after?: string;
  limit: number;
  follow?: boolean;
  json?: boolean;
}

function registerAuditLs(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const c = cmd
    .command('ls')
    .description(
      'the runs in an audit database, oldest first (printed as they are read: the first come at once however long the log)',
    )
    .argument('[db]', 'audit database')
    .option('--from <url>', STORE_HELP);
  fleetFilterOptions(c)
    .option('--json', 'JSON')
    .action(
      action(io, setExit, async (file: string | undefined, o: FleetFlags & { from?: string; json?: boolean }) => {
        if (targetOf(file, o.from, o) === 'store') return lsFleet(io, o.from!, filterOf(o), o.json === true);
        let n = 0,
          tampered = false;
        for await (const page of (await audit()).auditRunPages(file!)) {
          if (o.json) io.out((n === 0 ? '[' : ',') + page.map((r) => printableJson(r)).join(','));
          else for (const r of page) io.out(runLine(r));
          n += page.length;
          tampered ||= page.some((r) => r.tampered !== undefined);
        }
        if (o.json) io.out(n === 0 ? '[]\n' : ']\n');
        else if (tampered) io.err(TAMPERED_RUNS_WARNING);
      }),
    );
}

interface ShowFlags extends FleetFlags {
  from?: string;
  limit: number;
  json?: boolean;
}

function registerAuditShow(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const c = cmd
    .command('show')
    .description('one run: its metadata, specification and events')
    .usage('[options] <db> <run> | --from <url> [filters] <run>')
    .argument('[db]', 'audit database')
    .argument('[run]', 'run id (or a unique prefix)')
    .option('--from <url>', `${STORE_HELP}: the run of the one source the filters select`);
  fleetFilterOptions(c)
    .option('--limit <n>', 'events to show', intFlag('--limit', 1), 200)
    .option('--json', 'JSON')
    .action(
      action(io, setExit, async (a: string | undefined, b: string | undefined, o: ShowFlags) => {
        // With --from the one argument is the run.
        const [db, run] = o.from !== undefined && b === undefined ? [undefined, a] : [a, b];
        if (run === undefined) throw new CliError('name the run to show (its id, or a unique prefix)');
        const file = targetOf(db, o.from, o) === 'store' ? await mirrorOf(io, o.from!, filterOf(o, run), 'show') : db!;
        const app = await audit();
        const { run: r, spec, events } = app.auditRun(file, run, o.limit);
        if (o.json) io.out(printableJson({ run: r, spec, events: events.map((e) => app.eventJson(file, e)) }) + '\n');
        else {
          io.out(runHeader(r, spec));
          for (const e of events) printEvent(io, e);
        }
      }),
    );
}

function registerAuditQuery(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const c = cmd
    .command('query')
    .description(
      'events by run, time window, tool, kind, failure label and text, paged by sequence number; --follow tails new ones',
    )
    .argument('[db]', 'audit database')
    .option('--run <id>', 'run id')
    .option('--kind <k>', 'event kind (run_start, tool_call, failure_record, …; a wrong one lists them all)')
    .option('--tool <t>', 'tool')
    .option('--failure <label>', 'failure label')
    .option('--text <s>', 'free text inside the event body')
    .option(
      '--from <url|time>',
      `${STORE_HELP}, its events in the order (source, seq); or, on a local log, from this time (ISO 8601, ms, 7d)`,
    )
    .option('--to <time>', 'local log: up to this time', timeFlag('--to'))
    .option('--after <seq>', 'events after this sequence number (paging; on a fleet store SOURCE:SEQ, as shown)')
    .option('--limit <n>', 'page size', intFlag('--limit', 1, 100_000), 100)
    .option('--follow', 'keep printing new events as they are appended');
  fleetFilterOptions(c)
    .option('--json', 'JSON lines')
    .action(
      action(io, setExit, async (file: string | undefined, o: QueryFlags) => {
        const store = o.from !== undefined && (await import('../app/fleet.js')).isStoreUrl(o.from) ? o.from : undefined;
        const from = o.from !== undefined && store === undefined ? timeFlag('--from')(o.from) : undefined;
        const target = targetOf(file, store, o);
        if (target === 'store' && o.to !== undefined)
          throw new CliError('--to is the time window of a local log: on a fleet store use --since and --until');
        if (o.kind !== undefined) {
          const kinds = Object.keys((await import('../contract/audit-events.js')).AUDIT_EVENTS);
          if (!kinds.includes(o.kind))
            throw new CliError(
              `--kind must be an event kind the audit log records: ${kinds.join(', ')}; got '${o.kind}'`,
            );
        }
        const q: EventQuery = {
          ...(o.run !== undefined ? { run: o.run } : {}),
          ...(o.kind !== undefined ? { kind: o.kind } : {}),
          ...(o.tool !== undefined ? { tool: o.tool } : {}),
          ...(o.failure !== undefined ? { failureLabel: o.failure } : {}),
          ...(o.text !== undefined ? { text: o.text } : {}),
          ...(from !== undefined ? { from_ms: from } : {}),
          ...(o.to !== undefined ? { to_ms: o.to } : {}),
          limit: o.limit,
        };
        if (target === 'store')
          return queryFleet(io, store!, filterOf(o), q, {
            ...(o.after !== undefined ? { after: o.after } : {}),
            follow: o.follow === true,
            json: o.json === true,
          });
        const after = o.after !== undefined ? intFlag('--after', 0)(o.after) : undefined;
        const app = await audit();
        await app.auditQuery(file!, q, {
          ...(after !== undefined ? { after } : {}),
          follow: o.follow === true,
          page: (rows) => {
            for (const e of rows) {
              if (o.json) io.out(printableJson(app.eventJson(file!, e)) + '\n');
              else printEvent(io, e);
            }
          },
          incomplete: (next) =>
            io.err(
              `(the text search stopped at event ${next} to keep the page quick: continue with --after ${next})\n`,
            ),
        });
      }),
    );
}

function printVerify(io: Output, r: import('../app/audit.js').VerifyResult, file: string, notChecked: string): void {
  if (r.ok)
    io.out(
      `${file}: intact: ${r.events} events, ${r.runs} runs, ${r.blobs} blobs; head ${r.head} (record it elsewhere to detect a truncated tail)\n`,
    );
  else {
    const read =
      r.integrity === notChecked
        ? "no row was read: reading through a schema that is not Witness's could run its code"
        : `${r.events} events verified before it`;
    io.out(
      `${printable(`${file}: NOT intact: ${r.firstBad!.table} ${r.firstBad!.key}: ${r.firstBad!.reason} (${read})`)}\n`,
    );
    for (const p of r.problems)
      if (p !== r.firstBad) io.out(`  also: ${printable(`${p.table} ${p.key}: ${p.reason}`)}\n`);
  }
}

function printStoreVerify(io: Output, r: import('../app/fleet.js').StoreVerifyResult): void {
  const what = `${r.events} events, ${r.runs} runs, ${r.blobs} blobs in ${r.sources.length} source${r.sources.length === 1 ? '' : 's'}`;
  if (r.ok) io.out(`${r.store}: intact: ${what}\n`);
  else {
    io.out(
      `${printable(`${r.store}: NOT intact: ${r.firstBad!.table} ${r.firstBad!.key}: ${r.firstBad!.reason} (${what} verified before it)`)}\n`,
    );
    for (const p of r.problems)
      if (p !== r.firstBad) io.out(`  also: ${printable(`${p.table} ${p.key}: ${p.reason}`)}\n`);
  }
  for (const s of r.sources)
    io.out(
      `${printable(`  log ${s.log_id.slice(0, 16)}…  host ${s.host}  robot ${s.robot ?? '–'}  ${s.events} events, ${s.runs} runs; head ${s.head}`)}\n`,
    );
}

function registerAuditVerify(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('verify')
    .description(
      'check the hash chain of every event and blob; exit 0 when intact, 1 naming the first row that does not match',
    )
    .argument('[db]', 'audit database')
    .option('--from <url>', 'a fleet store (postgres://user@host:port/database; PG* variables fill in the rest)')
    .option('--json', 'JSON')
    .action(
      action(io, setExit, async (file: string | undefined, o: { from?: string; json?: boolean }) => {
        if ((file === undefined) === (o.from === undefined))
          throw new CliError('name an audit database, or a fleet store with --from postgres://…, not both');
        if (o.from !== undefined) {
          const r = await (await import('../app/fleet.js')).verifyFleet(o.from);
          if (o.json) io.out(printableJson(r) + '\n');
          else printStoreVerify(io, r);
          return r.ok ? EXIT.ok : EXIT.negative;
        }
        const app = await audit();
        const r = app.auditVerify(file!);
        if (o.json) io.out(printableJson(r) + '\n');
        else printVerify(io, r, file!, app.INTEGRITY_NOT_CHECKED);
        return r.ok ? EXIT.ok : EXIT.negative;
      }),
    );
}

interface PushFlags {
  to: string;
  host?: string;
  robot?: string;
  batch: number;
  watch?: boolean;
  interval: number;
  json?: boolean;
}

async function watchPush(io: Output, file: string, o: PushFlags): Promise<void> {
  const app = await import('../app/fleet.js');
  const started = Date.now();
  const r = await app.watchAudit(file, o.to, {
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(o.robot !== undefined ? { robot: o.robot } : {}),
    batch: o.batch,
    interval_ms: o.interval,
    note: (line) => io.err(`${printable(`push --watch: ${line}`)}\n`),
  });
  if (o.json) io.out(printableJson({ ...r, watched_s: (Date.now() - started) / 1000 }) + '\n');
  else
    io.out(
      `${printable(`${file} → ${r.store}: watched ${((Date.now() - started) / 1000).toFixed(1)} s, ${r.rounds} rounds; sent ${r.sent} events (the local log holds ${r.local}); ${r.retries} times the store could not be reached; ${r.stopped}; head ${r.head || '–'}`)}\n`,
    );
}

function registerAuditPush(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('push')
    .description(
      'copy a local audit log into a fleet store: verified first, then only the events the store lacks (idempotent, resumable); a log whose history does not extend what the store holds is refused; --watch keeps pushing as it grows',
    )
    .argument('<db>', 'audit database')
    .requiredOption(
      '--to <url>',
      'the fleet store (postgres://user@host:port/database; PG* variables fill in the rest)',
    )
    .option('--host <name>', "the log's host (default: this machine's name)")
    .option('--robot <name>', 'the robot or world the log records')
    .option('--batch <n>', 'events per transaction', intFlag('--batch', 1, 1_000_000), 5000)
    .option(
      '--watch',
      'keep pushing as the log grows, verifying only what is new; a store gone is tried again; Ctrl-C or SIGTERM stops it after the batch being sent',
    )
    .option(
      '--interval <duration>',
      'with --watch: the pause between rounds',
      durationFlag('--interval', 10, 3_600_000),
      2000,
    )
    .option('--json', 'JSON')
    .action(
      action(io, setExit, async (file: string, o: PushFlags) => {
        if (o.watch === true) return watchPush(io, file, o);
        const r = await (
          await import('../app/fleet.js')
        ).pushAudit(file, o.to, {
          ...(o.host !== undefined ? { host: o.host } : {}),
          ...(o.robot !== undefined ? { robot: o.robot } : {}),
          batch: o.batch,
        });
        if (o.json) io.out(printableJson(r) + '\n');
        else if (r.local === 0) io.out(`${file}: no events: nothing to push\n`);
        else
          io.out(
            `${printable(`${file} → ${r.store}: sent ${r.sent} events (the store held ${r.before} of ${r.local}); log ${r.log_id.slice(0, 16)}…, host ${r.host}, robot ${r.robot ?? '–'}; head ${r.head}`)}\n`,
          );
      }),
    );
}

function registerAuditInitStore(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('init-store')
    .description("create a fleet store's schema in a PostgreSQL database, or migrate it (as the database's owner)")
    .requiredOption('--to <url>', 'the database (postgres://owner@host:port/database)')
    .action(
      action(io, setExit, async (o: { to: string }) => {
        const app = await import('../app/fleet.js');
        const r = await app.initStore(o.to);
        io.out(
          r.from === r.to
            ? `${app.redactStoreUrl(o.to)}: the fleet schema is at version ${r.to} already\n`
            : `${app.redactStoreUrl(o.to)}: fleet schema version ${r.from} → ${r.to}\n`,
        );
      }),
    );
}

interface ExportFlags extends FleetFlags {
  from?: string;
  format: AuditExportFormat;
  out: string;
  json?: boolean;
}

function registerAuditExport(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const c = cmd
    .command('export')
    .description('export every event as JSON Lines, CSV or MCAP (Foxglove, Lichtblick)')
    .argument('[db]', 'audit database')
    .option('--from <url>', `${STORE_HELP}: the one source the filters select`)
    .addOption(new Option('--format <f>', 'output format').choices(['jsonl', 'csv', 'mcap']).makeOptionMandatory())
    .requiredOption('--out <file>', 'file to write');
  fleetFilterOptions(c)
    .option('--json', 'JSON summary')
    .action(
      action(io, setExit, async (db: string | undefined, o: ExportFlags) => {
        const file = targetOf(db, o.from, o) === 'store' ? await mirrorOf(io, o.from!, filterOf(o), 'export') : db!;
        const summary = await (await audit()).auditExport(file, o.format, o.out);
        io.out(
          o.json ? JSON.stringify({ out: o.out, format: o.format, summary }) + '\n' : `wrote ${o.out}: ${summary}\n`,
        );
      }),
    );
}

export function auditCommand(io: Output, setExit: (c: number) => void): Command {
  const cmd = new Command('audit').description(
    'the audit log: list runs, show one, query events, verify the hash chain, export, fleet reports (read-only); push to a fleet store',
  );
  registerAuditLs(cmd, io, setExit);
  registerAuditShow(cmd, io, setExit);
  registerAuditQuery(cmd, io, setExit);
  registerAuditVerify(cmd, io, setExit);
  registerAuditReplay(cmd, io, setExit);
  registerAuditExport(cmd, io, setExit);
  registerAuditPush(cmd, io, setExit);
  registerAuditInitStore(cmd, io, setExit);
  registerAuditReport(cmd, io, setExit);
  return cmd;
}
