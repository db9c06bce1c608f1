/**
 * WebSocket frames by hand, for tests that send what no WebSocket library would: the real `witness
 * web` process in a child of the test's own (so a crash shows as the child's exit, not the test
 * runner's), an upgrade over a plain TCP socket, client frames built byte by byte (masked or not,
 * any opcode, bits and length), and the server's frames read back with its close code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const CHILD = fileURLToPath(new URL('./web-child.js', import.meta.url));

export interface WebChild {
  readonly port: number;
  readonly token: string;
  readonly pid: number;
  /** What the process wrote on stderr so far. */
  stderr(): string;
  /** How it ended, or null while it runs. */
  exited(): string | null;
  stop(): Promise<void>;
}

/**
 * Starts `witness web --port 0` on a workspace and audit log in `dir`. `detached`: the test process
 * may end before it (the child ends when its stdin closes, that is when this process is gone).
 */
export async function startWitnessWeb(dir: string, o: { detached?: boolean } = {}): Promise<WebChild> {
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CHILD,
      'web',
      '--port',
      '0',
      '--workspace',
      path.join(dir, 'workspace'),
      '--audit',
      path.join(dir, 'audit.sqlite'),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '',
    stderr = '',
    ended: string | null = null;
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = signal !== null ? `killed by ${signal}` : `exited with ${code}`;
      resolve();
    }),
  );
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`witness web printed no URL within 30 s; stderr: ${stderr}`)),
      30_000,
    );
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /Witness web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]!));
      }
    });
    void exit.then(() => reject(new Error(`witness web ${ended ?? ''}: ${stderr}`)));
  });
  if (o.detached === true) {
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as net.Socket).unref();
  }
  return {
    port: Number(url.port),
    token: url.searchParams.get('token')!,
    pid: child.pid!,
    stderr: () => stderr,
    exited: () => ended,
    stop: async () => {
      if (ended === null) child.kill('SIGTERM');
      await exit;
    },
  };
}

