/**
 * The fleet store benchmark (`witness bench fleet`), on a real PostgreSQL (fleet-server.ts). Twenty lab PCs' logs
 * are written by the audit writer itself (fleet-data.ts) and pushed with `witness audit push`'s code, each push in a
 * process of its own (fleet-worker.ts): first one PC alone into a scratch database (the warm-up: a server that has
 * run recycles its WAL files, a new one creates each on first use), then the same into the store, then four at once,
 * then the other fifteen (a bulk load:
 * the owner turns the per-row chain-link trigger off while they load, and on again before verifying); then
 * `verify --from` over the whole store, the failures report over it (with the plans PostgreSQL chose), and the
 * store's size against the SQLite files of the same events. Every figure has a baseline measured in the same run:
 * push and verify against verifying the same log locally, the report against the same statements with index scans
 * turned off, the size against SQLite's.
 */
import { availableParallelism } from 'node:os';
import { statSync } from 'node:fs';
import { scratchFolder } from '../platform/scratch.js';
import { join } from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { openAuditReadOnly } from '../services/audit/store.js';
import { verifyChain } from '../services/audit/forensics.js';
import { requireStoreUrl } from '../services/fleet/store.js';
import { initStore } from '../app/fleet.js';
import { verifyStore } from '../services/fleet/verify.js';
import { type FleetLogJob, fleetHost, fleetRobot } from './fleet-data.js';
import { type FleetJob, type FleetReply, forkFleetJob } from './fleet-worker.js';
import { type BenchServer, openBenchServer } from './fleet-server.js';
import { fmt } from './stats.js';
import {
  type ReportFigure,
  storeBytes,
  timeReports,
  vacuumAnalyze,
  withoutLinkTrigger,
} from '../services/fleet/bench-store.js';

export interface FleetBenchOptions {
  /** Events of the one-PC push, and of the four-PC push in all. */
  readonly events: number;
  /** Events in the store when it is verified and reported on (all twenty sources). */
  readonly verifyEvents: number;
  /** A server to measure on (the benchmark works in a database of its own there); else a private one. */
  readonly to?: string;
  readonly progress?: (line: string) => void;
}

interface PushFigure {
  readonly processes: number;
  readonly logs: number;
  readonly events: number;
  readonly s: number;
  readonly perSecond: number;
  /** The slowest process's own rate, and the fastest's. */
  readonly perProcess: { readonly min: number; readonly max: number };
}

export interface FleetBenchResult {
  readonly store: string;
  readonly server_version: string;
  /** How the store's content was made. */
  readonly content: string;
  readonly sources: number;
  readonly weeks: number;
  readonly generate: {
    readonly events: number;
    readonly runs: number;
    readonly failures: number;
    readonly estops: number;
    readonly s: number;
    readonly processes: number;
  };
  /** The baseline of push and verify: `witness audit verify` of the one PC's log, here. */
  readonly localVerify: { readonly events: number; readonly s: number; readonly perSecond: number };
  /**
   * The one PC's push into a scratch database first, to warm the server: a server that has run recycles its WAL
   * files, a new one creates (and zero-fills) each on first use. On a private server this is its first push.
   */
  readonly push1Warmup: PushFigure;
  readonly push1: PushFigure;
  readonly push4: PushFigure;
  readonly pushRest: PushFigure;
  readonly verify: {
    readonly events: number;
    readonly sources: number;
    readonly runs: number;
    readonly blobs: number;
    readonly ok: boolean;
    readonly s: number;
    readonly perSecond: number;
  };
  readonly reports: readonly ReportFigure[];
  readonly size: {
    /** After the one PC's push: the store holding that log alone, and the log's file. */
    readonly onePc: { readonly events: number; readonly storeBytes: number; readonly sqliteBytes: number };
    readonly all: { readonly events: number; readonly storeBytes: number; readonly sqliteBytes: number };
  };
}

const FLEET_SOURCES = 20;
const WEEKS = 4;
const DAY_MS = 86_400_000;
/** Sources pushed after the one PC and the four: the rest of the twenty. */
const REST = FLEET_SOURCES - 5;
const MIN_REST_EVENTS = 100;

