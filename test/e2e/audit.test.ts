import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { type AppUnderTest, onlyAuditKind, openApp } from './harness.js';
import { NEEDLE, writeFixture } from '../api/audit-fixture.js';

const BIG = 100_000;
const dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-audit-'));
const file = path.join(dir, 'audit.sqlite');
const digest = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
let fx: Awaited<ReturnType<typeof writeFixture>>;
let untouched: { sha: string; mtime: number };
let app: AppUnderTest;
let page: Page;

before(async () => {
  const t0 = Date.now();
  fx = await writeFixture(file, BIG);
  untouched = { sha: digest(file), mtime: statSync(file).mtimeMs };
  const t1 = Date.now();
  app = await openApp({ auditFile: file });
  console.log(`# fixture ${t1 - t0} ms, app ${Date.now() - t1} ms`);
  page = app.page;
  await page.click('#tab-audit');
  await page.waitForSelector('#audit-runs li');
});

after(async () => {
  await app?.close();
});

const text = async (sel: string): Promise<string> => (await page.locator(sel).first().textContent()) ?? '';
const count = async (): Promise<string> => {
  await page.waitForSelector('#audit-count[data-done="true"]');
  return text('#audit-count');
};
/** Polls an expression in the page (waitForFunction would need eval, which the app's CSP refuses). */
async function until(expr: string, what: string, timeout_ms = 15_000): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!(await page.evaluate<boolean>(expr))) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
/**
 * Waits until the table shows rows of the current filter: the count is final, the table has drawn
 * that many rows since (the count is set when the rows arrive, the draw follows on the next frame),
 * and no placeholder is in view.
 */
const settled = (): Promise<void> =>
  until(
    `(() => {
  const c = document.querySelector('#audit-count');
  return c?.getAttribute('data-done') === 'true'
    && document.querySelector('#audit-table')?.getAttribute('data-rows') === c.getAttribute('data-count')
    && document.querySelectorAll('#audit-table .ev-row.pending:not([hidden])').length === 0;
})()`,
    'the table to settle',
  );
/** The table rows in the DOM (page code as strings: the tests compile without the DOM library). */
const rows = (): Promise<{ id: number; kind: string; index: number; tool: string; failure: string; step: string }[]> =>
  page.evaluate(`
  [...document.querySelectorAll('#audit-table .ev-row:not([hidden])')].map((e) => {
    const c = (k) => e.querySelector('.c-' + k)?.textContent ?? '';
    return { id: Number(e.getAttribute('data-id')), kind: e.getAttribute('data-kind') ?? '', index: Number(e.getAttribute('data-index')), tool: c('tool'), failure: c('failure'), step: c('step') };
  })`);
/** Scrolls, then waits two frames so the table has seen the scroll before anyone checks it has settled. */
const scrollTable = (fraction: number): Promise<void> =>
  page.evaluate(`(async () => {
  const v = document.getElementById('audit-table');
  v.scrollTop = v.scrollHeight * ${fraction};
  for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r));
})()`);
const selectRun = async (run: string): Promise<void> => {
  await page.click(`#audit-runs li[data-run="${run}"]`);
  await page.waitForSelector(`#audit-runs li.selected[data-run="${run}"]`);
  await settled();
};

test('audit browser: runs with their counts; the 100k-event table keeps a bounded number of DOM rows while scrolling to the end', async () => {
  const runs = await page.evaluate(
    `[...document.querySelectorAll('#audit-runs li')].map((e) => [e.getAttribute('data-run'), e.getAttribute('data-events'), e.querySelector('.r-outcome')?.textContent])`,
  );
  assert.deepEqual(runs, [
    [fx.big!.run, String(BIG), 'success'],
    [fx.small.run, String(fx.small.events), 'failed'],
  ]);
  assert.match(await text('#audit-message'), /2 runs \(read-only\)/);
  // The newest run opens by itself.
  await page.waitForSelector(`#audit-runs li.selected[data-run="${fx.big!.run}"]`);
  assert.equal(await count(), `${BIG} events`);
  await settled();
  const table = page.locator('#audit-table');
  assert.equal(await table.getAttribute('data-rows'), String(BIG));
  const domRows = (): Promise<number> => page.locator('#audit-table .ev-row').count();
  assert.ok((await domRows()) <= 60, `rows in the DOM: ${await domRows()}`);
  await app.screenshot('audit-runs-table');

  // A sweep through the whole run: frame times stay short and the DOM stays small.
  const sweep = await page.evaluate<{ p50: number; max: number; dom: number }>(`(async () => {
    const v = document.getElementById('audit-table');
    const frames = [];
    let last = performance.now();
    for (let k = 1; k <= 60; k++) {
      v.scrollTop = (v.scrollHeight * k) / 60;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    frames.sort((a, b) => a - b);
    return { p50: frames[30], max: frames[59], dom: document.querySelectorAll('#audit-table .ev-row').length };
  })()`);
  assert.ok(sweep.dom <= 80, `rows in the DOM after the sweep: ${sweep.dom}`);
  const t0 = Date.now();
  await scrollTable(1);
  await page.waitForSelector('#audit-table .ev-row[data-kind="run_end"]');
  const reachEnd = Date.now() - t0;
  await settled();
  const end = await rows();
  const last = end.at(-1)!;
  assert.deepEqual([last.kind, last.index, last.id], ['run_end', BIG - 1, fx.small.events + BIG]);
  assert.ok(
    end.every((r) => r.id === fx.small.events + 1 + r.index),
    'each row is the event at its index',
  );
  assert.ok((await domRows()) <= 80, `rows in the DOM at the end: ${await domRows()}`);
  console.log(
    `# 100k table: sweep frame p50 ${sweep.p50.toFixed(1)} ms, max ${sweep.max.toFixed(1)} ms; end reached in ${reachEnd} ms; ${await domRows()} DOM rows`,
  );
  // And the middle, by jumping there.
  await scrollTable(0.5);
  await settled();
  assert.ok(
    (await rows()).every((r) => r.id === fx.small.events + 1 + r.index && r.index > 49_000 && r.index < 51_000),
  );
  await app.screenshot('audit-table-end');
});

