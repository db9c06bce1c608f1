/**
 * The Audit tab on a fleet store, in Chromium against a real PostgreSQL (../services/fleet/server.ts): two lab PCs
 * push their logs with `witness audit push`; the tab lists the sources (the store's URL with its password masked),
 * filters them, opens one as its verified replica and browses it with the same browser (runs, events, detail, replay,
 * export), follows what a PC pushes later, and says clearly when a source does not verify or the server goes away,
 * the sources list staying on screen. No message the server sends the page holds the store's password.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { type AppUnderTest, openApp } from './harness.js';
import { writeFixture } from '../api/audit-fixture.js';
import { AuditLog } from '../../main/services/audit/store.js';
import { initStore } from '../../main/app/fleet.js';
import { type PgServer, pgMissing, startPg } from '../services/fleet/server.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
const skip = pgMissing() ?? false;

/** A tool-use run of `n` calls in the tabletop, at the real time, appended to the log `file`. */
async function toolRun(file: string, n: number, tool: string): Promise<void> {
  const log = AuditLog.open(file);
  const run = await log.startRun({
    world: 'tabletop',
    backend: 'mujoco',
    operator: 'bo',
    software: 'test',
    models: {},
  });
  for (let i = 0; i < n; i++) void log.append(run, 'tool_call', { tool, arguments: { i } }, { tool, step: i });
  await log.close();
}

/** `witness audit push` as a lab PC runs it (the password from PGPASSWORD, not on the command line). */
function push(file: string, url: string, password: string, host: string, robot: string): void {
  const r = spawnSync(process.execPath, [BIN, 'audit', 'push', file, '--to', url, '--host', host, '--robot', robot], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: password },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
}

async function until(page: Page, expr: string, what: string, timeout_ms = 20_000): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!(await page.evaluate<boolean>(expr))) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let server: PgServer;
let dir: string;
before(() => {
  if (skip === false) server = startPg();
  dir = mkdtempSync(path.join(tmpdir(), 'witness-e2e-fleet-'));
});
after(() => server?.stop());

