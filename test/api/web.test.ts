import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { createDirectApi } from '../../main/api/direct.js';
import { createDispatcher } from '../../main/api/dispatch.js';
import { startWebServer } from '../../main/api/web/server.js';
import type { WebLimits } from '../../main/api/web/connection.js';
import type { Dispatch } from '../../main/api/dispatch.js';
import { RawClient } from './web-raw.js';

interface Served {
  port: number;
  token: string;
  emit: (title?: string) => void;
  clients: () => number;
  logged: string[];
}

async function withServer(
  fn: (s: Served) => Promise<void>,
  o: { limits?: Partial<WebLimits>; wrap?: (d: Dispatch) => Dispatch } = {},
): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'witness-web-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  const api = createDirectApi({ workspace: root, auditFile: path.join(root, 'a.sqlite') });
  const logged: string[] = [];
  const dispatch = createDispatcher(api);
  const server = await startWebServer({
    dispatch: o.wrap?.(dispatch) ?? dispatch,
    bus: api.context.bus,
    root,
    log: (l) => logged.push(l),
    ...(o.limits ? { limits: o.limits } : {}),
  });
  const emit = (title = 't'): void =>
    api.context.bus.emit({ topic: 'job', job: 'j', title, state: 'running', phase: 'p', done: 1, total: 2 });
  try {
    assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[0-9a-f]{64}$`));
    await fn({ port: server.port, token: server.token, emit, clients: server.clients, logged });
  } finally {
    await server.close();
    await api.close();
  }
}

function get(
  port: number,
  p: string,
  host = `127.0.0.1:${port}`,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: p, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(port: number, token: string | null, origin = `http://127.0.0.1:${port}`): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api${token === null ? '' : `?token=${token}`}`, { origin });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const on = (data: Buffer): void => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (m.id === id) {
        ws.off('message', on);
        resolve(m);
      }
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

test('web mode serves the UI with its CSP on 127.0.0.1 and refuses other hosts and escapes from the root', async () => {
  await withServer(async ({ port }) => {
    const page = await get(port, '/');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.equal((await get(port, '/', 'evil.example')).status, 421);
    assert.equal((await get(port, '/..%2f..%2f..%2fetc%2fpasswd')).status, 403);
    assert.equal((await get(port, '/%2e%2e/%2e%2e/etc/passwd')).status, 404); // normalised to /etc/passwd inside the root
    assert.equal((await get(port, '/missing.js')).status, 404);
  });
});

test('the WebSocket API needs the launch token and the server’s own origin, then answers calls and pushes events', async () => {
  await withServer(async ({ port, token, emit }) => {
    await assert.rejects(connect(port, null), /HTTP 401/);
    await assert.rejects(connect(port, 'f'.repeat(64)), /HTTP 401/);
    await assert.rejects(connect(port, token, 'https://evil.example'), /HTTP 403/);
    const ws = await connect(port, token);
    try {
      const v = await call(ws, 1, 'version', {});
      assert.equal(v.ok, true);
      assert.match(String(v.result), /^\d+\.\d+\.\d+/);
      const bad = await call(ws, 2, 'cancelJob', {});
      assert.equal(bad.ok, false);
      assert.equal((bad.error as { code: string }).code, 'invalid-params');
      const unknown = await call(ws, 3, 'eval', { code: '1' });
      assert.equal((unknown.error as { code: string }).code, 'unknown-method');
      const event = new Promise<Record<string, unknown>>((resolve) =>
        ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Record<string, unknown>)),
      );
      emit();
      assert.equal(((await event).event as { topic: string }).topic, 'job');
      ws.send('not json');
      const garbage = await new Promise<Record<string, unknown>>((resolve) =>
        ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Record<string, unknown>)),
      );
      assert.equal((garbage.error as { code: string }).code, 'bad-message');
    } finally {
      ws.close();
    }
  });
});

/** A dispatcher whose `version` calls wait until `open()`: calls in flight, as a slow handler keeps them. */
function gated(): { wrap: (d: Dispatch) => Dispatch; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wrap: (d) => (m, p) => (m === 'version' ? gate.then(() => d(m, p)) : d(m, p)), open };
}

