/**
 * Conditions that read the call's arguments (`args`) and the state before the call (`pre`): typing, evaluation,
 * evidence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTool, registerTools, argumentTypes } from '../../../main/core/loop/tools.js';
import { checkCondition, VocabularyError } from '../../../main/core/loop/vocabulary.js';
import { holds, observed } from '../../../main/core/loop/conditions.js';
import { runLoop, type LoopOptions } from '../../../main/core/loop/loop.js';
import { ScriptedPlanner, parseScript } from '../../../main/core/loop/planners.js';
import { InputError } from '../../../main/core/input/json.js';
import { StepThroughWorld, VOCAB, asset, tools } from './step-world.js';

const PICK = asset('pick.json') as Record<string, unknown>;
const reg = (patch: object): unknown =>
  registerTools([{ def: parseTool({ ...PICK, ...patch }, 't.json'), file: 't.json' }], VOCAB);
const bad = (patch: object, re: RegExp): void => {
  assert.throws(
    () => reg(patch),
    (e: unknown) => e instanceof InputError && re.test(e.message),
    JSON.stringify(patch),
  );
};
const post = (expr: string): object => ({ postconditions: [{ name: 'x', expr }] });

test('registration types args.<name> from the argument schema and pre.<field> from the vocabulary', () => {
  // The shipped place tool reads both, and indexes the objects map by a field of pre.
  assert.doesNotThrow(() => tools());
  for (const expr of [
    'args.target == "red_mug" && args.approach_dz < 0.0',
    'objects[args.target].on == "gripper"',
    'pre.objects[args.target].on != objects[args.target].on',
    'pre.gripper.width_cm > gripper.width_cm',
    'objects["red_mug"].mass_kg < 1.0',
    '!has(args.approach_dz) || args.approach_dz <= 0.0',
  ])
    assert.doesNotThrow(() => reg(post(expr)), expr);
  assert.doesNotThrow(() =>
    reg({ failures: [{ when: 'pre.gripper.holding == args.target', label: 'already-held', class: 'permanent' }] }),
  );

  bad(
    post('args.targt == "tray"'),
    /^t\.json: \$\.postconditions\[0\]\.expr: unknown argument "targt" in args\.targt \(did you mean target\?\); pick takes target, approach_dz$/,
  );
  bad(
    { preconditions: [{ name: 'p', expr: 'pre.gripper.holding == ""' }] },
    /^t\.json: \$\.preconditions\[0\]\.expr: "pre\.gripper\.holding": pre \(the state observed just before the call\) is bound in postconditions and failure rules only; a precondition is checked on that state already, so read it directly, as gripper\.holding$/,
  );
  bad(
    post('pre.gripper.widht_cm > 1.0'),
    /unknown field "pre\.gripper\.widht_cm" \(did you mean pre\.gripper\.width_cm\?\)/,
  );
  bad(
    post('pre.objects.red_mgu.on == "tray"'),
    /unknown object "red_mgu" in pre\.objects\.red_mgu\.on \(did you mean red_mug\?\)/,
  );
  bad(post('args.target > 1'), /needs two numbers or two strings, got string and number/);
  bad(post('args.approach_dz == "low"'), /== compares a number with a string/);
  bad(
    post('objects[args.approach_dz].on == "tray"'),
    /objects\[args\.approach_dz\]: objects are indexed by name \(a string\); args\.approach_dz is a number/,
  );
  bad(
    post('objects[args.target].colour == "red"'),
    /objects have no field "colour" \(objects\[args\.target\]\.colour\); they have on, mass_kg/,
  );
  bad(
    post('objects[args.target] == "tray"'),
    /"objects\[args\.target\]" is an object; read one of its fields \(on, mass_kg, in_workspace\)/,
  );
  bad(post('objects == "tray"'), /"objects" is the map of objects/);
  bad(post('gripper[args.target] == "x"'), /gripper\[args\.target\]: only the objects map can be indexed/);
  bad(
    post('objects["blue_mug"].on == "tray"'),
    /unknown object "blue_mug" in objects\["blue_mug"\]; the world has red_mug/,
  );
  bad(post('objects[1].on == "tray"'), /an index must be an object name in quotes or a string field or argument/);
  bad(post('args.target.name == "x"'), /args\.target\.name: argument "target" is a string and has no fields/);
  bad(post('has(gripper.holding)'), /has\(\) tests whether an optional argument was given/);
  bad(
    {
      arguments: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
      preconditions: [],
      failures: [],
      postconditions: [{ name: 'x', expr: 'args.tags == "a"' }],
    },
    /args\.tags: argument "tags" is of type "array"; conditions read string, number, integer and boolean arguments/,
  );
  bad(
    { arguments: { type: 'object' }, postconditions: [{ name: 'x', expr: 'args.target == "a"' }] },
    /unknown argument "target" in args\.target; pick takes no arguments/,
  );
  // Outside a tool (a goal), neither is bound.
  assert.throws(
    () => checkCondition('args.target == "tray"', VOCAB),
    (e: unknown) => e instanceof VocabularyError && /bound only in a tool's conditions, not in a goal/.test(e.message),
  );
  assert.throws(
    () => checkCondition('pre.gripper.holding == ""', VOCAB),
    /bound in postconditions and failure rules only, not in a goal/,
  );
  assert.deepEqual(
    argumentTypes({
      properties: {
        a: { type: 'integer' },
        b: { enum: ['x', 'y'] },
        c: { type: 'boolean' },
        d: { type: ['string', 'null'] },
      },
    }),
    { a: 'number', b: 'string', c: 'bool', d: { unsupported: 'of type ["string","null"]' } },
  );
});

test('evaluation: a missing key or a missing optional argument is a precise error, never a crash; evidence holds the bound values', () => {
  const state = { gripper: { holding: '' }, objects: { red_mug: { on: 'tray' } } };
  assert.equal(holds('objects[args.target].on == "tray"', state, { args: { target: 'red_mug' } }), true);
  assert.equal(
    holds('objects[args.target].on == "tray"', state, { args: { target: 'blue_mug' } }),
    'cannot evaluate "objects[args.target].on == "tray"": objects has no key "blue_mug" (objects[args.target] with args.target = "blue_mug")',
  );
  assert.match(
    holds('args.approach_dz < 0.0', state, { args: { target: 'x' } }) as string,
    /the call has no argument "approach_dz" \(it is optional; test it with has\(args\.approach_dz\)\)/,
  );
  // && short-circuits past the missing key when the guard is false.
  const place = 'pre.gripper.holding != "" && objects[pre.gripper.holding].on == args.target';
  assert.equal(holds(place, state, { args: { target: 'tray' }, pre: { gripper: { holding: '' } } }), false);
  assert.equal(holds(place, state, { args: { target: 'tray' }, pre: { gripper: { holding: 'red_mug' } } }), true);
  assert.deepEqual(observed(place, state, { args: { target: 'tray' }, pre: { gripper: { holding: 'red_mug' } } }), {
    'pre.gripper.holding': 'red_mug',
    'objects.red_mug.on': 'tray',
    'args.target': 'tray',
  });
  assert.deepEqual(observed('objects[args.target].on == "tray"', state, { args: { target: 'blue mug' } }), {
    'objects["blue mug"].on': null,
    'args.target': 'blue mug',
  });
});

const opts = (o: Partial<LoopOptions> = {}): LoopOptions => ({
  replans: 0,
  goal: 'objects.red_mug.on == "tray"',
  clock: () => 1,
  ...o,
});
const DZ = { target: 'red_mug', approach_dz: -0.02 };

test('place checks that the held object ended on the target: evidence names the bound values it read', async () => {
  const events: { kind: string; body: Record<string, unknown> }[] = [];
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: DZ },
        { tool: 'place', args: { target: 'tray' } },
      ],
    },
    'p.json',
  );
  const ok = await runLoop(
    tools(),
    new StepThroughWorld(),
    new ScriptedPlanner(plan),
    'g',
    opts({ onEvent: (kind, body) => events.push({ kind, body }) }),
  );
  assert.equal(ok.outcome, 'success', ok.reason);
  const v = events.find((e) => e.kind === 'verifier_result' && e.body['postcondition'] === 'placed_on_target')!;
  assert.deepEqual(
    [v.body['pass'], v.body['observed']],
    [true, { 'pre.gripper.holding': 'red_mug', 'objects.red_mug.on': 'tray', 'args.target': 'tray' }],
  );

  // The gripper opened (the return code and gripper_released say fine) but the mug fell on the table.
  const world = new StepThroughWorld();
  world.slip = true;
  const r = await runLoop(tools(), world, new ScriptedPlanner(plan), 'g', opts());
  assert.equal(r.outcome, 'escalated');
  const fr = r.failures[0]!;
  assert.deepEqual(
    [fr.tool, fr.violated, fr.stage, fr.label, fr.error],
    ['place', 'placed_on_target', 'postcondition', 'placed_on_target-violated', undefined],
  );
  assert.deepEqual(fr.observed, {
    'pre.gripper.holding': 'red_mug',
    'objects.red_mug.on': 'table',
    'args.target': 'tray',
  });
});

test('a condition indexing the objects map by an argument that names no object: the evaluation error in the failure record, labelled missing-object', async () => {
  const place = asset('place.json') as Record<string, unknown>;
  const check = parseTool(
    {
      ...place,
      name: 'place_checked',
      postconditions: [{ name: 'target_free', expr: 'objects[args.target].on != "gripper"' }],
    },
    'c.json',
  );
  const ts = registerTools(
    [
      { def: parseTool(asset('pick.json'), 'pick.json'), file: 'pick.json' },
      { def: check, file: 'c.json' },
    ],
    VOCAB,
  );
  const events: { kind: string; body: Record<string, unknown> }[] = [];
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: DZ },
        { tool: 'place_checked', args: { target: 'blue_tray' } },
      ],
    },
    'p.json',
  );
  const r = await runLoop(
    ts,
    new StepThroughWorld(),
    new ScriptedPlanner(plan),
    'g',
    opts({ onEvent: (kind, body) => events.push({ kind, body }) }),
  );
  assert.equal(r.outcome, 'escalated');
  const fr = r.failures[0]!;
  assert.deepEqual(
    [fr.tool, fr.violated, fr.stage, fr.label, fr.class],
    ['place_checked', 'target_free', 'postcondition', 'missing-object', 'permanent'],
  );
  assert.match(
    fr.error!,
    /^cannot evaluate "objects\[args\.target\]\.on != "gripper"": objects has no key "blue_tray" \(objects\[args\.target\] with args\.target = "blue_tray"\)$/,
  );
  assert.deepEqual(fr.observed, { 'objects.blue_tray.on': null, 'args.target': 'blue_tray' });
  const v = events.find((e) => e.kind === 'verifier_result' && e.body['tool'] === 'place_checked')!;
  assert.equal(v.body['pass'], false);
  assert.match(v.body['error'] as string, /objects has no key "blue_tray"/);
  assert.ok(events.some((e) => e.kind === 'failure_record' && typeof e.body['error'] === 'string'));
});

test('pre is observed just before the skill runs, not carried over from the previous call', async () => {
  const world = new StepThroughWorld();
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: DZ },
        { tool: 'place', args: { target: 'tray' } },
      ],
    },
    'p.json',
  );
  const r = await runLoop(tools(), world, new ScriptedPlanner(plan), 'g', opts());
  assert.equal(r.outcome, 'success', r.reason);
  // One at the start, then one before and one after each of the two calls.
  assert.equal(world.observations, 5);
});

test('a condition too long or nested too deep for the CEL parser is refused as a VocabularyError, not a stack overflow', () => {
  const deep = '('.repeat(2_000) + 'gripper.width_cm > 0' + ')'.repeat(2_000);
  assert.throws(
    () => checkCondition(deep, VOCAB),
    (e: unknown) =>
      e instanceof VocabularyError && /nests brackets deeper than 64 levels \(at character 65\)/.test(e.message),
  );
  const long = Array.from({ length: 2_000 }, () => 'gripper.width_cm > 0').join(' && ');
  assert.throws(
    () => checkCondition(long, VOCAB),
    (e: unknown) =>
      e instanceof VocabularyError && /is 47996 characters long; a condition is at most 4096/.test(e.message),
  );
  // Within the limits, nesting and chains still check and evaluate.
  const nested = '('.repeat(60) + 'gripper.width_cm > 0' + ')'.repeat(60);
  checkCondition(nested, VOCAB);
  assert.equal(holds(nested, { gripper: { width_cm: 1 } }), true);
  checkCondition('"' + '('.repeat(100) + '" != objects.red_mug.on', VOCAB);
});

test('a precondition on an object that is not there is labelled missing-object (permanent, the object named), not by a rule that reads the rest of the state (wrong-object)', async () => {
  // The shipped pick's last rule, gripper.holding != args.target, holds on an empty hand too: it must not label this.
  const plan = parseScript(
    {
      steps: [
        { tool: 'pick', args: { target: 'ghost' } },
        { tool: 'place', args: { target: 'tray' } },
      ],
    },
    'p.json',
  );
  const r = await runLoop(tools(), new StepThroughWorld(), new ScriptedPlanner(plan), 'g', opts({ replans: 2 }));
  assert.equal(r.outcome, 'escalated');
  assert.equal(r.toolCalls, 0, 'nothing moved');
  const fr = r.failures[0]!;
  assert.deepEqual(
    [fr.tool, fr.stage, fr.violated, fr.label, fr.class],
    ['pick', 'precondition', 'target_in_workspace', 'missing-object', 'permanent'],
  );
  assert.equal(
    fr.reason,
    'there is no "ghost" in objects in the observed state: the call names something the world does not have',
  );
  assert.match(fr.error!, /objects has no key "ghost"/);
  assert.match(r.reason, /^permanent failure "missing-object" of pick: there is no "ghost" in objects/);
  // An optional argument not given is not a missing object: still an evaluation error, the rules asked as before.
  const place = asset('place.json') as Record<string, unknown>;
  const check = parseTool(
    {
      ...place,
      name: 'place_force',
      failures: [],
      postconditions: [{ name: 'force', expr: 'args.max_force_N < 1.0' }],
    },
    'c.json',
  );
  const ts = registerTools(
    [
      { def: parseTool(asset('pick.json'), 'pick.json'), file: 'pick.json' },
      { def: check, file: 'c.json' },
    ],
    VOCAB,
  );
  const r2 = await runLoop(
    ts,
    new StepThroughWorld(),
    new ScriptedPlanner(
      parseScript(
        {
          steps: [
            { tool: 'pick', args: DZ },
            { tool: 'place_force', args: { target: 'tray' } },
          ],
        },
        'p.json',
      ),
    ),
    'g',
    opts(),
  );
  assert.deepEqual(
    r2.failures.map((f) => [f.violated, f.label]),
    [['force', 'evaluation-error']],
  );
});
