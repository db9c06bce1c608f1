/**
 * The operator's decision on an escalation: retry (one more budget round), skip (the subtask), abort; broken hooks
 * abort.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLoop, type LoopOptions } from '../../../main/core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../../../main/core/loop/planners.js';
import { askOperator } from '../../../main/core/loop/escalation.js';
import type { Decide, Escalation } from '../../../main/contract/failure.js';
import { StepThroughWorld, tools } from './step-world.js';

const PLAN = parseScript(
  {
    steps: [
      { tool: 'pick', args: { target: 'red_mug' } },
      { tool: 'place', args: { target: 'tray' } },
    ],
  },
  'plan.json',
);

function recorder(): {
  events: { kind: string; body: Record<string, unknown> }[];
  opts: (o: Partial<LoopOptions>) => LoopOptions;
} {
  const events: { kind: string; body: Record<string, unknown> }[] = [];
  let t = 0;
  return {
    events,
    opts: (o) => ({
      replans: 0,
      goal: 'objects.red_mug.on == "tray"',
      clock: () => (t += 1),
      onEvent: (kind, body) => events.push({ kind, body }),
      ...o,
    }),
  };
}

/** Answers from a script, remembering what it was asked. */
function operator(...answers: ('abort' | 'retry' | 'skip')[]): Decide & { asked: Escalation[] } {
  const asked: Escalation[] = [];
  const d = (e: Escalation) => {
    asked.push(e);
    const decision = answers.shift() ?? 'abort';
    return Promise.resolve({ decision, reason: `test says ${decision}`, operator: 'tester' });
  };
  return Object.assign(d, { asked });
}

test('retry grants one more budget round and continues: the missed grasp is recovered and the goal reached', async () => {
  const { events, opts } = recorder();
  const decide = operator('retry');
  const r = await runLoop(tools(), new StepThroughWorld(), new RecoveryPlanner(PLAN), 'g', opts({ decide }));
  assert.equal(r.outcome, 'success', r.reason);
  assert.deepEqual([r.toolCalls, r.replans, r.aborted], [3, 1, false]);
  assert.equal(decide.asked.length, 1);
  const e = decide.asked[0]!;
  assert.deepEqual([e.n, e.cause, e.failure.label, e.replans, e.budget], [1, 'replan-budget', 'grasp-missed', 0, 0]);
  assert.match(e.reason, /replan budget R = 0 exhausted/);
  assert.deepEqual(
    r.decisions.map((d) => [d.decision, d.reason, d.operator, d.escalation]),
    [['retry', 'test says retry', 'tester', 1]],
  );
  // The audit trail: escalation → operator_decision (naming the escalation it answers) → replan granted by the
  // operator.
  const kinds = events.map((x) => x.kind);
  const at = kinds.indexOf('escalation');
  assert.deepEqual(kinds.slice(at, at + 3), ['escalation', 'operator_decision', 'replan']);
  assert.deepEqual(events[at + 1]!.body, {
    decision: 'retry',
    reason: 'test says retry',
    operator: 'tester',
    escalation: {
      n: 1,
      cause: 'replan-budget',
      reason: e.reason,
      tool: 'pick',
      violated: 'grasp_success',
      label: 'grasp-missed',
      subtask: 0,
    },
  });
  assert.deepEqual(events[at + 2]!.body, { trigger: 'grasp-missed', replan: 1, budget: 1, granted_by: 'operator' });
  assert.equal(kinds.filter((k) => k === 'escalation').length, 1, 'no second escalation on success');
});

