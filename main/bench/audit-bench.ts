/**
 * The audit log benchmark: sustained durable appends (each acknowledged event committed with fsync,
 * batched per tick) against the same rows inserted with no durability in one transaction (the
 * ceiling, in the same process); the same appends from several writer processes at once on one
 * database; filtered, paged queries over the whole log; verification of the whole hash chain.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuditLog, openAuditReadOnly } from '../services/audit/store.js';
import { queryPage, verifyChain } from '../services/audit/forensics.js';
import { undurableInsertRate } from '../services/audit/baseline.js';
import { fmt, summarize } from './stats.js';
import type { AuditEventBody } from '../contract/audit-events.js';
import type { WriterJob, WriterMessage } from './audit-writer.js';
import { WitnessError } from '../contract/errors.js';
import { scratchFolder } from '../platform/scratch.js';

export interface AuditBenchResult {
  readonly events: number;
  readonly append_s: number;
  readonly appendPerSecond: number;
  readonly baselinePerSecond: number;
  readonly queries: readonly {
    readonly name: string;
    readonly p50_ms: number;
    readonly max_ms: number;
    readonly rows: number;
  }[];
  readonly verify_s: number;
  /** SQLite's quick_check, which `witness audit verify` also runs. */
  readonly integrity_s: number;
  readonly verifyOk: boolean;
  readonly fileMiB: number;
  /** The same number of events from `writers` processes at once on one database (absent with one writer). */
  readonly concurrent?: {
    readonly writers: number;
    readonly events: number;
    readonly append_s: number;
    readonly appendPerSecond: number;
    /** The slowest writer's own rate, and the fastest's. */
    readonly perWriter: { readonly min: number; readonly max: number };
    readonly verifyOk: boolean;
    readonly runs: number;
  };
}

const TOOLS = ['pick', 'place', 'move_to', 'open_gripper', 'close_gripper'];

type Row =
  | { kind: 'tool_call'; body: AuditEventBody<'tool_call'>; tool: string; failure?: undefined }
  | { kind: 'verifier_result'; body: AuditEventBody<'verifier_result'>; tool: string; failure?: undefined }
  | { kind: 'failure_record'; body: AuditEventBody<'failure_record'>; tool: string; failure: string };

/** Event bodies as the tool loop records them (audit event catalogue), a realistic mix and size. */
export function benchEvent(i: number): Row {
  const k = i % 10;
  if (k === 9) {
    const label = i % 20 === 9 ? 'grasp-missed' : 'timeout';
    const width = 0.4 + (i % 7) / 10;
    return {
      kind: 'failure_record',
      tool: 'pick',
      failure: label,
      body: {
        source: 'tool',
        tool: 'pick',
        args: { target: 'red_mug' },
        violated: 'grasp_success',
        expr: 'gripper.width_cm > 1.5',
        observed: { 'gripper.width_cm': width },
        t_s: i / 100,
        class: 'transient',
        label,
        stage: 'postcondition',
        subtask: 0,
        state: { gripper: { width_cm: width, holding: '' } },
      },
    };
  }
  if (k % 2 === 1)
    return {
      kind: 'verifier_result',
      tool: 'place',
      body: {
        tool: 'place',
        postcondition: 'on_tray',
        expr: 'objects.red_mug.on == "tray"',
        pass: i % 3 !== 0,
        observed: { 'objects.red_mug.on': 'tray' },
      },
    };
  const tool = TOOLS[i % TOOLS.length]!;
  return {
    kind: 'tool_call',
    tool,
    body: {
      tool,
      arguments: { object: `mug_${i % 50}`, approach_height_cm: 5 + (i % 4) },
      start_s: i / 100,
      end_s: i / 100 + 0.12,
      timeout_s: 10,
      response: { ok: true, duration_ms: 120 + (i % 30) },
    },
  };
}

const WRITER_MODULE = fileURLToPath(new URL('./audit-writer.js', import.meta.url));

/**
 * `events` durable appends split over `writers` processes on one new database, all at once; then the chain verified.
 */
