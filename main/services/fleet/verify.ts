/**
 * `witness audit verify --from postgres://…`: the fleet store checked as `verify` checks an SQLite log. The schema's
 * guards first (its version, and every append-only and chain-link trigger there and enabled); then each source's
 * chain walked in sequence order (audit/chain.ts ChainWalk, the same checks), its run rows against its chained
 * run_starts, and the blobs against their addresses and the kinds the chains name them as. Reports the first row
 * that does not match, naming its source.
 */
import type pg from 'pg';
import { type BlobRefs, ChainWalk, type VerifyProblem, checkBlobRows, checkRunRows } from '../audit/chain.js';
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
  let after = 0;
  for (;;) {
    const page = await c.query({
      text: `SELECT seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash FROM witness.events
             WHERE source = $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`,
      values: [s.id, after],
      rowMode: 'array',
    });
    for (const a of page.rows as unknown[][]) {
      const bad = walk.step(a);
      if (bad !== null) return { walk, runs: 0, bad: where(bad) };
    }
    if (page.rows.length < PAGE) break;
    after = (page.rows[page.rows.length - 1] as unknown[])[0] as number;
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

/** The blobs: each against its address and the chains' kinds; every (address, kind) a chain names present. */
async function verifyBlobs(c: pg.Client, refs: BlobRefs): Promise<{ blobs: number; bad?: VerifyProblem }> {
  const rows = await c.query<{ sha256: string; kind: string; body: string }>(
    'SELECT sha256, kind, body FROM witness.blobs ORDER BY sha256, kind',
  );
  const r = checkBlobRows(rows.rows, refs);
  if (r.bad !== undefined) return r;
  const pairs = new Set(rows.rows.map((b) => `${b.sha256} ${b.kind}`));
  for (const [sha, ref] of refs)
    for (const k of ref.kinds)
      if (!pairs.has(`${sha} ${k}`))
        return {
          blobs: r.blobs,
          bad: { table: 'blobs', key: sha, reason: `the ${k} blob that event ${ref.seq} names is missing (removed)` },
        };
  return r;
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
