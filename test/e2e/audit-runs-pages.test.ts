import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openApp } from './harness.js';
import { synthRunId, writeSynthLog } from '../api/audit-synth.js';
import { AuditLog } from '../../main/services/audit/store.js';

const ids = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>("[...document.querySelectorAll('#audit-runs li')].map((e) => e.getAttribute('data-run'))");

test('audit browser: a log of many runs lists its newest page first, older pages on request, and new runs join at the top', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-audit-pages-'));
  const file = path.join(dir, 'many.sqlite');
  writeSynthLog(file, 450);
  const app = await openApp({ auditFile: file });
  try {
    const { page } = app;
    const text = async (sel: string): Promise<string> => (await page.locator(sel).first().textContent()) ?? '';
    await page.click('#tab-audit');
    await page.waitForSelector(`#audit-runs li.selected[data-run="${synthRunId(450)}"]`);
    let listed = await ids(page);
    assert.deepEqual([listed.length, listed[0], listed[199]], [200, synthRunId(450), synthRunId(251)]);
    assert.match(await text('#audit-message'), /many\.sqlite: the newest 200 of 450 runs \(read-only\)$/);
    assert.equal(await page.isVisible('#audit-runs-more'), true);
    await page.locator('#audit-runs-more').scrollIntoViewIfNeeded();
    await app.screenshot('audit-runs-first-page');

    await page.click('#audit-runs-more');
    await page.waitForSelector(`#audit-runs li[data-run="${synthRunId(51)}"]`);
    assert.equal((await ids(page)).length, 400);
    await page.click('#audit-runs-more');
    await page.waitForSelector(`#audit-runs li[data-run="${synthRunId(1)}"]`);
    listed = await ids(page);
    assert.deepEqual([listed.length, new Set(listed).size, listed.at(-1)], [450, 450, synthRunId(1)]);
    assert.equal(await page.isVisible('#audit-runs-more'), false, 'every run listed: no more to ask for');
    assert.match(await text('#audit-message'), /many\.sqlite: 450 runs \(read-only\)$/);

    // An old run is selected; a mission elsewhere adds a run: it joins at the top, the selection and the older pages
    // stay.
    await page.click(`#audit-runs li[data-run="${synthRunId(3)}"]`);
    await page.waitForSelector(`#audit-runs li.selected[data-run="${synthRunId(3)}"]`);
    await page.waitForSelector('#audit-table[data-rows="2"]');
    const log = AuditLog.open(file);
    const run = await log.startRun({
      world: 'tabletop',
      backend: 'mujoco',
      operator: 'cli',
      software: 'witness (another process)',
      models: {},
    });
    await log.close();
    await page.waitForSelector(`#audit-runs li[data-run="${run}"]`);
    listed = await ids(page);
    assert.deepEqual([listed.length, listed[0], listed[1], listed.at(-1)], [451, run, synthRunId(450), synthRunId(1)]);
    assert.equal(await page.getAttribute(`#audit-runs li[data-run="${synthRunId(3)}"]`, 'aria-selected'), 'true');
    await app.screenshot('audit-runs-all-pages');
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(
      app.pageErrors.filter((e) => !/status of 404/.test(e)),
      [],
    );
  } finally {
    await app.close();
  }
});
