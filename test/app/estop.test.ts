import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmergencyStop, type Stoppable } from '../../main/app/estop.js';
import { openAuditLog } from '../../main/app/audit-log.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import type { EstopState } from '../../main/contract/api.js';

/** A running activity whose audit run is written when the test says so (or never). */
function activity(): { s: Stoppable; stopped: string[]; record(id: string | null): void } {
  let record!: (id: string | null) => void;
  const auditRun = new Promise<string | null>((resolve) => { record = resolve; });
  const stopped: string[] = [];
  let active = true;
  return {
    s: { get active() { return active; }, estop: (reason) => { active = false; stopped.push(reason); }, auditRun },
    stopped, record,
  };
}

test('the E-STOP stops at once, and its record names the audit runs it stopped — a run still being written once it is, one never written apart', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'witness-estop-')), 'audit.sqlite');
  const log = await openAuditLog(file);
  const published: EstopState[] = [];
  const estop = new EmergencyStop({ auditLog: () => Promise.resolve(log), operator: () => 'ops', via: 'test', publish: (s) => published.push(s), auditRunWait_ms: 300 });
  try {
    const recorded = await log.startRun({ world: 'pointmaze-medium', backend: 'test', operator: 'ops', software: 'test', models: {} });
    const mission = activity(), loop = activity(), lost = activity();
    estop.register('console-mission', mission.s);
    estop.register('console-loop', loop.s);
    estop.register('console-lost', lost.s);
    mission.record(recorded);
    const fired = estop.fire();
    // Stopped and latched before anything is known of the audit log.
    assert.equal(mission.stopped.length + loop.stopped.length + lost.stopped.length, 3);
    assert.equal(estop.latched, true);
    assert.deepEqual(published[0], { ...estop.state(), stopped: [] });
    // The tool loop's run is written a moment later; the third never is.
    const loopRun = await log.startRun({ world: 'tabletop', backend: 'test', operator: 'ops', software: 'test', models: {} });
    loop.record(loopRun);
    const { stopped } = await fired;
    assert.deepEqual(stopped, [recorded, loopRun]);
    const state = estop.state();
    assert.ok(state.latched);
    assert.deepEqual(state.stopped, [recorded, loopRun]);
    assert.deepEqual(published.find((p) => p.latched && p.stopped.length === 2), state, 'the latch is published again once it knows what it stopped');
    await estop.settled();
    await log.flush();
    const written = estop.state();
    assert.ok(written.latched && written.auditRun !== null && written.recordError === null);
    assert.deepEqual(published.at(-1), written, 'and once its record is written');
    const db = openAuditReadOnly(file);
    try {
      const run = db.prepare('SELECT id, meta FROM runs WHERE id = ?').get(written.auditRun) as { id: string; meta: string };
      const meta = JSON.parse(run.meta) as { stopped: string[]; unrecorded?: string[] };
      assert.deepEqual(meta.stopped, [recorded, loopRun]);
      assert.deepEqual(meta.unrecorded, ['console-lost']);
      for (const id of meta.stopped) assert.ok(db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id) !== undefined, `${id} is a run of the audit log`);
      const d = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'operator_decision'").get(run.id) as { body: string };
      assert.equal((JSON.parse(d.body) as { reason: string }).reason,
        `emergency stop by the operator (stopped audit runs ${recorded}, ${loopRun}; stopped 1 run not recorded in the audit log (console run console-lost))`);
    } finally {
      db.close();
    }
    await estop.reset('checked', true);
  } finally {
    await log.close();
  }
});
