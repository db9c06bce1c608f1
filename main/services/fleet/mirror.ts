/**
 * A mirror: one source of the fleet store as a local SQLite audit log (services/audit/mirror-log.ts), verified and
 * incremental, so that every reader of a local log (show, export, replay, the audit browser, verify) works on a
 * source of the store unchanged. A pull reads the store in one read-only snapshot: the mirror's last event must be the
 * store's event at the same place (else the mirror, or the store, was changed: refused, or rebuilt when asked); then
 * the events after it come in batches, each one walked on from the mirror's tail with the chain code `verify` uses
 * (audit/chain.ts: every hash recomputed and linked), its run rows held against their run_starts and its blobs
 * against their addresses, before it lands as one SQLite transaction. A row that does not verify is refused, naming
 * the source and the event; a pull killed at any moment leaves whole batches, and the next one continues after them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { WitnessError } from '../../contract/errors.js';
import { type BlobRefs, type ChainedStart, ChainWalk, checkBlobRows, checkRunRows } from '../audit/chain.js';
import { MAX_BLOB_BYTES, MAX_BODY_BYTES, MAX_FIELD_BYTES, RUN_FIELDS, type RunRowRaw } from '../audit/rows.js';
import { type MirrorTail, MirrorLog } from '../audit/mirror-log.js';
import { FleetError, connectStore, fleetErrorOf, requireSchema, requireStoreUrl } from './store.js';
import { type SourceRow, sourceText } from './sources.js';

export interface MirrorOptions {
  /** Called after each batch lands with the events pulled so far. */
  readonly progress?: (n: number) => void;
  /** Events per batch (and at most about 16 MB of bodies). */
  readonly batch?: number;
  /** A mirror that does not match the store is removed and pulled again (else refused). */
  readonly rebuild?: boolean;
}

export interface MirrorResult {
  /** The mirror's file. */
  readonly file: string;
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
  /** Events the mirror holds now, and how many this pull brought. */
  readonly events: number;
  readonly pulled: number;
  /** The mirror's last event's hash. */
  readonly head: string;
}

const DEFAULT_MIRROR_BATCH = 5000;
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Where the mirror of the source `logId` of the store at `url` lives under the cache folder: keyed by the store's
 * identity (its host, port and database as the URL and the PG* variables name them; never a user or password) and the
 * log id.
 */
export function mirrorPath(cacheRoot: string, url: string, logId: string): string {
  requireStoreUrl(url);
  if (!/^[0-9a-f]{64}$/.test(logId)) throw new FleetError(url, `not a log id: ${JSON.stringify(logId)}`);
  // The driver resolves what the URL leaves out (PGHOST, PGPORT, PGDATABASE…) without connecting.
  const p = new pg.Client({ connectionString: url });
  const id = [p.host, String(p.port), p.database ?? ''];
  const readable = id
    .join('-')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 80);
  const digest = createHash('sha256').update(id.join('\0')).digest('hex').slice(0, 12);
  return path.join(cacheRoot, 'fleet', `${readable}-${digest}`, `${logId}.sqlite`);
}

/** The store's source with this log id. */
async function sourceByLogId(c: pg.Client, url: string, logId: string): Promise<SourceRow> {
  const r = await c.query<SourceRow>('SELECT id, log_id, host, robot FROM witness.sources WHERE log_id = $1', [logId]);
  const s = r.rows[0];
  if (s === undefined) throw new FleetError(url, `no source ${logId.slice(0, 16)}… in the store`, 'not-found');
  return s;
}

/** Why the mirror's tail is not the store's event at its place (null: it is). */
async function tailProblem(c: pg.Client, mirror: MirrorLog, s: SourceRow, tail: MirrorTail): Promise<string | null> {
  if (tail.seq === 0) return null;
  const first = mirror.firstHash();
  if (first !== s.log_id) return `it holds another log (its first event's hash is ${first?.slice(0, 16)}…)`;
  const r = await c.query<{ hash: string }>('SELECT hash FROM witness.events WHERE source = $1 AND seq = $2', [
    s.id,
    tail.seq,
  ]);
  const h = r.rows[0]?.hash;
  if (h === undefined) return `it holds ${tail.seq} events of the source, the store fewer`;
  if (h !== tail.hash)
    return `its event ${tail.seq} has the hash ${tail.hash.slice(0, 12)}…, the store's ${h.slice(0, 12)}…`;
  return null;
}

const bytes = (v: unknown): number => (typeof v === 'string' ? Buffer.byteLength(v) : 0);

