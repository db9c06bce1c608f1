// The mission console's model, without a DOM: a plan bound to its inputs, the buttons each state allows, how a run's
// end is labelled, where a refused plan's error is shown, what survives a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MissionLive, MissionPlanResult } from '../../main/contract/api.js';
import {
  adopted,
  changedSincePlan,
  controls,
  ended,
  errorField,
  explanationLines,
  initialModel,
  isNewEvent,
  latchChanged,
  parseStart,
  planRequest,
  planShown,
  planSpent,
  planStarted,
  readSaved,
  stateChanged,
  staleText,
  withFields,
  type MissionEnd,
  type PlanInputs,
} from '../../renderer/src/console/model.js';

const inputs: PlanInputs = {
  world: 'pointmaze-medium',
  models: 'pointmaze-medium',
  'map graph': '',
  spec: 'G F e1 & G F e3',
  regions: '{}',
  start: '',
  'dataset steps': '20000',
  seed: '0',
  method: 'sagas',
};

const plan = (session: string, status: 'ok' | 'infeasible' = 'ok'): MissionPlanResult =>
  ({
    session,
    plan: { status, prefix: [0, 1], suffix: [1], cost: { objective: 2 } },
    plan_sha: 'ab'.repeat(32),
    report: { anchors: 2, unavailable: [], nodes: 10 },
  }) as unknown as MissionPlanResult;

const end = (outcome: MissionEnd['outcome'], failureMode: string | null = null): MissionEnd =>
  ({
    outcome,
    failureMode,
    success: outcome === 'success',
    message: 'm',
    steps: 5,
    trajectory: [],
  }) as unknown as MissionEnd;

test('a plan is bound to the inputs it was made from: editing one makes it stale and Run waits', () => {
  const m = planShown(planStarted(initialModel), plan('s1'), inputs);
  assert.deepEqual(changedSincePlan(m, inputs), []);
  assert.equal(controls(m, false).run.disabled, false);
  const edited = { ...inputs, spec: 'F e2', seed: '1' };
  assert.deepEqual(changedSincePlan(m, edited), ['spec', 'seed']);
  assert.match(staleText(changedSincePlan(m, edited)), /^Plan is stale: spec, seed changed/);
  const c = controls(m, true);
  assert.equal(c.run.disabled, true);
  assert.equal(c.run.title, 'The plan is stale: plan again');
  assert.equal(controls(planShown(initialModel, plan('s2', 'infeasible'), inputs), false).run.disabled, true);
});

test('a new plan drops the one on the screen: nothing runs and nothing old is drawn while it builds', () => {
  const shown = planShown(initialModel, plan('s1'), inputs);
  assert.equal(shown.drawnSession, 's1');
  const building = planStarted(shown);
  assert.equal(building.planned, null);
  assert.equal(building.drawnSession, null, 'the earlier plan is no longer drawn');
  assert.equal(building.planSeq, shown.planSeq + 1, 'an answer to the earlier request is dropped');
  assert.equal(controls(building, false).run.disabled, true);
});

test('the E-STOP latch and a running mission disable Run; Pause and Stop follow the run state', () => {
  const m = planShown(initialModel, plan('s1'), inputs);
  const latched = controls(latchChanged(m, true), false);
  assert.equal(latched.run.disabled, true);
  assert.match(latched.run.title, /E-STOP is latched/);
  const running = controls(stateChanged(m, 'running'), false);
  assert.deepEqual(
    [running.run.disabled, running.plan.disabled, running.pause.disabled, running.pause.label, running.stop.disabled],
    [true, true, false, 'Pause', false],
  );
  const paused = controls(stateChanged(m, 'paused'), false);
  assert.equal(paused.pause.label, 'Resume');
  const escalated = controls(stateChanged(m, 'escalated'), false);
  assert.deepEqual([escalated.pause.disabled, escalated.stop.disabled], [true, false]);
  assert.deepEqual(controls(m, false).state, { key: 'idle', label: 'idle' });
});

test('a run that ended is labelled by how it ended, not "finished"', () => {
  const running = stateChanged(planShown(initialModel, plan('s1'), inputs), 'running');
  const label = (e: MissionEnd): string => controls(ended(running, e), false).state.label;
  assert.equal(label(end('success')), 'succeeded');
  assert.equal(label(end('failed', 'escalated')), 'failed (escalated)');
  assert.equal(label(end('failed', 'aborted')), 'failed (aborted)');
  assert.equal(label(end('failed')), 'failed');
  assert.equal(label(end('safety')), 'safety stop');
  assert.equal(controls(ended(running, end('failed', 'escalated')), false).state.key, 'finished');
  // A run stopped (or E-stopped) before its end event keeps that state.
  const stopped = ended(stateChanged(running, 'stopped'), end('stopped'));
  assert.deepEqual(controls(stopped, false).state, { key: 'stopped', label: 'stopped' });
  // A new run forgets the last one's end.
  assert.equal(stateChanged(ended(running, end('success')), 'running').end, null);
});

