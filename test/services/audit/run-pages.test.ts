// The runs of an audit log, a page at a time: pages in either order give every run once, in the
// chain's order, with the runs a forger added or removed marked; every statement a page runs is
// answered through an index (its query plan says so), so the first page of a million-run log comes
// back as fast as the first page of a small one — `witness audit ls` and the Audit tab's run list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  RUN_SQL,
  type RunSummary,
  listRuns,
  runPage,
  runSummary,
  runsByPrefix,
} from '../../../main/services/audit/runs.js';
import { FAILURE_SQL, runsPage } from '../../../main/services/audit/browse.js';
import { openAuditReadOnly } from '../../../main/services/audit/store.js';
import { AuditBrowser, auditRunPages } from '../../../main/app/audit.js';
import { WitnessError } from '../../../main/contract/errors.js';
import { SYNTH_START, synthRunId, writeSynthLog } from '../../api/audit-synth.js';

const d = mkdtempSync(join(tmpdir(), 'witness-run-pages-'));

/** 250 runs, 3 rows no run_start names; run 7's row removed, run 9's altered, run 5 started twice. */
function forged(): string {
  const file = join(d, 'forged.sqlite');
  writeSynthLog(file, 250, { unchained: 3, unhashed: true });
  const db = new Database(file);
  db.pragma('foreign_keys = OFF');
  db.exec('DROP TRIGGER runs_no_delete; DROP TRIGGER runs_no_update');
  db.prepare('DELETE FROM runs WHERE id = ?').run(synthRunId(7));
  db.prepare("UPDATE runs SET operator = 'mallory' WHERE id = ?").run(synthRunId(9));
  db.prepare(
    "INSERT INTO events (seq, run_id, t_ms, step, kind, tool, failure_label, body, prev_hash, hash) VALUES (501, ?, 1e13, NULL, 'run_start', NULL, NULL, ?, '', '')",
  ).run(synthRunId(5), SYNTH_START);
  db.close();
  return file;
}

const pages = (db: Database.Database, order: 'asc' | 'desc', limit: number): { ids: string[]; sizes: number[] } => {
  const ids: string[] = [],
    sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const p: ReturnType<typeof runPage> = runPage(db, { order, cursor, limit });
    ids.push(...p.runs.map((r) => r.id));
    sizes.push(p.runs.length);
    cursor = p.next;
  } while (cursor !== null);
  return { ids, sizes };
};

test('pages of runs: every run once, in chain order either way, the forged ones marked; a cursor continues, a foreign one is refused', () => {
  const db = openAuditReadOnly(forged());
  try {
    const chained = Array.from({ length: 250 }, (_, i) => synthRunId(i + 1));
    const unchained = ['zz-unchained-1', 'zz-unchained-2', 'zz-unchained-3'];
    const asc = pages(db, 'asc', 100);
    assert.deepEqual(asc.ids, [...chained, ...unchained]);
    assert.deepEqual(asc.sizes, [100, 100, 53]);
    assert.deepEqual(pages(db, 'desc', 7).ids, [...chained].reverse().concat([...unchained].reverse()));
    assert.deepEqual(pages(db, 'asc', 1000).sizes, [253], 'one page when it holds them all, and no cursor after it');
    const all = listRuns(db);
    assert.deepEqual(
      all.map((r) => r.id),
      asc.ids,
    );
    const of = (id: string): (typeof all)[number] => all.find((r) => r.id === id)!;
    assert.match(of(synthRunId(7)).tampered ?? '', /row in the runs table is missing/);
    assert.equal(of(synthRunId(7)).operator, 'synth', 'shown from its chained run_start');
    assert.match(of(synthRunId(9)).tampered ?? '', /operator is "mallory" in the runs table but "synth"/);
    assert.match(of('zz-unchained-2').tampered ?? '', /no run_start event/);
    assert.equal(
      of(synthRunId(5)).started_ms,
      of(synthRunId(4)).started_ms + 1000,
      'its first run_start counts; the second is not a second run',
    );
    assert.deepEqual(
      [of(synthRunId(3)).events, of(synthRunId(3)).outcome, of(synthRunId(3)).ended_ms! - of(synthRunId(3)).started_ms],
      [2, 'success', 500],
    );
    assert.equal(of(synthRunId(5)).events, 3);
    assert.deepEqual(runSummary(db, synthRunId(9)), of(synthRunId(9)));
    assert.deepEqual(runSummary(db, 'zz-unchained-3'), of('zz-unchained-3'));
    assert.equal(runSummary(db, 'nope'), undefined);
    assert.deepEqual(
      runsByPrefix(db, synthRunId(12).slice(0, 8)).map((r) => r.id),
      [synthRunId(12)],
    );
    assert.equal(runsByPrefix(db, '000000').length, 2, 'an ambiguous prefix: more than one');
    assert.deepEqual(
      runsByPrefix(db, 'zz-unchained-1').map((r) => r.id),
      ['zz-unchained-1'],
    );
    // A page of the browser, newest first, with its failures; a cursor from elsewhere is refused with its parameter.
    const first = runsPage(db, { limit: 2 });
    assert.deepEqual(
      first.runs.map((r) => [r.id, r.failures.records, r.spec]),
      [
        [synthRunId(250), 0, null],
        [synthRunId(249), 0, null],
      ],
    );
    assert.deepEqual(
      runsPage(db, { cursor: first.next, limit: 1 }).runs.map((r) => r.id),
      [synthRunId(248)],
    );
    for (const bad of ['s:12', 'c:x', 'c:', 'nonsense']) {
      assert.throws(
        () => runPage(db, { order: 'desc', cursor: bad, limit: 5 }),
        (e: unknown) => e instanceof WitnessError && e.code === 'invalid-params' && e.at.path === '$.cursor',
      );
    }
  } finally {
    db.close();
  }
});

