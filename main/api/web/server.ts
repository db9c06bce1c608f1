/**
 * Web mode: the same UI and API over HTTP and a WebSocket, bound to 127.0.0.1 only.
 *
 * - Static files come from the built renderer with the same Content-Security-Policy as the
 *   desktop window; requests whose Host is not this server (DNS rebinding) are refused.
 * - The API lives at /api as a WebSocket. The upgrade must carry this launch's token (a random
 *   256-bit value printed in the URL) and come from this server's own origin, so neither another
 *   local user's page nor a web site can drive the robot.
 * - Messages: `{id, method, params}` → `{id, ok, result | error}`; pushed events are `{event}`
 *   (connection.ts, with the limits one connection is held to).
 * - Nothing a client sends stops the process: every socket, the WebSocket server and the HTTP server
 *   have error listeners, a request the upgrade cannot read is refused with 400, and a frame or a
 *   socket error ends that connection only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Dispatch } from '../dispatch.js';
import type { EventBus } from '../../app/events.js';
import { CONTENT_SECURITY_POLICY } from './csp.js';
import { serveConnection, WEB_LIMITS, type WebLimits } from './connection.js';

export interface WebServerOptions {
  dispatch: Dispatch;
  bus: EventBus;
  /** The built renderer (renderer/dist). */
  root: string;
  /** 0 = any free port. */
  port?: number;
  token?: string;
  log?: (line: string) => void;
  /** Per-connection limits (default WEB_LIMITS). */
  limits?: Partial<WebLimits>;
}

export interface WebServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly clients: () => number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
};

const HOST = '127.0.0.1';

function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given),
    b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A GET or HEAD for a file under root, with the security headers; hostOk checks the Host header (DNS rebinding). */
async function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  root: string,
  hostOk: (host: string | undefined) => boolean,
): Promise<void> {
  const headers = {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
  if (!hostOk(req.headers.host)) {
    res
      .writeHead(421, { 'Content-Type': 'text/plain' })
      .end('misdirected request: this server answers only on 127.0.0.1\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
    return;
  }
  const url = new URL(req.url ?? '/', `http://${HOST}`);
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad path\n');
    return;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  const file = path.resolve(root, '.' + rel);
  if (file !== root && !file.startsWith(root + path.sep)) {
    res.writeHead(403, { 'Content-Type': 'text/plain' }).end('forbidden\n');
    return;
  }
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new Error('not a file');
    const body = await readFile(file);
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': body.length,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
  }
}

export async function startWebServer(o: WebServerOptions): Promise<WebServer> {
  const token = o.token ?? randomBytes(32).toString('hex');
  const log = o.log ?? (() => {});
  const root = path.resolve(o.root);
  let port = 0;
  const hostOk = (h: string | undefined): boolean => h === `${HOST}:${port}` || h === `localhost:${port}`;
  const originOk = (origin: string | undefined): boolean =>
    origin === `http://${HOST}:${port}` || origin === `http://localhost:${port}`;

  const server = createServer((req, res) => {
    serveStatic(req, res, root, hostOk).catch((e: unknown) => {
      log(`web: ${String(e)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const limits: WebLimits = { ...WEB_LIMITS, ...o.limits };
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
  // With noServer the WebSocket server has no socket of its own; a listener all the same.
  wss.on('error', (e) => log(`web: ${e.message}`));

  const refuse = (socket: Duplex, status: number, why: string): void => {
    socket.end(`HTTP/1.1 ${status} ${why}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${why}\n`);
  };
  server.on('upgrade', (req, socket, head) => {
    // Node gives an upgraded socket no error listener: a reset while the refusal below is written
    // would otherwise be an uncaught exception. After the upgrade, ws adds its own.
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${HOST}`);
    } catch {
      return refuse(socket, 400, 'Bad Request');
    }
    if (url.pathname !== '/api') return refuse(socket, 404, 'Not Found');
    if (!hostOk(req.headers.host)) return refuse(socket, 421, 'Misdirected Request');
    if (!originOk(req.headers.origin)) return refuse(socket, 403, 'Forbidden origin');
    if (!sameToken(url.searchParams.get('token'), token))
      return refuse(socket, 401, 'Unauthorized: wrong or missing token');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    serveConnection(ws, {
      dispatch: o.dispatch,
      bus: o.bus,
      limits,
      log,
      name: `client ${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`,
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Once listening, a failed accept (too many open files) is logged; the server goes on.
  server.on('error', (e) => log(`web: ${e.message}`));
  const addr = server.address();
  port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://${HOST}:${port}/?token=${token}`,
    port,
    token,
    clients: () => wss.clients.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
