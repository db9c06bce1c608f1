import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { openApp } from './harness.js';
import { writeFixture } from '../api/audit-fixture.js';

const STORE = pathToFileURL(fileURLToPath(new URL('../../main/services/audit/store.js', import.meta.url))).href;

/**
 * Another process writing the same database, as a mission in another window or the CLI does: it
 * starts a run and appends on command ("more": a tool call, a failed postcondition, its evidence
 * and failure record; "end": the run's end), answering each with a line.
 */
const WRITER = `
import { createInterface } from 'node:readline';
const { AuditLog } = await import(${JSON.stringify(STORE)});
const log = AuditLog.open(process.argv[1]);
const run = await log.startRun({ world: 'tabletop', backend: 'mujoco', operator: 'cli', software: 'witness (another process)', models: {}, spec: 'F placed', meta: { via: 'cli' } });
void log.append(run, 'tool_call', { tool: 'pick', arguments: { object: 'mug' }, start_s: 0, end_s: 1, timeout_s: 10, response: { ok: true } }, { tool: 'pick', step: 1 });
void log.append(run, 'verifier_result', { tool: 'pick', postcondition: 'holding', expr: 'gripper.holding == "mug"', pass: true, observed: { 'gripper.holding': 'mug' } }, { tool: 'pick', step: 1 });
await log.flush();
console.log('run ' + run);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'more') {
    void log.append(run, 'tool_call', { tool: 'place', arguments: { on: 'tray' }, start_s: 1, end_s: 2, timeout_s: 10, response: { ok: true } }, { tool: 'place', step: 2 });
    void log.append(run, 'verifier_result', { tool: 'place', postcondition: 'on_tray', expr: 'mug.on_tray', pass: false, observed: { 'mug.on_tray': false } }, { tool: 'place', step: 2 });
    void log.append(run, 'evidence', { instruction: { tool: 'place' }, verifier: 'postcondition "on_tray" failed', failure_label: 'place-missed' }, { tool: 'place', step: 2, failureLabel: 'place-missed' });
    void log.append(run, 'failure_record', { tool: 'place', violated: 'on_tray', class: 'transient', label: 'place-missed', stage: 'postcondition' }, { tool: 'place', step: 2, failureLabel: 'place-missed' });
    await log.flush();
    console.log('more');
  } else if (line === 'end') {
    void log.append(run, 'run_end', { outcome: 'failed', reason: 'place-missed', replans: 0 }, { step: 3 });
    await log.close();
    console.log('end');
    process.exit(0);
  }
}
`;

