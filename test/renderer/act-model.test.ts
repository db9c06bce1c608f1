// The tool loop tab's model, without a DOM: the fields kept across a reload, the buttons each run state allows, how a
// finished loop is labelled, and the rules' verdict beside each call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActOptions } from '../../main/contract/api.js';
import {
  actControls,
  endSummary,
  exampleFields,
  readSavedFields,
  refusedCall,
  restoredFields,
  ruleBadge,
  runRequest,
  verdictPlace,
  type RuleVerdict,
} from '../../renderer/src/act/model.js';

const options: ActOptions = {
  worlds: [
    { id: 'tabletop', title: 'Tabletop' },
    { id: 'ros2:lab.json', title: 'lab' },
  ],
  tools: [
    { id: 'shipped:tools', title: 'shipped' },
    { id: 'tools/lab', title: 'lab' },
  ],
  plans: [{ id: 'shipped:plans/warehouse.json', title: 'warehouse' }],
  rules: [
    { id: 'shipped:rules/warehouse.rules.json', title: 'warehouse rules' },
    { id: 'lab.rules.json', title: 'lab rules' },
  ],
  example: {
    world: 'tabletop',
    tools: 'shipped:tools',
    plan: 'shipped:plans/warehouse.json',
    goal: 'objects.red_bin.on == "shelf_c4"',
    task: 'move the bin',
  },
};

test('with nothing saved the tab opens on the example', () => {
  assert.deepEqual(restoredFields(options, null), exampleFields(options));
  assert.equal(readSavedFields(null), null);
  assert.equal(readSavedFields('{broken'), null);
  assert.equal(readSavedFields('"text"'), null);
});

test('the fields saved before a reload come back, where the options still offer them', () => {
  const saved = readSavedFields(
    JSON.stringify({
      world: 'ros2:lab.json',
      tools: 'tools/gone',
      plan: '',
      rules: 'lab.rules.json',
      planner: 'scripted',
      goal: 'at.shelf',
      task: 'go to the shelf',
      replans: '0',
      seed: 'x',
    }),
  );
  assert.deepEqual(restoredFields(options, saved), {
    world: 'ros2:lab.json',
    tools: 'shipped:tools', // the saved folder is gone: the example's
    plan: '', // no scripted plan is a choice
    rules: 'lab.rules.json',
    planner: 'scripted',
    goal: 'at.shelf',
    task: 'go to the shelf',
    replans: '0',
    seed: '0', // not a number: the default
  });
  assert.equal(restoredFields(options, { planner: 'other' }).planner, 'recovery');
  assert.equal(restoredFields(options, { rules: 'gone.rules.json' }).rules, '', 'a rules file gone: none');
  assert.equal(restoredFields(options, { rules: '' }).rules, '');
});

test('the run request carries the fields; an empty plan is left out', () => {
  const f = { ...exampleFields(options), plan: '', replans: '3', seed: '7' };
  assert.deepEqual(runRequest(f), {
    world: 'tabletop',
    tools: 'shipped:tools',
    planner: 'recovery',
    goal: options.example.goal,
    task: 'move the bin',
    replans: 3,
    seed: 7,
  });
});

test('the run request carries the rules file when one is chosen', () => {
  const f = { ...exampleFields(options), rules: 'shipped:rules/warehouse.rules.json' };
  assert.equal(runRequest(f).rules, 'shipped:rules/warehouse.rules.json');
  assert.equal(exampleFields(options).rules, '', 'the example runs without rules');
});

test('Run waits while a loop runs or the E-STOP is latched; a finished loop is labelled by its outcome', () => {
  assert.deepEqual(actControls(null, false, null), {
    run: { disabled: false, title: '' },
    stop: { disabled: true },
    state: { key: 'idle', label: 'idle' },
  });
  const running = actControls('running', false, null);
  assert.deepEqual([running.run.disabled, running.stop.disabled], [true, false]);
  assert.match(actControls(null, true, null).run.title, /E-STOP is latched/);
  assert.equal(actControls('finished', false, 'success').state.label, 'succeeded');
  assert.equal(actControls('finished', false, 'escalated').state.label, 'failed (escalated)');
  assert.equal(actControls('finished', false, 'goal-not-met').state.label, 'failed (goal not met)');
  assert.equal(actControls('finished', false, 'error').state.label, 'failed (error)');
  assert.equal(actControls('finished', false, null).state.label, 'finished', 'not known yet how it ended');
  assert.deepEqual(actControls('finished', false, 'escalated').state.key, 'finished');
});

