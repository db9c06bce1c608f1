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

async function withServer(fn: (s: { port: number; token: string; emit: () => void }) => Promise<void>): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'witness-web-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  const api = createDirectApi({ workspace: root, auditFile: path.join(root, 'a.sqlite') });
  const server = await startWebServer({ dispatch: createDispatcher(api), bus: api.context.bus, root });
  const emit = (): void => api.context.bus.emit({ topic: 'job', job: 'j', title: 't', state: 'running', phase: 'p', done: 1, total: 2 });
  try {
    assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[0-9a-f]{64}$`));
    await fn({ port: server.port, token: server.token, emit });
  } finally {
    await server.close();
    await api.close();
  }
}

function get(port: number, p: string, host = `127.0.0.1:${port}`): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: p, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
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
      const event = new Promise<Record<string, unknown>>((resolve) => ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Record<string, unknown>)));
      emit();
      assert.equal(((await event).event as { topic: string }).topic, 'job');
      ws.send('not json');
      const garbage = await new Promise<Record<string, unknown>>((resolve) => ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Record<string, unknown>)));
      assert.equal((garbage.error as { code: string }).code, 'bad-message');
    } finally {
      ws.close();
    }
  });
});
