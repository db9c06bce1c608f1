/**
 * The seed's distinction on the real MuJoCo tabletop, through the real loop (app/act.ts) and the
 * shipped tools: an object knocked off the table is a permanent failure (pick's `out-of-workspace`
 * rule) and escalates after ONE failure, the replan budget unspent; a missed grasp is transient and
 * replanned (2 cm lower). Same world, plan, seed and budget in both; perception exact; no timing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, tabletopTools } from '../../main/app/act.js';
import { openAuditLog, settleAudit } from '../../main/app/audit-log.js';
import { TabletopWorld } from '../../main/backends/mujoco/tabletop.js';
import { RecoveryPlanner, type PlanStep } from '../../main/core/loop/planners.js';
import type { World } from '../../main/core/world/world.js';
import type { Escalation } from '../../main/contract/failure.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { queryEvents, verifyChain } from '../../main/services/audit/forensics.js';

const PLAN: PlanStep[] = [
  { tool: 'pick', args: { target: 'red_mug' } },
  { tool: 'place', args: { target: 'tray' } },
];
const GOAL = 'objects.red_mug.on == "tray"';
/** Beside the table (it spans x ±0.4 m, y ±0.3 m), on the floor. */
const FLOOR_POSE = [0.55, 0.1, 0.05] as const;

/**
 * The tabletop with a fault: the mug knocked off the table, right after the world is reset (before
 * anything moves) or during the first pick (it leaves the fingers and lands on the floor). The
 * simulator's `setPose` (what tests use to place objects) does it; the world itself is unchanged.
 */
function knockOff(world: TabletopWorld, when: 'reset' | 'pick'): World {
  let done = false;
  const knock = (): void => {
    if (done) return;
    done = true;
    world.sim.setPose('red_mug', FLOOR_POSE, [1, 0, 0, 0], 500);
  };
  return {
    spec: world.spec,
    time_s: () => world.time_s(),
    close: () => world.close(),
    tools: {
      ...world.tools,
      reset: async (o) => {
        const s = await world.tools.reset(o);
        if (when === 'reset') knock();
        return when === 'reset' ? await world.tools.observe() : s;
      },
      execute: async (skill, args, o) => {
        const r = await world.tools.execute(skill, args, o);
        if (when === 'pick' && skill === 'pick') knock();
        return r;
      },
    },
  };
}

test("knocked off the table during the pick: a permanent failure, escalated after one failure with the rule's label and reason, the budget unspent; a missed grasp is replanned", async () => {
  const world = await TabletopWorld.open({ heightNoise_m: 0, perceptionNoise_m: 0 });
  const file = join(mkdtempSync(join(tmpdir(), 'witness-permanent-')), 'audit.sqlite');
  const log = await openAuditLog(file);
  try {
    const run = async (w: World) => {
      const r = await act({
        world: w,
        tools: tabletopTools(),
        planner: new RecoveryPlanner(PLAN),
        goal: 'put the red mug on the tray',
        verify: GOAL,
        seed: 1,
        replans: 2,
        clock: () => 0,
        audit: { log, operator: 'tester', via: 'test' },
      });
      await settleAudit(log, [{ errors: r.auditErrors }]);
      return r;
    };
    // The contrast first: the nominal grasp closes above the mug (transient), the recovery planner
    // goes 2 cm lower, then the place: 3 calls, 1 of 2 replans.
    const missed = (await run(world)).result;
    assert.equal(missed.outcome, 'success', missed.reason);
    assert.deepEqual(
      missed.failures.map((f) => [f.label, f.class]),
      [['grasp-missed', 'transient']],
    );
    assert.deepEqual([missed.toolCalls, missed.replans], [3, 1]);

    const { result: r, auditRun } = await run(knockOff(world, 'pick'));
    assert.equal(r.outcome, 'escalated');
    assert.deepEqual([r.failures.length, r.replans, r.toolCalls], [1, 0, 1]);
    const f = r.failures[0]!;
    assert.deepEqual(
      [f.tool, f.stage, f.violated, f.label, f.class],
      ['pick', 'postcondition', 'grasp_success', 'out-of-workspace', 'permanent'],
    );
    assert.match(f.reason ?? '', /out of the workspace \(off the table\)/);
    assert.deepEqual(
      (f.state['objects'] as Record<string, { on: string; in_workspace: boolean }>)['red_mug']!.in_workspace,
      false,
    );
    assert.equal(
      r.reason,
      `permanent failure "out-of-workspace" of pick: ${f.reason}; not replanned (0 of 2 replans used)`,
    );

    // The audit log holds the failure record with its class and the escalation with its cause.
    const db = openAuditReadOnly(file);
    try {
      assert.equal(verifyChain(db).ok, true);
      const ofRun = (kind: string) =>
        queryEvents(db, { kind, limit: 100 })
          .filter((e) => e.run_id === auditRun)
          .map((e) => JSON.parse(e.body) as Record<string, unknown>);
      assert.deepEqual(
        ofRun('failure_record').map((b) => [b['label'], b['class'], b['reason']]),
        [['out-of-workspace', 'permanent', f.reason]],
      );
      assert.deepEqual(
        ofRun('escalation').map((b) => [b['cause'], b['replans'], b['budget']]),
        [['permanent-failure', 0, 2]],
      );
      assert.deepEqual(ofRun('replan'), []);
    } finally {
      db.close();
    }
  } finally {
    await log.close();
    await world.close();
  }
});

