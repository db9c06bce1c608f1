/**
 * Rows of an audit database as every reader takes them: each value within its size limit (checked
 * in SQL, before SQLite loads it) and of the type the writer stores, bodies parsed only when they
 * are JSON nested no deeper than MAX_JSON_DEPTH. The writer holds what it appends to the same
 * limits, so what Witness writes it can always read; a value outside them was not written by
 * Witness: a reader refuses it naming the event (or run, or blob) and the limit, and `verify`
 * reports it as tampering.
 */
import { WitnessError } from '../../contract/errors.js';
import { TOO_DEEP, jsonTooDeep } from '../../core/input/json.js';
import { bytesText } from '../llm/bounded.js';

/** The largest event body (canonical JSON) the log holds. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** The largest blob (a specification, regions, a plan with its certificate, a tool schema, a map). */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;
/** The largest other value: ids, kinds, tool names, failure labels, hashes, a run's models and metadata. */
export const MAX_FIELD_BYTES = 1024 * 1024;
/** Times are milliseconds since 1970 within the range of a JavaScript Date (±8.64e15 ms). */
export const MAX_TIME_MS = 8.64e15;

/** One stored event. */
export interface EventRow {
  readonly seq: number;
  readonly run_id: string;
  readonly t_ms: number;
  readonly step: number | null;
  readonly kind: string;
  readonly tool: string | null;
  readonly failure_label: string | null;
  readonly body: string;
  readonly prev_hash: string;
  readonly hash: string;
}

/** A row of the runs table. */
export interface RunRowRaw {
  readonly id: string;
  readonly started_ms: number;
  readonly world: string;
  readonly backend: string;
  readonly operator: string;
  readonly software: string;
  readonly models: string;
  readonly spec_sha: string | null;
  readonly regions_sha: string | null;
  readonly meta: string;
}

/** A row as SQLite returned it: values of any type a hostile file can hold. */
type Raw<T> = { readonly [K in keyof T]: unknown };

const cap = (col: string): number => (col === 'body' ? MAX_BODY_BYTES : MAX_FIELD_BYTES);

/** What a value over its limit reads as instead (a blob: Witness stores none, so it is never mistaken for a value). */
const OVER_LIMIT = Buffer.from('\0witness: over the size limit\0');

/**
 * The columns, each read only when it is within its limit (octet_length does not load a value; one
 * over it reads as OVER_LIMIT). `seq` (INTEGER PRIMARY KEY: always an integer) is read as it is, so
 * that `ORDER BY seq` still names the column and walks the table in order rather than sorting an
 * expression.
 */
function capped(cols: readonly string[], limit: (col: string) => number): string {
  return cols
    .map((c) =>
      c === 'seq'
        ? c
        : `CASE WHEN octet_length(${c}) > ${limit(c)} THEN x'${OVER_LIMIT.toString('hex')}' ELSE ${c} END AS ${c}`,
    )
    .join(', ');
}

const isOver = (v: unknown): boolean => v instanceof Uint8Array && Buffer.compare(v, OVER_LIMIT) === 0;

/** The first of `cols` whose value was over its limit, or null. */
function overLimit<T>(r: Raw<T>, cols: readonly (keyof T & string)[]): (keyof T & string) | null {
  return cols.find((c) => isOver(r[c])) ?? null;
}

const EVENT_FIELDS = [
  'seq',
  'run_id',
  't_ms',
  'step',
  'kind',
  'tool',
  'failure_label',
  'body',
  'prev_hash',
  'hash',
] as const;
export const RUN_FIELDS = [
  'id',
  'started_ms',
  'world',
  'backend',
  'operator',
  'software',
  'models',
  'spec_sha',
  'regions_sha',
  'meta',
] as const;

/**
 * `SELECT ${EVENT_COLUMNS} FROM events …`: every field of an event, each within its limit (raw rows: EVENT_FIELDS in
 * order).
 */
export const EVENT_COLUMNS = capped(EVENT_FIELDS, cap);
/** `SELECT ${RUN_COLUMNS} FROM runs …`. */
export const RUN_COLUMNS = capped(RUN_FIELDS, cap);
/** `SELECT ${BLOB_COLUMNS} FROM blobs …`. */
export const BLOB_COLUMNS = capped(['sha256', 'kind', 'body'], (c) =>
  c === 'body' ? MAX_BLOB_BYTES : MAX_FIELD_BYTES,
);

