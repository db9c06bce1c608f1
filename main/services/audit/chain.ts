/**
 * The checks `verify` makes, over rows however they are read: the hash chain walked in sequence order
 * (ChainWalk: each event's values, its place, its link and its hash; the run_starts and the blobs the
 * chain names), each run row held against its chained run_start, each blob against its address and
 * the kinds the chain gives it. forensics.ts feeds them an SQLite log's rows, the fleet store
 * (services/fleet) one source's rows at a time.
 */
import { GENESIS_HASH, eventHash, sha256 } from './store.js';
import { type EventRow, type RunRowRaw, blobProblem, eventProblem, jsonValue, rawEvent, runProblem } from './rows.js';
import { obj, text } from './body.js';
import { type RunStartBody, runRowMismatch } from './runs.js';

export interface VerifyProblem {
  readonly table: 'events' | 'blobs' | 'runs' | 'schema';
  readonly key: string;
  readonly reason: string;
}

/** A chained run_start: where it is, and its body. */
export type ChainedStart = { seq: number; t_ms: number; body: RunStartBody };
/** Blob address → the kinds chained events give it, and the first event that names it. */
export type BlobRefs = Map<string, { kinds: Set<string>; seq: number }>;

/** The blobs an event names, as [address, kind]: a run_start's specification, regions, tool schemas and map; a plan. */
export function blobRefsOf(kind: string, body: Record<string, unknown>): [sha: string, kind: string][] {
  const out: [string, string][] = [];
  const ref = (sha: unknown, k: string): void => {
    if (typeof sha === 'string') out.push([sha, k]);
  };
  if (kind === 'run_start') {
    const b = body as unknown as RunStartBody;
    ref(b.spec_sha, 'spec');
    ref(b.regions_sha, 'regions');
    for (const [tool, sha] of Object.entries(b.tool_schemas ?? {})) ref(sha, `tool-schema:${tool}`);
    ref(b.map_sha, 'map');
  } else if (kind === 'plan') ref(body['plan_sha'], 'plan');
  return out;
}

/** The chain walked in sequence order, one raw row (EVENT_COLUMNS' fields in order) at a time. */
export class ChainWalk {
  /** The hash of the last event that held, and how many held. */
  head = GENESIS_HASH;
  events = 0;
  /** The first event's hash (the log's id in the fleet store), once one held. */
  first: string | null = null;
  readonly starts = new Map<string, ChainedStart>();
  readonly refs: BlobRefs = new Map();
  private expectSeq: number | null = null;
  private lastT = -Infinity;
  /** The run of the last event checked to have started. */
  private started = '';

  /**
   * A walk that continues a chain already checked up to its event `last` (a replica's tail: services/fleet/mirror.ts):
   * the next row must be event `last.seq + 1`, linked to `last.hash`; `starts` are the run_starts up to it, `first`
   * the chain's first hash. Blob references (`refs`) are those of the rows stepped from here on.
   */
  static after(
    last: { readonly seq: number; readonly hash: string; readonly t_ms: number },
    first: string,
    starts: Iterable<[run: string, start: ChainedStart]>,
  ): ChainWalk {
    const w = new ChainWalk();
    if (last.seq === 0) return w;
    w.head = last.hash;
    w.events = last.seq;
    w.first = first;
    w.expectSeq = last.seq + 1;
    w.lastT = last.t_ms;
    for (const [run, s] of starts) w.starts.set(run, s);
    return w;
  }

  private ref(sha: string, kind: string, seq: number): void {
    const r = this.refs.get(sha);
    if (r === undefined) this.refs.set(sha, { kinds: new Set([kind]), seq });
    else r.kinds.add(kind);
  }

