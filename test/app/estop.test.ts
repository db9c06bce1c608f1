import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmergencyStop, type Stoppable } from '../../main/app/estop.js';
import { openAuditLog } from '../../main/app/audit-log.js';
import { durableLatch, latchFile } from '../../main/app/estop-latch.js';
import { reasonProblem } from '../../main/contract/reason.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import type { EstopState } from '../../main/contract/api.js';

/** A running activity whose audit run is written when the test says so (or never). */
function activity(): { s: Stoppable; stopped: string[]; record(id: string | null): void } {
  let record!: (id: string | null) => void;
  const auditRun = new Promise<string | null>((resolve) => {
    record = resolve;
  });
  const stopped: string[] = [];
  let active = true;
  return {
    s: {
      get active() {
        return active;
      },
      estop: (reason) => {
        active = false;
        stopped.push(reason);
      },
      auditRun,
    },
    stopped,
    record,
  };
}

test('the E-STOP stops at once, and its record names the audit runs it stopped — a run still being written once it is, one never written apart', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'witness-estop-')), 'audit.sqlite');
  const log = await openAuditLog(file);
  const published: EstopState[] = [];
  const estop = new EmergencyStop({
    auditLog: () => Promise.resolve(log),
    operator: () => 'ops',
    via: 'test',
    publish: (s) => published.push(s),
    auditRunWait_ms: 300,
  });
  try {
    const recorded = await log.startRun({
      world: 'pointmaze-medium',
      backend: 'test',
      operator: 'ops',
      software: 'test',
      models: {},
    });
    const mission = activity(),
      loop = activity(),
      lost = activity();
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
    const loopRun = await log.startRun({
      world: 'tabletop',
      backend: 'test',
      operator: 'ops',
      software: 'test',
      models: {},
    });
    loop.record(loopRun);
    const { stopped } = await fired;
    assert.deepEqual(stopped, [recorded, loopRun]);
    const state = estop.state();
    assert.ok(state.latched);
    assert.deepEqual(state.stopped, [recorded, loopRun]);
    assert.deepEqual(
      published.find((p) => p.latched && p.stopped.length === 2),
      state,
      'the latch is published again once it knows what it stopped',
    );
    await estop.settled();
    await log.flush();
    const written = estop.state();
    assert.ok(written.latched && written.auditRun !== null && written.recordError === null);
    assert.deepEqual(published.at(-1), written, 'and once its record is written');
    const db = openAuditReadOnly(file);
    try {
      const run = db.prepare('SELECT id, meta FROM runs WHERE id = ?').get(written.auditRun) as {
        id: string;
        meta: string;
      };
      const meta = JSON.parse(run.meta) as { stopped: string[]; unrecorded?: string[] };
      assert.deepEqual(meta.stopped, [recorded, loopRun]);
      assert.deepEqual(meta.unrecorded, ['console-lost']);
      for (const id of meta.stopped)
        assert.ok(
          db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id) !== undefined,
          `${id} is a run of the audit log`,
        );
      const d = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'operator_decision'").get(run.id) as {
        body: string;
      };
      assert.equal(
        (JSON.parse(d.body) as { reason: string }).reason,
        `emergency stop by the operator (stopped audit runs ${recorded}, ${loopRun}; stopped 1 run not recorded in the audit log (console run console-lost))`,
      );
    } finally {
      db.close();
    }
    await estop.reset('checked', true);
  } finally {
    await log.close();
  }
});

