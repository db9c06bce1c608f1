// The audit browser in worker threads (app/audit-threads.ts): errors arrive with their codes and
// where; a verification or export that runs past its limit is stopped with a clear error and the
// browser goes on; an abandoned read and a closed browser end what was running at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AuditThreads } from '../../main/app/audit-threads.js';
import { WitnessError } from '../../main/contract/errors.js';
import { synthRunId, writeSynthLog } from './audit-synth.js';

const dir = mkdtempSync(path.join(tmpdir(), 'witness-audit-threads-'));
const big = path.join(dir, 'big.sqlite');
writeSynthLog(big, 50_000);

const failure = (p: Promise<unknown>): Promise<WitnessError> =>
  p.then(
    () => assert.fail('expected an error'),
    (e: unknown) => {
      assert.ok(e instanceof WitnessError, String(e));
      return e;
    },
  );

test('a whole-log read past its limit is stopped with a budget error naming it; browsing goes on', async () => {
  const threads = new AuditThreads({ auditFile: big, workspace: dir }, { wholeLogLimitMs: 150 });
  try {
    const started = performance.now();
    const e = await failure(threads.call('auditVerify', { file: big }));
    assert.equal(e.code, 'budget');
    assert.equal(
      e.message,
      `auditVerify on ${big}: stopped after 150 ms, the longest the audit verifier and exporter lets one request run`,
    );
    assert.ok(performance.now() - started < 5000);
    const exported = await failure(threads.call('auditExport', { format: 'jsonl' }));
    assert.equal(exported.code, 'budget');
    assert.match(
      exported.message,
      new RegExp(`^auditExport on ${big.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: stopped after 150 ms`),
    );
    const runs = await threads.call('auditRuns', { limit: 3 });
    assert.deepEqual(
      runs.runs.map((r) => r.id),
      [synthRunId(50_000), synthRunId(49_999), synthRunId(49_998)],
    );
    const bad = await failure(threads.call('auditRuns', { cursor: 's:4' }));
    assert.deepEqual([bad.code, bad.at.path], ['invalid-params', '$.cursor']);
    const missing = await failure(threads.call('auditFacets', { run: 'no-such-run' }));
    assert.deepEqual(
      [missing.code, missing.at.path, missing.message],
      ['not-found', '$.run', 'no run no-such-run in this database'],
    );
    const nowhere = await failure(threads.call('auditVerify', { file: path.join(dir, 'nowhere.sqlite') }));
    assert.deepEqual([nowhere.code, nowhere.at.file], ['not-found', path.join(dir, 'nowhere.sqlite')]);
    assert.equal(threads.openConnections, 1, 'the browsing connection; a verification opens and closes its own');
  } finally {
    await threads.close();
  }
  assert.equal(threads.openConnections, 0);
});

test('an abandoned verification and a closed browser end what was running at once', async () => {
  const threads = new AuditThreads({ auditFile: big, workspace: dir });
  const abandon = new AbortController();
  const verifying = failure(threads.call('auditVerify', {}, abandon.signal));
  await new Promise((r) => setTimeout(r, 200));
  let started = performance.now();
  abandon.abort();
  assert.equal((await verifying).code, 'cancelled');
  assert.ok(performance.now() - started < 1000);
  const again = failure(threads.call('auditVerify', {}));
  const page = failure(
    threads.call('auditQuery', { filter: {}, limit: 10 }).then(() => threads.call('auditVerify', { file: big })),
  );
  await new Promise((r) => setTimeout(r, 200));
  started = performance.now();
  await threads.close();
  const e = await again;
  assert.deepEqual(
    [e.code, e.message],
    ['cancelled', `auditVerify on ${big}: the audit verifier and exporter closed before it was answered`],
  );
  assert.equal((await page).code, 'cancelled');
  assert.ok(performance.now() - started < 2000, 'closing does not wait for the read');
});

test("a schema that is not Witness's: verification in its worker reports every difference, the browsing reads refuse the file as tampered", async () => {
  const foreign = path.join(dir, 'foreign.sqlite');
  writeSynthLog(foreign, 3);
  const db = new Database(foreign);
  db.exec(
    'CREATE TRIGGER spy AFTER INSERT ON events BEGIN SELECT 1; END; CREATE VIEW recent AS SELECT seq FROM events',
  );
  db.close();
  const threads = new AuditThreads({ auditFile: foreign, workspace: dir });
  try {
    const v = await threads.call('auditVerify', { file: foreign });
    assert.equal(v.ok, false);
    assert.deepEqual(
      (v.problems ?? []).map((p) => [p.table, p.key]),
      [
        ['schema', 'spy'],
        ['schema', 'recent'],
      ],
    );
    assert.match(v.problems?.[0]?.reason ?? '', /a trigger spy \(on events\) that Witness does not create was added/);
    const runs = await failure(threads.call('auditRuns', { file: foreign }));
    assert.deepEqual([runs.code, runs.at.file], ['tampered', foreign]);
  } finally {
    await threads.close();
  }
});
