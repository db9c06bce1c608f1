// @slow: missions through Nav2 on the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// Missions on a robot's map graph through the real Ros2World and the real mission workflow
// (app/mission.ts), over a simulated ROS 2 graph in this process (test/ros2-sim: Nav2's
// NavigateToPose and NavigateThroughPoses moving a MuJoCo body, odometry and TF). Every path the
// issue names: success, an aborted goal, a timed-out goal, a forbidden region entered, the operator's
// cancel, a lost connection, and escalation past the replanning budget. An aborted goal differs between
// Humble and Jazzy (the recovery rounds before it, the result's error code): those tests run on both
// profiles; the others do not depend on the distro and run on the default (jazzy).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runMapMission } from '../../main/app/mission.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { type Distro, SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';
import { PATROL, labGraph, setup } from '../ros2-sim/lab.js';
import { encodePgm } from '../../main/services/maps/images.js';
import { mapYamlText } from '../../main/services/maps/read.js';
import { parseMapBlob } from '../../main/services/audit/map-blob.js';

const inHazard = (x: number, y: number): boolean => x >= 3.6 && x <= 5.4 && y >= -0.4 && y <= 3.4;

/** Calls `f` once, while the first goal runs: when the robot is half a metre from its start (0.2, 0.3). */
function onceUnderway(g: SimulatedRos2Graph, f: () => void): void {
  const watch = setInterval(() => {
    if (Math.hypot(g.position[0] - 0.2, g.position[1] - 0.3) > 0.5) {
      clearInterval(watch);
      f();
    }
  }, 2);
}

async function withGraph<T>(
  start: [number, number],
  body: (g: SimulatedRos2Graph) => Promise<T>,
  distro: Distro = 'jazzy',
): Promise<T> {
  const g = await SimulatedRos2Graph.create({ start, distro });
  try {
    return await body(g);
  } finally {
    g.stop();
  }
}

test('a patrol on the lab map runs through NavigateThroughPoses, never enters the hazard, and is recorded like an embedded mission', async () => {
  const s = setup();
  // The graph names its map (as `witness graph from-map` writes it): the run records the map.
  const gray = new Uint8Array(100 * 60).fill(254);
  for (let c = 0; c < 100; c++) gray[c] = 0; // the top wall
  writeFileSync(path.join(s.dir, 'lab.pgm'), encodePgm(100, 60, gray));
  writeFileSync(path.join(s.dir, 'lab.yaml'), mapYamlText({ image: 'lab.pgm', resolution: 0.1, origin: [0, 0] }));
  writeFileSync(s.graph, JSON.stringify({ ...(JSON.parse(readFileSync(s.graph, 'utf8')) as object), map: 'lab.yaml' }));
  await withGraph([0.2, 0.3], async (g) => {
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit, operator: 'tester', open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failureMode, null);
    assert.ok(
      g.goals.some((p) => p.length > 1),
      'runs of waypoints went as one NavigateThroughPoses goal',
    );
    assert.ok(g.fake.log.some((l) => l.startsWith('goal /navigate_through_poses')));
    // The realised trajectory: it started at the robot's pose, visited both, never the hazard.
    const t = r.result.trajectory;
    assert.ok(Math.hypot(t[0]! - 0.2, t[1]! - 0.3) < 0.05, "the start is the robot's pose");
    for (let i = 0; i < t.length; i += 2)
      assert.ok(!inHazard(t[i]!, t[i + 1]!), `sample ${i / 2} at (${t[i]}, ${t[i + 1]}) is in the hazard`);
    assert.ok(r.result.labels.some((l) => l.includes('shelf')) && r.result.labels.some((l) => l.includes('dock')));
    assert.equal(r.result.events.filter((e) => e.kind === 'suffix-traversal').length, 2);
    const db = openAuditReadOnly(audit);
    try {
      const kinds = (
        db.prepare('SELECT kind FROM events WHERE run_id = ? ORDER BY seq').all(r.audit!.run) as { kind: string }[]
      ).map((x) => x.kind);
      assert.equal(kinds[0], 'run_start');
      assert.equal(kinds[kinds.length - 1], 'run_end');
      for (const k of ['plan', 'checkpoint', 'monitor_event', 'evidence'])
        assert.ok(kinds.includes(k), `the log has ${k} events`);
      const end = JSON.parse(
        (
          db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(r.audit!.run) as {
            body: string;
          }
        ).body,
      ) as { outcome: string };
      assert.equal(end.outcome, 'success');
      const start = JSON.parse(
        (
          db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_start'").get(r.audit!.run) as {
            body: string;
          }
        ).body,
      ) as { map_sha?: string };
      const blob = db.prepare('SELECT kind, body FROM blobs WHERE sha256 = ?').get(start.map_sha) as
        { kind: string; body: string } | undefined;
      assert.equal(blob?.kind, 'map', 'the run_start names the map blob');
      const map = parseMapBlob(blob.body);
      assert.ok(
        map !== null &&
          map.name === 'lab' &&
          map.grid.width === 100 &&
          map.grid.height === 60 &&
          map.grid.cells[0] === 1 &&
          map.grid.cells[100] === 0,
      );
    } finally {
      db.close();
    }
  });
});

