/**
 * Connections to the fleet store: a PostgreSQL URL (postgres:// or postgresql://; the standard PG* variables fill in
 * what it leaves out, and its sslmode and other TLS options pass through to the driver), its schema checked or
 * migrated. A password is never shown: every message names the store by its URL with the password masked
 * (redactUrl), and errors from the driver pass through redactText first.
 */
import pg from 'pg';
import { WitnessError, type ErrorCode } from '../../contract/errors.js';
import { FLEET_MIGRATIONS, FLEET_SCHEMA_VERSION } from './schema.js';

export type { ErrorCode };

/** Whether a --to/--from value names a PostgreSQL store rather than a file. */
export const isStoreUrl = (s: string): boolean => /^postgres(ql)?:\/\//i.test(s);

/** The URL (of any scheme) with its password (and any password= parameter) masked. */
export function redactUrl(url: string): string {
  const masked = url.replace(/([?&]password=)[^&#]*/gi, '$1***');
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i.exec(masked);
  if (m === null) return masked;
  const who = m[2]!;
  const colon = who.indexOf(':');
  return colon < 0 ? masked : `${m[1]}${who.slice(0, colon)}:***@${masked.slice(m[0].length)}`;
}

/** The passwords a URL (and PGPASSWORD) carry, raw and decoded: what a message must never contain. */
function secretsOf(url: string): string[] {
  const out: string[] = [];
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(url);
  const colon = m?.[1]?.indexOf(':') ?? -1;
  if (m !== null && colon >= 0) out.push(m[1]!.slice(colon + 1));
  for (const p of url.matchAll(/[?&]password=([^&#]*)/gi)) out.push(p[1]!);
  const env = process.env['PGPASSWORD'];
  if (env !== undefined) out.push(env);
  const decoded = out.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  return [...new Set([...out, ...decoded])].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** A message with the store's passwords masked wherever they appear. */
export function redactText(text: string, url: string): string {
  let s = text.split(url).join(redactUrl(url));
  for (const secret of secretsOf(url)) s = s.split(secret).join('***');
  return s;
}

export class FleetError extends WitnessError {
  override readonly name = 'FleetError';
  constructor(
    readonly store: string,
    detail: string,
    code: ErrorCode = 'invalid-input',
    /** The server could not be reached or went away: trying again later can cure it. */
    readonly serverGone = false,
  ) {
    super(code, `${redactUrl(store)}: ${redactText(detail, store)}`, { file: redactUrl(store) });
  }
}

/**
 * Whether an error says the server cannot be reached or went away (refused, reset, shut down, starting up, a
 * connection that ended): what trying again later can cure.
 */
export function isServerGone(e: unknown): boolean {
  if (e instanceof FleetError) return e.serverGone;
  if (e instanceof WitnessError) return false;
  const code = (e as { code?: unknown }).code;
  const msg = e instanceof Error ? e.message : String(e);
  return typeof code === 'string'
    ? /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|EPIPE|57P0[1-3]|08)/.test(code)
    : /^Connection terminated|not queryable/i.test(msg);
}

/** A driver or server error as a FleetError naming the store (FleetErrors pass through). */
export function fleetErrorOf(url: string, e: unknown): FleetError {
  if (e instanceof FleetError) return e;
  if (e instanceof WitnessError) return new FleetError(url, e.message, e.code);
  const msg = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: unknown }).code;
  if (code === '42501')
    return new FleetError(url, `permission denied (${msg}): this role may not do that in the fleet store`, 'forbidden');
  if (code === '28P01' || code === '28000') return new FleetError(url, `cannot log in (${msg})`, 'forbidden');
  if (isServerGone(e))
    return new FleetError(url, `the server cannot be reached or went away (${msg})`, 'unreadable', true);
  return new FleetError(url, msg);
}

/** bigint (int8) columns as numbers: sequence numbers, steps and ids are safe integers (the readers check them). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === 20
      ? (v: string) => Number(v)
      : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
};

/** Refuses what is not a PostgreSQL URL (before any other work). */
export function requireStoreUrl(url: string): void {
  if (!isStoreUrl(url)) throw new FleetError(url, 'not a PostgreSQL URL (postgres://user@host:port/database)');
}

/** A connected client (the caller ends it). */
export async function connectStore(url: string): Promise<pg.Client> {
  requireStoreUrl(url);
  const client = new pg.Client({ connectionString: url, types: TYPES, application_name: 'witness' });
  // A server that goes away between queries emits 'error': reported by the next query, not thrown here.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw fleetErrorOf(url, e);
  }
  return client;
}

/** The store's schema version (0: no Witness schema in this database). */
export async function storeVersion(c: pg.Client): Promise<number> {
  const t = await c.query<{ t: string | null }>("SELECT to_regclass('witness.schema_version')::text AS t");
  if (t.rows[0]?.t === null || t.rows[0] === undefined) return 0;
  const v = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM witness.schema_version');
  return v.rows[0]?.v ?? 0;
}

/** A lock key of the migrations (pg_advisory_xact_lock): two first pushes at once migrate once. */
const MIGRATION_LOCK = 0x77_69_74_6e;

/**
 * Brings the store to this Witness's schema (creating it in an empty database), as one transaction; refuses a store
 * newer than this Witness. Migrating needs the rights of the database's owner (CREATE, and CREATEROLE for the two
 * group roles the first migration makes when they do not exist).
 */
export async function migrateStore(c: pg.Client, url: string): Promise<{ from: number; to: number }> {
  const from = await storeVersion(c);
  if (from > FLEET_SCHEMA_VERSION)
    throw new FleetError(
      url,
      `its fleet schema version ${from} is newer than this Witness (${FLEET_SCHEMA_VERSION}); use a newer Witness`,
      'schema-version',
    );
  if (from === FLEET_SCHEMA_VERSION) return { from, to: from };
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const v = await storeVersion(c);
    for (let i = v; i < FLEET_SCHEMA_VERSION; i++) {
      await c.query(FLEET_MIGRATIONS[i]!);
      await c.query('INSERT INTO witness.schema_version (version) VALUES ($1)', [i + 1]);
    }
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    const err = fleetErrorOf(url, e);
    if (err.code === 'forbidden')
      throw new FleetError(
        url,
        `${err.message.slice(redactUrl(url).length + 2)}; creating or migrating the fleet schema needs the database owner's rights (\`witness audit init-store\` as the owner)`,
        'forbidden',
      );
    throw err;
  }
  return { from, to: FLEET_SCHEMA_VERSION };
}

/** Refuses a store whose schema is not this Witness's version (the readers and the pusher do not migrate). */
export async function requireSchema(c: pg.Client, url: string): Promise<void> {
  const v = await storeVersion(c);
  if (v === FLEET_SCHEMA_VERSION) return;
  throw new FleetError(
    url,
    v === 0
      ? 'no Witness fleet schema in this database: create it with `witness audit init-store` as its owner'
      : `its fleet schema version ${v} is not the one this Witness reads (${FLEET_SCHEMA_VERSION})${v < FLEET_SCHEMA_VERSION ? ': migrate it with `witness audit init-store` as its owner' : '; use a newer Witness'}`,
    v === 0 ? 'not-audit-database' : 'schema-version',
  );
}
