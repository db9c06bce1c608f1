// Missions on a robot's map graph through the real Ros2World and the real mission workflow
// (app/map-mission.ts), over a simulated ROS 2 graph in this process (test/ros2-sim: Nav2's
// NavigateToPose and NavigateThroughPoses moving a MuJoCo body, odometry and TF). Every path the
// issue names: success, an aborted goal, a timed-out goal, a forbidden label, the operator's cancel,
// a lost connection, and escalation past the replanning budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runMapMission } from '../../main/app/map-mission.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { labelAt, parseRegions } from '../../main/core/world/regions.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';

const REGIONS = {
  regions: [
    { name: 'dock', kind: 'disk', center: [1, 1], radius: 0.6 },
    { name: 'shelf', kind: 'box', min: [6.6, 3.6], max: [8.4, 5.4] },
    { name: 'hazard', kind: 'box', min: [3.6, -0.4], max: [5.4, 3.4] },
  ],
};

/** A lab floor as `witness graph from-map` would give it: a 1 m lattice over 10 × 6 m, labels from the regions. */
function labGraph(): unknown {
  const set = parseRegions(REGIONS, 'regions.json');
  const nodes: { id: string; labels: string[]; pos: [number, number] }[] = [];
  const edges: { from: string; to: string; weight: number }[] = [];
  const id = (i: number, j: number): string => `n_${i}_${j}`;
  for (let i = 0; i <= 9; i++) for (let j = 0; j <= 5; j++) nodes.push({ id: id(i, j), labels: labelAt(set.regions, i, j), pos: [i, j] });
  for (let i = 0; i <= 9; i++) {
    for (let j = 0; j <= 5; j++) {
      for (const [di, dj] of [[1, 0], [0, 1], [1, 1], [1, -1]] as const) {
        const a = i + di, b = j + dj;
        if (a <= 9 && b >= 0 && b <= 5) edges.push({ from: id(i, j), to: id(a, b), weight: Math.hypot(di, dj) });
      }
    }
  }
  return { name: 'lab', nodes, edges, start: id(0, 0) };
}

function setup(o: { through?: boolean; goal_timeout_s?: number; min_speed_m_s?: number } = {}): { dir: string; world: string; graph: string; regions: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-ros2-map-'));
  writeFileSync(path.join(dir, 'regions.json'), JSON.stringify(REGIONS));
  writeFileSync(path.join(dir, 'graph.json'), JSON.stringify(labGraph()));
  writeFileSync(path.join(dir, 'robot.json'), JSON.stringify({
    version: 1, id: 'lab-sim', description: 'a Nav2 base in the lab (simulated ROS 2 graph)',
    connect_timeout_s: 2, staleness_s: 0.5, control_dt_s: 0.01,
    frames: { map: 'map', odom: 'odom', base: 'base_link' }, pose: { source: 'tf' }, tf: { staleness_s: 0.5 },
    regions: 'regions.json',
    sensors: { odom: { topic: '/odom', type: 'nav_msgs/msg/Odometry', fields: { 'base.vx': { path: 'twist.twist.linear.x' } } } },
    waypoints: {
      action: '/navigate_to_pose', ...(o.through !== false ? { through: { action: '/navigate_through_poses', max_poses: 8 } } : {}),
      poll_s: 0.01, goal_timeout_s: o.goal_timeout_s ?? 2, min_speed_m_s: o.min_speed_m_s ?? 1, cancel_timeout_s: 1, server_timeout_s: 0.5,
    },
  }));
  return { dir, world: `ros2:${path.join(dir, 'robot.json')}`, graph: path.join(dir, 'graph.json'), regions: path.join(dir, 'regions.json') };
}

const PATROL = 'G F shelf & G F dock & G !hazard';
const inHazard = (x: number, y: number): boolean => x >= 3.6 && x <= 5.4 && y >= -0.4 && y <= 3.4;

async function withGraph<T>(start: [number, number], body: (g: SimulatedRos2Graph) => Promise<T>): Promise<T> {
  const g = await SimulatedRos2Graph.create({ start });
  try {
    return await body(g);
  } finally {
    g.stop();
  }
}