test('NavigateToPose alone: one goal per waypoint', async () => {
  const s = setup({ through: false });
  await withGraph([0.2, 0.3], async (g) => {
    const r = await runMapMission(
      { world: s.world, spec: 'F shelf & G !hazard', regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit: false, open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.ok(g.goals.length > 3 && g.goals.every((p) => p.length === 1));
    assert.ok(!g.fake.log.some((l) => l.startsWith('goal /navigate_through_poses')));
  });
});

for (const distro of DISTROS) {
  test(`an aborted goal becomes a goal-aborted failure record, and sagas-replan replans from the robot's pose and succeeds (${distro})`, async () => {
    const s = setup();
    await withGraph(
      [0.2, 0.3],
      async (g) => {
        g.next.push({ kind: 'abort', after_s: 1 });
        const r = await runMapMission(
          { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
          { method: 'sagas-replan', replans: 2, audit: false, open: g.open },
        );
        assert.equal(r.result.success, true, r.result.message);
        assert.equal(r.result.failures.length, 1);
        const f = r.result.failures[0]!;
        assert.equal(f.kind, 'goal-aborted');
        assert.equal(f.class, 'transient');
        assert.equal(r.result.plans.length, 2, 'one replan');
        const replan = r.result.plans[1]!;
        assert.equal(replan.graph.kinds[replan.graph.start], 'start', "the replan starts at the robot's pose");
      },
      distro,
    );
  });
}

for (const distro of DISTROS) {
  test(`without replanning, an aborted goal ends the mission in its stage with the record (${distro})`, async () => {
    const s = setup();
    await withGraph(
      [0.2, 0.3],
      async (g) => {
        g.next.push({ kind: 'abort', after_s: 0.5 });
        const r = await runMapMission(
          { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
          { method: 'sagas', audit: false, open: g.open },
        );
        assert.equal(r.result.success, false);
        assert.equal(r.result.failureMode, 'prefix');
        assert.equal(r.result.failures[0]?.kind, 'goal-aborted');
        assert.match(r.result.message, /goal-aborted/);
        // Nav2 ran its recovery rounds first; Jazzy's result names the controller's failure, Humble's carries none.
        assert.deepEqual(
          g.navigator.behaviours.map((b) => b.what),
          ['spin', 'wait', 'backup', 'spin'],
        );
        assert.match(
          JSON.stringify(r.result.failures[0]),
          distro === 'jazzy'
            ? /Nav2's error_code 105: FollowPath FAILED_TO_MAKE_PROGRESS; Nav2 ran \d+ recovery action/
            : /Nav2 gave no error code: Humble's results carry none.*Nav2 ran \d+ recovery action/,
        );
      },
      distro,
    );
  });
}

test('a goal that stalls past its deadline is cancelled and becomes a tracking-timeout, then replanned', async () => {
  // Deadlines short enough that the stalled goal ends soon, long enough that a loaded machine still drives the
  // replanned one.
  const s = setup({ goal_timeout_s: 1, min_speed_m_s: 20 });
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'stall' });
    const r = await runMapMission(
      { world: s.world, spec: 'F shelf & G !hazard', regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas-replan', replans: 1, audit: false, open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failures[0]?.kind, 'tracking-timeout');
    assert.ok(
      g.fake.log.some((l) => l.startsWith('cancel ')),
      'the stalled goal was cancelled',
    );
  });
});

test('a detour through a forbidden region cancels the goal at once; a committed safety violation ends the run as a safety stop, never replanned', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    g.next.push({ kind: 'detour', via: [4.5, 1.5] });
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas-replan', replans: 3, audit: false, open: g.open },
    );
    assert.equal(r.result.success, false);
    assert.equal(r.result.failureMode, 'safety');
    const f = r.result.failures[0]!;
    assert.equal(f.kind, 'safety');
    assert.equal(f.unrecoverable, true);
    assert.equal(r.result.plans.length, 1, 'no replan can repair G !hazard');
    assert.ok(
      g.fake.log.some((l) => l.startsWith('cancel ')),
      'the goal was cancelled when the label was seen',
    );
    assert.equal(r.result.monitorViable, false);
  });
});