  /** Checks the next row: null when it holds (the walk moves on), else the problem (the walk stops there). */
  step(a: readonly unknown[]): VerifyProblem | null {
    const raw = rawEvent(a);
    const fail = (reason: string): VerifyProblem => ({ table: 'events', key: String(raw.seq), reason });
    const wrong = eventProblem(raw);
    if (wrong !== null) return fail(`${wrong}: Witness does not write it (the row was altered)`);
    const r = raw as unknown as EventRow;
    // The bodies verify reads (run_start, plan) must be JSON it can read; every other body is held to its hash.
    const parsed = (): Record<string, unknown> | string => {
      const j = jsonValue(r.body);
      return j.problem === null
        ? obj(j.value)
        : `its body ${j.problem}: Witness writes every body as JSON no deeper than that (the row was altered)`;
    };
    if (this.expectSeq !== null && r.seq !== this.expectSeq)
      return fail(`sequence gap: expected event ${this.expectSeq}, found ${r.seq} (events were removed)`);
    if (r.t_ms < this.lastT)
      return fail(`time goes backwards (${r.t_ms} after ${this.lastT}): stored times never decrease`);
    if (r.prev_hash !== this.head)
      return fail(
        `prev_hash ${r.prev_hash.slice(0, 12)}… does not chain to the previous event's hash ${this.head.slice(0, 12)}…`,
      );
    if (eventHash(this.head, r) !== r.hash)
      return fail(`hash does not match its content (${r.kind} of run ${r.run_id}): the row was altered`);
    if (r.kind === 'run_start') {
      const first = this.starts.get(r.run_id);
      if (first !== undefined) return fail(`a second run_start for run ${r.run_id} (the first is event ${first.seq})`);
      const b = parsed();
      if (typeof b === 'string') return fail(b);
      this.starts.set(r.run_id, { seq: r.seq, t_ms: r.t_ms, body: b as unknown as RunStartBody });
      for (const [sha, kind] of blobRefsOf(r.kind, b)) this.ref(sha, kind, r.seq);
    } else if (r.run_id !== this.started) {
      // (Consecutive events mostly share a run: one comparison instead of a lookup.)
      if (!this.starts.has(r.run_id))
        return fail(`an event of run ${r.run_id} before its run_start (or a run with no run_start)`);
      this.started = r.run_id;
    }
    if (r.kind === 'plan') {
      const b = parsed();
      if (typeof b === 'string') return fail(b);
      for (const [sha, kind] of blobRefsOf(r.kind, b)) this.ref(sha, kind, r.seq);
    }
    this.lastT = r.t_ms;
    this.head = r.hash;
    this.first ??= r.hash;
    this.events++;
    this.expectSeq = r.seq + 1;
    return null;
  }
}

/** Each run's row against its chained run_start, and every run_start against its row: the rows that hold. */
export function checkRunRows(
  rows: Iterable<RunRowRaw>,
  starts: ReadonlyMap<string, ChainedStart>,
): { bad?: VerifyProblem; runs: number } {
  let runs = 0;
  const rowIds = new Set<string>();
  for (const raw of rows) {
    const row = { ...raw, id: text(raw.id) };
    rowIds.add(row.id);
    const start = starts.get(row.id);
    if (start === undefined) {
      const reason = 'no run_start event in the chain: a run not under the hash chain (inserted by hand?)';
      return { bad: { table: 'runs', key: row.id, reason }, runs };
    }
    const why = runRowMismatch(row, start, runProblem(raw));
    if (why !== null) return { bad: { table: 'runs', key: row.id, reason: why }, runs };
    runs++;
  }
  for (const [id, s] of starts) {
    if (!rowIds.has(id)) {
      const reason = `the run_start of this run (event ${s.seq}) has no row in the runs table (removed)`;
      return { bad: { table: 'runs', key: id, reason }, runs };
    }
  }
  return { runs };
}

/** One blob against its address and the kinds the chain names it as: null when it holds, else why not. */
export function checkBlobRow(
  raw: { sha256: unknown; kind: unknown; body: unknown },
  refs: BlobRefs,
): VerifyProblem | null {
  const b = { sha256: text(raw.sha256), kind: String(raw.kind), body: raw.body as string };
  const bad = (reason: string): VerifyProblem => ({ table: 'blobs', key: b.sha256, reason });
  const wrong = blobProblem(raw);
  if (wrong !== null) return bad(`${wrong}: Witness does not write it (the row was altered)`);
  if (sha256(b.body) !== b.sha256) return bad(`the ${b.kind} blob's content does not match its address`);
  const r = refs.get(b.sha256);
  if (r === undefined)
    return bad(`no chained event names this ${b.kind} blob: it is not under the hash chain (inserted by hand?)`);
  if (!r.kinds.has(b.kind))
    return bad(
      `its kind is ${JSON.stringify(b.kind)} but the chain names it as ${[...r.kinds].map((k) => JSON.stringify(k)).join(' or ')} (event ${r.seq}): the row was altered`,
    );
  return null;
}

/** Each blob against its address and the kinds the chain names it as, and every named blob present. */
export function checkBlobRows(
  rows: Iterable<{ sha256: unknown; kind: unknown; body: unknown }>,
  refs: BlobRefs,
): { bad?: VerifyProblem; blobs: number } {
  let blobs = 0;
  const stored = new Set<string>();
  for (const raw of rows) {
    stored.add(text(raw.sha256));
    const bad = checkBlobRow(raw, refs);
    if (bad !== null) return { bad, blobs };
    blobs++;
  }
  for (const [sha, r] of refs) {
    if (!stored.has(sha)) {
      const reason = `the ${[...r.kinds].join(' or ')} blob that event ${r.seq} names is missing (removed)`;
      return { bad: { table: 'blobs', key: sha, reason }, blobs };
    }
  }
  return { blobs };
}