test("knocked off before anything moves: pick's precondition stops it, the operator is asked at once (permanent-failure), may retry, and nothing moves", async () => {
  const world = await TabletopWorld.open({ heightNoise_m: 0, perceptionNoise_m: 0 });
  try {
    const asked: Escalation[] = [];
    const answers = ['retry', 'abort'] as const;
    const { result: r } = await act({
      world: knockOff(world, 'reset'),
      tools: tabletopTools(),
      planner: new RecoveryPlanner(PLAN),
      goal: 'put the red mug on the tray',
      verify: GOAL,
      seed: 1,
      replans: 2,
      clock: () => 0,
      decide: (e) => {
        asked.push(e);
        return Promise.resolve({
          decision: answers[asked.length - 1]!,
          reason: `answer ${asked.length}`,
          operator: 'tester',
        });
      },
    });
    // Asked at once, the budget unspent; the retry spends one replan, and the same permanent failure comes straight
    // back.
    assert.deepEqual(
      asked.map((e) => [e.cause, e.replans, e.budget, e.failure.label]),
      [
        ['permanent-failure', 0, 2, 'out-of-workspace'],
        ['permanent-failure', 1, 2, 'out-of-workspace'],
      ],
    );
    assert.deepEqual(
      r.failures.map((f) => [f.tool, f.stage, f.violated, f.label, f.class]),
      [
        ['pick', 'precondition', 'target_in_workspace', 'out-of-workspace', 'permanent'],
        ['pick', 'precondition', 'target_in_workspace', 'out-of-workspace', 'permanent'],
      ],
    );
    assert.deepEqual([r.outcome, r.aborted, r.toolCalls, r.replans], ['escalated', true, 0, 1]);
  } finally {
    await world.close();
  }
});

test('the wrong object in the hand is caught on sensor evidence (holding_target), put down on the tray, and the pick done again', async () => {
  // Seed 1 with the tabletop's default perception noise: the first grasp of the red bin closes on the load resting on
  // it.
  const { runAct, WAREHOUSE } = await import('../../main/app/act.js');
  const { assetPath } = await import('../../main/platform/paths.js');
  const r = await runAct({
    world: 'tabletop',
    tools: assetPath(WAREHOUSE.tools),
    plan: assetPath(WAREHOUSE.plan),
    planner: 'recovery',
    goal: WAREHOUSE.verify,
    replans: 2,
    seed: 1,
    audit: false,
  });
  assert.equal(r.result.outcome, 'success', r.result.reason);
  const wrong = r.result.failures.find((f) => f.label === 'wrong-object');
  assert.ok(wrong !== undefined, 'the wrong grasp is a failure record');
  assert.equal(wrong.violated, 'holding_target');
  assert.equal(wrong.class, 'transient');
  const calls = r.result.history.entries.flatMap((e) =>
    e.kind === 'pass' ? [`${e.call.tool}:${String((e.call.args as { target: string }).target)}`] : [],
  );
  assert.deepEqual(
    calls.slice(0, 2),
    ['place:tray', 'pick:red_bin'],
    'the held object is put down, then the pick again',
  );
  const objects = r.result.state['objects'] as Record<string, { on: string }>;
  assert.equal(objects['red_bin']!.on, 'shelf_c4');
});
