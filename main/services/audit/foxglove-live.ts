/**
 * The foxglove channels live, over the Foxglove WebSocket protocol (@foxglove/ws-protocol), while a
 * mission or a tool loop runs: an engineer watches in Foxglove or Lichtblick beside Witness. The
 * server tails the audit database the run writes (read-only, every `pollMs`), so it serves exactly
 * what the log records, whichever front end writes it; the messages are those of the MCAP export
 * (foxglove.ts). It binds 127.0.0.1 unless told otherwise, and refuses a non-loopback address unless
 * `allowRemote` says so.
 *
 * The world is latched: the map and the scene (the start's, or the latest plan's with its path) are
 * sent once when they change, so the server keeps the latest message of each (LATCHED) and sends it
 * to a client when that client subscribes to its channel — a client that connects mid-run sees the
 * map, the maze and the current plan at once, not at the next plan. A server started while a run is
 * under way latches that run's start and latest plan from the log.
 *
 * No client can stop the process or grow its memory without bound: a client's message is at most
 * FOXGLOVE_LIMITS.maxMessageBytes (clients send only small JSON: subscribe and unsubscribe), a frame
 * the ws library refuses or a socket error closes that client only, and a client that leaves more
 * than `maxUnreadBytes` unread (a viewer that stopped reading) is disconnected before anything more
 * is queued for it, so it holds at most that and one message. Foxglove reconnects on its own and,
 * subscribing again, gets the latched map and scene at once.
 */
import wsProtocol from '@foxglove/ws-protocol';
import { type WebSocket, WebSocketServer } from 'ws';

// A CommonJS package: its classes come off the default export.
const { FoxgloveServer, BinaryOpcode } = wsProtocol;
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { AuditRunSummary } from '../../contract/api.js';
import { WitnessError } from '../../contract/errors.js';
import { openAuditReadOnly } from './store.js';
import { EVENT_COLUMNS, type EventRow, eventOf } from './rows.js';
import { runOf, runsPage } from './browse.js';
import { replayRun } from './replay.js';
import {
  FOXGLOVE_CHANNELS,
  FOXGLOVE_KINDS,
  type FoxgloveChannel,
  type FoxgloveMessage,
  FoxgloveRun,
  planPoints,
} from './foxglove.js';

export interface FoxgloveLiveOptions {
  /** TCP port; 0 picks a free one (see `port` on the result). */
  readonly port: number;
  readonly host?: string;
  /** Serve on a non-loopback address (other machines can connect). */
  readonly allowRemote?: boolean;
  /** The audit database the run writes. */
  readonly auditFile: string;
  readonly pollMs?: number;
  /** Called with the number of connected clients whenever one connects or leaves. */
  readonly onClients?: (clients: number) => void;
  /** Per-client limits (default FOXGLOVE_LIMITS). */
  readonly limits?: Partial<FoxgloveLimits>;
  /** Where a client's refused frame, socket error or disconnection for not reading is told. */
  readonly log?: (line: string) => void;
}

export interface FoxgloveLimits {
  /** The largest message a client may send (the WebSocket's maxPayload). */
  readonly maxMessageBytes: number;
  /** What a client may leave unread before it is disconnected. */
  readonly maxUnreadBytes: number;
}

/**
 * A subscribe request for every channel is well under 1 KiB; 64 KiB leaves room for any client's.
 * A map message can be megabytes: a client is measured before a message is queued, so one larger
 * than the limit still reaches a client that keeps up.
 */
export const FOXGLOVE_LIMITS: FoxgloveLimits = { maxMessageBytes: 64 * 1024, maxUnreadBytes: 16 * 1024 * 1024 };

export interface FoxgloveLive {
  readonly url: string;
  readonly port: number;
  /** Sends what the log holds by now, then stops serving. */
  close(): Promise<void>;
  /** Messages sent so far, per channel. */
  readonly sent: Readonly<Record<FoxgloveChannel, number>>;
  /** Latched messages sent to one client as it subscribed, per channel. */
  readonly latched: Readonly<Record<FoxgloveChannel, number>>;
  /** Channels with at least one subscriber now. */
  subscribed(): number;
  /** Clients connected now. */
  clients(): number;
}

