// The Graph panel's model: the status line, the plan's step count (as the Mission tab counts it),
// Find's errors, spec errors, requests that a newer one overrides, and where an audit node link lands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GraphScene, PlanView } from '../../main/contract/api.js';
import { planSteps } from '../../main/contract/plan-steps.js';
import {
  DrawnScene,
  Requests,
  describePlan,
  findError,
  initialStates,
  liveFrame,
  missionViewOf,
  openError,
  ownSceneLanding,
  statusLine,
} from '../../renderer/src/graph/panel-model.js';

const scene = (ids: string[]): GraphScene =>
  ({
    world: 'maze',
    nodes: ids.map((id) => ({ id, x: 0, y: 0, kind: 'node', labels: [], soft: {} })),
    edges: [[0, 1, 1]],
    propositions: [],
    bounds: { minX: 0, minY: 0, maxX: 1, maxY: 1 },
  }) as unknown as GraphScene;
const plan = (prefix: string[], suffix: string[]): PlanView => ({
  status: 'ok',
  prefix,
  suffix,
  prefixStates: prefix.map(() => 0),
  suffixStates: suffix.map(() => 1),
  cost: { prefix: 2.5, suffix: 1, objective: 1.75 },
});

test('a plan’s steps are its moves: the prefix counts one fewer than its nodes, the suffix each of its nodes', () => {
  assert.deepEqual(planSteps({ prefix: ['s', 'a', 'b'], suffix: ['c', 'b'] }), { prefix: 2, suffix: 2 });
  assert.deepEqual(planSteps({ prefix: ['s'], suffix: ['s'] }), { prefix: 0, suffix: 1 });
  assert.deepEqual(planSteps({ prefix: [], suffix: [] }), { prefix: 0, suffix: 0 });
  // The Graph tab says what the Mission tab says ("prefix 2 waypoints, suffix 2").
  assert.equal(
    describePlan(plan(['s', 'a', 'b'], ['c', 'b'])),
    'plan: prefix 2 steps (cost 2.50), suffix 2 steps (cost 1.00)',
  );
  assert.equal(describePlan({ ...plan(['s', 'a'], ['s']), cost: undefined }), 'plan: prefix 1 step, suffix 1 step');
  assert.equal(describePlan(null), '');
  assert.equal(
    describePlan({ ...plan([], []), status: 'infeasible', reason: { kind: 'unreachable', message: 'no way' } }),
    'infeasible: no way',
  );
  assert.equal(describePlan({ ...plan([], []), status: 'infeasible' }), 'infeasible: no plan');
});

test('the status line names where a scene came from, its size and its plan', () => {
  const s = { scene: scene(['a', 'b']), plan: plan(['a', 'b'], ['a']), automaton: null, source: 'file' as const };
  assert.equal(
    statusLine(s, 'from the mission console'),
    'from the mission console · maze: 2 nodes, 1 edges · plan: prefix 1 step (cost 2.50), suffix 1 step (cost 1.00)',
  );
  assert.equal(statusLine({ ...s, plan: null }), 'maze: 2 nodes, 1 edges');
  assert.equal(missionViewOf('latent'), 'latent');
  assert.equal(missionViewOf('file'), 'console');
  assert.equal(missionViewOf(null), 'console');
  assert.equal(liveFrame('console') && liveFrame('latent'), true);
  assert.equal(liveFrame('product') || liveFrame('file') || liveFrame(undefined), false);
  const automaton = {
    formula: 'G F a',
    states: [
      { id: 0, initial: true, accepting: false },
      { id: 1, initial: false, accepting: true },
    ],
    edges: [],
  };
  assert.deepEqual(initialStates(automaton), [0]);
  assert.deepEqual(initialStates(null), []);
});

test('Find and Open say what is wrong', () => {
  assert.equal(findError(' x ', null), 'Find: no graph is shown to look for "x" in.');
  assert.equal(
    findError('zz', scene(['a', 'b', 'c', 'd'])),
    'Find: no node "zz" in this graph (4 nodes; ids such as a, b, c).',
  );
  assert.equal(findError('zz', scene([])), 'Find: no node "zz" in this graph (0 nodes).');
  assert.deepEqual(openError('bad spec', { path: '$.spec', line: 1, column: 4 }), {
    text: 'bad spec (line 1, column 4)',
    badSpec: true,
  });
  assert.deepEqual(openError('no file', { path: '$.path', line: 3 }), { text: 'no file', badSpec: false });
  assert.deepEqual(openError('down', null), { text: 'down', badSpec: false });
});

test('a newer request or Cancel makes older answers ignored; the same scene again is not redrawn', () => {
  const r = new Requests();
  const first = r.begin();
  const second = r.begin();
  assert.equal(r.current(first), false);
  assert.equal(r.current(second), true);
  r.cancel();
  assert.equal(r.current(second), false);
  const d = new DrawnScene();
  const a = scene(['a', 'b']);
  assert.equal(d.needsDraw(a, null), true);
  assert.equal(d.needsDraw(scene(['a', 'b']), a), false, 'the same graph planned again keeps its drawing');
  assert.equal(d.needsDraw(a, null), true, 'the view holds another scene');
  assert.equal(d.needsDraw(scene(['a', 'c']), a), true);
});

test('an audit node link lands on the live mission when it is that run, else on the run’s own scene', () => {
  const own = { scene: scene(['a', 'b']) };
  const live = scene(['a', 'b', 'x']);
  const base = {
    id: 'x',
    own,
    auditRun: 'run12345678',
    mission: { auditRun: 'run12345678', scene: live },
    shown: { source: 'console' as const, auditRun: null, scene: live },
  };
  assert.deepEqual(ownSceneLanding(base), { to: 'mission' });
  const other = ownSceneLanding({ ...base, mission: { auditRun: 'another', scene: live } });
  assert.deepEqual(other, {
    to: 'own',
    redraw: true,
    note: 'audit run run12345 (from the audit log)',
    error:
      "x cannot be shown in audit run run12345's scene: the audit log does not record where graph nodes are, the replay places only the nodes of the run's plans, and x is on none of them.",
  });
  const again = ownSceneLanding({
    ...base,
    id: 'a',
    mission: { auditRun: null, scene: null },
    shown: { source: 'other', auditRun: 'run12345678', scene: own.scene },
  });
  assert.deepEqual(again, { to: 'own', redraw: false, note: 'audit run run12345 (from the audit log)', error: null });
});