test("a run joined from another window is shown, and this window's plan is kept only when the run executes it", () => {
  const mine = planShown(initialModel, plan('s1'), inputs);
  const live = { run: 'r1', seq: 4, session: 's1', state: 'running', automaton: {} } as unknown as MissionLive;
  const own = adopted(mine, live);
  assert.equal(own.own, true);
  assert.equal(own.model.planned?.session, 's1');
  const other = adopted(mine, { ...live, session: 's9' });
  assert.equal(other.own, false);
  assert.equal(other.model.planned, null);
  assert.equal(other.model.planInputs, null);
  assert.equal(isNewEvent(other.model, { run: 'r1', seq: 4 }), false, 'the snapshot holds it');
  assert.equal(isNewEvent(other.model, { run: 'r1', seq: 5 }), true);
  assert.equal(isNewEvent(other.model, { run: 'r2', seq: 9 }), false);
  assert.equal(planSpent(mine).planned, null);
});

test('a refused plan is shown at the field it is about', () => {
  assert.equal(errorField({ code: 'invalid-spec', path: '$.spec' }), 'spec');
  assert.equal(errorField({ code: 'budget', path: '$.spec' }), 'spec');
  assert.equal(errorField({ code: 'invalid-regions', path: '$.regions[0].center' }), 'regions');
  assert.equal(errorField({ code: 'invalid-input', path: '$.world' }), null);
  assert.equal(errorField({}), null);
});

test('the start parses as "x,y" metres; empty lets the seed choose', () => {
  assert.deepEqual(parseStart(' 4, 20.5 '), [4, 20.5]);
  assert.equal(parseStart(''), undefined);
  assert.equal(parseStart('4;20'), null);
  assert.equal(parseStart('x,y'), null);
});

test('a maze plans from a dataset and a seed; a robot from where it is, on its map graph', () => {
  assert.deepEqual(planRequest('j', inputs, false, [1, 2]), {
    job: 'j',
    world: 'pointmaze-medium',
    models: 'pointmaze-medium',
    spec: inputs.spec,
    regions: '{}',
    start: [1, 2],
    method: 'sagas',
    datasetSteps: 20000,
    seed: 0,
  });
  assert.deepEqual(planRequest('j', { ...inputs, world: 'turtle', 'map graph': 'g.json' }, true, undefined), {
    job: 'j',
    world: 'turtle',
    graph: 'g.json',
    spec: inputs.spec,
    regions: '{}',
    method: 'sagas',
  });
});

test('what storage keeps is read leniently and written with the fields and the last plan', () => {
  assert.deepEqual(readSaved(null), {});
  assert.deepEqual(readSaved('not json'), {});
  assert.deepEqual(readSaved('[1]'), {});
  assert.deepEqual(readSaved('{"fields":{"seed":3}}'), {}, 'a field that is not text is no saved field set');
  const saved = withFields({}, { seed: '3' }, { session: 's1', inputs });
  assert.deepEqual(readSaved(JSON.stringify(saved)), saved);
  assert.deepEqual(withFields(saved, { seed: '4' }, null), { fields: { seed: '4' }, last: saved.last });
});

test('an infeasible plan lists why: the conflicting conjuncts, the smallest failing part, the regions and the cut', () => {
  assert.equal(explanationLines(undefined), null);
  const two = explanationLines({
    conjuncts: ['F c', 'F a', 'G !b'],
    conflict: [1, 2],
    minimal: true,
    contradiction: false,
    core: 'F a & G !b',
    regions: [{ region: 'b', why: 'forbidden', node: 'nb', at: [1, 0], cut: ['nb'] }],
    checks: 7,
    message: '…',
  })!;
  assert.equal(
    two.title,
    'Why: these 2 conjuncts cannot hold together on this graph (dropping any one makes the mission feasible)',
  );
  assert.deepEqual(two.items, [
    'conjunct 2: F a',
    'conjunct 3: G !b',
    '"b" lies on every path, where the specification forbids it: relax that rule, or add a way around; a plan would enter it at nb (1, 0); the cut: nb',
  ]);
  const one = explanationLines({
    conjuncts: ['F c', 'F (c & x)'],
    conflict: [1],
    minimal: false,
    contradiction: false,
    core: 'F x',
    regions: [{ region: 'x', why: 'labelled-nowhere' }],
    checks: 64,
    bound: 'stopped after 64 planner searches',
    message: '…',
  })!;
  assert.equal(one.title, 'Why: this conjunct cannot be met on this graph (not proven minimal)');
  assert.deepEqual(one.items, [
    'conjunct 2: F (c & x) (alone)',
    'the smallest part that fails: F x',
    '"x" labels no node of the graph: label one, or fix the name',
    'partial: stopped after 64 planner searches',
  ]);
  const contradiction = explanationLines({
    conjuncts: ['F e2', 'G !e2'],
    conflict: [0, 1],
    minimal: true,
    contradiction: true,
    core: 'F e2 & G !e2',
    regions: [],
    checks: 3,
    message: '…',
  })!;
  assert.equal(contradiction.title, 'Why: these 2 conjuncts contradict each other: no graph can meet them together');
});
