/**
 * Transient versus permanent changes what the loop does: failure rules see the world error of a
 * failed execution (error.kind, error.message), defaults class what no rule matches, and a permanent
 * failure escalates at once — the replan budget unspent — unless the planner has another way past it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTool, registerTools } from '../../../main/core/loop/tools.js';
import { runLoop, type LoopOptions, type ToolWorld } from '../../../main/core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../../../main/core/loop/planners.js';
import { WorldError, type WorldErrorKind } from '../../../main/core/world/world.js';
import type { Escalation } from '../../../main/contract/failure.js';
import { InputError } from '../../../main/core/input/json.js';
import { StepThroughWorld, VOCAB, tools } from './step-world.js';

/**
 * A world whose `move` skill always fails with one WorldError kind (an action server that is not there, a timeout…).
 */
class FailingWorld implements ToolWorld {
  calls = 0;
  constructor(
    private readonly kind: WorldErrorKind,
    private readonly detail: string,
  ) {}
  observe(): Promise<Record<string, unknown>> {
    return Promise.resolve({ gripper: { width_cm: 8, holding: '', load_N: 0, payload_limit_N: 20 }, objects: {} });
  }
  execute(): Promise<unknown> {
    this.calls++;
    return Promise.reject(new WorldError(this.kind, 'stub', this.detail));
  }
}

const moveTool = (failures: unknown[] = []) =>
  registerTools(
    [
      {
        def: parseTool(
          {
            name: 'reach',
            description: 'move the hand',
            skill: 'move',
            arguments: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
            postconditions: [{ name: 'hand_moved', expr: 'gripper.width_cm > 100.0' }],
            timeout_s: 5,
            failures,
          },
          'reach.json',
        ),
        file: 'reach.json',
      },
    ],
    VOCAB,
  );

const PLAN = parseScript({ steps: [{ tool: 'reach', args: { x: 1 } }] }, 'plan.json');
const opts = (o: Partial<LoopOptions> = {}): LoopOptions => ({
  replans: 2,
  goal: 'gripper.width_cm > 100.0',
  clock: () => 0,
  ...o,
});

test('a failure rule reads error.kind and error.message: an action server that is not there is permanent and escalates after one failure, the budget unspent', async () => {
  const tools = moveTool([
    {
      when: 'error.kind == "not-found"',
      label: 'no-action-server',
      class: 'permanent',
      reason: 'nothing serves the move skill',
    },
    { when: 'error.message == "busy"', label: 'busy', class: 'transient' },
  ]);
  const world = new FailingWorld('not-found', 'no action server /reach within 5 s');
  const events: { kind: string; body: unknown }[] = [];
  const r = await runLoop(
    tools,
    world,
    new ScriptedPlanner(PLAN),
    'reach',
    opts({ onEvent: (kind, body) => events.push({ kind, body }) }),
  );
  assert.equal(r.outcome, 'escalated');
  assert.deepEqual([r.failures.length, r.replans, r.toolCalls, world.calls], [1, 0, 1, 1]);
  const f = r.failures[0]!;
  assert.deepEqual(
    [f.stage, f.label, f.class, f.reason, f.world_error],
    [
      'world-error',
      'no-action-server',
      'permanent',
      'nothing serves the move skill',
      { kind: 'not-found', message: 'no action server /reach within 5 s' },
    ],
  );
  assert.match(
    r.reason,
    /^permanent failure "no-action-server" of reach: nothing serves the move skill; not replanned \(0 of 2 replans used\)$/,
  );
  const esc = events
    .filter((e) => e.kind === 'escalation')
    .map((e) => e.body as { cause: string; replans: number; budget: number });
  assert.deepEqual(
    esc.map((e) => [e.cause, e.replans, e.budget]),
    [['permanent-failure', 0, 2]],
  );
  assert.equal(events.filter((e) => e.kind === 'replan').length, 0);

  // The message is bound too: a "busy" server is transient, replanned until the loop guard stops it.
  const busy = await runLoop(tools, new FailingWorld('failed', 'busy'), new ScriptedPlanner(PLAN), 'reach', opts());
  assert.deepEqual(
    busy.failures.map((x) => [x.label, x.class]),
    [
      ['busy', 'transient'],
      ['busy', 'transient'],
    ],
  );
  assert.equal(busy.replans, 1);
  assert.match(busy.reason, /^replan loop/);
});