test('retry on a replan loop asks again when the same call fails again; the budget message counts the retries', async () => {
  const { opts } = recorder();
  const decide = operator('retry', 'retry', 'abort');
  // The scripted planner repeats the missed grasp unchanged: every retry fails the same way.
  const r = await runLoop(
    tools(),
    new StepThroughWorld(),
    new ScriptedPlanner(PLAN),
    'g',
    opts({ replans: 5, decide }),
  );
  assert.equal(r.outcome, 'escalated');
  assert.equal(r.aborted, true);
  assert.deepEqual(
    decide.asked.map((e) => e.cause),
    ['replan-loop', 'replan-loop', 'replan-loop'],
  );
  assert.deepEqual(
    decide.asked.map((e) => [e.replans, e.budget]),
    [
      [1, 5],
      [2, 10],
      [3, 15],
    ],
  );
  assert.match(
    r.reason,
    /replan loop: "grasp_success" failed twice in a row on subtask 0 with the same call; aborted by tester: test says abort$/,
  );
  const past = operator('retry', 'abort');
  const r0 = await runLoop(
    tools(),
    new StepThroughWorld(),
    new ScriptedPlanner(PLAN),
    'g',
    opts({ replans: 0, decide: past }),
  );
  assert.deepEqual(
    past.asked.map((e) => [e.cause, e.budget]),
    [
      ['replan-budget', 0],
      ['replan-budget', 1],
    ],
  );
  assert.match(
    r0.reason,
    /^replan budget of 1 \(R = 0 and the operator's retries\) exhausted; 2 failure record\(s\); aborted/,
  );
});

test('skip abandons the failed subtask and goes on with the next; the budget is not renewed', async () => {
  const { events, opts } = recorder();
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: { target: 'red_bin' } },
        { tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } },
      ],
    },
    'p.json',
  );
  for (const planner of [new ScriptedPlanner(plan), new RecoveryPlanner(plan)]) {
    const decide = operator('skip');
    const world = new StepThroughWorld();
    const r = await runLoop(tools(), world, planner, 'g', opts({ goal: 'gripper.holding == "red_mug"', decide }));
    assert.equal(r.outcome, 'success', `${planner.constructor.name}: ${r.reason}`);
    assert.deepEqual(
      world.calls.map((c) => (c as { args: { target: string } }).args.target),
      ['red_bin', 'red_mug'],
    );
    assert.deepEqual([r.replans, r.decisions.length, r.decisions[0]!.decision], [0, 1, 'skip']);
    assert.equal(r.history.entries.filter((e) => e.kind === 'operator').length, 1);
  }
  assert.ok(!events.some((e) => e.kind === 'replan'), 'a skip is not a replan');
  // After a skip the next failure escalates at once: the operator is asked again.
  const decide = operator('skip', 'skip');
  const three = parseScript(
    {
      steps: [
        { tool: 'pick', args: { target: 'red_bin' } },
        { tool: 'pick', args: { target: 'red_mug' } },
        { tool: 'place', args: { target: 'tray' } },
      ],
    },
    'q.json',
  );
  const r = await runLoop(tools(), new StepThroughWorld(), new ScriptedPlanner(three), 'g', opts({ decide }));
  assert.deepEqual(
    decide.asked.map((e) => (e.failure.source === 'tool' ? [e.failure.tool, e.failure.subtask] : [])),
    [
      ['pick', 0],
      ['pick', 1],
      ['place', 2],
    ],
  );
  assert.equal(r.outcome, 'escalated');
  assert.match(r.reason, /aborted by tester/);
});

test('abort ends the run as escalated and aborted, with one escalation event and the decision', async () => {
  const { events, opts } = recorder();
  const r = await runLoop(
    tools(),
    new StepThroughWorld(),
    new RecoveryPlanner(PLAN),
    'g',
    opts({ decide: operator('abort') }),
  );
  assert.deepEqual([r.outcome, r.aborted, r.toolCalls], ['escalated', true, 1]);
  assert.match(r.reason, /^replan budget R = 0 exhausted; 1 failure record\(s\); aborted by tester: test says abort$/);
  assert.deepEqual(
    events.filter((e) => e.kind === 'escalation' || e.kind === 'operator_decision').map((e) => e.kind),
    ['escalation', 'operator_decision'],
  );
  // Without a hook, nothing changes: the escalation ends the run and nobody is asked.
  const plain = await runLoop(tools(), new StepThroughWorld(), new RecoveryPlanner(PLAN), 'g', opts({}));
  assert.deepEqual([plain.outcome, plain.aborted, plain.decisions.length], ['escalated', false, 0]);
});

test('a hook that throws or answers nonsense aborts, saying why; an empty reason is recorded as such', async () => {
  const e = { n: 1, options: ['abort', 'retry', 'skip'] } as unknown as Escalation;
  assert.deepEqual(await askOperator(() => Promise.reject(new Error('dialog closed')), e), {
    decision: 'abort',
    reason: 'the decision hook failed (dialog closed); aborting',
  });
  assert.deepEqual(await askOperator(() => Promise.resolve({ decision: 'maybe' } as never), e), {
    decision: 'abort',
    reason: 'the decision hook answered "maybe", not one of abort, retry, skip; aborting',
  });
  assert.deepEqual(await askOperator(() => Promise.resolve({ decision: 'skip', reason: ' ' }), e), {
    decision: 'skip',
    reason: '(no reason given)',
  });
  // A mission has no subtask to skip: a decision outside the escalation's options is no answer.
  const mission = { ...e, options: ['abort', 'retry'] } as Escalation;
  assert.deepEqual(await askOperator(() => Promise.resolve({ decision: 'skip', reason: 'why not' }), mission), {
    decision: 'abort',
    reason: 'the decision hook answered "skip", not one of abort, retry; aborting',
  });
  const { opts } = recorder();
  const r = await runLoop(
    tools(),
    new StepThroughWorld(),
    new RecoveryPlanner(PLAN),
    'g',
    opts({ decide: () => Promise.reject(new Error('boom')) }),
  );
  assert.deepEqual([r.outcome, r.aborted], ['escalated', true]);
  assert.match(r.reason, /aborted by the operator: the decision hook failed \(boom\); aborting$/);
});
