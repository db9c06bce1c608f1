import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { openApp } from './harness.js';

test('web mode: the shell loads over the token-protected WebSocket with tabs, the emergency stop and no CSP violations', async () => {
  const app = await openApp();
  try {
    const { page } = app;
    // The token is taken out of the address bar once the page has it.
    assert.ok(!page.url().includes('token='), page.url());
    assert.deepEqual(await page.locator('nav.tabs button').allTextContents(), [
      'Mission',
      'Tool loop',
      'Editors',
      'Graph',
      'Audit',
    ]);
    assert.equal(await page.locator('#conn').textContent(), 'web mode');
    assert.ok(await page.locator('#estop').isVisible());
    for (const tab of ['act', 'editors', 'graph', 'audit', 'mission']) {
      await page.click(`#tab-${tab}`);
      assert.ok(await page.locator(`#panel-${tab}`).isVisible(), tab);
      assert.ok(await page.locator('#estop').isVisible(), `E-STOP hidden on ${tab}`);
    }
    // No ROS 2 on this machine (ROS_DISTRO unset): the header says so, and what to do.
    if (process.env.ROS_DISTRO === undefined) {
      await page.waitForSelector('#ros2[data-available="false"]');
      await page.click('#ros2');
      assert.match((await page.textContent('#status')) ?? '', /ROS 2 is not sourced|rclnodejs/);
    }
    const shot = await app.screenshot('shell');
    assert.ok(statSync(shot).size > 1000);
    assert.deepEqual(
      app.pageErrors.filter((e) => /Content Security Policy|Refused/.test(e)),
      [],
    );
  } finally {
    await app.close();
  }
});

test('web mode: without the token the page says how to open it, and a stopped server shows as disconnected', async () => {
  const app = await openApp();
  try {
    const { page, server } = app;
    const fresh = await page.context().newPage();
    await fresh.goto(`http://127.0.0.1:${server.port}/`);
    await fresh.waitForSelector('#fatal');
    assert.match((await fresh.locator('#fatal').textContent()) ?? '', /token printed by `witness web`/);
    await fresh.close();
    await server.close();
    await page.waitForSelector('#conn.down');
    assert.equal(await page.locator('#conn').textContent(), 'disconnected');
    await app.screenshot('shell-disconnected');
  } finally {
    await app.close();
  }
});