/** A value's type in words, for a message. */
function typeText(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return `text (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? `the integer ${v}` : `the number ${v}`;
  if (typeof v === 'bigint') return `the integer ${v}`;
  if (v instanceof Uint8Array) return `a blob of ${v.length} bytes`;
  return typeof v;
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_TIME_MS;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

const over = (col: string, limit: number): string =>
  `its ${col} is larger than ${bytesText(limit)}, the most Witness writes or reads`;

/** What is wrong with an event's values (not its hash: verify checks the chain), or null. */
export function eventProblem(r: Raw<EventRow>): string | null {
  // The common case first, in one expression (verify runs this on every event).
  if (
    typeof r.run_id === 'string' &&
    typeof r.kind === 'string' &&
    typeof r.body === 'string' &&
    typeof r.prev_hash === 'string' &&
    typeof r.hash === 'string' &&
    (r.tool === null || typeof r.tool === 'string') &&
    (r.failure_label === null || typeof r.failure_label === 'string') &&
    isTime(r.t_ms) &&
    (r.step === null || isCount(r.step)) &&
    isCount(r.seq)
  )
    return null;
  const big = overLimit(r, EVENT_FIELDS);
  if (big !== null) return over(big, cap(big));
  if (!isCount(r.seq)) return `its sequence number is ${typeText(r.seq)}, not an integer`;
  if (!isTime(r.t_ms))
    return `its t_ms is ${typeText(r.t_ms)}, not a time (milliseconds since 1970, a finite number within the range of dates)`;
  if (r.step !== null && !isCount(r.step)) return `its step is ${typeText(r.step)}, not an integer or NULL`;
  for (const k of ['run_id', 'kind', 'body', 'prev_hash', 'hash'] as const)
    if (!isText(r[k])) return `its ${k} is ${typeText(r[k])}, not text`;
  for (const k of ['tool', 'failure_label'] as const)
    if (r[k] !== null && !isText(r[k])) return `its ${k} is ${typeText(r[k])}, not text or NULL`;
  return null;
}

/** A value Witness does not write, found while reading: the code says whether it is over a limit. */
export class AuditValueError extends WitnessError {
  override readonly name = 'AuditValueError';
  constructor(what: string, problem: string) {
    super(
      /larger than/.test(problem) ? 'too-large' : 'invalid-input',
      `${what}: ${problem}; Witness did not write it (\`witness audit verify\` checks the whole log)`,
    );
  }
}

/** An event row as read (EVENT_COLUMNS), checked: its values of the types Witness writes, within their limits. */
export function eventOf(r: unknown): EventRow {
  const x = r as Raw<EventRow>;
  const why = eventProblem(x);
  if (why !== null) throw new AuditValueError(`event ${typeof x.seq === 'number' ? x.seq : typeText(x.seq)}`, why);
  return {
    seq: x.seq as number,
    run_id: x.run_id as string,
    t_ms: x.t_ms as number,
    step: x.step as number | null,
    kind: x.kind as string,
    tool: x.tool as string | null,
    failure_label: x.failure_label as string | null,
    body: x.body as string,
    prev_hash: x.prev_hash as string,
    hash: x.hash as string,
  };
}

/** A raw row (`.raw()` of EVENT_COLUMNS: the ten fields in order) as eventProblem reads it. */
export function rawEvent(a: readonly unknown[]): Raw<EventRow> {
  return {
    seq: a[0],
    run_id: a[1],
    t_ms: a[2],
    step: a[3],
    kind: a[4],
    tool: a[5],
    failure_label: a[6],
    body: a[7],
    prev_hash: a[8],
    hash: a[9],
  };
}

/** Why a JSON text cannot be read ("is not JSON (…)", "is nested deeper than …"), or null with its value. */
export function jsonValue(text: string): { value: unknown; problem: null } | { value: undefined; problem: string } {
  if (jsonTooDeep(text) !== null) return { value: undefined, problem: `is ${TOO_DEEP}` };
  try {
    return { value: JSON.parse(text) as unknown, problem: null };
  } catch (e) {
    return { value: undefined, problem: `is not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** An event's body, parsed; a body that is not JSON, or nested too deep, is an error naming the event. */
export function bodyOf(e: Pick<EventRow, 'seq' | 'body'>): unknown {
  const j = jsonValue(e.body);
  if (j.problem !== null) throw new AuditValueError(`event ${e.seq}`, `its body ${j.problem}`);
  return j.value;
}

/**
 * JSON text parsed, or `fallback` when it is not JSON or nested too deep (values outside the chain, shown as found).
 */
export function jsonOr<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  const j = jsonValue(text);
  return j.problem === null ? (j.value as T) : fallback;
}

/** What is wrong with a runs row's values, or null. */
export function runProblem(r: Raw<RunRowRaw>): string | null {
  const big = overLimit(r, RUN_FIELDS);
  if (big !== null) return over(big, MAX_FIELD_BYTES);
  if (!isTime(r.started_ms)) return `its started_ms is ${typeText(r.started_ms)}, not a time (milliseconds since 1970)`;
  for (const k of ['id', 'world', 'backend', 'operator', 'software', 'models', 'meta'] as const)
    if (!isText(r[k])) return `its ${k} is ${typeText(r[k])}, not text`;
  for (const k of ['spec_sha', 'regions_sha'] as const)
    if (r[k] !== null && !isText(r[k])) return `its ${k} is ${typeText(r[k])}, not text or NULL`;
  return null;
}

interface BlobRow {
  readonly sha256: string;
  readonly kind: string;
  readonly body: string;
}

/** What is wrong with a blob's values, or null. */
export function blobProblem(r: Raw<BlobRow>): string | null {
  const big = overLimit(r, ['sha256', 'kind', 'body']);
  if (big !== null) return over(big, big === 'body' ? MAX_BLOB_BYTES : MAX_FIELD_BYTES);
  for (const k of ['sha256', 'kind', 'body'] as const)
    if (!isText(r[k])) return `its ${k} is ${typeText(r[k])}, not text`;
  return null;
}

/** A blob as read (BLOB_COLUMNS), checked. */
export function blobOf(r: unknown): BlobRow {
  const x = r as Raw<BlobRow>;
  const why = blobProblem(x);
  if (why !== null) throw new AuditValueError(`the blob ${isText(x.sha256) ? x.sha256 : typeText(x.sha256)}`, why);
  return { sha256: x.sha256 as string, kind: x.kind as string, body: x.body as string };
}