test('filters: kinds, tool, failure label, time window and free text each narrow the table to exactly the matching events', async () => {
  const big = fx.big!;
  // Kinds: only failure records.
  await onlyAuditKind(page, 'failure_record');
  assert.equal(await count(), `${big.failures} events`);
  await settled();
  assert.ok((await rows()).every((r) => r.kind === 'failure_record' && r.failure === 'grasp-missed'));
  await app.screenshot('audit-filter-kinds');
  await page.click('#audit-f-clear');
  assert.equal(await count(), `${BIG} events`);
  await page.selectOption('#audit-f-tool', 'pick');
  assert.equal(await count(), `${big.tools['pick']} events`);
  await settled();
  assert.ok((await rows()).every((r) => r.tool === 'pick'));
  await page.selectOption('#audit-f-tool', '');
  await page.selectOption('#audit-f-failure', 'grasp-missed');
  assert.equal(await count(), `${big.failures} events`);
  await page.selectOption('#audit-f-failure', '');
  // Time window, in seconds since the run started: steps 1000…1999 (10 ms apart).
  await page.fill('#audit-f-from', '10');
  await page.fill('#audit-f-to', '19.99');
  await page.click('#audit-f-apply');
  assert.equal(await count(), '1000 events');
  await settled();
  const w = await rows();
  assert.equal(w[0]!.step, '1000');
  await page.fill('#audit-f-to', 'soon');
  await page.click('#audit-f-apply');
  assert.match(await text('#audit-f-error'), /to: "soon" is not a number of seconds/);
  await page.fill('#audit-f-from', '');
  await page.fill('#audit-f-to', '');
  // Free text: the one event that holds it.
  await page.fill('#audit-f-text', NEEDLE);
  await page.press('#audit-f-text', 'Enter');
  assert.equal(await count(), '1 found');
  await settled();
  const found = await rows();
  assert.deepEqual(
    found.map((r) => [r.kind, r.step]),
    [['tool_call', String(big.needleStep)]],
  );
  await app.screenshot('audit-filter-text');
  await page.click('#audit-f-clear');
  assert.equal(await count(), `${BIG} events`);
});

