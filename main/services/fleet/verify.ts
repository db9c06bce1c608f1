/**
 * `witness audit verify --from postgres://…`: the fleet store checked as `verify` checks an SQLite log. The schema's
 * guards first (its version, and every append-only and chain-link trigger there and enabled); then each source's
 * chain walked in sequence order (audit/chain.ts ChainWalk, the same checks), its run rows against its chained
 * run_starts, and the blobs against their addresses and the kinds the chains name them as. Reports the first row
 * that does not match, naming its source.
 */
import type pg from 'pg';
import { type BlobRefs, ChainWalk, type VerifyProblem, checkBlobRow, checkRunRows } from '../audit/chain.js';
import type { RunRowRaw } from '../audit/rows.js';
import { RUN_FIELDS } from '../audit/rows.js';
import { connectStore, fleetErrorOf, redactUrl, storeVersion } from './store.js';
import { FLEET_SCHEMA_VERSION, FLEET_TABLES } from './schema.js';
import { DERIVED_TRIGGERS, derivedProblem } from './derived.js';

interface SourceSummary {
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
  readonly events: number;
  readonly runs: number;
  readonly head: string;
}

export interface StoreVerifyResult {
  readonly store: string;
  readonly ok: boolean;
  readonly events: number;
  readonly runs: number;
  readonly blobs: number;
  readonly sources: readonly SourceSummary[];
  readonly firstBad?: VerifyProblem;
  readonly problems: readonly VerifyProblem[];
}

const PAGE = 20_000;

/** The triggers the schema creates, each expected present and enabled. */
const TRIGGERS: readonly [table: string, name: string][] = [
  ['events', 'events_link'],
  ...FLEET_TABLES.flatMap((t): [string, string][] => [
    [t, `${t}_append_only`],
    [t, `${t}_no_truncate`],
  ]),
  ...DERIVED_TRIGGERS,
];

async function schemaProblems(c: pg.Client): Promise<VerifyProblem[]> {
  const v = await storeVersion(c);
  if (v !== FLEET_SCHEMA_VERSION)
    return [
      {
        table: 'schema',
        key: 'version',
        reason:
          v === 0
            ? 'no Witness fleet schema in this database'
            : `fleet schema version ${v}, not ${FLEET_SCHEMA_VERSION}`,
      },
    ];
  const r = await c.query<{ rel: string; name: string; enabled: string }>(
    `SELECT c.relname AS rel, t.tgname AS name, t.tgenabled AS enabled FROM pg_trigger t
     JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'witness' AND NOT t.tgisinternal`,
  );
  const found = new Map(r.rows.map((t) => [`${t.rel}.${t.name}`, t.enabled]));
  const out: VerifyProblem[] = [];
  for (const [table, name] of TRIGGERS) {
    const e = found.get(`${table}.${name}`);
    if (e === undefined)
      out.push({ table: 'schema', key: name, reason: `the trigger ${name} on ${table} is missing (dropped)` });
    else if (e === 'D') out.push({ table: 'schema', key: name, reason: `the trigger ${name} on ${table} is disabled` });
  }
  return out;
}

/** One source's chain and run rows; its blob references go into `refs`. */
async function verifySource(
  c: pg.Client,
  s: { id: number; log_id: string },
  refs: BlobRefs,
): Promise<{ walk: ChainWalk; runs: number; bad?: VerifyProblem }> {
  const walk = new ChainWalk();
  const where = (p: VerifyProblem): VerifyProblem => ({ ...p, key: `${p.key} of log ${s.log_id}` });
  const page = (after: number): Promise<pg.QueryResult> =>
    c.query({
      text: `SELECT seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash FROM witness.events
             WHERE source = $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`,
      values: [s.id, after],
      rowMode: 'array',
    });
  let next: Promise<pg.QueryResult> | null = page(0);
  while (next !== null) {
    const rows = (await next).rows as unknown[][];
    // The next page asked for before this one is checked: the server reads it meanwhile.
    next = rows.length < PAGE ? null : page(rows[rows.length - 1]![0] as number);
    for (const a of rows) {
      const bad = walk.step(a);
      if (bad !== null) {
        await next?.catch(() => {});
        return { walk, runs: 0, bad: where(bad) };
      }
    }
  }
  for (const [sha, r] of walk.refs) {
    const mine = refs.get(sha);
    if (mine === undefined) refs.set(sha, { kinds: new Set(r.kinds), seq: r.seq });
    else for (const k of r.kinds) mine.kinds.add(k);
  }
  const rows = await c.query<RunRowRaw>(
    `SELECT ${RUN_FIELDS.join(', ')} FROM witness.runs WHERE source = $1 ORDER BY started_ms, id`,
    [s.id],
  );
  const runs = checkRunRows(rows.rows, walk.starts);
  return { walk, runs: runs.runs, ...(runs.bad !== undefined ? { bad: where(runs.bad) } : {}) };
}