async function concurrentAppends(
  dir: string,
  events: number,
  writers: number,
  progress?: (label: string) => void,
): Promise<NonNullable<AuditBenchResult['concurrent']>> {
  const file = join(dir, `writers-${writers}.sqlite`);
  // The schema first, so that the writers race on appends, not on creating the database.
  await AuditLog.open(file).close();
  const share = Math.floor(events / writers);
  const done = await Promise.all(
    Array.from(
      { length: writers },
      (_, w) =>
        new Promise<Extract<WriterMessage, { kind: 'done' }>>((resolve, reject) => {
          const job: WriterJob = {
            file,
            writer: w,
            runs: 1,
            events: share,
            maxWave: Math.ceil(20_000 / writers),
            fixedWaves: true,
            seed: 1,
            acks: false,
          };
          const child = spawn(process.execPath, [WRITER_MODULE, '--audit-writer', JSON.stringify(job)], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.on('data', (b: Buffer) => {
            out += b.toString();
          });
          child.on('error', reject);
          child.on('close', (code) => {
            const msgs = out
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => JSON.parse(l) as WriterMessage);
            const end = msgs.find((m) => m.kind === 'done');
            const err = msgs.find((m) => m.kind === 'error');
            if (end !== undefined) resolve(end);
            else
              reject(
                new WitnessError(
                  'internal',
                  `audit writer ${w} ended with exit code ${code}: ${err?.kind === 'error' ? err.message : 'no report'}`,
                ),
              );
          });
        }),
    ),
  );
  progress?.(`${writers} writers: verify`);
  const append_s = (Math.max(...done.map((d) => d.end_ms)) - Math.min(...done.map((d) => d.start_ms))) / 1000;
  const rates = done.map((d) => d.events / ((d.end_ms - d.start_ms) / 1000));
  const db = openAuditReadOnly(file);
  try {
    const v = verifyChain(db);
    const total = done.reduce((n, d) => n + d.events, 0);
    return {
      writers,
      events: total,
      append_s,
      appendPerSecond: total / append_s,
      perWriter: { min: Math.min(...rates), max: Math.max(...rates) },
      verifyOk: v.ok && v.events === total + writers,
      runs: v.runs,
    };
  } finally {
    db.close();
  }
}

/** A page of each filter, deep in the log (keyset after the middle): p50 and max of 7 runs each. */
function timeQueries(
  db: ReturnType<typeof openAuditReadOnly>,
  run: string,
  events: number,
): AuditBenchResult['queries'] {
  const mid = Math.floor(events / 2);
  const tMid = 1_700_000_000_000 + mid;
  const cases: { name: string; q: Parameters<typeof queryPage>[1] }[] = [
    { name: 'by run, page of 100 after the middle', q: { run, after: mid, limit: 100 } },
    { name: 'by kind (failure_record), page of 100', q: { kind: 'failure_record', after: mid, limit: 100 } },
    { name: 'by tool (place), page of 100', q: { tool: 'place', after: mid, limit: 100 } },
    {
      name: 'by failure label (grasp-missed), page of 100',
      q: { failureLabel: 'grasp-missed', after: mid, limit: 100 },
    },
    { name: 'time window of 10 000 ms, page of 100', q: { from_ms: tMid, to_ms: tMid + 10_000, limit: 100 } },
    { name: 'free text ("mug_16"), page of 100', q: { text: 'mug_16', after: mid, limit: 100 } },
    { name: 'free text matching nothing (whole scan)', q: { text: 'no such text', after: mid, limit: 100 } },
    {
      name: 'tool + failure label + time window',
      q: { kind: 'failure_record', failureLabel: 'timeout', from_ms: tMid, to_ms: tMid + 100_000, limit: 100 },
    },
  ];
  return cases.map((c) => {
    const times: number[] = [];
    let rows = 0;
    let partial = false;
    for (let r = 0; r < 7; r++) {
      const s = performance.now();
      const page = queryPage(db, c.q);
      rows = page.rows.length;
      partial = !page.complete;
      times.push(performance.now() - s);
    }
    const st = summarize(times);
    return {
      name: partial ? `${c.name}; the page returns partial with its cursor when the scan budget runs out` : c.name,
      p50_ms: st.p50,
      max_ms: st.max,
      rows,
    };
  });
}

