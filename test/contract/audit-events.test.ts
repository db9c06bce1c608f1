import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WAREHOUSE, act, tabletopTools, warehousePlanner } from '../../main/app/act.js';
import { openAuditLog, settleAudit } from '../../main/app/audit-log.js';
import { AuditLog, openAuditReadOnly } from '../../main/services/audit/store.js';
import { AUDIT_EVENTS_VERSION } from '../../main/contract/audit-events.js';
import { assertCatalogued } from './catalogue.js';

test('the tool loop records what the audit event catalogue says: calls, verifier results, failure records, replans, escalations, decisions', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'witness-catalogue-')), 'audit.sqlite');
  const log = await openAuditLog(file);
  try {
    // The weight-limit fault with the scripted planner: R = 0 escalates at once; the operator retries,
    // the same failure comes back (a replan loop), and the operator aborts.
    const answers = ['retry', 'abort'] as const;
    let asked = 0;
    const r = await act({
      world: WAREHOUSE.world,
      open: { perfectPerception: true },
      tools: tabletopTools(),
      planner: warehousePlanner('scripted'),
      goal: WAREHOUSE.goal,
      verify: WAREHOUSE.verify,
      seed: 1,
      replans: 0,
      decide: () =>
        Promise.resolve({ decision: answers[Math.min(asked++, 1)]!, reason: `answer ${asked}`, operator: 'tester' }),
      audit: { log, operator: 'tester', via: 'test' },
    });
    await settleAudit(log, [{ errors: r.auditErrors }]);
    assert.equal(r.result.outcome, 'escalated');
    assert.ok(asked >= 2, 'the operator was asked twice');
  } finally {
    await log.close();
  }
  const kinds = assertCatalogued(file);
  for (const k of [
    'run_start',
    'tool_call',
    'verifier_result',
    'failure_record',
    'replan',
    'escalation',
    'operator_decision',
    'evidence',
    'run_end',
  ]) {
    assert.ok((kinds[k] ?? 0) > 0, `no ${k} event: ${JSON.stringify(kinds)}`);
  }
});

test('a run records the catalogue version its events follow', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'witness-catalogue-')), 'audit.sqlite');
  const log = AuditLog.open(file);
  const run = await log.startRun({ world: 'w', backend: 'b', operator: 'o', software: 's', models: {} });
  await log.close();
  const db = openAuditReadOnly(file);
  const body = JSON.parse(
    (db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_start'").get(run) as { body: string }).body,
  ) as { events: number };
  db.close();
  assert.equal(body.events, AUDIT_EVENTS_VERSION);
  // A kind the catalogue does not list is refused, so a typo cannot hide evidence under a new name.
  const again = AuditLog.open(file);
  await assert.rejects(again.append(run, 'tool_cal' as never, {}), /unknown event kind "tool_cal"/);
  await again.close();
});
