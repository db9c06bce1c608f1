/**
 * One audit writer among many on one database: `witness bench audit --writers N` forks N of these
 * processes, and the multi-writer stress test runs them as child processes and as worker threads.
 * A writer opens the log, starts its runs and appends events (the benchmark's realistic bodies) in
 * waves of a seeded random size, each wave awaited — so every acknowledgement it reports is an
 * event committed with fsync. Run as a process: `node audit-writer.js --audit-writer '<job JSON>'`
 * (lines on stdout); as a worker thread: workerData `{ auditWriter: job }` (messages).
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AuditLog } from '../services/audit/store.js';
import { benchEvent } from './audit-bench.js';

export interface WriterJob {
  readonly file: string;
  /** This writer's number (in its runs' operator and in every body, to tell writers apart). */
  readonly writer: number;
  readonly runs: number;
  /** Events per run; null: append without end (until killed). */
  readonly events: number | null;
  /** The largest wave of appends in flight at once (each wave 1..maxWave, drawn from the seed, unless fixedWaves). */
  readonly maxWave: number;
  /** Every wave maxWave appends (the benchmark). */
  readonly fixedWaves?: boolean;
  readonly seed: number;
  /** Report every acknowledged event (the stress test), else only the totals (the benchmark). */
  readonly acks: boolean;
  readonly busyTimeout_ms?: number;
}

export type WriterMessage =
  | { readonly kind: 'ack'; readonly writer: number; readonly run: string; readonly seq: number; readonly i: number }
  | {
      readonly kind: 'done';
      readonly writer: number;
      readonly events: number;
      readonly start_ms: number;
      readonly end_ms: number;
    }
  | { readonly kind: 'error'; readonly writer: number; readonly message: string };

/** mulberry32: a small seeded generator (the waves are the same for the same seed). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Wall-clock milliseconds comparable across processes (the benchmark spans writers by them). */
const wall = (): number => performance.timeOrigin + performance.now();

export async function runWriter(job: WriterJob, post: (m: WriterMessage) => void): Promise<void> {
  const random = seeded(job.seed * 1000 + job.writer);
  const log = AuditLog.open(job.file, { busyTimeout_ms: job.busyTimeout_ms ?? 60_000 });
  let total = 0;
  const start_ms = wall();
  try {
    for (let r = 0; r < job.runs; r++) {
      const run = await log.startRun({
        world: 'bench',
        backend: 'none',
        operator: `writer-${job.writer}`,
        software: 'witness audit writer',
        models: {},
        meta: { writer: job.writer, run: r },
      });
      for (let i = 0; job.events === null || i < job.events;) {
        const wave = Math.min(
          job.fixedWaves === true ? job.maxWave : 1 + Math.floor(random() * job.maxWave),
          job.events === null ? Infinity : job.events - i,
        );
        const acks: Promise<void>[] = [];
        for (let k = 0; k < wave; k++, i++) {
          const e = benchEvent(i);
          const o = { step: i, tool: e.tool, ...(e.failure !== undefined ? { failureLabel: e.failure } : {}) };
          const body = { ...e.body, writer: job.writer, i };
          const n = i;
          const seq = log.append(run, e.kind, body, o);
          acks.push(
            job.acks
              ? seq.then((s) => post({ kind: 'ack', writer: job.writer, run, seq: s, i: n }))
              : seq.then(() => undefined),
          );
        }
        await Promise.all(acks);
        total += wave;
      }
    }
    await log.close();
    post({ kind: 'done', writer: job.writer, events: total, start_ms, end_ms: wall() });
  } catch (e) {
    post({ kind: 'error', writer: job.writer, message: e instanceof Error ? e.message : String(e) });
    await log.close().catch(() => undefined);
  }
}

if (!isMainThread && (workerData as { auditWriter?: WriterJob } | null)?.auditWriter !== undefined) {
  await runWriter((workerData as { auditWriter: WriterJob }).auditWriter, (m) => parentPort!.postMessage(m));
} else if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--audit-writer') {
  const job = JSON.parse(process.argv[3] ?? '{}') as WriterJob;
  const lines: string[] = [];
  let pending = false;
  // Acknowledgements leave in one write per tick; process.stdout is synchronous for files and pipes on POSIX.
  await runWriter(job, (m) => {
    lines.push(JSON.stringify(m));
    if (m.kind !== 'ack') {
      process.stdout.write(lines.splice(0).join('\n') + '\n');
      return;
    }
    if (!pending) {
      pending = true;
      setImmediate(() => {
        pending = false;
        if (lines.length > 0) process.stdout.write(lines.splice(0).join('\n') + '\n');
      });
    }
  });
}
