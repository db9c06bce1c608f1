/**
 * One API connection of web mode: its calls in, its replies and the pushed events out, within limits
 * of its own, so that no client (even one holding the token) can stop the server or make it hold
 * memory without bound. Whatever one connection does ends that connection at worst: the server, the
 * other windows and their E-STOP go on.
 *
 * - A frame the ws library refuses (a message over `maxMessageBytes`, text that is not UTF-8, an
 *   unmasked frame, a reserved opcode or bit) closes this connection with the close code that says
 *   why (1009, 1007, 1002); a socket error (a reset mid-frame) ends it. Each is logged once.
 * - A message that is not a JSON object with an id gets a `bad-message` reply; the connection stays.
 * - At most `maxCalls` calls, holding `maxCallBytes` of messages, are in flight; a call past either
 *   is refused at once (code `budget`), except `emergencyStop`, which has `estopReserve` more calls
 *   of its own: a window whose other calls are all pending can still stop the robots.
 * - A client that has left more than `maxUnreadBytes` of replies and events unread is cut off
 *   before anything more is queued for it (so one message more at most), and logged.
 */
import type { WebSocket } from 'ws';
import { MAX_EDITOR_TEXT } from '../../contract/api/editor.js';
import type { ApiEnvelope } from '../../contract/api.js';
import type { EventBus } from '../../app/events.js';
import type { Dispatch } from '../dispatch.js';

export interface WebLimits {
  /** The largest message a client may send (the WebSocket's maxPayload). */
  readonly maxMessageBytes: number;
  /** Calls one connection may have in flight. */
  readonly maxCalls: number;
  /** The bytes of those calls' messages. */
  readonly maxCallBytes: number;
  /** Calls of `emergencyStop` taken past `maxCalls`. */
  readonly estopReserve: number;
  /** Replies and events a client may leave unread before it is disconnected. */
  readonly maxUnreadBytes: number;
}

const MiB = 1024 * 1024;

/**
 * The largest request the contract accepts is a text of MAX_EDITOR_TEXT characters (the editors'
 * checks; a workspace file is smaller: 2 MiB of UTF-8). JSON.stringify, as the renderer sends it,
 * writes a character in at most 6 bytes (a control character or a lone surrogate as \uXXXX), so
 * the message limit is six times that plus 1 MiB for the rest of the message. A labelled graph sent
 * to planGraph is held to the same limit (a 3000-node graph is ~0.4 MB).
 */
export const WEB_LIMITS: WebLimits = {
  maxMessageBytes: 6 * MAX_EDITOR_TEXT + MiB,
  maxCalls: 64,
  maxCallBytes: 64 * MiB,
  estopReserve: 16,
  maxUnreadBytes: 64 * MiB,
};

export interface ConnectionOptions {
  readonly dispatch: Dispatch;
  readonly bus: EventBus;
  readonly limits: WebLimits;
  readonly log: (line: string) => void;
  /** The client, for the log (its address and port). */
  readonly name: string;
}

type Reply = { id: number | string | null } & ApiEnvelope;

const badMessage = (message: string): Reply => ({ id: null, ok: false, error: { code: 'bad-message', message } });

/** A call of a message, or the reply that refuses it. */
function callOf(data: Buffer, isBinary: boolean): { id: number | string; method: unknown; params: unknown } | Reply {
  let msg: unknown;
  try {
    if (isBinary) throw new Error('binary');
    msg = JSON.parse(data.toString('utf8'));
  } catch {
    return badMessage('a message must be JSON text {id, method, params}');
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    return badMessage('a message must be a JSON object {id, method, params}');
  const m = msg as { id?: unknown; method?: unknown; params?: unknown };
  if (typeof m.id !== 'number' && typeof m.id !== 'string')
    return badMessage('a message needs an id (number or string)');
  return { id: m.id, method: m.method, params: m.params };
}

/** Serves one API connection until it closes. */
export function serveConnection(ws: WebSocket, o: ConnectionOptions): void {
  const { limits, log } = o;
  let calls = 0,
    callBytes = 0;

  /** Queues `text` unless the client has left too much unread, in which case it is cut off. */
  const send = (text: string): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > limits.maxUnreadBytes) {
      log(
        `web: ${o.name}: ${ws.bufferedAmount} bytes of replies and events unread (the limit is ${limits.maxUnreadBytes}): disconnected`,
      );
      ws.terminate();
      return;
    }
    ws.send(text);
  };
  const reply = (r: Reply): void => {
    let text: string;
    try {
      text = JSON.stringify(r);
    } catch (e) {
      text = JSON.stringify({
        id: r.id,
        ok: false,
        error: {
          code: 'internal',
          message: `the reply cannot be sent as JSON: ${e instanceof Error ? e.message : String(e)}`,
        },
      });
    }
    send(text);
  };

  const off = o.bus.subscribe((event) => send(JSON.stringify({ event })));
  ws.on('close', off);
  // Without this listener a refused frame would be an uncaught exception: the process would exit.
  ws.on('error', (e: Error & { code?: string }) =>
    log(`web: ${o.name}: ${e.message}${e.code !== undefined ? ` (${e.code})` : ''}: connection closed`),
  );

  ws.on('message', (data: Buffer, isBinary) => {
    const call = callOf(data, isBinary);
    if (!('method' in call)) return reply(call);
    const { id, method, params } = call;
    const limit = method === 'emergencyStop' ? limits.maxCalls + limits.estopReserve : limits.maxCalls;
    const bytes = method === 'emergencyStop' ? 0 : data.length;
    if (calls >= limit || callBytes + bytes > limits.maxCallBytes) {
      const why =
        calls >= limit
          ? `${calls} calls in flight (the limit is ${limit})`
          : `${callBytes} bytes of calls in flight (the limit is ${limits.maxCallBytes})`;
      return reply({
        id,
        ok: false,
        error: {
          code: 'budget',
          message: `${typeof method === 'string' ? method.slice(0, 100) : 'call'}: refused: this connection has ${why}; wait for their replies`,
        },
      });
    }
    calls++;
    callBytes += bytes;
    o.dispatch(method, params)
      .catch((e: unknown): ApiEnvelope => {
        log(`web: ${o.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        return {
          ok: false,
          error: { code: 'internal', message: `internal error: ${e instanceof Error ? e.message : String(e)}` },
        };
      })
      .then((r) => reply({ id, ...r }))
      .finally(() => {
        calls--;
        callBytes -= bytes;
      })
      .catch(() => undefined);
  });
}
