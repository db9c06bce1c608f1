/**
 * `witness audit push`: a local audit log into the fleet store. The local chain is verified first (forensics.ts
 * verifyChain, in the same read transaction as everything read after it), and every value checked to be one
 * PostgreSQL's text holds as it is; nothing is sent otherwise. The log's source is found (or registered) by its id,
 * the hash of its first event; the push resumes after the last event the store holds of it, once that event's hash
 * is found to be the local one at the same place (else the local history does not extend the store's: a fork,
 * refused). Events go in batches, each one transaction holding its blobs, its run rows and its events, under an
 * advisory lock of the source (two pushers of one log take turns, each re-reading where the store stands): a push
 * killed at any moment leaves whole batches, and the next push continues after them.
 */
import { hostname } from 'node:os';
import type pg from 'pg';
import { type Batch, PushSource } from '../audit/push-source.js';
import type { ChainWalk } from '../audit/chain.js';
import { MAX_FIELD_BYTES, RUN_FIELDS } from '../audit/rows.js';
import { copyIn, copyText } from './copy-in.js';
import { FleetError, connectStore, fleetErrorOf, redactUrl, requireSchema, requireStoreUrl } from './store.js';

export interface PushOptions {
  /** The host the log is recorded on (its source's host when first pushed; later pushes must name the same). */
  readonly host?: string;
  /** The robot (or world) the log records (absent: as registered, none for a new source). */
  readonly robot?: string;
  /** Events per transaction (and at most about 16 MB of them). */
  readonly batch?: number;
  /** Called after each committed batch with the events sent so far. */
  readonly progress?: (sent: number) => void;
}

export interface PushResult {
  readonly store: string;
  readonly log_id: string;
  readonly host: string;
  readonly robot: string | null;
  /** Events in the local log, in the store when this push began, and sent by this push. */
  readonly local: number;
  readonly before: number;
  readonly sent: number;
  readonly head: string;
}

const DEFAULT_PUSH_BATCH = 5000;

export interface Source {
  readonly id: number;
  readonly host: string;
  readonly robot: string | null;
}

/**
 * The log's source in the store (registered when new and `register`; null when not there and not registering);
 * refused when registered from another host or robot.
 */
async function sourceOf(
  c: pg.Client,
  url: string,
  logId: string,
  at: { host: string; robot: string | undefined },
  register: boolean,
): Promise<Source | null> {
  if (register)
    await c.query(
      'INSERT INTO witness.sources (log_id, host, robot) VALUES ($1, $2, $3) ON CONFLICT (log_id) DO NOTHING',
      [logId, at.host, at.robot ?? null],
    );
  const r = await c.query<Source>('SELECT id, host, robot FROM witness.sources WHERE log_id = $1', [logId]);
  const s = r.rows[0];
  if (s === undefined) return null;
  if (s.host !== at.host || (at.robot !== undefined && s.robot !== at.robot))
    throw new FleetError(
      url,
      `the log ${logId.slice(0, 12)}… is registered from host ${JSON.stringify(s.host)}, robot ${JSON.stringify(s.robot)}; this push names host ${JSON.stringify(at.host)}, robot ${JSON.stringify(at.robot ?? s.robot)}: refused (a log keeps the identity it was first pushed with: pass --host and --robot as then)`,
      'conflict',
    );
  return s;
}

/** The store's last event of a source (seq 0: none). */
export async function storeHead(c: pg.Client, source: number): Promise<{ seq: number; hash: string | null }> {
  const r = await c.query<{ seq: number; hash: string }>(
    'SELECT seq, hash FROM witness.events WHERE source = $1 ORDER BY seq DESC LIMIT 1',
    [source],
  );
  return r.rows[0] ?? { seq: 0, hash: null };
}

/** Null when the local log extends what the store holds of it; else why not (a fork). */
function forkProblem(src: PushSource, head: { seq: number; hash: string | null }): string | null {
  const local = src.events;
  if (head.seq === 0) return null;
  if (head.seq > local)
    return `the store holds ${head.seq} events of this log, the local log only ${local}: it was rolled back (or truncated), or it is another log claiming the same id`;
  const mine = src.hashAt(head.seq);
  if (mine !== head.hash)
    return `event ${head.seq}, the last the store holds of this log, has another hash locally (${mine.slice(0, 12)}… against ${head.hash!.slice(0, 12)}…): the local history was rewritten, or it is another log claiming the same id (a copy that went its own way)`;
  return null;
}

/**
 * The log `file` opened and verified (the whole of it, or what follows the chain a previous round verified); a log
 * that does not verify, no longer extends what was verified of it, or holds a value PostgreSQL cannot keep as it is,
 * is refused, nothing sent.
 */
export function openSource(file: string, url: string, verified?: ChainWalk): PushSource {
  const src = PushSource.open(file, verified);
  if (src instanceof PushSource) return src;
  if (src.code === 'tampered')
    throw new FleetError(
      url,
      `${file} does not verify, so nothing was sent: ${src.problem.table} ${src.problem.key}: ${src.problem.reason} (\`witness audit verify ${file}\`)`,
      'tampered',
    );
  if (src.code === 'conflict')
    throw new FleetError(url, `refused: ${file} no longer extends what was pushed of it: ${src.reason}`, 'conflict');
  throw new FleetError(url, `refused, nothing sent: ${file}: ${src.reason}`, 'invalid-input');
}

/** A pusher's session on the store: its schema checked, no JIT (compiling each batch costs more than running it). */
export async function pushSession(url: string): Promise<pg.Client> {
  const c = await connectStore(url);
  try {
    await requireSchema(c, url);
    await c.query('SET jit = off');
    return c;
  } catch (e) {
    await c.end().catch(() => {});
    throw e;
  }
}