test("a loop's end is summed up with its counts", () => {
  const s = endSummary(
    {
      topic: 'act.end',
      run: 'r',
      outcome: 'goal-not-met',
      reason: 'the bin is not there',
      toolCalls: 4,
      replans: 1,
      auditRun: null,
    },
    { ok: 3, failed: 1 },
  );
  assert.deepEqual(s, {
    outcome: 'GOAL-NOT-MET: the bin is not there',
    counts: '4 tool call(s) (3 passed, 1 failed), 1 replan(s)',
  });
});

const verdict = (v: Partial<RuleVerdict>): RuleVerdict => ({
  phase: 'predicted',
  ok: true,
  tool: 'pick',
  arguments: { target: 'red_bin' },
  letter: [],
  open: [],
  broken: [],
  observed: {},
  errors: [],
  rules: [
    { name: 'clear_the_bin_first', states: [0], viable: true },
    { name: 'place_after_pick', states: [0], viable: true },
  ],
  ...v,
});

test('a refusal is a call of its own; an allowing prediction waits for its call; the evidence goes to the call run', () => {
  const refused = verdict({
    ok: false,
    rule: 'clear_the_bin_first',
    ltl: 'G !lifting_loaded_bin',
    proposition: 'lifting_loaded_bin',
    letter: ['lifting_loaded_bin', 'picked'],
    broken: ['clear_the_bin_first'],
  });
  assert.equal(verdictPlace(refused), 'refused-call');
  assert.equal(verdictPlace(verdict({})), 'next-call');
  assert.equal(verdictPlace(verdict({ phase: 'observed' })), 'current-call');
  assert.equal(verdictPlace(verdict({ phase: 'observed', ok: false, rule: 'x', proposition: 'p' })), 'current-call');
  assert.deepEqual(refusedCall(refused), {
    tool: 'pick',
    args: { target: 'red_bin' },
    why: 'refused before anything moved: rule "clear_the_bin_first" (G !lifting_loaded_bin) on lifting_loaded_bin',
  });
  const b = ruleBadge(refused);
  assert.equal(b.status, 'refused');
  assert.equal(b.text, 'refused: rule "clear_the_bin_first" on lifting_loaded_bin');
  assert.deepEqual(b.lines, [
    'clear_the_bin_first: G !lifting_loaded_bin',
    'predicted (declared effect): lifting_loaded_bin, picked hold',
    'clear_the_bin_first: broken (states {0})',
    'place_after_pick: can hold (states {0})',
  ]);
});

test('the badge says ok, the pending obligations, or the broken rule on the evidence', () => {
  assert.deepEqual([ruleBadge(verdict({})).status, ruleBadge(verdict({})).text], ['ok', 'rules allow it']);
  const observed = verdict({ phase: 'observed', letter: [], obligations: [] });
  assert.deepEqual([ruleBadge(observed).status, ruleBadge(observed).text], ['ok', 'rules ok']);
  const pending = verdict({
    phase: 'observed',
    letter: ['picked'],
    obligations: ['place_after_pick: the next call must not make picked hold'],
    rules: [{ name: 'place_after_pick', states: [1, 2], viable: true }],
  });
  const p = ruleBadge(pending);
  assert.equal(p.status, 'pending');
  assert.equal(p.text, 'rules ok · 1 pending');
  assert.deepEqual(p.lines, [
    'observed (sensor evidence): picked hold',
    'place_after_pick: can hold (states {1, 2})',
    'pending: place_after_pick: the next call must not make picked hold',
  ]);
  const violated = ruleBadge(
    verdict({
      phase: 'observed',
      ok: false,
      rule: 'shelf_within_eight_calls',
      ltl: 'F[<=8] bin_on_shelf',
      proposition: 'bin_on_shelf',
      broken: ['shelf_within_eight_calls'],
      open: ['bin_on_shelf'],
      errors: [{ proposition: 'bin_on_shelf', error: 'no such key: red_bin' }],
      rules: [{ name: 'shelf_within_eight_calls', states: [], viable: false }],
    }),
  );
  assert.equal(violated.status, 'violated');
  assert.equal(violated.text, 'violated: rule "shelf_within_eight_calls" on bin_on_shelf');
  assert.ok(violated.lines.includes('shelf_within_eight_calls: broken (states {})'));
  assert.ok(violated.lines.includes('left open by the declaration, tried both ways: bin_on_shelf'));
  assert.ok(violated.lines.includes('bin_on_shelf could not be evaluated (counted false): no such key: red_bin'));
});
