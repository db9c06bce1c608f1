import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import { WitnessError, errorReport } from '../../main/contract/errors.js';
import { AuditLog } from '../../main/services/audit/store.js';
import { writeFixture } from './audit-fixture.js';

const dir = mkdtempSync(path.join(tmpdir(), 'witness-audit-tail-'));

test('auditHead follows a database another writer appends to; runs count their failure records and failed postconditions; rows say which events are verifier failures', async () => {
  const file = path.join(dir, 'audit.sqlite');
  const fx = await writeFixture(file, 200);
  const api = createDirectApi({ auditFile: file, workspace: path.join(dir, 'workspace') });
  try {
    const h0 = await api.auditHead({});
    assert.deepEqual(h0, { file, exists: true, runs: 2, lastSeq: fx.small.events + 200 });
    const runs = (await api.auditRuns({})).runs;
    // The small run: two failure records (a grasp, a tracking timeout) and one postcondition that did not hold.
    assert.deepEqual(
      runs.map((r) => [r.id, r.failures]),
      [
        [fx.big!.run, { records: 0, postconditions: 0 }],
        [fx.small.run, { records: 2, postconditions: 1 }],
      ],
    );
    const rows = (await api.auditQuery({ filter: { run: fx.small.run }, limit: 100 })).events;
    assert.deepEqual(
      rows.filter((r) => r.failed).map((r) => [r.kind, r.failureLabel]),
      [
        ['verifier_result', null],
        ['evidence', 'grasp-missed'],
        ['failure_record', 'grasp-missed'],
        ['failure_record', 'tracking-timeout'],
      ],
    );
    assert.ok(
      rows.some((r) => r.kind === 'evidence' && !r.failed),
      'evidence without a failure label is not a failure',
    );

    // Another writer (as a mission or the CLI would) adds a run and events: the head moves, the runs list has them.
    const log = AuditLog.open(file);
    const run = await log.startRun({
      world: 'tabletop',
      backend: 'mujoco',
      operator: 'cli',
      software: 'witness test',
      models: {},
      meta: {},
    });
    void log.append(
      run,
      'verifier_result',
      {
        tool: 'place',
        postcondition: 'on_tray',
        expr: 'object.on_tray',
        pass: false,
        observed: { 'object.on_tray': false },
      },
      { tool: 'place' },
    );
    await log.flush();
    const h1 = await api.auditHead({});
    assert.deepEqual([h1.runs, h1.lastSeq], [3, h0.lastSeq + 2]);
    const again = (await api.auditRuns({})).runs;
    assert.deepEqual([again[0]!.id, again[0]!.events, again[0]!.failures], [run, 2, { records: 0, postconditions: 1 }]);
    await log.close();

    // A session database that does not exist yet has an empty head; a named missing file is an error naming it.
    const fresh = createDirectApi({
      auditFile: path.join(dir, 'none', 'audit.sqlite'),
      workspace: path.join(dir, 'workspace'),
    });
    try {
      assert.deepEqual(await fresh.auditHead({}), {
        file: path.join(dir, 'none', 'audit.sqlite'),
        exists: false,
        runs: 0,
        lastSeq: 0,
      });
      const missing = path.join(dir, 'missing.sqlite');
      const e = await fresh.auditHead({ file: missing }).then(
        () => null,
        (x: unknown) => x,
      );
      assert.ok(e instanceof WitnessError);
      assert.deepEqual([errorReport(e).code, errorReport(e).message], ['not-found', `${missing}: no such file`]);
    } finally {
      await fresh.close();
    }
  } finally {
    await api.close();
  }
});