/** The smallest --verify-events for --events `events`: both pushes' events, and the other sources' share. */
const minVerifyEvents = (events: number): number => 2 * events + REST * MIN_REST_EVENTS;

/** `total` split into `parts` nearly equal counts. */
function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** The twenty logs: the one PC's, the four PCs', the fifteen others'. */
function logJobs(dir: string, o: FleetBenchOptions, now: number): FleetLogJob[] {
  const sizes = [o.events, ...split(o.events, 4), ...split(o.verifyEvents - 2 * o.events, REST)];
  return sizes.map((events, source) => ({
    file: join(dir, `${fleetHost(source)}.sqlite`),
    source,
    events,
    from_ms: now - WEEKS * 7 * DAY_MS,
    to_ms: now,
    seed: 1,
  }));
}

/** Runs `jobs` each in a process of its own, all at once. */
async function inProcesses(jobs: readonly FleetJob[]): Promise<FleetReply[]> {
  return Promise.all(jobs.map((j) => forkFleetJob(j)));
}

/** Writes the logs in a few processes at once (the largest first, each to the least loaded process). */
async function writeLogs(logs: readonly FleetLogJob[]): Promise<FleetBenchResult['generate']> {
  // At least four: a writer waits on its fsyncs (one per run started) as much as it computes.
  const processes = Math.max(4, Math.min(8, availableParallelism()));
  const shares: FleetLogJob[][] = Array.from({ length: processes }, () => []);
  const load = new Array<number>(processes).fill(0);
  for (const l of [...logs].sort((a, b) => b.events - a.events)) {
    const i = load.indexOf(Math.min(...load));
    shares[i]!.push(l);
    load[i]! += l.events;
  }
  const t0 = performance.now();
  const replies = await inProcesses(shares.filter((s) => s.length > 0).map((s) => ({ op: 'write', logs: s })));
  const written = replies.flatMap((r) => (r.op === 'write' ? r.written : []));
  return {
    events: written.reduce((n, w) => n + w.events, 0),
    runs: written.reduce((n, w) => n + w.runs, 0),
    failures: written.reduce((n, w) => n + w.failures, 0),
    estops: written.reduce((n, w) => n + w.estops, 0),
    s: (performance.now() - t0) / 1000,
    processes,
  };
}

/** Pushes `logs` from `processes` processes at once (the logs dealt out in turn). */
async function pushLogs(url: string, logs: readonly FleetLogJob[], processes: number): Promise<PushFigure> {
  const jobs: FleetJob[] = Array.from({ length: processes }, (_, p) => ({
    op: 'push',
    url,
    logs: logs
      .filter((_, i) => i % processes === p)
      .map((l) => ({ file: l.file, host: fleetHost(l.source), robot: fleetRobot(l.source) })),
  }));
  const replies = (await inProcesses(jobs)).flatMap((r) => (r.op === 'push' ? [r] : []));
  const events = replies.reduce((n, r) => n + r.sent, 0);
  const expected = logs.reduce((n, l) => n + l.events, 0);
  if (events !== expected)
    throw new WitnessError('internal', `bench fleet: the pushes sent ${events} events, the logs hold ${expected}`);
  const s = (Math.max(...replies.map((r) => r.end_ms)) - Math.min(...replies.map((r) => r.start_ms))) / 1000;
  const rates = replies.map((r) => r.sent / ((r.end_ms - r.start_ms) / 1000));
  return {
    processes,
    logs: logs.length,
    events,
    s,
    perSecond: events / s,
    perProcess: { min: Math.min(...rates), max: Math.max(...rates) },
  };
}

/** `witness audit verify` of a local log, timed (the chain and SQLite's quick_check, as the command runs them). */
function verifyLocal(file: string): FleetBenchResult['localVerify'] {
  const db = openAuditReadOnly(file);
  try {
    const t0 = performance.now();
    const v = verifyChain(db);
    const s = (performance.now() - t0) / 1000;
    if (!v.ok) throw new WitnessError('internal', `bench fleet: the generated log ${file} does not verify`);
    return { events: v.events, s, perSecond: v.events / s };
  } finally {
    db.close();
  }
}