test('detail pane, replan before/after, timeline replay, export, verify (and a tampered copy), errors — and the database is never written', async () => {
  const s = fx.small;
  await selectRun(s.run);
  assert.equal(await count(), `${s.events} events`);
  const pick = async (kind: string): Promise<void> => {
    await page.click(`#audit-table .ev-row:not([hidden])[data-kind="${kind}"]`);
    await page.waitForSelector(`#audit-detail[data-kind="${kind}"]`);
  };
  await pick('tool_call');
  assert.deepEqual(JSON.parse(await text('#audit-sec-call .ad-args')), { target: 'red_mug', approach_dz: 0.01 });
  await pick('verifier_result');
  assert.match(await text('#audit-sec-evidence .ad-expected'), /gripper\.width_cm > 1\.5/);
  assert.match(await text('#audit-sec-evidence .ad-observed'), /"gripper\.width_cm": 0\.4/);
  await app.screenshot('audit-detail-evidence');
  await pick('failure_record');
  assert.equal(await text('#audit-failure-fields tr[data-field="label"] td'), 'grasp-missed');
  assert.equal(await text('#audit-failure-fields tr[data-field="stage"] td'), 'postcondition');
  await app.screenshot('audit-detail-failure');
  await pick('replan');
  assert.match(
    await text('#audit-sec-plans .ad-plan:nth-child(1)'),
    /Before: #\d+ initial[\s\S]*start → c1 → c2 → anchor:e2:0/,
  );
  assert.match(
    await text('#audit-sec-plans .ad-plan:nth-child(2)'),
    /After: #\d+ replan at step 30[\s\S]*start → c4 → anchor:e1:0/,
  );
  assert.deepEqual(
    await page.evaluate(
      `[...document.querySelectorAll('#audit-diff-prefix li')].map((l) => l.getAttribute('data-op') + l.textContent.slice(2))`,
    ),
    ['=start', '-c1', '-c2', '-anchor:e2:0', '+c4', '+anchor:e1:0'],
  );
  await app.screenshot('audit-detail-replan');

  // Timeline: scrub to step 15 (the anchor e2 is reached there), then past the replan.
  const scrub = async (v: number): Promise<void> => {
    await page.evaluate(`(() => {
      const el = document.getElementById('audit-scrub');
      el.value = '${v}';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    })()`);
  };
  await scrub(15);
  await page.waitForSelector('#audit-replay[data-robot="8.00,8.00"][data-plan="0"]');
  await page.waitForSelector('#audit-detail[data-id="9"]');
  assert.equal(await page.locator('#audit-table .ev-row.selected').getAttribute('data-id'), '9');
  assert.equal(await page.locator('#audit-replay').getAttribute('data-monitor'), '0,1');
  await scrub(33);
  await page.waitForSelector('#audit-replay[data-robot="14.00,4.00"][data-plan="1"][data-plan-start="start@30"]');
  await page.waitForSelector('#audit-detail[data-id="19"]');
  assert.match(await text('#audit-at'), /step 33 \/ 40/);
  // Selecting a row moves the timeline back.
  await pick('tool_call');
  assert.equal(await page.locator('#audit-replay').getAttribute('data-at'), '16');
  await app.screenshot('audit-timeline');
  await scrub(0);
  await page.click('#audit-play');
  await until("Number(document.getElementById('audit-replay').dataset.at) > 0", 'the playback to move');
  await page.click('#audit-play');
  assert.equal(await page.locator('#audit-replay').getAttribute('data-playing'), 'false');

  // Export: the selected run, into the workspace's exports folder.
  for (const f of ['jsonl', 'csv', 'mcap'] as const) {
    await page.click(`#audit-export-${f}`);
    await page.waitForSelector(`#audit-export-result[data-format="${f}"]`);
    const out = (await page.locator('#audit-export-result').getAttribute('data-path'))!;
    assert.equal(path.dirname(out), path.join(app.workspace, 'exports'));
    const bytes = readFileSync(out);
    if (f === 'jsonl') assert.equal(bytes.toString('utf8').trim().split('\n').length, s.events);
    if (f === 'csv')
      assert.match(bytes.toString('utf8'), /^seq,run_id,t_ms,step,kind,tool,failure_label,prev_hash,hash,body\n/);
    if (f === 'mcap') assert.equal(bytes.subarray(1, 5).toString('latin1'), 'MCAP');
  }
  assert.match(await text('#audit-export-result'), /^Wrote .*\.mcap \(\d+(\.\d)? KiB\): 22 messages/);
  await app.screenshot('audit-export');

  await page.click('#audit-verify');
  await page.waitForSelector('#audit-verify-result[data-ok="true"]');
  assert.match(await text('#audit-verify-result'), new RegExp(`^Chain intact: ${s.events + BIG} events`));

  // A tampered copy, typed into the path field: the first bad row is named.
  const copy = path.join(dir, 'tampered.sqlite');
  copyFileSync(file, copy);
  const raw = new Database(copy);
  raw.exec('DROP TRIGGER events_no_update');
  raw.prepare('UPDATE events SET body = \'{"outcome":"success"}\' WHERE seq = ?').run(s.events);
  raw.close();
  await page.fill('#audit-file', copy);
  await page.press('#audit-file', 'Enter');
  await page.waitForSelector('#audit-message:has-text("tampered.sqlite: 2 runs")');
  await page.click('#audit-verify');
  await page.waitForSelector('#audit-verify-result[data-ok="false"]');
  assert.equal(await page.locator('#audit-verify-result').getAttribute('data-first-bad'), `events:${s.events}`);
  assert.match(
    await text('#audit-verify-result'),
    /NOT intact — first bad row: events 22: hash does not match its content/,
  );
  await app.screenshot('audit-verify-tampered');

  // Files that are not audit databases: a clear message naming the file.
  const notes = path.join(dir, 'notes.txt');
  writeFileSync(notes, 'not a database\n'.repeat(20));
  await page.fill('#audit-file', notes);
  await page.click('#audit-open');
  await page.waitForSelector('#audit-message.error');
  assert.match(await text('#audit-message'), /notes\.txt: not an SQLite database/);
  await page.fill('#audit-file', path.join(dir, 'missing.sqlite'));
  await page.click('#audit-open');
  await page.waitForSelector('#audit-message.error:has-text("missing.sqlite: no such file")');
  await app.screenshot('audit-open-error');

  // Browsing never wrote to the evidence.
  assert.deepEqual({ sha: digest(file), mtime: statSync(file).mtimeMs }, untouched);
  assert.deepEqual(app.internalErrors, []);
  assert.deepEqual(
    app.pageErrors.filter((e) => !/status of 404/.test(e)),
    [],
  );
});
