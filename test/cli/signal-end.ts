/**
 * TEST CODE: how a `witness` process ends on Ctrl-C or SIGTERM (docs/CLI.md, "Exit codes"): with the
 * signal's exit code (130, 143) after it cleaned up, or by the signal itself (the default action,
 * which a shell reports as the same 130 or 143) when it had nothing to clean up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));

export type Sig = 'SIGINT' | 'SIGTERM';

export interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Milliseconds from the signal to the exit. */
  readonly ms: number;
  readonly err: string;
}

/** Whether `e` is the documented end for `sig`: exit 130 / 143, or ended by the signal (a shell shows 130 / 143). */
export const endedBy = (sig: Sig, e: Pick<Ended, 'code' | 'signal'>): boolean =>
  e.code === (sig === 'SIGINT' ? 130 : 143) || e.signal === sig;

export interface Spawned {
  readonly child: ChildProcess;
  /** stderr so far. */
  err(): string;
  /**
   * Sends `sig` and resolves when the process has exited (or after `bound_ms`: `ms` is then Infinity, the process
   * killed).
   */
  signal(sig: Sig, bound_ms?: number): Promise<Ended>;
  readonly exited: Promise<void>;
}

/** `witness ARGV` as a child process (stdin and stdout ignored). */
export function witness(argv: readonly string[], cwd?: string): Spawned {
  const child = spawn(process.execPath, [BIN, ...argv], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(cwd !== undefined ? { cwd } : {}),
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    exited,
    err: () => err,
    async signal(sig, bound_ms = 20_000) {
      const t0 = performance.now();
      child.kill(sig);
      const timer = new Promise<'hung'>((r) => setTimeout(() => r('hung'), bound_ms).unref());
      const how = await Promise.race([exited.then(() => 'exited' as const), timer]);
      if (how === 'hung') {
        child.kill('SIGKILL');
        await exited;
        return { code: null, signal: null, ms: Infinity, err };
      }
      return { code: child.exitCode, signal: child.signalCode, ms: performance.now() - t0, err };
    },
  };
}

/** Temporary siblings of atomic writes (`.NAME.tmp-PID-…`) in `dir`. */
export const temporaries = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes('.tmp-'));
