// @slow: missions through Nav2 on the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// Nav2 never routes through what the specification forbids, tested through the real Ros2World and
// the real mission workflow over the simulated ROS 2 graph (test/ros2-sim), whose planner server and
// keepout filter follow navigation2's sources: the keepout mask published (and republished when the
// forbidden set changes), a leg whose planned path enters a forbidden region refused before any
// goal is sent (then a replan; past the budget an escalation), and a stop on entry. The planner's
// answers differ between Humble and Jazzy (error codes): that test runs on both profiles; the others
// do not depend on the distro and run on the default (jazzy).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runMapMission } from '../../main/app/mission.js';
import { worldEntry } from '../../main/backends/catalogue.js';
import { waypointsOf } from '../../main/core/world/world.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { missionExit } from '../../main/cli/run.js';
import { SimulatedRos2Graph, type SimulatedGraphOptions } from '../ros2-sim/simulated-graph.js';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';

const HAZARD = { min: [3.6, -0.4], max: [5.4, 3.4] } as const;
const inHazard = (x: number, y: number): boolean =>
  x >= HAZARD.min[0] && x <= HAZARD.max[0] && y >= HAZARD.min[1] && y <= HAZARD.max[1];
/**
 * A pallet on the aisle above the hazard, between the graph's nodes (4, 4) and (5, 4): the map graph does not know it;
 * Nav2's map does.
 */
const PALLET = { min: [4.3, 3.3], max: [4.7, 5.3] } as const;
/** The same pallet up to the top of the map: the only way past it is through the hazard. */
const WALL = { min: [4.3, 3.3], max: [4.7, 8] } as const;
const SPEC = 'F shelf & G !hazard';

async function withGraph<T>(
  o: Omit<SimulatedGraphOptions, 'start'>,
  body: (g: SimulatedRos2Graph) => Promise<T>,
): Promise<T> {
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3], ...o });
  try {
    return await body(g);
  } finally {
    g.stop();
  }
}

interface Grid {
  header: { frame_id: string };
  info: { resolution: number; width: number; height: number; origin: { position: { x: number; y: number } } };
  data: Int8Array;
}

/** The mask's value at a point (worldToMask, as Nav2's costmap filters read it). */
function maskAt(m: Grid, x: number, y: number): number {
  const i = Math.floor((x - m.info.origin.position.x) / m.info.resolution),
    j = Math.floor((y - m.info.origin.position.y) / m.info.resolution);
  assert.ok(i >= 0 && j >= 0 && i < m.info.width && j < m.info.height, `(${x}, ${y}) is inside the mask`);
  return m.data[j * m.info.width + i]!;
}

