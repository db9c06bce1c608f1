import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveMission } from '../../main/app/live-mission.js';
import type { GraphScene, MissionEvent, PlanView } from '../../main/contract/api.js';

const scene = { world: 'w', nodes: [], edges: [] } as unknown as GraphScene;
const plan = (prefix: string[]): PlanView => ({ status: 'ok', prefix, suffix: ['b'] }) as unknown as PlanView;
const tick = (seq: number, t: number): MissionEvent => ({
  topic: 'mission.tick',
  run: 'r',
  seq,
  t,
  x: t,
  y: 0,
  states: [0],
  labels: [],
  target: null,
  progress: { stream: 'prefix', index: 0, length: 1, traversals: 0, rounds: 1 },
  distance_m: null,
  speed_mps: null,
  elapsed_s: t / 10,
});

test('a live mission folds its numbered events into the snapshot a joining window needs', () => {
  const live = new LiveMission(
    {
      run: 'r',
      session: 's',
      scene,
      plan: plan(['a']),
      plan_sha: 'sha-served',
      automaton: { formula: 'G F b', states: [], edges: [] },
    },
    10,
    3,
  );
  live.recorded('audit-1');
  for (let i = 1; i <= 25; i++) live.record(tick(i, i));
  live.record(tick(3, 99)); // an event already folded in: ignored
  live.record({ ...tick(26, 26), run: 'other' }); // another run's: ignored
  let s = live.snapshot();
  assert.equal(s.seq, 25);
  assert.equal(s.tickCount, 25);
  assert.ok(s.ticks.length <= 10, `bounded: ${s.ticks.length}`);
  const ts = s.ticks.map((k) => k.t);
  assert.deepEqual(
    ts,
    [...ts].sort((a, b) => a - b),
    'oldest first',
  );
  assert.equal(ts.at(-1), 25, 'the recent past at full resolution');
  assert.equal(ts[0], 1, 'the start of the trail stays');
  live.record({ topic: 'mission.event', run: 'r', seq: 26, t: 25, kind: 'checkpoint', detail: 'checkpoint c1' });
  for (let i = 0; i < 3; i++)
    live.record({ topic: 'mission.event', run: 'r', seq: 27 + i, t: 25, kind: 'replan', detail: `line ${i}` });
  assert.deepEqual([live.snapshot().shown_sha, live.snapshot().plan_sha], ['sha-served', 'sha-served']);
  live.record({
    topic: 'mission.replan',
    run: 'r',
    seq: 30,
    t: 25,
    plan: plan(['a', 'c']),
    plan_sha: 'sha-replan',
    scene,
  });
  live.record({ topic: 'mission.state', run: 'r', seq: 31, state: 'escalated' });
  live.record({
    topic: 'mission.escalation',
    run: 'r',
    seq: 32,
    escalation: { id: 'r:e1', reason: 'stuck', failures: [], options: ['abort', 'retry'] } as never,
  });
  s = live.snapshot();
  assert.deepEqual(
    s.events.map((e) => e.detail),
    ['line 0', 'line 1', 'line 2'],
    'the last lines',
  );
  assert.deepEqual(s.plan.prefix, ['a', 'c']);
  assert.equal(s.replannedAt, 25);
  assert.deepEqual(
    [s.shown_sha, s.plan_sha],
    ['sha-served', 'sha-replan'],
    'the plan shown and the plan in force, by their sha',
  );
  assert.equal(s.state, 'escalated');
  assert.equal(s.escalation?.id, 'r:e1');
  live.record({ topic: 'mission.state', run: 'r', seq: 33, state: 'estopped' });
  live.record({
    topic: 'mission.end',
    run: 'r',
    seq: 34,
    success: false,
    outcome: 'stopped',
    failureMode: 'stopped',
    message: 'emergency stop',
    steps: 25,
    auditRun: 'audit-1',
    trajectory: [0, 0, 1, 1],
  });
  s = live.snapshot();
  assert.equal(s.escalation, null, 'answered by the stop');
  assert.equal(s.state, 'estopped');
  assert.equal(s.end?.outcome, 'stopped');
  assert.equal(s.auditRun, 'audit-1');
  // A copy: a caller changing it changes nothing.
  s.ticks.length = 0;
  assert.ok(live.snapshot().ticks.length > 0);
});
