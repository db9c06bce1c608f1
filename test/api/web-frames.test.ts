/**
 * No frame stops `witness web`. Hostile frames, built by hand over a TCP socket after a real upgrade
 * with the token (and some before it), are sent to the real process in a child; each closes that
 * connection only, with the close code that says why. After each: the process still runs, a window
 * connected before the attack receives the E-STOP event another window's emergencyStop pushes, and
 * that emergencyStop answers. The console's live Foxglove server, in the same process, is attacked
 * alike. A case that stops the process fails; the next case starts a new one.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { WEB_LIMITS } from '../../main/api/web/connection.js';
import { MAX_EDITOR_TEXT } from '../../main/contract/api/editor.js';
import { FOXGLOVE_LIMITS } from '../../main/services/audit/foxglove-live.js';
import { apiClient, frame, RawClient, startWitnessWeb, upgradeRequest, type WebChild } from './web-raw.js';

const dir = mkdtempSync(path.join(tmpdir(), 'witness-web-frames-'));
let web: WebChild | null = null;
let started = 0;
const pids: number[] = [];

/** Whether `w` still takes connections (a process that crashed may not be seen to exit yet). */
async function listening(w: WebChild): Promise<boolean> {
  const up = await new Promise<boolean>((resolve) => {
    const s = net.connect(w.port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  for (let i = 0; !up && i < 100 && w.exited() === null; i++) await new Promise((r) => setTimeout(r, 20));
  return up && w.exited() === null;
}

/** The server for the next case: a new process only when a case before stopped it. */
async function server(): Promise<WebChild> {
  if (web === null || !(await listening(web))) {
    web = await startWitnessWeb(path.join(dir, String(started++)));
    pids.push(web.pid);
  }
  return web;
}

after(async () => {
  await web?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `work` against `w`; a failure says whether the process stopped, with what it wrote. */
async function against<T>(w: WebChild, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    // A crash closes the sockets a moment before the exit is seen.
    for (let i = 0; i < 50 && w.exited() === null; i++) await new Promise((r) => setTimeout(r, 20));
    if (w.exited() === null) throw e;
    assert.fail(`the server stopped (${w.exited()}): ${e instanceof Error ? e.message : String(e)}\n${w.stderr()}`);
  }
}

/** The process after an attack: still running, pushing events to a window opened before, answering emergencyStop. */
async function goesOn(w: WebChild, watcher: Awaited<ReturnType<typeof apiClient>>): Promise<void> {
  const estop = (from: number): boolean =>
    watcher.events.slice(from).some((e) => (e as { topic?: string }).topic === 'estop');
  try {
    await against(w, async () => {
      const stopper = await apiClient(w.port, w.token);
      const before = watcher.events.length;
      const r = await stopper.call('emergencyStop', { note: 'after a hostile frame' }, 10_000);
      assert.equal(r['ok'], true, JSON.stringify(r));
      for (let i = 0; i < 200 && !estop(before); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(estop(before), 'the window opened before the attack gets the E-STOP event');
      stopper.ws.close();
    });
  } finally {
    watcher.ws.close();
  }
  assert.equal(w.exited(), null, w.stderr());
}

/** Sends `bytes` on a fresh upgraded API connection; resolves to the close code the server ended it with. */
async function attack(
  bytes: Buffer[],
  then?: (c: RawClient) => void,
): Promise<{ code: number | null; w: WebChild; raw: RawClient; watcher: Awaited<ReturnType<typeof apiClient>> }> {
  const w = await server();
  const watcher = await apiClient(w.port, w.token);
  const raw = await RawClient.api(w.port, w.token);
  for (const b of bytes) raw.socket.write(b);
  then?.(raw);
  const code = await against(w, () => raw.closedBy());
  return { code, w, raw, watcher };
}

const CLOSE_CASES: { name: string; bytes: () => Buffer[]; code: number; log: RegExp }[] = [
  {
    name: 'a frame whose 64-bit length is one byte over the message limit',
    bytes: () => [frame(1, '', { length: WEB_LIMITS.maxMessageBytes + 1 })],
    code: 1009,
    log: /Max payload size exceeded/,
  },
  {
    name: 'a frame whose 64-bit length is 2^63 - 1',
    bytes: () => [frame(2, '', { length: 2n ** 63n - 1n })],
    code: 1009,
    log: /payload length/,
  },
  {
    name: 'a 3-byte text frame that is not UTF-8',
    bytes: () => [frame(1, Uint8Array.of(0xff, 0xfe, 0xfd))],
    code: 1007,
    log: /invalid UTF-8/,
  },
  {
    name: 'an unmasked frame',
    bytes: () => [frame(1, '{"id":1,"method":"version"}', { mask: false })],
    code: 1002,
    log: /MASK must be set/,
  },
  { name: 'a reserved data opcode (3)', bytes: () => [frame(3, 'x')], code: 1002, log: /invalid opcode 3/ },
  { name: 'a reserved control opcode (11)', bytes: () => [frame(11, 'x')], code: 1002, log: /invalid opcode 11/ },
  {
    name: 'a reserved bit (RSV1, no extension agreed)',
    bytes: () => [frame(1, '{}', { rsv: 0x40 })],
    code: 1002,
    log: /RSV1 must be clear/,
  },
  {
    name: 'a ping of 126 bytes (control frames carry 125 at most)',
    bytes: () => [frame(9, 'p'.repeat(126))],
    code: 1002,
    log: /invalid payload length 126/,
  },
  { name: 'a fragmented ping', bytes: () => [frame(9, 'p', { fin: false })], code: 1002, log: /FIN must be set/ },
  {
    name: 'a continuation frame with nothing to continue',
    bytes: () => [frame(0, 'x')],
    code: 1002,
    log: /invalid opcode 0/,
  },
  {
    name: 'a new text frame inside a fragmented message',
    bytes: () => [frame(1, '{"id":', { fin: false }), frame(1, '1}')],
    code: 1002,
    log: /invalid opcode 1/,
  },
];

for (const c of CLOSE_CASES) {
  test(
    `web mode: ${c.name} closes that connection (${c.code}); the server and the other windows go on`,
    { timeout: 60_000 },
    async () => {
      const { code, w, watcher } = await attack(c.bytes());
      await goesOn(w, watcher);
      assert.equal(code, c.code);
      assert.match(w.stderr(), c.log, 'the refusal is logged');
    },
  );
}

test('web mode: a frame cut short, then a reset, ends that connection only', { timeout: 60_000 }, async () => {
  const whole = frame(1, JSON.stringify({ id: 1, method: 'version', params: {} }).padEnd(4000, ' '));
  const { code, w, watcher } = await attack([whole.subarray(0, 1500)], (raw) =>
    setTimeout(() => raw.socket.resetAndDestroy(), 50),
  );
  assert.equal(code, null);
  await goesOn(w, watcher);
});

test(
  'web mode: messages that are JSON but not objects, or nested deep, are answered with an error and the connection stays',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    const watcher = await apiClient(w.port, w.token);
    const raw = await RawClient.api(w.port, w.token);
    const deep = `{"id":7,"method":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    for (const text of [
      'null',
      '[1,2]',
      '5',
      '"version"',
      deep,
      JSON.stringify({ id: 8, method: 'x'.repeat(1_000_000) }),
    ])
      raw.socket.write(frame(1, text));
    raw.socket.write(frame(1, JSON.stringify({ id: 9, method: 'version', params: {} })));
    await against(w, () =>
      raw.until(() => raw.texts().some((m) => (m as { id?: unknown }).id === 9), 'the answer to version'),
    );
    const replies = raw.texts() as { id: unknown; ok: boolean; error?: { code: string; message: string } }[];
    assert.deepEqual(
      replies.map((r) => [r.id, r.ok, r.error?.code ?? null]),
      [
        [null, false, 'bad-message'],
        [null, false, 'bad-message'],
        [null, false, 'bad-message'],
        [null, false, 'bad-message'],
        [7, false, 'unknown-method'],
        [8, false, 'unknown-method'],
        [9, true, null],
      ],
    );
    assert.ok(
      replies.every((r) => (r.error?.message.length ?? 0) < 300),
      'the refusals do not echo what was sent',
    );
    raw.socket.destroy();
    await goesOn(w, watcher);
  },
);

test(
  'web mode: before the upgrade, a request target the URL parser refuses gets 400',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    const watcher = await apiClient(w.port, w.token);
    const bad = await RawClient.open(w.port, upgradeRequest(w.port, 'http://['));
    await against(w, () => bad.until(() => bad.status !== null, 'an answer'));
    assert.equal(bad.status, 400);
    await goesOn(w, watcher);
  },
);

test(
  'web mode: a refused upgrade that the client resets before the answer is no error',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    const watcher = await apiClient(w.port, w.token);
    for (let i = 0; i < 5; i++) {
      // The refusal (401) is written after the client has reset the connection.
      const reset = await RawClient.open(w.port, upgradeRequest(w.port, '/api?token=wrong'));
      reset.socket.resetAndDestroy();
    }
    await new Promise((r) => setTimeout(r, 100));
    await goesOn(w, watcher);
  },
);

test(
  'web mode: the largest message the contract allows, as the UI writes it, is read',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    const watcher = await apiClient(w.port, w.token);
    // A control character is six bytes in JSON (\u0001): the worst case of an editor's text. The
    // handler gets it (and refuses a file that large): the message was read whole.
    const text = '\u0001'.repeat(MAX_EDITOR_TEXT);
    const message = JSON.stringify({ id: 1, method: 'workspaceWrite', params: { path: 'big.txt', text } });
    assert.ok(message.length > 6 * MAX_EDITOR_TEXT && message.length <= WEB_LIMITS.maxMessageBytes);
    const r = await watcher.call('workspaceWrite', { path: 'big.txt', text }, 30_000);
    assert.equal((r['error'] as { code?: string } | undefined)?.code, 'too-large', JSON.stringify(r).slice(0, 300));
    await goesOn(w, watcher);
  },
);

test(
  'web mode: the console’s live Foxglove server refuses an oversized or non-UTF-8 frame by closing that client; the process goes on',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    const watcher = await apiClient(w.port, w.token);
    const on = await watcher.call('foxgloveStart', { port: 0 });
    assert.equal(on['ok'], true, JSON.stringify(on));
    const port = (on['result'] as { port: number }).port;
    const fox = (bytes: Buffer): Promise<number | null> =>
      (async () => {
        const c = await RawClient.open(
          port,
          upgradeRequest(port, '/', { 'Sec-WebSocket-Protocol': 'foxglove.websocket.v1' }),
        );
        await c.until(() => c.status !== null && c.texts().length >= 2, 'serverInfo and advertise');
        c.socket.write(bytes);
        return c.closedBy();
      })();
    assert.equal(await against(w, () => fox(frame(1, '', { length: 2n ** 40n }))), 1009);
    assert.equal(await against(w, () => fox(frame(1, Uint8Array.of(0xc3, 0x28)))), 1007);
    assert.equal(
      await against(w, () =>
        fox(frame(1, JSON.stringify({ op: 'subscribe', subscriptions: [{ id: 1, channelId: 1 }] }), { mask: false })),
      ),
      1002,
    );
    assert.equal(await against(w, () => fox(frame(1, '', { length: FOXGLOVE_LIMITS.maxMessageBytes + 1 }))), 1009);
    // A viewer still connects and gets the channels.
    const viewer = new WebSocket(`ws://127.0.0.1:${port}`, ['foxglove.websocket.v1']);
    const first = await new Promise<string>((resolve, reject) => {
      viewer.once('message', (d: Buffer) => resolve(d.toString()));
      viewer.once('error', reject);
    });
    assert.equal((JSON.parse(first) as { op: string }).op, 'serverInfo');
    viewer.close();
    await goesOn(w, watcher);
  },
);

test(
  'web mode: after every attack above, the process is the one the first started, and the E-STOP fired then is still latched',
  { timeout: 60_000 },
  async () => {
    const w = await server();
    assert.deepEqual(pids, [pids[0]], `a case stopped the server: ${pids.length} processes were started`);
    const c = await apiClient(w.port, w.token);
    const s = await c.call('estopState');
    assert.equal((s['result'] as { latched: boolean }).latched, true);
    c.ws.close();
  },
);