async function timedVerify(url: string): Promise<FleetBenchResult['verify']> {
  const t0 = performance.now();
  const v = await verifyStore(url);
  const s = (performance.now() - t0) / 1000;
  return {
    events: v.events,
    sources: v.sources.length,
    runs: v.runs,
    blobs: v.blobs,
    ok: v.ok,
    s,
    perSecond: v.events / s,
  };
}

/** The one PC's push into a scratch database of the server (dropped after): the warm-up's figure. */
async function warmUp(server: BenchServer, log: FleetLogJob): Promise<PushFigure> {
  const db = await server.scratch();
  try {
    await initStore(db.url);
    return await pushLogs(db.url, [log], 1);
  } finally {
    await db.drop();
  }
}

const fileBytes = (logs: readonly FleetLogJob[]): number => logs.reduce((n, l) => n + statSync(l.file).size, 0);

export async function runFleetBench(o: FleetBenchOptions): Promise<FleetBenchResult> {
  if (o.verifyEvents < minVerifyEvents(o.events))
    throw new WitnessError(
      'invalid-input',
      `--verify-events ${o.verifyEvents} is too few: the store holds the one PC's --events, the four PCs' as many, and ${REST} more sources of at least ${MIN_REST_EVENTS} each (at least ${minVerifyEvents(o.events)} for --events ${o.events})`,
      { path: '--verify-events' },
    );
  if (o.to !== undefined) requireStoreUrl(o.to);
  const say = o.progress ?? (() => {});
  // The logs' folder is removed however the process ends (platform/scratch.ts).
  const scratch = scratchFolder('witness-bench-fleet-');
  const dir = scratch.dir;
  try {
    const now = Date.now();
    const logs = logJobs(dir, o, now);
    say(`writing ${FLEET_SOURCES} logs (${o.verifyEvents} events)`);
    const generate = await writeLogs(logs);
    say('verifying the one PC log locally (the baseline)');
    const localVerify = verifyLocal(logs[0]!.file);
    const server = await openBenchServer(o.to);
    try {
      const url = server.url;
      await initStore(url);
      say('warming the server: the one PC pushed into a scratch database first');
      const push1Warmup = await warmUp(server, logs[0]!);
      say('pushing from one PC');
      const push1 = await pushLogs(url, logs.slice(0, 1), 1);
      const onePc = { events: o.events, storeBytes: await storeBytes(url), sqliteBytes: fileBytes(logs.slice(0, 1)) };
      say('pushing from four PCs at once');
      const push4 = await pushLogs(url, logs.slice(1, 5), 4);
      say(`pushing the other ${REST} sources (bulk load: the chain-link trigger off)`);
      const pushRest = await withoutLinkTrigger(url, () => pushLogs(url, logs.slice(5), 4));
      say('vacuum analyze');
      await vacuumAnalyze(url);
      say(`verify --from (${o.verifyEvents} events)`);
      const verify = await timedVerify(url);
      say('failures report');
      const reports = await timeReports(url, now);
      const all = { events: o.verifyEvents, storeBytes: await storeBytes(url), sqliteBytes: fileBytes(logs) };
      return {
        store: server.where,
        server_version: server.version,
        content: `${FLEET_SOURCES} SQLite logs written by the audit writer (its hash chain, run rows and blobs; the clock moved by hand over ${WEEKS} weeks), pushed with \`witness audit push\`'s code, one process per pushing PC (the last ${REST} with the chain-link trigger disabled by the owner while they load, enabled again before \`verify --from\` re-checks every link); then VACUUM ANALYZE (what autovacuum does on a live server)`,
        sources: FLEET_SOURCES,
        weeks: WEEKS,
        generate,
        localVerify,
        push1Warmup,
        push1,
        push4,
        pushRest,
        verify,
        reports,
        size: { onePc, all },
      };
    } finally {
      await server.close();
    }
  } finally {
    scratch.remove();
  }
}

