/**
 * The foxglove channels live, over the Foxglove WebSocket protocol (@foxglove/ws-protocol), while a
 * mission or a tool loop runs: an engineer watches in Foxglove or Lichtblick beside Witness. The
 * server tails the audit database the run writes (read-only, every `pollMs`), so it serves exactly
 * what the log records, whichever front end writes it; the messages are those of the MCAP export
 * (foxglove.ts). It binds 127.0.0.1 unless told otherwise, and refuses a non-loopback address unless
 * `allowRemote` says so.
 */
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocketServer } from 'ws';

// A CommonJS package: its classes come off the default export.
const { FoxgloveServer } = wsProtocol;
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { WitnessError } from '../../contract/errors.js';
import { openAuditReadOnly } from './store.js';
import { runsOf } from './browse.js';
import { replayRun } from './replay.js';
import { FOXGLOVE_CHANNELS, FOXGLOVE_KINDS, type FoxgloveChannel, type FoxgloveEventRow, type FoxgloveMessage, FoxgloveRun, planPoints } from './foxglove.js';

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
}

export interface FoxgloveLive {
  readonly url: string;
  readonly port: number;
  /** Sends what the log holds by now, then stops serving. */
  close(): Promise<void>;
  /** Messages sent so far, per channel. */
  readonly sent: Readonly<Record<FoxgloveChannel, number>>;
  /** Channels with at least one subscriber now. */
  subscribed(): number;
  /** Clients connected now. */
  clients(): number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function serveFoxgloveLive(o: FoxgloveLiveOptions): Promise<FoxgloveLive> {
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && o.allowRemote !== true) {
    throw new WitnessError('invalid-input', `--foxglove-host ${host}: not a loopback address, so other machines could watch the robot; pass --foxglove-allow-remote to mean it`, { path: '--foxglove-host' });
  }
  const server = new FoxgloveServer({ name: 'witness' });
  const ids = new Map<FoxgloveChannel, number>();
  for (const [name, c] of Object.entries(FOXGLOVE_CHANNELS) as [FoxgloveChannel, (typeof FOXGLOVE_CHANNELS)[FoxgloveChannel]][]) {
    ids.set(name, server.addChannel({ topic: c.topic, encoding: 'json', schemaName: c.schema.title, schema: JSON.stringify(c.schema), schemaEncoding: 'jsonschema' }));
  }
  const wss = new WebSocketServer({ host, port: o.port, handleProtocols: (protocols) => server.handleProtocols(protocols) });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', (e: NodeJS.ErrnoException) => reject(new WitnessError(e.code === 'EADDRINUSE' ? 'conflict' : 'unavailable', `--foxglove ${o.port}: cannot listen on ${host}:${o.port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}`, { path: '--foxglove' })));
  });
  wss.on('connection', (conn, req) => {
    server.handleConnection(conn, `${req.socket.remoteAddress}:${req.socket.remotePort}`);
    o.onClients?.(wss.clients.size);
    conn.on('close', () => o.onClients?.(wss.clients.size));
  });
  const subscribed = new Set<number>();
  server.on('subscribe', (id) => subscribed.add(id));
  server.on('unsubscribe', (id) => subscribed.delete(id));
  const address = wss.address();
  const port = typeof address === 'object' && address !== null ? address.port : o.port;
  const sent: Record<FoxgloveChannel, number> = { pose: 0, scene: 0, log: 0, map: 0 };
  const enc = new TextEncoder();
  const send = (m: FoxgloveMessage): void => {
    server.sendMessage(ids.get(m.channel)!, BigInt(Math.max(0, Math.round(m.t_ms * 1e6))), enc.encode(JSON.stringify(m.message)));
    sent[m.channel]++;
  };

  // Only what is written from now on: the events already in the database are history.
  let db: Database.Database | null = null;
  // A database that does not exist yet will hold only new events.
  let after = existsSync(o.auditFile) ? -1 : 0;
  const runs = new Map<string, FoxgloveRun>();
  const poll = (): void => {
    if (db === null) {
      if (!existsSync(o.auditFile)) return;
      try {
        db = openAuditReadOnly(o.auditFile);
      } catch {
        return; // Not created completely yet: the next poll tries again.
      }
      if (after < 0) after = (db.prepare('SELECT max(seq) AS s FROM events').get() as { s: number | null }).s ?? 0;
    }
    const rows = db.prepare(`SELECT seq, run_id, t_ms, kind, failure_label, body FROM events WHERE seq > ? AND kind IN ('run_start', ${FOXGLOVE_KINDS.map(() => '?').join(',')}) ORDER BY seq LIMIT 5000`)
      .all(after, ...FOXGLOVE_KINDS) as (FoxgloveEventRow & { run_id: string })[];
    for (const e of rows) {
      after = e.seq;
      let conv = runs.get(e.run_id);
      if (conv === undefined) {
        const summary = runsOf(db).find((r) => r.id === e.run_id);
        if (summary === undefined) continue;
        conv = new FoxgloveRun(db, summary);
        runs.set(e.run_id, conv);
        for (const m of conv.start()) send(m);
      }
      if (e.kind === 'plan') {
        // Placed as the replay places the plan's nodes from what the log holds by now.
        const replay = replayRun(db, conv.run, 1);
        send(conv.planScene(e.t_ms, planPoints(replay, replay.plans.length - 1)));
      } else {
        for (const m of conv.event(e)) send(m);
      }
    }
  };
  let polling = false;
  const tick = (): void => {
    if (polling) return;
    polling = true;
    try {
      poll();
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
    subscribed: () => subscribed.size,
    clients: () => wss.clients.size,
    close: async () => {
      clearInterval(timer);
      tick();
      for (const c of wss.clients) c.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      db?.close();
    },
  };
}