/** The bytes of an upgrade request to `target` on 127.0.0.1:port, from the server's own origin. */
export function upgradeRequest(port: number, target: string, extra: Record<string, string> = {}): string {
  const headers = {
    Host: `127.0.0.1:${port}`,
    Origin: `http://127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...extra,
  };
  return `GET ${target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

export interface FrameOptions {
  /** Clients must mask (default true). */
  readonly mask?: boolean;
  readonly fin?: boolean;
  /** RSV1..3 as the bits 0x40, 0x20, 0x10. */
  readonly rsv?: number;
  /** The length the header declares (default: the payload's). */
  readonly length?: number | bigint;
  /** The masking key (default: random). */
  readonly key?: Uint8Array;
}

/** A client frame: FIN, RSV, opcode; the mask bit and a 7-, 16- or 64-bit length; the key; the masked payload. */
export function frame(opcode: number, payload: string | Uint8Array, o: FrameOptions = {}): Buffer {
  const p = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
  const n = BigInt(o.length ?? p.length),
    mask = o.mask ?? true;
  let h: Buffer;
  if (n < 126n) {
    h = Buffer.alloc(2);
    h[1] = Number(n);
  } else if (n < 65536n) {
    h = Buffer.alloc(4);
    h[1] = 126;
    h.writeUInt16BE(Number(n), 2);
  } else {
    h = Buffer.alloc(10);
    h[1] = 127;
    h.writeBigUInt64BE(n, 2);
  }
  h[0] = ((o.fin ?? true) ? 0x80 : 0) | (o.rsv ?? 0) | opcode;
  if (!mask) return Buffer.concat([h, p]);
  h[1] |= 0x80;
  const key = o.key ?? randomBytes(4);
  return Buffer.concat([h, key, Buffer.from(p.map((b, i) => b ^ key[i % 4]!))]);
}

/** A frame from the server (never masked). */
export interface ServerFrame {
  readonly opcode: number;
  readonly payload: Buffer;
}

/** A TCP connection after its upgrade request: the HTTP status, then the server's frames. */
export class RawClient {
  status: number | null = null;
  readonly frames: ServerFrame[] = [];
  /** The close frame's code, when one came. */
  closeCode: number | null = null;
  /** Resolves when the socket is gone. */
  readonly closed: Promise<void>;
  private buf = Buffer.alloc(0);
  private readonly waiters = new Set<() => void>();

  constructor(readonly socket: net.Socket) {
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => this.take(d));
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        resolve();
        this.wake();
      }),
    );
  }

  /** Connects to 127.0.0.1:port and writes the upgrade request. */
  static async open(port: number, request: string): Promise<RawClient> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const c = new RawClient(socket);
    socket.write(request);
    return c;
  }

  /** Upgrades to the web API with the token; resolves once switched (101). */
  static async api(port: number, token: string): Promise<RawClient> {
    const c = await RawClient.open(port, upgradeRequest(port, `/api?token=${token}`));
    await c.until(() => c.status !== null, 'the upgrade answer');
    if (c.status !== 101) throw new Error(`upgrade: HTTP ${c.status}`);
    return c;
  }

  get ended(): boolean {
    return this.socket.destroyed;
  }

  /** Waits until `ready()` holds (checked on every arrival) or the socket closes; `ms` at most. */
  async until(ready: () => boolean, what: string, ms = 5000): Promise<void> {
    const t0 = Date.now();
    while (!ready()) {
      if (this.ended) throw new Error(`the connection closed before ${what}`);
      if (Date.now() - t0 > ms) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 50);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** The JSON text messages received so far. */
  texts(): unknown[] {
    return this.frames.filter((f) => f.opcode === 1).map((f) => JSON.parse(f.payload.toString('utf8')) as unknown);
  }

  /** Waits for the server to end the connection (`ms` at most); the close code, or null when it sent none. */
  async closedBy(ms = 5000): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), ms);
    });
    const r = await Promise.race([this.closed, late]);
    clearTimeout(timer);
    if (r === 'late')
      throw new Error(
        `the server did not close the connection within ${ms} ms (frames: ${this.frames.map((f) => f.opcode).join(',')})`,
      );
    return this.closeCode;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
    this.waiters.clear();
  }

  private take(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    if (this.status === null) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(this.buf.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      this.buf = this.buf.subarray(end + 4);
    }
    for (;;) {
      if (this.buf.length < 2) break;
      const opcode = this.buf[0]! & 0x0f;
      let len = this.buf[1]! & 0x7f,
        at = 2;
      if (len === 126) {
        if (this.buf.length < 4) break;
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) break;
        len = Number(this.buf.readBigUInt64BE(2));
        at = 10;
      }
      if (this.buf.length < at + len) break;
      const payload = this.buf.subarray(at, at + len);
      this.frames.push({ opcode, payload });
      if (opcode === 8 && payload.length >= 2) this.closeCode = payload.readUInt16BE(0);
      this.buf = this.buf.subarray(at + len);
    }
    this.wake();
  }
}

/** A client of the web API through the ws library (what the UI does), for the calls around the attacks. */
export async function apiClient(
  port: number,
  token: string,
): Promise<{
  ws: WebSocket;
  events: unknown[];
  call: (method: string, params?: unknown, ms?: number) => Promise<Record<string, unknown>>;
}> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`, { origin: `http://127.0.0.1:${port}` });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  const events: unknown[] = [];
  const replies = new Map<unknown, { resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  ws.on('message', (d: Buffer) => {
    const m = JSON.parse(d.toString()) as Record<string, unknown>;
    if (m['event'] !== undefined) events.push(m['event']);
    else replies.get(m['id'])?.resolve(m);
  });
  ws.on('close', () => {
    for (const r of replies.values()) r.reject(new Error('the connection closed'));
  });
  let next = 1;
  const call = (method: string, params: unknown = {}, ms = 5000): Promise<Record<string, unknown>> => {
    const id = next++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${ms} ms`)), ms);
      replies.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(new Error(`${method}: ${e.message}`));
        },
      });
      ws.send(JSON.stringify({ id, method, params }));
    }).finally(() => replies.delete(id));
  };
  return { ws, events, call };
}
