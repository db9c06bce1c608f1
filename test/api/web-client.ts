/**
 * The API of a `witness web` child process, as a window reaches it: its URL read from stdout, then a
 * WebSocket with the token and the server's origin, and calls answered by id.
 */
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';

export interface Reply {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
}

export interface ApiClient {
  readonly ws: WebSocket;
  readonly call: (method: string, params?: unknown) => Promise<Reply>;
}

/** The URL `witness web` prints; rejects (with `stderr()` in the message) when the process exits first. */
export function webUrl(
  child: ChildProcess & { stdout: NodeJS.ReadableStream },
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Witness web UI: (\S+)/.exec(out);
      if (m !== null) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`witness web exited (${code}) before it listened: ${stderr()}`)));
  });
}

/** Connects to the API at `url` (the one printed, with its token). */
export async function apiClient(url: string): Promise<ApiClient> {
  const u = new URL(url);
  const ws = new WebSocket(`ws://${u.host}/api?token=${u.searchParams.get('token')}`, { origin: `http://${u.host}` });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  let id = 0;
  return {
    ws,
    call: (method, params = {}) =>
      new Promise((resolve) => {
        const mine = ++id;
        const on = (data: Buffer): void => {
          const m = JSON.parse(data.toString()) as { id?: number } & Reply;
          if (m.id !== mine) return;
          ws.off('message', on);
          resolve(m);
        };
        ws.on('message', on);
        ws.send(JSON.stringify({ id: mine, method, params }));
      }),
  };
}
