import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseTool, registerTools, checkPropositions, TOOL_SCHEMA } from '../../../main/core/loop/tools.js';
import { runLoop, type LoopOptions } from '../../../main/core/loop/loop.js';
import { RecoveryPlanner, ScriptedPlanner, parseScript } from '../../../main/core/loop/planners.js';
import { InputError } from '../../../main/core/input/json.js';
import { StepThroughWorld, VOCAB, asset, tools } from './step-world.js';

const opts = (o: Partial<LoopOptions> = {}): LoopOptions => {
  let t = 10;
  return { replans: 2, goal: 'objects.red_mug.on == "tray"', clock: () => (t += 1.2), ...o };
};
const PLAN = parseScript(
  {
    steps: [
      { tool: 'pick', args: { target: 'red_mug' } },
      { tool: 'place', args: { target: 'tray' } },
    ],
  },
  'plan.json',
);

test("the seed's step-through: a missed grasp, a replan that lowers the approach by 2 cm, then place; 3 calls, 1 of 2 replans", async () => {
  const events: string[] = [];
  const r = await runLoop(
    tools(),
    new StepThroughWorld(),
    new RecoveryPlanner(PLAN),
    'place the red mug on the tray',
    opts({ onEvent: (k) => events.push(k) }),
  );
  assert.equal(r.outcome, 'success', r.reason);
  assert.equal(r.toolCalls, 3);
  assert.equal(r.replans, 1);
  assert.equal(r.recovered, true);
  const fr = r.failures[0]!;
  assert.deepEqual(
    [fr.tool, fr.violated, fr.label, fr.class, fr.stage],
    ['pick', 'grasp_success', 'grasp-missed', 'transient', 'postcondition'],
  );
  assert.deepEqual(fr.observed, { 'gripper.width_cm': 0 });
  assert.deepEqual(fr.args, { target: 'red_mug' });
  assert.ok(events.includes('failure_record') && events.includes('replan') && events.includes('verifier_result'));
  const calls = r.history.entries.filter((e) => e.kind === 'pass').map((e) => e.kind === 'pass' && e.call);
  assert.deepEqual(calls, [
    { tool: 'pick', args: { target: 'red_mug', approach_dz: -0.02 } },
    { tool: 'place', args: { target: 'tray' } },
  ]);
});

test('blind trusts the return code and fails the goal; a scripted retry loops and escalates early; R = 0 escalates at once', async () => {
  const blind = await runLoop(tools(), new StepThroughWorld(), new ScriptedPlanner(PLAN), 'g', opts({ blind: true }));
  assert.equal(blind.outcome, 'goal-not-met', 'both calls "succeeded"; the mug never moved');
  assert.deepEqual([blind.toolCalls, blind.failures.length], [2, 0]);
  const loop = await runLoop(tools(), new StepThroughWorld(), new ScriptedPlanner(PLAN), 'g', opts());
  assert.equal(loop.outcome, 'escalated');
  assert.match(loop.reason, /replan loop: "grasp_success" failed twice in a row on subtask 0/);
  const none = await runLoop(tools(), new StepThroughWorld(), new RecoveryPlanner(PLAN), 'g', opts({ replans: 0 }));
  assert.equal(none.outcome, 'escalated');
  assert.match(none.reason, /replan budget R = 0 exhausted/);
});