test('a patrol on the lab map runs through NavigateThroughPoses, never enters the hazard, and is recorded like an embedded mission', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas', audit, operator: 'tester', open: g.open });
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failureMode, null);
    assert.ok(g.goals.some((p) => p.length > 1), 'runs of waypoints went as one NavigateThroughPoses goal');
    assert.ok(g.fake.log.some((l) => l.startsWith('goal /navigate_through_poses')));
    // The realised trajectory: it started at the robot's pose, visited both, never the hazard.
    const t = r.result.trajectory;
    assert.ok(Math.hypot(t[0]! - 0.2, t[1]! - 0.3) < 0.05, 'the start is the robot\'s pose');
    for (let i = 0; i < t.length; i += 2) assert.ok(!inHazard(t[i]!, t[i + 1]!), `sample ${i / 2} at (${t[i]}, ${t[i + 1]}) is in the hazard`);
    assert.ok(r.result.labels.some((l) => l.includes('shelf')) && r.result.labels.some((l) => l.includes('dock')));
    assert.equal(r.result.events.filter((e) => e.kind === 'suffix-traversal').length, 2);
    const db = openAuditReadOnly(audit);
    try {
      const kinds = (db.prepare('SELECT kind FROM events WHERE run_id = ? ORDER BY seq').all(r.audit!.run) as { kind: string }[]).map((x) => x.kind);
      assert.equal(kinds[0], 'run_start');
      assert.equal(kinds[kinds.length - 1], 'run_end');
      for (const k of ['plan', 'checkpoint', 'monitor_event', 'evidence']) assert.ok(kinds.includes(k), `the log has ${k} events`);
      const end = JSON.parse((db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(r.audit!.run) as { body: string }).body) as { outcome: string };
      assert.equal(end.outcome, 'success');
    } finally {
      db.close();
    }
  });
});

test('NavigateToPose alone: one goal per waypoint', async () => {
  const s = setup({ through: false });
  await withGraph([0.2, 0.3], async (g) => {
    const r = await runMapMission({ world: s.world, spec: 'F shelf & G !hazard', regions: { file: s.regions }, graph: s.graph }, { method: 'sagas', audit: false, open: g.open });
    assert.equal(r.result.success, true, r.result.message);
    assert.ok(g.goals.length > 3 && g.goals.every((p) => p.length === 1));
    assert.ok(!g.fake.log.some((l) => l.startsWith('goal /navigate_through_poses')));
  });
});

test('an aborted goal becomes a goal-aborted failure record, and sagas-replan replans from the robot\'s pose and succeeds', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'abort', after_s: 1 });
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas-replan', replans: 2, audit: false, open: g.open });
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failures.length, 1);
    const f = r.result.failures[0]!;
    assert.equal(f.kind, 'goal-aborted');
    assert.equal(f.class, 'transient');
    assert.equal(r.result.plans.length, 2, 'one replan');
    const replan = r.result.plans[1]!;
    assert.equal(replan.graph.kinds[replan.graph.start], 'start', 'the replan starts at the robot\'s pose');
  });
});

test('without replanning, an aborted goal ends the mission in its stage with the record', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'abort', after_s: 0.5 });
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas', audit: false, open: g.open });
    assert.equal(r.result.success, false);
    assert.equal(r.result.failureMode, 'prefix');
    assert.equal(r.result.failures[0]?.kind, 'goal-aborted');
    assert.match(r.result.message, /goal-aborted/);
  });
});

test('a goal that stalls past its deadline is cancelled and becomes a tracking-timeout, then replanned', async () => {
  const s = setup({ goal_timeout_s: 0.2, min_speed_m_s: 20 });
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'stall' });
    const r = await runMapMission({ world: s.world, spec: 'F shelf & G !hazard', regions: { file: s.regions }, graph: s.graph }, { method: 'sagas-replan', replans: 1, audit: false, open: g.open });
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failures[0]?.kind, 'tracking-timeout');
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')), 'the stalled goal was cancelled');
  });
});

test('a detour through a forbidden region cancels the goal at once; a committed safety violation is unrecoverable', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'detour', via: [4.5, 1.5] });
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas-replan', replans: 3, audit: false, open: g.open });
    assert.equal(r.result.success, false);
    assert.equal(r.result.failureMode, 'unrecoverable');
    const f = r.result.failures[0]!;
    assert.equal(f.kind, 'forbidden-label');
    assert.equal(f.unrecoverable, true);
    assert.equal(r.result.plans.length, 1, 'no replan can repair G !hazard');
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')), 'the goal was cancelled when the label was seen');
    assert.equal(r.result.monitorViable, false);
  });
});