test("the operator's stop cancels the running goal, says how the cancel went, and records the run as stopped", async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    const stop = new AbortController();
    const audit = path.join(s.dir, 'audit.sqlite');
    onceUnderway(g, () => {
      stop.abort(new Error('E-STOP pressed by tester'));
    });
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit, signal: stop.signal, open: g.open },
    );
    assert.equal(r.result.failureMode, 'stopped');
    assert.match(r.result.message, /E-STOP pressed by tester/);
    assert.match(r.result.message, /the goal was cancelled \(final status CANCELED\)/);
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')));
    // Stopped means still: over a second of simulated time (a bounded poll of the simulator's clock), it stays put.
    const at = g.position,
      t0 = g.time_s;
    for (let i = 0; i < 1000 && g.time_s < t0 + 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(g.time_s >= t0 + 1, 'the simulation ran on');
    assert.ok(Math.hypot(g.position[0] - at[0], g.position[1] - at[1]) < 0.05, 'the robot stopped moving');
    const db = openAuditReadOnly(audit);
    try {
      const end = JSON.parse(
        (
          db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(r.audit!.run) as {
            body: string;
          }
        ).body,
      ) as { failureMode: string };
      assert.equal(end.failureMode, 'stopped');
    } finally {
      db.close();
    }
  });
});

test('a lost connection ends the mission as a world failure that names the stale pose and how the cancel went', async () => {
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    onceUnderway(g, () => {
      g.drop();
    });
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas-replan', audit: false, open: g.open },
    );
    assert.equal(r.result.failureMode, 'world');
    assert.match(r.result.message, /disconnected/);
    assert.match(r.result.message, /no answer to the cancel request within 1 s: the robot may still be moving/);
  });
});