/**
 * The events after `after` to pull next: up to `max`, fewer past about 16 MB of bodies (their sizes read first, not
 * the bodies: a body larger than a reader reads is refused before it is loaded).
 */
async function nextEvents(
  c: pg.Client,
  source: number,
  after: number,
  max: number,
  refuse: (where: string, why: string) => never,
): Promise<unknown[][]> {
  const sizes = await c.query<{ seq: number; n: number }>(
    `SELECT seq, octet_length(body) AS n FROM witness.events WHERE source = $1 AND seq > $2 ORDER BY seq LIMIT ${max}`,
    [source, after],
  );
  if (sizes.rows.length === 0) return [];
  let total = 0,
    last = sizes.rows[0]!.seq;
  for (const r of sizes.rows) {
    if (r.n > MAX_BODY_BYTES) refuse(`event ${r.seq}`, `its body is larger than ${MAX_BODY_BYTES} bytes`);
    if (total > 0 && total + r.n > BATCH_BYTES) break;
    total += r.n;
    last = r.seq;
  }
  const page = await c.query({
    text: `SELECT seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash FROM witness.events
           WHERE source = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
    values: [source, after, last],
    rowMode: 'array',
  });
  return page.rows as unknown[][];
}

/**
 * The batch's blobs from the store, one row per address (of the first kind its events name it as); one larger than a
 * reader reads is refused before it is loaded.
 */
async function batchBlobs(
  c: pg.Client,
  refs: BlobRefs,
  refuse: (where: string, why: string) => never,
): Promise<unknown[][]> {
  if (refs.size === 0) return [];
  const r = await c.query<{ sha256: string; kind: string; body: string; n: number }>(
    `SELECT sha256, kind, octet_length(body) AS n, CASE WHEN octet_length(body) <= ${MAX_BLOB_BYTES} THEN body END AS body
     FROM witness.blobs WHERE sha256 = ANY($1::text[])`,
    [[...refs.keys()]],
  );
  const big = r.rows.find((b) => b.n > MAX_BLOB_BYTES);
  if (big !== undefined) refuse(`blob ${big.sha256}`, `larger than ${MAX_BLOB_BYTES} bytes`);
  const out: unknown[][] = [];
  for (const [sha, ref] of refs) {
    const rows = r.rows.filter((b) => b.sha256 === sha);
    const b = [...ref.kinds].map((k) => rows.find((x) => x.kind === k)).find((x) => x !== undefined) ?? rows[0];
    if (b !== undefined) out.push([b.sha256, b.kind, b.body]);
  }
  return out;
}

/** The first value over the size a reader reads, in the batch's events and run rows, or null. */
function oversized(events: readonly unknown[][], runs: readonly unknown[][]): string | null {
  for (const e of events)
    for (let i = 1; i < e.length; i++) {
      const cap = i === 7 ? MAX_BODY_BYTES : MAX_FIELD_BYTES;
      if (bytes(e[i]) > cap) return `event ${String(e[0])}: a value larger than ${cap} bytes`;
    }
  for (const r of runs)
    if (r.some((v) => bytes(v) > MAX_FIELD_BYTES)) return `run ${String(r[0])}: a value larger than ${MAX_FIELD_BYTES}`;
  return null;
}

/** One batch after `tail`, verified: its rows to land, and where the chain then stands. */
async function verifiedBatch(
  c: pg.Client,
  url: string,
  s: SourceRow,
  mirror: MirrorLog,
  tail: MirrorTail,
  starts: Map<string, ChainedStart>,
  max: number,
): Promise<{ events: unknown[][]; runs: unknown[][]; blobs: unknown[][]; tail: MirrorTail } | null> {
  const refuse = (where: string, why: string): never => {
    throw new FleetError(
      url,
      `source ${sourceText(s)}: ${where}: ${why}; nothing of its batch was mirrored (\`witness audit verify --from\` checks the store)`,
      'tampered',
    );
  };
  const events = await nextEvents(c, s.id, tail.seq, max, refuse);
  if (events.length === 0) return null;
  const walk = ChainWalk.after(tail, s.log_id, starts);
  for (const e of events) {
    const bad = walk.step(e);
    if (bad !== null) refuse(`event ${bad.key}`, bad.reason);
    if (e[0] === 1 && e[9] !== s.log_id) refuse('event 1', 'its hash is not the log id of the source');
  }
  const fresh = new Map([...walk.starts].filter(([, st]) => st.seq > tail.seq));
  const runRows = fresh.size === 0 ? [] : await batchRuns(c, s.id, [...fresh.keys()]);
  const runs = checkRunRows(runRows, fresh);
  if (runs.bad !== undefined) refuse(`run ${runs.bad.key}`, runs.bad.reason);
  // The blobs the mirror lacks (one it holds came with an earlier event, checked then, maybe named as another kind).
  const held = mirror.heldBlobs(walk.refs.keys());
  const refs: BlobRefs = new Map([...walk.refs].filter(([sha]) => !held.has(sha)));
  const blobs = await batchBlobs(c, refs, refuse);
  const b = checkBlobRows(
    blobs.map(([sha256, kind, body]) => ({ sha256, kind, body })),
    refs,
  );
  if (b.bad !== undefined) refuse(`blob ${b.bad.key}`, b.bad.reason);
  const runArrays = runRows.map((r) => RUN_FIELDS.map((k) => r[k]));
  const big = oversized(events, runArrays);
  if (big !== null) refuse(big, 'Witness neither writes nor reads a value that large');
  for (const [run, st] of fresh) starts.set(run, st);
  const last = events[events.length - 1]!;
  return {
    events,
    runs: runArrays,
    blobs,
    tail: { seq: last[0] as number, hash: last[9] as string, t_ms: last[2] as number },
  };
}

async function batchRuns(c: pg.Client, source: number, ids: string[]): Promise<RunRowRaw[]> {
  const r = await c.query<RunRowRaw>(
    `SELECT ${RUN_FIELDS.join(', ')} FROM witness.runs WHERE source = $1 AND id = ANY($2::text[])`,
    [source, ids],
  );
  return r.rows;
}

/** Opens the mirror and checks its tail against the store: rebuilt when asked, else refused when they differ. */
async function openChecked(
  c: pg.Client,
  url: string,
  s: SourceRow,
  file: string,
  rebuild: boolean,
): Promise<MirrorLog> {
  mkdirSync(path.dirname(file), { recursive: true });
  let mirror = await MirrorLog.open(file);
  const why = await tailProblem(c, mirror, s, mirror.tail());
  if (why === null) return mirror;
  mirror.close();
  if (!rebuild)
    throw new FleetError(
      url,
      `the mirror ${file} of source ${sourceText(s)} does not match the store: ${why}. The store or the mirror was changed: \`witness audit verify --from\` checks the store; remove the mirror to pull it again`,
      'conflict',
    );
  MirrorLog.remove(file);
  mirror = await MirrorLog.open(file);
  return mirror;
}

/**
 * Brings the mirror `file` of the source `logId` of the store at `url` up to the store: verified, incremental (only
 * the events after the mirror's last one), each batch one transaction. A reader role suffices.
 */
export async function mirrorSource(
  url: string,
  logId: string,
  file: string,
  o: MirrorOptions = {},
): Promise<MirrorResult> {
  const c = await connectStore(url);
  try {
    await requireSchema(c, url);
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const s = await sourceByLogId(c, url, logId);
    const mirror = await openChecked(c, url, s, file, o.rebuild === true);
    try {
      const max = Math.max(1, Math.floor(o.batch ?? DEFAULT_MIRROR_BATCH));
      let tail = mirror.tail();
      let starts = mirror.starts();
      let pulled = 0;
      for (;;) {
        const b = await verifiedBatch(c, url, s, mirror, tail, starts, max);
        if (b === null) break;
        if (mirror.append(tail.seq, b)) {
          pulled += b.events.length;
          tail = b.tail;
          o.progress?.(pulled);
          continue;
        }
        // Another pull moved the mirror meanwhile: continue after where it stands, once it is found to match.
        // (Its tail and its runs read together, before anything awaits: the other pull may move it again.)
        tail = mirror.tail();
        starts = mirror.starts();
        const why = await tailProblem(c, mirror, s, tail);
        if (why !== null) throw new FleetError(url, `the mirror ${file} changed during the pull: ${why}`, 'conflict');
      }
      return {
        file,
        log_id: s.log_id,
        host: s.host,
        robot: s.robot,
        events: tail.seq,
        pulled,
        head: tail.hash,
      };
    } finally {
      mirror.close();
    }
  } catch (e) {
    // The mirror's own errors name its file (AuditError); the driver's name the store.
    throw e instanceof WitnessError ? e : fleetErrorOf(url, e);
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    await c.end().catch(() => {});
  }
}
