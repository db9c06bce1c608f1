// The tool loop tab's model, without a DOM: the fields kept across a reload, the buttons each run state allows, and
// how a finished loop is labelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActOptions } from '../../main/contract/api.js';
import {
  actControls,
  endSummary,
  exampleFields,
  readSavedFields,
  restoredFields,
  runRequest,
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
    planner: 'scripted',
    goal: 'at.shelf',
    task: 'go to the shelf',
    replans: '0',
    seed: '0', // not a number: the default
  });
  assert.equal(restoredFields(options, { planner: 'other' }).planner, 'recovery');
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