test('rows with values Witness does not write (an id over its limit, a start that is not a time, an operator that is bytes): each run listed once, marked, and the pages after them go on', () => {
  const file = join(d, 'bad-values.sqlite');
  writeSynthLog(file, 5, { unchained: 3, unhashed: true });
  const w = new Database(file);
  w.pragma('foreign_keys = OFF');
  w.exec('DROP TRIGGER runs_no_update');
  w.prepare("UPDATE runs SET id = ? WHERE id = 'zz-unchained-2'").run(`zz-unchained-2${'x'.repeat(1024 * 1024)}`);
  w.exec("UPDATE runs SET started_ms = 'soon' WHERE id = 'zz-unchained-3'");
  w.prepare("UPDATE runs SET operator = x'00ff' WHERE id = ?").run(synthRunId(2));
  w.close();
  const db = openAuditReadOnly(file);
  try {
    for (const order of ['asc', 'desc'] as const) {
      for (const limit of [1, 2, 100]) {
        const got: RunSummary[] = [];
        let cursor: string | null = null;
        for (let n = 0; n < 20; n++) {
          const p: ReturnType<typeof runPage> = runPage(db, { order, cursor, limit });
          got.push(...p.runs);
          cursor = p.next;
          if (cursor === null) break;
        }
        assert.equal(cursor, null, `${order} by ${limit}: the pages end`);
        assert.equal(
          got.length,
          8,
          `${order} by ${limit}: every run once (${got.map((r) => r.id.slice(0, 20)).join(', ')})`,
        );
        const unchained = order === 'asc' ? got.slice(5) : got.slice(5).reverse();
        assert.deepEqual([unchained[0]!.id, unchained[2]!.id], ['zz-unchained-1', 'zz-unchained-3']);
        assert.match(unchained[1]!.tampered ?? '', /^no run_start event: .*; its id is larger than 1 MiB/);
        assert.match(unchained[2]!.tampered ?? '', /its started_ms is text \("soon"\), not a time/);
        assert.equal(unchained[2]!.started_ms, 0, 'listed at 1970');
        const two = got.find((r) => r.id === synthRunId(2))!;
        assert.equal(two.operator, 'synth', 'shown from its chained run_start');
        assert.match(two.tampered ?? '', /^its row in the runs table: its operator is a blob of 2 bytes, not text/);
      }
    }
  } finally {
    db.close();
  }
});

test('every statement of a page is answered through an index, never by reading every run or every event', () => {
  const db = openAuditReadOnly(forged());
  try {
    for (const [name, sql] of Object.entries({ ...RUN_SQL, ...FAILURE_SQL })) {
      const args = Array.from({ length: sql.split('?').length - 1 }, () => 1);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
      assert.ok(
        plan.every((p) => !/^SCAN (events|runs)\b/.test(p) && !/TEMP B-TREE/.test(p)),
        `${name}: ${plan.join(' | ')}`,
      );
      assert.ok(
        plan.some((p) => /USING (COVERING )?INDEX (events_by_run|events_by_kind|sqlite_autoindex_runs_1)/.test(p)),
        `${name}: ${plan.join(' | ')}`,
      );
    }
    // A run's end among its own events: through events_by_run, not every run_end of the log.
    const end = (db.prepare(`EXPLAIN QUERY PLAN ${RUN_SQL.end}`).all(1) as { detail: string }[])
      .map((r) => r.detail)
      .join(' ');
    assert.match(end, /events_by_run/);
  } finally {
    db.close();
  }
});

test('a million runs: the first page of audit ls and of the Audit tab comes back in under a second', async (t) => {
  const file = join(d, 'million.sqlite');
  writeSynthLog(file, 1_000_000, { unhashed: true });
  // `witness audit ls`: the first page the command prints.
  let started = performance.now();
  const pagesOf = auditRunPages(file);
  const first = await pagesOf.next();
  const lsMs = performance.now() - started;
  await pagesOf.return(undefined);
  assert.equal(first.done, false);
  assert.deepEqual([first.value.length, first.value[0]!.id, first.value[0]!.events], [1000, synthRunId(1), 2]);
  // The Audit tab: the newest runs, then the next page from the cursor.
  const browser = new AuditBrowser({ auditFile: file, workspace: d });
  try {
    started = performance.now();
    const page = browser.runs({});
    const uiMs = performance.now() - started;
    started = performance.now();
    const next = browser.runs({ cursor: page.next });
    const nextMs = performance.now() - started;
    t.diagnostic(
      `first page of 1000000 runs: audit ls ${lsMs.toFixed(0)} ms (1000 runs), Audit tab ${uiMs.toFixed(0)} ms (200 runs, with the connection opened), its next page ${nextMs.toFixed(0)} ms`,
    );
    assert.deepEqual(
      [page.runs.length, page.runs[0]!.id, next.runs[0]!.id],
      [200, synthRunId(1_000_000), synthRunId(999_800)],
    );
    assert.ok(lsMs < 1000, `audit ls: first page in ${lsMs.toFixed(0)} ms`);
    assert.ok(uiMs < 1000, `Audit tab: first page in ${uiMs.toFixed(0)} ms`);
    assert.ok(nextMs < 1000, `Audit tab: next page in ${nextMs.toFixed(0)} ms`);
  } finally {
    browser.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }
});
