/**
 * The console's "Foxglove live" switch in Chromium: flipped on, it shows the ws:// URL on 127.0.0.1;
 * a Foxglove WebSocket client (@foxglove/ws-protocol) connects and the count shows it; a mission run
 * from the console reaches the client as poses; a port in use is an error in the console while the
 * server stays where it was; the Tool loop tab shows the same switch; off disconnects the client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import wsProtocol from '@foxglove/ws-protocol';
import { WebSocket } from 'ws';
import { openApp } from './harness.js';

const { FoxgloveClient } = wsProtocol;

/** A port that is free now (listened on, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

test('console: the Foxglove switch serves a mission to a Foxglove client, shows the URL and the clients, survives errors, turns off', async () => {
  const app = await openApp();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const { page } = app;
    await page.waitForSelector('#foxglove-on');
    assert.equal(await page.inputValue('#foxglove-port'), '8765', 'the default port');
    assert.equal(await page.isChecked('#foxglove-on'), false);
    await app.screenshot('console-foxglove-off');
    const port = await freePort();
    await page.fill('#foxglove-port', String(port));
    await page.check('#foxglove-on');
    const url = `ws://127.0.0.1:${port}`;
    await page.waitForSelector('#foxglove-box[data-on="true"]');
    assert.equal(await page.textContent('#foxglove-url'), url);
    assert.equal(await page.textContent('#foxglove-clients'), '0 clients connected');

    // A Foxglove client connects and subscribes to everything advertised.
    const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    const client = new FoxgloveClient({ ws });
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    const topics = new Map<number, string>();
    const poses: { x: number; y: number }[] = [];
    client.on('advertise', (channels) => {
      for (const c of channels) topics.set(client.subscribe(c.id), c.topic);
    });
    client.on('message', ({ subscriptionId, data }) => {
      if (topics.get(subscriptionId) !== '/witness/robot/pose') return;
      poses.push(
        (
          JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as {
            pose: { position: { x: number; y: number } };
          }
        ).pose.position,
      );
    });
    await page.waitForSelector('#foxglove-clients:text("1 client connected")');

    // A mission from the console reaches it.
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.selectOption('#world', 'pointmaze-medium');
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
    await page.fill('#speed', '0');
    await page.click('#run');
    for (let i = 0; i < 3000 && poses.length === 0; i++) await page.waitForTimeout(20);
    assert.ok(poses.length > 0, "the client receives the mission's poses");
    assert.ok(poses.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y)));
    await page.waitForSelector('#escalation[open], #mission-log li.ok, #mission-log li.failed', { timeout: 60_000 });
    if (await page.isVisible('#escalation[open]')) {
      await page.fill('#escalation-reason', 'enough for the Foxglove check');
      await page.click('#decide-abort');
      await page.waitForSelector('#escalation', { state: 'hidden' });
    }
    await app.screenshot('console-foxglove-on-1440');

    // A port in use: a clear error, and the server stays where it was.
    await page.fill('#foxglove-port', String(taken));
    await page.dispatchEvent('#foxglove-port', 'change');
    await page.waitForSelector('#foxglove-error:not(:empty)');
    assert.match(
      (await page.textContent('#foxglove-error')) ?? '',
      new RegExp(`port ${taken} is in use on 127\\.0\\.0\\.1: choose another port \\(the server stays on ${url}\\)`),
    );
    assert.equal(await page.isChecked('#foxglove-on'), true);
    assert.equal(await page.textContent('#foxglove-url'), url);
    assert.equal(await page.inputValue('#foxglove-port'), String(port), 'the port shown is the one served');
    await page.setViewportSize({ width: 1024, height: 768 });
    await app.screenshot('console-foxglove-error-1024');

    // The Tool loop tab shows the same switch.
    await page.click('#tab-act');
    await page.waitForSelector('#act-foxglove-box[data-on="true"]');
    assert.equal(await page.textContent('#act-foxglove-url'), url);
    assert.equal(await page.textContent('#act-foxglove-clients'), '1 client connected');
    await app.screenshot('console-foxglove-act-1024');
    await page.click('#tab-mission');

    // Off: the client is disconnected.
    await page.uncheck('#foxglove-on');
    await page.waitForSelector('#foxglove-box[data-on="false"]');
    await closed;
    assert.equal(await page.isChecked('#act-foxglove-on'), false);
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
});