test('a latch whose audit record never landed is kept by the workspace: a new workbench starts latched, and its reset writes the record', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-estop-'));
  const workspace = path.join(dir, 'ws'),
    file = path.join(dir, 'audit.sqlite');
  const broken = new EmergencyStop({
    auditLog: () => Promise.reject(new Error('disk full')),
    operator: () => 'ops',
    via: 'test',
    publish: () => {},
    durable: durableLatch(workspace, file),
  });
  await broken.fire('smoke');
  await broken.settled();
  const s = broken.state();
  assert.ok(s.latched && s.recordError === 'disk full' && s.auditRun === null);
  assert.ok(existsSync(latchFile(workspace)));

  const log = await openAuditLog(file);
  const warnings: string[] = [];
  const again = new EmergencyStop({
    auditLog: () => Promise.resolve(log),
    operator: () => 'ops2',
    via: 'test',
    publish: () => {},
    durable: durableLatch(workspace, file),
    warn: (l) => warnings.push(l),
  });
  try {
    const r = again.state();
    assert.ok(r.latched && r.restored === true && r.auditRun === null && r.by === 'ops' && /smoke/.test(r.reason));
    assert.match(warnings.join('\n'), /latched .*the workbench stopped while it was latched/);
    assert.throws(() => again.assertClear('start a mission'), /latched/);
    const after = await again.reset('smoke cleared, robot checked', true);
    assert.equal(after.latched, false);
    assert.equal(existsSync(latchFile(workspace)), false, 'the reset on record removes the latch file');
    await log.flush();
    const db = openAuditReadOnly(file);
    try {
      const ends = db.prepare("SELECT body FROM events WHERE kind = 'run_end'").all() as { body: string }[];
      assert.deepEqual(
        ends.map((e) => (JSON.parse(e.body) as { outcome: string }).outcome),
        ['reset'],
        "the reset opened the latch's run and ended it",
      );
    } finally {
      db.close();
    }
  } finally {
    await log.close();
  }
  const third = new EmergencyStop({
    auditLog: () => Promise.reject(new Error('unused')),
    operator: () => 'ops',
    via: 'test',
    publish: () => {},
    durable: durableLatch(workspace, file),
  });
  assert.equal(third.latched, false);
});

test('the audit log decides at start: a latch file whose reset is on record is stale, a damaged one is taken as latched', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-estop-'));
  const workspace = path.join(dir, 'ws'),
    file = path.join(dir, 'audit.sqlite');
  const log = await openAuditLog(file);
  try {
    const a = new EmergencyStop({
      auditLog: () => Promise.resolve(log),
      operator: () => 'ops',
      via: 'test',
      publish: () => {},
      durable: durableLatch(workspace, file),
    });
    await a.fire();
    await a.settled();
    const kept = readFileSync(latchFile(workspace), 'utf8');
    await a.reset('all clear here', true);
    // The workbench stopped after the reset was recorded but before the file went.
    writeFileSync(latchFile(workspace), kept);
    const b = new EmergencyStop({
      auditLog: () => Promise.resolve(log),
      operator: () => 'ops',
      via: 'test',
      publish: () => {},
      durable: durableLatch(workspace, file),
    });
    assert.equal(b.latched, false);
    assert.equal(existsSync(latchFile(workspace)), false, 'the stale file is removed');
    writeFileSync(latchFile(workspace), '{"since": ');
    const warnings: string[] = [];
    const c = new EmergencyStop({
      auditLog: () => Promise.resolve(log),
      operator: () => 'ops',
      via: 'test',
      publish: () => {},
      durable: durableLatch(workspace, file),
      warn: (l) => warnings.push(l),
    });
    assert.equal(c.latched, true, 'a latch file that cannot be read is a latch');
    assert.match(warnings[0] ?? '', /estop-latch\.json: not a latch record/);
  } finally {
    await log.close();
  }
});

test('a reason must say something: at least a few visible characters, no controls or reordering', () => {
  for (const ok of ['checked', 'ok!', 'zone B clear — robot parked', 'gecheckt ✓', '確認済み', 'a\tb\nc'])
    assert.equal(reasonProblem(ok), null, ok);
  for (const bad of [
    '',
    '   ',
    '\u200b\u200b\u200b',
    '\u2060\u2060\u2060\u2060',
    '\ufeff',
    'ok',
    'x\u200by',
    '\u0001\u0002\u0003',
    'fine\u001b[2J',
    'ok\u202e done',
    '\u0085abc',
    // Letters and symbols that draw nothing: Hangul fillers, the blank Braille pattern.
    '\u3164\u3164\u3164\u3164',
    '\u115f\u1160\uffa0',
    '\u2800\u2800\u2800',
    'ok\u3164\u2800',
  ])
    assert.notEqual(reasonProblem(bad), null, JSON.stringify(bad));
});