function events(file: string, run: string): { kind: string; body: Record<string, unknown> }[] {
  const db = openAuditReadOnly(file);
  try {
    return (
      db.prepare('SELECT kind, body FROM events WHERE run_id = ? ORDER BY seq').all(run) as {
        kind: string;
        body: string;
      }[]
    ).map((e) => ({ kind: e.kind, body: JSON.parse(e.body) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

test('the keepout mask and its filter info are published latched in the map frame before the first goal, and Nav2 (the stand-in) routes around the hazard', async () => {
  const s = setup();
  await withGraph({ obstacles: [PALLET] }, async (g) => {
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission(
      { world: s.world, spec: SPEC, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit, open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    const mask = g.fake.publishers.find((p) => p.topic === '/keepout_filter_mask');
    const info = g.fake.publishers.find((p) => p.topic === '/costmap_filter_info');
    assert.equal(mask?.type, 'nav_msgs/msg/OccupancyGrid');
    assert.equal(info?.type, 'nav2_msgs/msg/CostmapFilterInfo');
    for (const p of [mask, info])
      assert.deepEqual(
        { ...p.qos },
        { history: 1, depth: 1, reliability: 1, durability: 1 },
        `${p.topic}: keep last 1, reliable, transient local`,
      );
    const infos = g.fake.sent.get('/costmap_filter_info') as {
      type: number;
      filter_mask_topic: string;
      base: number;
      multiplier: number;
      header: { frame_id: string };
    }[];
    assert.equal(infos.length, 1);
    assert.deepEqual(
      {
        type: infos[0]!.type,
        topic: infos[0]!.filter_mask_topic,
        base: infos[0]!.base,
        multiplier: infos[0]!.multiplier,
        frame: infos[0]!.header.frame_id,
      },
      { type: 0, topic: '/keepout_filter_mask', base: 0, multiplier: 1, frame: 'map' },
    );
    const masks = g.fake.sent.get('/keepout_filter_mask') as Grid[];
    assert.equal(masks.length, 1, 'G !hazard never changes: one mask');
    const m = masks[0]!;
    assert.equal(m.header.frame_id, 'map');
    assert.equal(m.info.resolution, Math.fround(0.05), 'resolution is a float32 on the wire');
    assert.equal(m.data.length, m.info.width * m.info.height);
    // The mask covers the graph (0 … 9 × 0 … 5) and the regions; the hazard is kept out, to its edge, and nothing else.
    for (const [x, y] of [
      [0, 0],
      [9, 5],
      [1, 1],
      [7.5, 4.5],
      [3.5, 1],
      [5.5, 1],
      [4.5, 3.5],
      [4.5, -0.5],
    ] as const)
      assert.equal(maskAt(m, x, y), 0, `(${x}, ${y}) is free`);
    for (const [x, y] of [
      [4.5, 1.5],
      [3.61, 0],
      [5.39, 3.39],
      [3.6, -0.4],
      [5.4, 3.4],
    ] as const)
      assert.equal(maskAt(m, x, y), 100, `(${x}, ${y}) is kept out`);
    assert.equal(g.costmap.keepoutActive, true, 'the keepout filter received the mask');
    assert.deepEqual(g.costmap.warnings, []);
    // The pallet blocks the aisle between (4, 4) and (5, 4); with the hazard kept out, Nav2 went round the top.
    const t = r.result.trajectory;
    for (let i = 0; i < t.length; i += 2)
      assert.ok(!inHazard(t[i]!, t[i + 1]!), `sample ${i / 2} at (${t[i]}, ${t[i + 1]}) is in the hazard`);
    assert.ok(
      Array.from({ length: t.length / 2 }, (_, i) => [t[2 * i]!, t[2 * i + 1]!] as const).some(
        ([x, y]) => x > 4.2 && x < 4.8 && y > 5.3,
      ),
      "the robot drove over the pallet's top end",
    );
    assert.equal(r.result.failures.length, 0);
    const ev = events(audit, r.audit!.run).filter((e) => e.kind === 'evidence');
    assert.equal(ev[0]!.body['action'], 'publish-keepout', 'the mask went out before anything else');
    assert.equal(ev[0]!.body['instruction'], 'keep out of hazard');
    assert.match(
      String(ev[0]!.body['verifier']),
      /^keepout mask published on \/keepout_filter_mask \(filter info on \/costmap_filter_info\): \d+ × \d+ cells at 0\.05 m, \d+ kept out$/,
    );
    const checks = ev.filter((e) => e.body['action'] === 'compute-path');
    assert.ok(checks.length >= 1 && checks.every((e) => /enters no forbidden region/.test(String(e.body['verifier']))));
    assert.ok(
      ev.findIndex((e) => e.body['action'] === 'compute-path') <
        ev.findIndex((e) => String(e.body['action']).startsWith('navigate')),
      'the path was checked before the goal was sent',
    );
  });
});

for (const distro of DISTROS) {
  test(`the stand-in honours the mask only with the keepout filter configured: otherwise its path runs straight through the hazard; a goal in the kept-out area is refused, with Jazzy's GOAL_OCCUPIED (${distro})`, async () => {
    const s = setup();
    for (const keepoutFilter of [true, false]) {
      await withGraph({ keepoutFilter, distro }, async (g) => {
        const w = await worldEntry(s.world).open(g.open);
        try {
          const nav = waypointsOf(w);
          // A mask keeping out exactly the hazard's cells, as a mission publishes it.
          const res = 0.05,
            originX = 0,
            originY = -1,
            width = 200,
            height = 140;
          const data = new Int8Array(width * height);
          for (let j = 0; j < height; j++)
            for (let i = 0; i < width; i++)
              if (inHazard(originX + (i + 0.5) * res, originY + (j + 0.5) * res)) data[j * width + i] = 100;
          nav.keepout!.publish({ originX, originY, resolution_m: res, width, height, data });
          const path = await nav.planPath!({ x: 3, y: 1 }, { x: 6, y: 1 }, {});
          assert.deepEqual([path[0]!.x, path[0]!.y], [3, 1]);
          assert.deepEqual([path[path.length - 1]!.x, path[path.length - 1]!.y], [6, 1]);
          const through = path.some((p) => inHazard(p.x, p.y));
          assert.equal(through, !keepoutFilter, keepoutFilter ? 'around the hazard' : 'straight through it');
          if (!keepoutFilter)
            assert.ok(
              path.every((p) => Math.abs(p.y - 1) < 1e-9),
              'a straight path',
            );
          // A goal inside the kept-out hazard: NavFn refuses it (GOAL_OCCUPIED); without the filter it is a goal like
          // any other.
          if (keepoutFilter)
            await assert.rejects(
              nav.planPath!({ x: 3, y: 1 }, { x: 4.5, y: 1 }, {}),
              distro === 'jazzy'
                ? /aborted.*"error_code":206.*\(GOAL_OCCUPIED\)$/
                : /aborted.* \(no error code: Humble's planner server reports none\)$/,
            );
          else assert.ok((await nav.planPath!({ x: 3, y: 1 }, { x: 4.5, y: 1 }, {})).length > 1);
        } finally {
          await w.close();
        }
      });
    }
  });
}

test('a leg whose planned path enters the hazard is refused before motion: a safety failure record, no goal sent, a replan that goes round', async () => {
  const s = setup();
  // Nav2 without the keepout filter, and a pallet on the aisle: its path from (4, 4) to (5, 4) dips through the hazard.
  await withGraph({ keepoutFilter: false, obstacles: [PALLET] }, async (g) => {
    const audit = path.join(s.dir, 'audit.sqlite');
    const atRecord: { goals: number; position: [number, number] }[] = [];
    const r = await runMapMission(
      { world: s.world, spec: SPEC, regions: { file: s.regions }, graph: s.graph },
      {
        method: 'sagas-replan',
        replans: 2,
        audit,
        open: g.open,
        onEvent: (kind) => {
          if (kind === 'failure_record') atRecord.push({ goals: g.goals.length, position: g.position });
        },
      },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.equal(r.result.failures.length, 1);
    const f = r.result.failures[0]!;
    assert.equal(f.kind, 'safety');
    assert.equal(f.violated, 'hazard');
    assert.equal(f.unrecoverable, false);
    assert.equal(f.action, 'remove-edge');
    assert.ok(f.at !== undefined && inHazard(f.at[0]!, f.at[1]!), `the place ${JSON.stringify(f.at)} is in the hazard`);
    assert.equal(`${f.from} → ${f.to}`, 'n_4_4 → n_5_4');
    assert.match(
      f.rule,
      /^the robot's planner's path from n_4_4 to n_5_4 enters hazard at \([\d.]+, [\d.]+\), which the specification forbids there; the goal was not sent: remove the edge n_4_4 → n_5_4/,
    );
    assert.deepEqual(
      atRecord.map((a) => a.goals),
      [0],
      'no goal had been sent when the leg was refused',
    );
    assert.ok(
      Math.hypot(atRecord[0]!.position[0] - 0.2, atRecord[0]!.position[1] - 0.3) < 0.05,
      'the robot had not moved',
    );
    assert.ok(
      g.pathRequests.some((p) => p.poses?.some(([x, y]) => inHazard(x, y)) === true),
      'Nav2 did return a path through the hazard',
    );
    assert.equal(r.result.plans.length, 2, 'one replan');
    const t = r.result.trajectory;
    for (let i = 0; i < t.length; i += 2)
      assert.ok(!inHazard(t[i]!, t[i + 1]!), `sample ${i / 2} at (${t[i]}, ${t[i + 1]}) is in the hazard`);
    const ev = events(audit, r.audit!.run);
    const rec = ev.find((e) => e.kind === 'failure_record')!;
    assert.equal(rec.body['kind'], 'safety');
    assert.deepEqual(rec.body['at'], f.at);
    assert.ok(
      ev.findIndex((e) => e.kind === 'failure_record') <
        ev.findIndex((e) => e.kind === 'evidence' && String(e.body['action']).startsWith('navigate')),
      'recorded before the first goal',
    );
    assert.equal(ev.find((e) => e.kind === 'replan')?.body['trigger'], 'safety');
  });
});

test('past the replanning budget, refused legs escalate; the robot never moves', async () => {
  const s = setup();
  await withGraph({ keepoutFilter: false, obstacles: [WALL] }, async (g) => {
    const r = await runMapMission(
      { world: s.world, spec: SPEC, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas-replan', replans: 1, audit: false, open: g.open },
    );
    assert.equal(r.result.failureMode, 'escalated');
    assert.match(r.result.message, /replanning budget R = 1 exhausted/);
    assert.deepEqual(
      r.result.failures.map((f) => f.kind),
      ['safety', 'safety'],
    );
    assert.notEqual(
      `${r.result.failures[0]!.from}→${r.result.failures[0]!.to}`,
      `${r.result.failures[1]!.from}→${r.result.failures[1]!.to}`,
      'the refused leg was not chosen again',
    );
    assert.equal(g.goals.length, 0, 'no goal was ever sent');
    assert.ok(Math.hypot(g.position[0] - 0.2, g.position[1] - 0.3) < 0.05);
    assert.equal(missionExit(r.result), 1);
  });
});

test('the keepout mask is republished when the forbidden set changes: after dock in !hazard U dock, the hazard is free', async () => {
  const s = setup();
  await withGraph({}, async (g) => {
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission(
      { world: s.world, spec: '(!hazard U dock) & F shelf', regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit, open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    const masks = g.fake.sent.get('/keepout_filter_mask') as Grid[];
    assert.equal(masks.length, 2);
    assert.equal(maskAt(masks[0]!, 4.5, 1.5), 100, 'before dock: kept out');
    assert.ok(
      masks[1]!.data.every((v) => v === 0),
      'after dock: nothing kept out',
    );
    const firstDock = r.result.labels.findIndex((l) => l.includes('dock'));
    const firstHazard = r.result.labels.findIndex((l) => l.includes('hazard'));
    assert.ok(firstDock >= 0 && firstHazard > firstDock, 'the robot crossed the hazard, after the dock');
    const pub = events(audit, r.audit!.run)
      .filter((e) => e.kind === 'evidence' && e.body['action'] === 'publish-keepout')
      .map((e) => e.body['instruction']);
    assert.deepEqual(pub, ['keep out of hazard', 'no region is forbidden now']);
  });
});

test('a pose inside the forbidden region cancels the goal at once, the robot stops, and the run ends with outcome safety', async () => {
  const s = setup();
  await withGraph({}, async (g) => {
    // The navigator's own path swings through the hazard (a costmap it does not share with us).
    g.next.push({ kind: 'detour', via: [4.5, 1.5] });
    const audit = path.join(s.dir, 'audit.sqlite');
    const r = await runMapMission(
      { world: s.world, spec: PATROL, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas-replan', replans: 3, audit, open: g.open },
    );
    assert.equal(r.result.success, false);
    assert.equal(r.result.failureMode, 'safety');
    assert.equal(missionExit(r.result), 5);
    assert.equal(r.result.plans.length, 1, 'no replan');
    const f = r.result.failures[0]!;
    assert.equal(f.kind, 'safety');
    assert.equal(f.violated, 'hazard');
    assert.equal(f.unrecoverable, true);
    assert.ok(f.at !== undefined && inHazard(f.at[0]!, f.at[1]!));
    assert.match(
      r.result.message,
      /^safety stop: the robot entered hazard at \([\d.]+, [\d.]+\) on the way to \S+, which the specification forbids .*the goal was cancelled to stop the robot \(.*the goal was cancelled \(final status CANCELED\)\)/,
    );
    assert.ok(g.fake.log.some((l) => l.startsWith('cancel ')));
    // Entered at the first sample inside: the robot is stopped within a short distance of there, and stays.
    const t = r.result.trajectory,
      n = t.length / 2;
    const first = Array.from({ length: n }, (_, i) => i).find((i) => inHazard(t[2 * i]!, t[2 * i + 1]!))!;
    assert.equal(first, n - 1, 'the run ended at the first sample inside');
    const at = g.position,
      t0 = g.time_s;
    for (let i = 0; i < 1000 && g.time_s < t0 + 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(Math.hypot(g.position[0] - at[0], g.position[1] - at[1]) < 0.05, 'the robot stays stopped');
    assert.ok(
      Math.hypot(at[0] - f.at[0]!, at[1] - f.at[1]!) < 0.5,
      `stopped at (${at[0].toFixed(2)}, ${at[1].toFixed(2)}), near the entry`,
    );
    const ev = events(audit, r.audit!.run);
    assert.equal(ev.filter((e) => e.kind === 'failure_record').length, 1);
    assert.equal(ev.find((e) => e.kind === 'failure_record')!.body['kind'], 'safety');
    const end = ev[ev.length - 1]!;
    assert.equal(end.kind, 'run_end');
    assert.equal(end.body['outcome'], 'safety');
    assert.equal(end.body['failureMode'], 'safety');
  });
});

test('a robot already inside a forbidden region starts nothing: no mask, no path, no goal, and the reason says where', async () => {
  const s = setup();
  const g = await SimulatedRos2Graph.create({ start: [4.5, 1.5] });
  try {
    const r = await runMapMission(
      { world: s.world, spec: SPEC, regions: { file: s.regions }, graph: s.graph },
      { method: 'sagas', audit: false, open: g.open },
    );
    assert.equal(r.result.failureMode, 'planning');
    assert.match(
      r.result.message,
      /^the robot is at \(4\.50, 1\.50\) in hazard, where the specification is already violated: no mission can start here$/,
    );
    assert.equal(g.fake.sent.get('/keepout_filter_mask'), undefined);
    assert.equal(g.pathRequests.length, 0);
    assert.equal(g.goals.length, 0);
  } finally {
    g.stop();
  }
});
