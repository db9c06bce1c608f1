// Contract, the audit browser on a fleet store: the server (web mode's `--fleet`, the desktop's
// $WITNESS_FLEET) holds the PostgreSQL URL and its credentials; the UI sees the URL with its password
// masked, lists the store's sources, and opens one as a verified local replica (its path is then the
// `file` of the audit browser's methods, which read it as any audit database).
import { type Static, Type } from '@sinclair/typebox';
import { NoParams } from './core.js';

/** One source of the store (one lab PC's audit log) as the sources table shows it. */
export interface FleetSource {
  /** The log's id: the hash of its first event (64 hex digits). */
  logId: string;
  host: string;
  robot: string | null;
  /** The worlds its runs ran in, sorted. */
  worlds: string[];
  events: number;
  runs: number;
  /** Its first and last event's time (ms since 1970); null for a source without events. */
  firstMs: number | null;
  lastMs: number | null;
}

export const FleetSourceFilter = Type.Object(
  {
    robot: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    world: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    sinceMs: Type.Optional(Type.Number({ description: 'sources with an event at or after (ms since 1970)' })),
    untilMs: Type.Optional(Type.Number({ description: 'sources with an event before (ms since 1970)' })),
  },
  { additionalProperties: false },
);
export type FleetSourceFilter = Static<typeof FleetSourceFilter>;

export interface FleetSources {
  /** The store's URL, password masked. */
  store: string;
  /** The sources the filter selects, the newest last event first. */
  sources: FleetSource[];
  /** Every robot, world and host the store holds (the filter's choices), sorted. */
  choices: { robots: string[]; worlds: string[]; hosts: string[] };
}

export interface FleetMirrorResult {
  logId: string;
  host: string;
  robot: string | null;
  /** The local replica: an audit database the audit methods read with `file`. */
  file: string;
  /** Events the replica holds, and how many this pull brought. */
  events: number;
  pulled: number;
}

/** Pushed while a source is mirrored, after each batch that lands: the events this pull has brought so far. */
export type FleetEvent = { topic: 'fleet.mirror'; logId: string; pulled: number };

const LOG_ID = Type.String({ pattern: '^[0-9a-f]{64}$', description: "a source's log id (64 hex digits)" });

const FleetSourcesRequest = Type.Object({ filter: Type.Optional(FleetSourceFilter) }, { additionalProperties: false });
const FleetMirrorRequest = Type.Object({ logId: LOG_ID }, { additionalProperties: false });
const FleetStopRequest = Type.Object({ logId: LOG_ID }, { additionalProperties: false });

export interface FleetApi {
  /** The fleet store this server reads: its URL with the password masked (null when it has none). */
  fleetInfo(params?: NoParams): Promise<{ store: string | null }>;
  /**
   * The store's sources the filter selects (robot, world, host exactly; a time range, from sinceMs up to but not
   * including untilMs, meets a source that has an event in it); a range that ends before it starts is
   * invalid-params. A server without a fleet store answers not-found; a store that cannot be reached, or whose schema
   * this build does not read, an error naming it (its URL with the password masked).
   */
  fleetSources(params: Static<typeof FleetSourcesRequest>): Promise<FleetSources>;
  /**
   * Brings the source's local replica up to the store (incrementally: only what is new is pulled), verifying it,
   * and returns its path; progress comes as `fleet.mirror` events. A source that does not verify is refused
   * (tampered) and its replica is not used.
   */
  fleetMirror(params: Static<typeof FleetMirrorRequest>): Promise<FleetMirrorResult>;
  /**
   * Stops the pulls of this source under way (each fails with cancelled): the batches that landed stay in the
   * replica, and the next pull continues after them. Answers how many it stopped.
   */
  fleetStop(params: Static<typeof FleetStopRequest>): Promise<{ stopped: number }>;
}

export const FLEET_PARAMS = {
  fleetInfo: NoParams,
  fleetSources: FleetSourcesRequest,
  fleetMirror: FleetMirrorRequest,
  fleetStop: FleetStopRequest,
} as const satisfies Record<keyof FleetApi, object>;