/** Blob bodies fetched at once, at most (or one blob, when it alone is larger): memory stays bounded. */
export const BLOB_BYTES = 32 * 1024 * 1024;
const BLOB_KEYS = 1000;

type BlobKey = { sha256: string; kind: string; bytes: number };

/** Groups of keys whose bodies together stay within BLOB_BYTES (a larger blob alone). */
export function blobGroups(keys: readonly BlobKey[]): BlobKey[][] {
  const groups: BlobKey[][] = [];
  let group: BlobKey[] = [];
  let bytes = 0;
  for (const k of keys) {
    if (group.length > 0 && bytes + k.bytes > BLOB_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(k);
    bytes += k.bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * The blobs: each against its address and the chains' kinds; every (address, kind) a chain names present. Read in
 * key order, a page of keys and sizes at a time, the bodies in groups of at most BLOB_BYTES: never all at once.
 */
async function verifyBlobs(c: pg.Client, refs: BlobRefs): Promise<{ blobs: number; bad?: VerifyProblem }> {
  const pairs = new Set<string>();
  let blobs = 0;
  let after = ['', ''];
  for (;;) {
    const keys = await c.query<BlobKey>(
      `SELECT sha256, kind, octet_length(body) AS bytes FROM witness.blobs WHERE (sha256, kind) > ($1, $2)
       ORDER BY sha256, kind LIMIT ${BLOB_KEYS}`,
      after,
    );
    for (const group of blobGroups(keys.rows)) {
      const rows = await c.query<{ sha256: string; kind: string; body: string }>(
        `SELECT b.sha256, b.kind, b.body FROM unnest($1::text[], $2::text[]) AS k (sha256, kind)
         JOIN witness.blobs b USING (sha256, kind) ORDER BY b.sha256, b.kind`,
        [group.map((k) => k.sha256), group.map((k) => k.kind)],
      );
      for (const b of rows.rows) {
        const bad = checkBlobRow(b, refs);
        if (bad !== null) return { blobs, bad };
        pairs.add(`${b.sha256} ${b.kind}`);
        blobs++;
      }
    }
    if (keys.rows.length < BLOB_KEYS) break;
    const last = keys.rows[keys.rows.length - 1]!;
    after = [last.sha256, last.kind];
  }
  for (const [sha, ref] of refs)
    for (const k of ref.kinds)
      if (!pairs.has(`${sha} ${k}`))
        return {
          blobs,
          bad: { table: 'blobs', key: sha, reason: `the ${k} blob that event ${ref.seq} names is missing (removed)` },
        };
  return { blobs };
}

/** Verifies the whole store at `url` (read-only: a reader role suffices). */
export async function verifyStore(url: string): Promise<StoreVerifyResult> {
  const c = await connectStore(url);
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const problems = await schemaProblems(c);
    const done = (x: Omit<StoreVerifyResult, 'store' | 'ok' | 'problems' | 'firstBad'>, bad?: VerifyProblem) => {
      const all = [...problems, ...(bad !== undefined ? [bad] : [])];
      const first = bad ?? all[0];
      return {
        store: redactUrl(url),
        ok: all.length === 0,
        ...x,
        problems: all,
        ...(first ? { firstBad: first } : {}),
      };
    };
    if (problems.some((p) => p.key === 'version')) return done({ events: 0, runs: 0, blobs: 0, sources: [] });
    const sources = await c.query<{ id: number; log_id: string; host: string; robot: string | null }>(
      'SELECT id, log_id, host, robot FROM witness.sources ORDER BY id',
    );
    const refs: BlobRefs = new Map();
    const summaries: SourceSummary[] = [];
    let events = 0,
      runs = 0;
    for (const s of sources.rows) {
      const v = await verifySource(c, s, refs);
      events += v.walk.events;
      runs += v.runs;
      summaries.push({
        log_id: s.log_id,
        host: s.host,
        robot: s.robot,
        events: v.walk.events,
        runs: v.runs,
        head: v.walk.head,
      });
      if (v.bad !== undefined) return done({ events, runs, blobs: 0, sources: summaries }, v.bad);
      if (v.walk.events > 0 && s.log_id !== v.walk.first)
        return done(
          { events, runs, blobs: 0, sources: summaries },
          { table: 'events', key: `1 of log ${s.log_id}`, reason: 'the log id is not the hash of its first event' },
        );
    }
    const b = await verifyBlobs(c, refs);
    if (b.bad !== undefined) return done({ events, runs, blobs: b.blobs, sources: summaries }, b.bad);
    const logs = new Map(sources.rows.map((s) => [s.id, s.log_id]));
    const d = await derivedProblem(c, (id) => logs.get(id) ?? `#${id}`);
    return done({ events, runs, blobs: b.blobs, sources: summaries }, d ?? undefined);
  } catch (e) {
    throw fleetErrorOf(url, e);
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    await c.end().catch(() => {});
  }
}