async function until(page: Page, expr: string, what: string, timeout_ms = 15_000): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!(await page.evaluate<boolean>(expr))) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('audit browser: tails a database another process writes (new runs and events appear without reopening), highlights verifier failures and a broken chain, and a failed open clears the list', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-audit-tail-'));
  const file = path.join(dir, 'audit.sqlite');
  const fx = await writeFixture(file, 0);
  const small = fx.small;
  // A tampered copy of the small run's database, for the chain check (made before anyone else writes).
  const copy = path.join(dir, 'tampered.sqlite');
  copyFileSync(file, copy);
  const raw = new Database(copy);
  raw.exec('DROP TRIGGER events_no_update');
  raw.prepare('UPDATE events SET body = \'{"outcome":"success"}\' WHERE seq = ?').run(small.events);
  raw.close();
  const app = await openApp({ auditFile: file });
  let writer: ChildProcessWithoutNullStreams | null = null;
  try {
    const { page } = app;
    const text = async (sel: string): Promise<string> => (await page.locator(sel).first().textContent()) ?? '';
    await page.click('#tab-audit');
    await page.waitForSelector(`#audit-runs li.selected[data-run="${small.run}"]`);
    await page.waitForSelector('#audit-count[data-done="true"]');
    await page.waitForSelector('#audit-live.on');

    // Verifier failures stand out: the run, and exactly its failed rows (the failed postcondition among them).
    const li = page.locator(`#audit-runs li[data-run="${small.run}"]`);
    assert.equal(await li.getAttribute('class'), 'has-failures selected');
    assert.equal(await li.locator('.r-failures').textContent(), '⚠ 2 failure records · 1 failed postcondition');
    const failedRows = (): Promise<string[]> =>
      page.evaluate<string[]>(
        "[...document.querySelectorAll('#audit-table .ev-row.failure:not([hidden])')].map((r) => r.getAttribute('data-kind'))",
      );
    assert.deepEqual(await failedRows(), [
      'verifier_result',
      'evidence',
      'failure_record',
      'failure_record',
      'escalation',
    ]);
    assert.equal(
      await page.evaluate<string>(
        'getComputedStyle(document.querySelector(\'#audit-table .ev-row:not([hidden])[data-kind="verifier_result"]\')).backgroundColor',
      ),
      'rgb(255, 245, 245)',
    );
    await app.screenshot('audit-failures-highlighted');

    // Another process starts a run: it joins the list without Open being pressed; the selection stays.
    writer = spawn(process.execPath, ['--input-type=module', '-e', WRITER, file], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]();
    let stderr = '';
    writer.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const next = async (): Promise<string> => {
      const r = await lines.next();
      assert.ok(!r.done, `the writer ended: ${stderr}`);
      return r.value;
    };
    const run = (await next()).replace(/^run /, '');
    await page.waitForSelector(`#audit-runs li[data-run="${run}"]`);
    assert.deepEqual(
      await page.evaluate("[...document.querySelectorAll('#audit-runs li')].map((e) => e.getAttribute('data-run'))"),
      [run, small.run],
    );
    assert.equal(await page.getAttribute(`#audit-runs li[data-run="${run}"]`, 'data-events'), '3');
    assert.equal(await page.getAttribute(`#audit-runs li[data-run="${run}"]`, 'data-failures'), '0');
    assert.equal(await page.getAttribute(`#audit-runs li[data-run="${small.run}"]`, 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#audit-live', 'data-last-seq'), String(small.events + 3));
    await page.click(`#audit-runs li[data-run="${run}"]`);
    await page.waitForSelector(`#audit-runs li.selected[data-run="${run}"]`);
    await until(page, "document.getElementById('audit-table').dataset.rows === '3'", 'the new run’s 3 events');
    await app.screenshot('audit-tail-new-run');

    // A chain check of the database as it is now: intact, and not stale.
    await page.click('#audit-verify');
    await page.waitForSelector('#audit-verify-result[data-ok="true"]');
    assert.equal(await page.getAttribute('#audit-verify-result', 'data-stale'), null);
    assert.match(await text('#audit-verify-result'), new RegExp(`^Chain intact: ${small.events + 3} events`));

    // It appends events: they join the open table (its failed postcondition highlighted) and the run's counts.
    writer.stdin.write('more\n');
    assert.equal(await next(), 'more');
    // The chain check made before they landed says it no longer covers the database.
    await page.waitForSelector('#audit-verify-result.stale[data-stale="true"]');
    assert.equal(
      await text('#audit-verify-result .audit-stale'),
      'The database has grown since this check (4 new events): verify again to cover them.',
    );
    await app.screenshot('audit-verify-stale');
    await until(page, "document.getElementById('audit-table').dataset.rows === '7'", 'the 4 new events in the table');
    await until(
      page,
      "document.querySelectorAll('#audit-table .ev-row.failure:not([hidden])').length === 3",
      'the new failures highlighted',
    );
    assert.deepEqual(await failedRows(), ['verifier_result', 'evidence', 'failure_record']);
    assert.equal(await text('#audit-count'), '7 events');
    assert.match(await text('#audit-f-kinds'), /failure_record \(1\)/);
    await until(
      page,
      `document.querySelector('#audit-runs li[data-run="${run}"]')?.getAttribute('data-failures') === '2'`,
      'the run’s failures counted',
    );
    assert.equal(
      await text(`#audit-runs li[data-run="${run}"] .r-failures`),
      '⚠ 1 failure record · 1 failed postcondition',
    );
    writer.stdin.write('end\n');
    assert.equal(await next(), 'end');
    await until(
      page,
      `document.querySelector('#audit-runs li[data-run="${run}"] .r-outcome')?.textContent === 'failed'`,
      'the run’s end',
    );
    await until(page, "document.getElementById('audit-table').dataset.rows === '8'", 'run_end in the table');
    await app.screenshot('audit-tail-grown');

    // A failing chain check: the row that breaks it is marked in the table, its run in the list.
    await page.fill('#audit-file', copy);
    await page.press('#audit-file', 'Enter');
    await page.waitForSelector('#audit-message:has-text("tampered.sqlite: 1 run")');
    await page.click(`#audit-runs li[data-run="${small.run}"]`);
    await page.waitForSelector(`#audit-runs li.selected[data-run="${small.run}"]`);
    await page.waitForSelector('#audit-count[data-done="true"]');
    await page.click('#audit-verify');
    await page.waitForSelector('#audit-verify-result[data-ok="false"][role="alert"]');
    await page.waitForSelector(`#audit-table .ev-row.chain-bad[data-id="${small.events}"]`);
    await page.waitForSelector(`#audit-runs li.chain-bad[data-run="${small.run}"]`);
    assert.equal(await page.locator('#audit-table .ev-row.chain-bad').count(), 1);
    assert.equal(await text(`#audit-runs li[data-run="${small.run}"] .r-chain-bad`), '✗ hash chain broken in this run');
    await app.screenshot('audit-verify-bad-row');

    // A failed open: the error, and nothing of the previous database left on screen.
    writeFileSync(path.join(dir, 'notes.txt'), 'not a database\n'.repeat(20));
    await page.fill('#audit-file', path.join(dir, 'notes.txt'));
    await page.click('#audit-open');
    await page.waitForSelector('#audit-message.error');
    assert.match(await text('#audit-message'), /notes\.txt: not an SQLite database/);
    assert.equal(await page.locator('#audit-runs li').count(), 0);
    assert.equal(await page.getAttribute('#audit-table', 'data-rows'), '0');
    assert.equal(await text('#audit-count'), '');
    assert.equal(await text('#audit-verify-result'), '');
    assert.equal(await page.locator('#audit-f-kinds input').count(), 0);
    assert.equal(await page.getAttribute('#audit-live', 'class'), 'audit-live');
    await app.screenshot('audit-open-failed-cleared');
    // And opening a good one again lists its runs.
    await page.fill('#audit-file', file);
    await page.click('#audit-open');
    await page.waitForSelector(`#audit-runs li[data-run="${run}"]`);
    assert.deepEqual(app.internalErrors, []);
    assert.deepEqual(
      app.pageErrors.filter((e) => !/status of 404/.test(e)),
      [],
    );
  } finally {
    writer?.kill();
    await app.close();
  }
});