/**
 * The channels whose latest message a client gets when it subscribes (they are sent when they change, not streamed).
 */
const LATCHED: readonly FoxgloveChannel[] = ['map', 'scene'];

/** A MESSAGE_DATA frame of the Foxglove WebSocket protocol, for one subscription. */
function messageFrame(subscriptionId: number, timestamp: bigint, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(13 + payload.byteLength);
  const v = new DataView(frame.buffer);
  v.setUint8(0, BinaryOpcode.MESSAGE_DATA);
  v.setUint32(1, subscriptionId, true);
  v.setBigUint64(5, timestamp, true);
  frame.set(payload, 13);
  return frame;
}

/** A client's subscribe and unsubscribe requests, as far as the latch needs them (anything else: null). */
function subscriptionOp(
  data: unknown,
): { subscribe: { id: number; channelId: number }[]; unsubscribe: number[] } | null {
  let m: unknown;
  try {
    m = JSON.parse(String(data));
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const o = m as { op?: unknown; subscriptions?: unknown; subscriptionIds?: unknown };
  const isInt = (x: unknown): x is number => Number.isInteger(x);
  if (o.op === 'subscribe' && Array.isArray(o.subscriptions)) {
    return {
      subscribe: o.subscriptions.filter(
        (x): x is { id: number; channelId: number } =>
          isInt((x as { id?: unknown } | null)?.id) && isInt((x as { channelId?: unknown }).channelId),
      ),
      unsubscribe: [],
    };
  }
  if (o.op === 'unsubscribe' && Array.isArray(o.subscriptionIds))
    return { subscribe: [], unsubscribe: o.subscriptionIds.filter(isInt) };
  return null;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

type Server = InstanceType<typeof FoxgloveServer>;

/** Every Foxglove channel advertised on the server: its id by name. */
function addChannels(server: Server): Map<FoxgloveChannel, number> {
  const ids = new Map<FoxgloveChannel, number>();
  for (const [name, c] of Object.entries(FOXGLOVE_CHANNELS) as [
    FoxgloveChannel,
    (typeof FOXGLOVE_CHANNELS)[FoxgloveChannel],
  ][]) {
    ids.set(
      name,
      server.addChannel({
        topic: c.topic,
        encoding: 'json',
        schemaName: c.schema.title,
        schema: JSON.stringify(c.schema),
        schemaEncoding: 'jsonschema',
      }),
    );
  }
  return ids;
}

/** Resolves once the server listens; a port in use is a conflict, any other failure unavailable. */
function listening(wss: WebSocketServer, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException): void =>
      reject(
        new WitnessError(
          e.code === 'EADDRINUSE' ? 'conflict' : 'unavailable',
          `--foxglove ${port}: cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}`,
          { path: '--foxglove' },
        ),
      );
    wss.once('error', failed);
    wss.once('listening', () => {
      wss.off('error', failed);
      resolve();
    });
  });
}

/** What a connection's latch needs: the channels by id, their latest messages, and the latch counts. */
interface Latch {
  readonly channelOf: ReadonlyMap<number, FoxgloveChannel>;
  readonly latest: ReadonlyMap<FoxgloveChannel, { timestamp: bigint; payload: Uint8Array }>;
  readonly latched: Record<FoxgloveChannel, number>;
  /** Disconnects the clients that have left more than the limit unread. */
  readonly shed: () => void;
}

/**
 * Sends a new subscriber the latest message of a latched channel. The server handles the request first (its listener
 * came first); the latch follows it, with the same checks, so a subscription the server ignored gets nothing.
 */
function latchOnSubscribe(conn: WebSocket, l: Latch): void {
  const subs = new Map<number, number>();
  conn.on('message', (data, isBinary) => {
    // The server may have answered (a status for each subscription it ignored).
    l.shed();
    if (isBinary) return;
    const op = subscriptionOp(data);
    if (op === null) return;
    for (const id of op.unsubscribe) subs.delete(id);
    for (const { id, channelId } of op.subscribe) {
      const channel = l.channelOf.get(channelId);
      if (channel === undefined || subs.has(id) || [...subs.values()].includes(channelId)) continue;
      subs.set(id, channelId);
      const m = l.latest.get(channel);
      if (m === undefined) continue;
      l.shed();
      if (conn.readyState !== conn.OPEN) return;
      conn.send(messageFrame(id, m.timestamp, m.payload));
      l.latched[channel]++;
    }
  });
}