for (const distro of DISTROS) {
  test(`past the replanning budget the mission escalates; the operator's answer is recorded (${distro})`, async () => {
    const s = setup();
    await withGraph(
      [0.2, 0.3],
      async (g) => {
        g.next.push({ kind: 'abort', after_s: 0.3 }, { kind: 'abort', after_s: 0.3 });
        const asked: string[] = [];
        const audit = path.join(s.dir, 'audit.sqlite');
        const r = await runMapMission(
          { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
          {
            method: 'sagas-replan',
            replans: 1,
            audit,
            open: g.open,
            control: {
              step: () => Promise.resolve({ go: true }),
              decide: (e) => {
                asked.push(e.reason);
                return Promise.resolve({ decision: 'abort', reason: 'the aisle is blocked', operator: 'tester' });
              },
            },
          },
        );
        assert.equal(r.result.failureMode, 'escalated');
        assert.equal(r.result.failures.length, 2);
        assert.equal(asked.length, 1);
        assert.match(asked[0]!, /replanning budget R = 1 exhausted/);
        assert.match(r.result.message, /the aisle is blocked/);
        const db = openAuditReadOnly(audit);
        try {
          const kinds = (
            db.prepare('SELECT kind FROM events WHERE run_id = ? ORDER BY seq').all(r.audit!.run) as { kind: string }[]
          ).map((x) => x.kind);
          assert.equal(kinds.filter((k) => k === 'failure_record').length, 2);
          assert.ok(kinds.includes('escalation') && kinds.includes('operator_decision') && kinds.includes('replan'));
        } finally {
          db.close();
        }
      },
      distro,
    );
  });
}

test('bad inputs are refused before the robot is touched: a latent graph, nodes without positions, labels that disagree with the regions', async () => {
  const s = setup();
  const g = labGraph() as { nodes: { id: string; labels: string[]; pos?: [number, number] }[] };
  const bad = path.join(s.dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({ ...g, nodes: g.nodes.map((n, i) => (i === 3 ? { id: n.id, labels: n.labels } : n)) }),
  );
  await assert.rejects(
    runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: bad },
      { method: 'sagas', audit: false },
    ),
    /node "n_0_3" has no position/,
  );
  writeFileSync(
    bad,
    JSON.stringify({ ...g, nodes: g.nodes.map((n) => (n.id === 'n_1_1' ? { ...n, labels: [] } : n)) }),
  );
  await assert.rejects(
    runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: bad },
      { method: 'sagas', audit: false },
    ),
    /node "n_1_1" at \(1, 1\) is labelled \{\}, but the regions put it in \{dock\}/,
  );
  await assert.rejects(
    runMapMission(
      { world: 'pointmaze-medium', spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit: false },
    ),
    /missions on a map graph run on a robot/,
  );
});

test("Ctrl-C (the process handler's interruptAll) stops an interruptible mission: the goal is cancelled and the run ends as stopped; with nothing registered the handler exits", async () => {
  const { interruptAll } = await import('../../main/platform/interrupt.js');
  assert.equal(interruptAll('interrupted (SIGINT)'), false, 'nothing registered: the process exits at once');
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    let asked: boolean | null = null;
    onceUnderway(g, () => {
      asked = interruptAll('interrupted (SIGINT)');
    });
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit: false, interruptible: true, open: g.open },
    );
    assert.equal(asked, true, 'the running mission was registered');
    assert.equal(r.result.failureMode, 'stopped');
    assert.match(
      r.result.message,
      /^interrupted \(SIGINT\); navigate (through \d+ poses|to \([^)]*\)) cancelled; the goal was cancelled \(final status CANCELED\)/,
    );
    assert.equal(interruptAll('again'), false, 'released when the mission ended');
  });
});

test("the console's run control (RunControl): E-STOP cancels the robot's running goal at once, and the run ends as stopped with the cancel's outcome", async () => {
  const { RunControl } = await import('../../main/app/run-control.js');
  const s = setup();
  await withGraph([0.2, 0.3], async (g) => {
    const states: string[] = [];
    const control = new RunControl(
      'run-1',
      (e) => {
        if (e.topic === 'mission.state') states.push(e.state);
      },
      0,
    );
    onceUnderway(g, () => {
      control.stop('emergency stop by the operator', true);
    });
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit: false, control, open: g.open },
    );
    assert.equal(r.result.failureMode, 'stopped');
    assert.match(
      r.result.message,
      /^emergency stop by the operator; .*the goal was cancelled \(final status CANCELED\)/,
    );
    assert.deepEqual(states, ['estopped']);
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')));
  });
});
