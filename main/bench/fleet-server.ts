/**
 * Where the fleet benchmark measures: a private throwaway PostgreSQL it starts itself (scripts/pg-test.sh, as the
 * tests do, with fsync on so that pushes are as durable as on a lab's server), or a server the user names. Either
 * way it works in a database of its own that it creates and drops: it never writes into a store it did not create.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { ROOT } from '../platform/paths.js';
import { cleanupOnSignal } from '../platform/interrupt.js';
import { type BenchDatabase, createBenchDatabase } from '../services/fleet/bench-store.js';
import { FleetError, redactUrl, requireStoreUrl } from '../services/fleet/store.js';

export interface BenchServer {
  /** Where the benchmark's database lives, as printed (password masked). */
  readonly where: string;
  /** The benchmark's own database (created empty) and its URL. */
  readonly database: string;
  readonly url: string;
  readonly version: string;
  /** Another new empty database on the same server, for work the benchmark throws away (drop it when done). */
  scratch(): Promise<BenchDatabase>;
  /** Drops the database (and stops a private server); safe to call twice. */
  close(): Promise<void>;
}

const SCRIPT = path.join(ROOT, 'scripts', 'pg-test.sh');

/** A private server: its superuser's URL, and how to stop it. */
function startPrivate(): { url: string; stop: () => void } {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'witness-bench-fleet-pg-')), 'pg');
  const remove = (): void => {
    execFileSync('bash', [SCRIPT, 'stop', dir], { stdio: 'ignore' });
    rmSync(path.dirname(dir), { recursive: true, force: true });
  };
  // Ctrl-C or SIGTERM from here on stops the server and removes its folder before the process exits.
  const release = cleanupOnSignal(remove);
  let out: string;
  try {
    out = execFileSync('bash', [SCRIPT, 'start', dir], {
      encoding: 'utf8',
      env: { ...process.env, WITNESS_PG_FSYNC: 'on' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    release();
    rmSync(path.dirname(dir), { recursive: true, force: true });
    const why = (e as { stderr?: string }).stderr?.trim() || (e instanceof Error ? e.message : String(e));
    throw new FleetError(
      'postgres://127.0.0.1',
      `cannot start a private PostgreSQL for the benchmark (${why}); or name a server with --to`,
      'unavailable',
    );
  }
  const m = /WITNESS_TEST_PG_URL=(postgres:\/\/\S+)/.exec(out);
  const stop = (): void => {
    remove();
    release();
  };
  if (m === null) {
    stop();
    throw new FleetError('postgres://127.0.0.1', `scripts/pg-test.sh printed no URL: ${out}`, 'internal');
  }
  return { url: m[1]!, stop };
}

/**
 * The benchmark's database on a private server (`to` undefined) or on the server at `to` (whose role must be allowed
 * to create databases); the database named in `to` is only connected to, to create and later drop the benchmark's.
 */
export async function openBenchServer(to: string | undefined): Promise<BenchServer> {
  if (to !== undefined) requireStoreUrl(to);
  const server = to === undefined ? startPrivate() : { url: to, stop: () => {} };
  let db: BenchDatabase;
  try {
    db = await createBenchDatabase(server.url);
  } catch (e) {
    server.stop();
    if (to !== undefined && e instanceof WitnessError && e.code === 'forbidden')
      throw new FleetError(
        to,
        `${e.message.slice(redactUrl(to).length + 2)}: the benchmark creates a database of its own there (CREATEDB needed)`,
        'forbidden',
      );
    throw e;
  }
  let open = true;
  return {
    where:
      to === undefined
        ? 'a private PostgreSQL started for the benchmark (scripts/pg-test.sh, fsync on)'
        : redactUrl(to),
    database: db.database,
    url: db.url,
    version: db.serverVersion,
    scratch: () => createBenchDatabase(server.url),
    close: async () => {
      if (!open) return;
      open = false;
      try {
        await db.drop();
      } finally {
        server.stop();
      }
    },
  };
}