/** Events read from the audit database per poll, at most. */
const POLL_ROWS = 5000;

/**
 * Follows the audit database: each call of `poll` sends the events written since the last, until `full` says the
 * poll has sent enough; true when there may be more. Only what is written from now on: the events already in the
 * database are history (a run under way has its world and latest plan latched).
 */
function auditFollower(
  auditFile: string,
  send: (m: FoxgloveMessage) => void,
  full: () => boolean,
): { poll: () => boolean; close: () => void } {
  let db: Database.Database | null = null;
  // A database that does not exist yet will hold only new events.
  let after = existsSync(auditFile) ? -1 : 0;
  const runs = new Map<string, FoxgloveRun>();
  /** The latest plan's scene, placed as the replay places its nodes from what the log holds by now. */
  const planScene = (d: Database.Database, conv: FoxgloveRun, t_ms: number): FoxgloveMessage => {
    const replay = replayRun(d, conv.run, 1, { placementOnly: true });
    return conv.planScene(t_ms, planPoints(replay, replay.plans.length - 1));
  };
  const startRun = (d: Database.Database, summary: AuditRunSummary): FoxgloveRun => {
    const conv = new FoxgloveRun(d, summary);
    runs.set(summary.id, conv);
    for (const m of conv.start()) send(m);
    return conv;
  };
  const open = (d: Database.Database): void => {
    after = (d.prepare('SELECT max(seq) AS s FROM events').get() as { s: number | null }).s ?? 0;
    // A run under way: its world (and its latest plan) is latched for the clients to come.
    const current = runsPage(d, { limit: 1 }).runs[0];
    if (current === undefined || current.ended_ms !== null) return;
    const conv = startRun(d, current);
    const plan = d
      .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind = 'plan' ORDER BY seq DESC LIMIT 1`)
      .get(current.id);
    if (plan !== undefined) send(planScene(d, conv, eventOf(plan).t_ms));
  };
  const liveEvent = (d: Database.Database, e: EventRow): void => {
    let conv = runs.get(e.run_id);
    if (conv === undefined) {
      const summary = runOf(d, e.run_id);
      if (summary === undefined) return;
      conv = startRun(d, summary);
    }
    if (e.kind === 'plan') send(planScene(d, conv, e.t_ms));
    else for (const m of conv.event(e)) send(m);
  };
  const poll = (): boolean => {
    if (db === null) {
      if (!existsSync(auditFile)) return false;
      try {
        db = openAuditReadOnly(auditFile);
      } catch {
        return false; // Not created completely yet: the next poll tries again.
      }
      if (after < 0) open(db);
    }
    const rows = db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? AND kind IN ('run_start', ${FOXGLOVE_KINDS.map(() => '?').join(',')}) ORDER BY seq LIMIT ${POLL_ROWS}`,
      )
      .all(after, ...FOXGLOVE_KINDS) as { seq: number }[];
    for (const r of rows) {
      if (full()) return true;
      after = r.seq;
      try {
        liveEvent(db, eventOf(r));
      } catch (e) {
        // A row Witness did not write, refused as every reader refuses it (verify names it): the live view goes on.
        if (!(e instanceof WitnessError)) throw e;
      }
    }
    return rows.length === POLL_ROWS;
  };
  return { poll, close: () => db?.close() };
}