const mib = (b: number): string => fmt(b / 2 ** 20, 0);
const perMillion = (bytes: number, events: number): number => bytes / (events / 1e6);

/** The figures as a Markdown table with the plans' lines that name the indexes. */
export function fleetTable(r: FleetBenchResult): string {
  const lv = r.localVerify;
  const push = (p: PushFigure, what: string): string =>
    `| push ${what}: ${p.events} events from ${p.logs} log${p.logs > 1 ? 's' : ''}, ${p.processes} process${p.processes > 1 ? 'es' : ''} at once | ${fmt(p.perSecond, 0)} events/s (${fmt(p.s, 1)} s${p.processes > 1 ? `; each process ${fmt(p.perProcess.min, 0)}–${fmt(p.perProcess.max, 0)} events/s` : ''}) | push / local verify ${fmt(p.perSecond / lv.perSecond, 2)}`;
  const size = (s: FleetBenchResult['size']['onePc'], what: string): string =>
    `| store size, ${what} (${s.events} events) | ${mib(s.storeBytes)} MiB, ${mib(perMillion(s.storeBytes, s.events))} MiB per million events | SQLite ${mib(s.sqliteBytes)} MiB (${mib(perMillion(s.sqliteBytes, s.events))} per million); store / SQLite ${fmt(s.storeBytes / s.sqliteBytes, 2)} |`;
  const lines = [
    '| measure | figure | baseline (same run) |',
    '|---|---|---|',
    `| baseline: \`witness audit verify\` of the one PC's log, locally (${lv.events} events) | ${fmt(lv.perSecond, 0)} events/s (${fmt(lv.s, 2)} s) | — |`,
    `${push(r.push1Warmup, 'from one PC into a scratch database first (the warm-up: a new server creates its WAL files)')} |`,
    `${push(r.push1, 'from one PC')}; one / warm-up ${fmt(r.push1.perSecond / r.push1Warmup.perSecond, 2)} |`,
    `${push(r.push4, 'from four PCs at once')}; four / one ${fmt(r.push4.perSecond / r.push1.perSecond, 2)} |`,
    `${push(r.pushRest, `the other ${r.pushRest.logs} sources, as a bulk load (chain-link trigger off)`)} |`,
    `| \`verify --from\`: ${r.verify.events} events, ${r.verify.sources} sources, ${r.verify.runs} runs, ${r.verify.blobs} blobs | ${fmt(r.verify.s, 1)} s, ${fmt(r.verify.perSecond, 0)} events/s (${r.verify.ok ? 'intact' : 'NOT intact'}) | store / local verify ${fmt(r.verify.perSecond / lv.perSecond, 2)} events/s |`,
    ...r.reports.map(
      (q) =>
        `| report: ${q.name} (${q.rows} rows, ${q.failures} failure records) | p50 ${fmt(q.p50_ms, 1)} ms, max ${fmt(q.max_ms, 1)} ms; indexes: ${q.indexes.join(', ') || 'none'} | without index scans ${fmt(q.seqscan_ms, 1)} ms (report / that ${fmt(q.p50_ms / q.seqscan_ms, 3)}) |`,
    ),
    size(r.size.onePc, "the one PC's log alone"),
    size(r.size.all, `all ${r.sources} sources`),
  ];
  const plans = r.reports.map(
    (q) =>
      `EXPLAIN ANALYZE, ${q.name}:\n\n` +
      q.plan
        .filter((l) => /Index|Scan on|Filter|Cond|Execution Time|Planning Time/.test(l))
        .map((l) => `    ${l}`)
        .join('\n'),
  );
  return [
    `Store: ${r.store}, PostgreSQL ${r.server_version}. Content: ${r.content}; ${r.generate.events} events, ${r.generate.runs} runs, ${r.generate.failures} failures, ${r.generate.estops} E-STOPs (written in ${fmt(r.generate.s, 1)} s by ${r.generate.processes} processes).`,
    '',
    lines.join('\n'),
    '',
    plans.join('\n\n'),
  ].join('\n');
}
