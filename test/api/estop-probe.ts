/**
 * An operator pressing E-STOP over and over, measured from outside the server's event loop: a
 * worker thread with its own WebSocket to web mode sends `emergencyStop` every `intervalMs` and
 * times each answer on its own clock, so a server loop held by a read shows as late answers (a
 * client on the server's own loop would send late too, and see nothing). Used by the latency test
 * and scripts/bench-estop.js.
 */
import { isMainThread, parentPort, workerData, Worker } from 'node:worker_threads';
import { WebSocket } from 'ws';

export interface EstopSample {
  /** When the E-STOP was sent (ms since 1970, fractional). */
  readonly sentAt: number;
  /** How long its answer took (ms); for one never answered, how long it had waited when the probe stopped. */
  readonly ms: number;
  /** Answered, and as a success. */
  readonly ok: boolean;
}

interface ProbeJob {
  readonly port: number;
  readonly token: string;
  readonly intervalMs: number;
  /**
   * What is pressed (default emergencyStop); `estopState`, answered on the same loop, where a latch would refuse the
   * work being measured.
   */
  readonly method?: 'emergencyStop' | 'estopState';
}

const now = (): number => performance.timeOrigin + performance.now();

export interface Probe {
  /** The answers so far. */
  samples(): readonly EstopSample[];
  /** Resolves once `n` more answers have come. */
  more(n: number): Promise<void>;
  /**
   * Stops pressing; resolves to every answer once the last presses are answered (those still unanswered a second on, as
   * late as they are then).
   */
  stop(): Promise<EstopSample[]>;
}

/** Starts pressing E-STOP against web mode at `port` (its launch token `token`). */
export async function startEstopProbe(job: ProbeJob): Promise<Probe> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  const samples: EstopSample[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  let failed: Error | null = null;
  let onStopped: ((pending: EstopSample[]) => void) | null = null;
  type Message =
    { kind: 'ready' } | { kind: 'sample'; sample: EstopSample } | { kind: 'stopped'; pending: EstopSample[] };
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: Message) => {
      if (m.kind === 'ready') resolve();
      else if (m.kind === 'stopped') onStopped?.(m.pending);
      else {
        samples.push(m.sample);
        for (const w of waiting.filter((x) => samples.length >= x.n)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    });
    worker.on('error', (e) => {
      failed = e;
      reject(e);
    });
  });
  return {
    samples: () => samples,
    more: (n) =>
      failed !== null
        ? Promise.reject(failed)
        : new Promise((resolve) => waiting.push({ n: samples.length + n, resolve })),
    stop: async () => {
      const pending = await new Promise<EstopSample[]>((resolve) => {
        onStopped = resolve;
        worker.postMessage('stop');
      });
      await worker.terminate();
      return [...samples, ...pending];
    },
  };
}

/** The worker: one connection, one E-STOP every intervalMs whether or not the last was answered. */
async function probe(job: ProbeJob): Promise<void> {
  const port = parentPort!;
  const ws = new WebSocket(`ws://127.0.0.1:${job.port}/api?token=${job.token}`, {
    origin: `http://127.0.0.1:${job.port}`,
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let id = 0;
  const inFlight = new Map<number, number>();
  let stopped = false;
  ws.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString()) as { id?: number; ok?: boolean };
    const sentAt = m.id === undefined ? undefined : inFlight.get(m.id);
    if (sentAt === undefined) return;
    inFlight.delete(m.id!);
    port.postMessage({
      kind: 'sample',
      sample: { sentAt, ms: now() - sentAt, ok: m.ok === true } satisfies EstopSample,
    });
  });
  const press = (): void => {
    if (stopped) return;
    inFlight.set(++id, now());
    ws.send(JSON.stringify({ id, method: job.method ?? 'emergencyStop', params: {} }));
  };
  const timer = setInterval(press, job.intervalMs);
  port.on('message', (m) => {
    if (m !== 'stop') return;
    stopped = true;
    clearInterval(timer);
    void (async () => {
      for (const end = now() + 1000; inFlight.size > 0 && now() < end;) await new Promise((r) => setTimeout(r, 10));
      // E-STOPs still unanswered count as late as they are now.
      const t = now();
      const pending: EstopSample[] = [...inFlight.values()].map((sentAt) => ({ sentAt, ms: t - sentAt, ok: false }));
      ws.close();
      port.postMessage({ kind: 'stopped', pending });
    })();
  });
  port.postMessage({ kind: 'ready' });
  press();
}

if (!isMainThread && (workerData as ProbeJob | undefined)?.token !== undefined) await probe(workerData as ProbeJob);