/**
 * The log's source in the store, checked before it is registered (a refused push leaves nothing): its identity, and
 * that the local log extends what the store holds of it; with the events the store held.
 */
export async function resolveSource(
  c: pg.Client,
  url: string,
  src: PushSource,
  at: { host: string; robot: string | undefined },
): Promise<{ source: Source; before: number }> {
  for (const [what, v] of [
    ['host', at.host],
    ['robot', at.robot],
  ] as const)
    if (v !== undefined && Buffer.byteLength(v) > MAX_FIELD_BYTES)
      throw new FleetError(url, `the ${what} name is longer than the store holds (${MAX_FIELD_BYTES} bytes)`);
  const logId = src.logId();
  const known = await sourceOf(c, url, logId, at, false);
  const head = known === null ? { seq: 0, hash: null } : await storeHead(c, known.id);
  const fork = forkProblem(src, head);
  if (fork !== null) throw new FleetError(url, `refused: ${fork}`, 'conflict');
  return { source: known ?? (await sourceOf(c, url, logId, at, true))!, before: head.seq };
}

const column = (rows: readonly unknown[][], i: number): unknown[] => rows.map((r) => r[i]);

/** A batch read from the log, its events already in COPY's text format (UTF-8), after the store's event `after`. */
interface ReadBatch extends Batch {
  readonly after: number;
  readonly copy: Buffer;
}

/**
 * Inserts one batch (its blobs and runs, then its events with COPY) inside the caller's transaction; `onSent` as
 * copyIn's: called while the server copies the events.
 */
async function insertBatch(c: pg.Client, source: number, b: ReadBatch, onSent: () => void): Promise<void> {
  if (b.blobs.length > 0)
    await c.query(
      `INSERT INTO witness.blobs (sha256, kind, body) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (sha256, kind) DO NOTHING`,
      [0, 1, 2].map((i) => column(b.blobs, i)),
    );
  if (b.runs.length > 0)
    await c.query(
      `INSERT INTO witness.runs (source, ${RUN_FIELDS.join(', ')}) SELECT $1, * FROM unnest($2::text[],
       $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])`,
      [source, ...RUN_FIELDS.map((_, i) => column(b.runs, i))],
    );
  await copyIn(
    c,
    'COPY witness.events (source, seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) FROM STDIN',
    b.copy,
    onSent,
  );
}

/**
 * Sends every local event after the store's head, batch by batch, each batch one transaction under the source's
 * advisory lock (where the store stands read again inside it: another pusher of the log may have moved it); the next
 * batch is read while the server inserts this one. Batches commit without waiting for the WAL flush but the last,
 * which waits and so flushes them all (WAL is flushed in order): a server that crashes in between loses batches this
 * push has not yet reported done, and the next push sends them again. `stop`: asked before each commit, true ends the
 * sending with that batch. Returns how many events were sent.
 */
export async function sendEvents(
  c: pg.Client,
  url: string,
  src: PushSource,
  source: number,
  o: PushOptions & { stop?: () => boolean } = {},
): Promise<number> {
  const max = Math.max(1, Math.floor(o.batch ?? DEFAULT_PUSH_BATCH));
  const read = (after: number): ReadBatch => {
    const b = src.batch(after, Math.min(max, src.events - after));
    return { ...b, after, copy: Buffer.from(copyText(b.events, [source]), 'utf8') };
  };
  let sent = 0;
  let ahead: ReadBatch | null = null;
  for (;;) {
    await c.query('BEGIN');
    try {
      await c.query('SELECT pg_advisory_xact_lock(1, $1::int)', [source]);
      const head = await storeHead(c, source);
      const fork = forkProblem(src, head);
      if (fork !== null) throw new FleetError(url, `refused: ${fork}`, 'conflict');
      if (head.seq >= src.events) {
        await c.query('COMMIT');
        return sent;
      }
      const b: ReadBatch = ahead?.after === head.seq ? ahead : read(head.seq);
      const end: number = head.seq + b.events.length;
      // The next batch is read (and put in COPY's format) while the server copies this one (its rows already sent).
      const next: { read?: ReadBatch | Error } = {};
      const readNext = (): void => {
        if (next.read !== undefined || end >= src.events) return;
        try {
          next.read = read(end);
        } catch (e) {
          next.read = e instanceof Error ? e : new Error(String(e));
        }
      };
      await insertBatch(c, source, b, readNext);
      readNext();
      if (next.read instanceof Error) throw next.read;
      ahead = next.read ?? null;
      const last = end >= src.events || o.stop?.() === true;
      if (!last) await c.query('SET LOCAL synchronous_commit = off');
      await c.query('COMMIT');
      sent += b.events.length;
      o.progress?.(sent);
      if (last) return sent;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }
}

/**
 * Pushes the log `file` to the fleet store at `url`: verified, then only what the store lacks. Idempotent: a log the
 * store holds whole sends nothing.
 */
export async function pushLog(file: string, url: string, o: PushOptions = {}): Promise<PushResult> {
  requireStoreUrl(url);
  const src = openSource(file, url);
  try {
    const host = o.host ?? hostname();
    const result = (logId: string, before: number, sent: number, robot: string | null): PushResult => ({
      store: redactUrl(url),
      log_id: logId,
      host,
      robot,
      local: src.events,
      before,
      sent,
      head: src.head,
    });
    if (src.events === 0) return result('', 0, 0, o.robot ?? null);
    const c = await pushSession(url);
    try {
      const { source, before } = await resolveSource(c, url, src, { host, robot: o.robot });
      const sent = await sendEvents(c, url, src, source.id, o);
      return result(src.logId(), before, sent, source.robot);
    } catch (e) {
      throw fleetErrorOf(url, e);
    } finally {
      await c.end().catch(() => {});
    }
  } finally {
    src.close();
  }
}