export async function serveFoxgloveLive(o: FoxgloveLiveOptions): Promise<FoxgloveLive> {
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && o.allowRemote !== true) {
    throw new WitnessError(
      'invalid-input',
      `--foxglove-host ${host}: not a loopback address, so other machines could watch the robot; pass --foxglove-allow-remote to mean it`,
      { path: '--foxglove-host' },
    );
  }
  const server = new FoxgloveServer({ name: 'witness' });
  const ids = addChannels(server);
  const limits: FoxgloveLimits = { ...FOXGLOVE_LIMITS, ...o.limits };
  const log = o.log ?? (() => {});
  const wss = new WebSocketServer({
    host,
    port: o.port,
    maxPayload: limits.maxMessageBytes,
    handleProtocols: (protocols) => server.handleProtocols(protocols),
  });
  await listening(wss, host, o.port);
  // Once listening, a failed accept (too many open files) is told; the server goes on.
  wss.on('error', (e) => log(`foxglove: ${e.message}`));
  // A client message the protocol library cannot read (it catches the error and emits it here).
  server.on('error', (e) => log(`foxglove: a client's message: ${e instanceof Error ? e.message : String(e)}`));
  /** Disconnects the clients that have left more than the limit unread; before each message queued for them. */
  const shed = (): void => {
    for (const c of wss.clients) {
      if (c.readyState !== c.OPEN || c.bufferedAmount <= limits.maxUnreadBytes) continue;
      log(
        `foxglove: a client left ${c.bufferedAmount} bytes unread (the limit is ${limits.maxUnreadBytes}): disconnected`,
      );
      c.terminate();
    }
  };
  const channelOf = new Map<number, FoxgloveChannel>([...ids].map(([name, id]) => [id, name]));
  const latest = new Map<FoxgloveChannel, { timestamp: bigint; payload: Uint8Array }>();
  const latched: Record<FoxgloveChannel, number> = { pose: 0, scene: 0, log: 0, map: 0 };
  wss.on('connection', (conn, req) => {
    const name = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
    // Without this listener a refused frame would be an uncaught exception: the process would exit.
    conn.on('error', (e) => log(`foxglove: client ${name}: ${e.message}: connection closed`));
    server.handleConnection(conn, name);
    o.onClients?.(wss.clients.size);
    conn.on('close', () => o.onClients?.(wss.clients.size));
    latchOnSubscribe(conn, { channelOf, latest, latched, shed });
  });
  const subscribed = new Set<number>();
  server.on('subscribe', (id) => subscribed.add(id));
  server.on('unsubscribe', (id) => subscribed.delete(id));
  const address = wss.address();
  const port = typeof address === 'object' && address !== null ? address.port : o.port;
  const sent: Record<FoxgloveChannel, number> = { pose: 0, scene: 0, log: 0, map: 0 };
  const enc = new TextEncoder();
  /**
   * The bytes of messages sent in this poll: a poll stops at a quarter of the limit, so a viewer that reads keeps up.
   */
  let polled = 0;
  const send = (m: FoxgloveMessage): void => {
    const timestamp = BigInt(Math.max(0, Math.round(m.t_ms * 1e6))),
      payload = enc.encode(JSON.stringify(m.message));
    shed();
    polled += payload.byteLength;
    server.sendMessage(ids.get(m.channel)!, timestamp, payload);
    sent[m.channel]++;
    if (LATCHED.includes(m.channel)) latest.set(m.channel, { timestamp, payload });
  };
  const follower = auditFollower(o.auditFile, send, () => polled >= limits.maxUnreadBytes / 4);
  let polling = false,
    told = '';
  const tick = (): boolean => {
    if (polling) return false;
    polling = true;
    polled = 0;
    try {
      return follower.poll();
    } catch (e) {
      // An event the converter cannot read (a damaged body) is passed over: the next poll goes on after it.
      const why = `foxglove: the audit log: ${e instanceof Error ? e.message : String(e)}`;
      if (why !== told) log(why);
      told = why;
      return false;
    } finally {
      polling = false;
    }
  };
  tick();
  const timer = setInterval(tick, o.pollMs ?? 100);
  return {
    url: `ws://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    sent,
    latched,
    subscribed: () => subscribed.size,
    clients: () => wss.clients.size,
    close: async () => {
      clearInterval(timer);
      // What the log holds by now, a poll at a time, with the viewers' sockets served between.
      while (tick()) await new Promise((resolve) => setImmediate(resolve));
      for (const c of wss.clients) c.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      follower.close();
    },
  };
}