test("without a matching rule, the world error's kind decides: not-found, invalid-input, rejected → permanent; timeout, aborted → transient", async () => {
  const tools = moveTool();
  const expect: [WorldErrorKind, 'permanent' | 'transient'][] = [
    ['not-found', 'permanent'],
    ['invalid-input', 'permanent'],
    ['rejected', 'permanent'],
    ['timeout', 'transient'],
    ['aborted', 'transient'],
  ];
  for (const [kind, cls] of expect) {
    const r = await runLoop(tools, new FailingWorld(kind, 'x'), new ScriptedPlanner(PLAN), 'reach', opts());
    const f = r.failures[0]!;
    assert.deepEqual([f.label, f.class, f.world_error?.kind], [`world-${kind}`, cls, kind], kind);
    assert.equal(
      r.failures.length,
      cls === 'permanent' ? 1 : 2,
      `${kind}: a permanent failure is not replanned; a transient one is (until the loop guard)`,
    );
    assert.equal(r.replans, cls === 'permanent' ? 0 : 1, kind);
  }
});

test('error is bound in failure rules only, with kind and message; it is empty when the execution did not fail', async () => {
  assert.throws(
    () => moveTool([{ when: 'error.code == "x"', label: 'x', class: 'permanent' }]),
    (e: unknown) =>
      e instanceof InputError &&
      /\$\.failures\[0\]\.when: unknown field "error\.code".*error has kind and message/.test(e.message),
  );
  assert.throws(
    () =>
      registerTools(
        [
          {
            def: parseTool(
              {
                name: 't',
                description: 'd',
                skill: 'move',
                arguments: { type: 'object' },
                postconditions: [{ name: 'p', expr: 'error.kind == ""' }],
                timeout_s: 1,
              },
              't.json',
            ),
            file: 't.json',
          },
        ],
        VOCAB,
      ),
    /\$\.postconditions\[0\]\.expr: "error\.kind": error \(the world error of a failed execution\) is bound in failure rules only, not in a postcondition/,
  );
  // A postcondition failure: no world error, so a rule on error.kind does not match (and does not fail to evaluate).
  const t = tools();
  const pick = t.get('pick')!;
  const strict = new Map(t).set('pick', {
    ...pick,
    failures: [{ when: 'error.kind != ""', label: 'world', class: 'permanent' }, ...pick.failures],
  });
  const r = await runLoop(
    strict,
    new StepThroughWorld(),
    new RecoveryPlanner(
      parseScript(
        {
          steps: [
            { tool: 'pick', args: { target: 'red_mug' } },
            { tool: 'place', args: { target: 'tray' } },
          ],
        },
        'p.json',
      ),
    ),
    'g',
    opts({ goal: 'objects.red_mug.on == "tray"' }),
  );
  assert.equal(r.outcome, 'success');
  assert.deepEqual(
    r.failures.map((f) => [f.label, f.class, f.world_error]),
    [['grasp-missed', 'transient', undefined]],
  );
});

test('with an operator, a permanent failure is asked at once (cause permanent-failure); a retry spends one replan, not a new budget', async () => {
  const asked: Escalation[] = [];
  const answers = ['retry', 'abort'] as const;
  const r = await runLoop(
    moveTool(),
    new FailingWorld('not-found', 'no server'),
    new ScriptedPlanner(PLAN),
    'reach',
    opts({
      decide: (e) => {
        asked.push(e);
        return Promise.resolve({
          decision: answers[asked.length - 1]!,
          reason: `answer ${asked.length}`,
          operator: 'tester',
        });
      },
    }),
  );
  assert.deepEqual(
    asked.map((e) => [e.cause, e.replans, e.budget, e.failures.length]),
    [
      ['permanent-failure', 0, 2, 1],
      ['permanent-failure', 1, 2, 2],
    ],
  );
  assert.deepEqual([r.outcome, r.aborted, r.replans, r.toolCalls], ['escalated', true, 1, 2]);
  assert.deepEqual(
    r.decisions.map((d) => d.decision),
    ['retry', 'abort'],
  );
});

test("a permanent failure the planner has a way past (the plan's alternative for its label) is replanned within the budget", async () => {
  const plan = parseScript(
    {
      steps: [
        {
          tool: 'pick',
          args: { target: 'red_bin' },
          on: { 'weight-limit': [{ tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } }] },
        },
      ],
    },
    'p.json',
  );
  const r = await runLoop(
    tools(),
    new StepThroughWorld(),
    new RecoveryPlanner(plan),
    'g',
    opts({ goal: 'gripper.holding == "red_mug"' }),
  );
  assert.equal(r.outcome, 'success');
  assert.deepEqual(
    r.failures.map((f) => [f.label, f.class]),
    [['weight-limit', 'permanent']],
  );
  assert.equal(r.replans, 1);
  // The scripted planner has no alternative: the same fault escalates at once.
  const s = await runLoop(
    tools(),
    new StepThroughWorld(),
    new ScriptedPlanner(plan),
    'g',
    opts({ goal: 'gripper.holding == "red_mug"' }),
  );
  assert.deepEqual([s.outcome, s.failures.length, s.replans], ['escalated', 1, 0]);
  assert.match(
    s.reason,
    /^permanent failure "weight-limit" of pick: the object is heavier than the gripper's payload limit/,
  );
});