test("a weight-limit fault: the plan's two-step alternative, or escalation with the trace", async () => {
  const plan = parseScript(
    {
      steps: [
        {
          tool: 'pick',
          args: { target: 'red_bin' },
          on: { 'weight-limit': [{ tool: 'pick', args: { target: 'red_mug' } }] },
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
  assert.equal(r.failures[0]!.label, 'weight-limit');
  assert.equal(r.failures[0]!.class, 'permanent');
  assert.deepEqual(r.failures[0]!.observed, { 'gripper.load_N': 294.3, 'gripper.payload_limit_N': 20 });
  const noAlt = await runLoop(
    tools(),
    new StepThroughWorld(),
    new ScriptedPlanner(parseScript({ steps: [{ tool: 'pick', args: { target: 'red_bin' } }] }, 'q.json')),
    'g',
    opts({ goal: 'gripper.holding == "red_bin"' }),
  );
  assert.equal(noAlt.outcome, 'escalated');
});

test('invalid arguments go back to the planner, never to the world, and are counted apart from replans', async () => {
  const world = new StepThroughWorld();
  const bad = { next: () => Promise.resolve({ kind: 'call' as const, call: { tool: 'pick', args: { target: 3 } } }) };
  const r = await runLoop(tools(), world, bad, 'g', opts());
  assert.equal(r.outcome, 'escalated');
  assert.equal(r.schemaErrors, 3);
  assert.equal(r.replans, 0);
  assert.deepEqual(world.calls, []);
  const entry = r.history.entries.find((e) => e.kind === 'schema-error');
  assert.ok(entry && entry.kind === 'schema-error' && /\/target must be string/.test(entry.errors[0]!));
  const unknown = await runLoop(
    tools(),
    world,
    { next: () => Promise.resolve({ kind: 'call' as const, call: { tool: 'grab', args: {} } }) },
    'g',
    opts({ maxSchemaErrors: 1 }),
  );
  assert.match(unknown.reason, /unknown tool "grab"/);
});

test('registration checks the vocabulary: fields, objects, types, skills, argument schemas, propositions', () => {
  const reg = (patch: object, file = 't.json') =>
    registerTools([{ def: parseTool({ ...(asset('pick.json') as object), ...patch }, file), file }], VOCAB);
  const bad = (patch: object, re: RegExp) =>
    assert.throws(
      () => reg(patch),
      (e: unknown) => e instanceof InputError && re.test(e.message),
      JSON.stringify(patch),
    );
  bad(
    { postconditions: [{ name: 'x', expr: 'gripper.widht_cm > 1.5' }] },
    /^t\.json: \$\.postconditions\[0\]\.expr: unknown field "gripper\.widht_cm" \(did you mean gripper\.width_cm\?\)/,
  );
  bad({ postconditions: [{ name: 'x', expr: 'objects.blue_mug.on == "tray"' }] }, /unknown object "blue_mug"/);
  bad({ postconditions: [{ name: 'x', expr: 'objects.red_mug.colour == "red"' }] }, /objects have no field "colour"/);
  bad(
    { postconditions: [{ name: 'x', expr: 'gripper.width_cm > "wide"' }] },
    /needs two numbers or two strings, got number and string/,
  );
  bad({ postconditions: [{ name: 'x', expr: 'gripper.width_cm + 1' }] }, /is a number, not a boolean/);
  bad({ postconditions: [{ name: 'x', expr: 'gripper.width_cm >' }] }, /not a CEL expression/);
  bad({ skill: 'grab' }, /\$\.skill: the world has no skill "grab"/);
  bad(
    { arguments: { type: 'object', properties: { target: { type: 'strng' } } } },
    /\$\.arguments: not a valid JSON Schema/,
  );
  bad(
    { failures: [{ when: 'gripper.force > 1', label: 'f', class: 'transient' }] },
    /\$\.failures\[0\]\.when: unknown field "gripper\.force"/,
  );
  assert.throws(() => parseTool({ name: 'pick' }, 'p.json'), /p\.json: \$: missing required field/);
  assert.throws(
    () => checkPropositions(['mug_on_tary'], VOCAB, 'spec'),
    /unknown proposition "mug_on_tary" \(did you mean mug_on_tray\?\)/,
  );
  const published = JSON.parse(
    readFileSync(new URL('../../../../docs/schemas/tool.schema.json', import.meta.url), 'utf8'),
  ) as unknown;
  assert.deepEqual(published, TOOL_SCHEMA);
});

test("the operator's stop cancels the running skill (its abort signal) and ends the loop as stopped; nothing is called after it", async () => {
  const world = new StepThroughWorld();
  const stop = new AbortController();
  let cancelled = false;
  let started!: () => void;
  const inCall = new Promise<void>((r) => {
    started = r;
  });
  const slow: typeof world.execute = (skill, args, o?: { signal?: AbortSignal }) =>
    new Promise((resolve, reject) => {
      world.calls.push({ skill, args });
      started();
      o?.signal?.addEventListener('abort', () => {
        cancelled = true;
        reject(new Error('cancelled'));
      });
      void resolve;
    });
  world.execute = slow;
  const calls: string[] = [];
  const running = runLoop(
    tools(),
    world,
    new ScriptedPlanner(PLAN),
    'g',
    opts({
      signal: stop.signal,
      onCall: (c) => calls.push(`${c.tool}:${c.preconditions.map((p) => `${p.name}=${p.pass}`).join(',')}`),
    }),
  );
  await inCall; // the stop comes while the world runs the call
  stop.abort(new Error('stopped by the operator'));
  const r = await running;
  assert.equal(r.outcome, 'stopped');
  assert.match(r.reason, /^stopped by the operator; the running pick was cancelled$/);
  assert.ok(cancelled, 'the skill saw its abort signal');
  assert.equal(world.calls.length, 1);
  assert.deepEqual(calls, ['pick:gripper_empty=true,target_in_workspace=true']);
  // Stopped before it starts: nothing runs at all.
  const before = new AbortController();
  before.abort('stopped by the operator');
  const idle = new StepThroughWorld();
  const r2 = await runLoop(tools(), idle, new ScriptedPlanner(PLAN), 'g', opts({ signal: before.signal }));
  assert.equal(r2.outcome, 'stopped');
  assert.equal(idle.calls.length, 0);
});