test('the operator\'s stop cancels the running goal, says how the cancel went, and records the run as stopped', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    const stop = new AbortController();
    const audit = path.join(s.dir, 'audit.sqlite');
    // Pressed while a goal runs: once the robot is half a metre on its way.
    const watch = setInterval(() => {
      if (Math.hypot(g.position[0] - 0.2, g.position[1] - 0.3) > 0.5) {
        clearInterval(watch);
        stop.abort(new Error('E-STOP pressed by tester'));
      }
    }, 2);
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas', audit, signal: stop.signal, open: g.open });
    assert.equal(r.result.failureMode, 'stopped');
    assert.match(r.result.message, /E-STOP pressed by tester/);
    assert.match(r.result.message, /the goal was cancelled \(final status CANCELED\)/);
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')));
    const at = g.position;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(Math.hypot(g.position[0] - at[0], g.position[1] - at[1]) < 0.05, 'the robot stopped moving');
    const db = openAuditReadOnly(audit);
    try {
      const end = JSON.parse((db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(r.audit!.run) as { body: string }).body) as { failureMode: string };
      assert.equal(end.failureMode, 'stopped');
    } finally {
      db.close();
    }
  });
});

test('a lost connection ends the mission as a world failure that names the stale pose and how the cancel went', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    const watch = setInterval(() => {
      if (Math.hypot(g.position[0] - 0.2, g.position[1] - 0.3) > 0.5) {
        clearInterval(watch);
        g.drop();
      }
    }, 2);
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas-replan', audit: false, open: g.open });
    assert.equal(r.result.failureMode, 'world');
    assert.match(r.result.message, /disconnected/);
    assert.match(r.result.message, /no answer to the cancel request within 1 s: the robot may still be moving/);
  });
});

test('past the replanning budget the mission escalates; the operator\'s answer is recorded', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'abort', after_s: 0.3 }, { kind: 'abort', after_s: 0.3 });
    const asked: string[] = [];
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph }, {
      method: 'sagas-replan', replans: 1, audit, open: g.open,
      control: { step: () => Promise.resolve({ go: true }), decide: (e) => { asked.push(e.reason); return Promise.resolve({ decision: 'abort', reason: 'the aisle is blocked', operator: 'tester' }); } },
    });
    assert.equal(r.result.failureMode, 'escalated');
    assert.equal(r.result.failures.length, 2);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /replanning budget R = 1 exhausted/);
    assert.match(r.result.message, /the aisle is blocked/);
    const db = openAuditReadOnly(audit);
    try {
      const kinds = (db.prepare('SELECT kind FROM events WHERE run_id = ? ORDER BY seq').all(r.audit!.run) as { kind: string }[]).map((x) => x.kind);
      assert.equal(kinds.filter((k) => k === 'failure_record').length, 2);
      assert.ok(kinds.includes('escalation') && kinds.includes('operator_decision') && kinds.includes('replan'));
    } finally {
      db.close();
    }
  });
});

test('bad inputs are refused before the robot is touched: a latent graph, nodes without positions, labels that disagree with the regions', async () => {
  const s = setup();
  const g = labGraph() as { nodes: { id: string; labels: string[]; pos?: [number, number] }[] };
  const bad = path.join(s.dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ ...g, nodes: g.nodes.map((n, i) => (i === 3 ? { id: n.id, labels: n.labels } : n)) }));
  await assert.rejects(runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: bad }, { method: 'sagas', audit: false }), /node "n_0_3" has no position/);
  writeFileSync(bad, JSON.stringify({ ...g, nodes: g.nodes.map((n) => (n.id === 'n_1_1' ? { ...n, labels: [] } : n)) }));
  await assert.rejects(runMapMission({ world: s.world, spec: PATROL, regions: { file: s.regions }, graph: bad }, { method: 'sagas', audit: false }), /node "n_1_1" at \(1, 1\) is labelled \{\}, but the regions put it in \{dock\}/);
  await assert.rejects(runMapMission({ world: 'pointmaze-medium', spec: PATROL, regions: { file: s.regions }, graph: s.graph }, { method: 'sagas', audit: false }), /missions on a map graph run on a robot/);
});