test(
  'one connection has at most maxCalls calls in flight: one more is refused at once, an emergencyStop still passes, other connections are served',
  { timeout: 10_000 },
  async () => {
    const g = gated();
    await withServer(
      async ({ port, token }) => {
        const ws = await connect(port, token),
          other = await connect(port, token);
        try {
          const held = [1, 2, 3, 4].map((id) => call(ws, id, 'version', {}));
          const refused = await call(ws, 5, 'version', {});
          assert.equal(refused.ok, false);
          assert.equal((refused.error as { code: string }).code, 'budget');
          assert.match(
            (refused.error as { message: string }).message,
            /version: refused: this connection has 4 calls in flight \(the limit is 4\)/,
          );
          const stop = await call(ws, 6, 'emergencyStop', {});
          assert.equal(stop.ok, true, 'the E-STOP has a reserve of its own');
          assert.equal((await call(other, 1, 'estopState', {})).ok, true);
          g.open();
          for (const r of await Promise.all(held)) assert.equal(r.ok, true);
          assert.equal((await call(ws, 7, 'version', {})).ok, true, 'the calls answered leave room');
        } finally {
          ws.close();
          other.close();
        }
      },
      { limits: { maxCalls: 4, estopReserve: 2 }, wrap: g.wrap },
    );
  },
);

test('the calls in flight of one connection hold at most maxCallBytes of messages', { timeout: 30_000 }, async () => {
  const g = gated();
  await withServer(
    async ({ port, token }) => {
      const ws = await connect(port, token);
      try {
        // Fields besides id, method and params are ignored: here they make each message about 1 KB.
        const send = (id: number): void =>
          ws.send(JSON.stringify({ id, method: 'version', params: {}, pad: 'x'.repeat(1000) }));
        const replies: Record<string, unknown>[] = [];
        ws.on('message', (d: Buffer) => replies.push(JSON.parse(d.toString()) as Record<string, unknown>));
        send(1);
        send(2);
        send(3);
        for (let i = 0; i < 200 && replies.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(
          replies.map((r) => [r.id, (r.error as { code?: string } | undefined)?.code]),
          [[3, 'budget']],
        );
        assert.match(
          (replies[0]!.error as { message: string }).message,
          /bytes of calls in flight \(the limit is 2500\)/,
        );
        g.open();
        for (let i = 0; i < 200 && replies.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(
          replies.slice(1).map((r) => [r.id, r.ok]),
          [
            [1, true],
            [2, true],
          ],
        );
      } finally {
        ws.close();
      }
    },
    { limits: { maxCallBytes: 2500 }, wrap: g.wrap },
  );
});

test(
  'a client that stops reading is disconnected once it leaves maxUnreadBytes unread; the others still get every event',
  { timeout: 60_000 },
  async () => {
    const LIMIT = 256 * 1024;
    await withServer(
      async ({ port, token, emit, clients, logged }) => {
        const reader = await connect(port, token);
        let lastSeen = '';
        reader.on('message', (d: Buffer) => {
          const m = JSON.parse(d.toString()) as { event?: { title?: string } };
          if (m.event?.title !== undefined) lastSeen = m.event.title.slice(0, 12);
        });
        const stalled = await RawClient.api(port, token);
        stalled.socket.pause();
        assert.equal(clients(), 2);
        const chunk = 'e'.repeat(64 * 1024);
        let sent = 0,
          n = 0;
        // The kernel's socket buffers take some megabytes before the server holds anything itself.
        while (clients() === 2 && sent < 64 * 1024 * 1024) {
          emit(`${String(++n).padStart(12, '0')}${chunk}`);
          sent += chunk.length;
          await new Promise((r) => setImmediate(r));
        }
        assert.equal(clients(), 1, `the stalled client was still connected after ${sent} bytes of events`);
        assert.ok(
          logged.some((l) => /bytes of replies and events unread \(the limit is 262144\): disconnected/.test(l)),
          logged.join('\n'),
        );
        for (let i = 0; i < 500 && lastSeen !== String(n).padStart(12, '0'); i++)
          await new Promise((r) => setTimeout(r, 10));
        assert.equal(lastSeen, String(n).padStart(12, '0'), 'the reading window got the last event');
        stalled.socket.destroy();
        reader.close();
      },
      { limits: { maxUnreadBytes: LIMIT } },
    );
  },
);
