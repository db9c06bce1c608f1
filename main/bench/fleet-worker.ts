/**
 * A process of the fleet benchmark: a lab PC writing its logs (fleet-data.ts), or pushing logs to the store one
 * after the other (services/fleet/push.ts, as `witness audit push` does). `witness bench fleet` runs several at
 * once: `node fleet-worker.js --fleet-worker`, the job as JSON on stdin (a store's URL may hold a password: never on a
 * command line), one JSON line on stdout when done.
 */
import { cleanupOnSignal } from '../platform/interrupt.js';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { pushLog } from '../services/fleet/push.js';
import { WitnessError } from '../contract/errors.js';
import { type FleetLogJob, type FleetLogWritten, writeFleetLog } from './fleet-data.js';

export type FleetJob =
  | { readonly op: 'write'; readonly logs: readonly FleetLogJob[] }
  | {
      readonly op: 'push';
      readonly url: string;
      readonly logs: readonly { readonly file: string; readonly host: string; readonly robot: string }[];
    };

export type FleetReply =
  | { readonly op: 'write'; readonly written: readonly FleetLogWritten[] }
  | { readonly op: 'push'; readonly sent: number; readonly start_ms: number; readonly end_ms: number }
  | { readonly op: 'error'; readonly message: string };

/** Wall-clock milliseconds comparable across processes. */
const wall = (): number => performance.timeOrigin + performance.now();

export async function runFleetJob(job: FleetJob): Promise<FleetReply> {
  if (job.op === 'write') {
    const written: FleetLogWritten[] = [];
    for (const l of job.logs) written.push(await writeFleetLog(l));
    return { op: 'write', written };
  }
  const start_ms = wall();
  let sent = 0;
  for (const l of job.logs) sent += (await pushLog(l.file, job.url, { host: l.host, robot: l.robot })).sent;
  return { op: 'push', sent, start_ms, end_ms: wall() };
}

const SELF = fileURLToPath(import.meta.url);

/** Runs `job` in a new process; resolves with its reply (rejects when it fails, with its message). */
export function forkFleetJob(job: FleetJob): Promise<FleetReply> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--fleet-worker'], { stdio: ['pipe', 'pipe', 'pipe'] });
    // Ctrl-C or SIGTERM ends it with this process (it would go on writing or pushing alone).
    const release = cleanupOnSignal(() => child.kill('SIGKILL'));
    child.stdin.end(JSON.stringify(job));
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', (e) => {
      release();
      reject(e);
    });
    child.on('close', (code) => {
      release();
      const line = out.trim().split('\n').pop() ?? '';
      let reply: FleetReply | null = null;
      try {
        reply = JSON.parse(line) as FleetReply;
      } catch {
        reply = null;
      }
      if (reply !== null && reply.op !== 'error' && code === 0) resolve(reply);
      else
        reject(
          new WitnessError(
            'internal',
            `bench fleet: a ${job.op} process ended with exit code ${code}: ${reply?.op === 'error' ? reply.message : err.trim().slice(-2000) || 'no report'}`,
          ),
        );
    });
  });
}

if (process.argv[1] === SELF && process.argv[2] === '--fleet-worker') {
  try {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FleetJob;
    process.stdout.write(JSON.stringify(await runFleetJob(job)) + '\n');
  } catch (e) {
    process.stdout.write(
      JSON.stringify({ op: 'error', message: e instanceof Error ? e.message : String(e) } satisfies FleetReply) + '\n',
    );
    process.exitCode = 1;
  }
}