export async function runAuditBench(
  events: number,
  progress?: (label: string) => void,
  writers = 4,
): Promise<AuditBenchResult> {
  // Removed however the process ends (platform/scratch.ts), also by a signal during synchronous work.
  const scratch = scratchFolder('witness-audit-bench-');
  const dir = scratch.dir;
  try {
    // Baseline: the same rows, no durability, one transaction.
    progress?.('baseline');
    const baselinePerSecond = undurableInsertRate(join(dir, 'baseline.sqlite'), Math.min(events, 200_000), benchEvent);

    // Durable appends: at most 20 000 in flight, each acknowledged only after its commit.
    progress?.('append');
    const file = join(dir, 'audit.sqlite');
    let clock = 1_700_000_000_000;
    const log = AuditLog.open(file, { now: () => (clock += 1) });
    const run = await log.startRun({
      world: 'bench',
      backend: 'none',
      operator: 'bench',
      software: 'witness bench audit',
      models: {},
    });
    const t1 = performance.now();
    let inflight: Promise<number>[] = [];
    for (let i = 0; i < events; i++) {
      const e = benchEvent(i);
      const o = { step: i, tool: e.tool, ...(e.failure !== undefined ? { failureLabel: e.failure } : {}) };
      inflight.push(
        e.kind === 'tool_call'
          ? log.append(run, e.kind, e.body, o)
          : e.kind === 'verifier_result'
            ? log.append(run, e.kind, e.body, o)
            : log.append(run, e.kind, e.body, o),
      );
      if (inflight.length >= 20_000) {
        await Promise.all(inflight);
        inflight = [];
        if ((i + 1) % 200_000 === 0) progress?.(`append ${i + 1}`);
      }
    }
    await Promise.all(inflight);
    const append_s = (performance.now() - t1) / 1000;
    await log.close();

    // Queries: a page of each filter, deep in the log (keyset after the middle).
    progress?.('query');
    const db = openAuditReadOnly(file);
    const queries = timeQueries(db, run, events);
    progress?.('verify');
    const v = verifyChain(db);
    const verify_s = v.chain_ms / 1000;
    const integrity_s = v.integrity_ms / 1000;
    db.close();
    const fileMiB = statSync(file).size / 2 ** 20;
    let concurrent: AuditBenchResult['concurrent'];
    if (writers > 1) {
      progress?.(`append from ${writers} writer processes`);
      concurrent = await concurrentAppends(dir, events, writers, progress);
    }
    return {
      events,
      append_s,
      appendPerSecond: events / append_s,
      baselinePerSecond,
      queries,
      verify_s,
      integrity_s,
      verifyOk: v.ok,
      fileMiB,
      ...(concurrent !== undefined ? { concurrent } : {}),
    };
  } finally {
    scratch.remove();
  }
}

export function auditTable(r: AuditBenchResult): string {
  const lines = [
    '| measure | figure | goal |',
    '|---|---|---|',
    `| durable appends (fsync per batch, acknowledged after commit), ${r.events} events | ${fmt(r.appendPerSecond, 0)} events/s (${fmt(r.append_s, 1)} s) | ≥ 50 000 events/s |`,
    `| baseline: the same rows, no durability, one transaction | ${fmt(r.baselinePerSecond, 0)} events/s (durable / baseline ${fmt(r.appendPerSecond / r.baselinePerSecond, 2)}) | — |`,
    ...(r.concurrent === undefined
      ? []
      : [
          `| durable appends from ${r.concurrent.writers} writer processes at once on one database, ${r.concurrent.events} events in all | ${fmt(r.concurrent.appendPerSecond, 0)} events/s in all (${fmt(r.concurrent.append_s, 1)} s; ${r.concurrent.writers} writers / 1 writer ${fmt(r.concurrent.appendPerSecond / r.appendPerSecond, 2)}; each writer ${fmt(r.concurrent.perWriter.min, 0)}–${fmt(r.concurrent.perWriter.max, 0)} events/s) | — |`,
          `| the ${r.concurrent.writers} writers' database verified (every event, ${r.concurrent.runs} runs) | ${r.concurrent.verifyOk ? 'intact, every event there' : 'NOT intact or events missing'} | intact |`,
        ]),
    ...r.queries.map(
      (q) => `| query: ${q.name} (${q.rows} rows) | p50 ${fmt(q.p50_ms, 2)} ms, max ${fmt(q.max_ms, 2)} ms | ≤ 50 ms |`,
    ),
    `| verify the whole chain (${r.events} events) | ${fmt(r.verify_s, 2)} s (${r.verifyOk ? 'intact' : 'NOT intact'}) | ≤ 5 s |`,
    `| SQLite quick_check of the same database (also part of \`witness audit verify\`) | ${fmt(r.integrity_s, 2)} s | — |`,
    `| database size | ${fmt(r.fileMiB, 1)} MiB | — |`,
  ];
  return lines.join('\n');
}
