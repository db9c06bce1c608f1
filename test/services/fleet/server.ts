/**
 * A throwaway PostgreSQL server for a test file (scripts/pg-test.sh: initdb in a temporary folder, started on a free
 * port of 127.0.0.1, as a non-root user when the tests run as root), stopped and removed after the file's tests.
 * Where PostgreSQL's server programs are not installed the tests that need it skip, saying so, except under CI
 * (CI=true), where they fail: CI installs PostgreSQL (.ci/run).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { initStore } from '../../../main/app/fleet.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const script = path.join(root, 'scripts', 'pg-test.sh');

/** Why the tests that need PostgreSQL cannot run here (its programs are not installed), or null. */
export function pgMissing(): string | null {
  const r = spawnSync('bash', [script, 'bindir'], { encoding: 'utf8' });
  if (r.status === 0) return null;
  const why = (r.stderr || `pg-test.sh bindir exited ${r.status}`).trim();
  if (process.env['CI'] === 'true') throw new Error(`CI runs every PostgreSQL test, but ${why}`);
  return `needs PostgreSQL: ${why}`;
}

export interface PgServer {
  /** The superuser's URL (password included). */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** A URL for another user (and password) of this server, on a database of it. */
  urlFor(user: string, password: string, database?: string): string;
  /** Stops the server at once, as a crash would, and starts it again (same port, same data). */
  restart(): void;
  stop(): void;
}

export function startPg(): PgServer {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'witness-pg-')), 'pg');
  const out = execFileSync('bash', [script, 'start', dir], { encoding: 'utf8' });
  const m = /WITNESS_TEST_PG_URL=(postgres:\/\/witness:([^@]+)@127\.0\.0\.1:(\d+)\/postgres)/.exec(out);
  if (m === null) throw new Error(`pg-test.sh start printed no URL: ${out}`);
  const port = Number(m[3]);
  return {
    url: m[1]!,
    port,
    password: m[2]!,
    urlFor: (user, password, database = 'postgres') =>
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    restart: () => {
      execFileSync('bash', [script, 'restart', dir]);
    },
    stop: () => {
      execFileSync('bash', [script, 'stop', dir]);
    },
  };
}

/** One statement on the database at `url` (a connection of its own): its rows. */
export async function sql<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** A new database `name` of the server with the fleet schema created in it: its owner's URL. */
export async function freshStore(server: PgServer, name: string): Promise<string> {
  await sql(server.url, `CREATE DATABASE ${name}`);
  const url = server.urlFor('witness', server.password, name);
  await initStore(url);
  return url;
}
