/**
 * A recorded tool-loop run always has an end: when the loop itself throws (here a world whose
 * sensors fail after the reset with an error no one named), act rejects with that error and the
 * audit run is ended as failed, the error its reason — never left open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, tabletopTools } from '../../main/app/act.js';
import { openAuditLog } from '../../main/app/audit-log.js';
import { TabletopWorld } from '../../main/backends/mujoco/tabletop.js';
import { RecoveryPlanner } from '../../main/core/loop/planners.js';
import type { World } from '../../main/core/world/world.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { queryEvents } from '../../main/services/audit/forensics.js';

test('the loop throws after the run was recorded: act rejects with the error, and the audit run is ended as failed with it as the reason', async () => {
  const world = await TabletopWorld.open({ heightNoise_m: 0, perceptionNoise_m: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-end-'));
  const file = join(dir, 'audit.sqlite');
  const log = await openAuditLog(file);
  let runId: string | null = null;
  try {
    const broken: World = {
      spec: world.spec,
      time_s: () => world.time_s(),
      close: () => world.close(),
      tools: { ...world.tools, observe: () => Promise.reject(new TypeError('sensor frame unreadable')) },
    };
    await assert.rejects(
      act({
        world: broken,
        tools: tabletopTools(),
        planner: new RecoveryPlanner([{ tool: 'pick', args: { target: 'red_mug' } }]),
        goal: 'pick the mug',
        verify: 'objects.red_mug.on == "tray"',
        seed: 1,
        replans: 0,
        clock: () => 0,
        audit: { log, operator: 'tester', via: 'test' },
        started: (r) => {
          runId = r;
        },
      }),
      /sensor frame unreadable/,
    );
    await log.flush();
    assert.notEqual(runId, null);
    const db = openAuditReadOnly(file);
    try {
      const ends = queryEvents(db, { kind: 'run_end', limit: 10 })
        .filter((e) => e.run_id === runId)
        .map((e) => JSON.parse(e.body) as Record<string, unknown>);
      assert.deepEqual(
        ends.map((b) => [b['outcome'], b['failureMode'], b['reason']]),
        [['failed', 'error', 'the run failed: sensor frame unreadable']],
      );
    } finally {
      db.close();
    }
  } finally {
    await log.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
