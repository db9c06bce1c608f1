/**
 * The layout adapts at a 1024 × 768 window: the audit table keeps its key columns
 * (seq, kind, failure, summary) wide enough to read; the maze refits when the window changes size;
 * a dialog lays out its fields across its width; the regions have one colour in the picture and on
 * the graph's nodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeFixture } from '../api/audit-fixture.js';
import { openApp } from './harness.js';

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
}

test('layout at 1024 px: the audit table keeps its key columns, the maze refits on resize, dialogs lay out their fields', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'witness-e2e-layout-')), 'audit.sqlite');
  await writeFixture(file, 2000);
  const app = await openApp({ auditFile: file, viewport: { width: 1024, height: 768 } });
  try {
    const { page } = app;
    await page.click('#tab-audit');
    await page.waitForSelector('#audit-runs li');
    await page.click('#audit-runs li');
    await page.waitForSelector('.ev-row:not([hidden]) .c-kind:not(:empty)');
    const table = await page.locator('.audit-table').boundingBox();
    assert.ok(table !== null);
    for (const c of ['seq', 'kind', 'failure', 'summary']) {
      const box = await page.locator(`.ev-head .c-${c}`).boundingBox();
      assert.ok(box !== null && (await page.isVisible(`.ev-head .c-${c}`)), `${c} is shown`);
      assert.ok(box.width >= (c === 'summary' ? 150 : 36), `${c} is ${box.width.toFixed(0)} px wide`);
      assert.ok(box.x + box.width <= table.x + table.width + 1, `${c} ends inside the table`);
    }
    await app.screenshot('layout-audit-1024');

    // The maze fills its view, and fills it again when the window changes size.
    await page.click('#tab-mission');
    await page.waitForSelector('#world option[value="pointmaze-medium"]', { state: 'attached' });
    await page.fill('#start', '4,20');
    await page.fill('#dataset-steps', '50000');
    await page.click('#plan');
    await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 120_000 });
    const fits = async (): Promise<{ view: Box; picture: Box }> =>
      page.evaluate<{ view: Box; picture: Box }>(`(() => {
      const r = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width }; };
      return { view: r(document.querySelector('#mission-graph')), picture: r(document.querySelector('#mission-graph .gv-picture')) };
    })()`);
    const inside = (f: { view: Box; picture: Box }): boolean =>
      f.picture.left >= f.view.left - 2 &&
      f.picture.right <= f.view.right + 2 &&
      f.picture.top >= f.view.top - 2 &&
      f.picture.bottom <= f.view.bottom + 2;
    const before = await fits();
    assert.ok(inside(before), JSON.stringify(before));
    // After a resize the view refits on its own schedule: wait until the fit settles (the same box
    // twice in a row) or 10 s pass, then judge what is on the screen.
    const settled = async (): Promise<{ view: Box; picture: Box }> => {
      let last = JSON.stringify(await fits());
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
        const now = JSON.stringify(await fits());
        if (now === last) break;
        last = now;
      }
      return JSON.parse(last) as { view: Box; picture: Box };
    };
    await page.setViewportSize({ width: 1440, height: 900 });
    const wider = await settled();
    assert.ok(inside(wider), JSON.stringify(wider));
    assert.ok(
      wider.picture.width > before.picture.width * 1.1,
      `the maze grew with its view (${before.picture.width.toFixed(0)} → ${wider.picture.width.toFixed(0)} px)`,
    );
    await page.setViewportSize({ width: 1024, height: 768 });
    assert.ok(inside(await settled()), 'and shrank back');
    await app.screenshot('layout-mission-1024');

    // One colour per region: the maze picture the workbench drew and the anchor nodes the graph views draw.
    const shown = await app.api.missionSession({
      session: await page.evaluate<string>(`JSON.parse(localStorage.getItem('witness.mission')).last.session`),
    });
    const fills = new Map<string, string>();
    for (const m of shown.scene.picture!.matchAll(
      /<(?:circle|rect)[^>]*fill="(#[0-9a-f]{6})" fill-opacity[^>]*\/>\s*<text[^>]*>([^<]+)<\/text>/g,
    ))
      fills.set(m[2]!, m[1]!);
    assert.ok(fills.size >= 4, `regions in the picture: ${[...fills.keys()].join(', ')}`);
    const anchors = shown.scene.nodes.filter((n) => n.kind === 'anchor');
    assert.ok(anchors.length > 0);
    for (const n of anchors) {
      const drawn = await page.evaluate<string | null>(
        `window.__witnessTest.mission.graph.colourOf(${JSON.stringify(n.id)})`,
      );
      assert.equal(drawn, fills.get(n.anchorOf!), `${n.id} on the console's graph`);
    }
    await page.click('#tab-graph');
    await page.waitForTimeout(300);
    const onGraphTab = await page.evaluate<string | null>(
      `window.__witnessTest.graph.view.colourOf(${JSON.stringify(anchors[0]!.id)})`,
    );
    assert.equal(onGraphTab, fills.get(anchors[0]!.anchorOf!), 'the Graph tab, following the mission');
    await page.click('#tab-mission');

    // A dialog's fields span it (the E-STOP reset: the acknowledgement and the reason).
    await page.keyboard.press('F9');
    await page.waitForSelector('#estop-latch:not([hidden])');
    await page.click('#estop-reset-open');
    await page.waitForSelector('#estop-reset-dialog[open]');
    const dialog = (await page.locator('#estop-reset-dialog').boundingBox())!;
    const reason = (await page.locator('#estop-reset-reason').boundingBox())!;
    assert.ok(
      reason.width >= dialog.width * 0.8,
      `the reason field is ${reason.width.toFixed(0)} of ${dialog.width.toFixed(0)} px`,
    );
    const label = (await page.locator('#estop-reset-dialog label.field > span').boundingBox())!;
    assert.ok(label.y + label.height <= reason.y + 1, 'its label sits above it');
    await app.screenshot('layout-dialog-1024');
    await page.check('#estop-ack');
    await page.fill('#estop-reset-reason', 'layout test');
    await page.click('#estop-reset');
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
  }
});