test(
  'the Audit tab on a fleet store: sources, filters, a source browsed, replayed and exported, followed; a pull shown mirroring and stopped; a source that does not verify and a server gone are said clearly',
  { skip },
  async () => {
    const admin = new pg.Client(server.url);
    await admin.connect();
    await admin.query('CREATE DATABASE fleet');
    await admin.end();
    const url = server.urlFor('witness', server.password, 'fleet');
    const bare = `postgres://witness@127.0.0.1:${server.port}/fleet`;
    await initStore(url);
    // Two lab PCs: a mission log on the maze robot, a tool-loop log on the arm (pushed by the CLI).
    const logA = path.join(dir, 'pc-a.sqlite'),
      logB = path.join(dir, 'pc-b.sqlite'),
      logC = path.join(dir, 'pc-c.sqlite');
    const small = (await writeFixture(logA, 0)).small;
    await toolRun(logB, 5, 'grip');
    push(logA, bare, server.password, 'lab-pc-a', 'ant-1');
    push(logB, bare, server.password, 'lab-pc-b', 'arm-2');

    const app: AppUnderTest = await openApp({ fleet: url });
    try {
      const { page } = app;
      // Every frame the server sends the page, from its first: none may hold the password.
      const frames: string[] = [];
      page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
      await page.goto(app.server.url);
      await page.waitForSelector('body[data-ready="true"]');
      const text = async (sel: string): Promise<string> => (await page.locator(sel).first().textContent()) ?? '';
      const rows = (): Promise<string[]> =>
        page.evaluate<string[]>(
          "[...document.querySelectorAll('#fleet-sources tbody tr')].map((r) => r.querySelector('.s-host').textContent)",
        );

      await page.click('#tab-audit');
      await page.click('#audit-mode-fleet');
      await page.waitForSelector('#fleet-sources tbody tr');
      const store = `postgres://witness:***@127.0.0.1:${server.port}/fleet`;
      assert.equal(await text('#fleet-store'), store);
      assert.deepEqual(await rows(), ['lab-pc-b', 'lab-pc-a']);
      assert.equal(await text('#fleet-list-status'), `${store}: 2 sources`);
      assert.equal(await page.locator('#audit-file').isHidden(), true);
      // Nothing of the session's database is shown as if it were the store's.
      assert.equal(await page.locator('#audit-runs li').count(), 0);
      assert.equal(await text('#audit-message'), 'Open a source of the fleet store (click its row) to browse it.');
      assert.equal(await page.getAttribute('#audit-live', 'class'), 'audit-live');
      // Nothing to verify or export until a source is open.
      for (const b of ['#audit-verify', '#audit-export-jsonl', '#audit-export-csv', '#audit-export-mcap'])
        assert.equal(await page.locator(b).isDisabled(), true, b);
      const a = page.locator('#fleet-sources tbody tr', { hasText: 'lab-pc-a' });
      const cells = await a.locator('td').allTextContents();
      assert.deepEqual(cells.slice(0, 6), [
        'lab-pc-a',
        'ant-1',
        (await a.getAttribute('data-log-id'))!.slice(0, 12),
        'pointmaze-medium',
        String(small.events),
        '1',
      ]);
      assert.match(cells[6]!, /^2026-01-15 09:\d\d:\d\dZ$/);
      await app.screenshot('audit-fleet-sources');

      // The filters: robot; a time range (a bad time is refused where it was typed); cleared.
      await page.selectOption('#fleet-f-robot', 'ant-1');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 1", 'one source');
      assert.deepEqual(await rows(), ['lab-pc-a']);
      assert.equal(await text('#fleet-list-status'), `${store}: 1 source matches the filter`);
      await app.screenshot('audit-fleet-filter-robot');
      await page.fill('#fleet-f-since', 'last week');
      await page.press('#fleet-f-since', 'Enter');
      await page.waitForSelector('#fleet-f-since[aria-invalid="true"]');
      assert.match(await text('#fleet-f-error'), /^since: "last week" is not a date/);
      await page.fill('#fleet-f-since', '2026-06-01');
      await page.press('#fleet-f-since', 'Enter');
      await page.waitForSelector('#fleet-list-status:has-text("no source matches the filter")');
      await page.selectOption('#fleet-f-robot', '');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 1", 'the recent source');
      assert.deepEqual(await rows(), ['lab-pc-b']);
      await page.click('#fleet-f-clear');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 2", 'both sources');
      await page.selectOption('#fleet-f-robot', 'ant-1');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 1", 'one source');

      // A source opened: mirrored, verified, and browsed as any audit database.
      await page.click('#fleet-sources tbody tr');
      await page.waitForSelector('#fleet-mirror-status.ok');
      assert.match(
        await text('#fleet-mirror-status'),
        new RegExp(`^lab-pc-a/ant-1/[0-9a-f]{12}: verified replica of ${small.events} events, ${small.events} new`),
      );
      await page.waitForSelector(`#audit-runs li.selected[data-run="${small.run}"]`);
      await page.waitForSelector('#audit-count[data-done="true"]');
      assert.equal(await text('#audit-count'), `${small.events} events`);
      assert.equal(await page.locator('#audit-verify').isDisabled(), false);
      assert.match(await text('#audit-message'), /^source lab-pc-a\/ant-1\/[0-9a-f]{12}: 1 run \(read-only\)$/);
      await page.click('#audit-table .ev-row:not([hidden])[data-kind="failure_record"]');
      await page.waitForSelector('#audit-detail[data-kind="failure_record"]');
      assert.equal(await text('#audit-failure-fields tr[data-field="label"] td'), 'grasp-missed');
      await app.screenshot('audit-fleet-source-open');
      // Its replay: the timeline plays the run on the graph.
      await page.waitForSelector('#audit-replay[data-robot]');
      await page.click('#audit-play');
      await until(page, "Number(document.getElementById('audit-replay').dataset.at) > 0", 'the playback to move');
      await page.click('#audit-play');
      await app.screenshot('audit-fleet-replay');
      // Export: the run, from the replica, into the workspace's exports folder.
      await page.click('#audit-export-mcap');
      await page.waitForSelector('#audit-export-result[data-format="mcap"]');
      const out = (await page.getAttribute('#audit-export-result', 'data-path'))!;
      assert.equal(path.dirname(out), path.join(app.workspace, 'exports'));
      assert.ok(existsSync(out));
      assert.match(await text('#audit-export-result'), /^Wrote .*\.mcap \(.*\): \d+ messages/);
      await app.screenshot('audit-fleet-export');

      // The arm's source, followed: what its PC pushes later appears without opening it again.
      await page.click('#fleet-f-clear');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 2", 'both sources');
      await page.click('#fleet-sources tbody tr:has-text("lab-pc-b")');
      await page.waitForSelector('#fleet-mirror-status.ok:has-text("lab-pc-b/arm-2/")');
      await until(page, "document.querySelectorAll('#audit-runs li').length === 1", 'its run');
      await until(page, "document.getElementById('audit-table').dataset.rows === '6'", 'its 6 events');
      await toolRun(logB, 3, 'place');
      push(logB, bare, server.password, 'lab-pc-b', 'arm-2');
      await until(page, "document.querySelectorAll('#audit-runs li').length === 2", 'the run pushed later');
      assert.match(await text('#fleet-mirror-status'), /verified replica of 10 events/);
      await until(
        page,
        "[...document.querySelectorAll('#fleet-sources tbody tr')].find((r) => r.textContent.includes('lab-pc-b'))?.querySelector('.s-runs').textContent === '2'",
        'the source’s counts to follow',
      );
      assert.equal(await text('#fleet-sources tbody tr:has-text("lab-pc-b") .s-events'), '10');
      await app.screenshot('audit-fleet-tail');

      // A source whose pull is held (the store's events locked by its owner): the tab says it is mirroring, and Stop
      // stops it; opened again once the store answers, it comes whole.
      const logD = path.join(dir, 'pc-d.sqlite');
      await toolRun(logD, 11_999, 'move');
      push(logD, bare, server.password, 'lab-pc-d', 'arm-4');
      await page.click('#fleet-f-apply');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 3", 'three sources');
      const holder = new pg.Client(url);
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE witness.events IN ACCESS EXCLUSIVE MODE');
      await page.click('#fleet-sources tbody tr:has-text("lab-pc-d")');
      await page.waitForSelector('#fleet-stop:visible');
      assert.match(await text('#fleet-mirror-status'), /^mirroring lab-pc-d\/arm-4\/[0-9a-f]{12} from the store…$/);
      await app.screenshot('audit-fleet-mirroring');
      await page.click('#fleet-stop');
      await page.waitForSelector('#fleet-mirror-status:has-text("stopped")');
      assert.match(
        await text('#fleet-mirror-status'),
        /: stopped; what was pulled is kept, and opening it again continues after it$/,
      );
      assert.equal(await page.locator('#fleet-stop').isHidden(), true);
      assert.equal(await page.locator('#audit-runs li').count(), 0);
      await holder.query('ROLLBACK');
      await holder.end();
      await page.click('#fleet-sources tbody tr:has-text("lab-pc-d")');
      await page.waitForSelector('#fleet-mirror-status.ok:has-text("lab-pc-d/arm-4/")', { timeout: 60_000 });
      // (Its first answer, or the next pull's, 2 s on: a loaded machine may show either first.)
      assert.match(
        await text('#fleet-mirror-status'),
        /verified replica of 12000 events(, 12000 new| \(following the store\))/,
      );
      await until(page, "document.querySelectorAll('#audit-runs li').length === 1", 'its run');

      // A source that does not verify: refused, saying where; the sources stay listed.
      await toolRun(logC, 4, 'grip');
      push(logC, bare, server.password, 'lab-pc-c', 'arm-3');
      const owner = new pg.Client(url);
      await owner.connect();
      await owner.query('ALTER TABLE witness.events DISABLE TRIGGER events_append_only');
      await owner.query(
        `UPDATE witness.events SET body = '{"tool":"grip","arguments":{"i":99}}'
       WHERE seq = 3 AND source = (SELECT id FROM witness.sources WHERE host = 'lab-pc-c')`,
      );
      await owner.query('ALTER TABLE witness.events ENABLE TRIGGER events_append_only');
      await owner.end();
      await page.click('#fleet-f-apply');
      await until(page, "document.querySelectorAll('#fleet-sources tbody tr').length === 4", 'four sources');
      await page.click('#fleet-sources tbody tr:has-text("lab-pc-c")');
      await page.waitForSelector('#fleet-mirror-status.error[role="alert"]');
      assert.match(
        await text('#fleet-mirror-status'),
        new RegExp(
          `^${store.replace(/[*.]/g, '\\$&')}: source lab-pc-c/arm-3/[0-9a-f]{12}: event 3: .*nothing of its batch was mirrored`,
        ),
      );
      assert.equal(await page.locator('#fleet-sources tbody tr').count(), 4);
      assert.equal(await page.locator('#audit-runs li').count(), 0);
      await app.screenshot('audit-fleet-tampered');

      // The server goes away while a source is followed: said, and the replica's events and the sources stay.
      await page.click('#fleet-sources tbody tr:has-text("lab-pc-b")');
      await page.waitForSelector('#fleet-mirror-status.ok:has-text("lab-pc-b/arm-2/")');
      await until(page, "document.querySelectorAll('#audit-runs li').length === 2", 'its runs');
      server.stop();
      await page.waitForSelector('#fleet-mirror-status.error[role="alert"]', { timeout: 20_000 });
      assert.match(await text('#fleet-mirror-status'), /following the store failed: .*cannot be reached or went away/);
      assert.equal(await page.locator('#audit-runs li').count(), 2);
      assert.equal(await page.locator('#fleet-sources tbody tr').count(), 4);
      await app.screenshot('audit-fleet-server-gone');

      // Back to a file: the session's database again, the fleet pane gone, nothing of the source left.
      await page.click('#audit-mode-file');
      await page.waitForSelector('#audit-message:has-text("no audit database yet")');
      assert.equal(await page.locator('#audit-fleet').isHidden(), true);
      assert.equal(await page.locator('#audit-file').isVisible(), true);
      assert.equal(await page.inputValue('#audit-file'), app.api.context.auditFile);
      assert.equal(await page.locator('#audit-runs li').count(), 0);
      assert.equal(await page.locator('#audit-verify').isDisabled(), false);
      await app.screenshot('audit-fleet-back-to-file');

      assert.deepEqual(
        frames.filter((f) => f.includes(server.password)),
        [],
        'the password never reaches the page',
      );
      assert.ok(
        frames.some((f) => f.includes(store)),
        'the frames checked hold the store as the page shows it',
      );
      assert.deepEqual(app.internalErrors, []);
      assert.deepEqual(app.pageErrors, []);
    } finally {
      await app.close();
    }
  },
);
