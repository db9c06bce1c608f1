// Nav2 as the simulated ROS 2 graph runs it (test/ros2-sim: a TEST STAND-IN built from navigation2's
// humble and jazzy branches, nav2-profile.ts), and how Ros2World handles each behaviour: AMCL's
// localisation, arrival within the goal checker's tolerance, feedback, goals Nav2 refuses or aborts,
// its recovery rounds, its error codes, clearing both costmaps. Each test runs on both profiles where
// Humble and Jazzy differ, on one where they cannot (named in the test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorldError, type WorldErrorKind } from '../../../main/core/world/world.js';
import { readRos2Config } from '../../../main/backends/ros2/config.js';
import { Ros2World } from '../../../main/backends/ros2/world.js';
import { NavigatorFeedback } from '../../../main/backends/ros2/navigator.js';
import type { GoalControl } from './fake-rclnodejs.js';
import { type Distro, SimulatedRos2Graph } from '../../ros2-sim/simulated-graph.js';
import { DISTROS, GOAL_CHECKER } from '../../ros2-sim/nav2-profile.js';
import { setup } from '../../ros2-sim/lab.js';

const isWorldError =
  (kind: WorldErrorKind, re?: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof WorldError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (re) assert.match(e.message, re);
    return true;
  };
const call = (timeout_s = 30, signal = new AbortController().signal) => ({ timeout_s, signal });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (cond()) return;
    await sleep(5);
  }
  assert.fail(`never happened: ${what}`);
}

/** The lab robot (lab.ts) over a simulated graph of this distro. */
async function labWorld(
  distro: Distro,
  o: Parameters<typeof SimulatedRos2Graph.create>[0] = { start: [1, 1] },
): Promise<{ g: SimulatedRos2Graph; world: Ros2World; close: () => Promise<void> }> {
  const g = await SimulatedRos2Graph.create({ ...o, distro });
  const s = setup();
  const world = await Ros2World.open(readRos2Config(s.world.slice('ros2:'.length)), g.fake.module, { distro });
  return {
    g,
    world,
    close: async () => {
      await world.close();
      g.stop();
    },
  };
}

interface Direct {
  readonly accepted: boolean;
  readonly feedback: Record<string, unknown>[];
  /** Resolves with how the goal ended. */
  readonly done: Promise<{ status: 'succeeded' | 'aborted'; result: Record<string, unknown> }>;
}

/** A goal straight to the stand-in's server (no Witness in between: what the robot does with it). */
function direct(g: SimulatedRos2Graph, action: string, goal: Record<string, unknown>): Direct {
  const server = g.fake.servers.get(action)!;
  const feedback: Record<string, unknown>[] = [];
  if (server.accept?.(goal) === false) return { accepted: false, feedback, done: new Promise(() => undefined) };
  let active = true;
  const done = new Promise<{ status: 'succeeded' | 'aborted'; result: Record<string, unknown> }>((resolve) => {
    const end =
      (status: 'succeeded' | 'aborted') =>
      (r?: unknown): void => {
        if (!active) return;
        active = false;
        resolve({ status, result: (r ?? {}) as Record<string, unknown> });
      };
    const ctl: GoalControl = {
      goal,
      feedback: (f) => {
        if (active) feedback.push(f as Record<string, unknown>);
      },
      succeed: end('succeeded'),
      abort: end('aborted'),
      canceledElsewhere: end('aborted'),
      isActive: () => active,
    };
    server.execute!(ctl);
  });
  return { accepted: true, feedback, done };
}

const pose = (frame: string, x: number, y: number, yaw = 0) => ({
  header: { frame_id: frame, stamp: { sec: 0, nanosec: 0 } },
  pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) } },
});
const toPose = (frame: string, x: number, y: number, yaw = 0) => ({ pose: pose(frame, x, y, yaw), behavior_tree: '' });

test('AMCL (same in both distros; run on humble): no map → odom before an initial pose — the pose is unknown and no goal is sent; once given, the pose follows the next scan', async () => {
  const { g, world, close } = await labWorld('humble', { start: [1, 1], localised: false });
  try {
    await sleep(100);
    assert.throws(
      () => world.pose(),
      isWorldError(
        'not-found',
        /no transform map ← base_link; known links: (.*, )?odom → base_link.*: the robot is not localised — AMCL publishes map → odom only once it has an initial pose \(RViz's "2D Pose Estimate", or \/initialpose\)/,
      ),
    );
    await assert.rejects(
      world.execute('navigate', { x: 3, y: 1 }, call()),
      isWorldError(
        'not-found',
        /skill navigate: the robot's pose is unknown: .*not localised.*; no goal was sent: Nav2 needs the robot's pose \(Jazzy aborts the goal; Humble's planner fails and the robot spins and backs up/,
      ),
    );
    assert.equal(g.goals.length, 0, 'nothing was sent');
    g.amcl.initialPose();
    await eventually(() => {
      try {
        world.pose();
        return true;
      } catch {
        return false;
      }
    }, 'the pose once AMCL has an initial pose');
    const p = world.pose();
    assert.ok(Math.hypot(p.x - 1, p.y - 1) < 0.05, JSON.stringify(p));
  } finally {
    await close();
  }
});

test('AMCL (same in both distros; run on jazzy): a silent lidar leaves map → odom stale — the pose is refused naming the link, and a running goal is cancelled', async () => {
  const { g, world, close } = await labWorld('jazzy');
  try {
    await world.reset({ seed: 0 });
    const running = world.execute('navigate', { x: 8, y: 1 }, call());
    await eventually(() => Math.hypot(g.position[0] - 1, g.position[1] - 1) > 0.3, 'the robot under way');
    g.amcl.setLidar(false);
    await assert.rejects(
      running,
      isWorldError(
        'disconnected',
        /skill navigate: the robot's pose went stale while the goal ran \(the transform map ← base_link is \d\.\d\d s old \(bound 1 s\): nothing new on map → odom: AMCL \(or SLAM\) refreshes map → odom once per laser scan: is the lidar publishing.*\); the goal was cancelled/,
      ),
    );
    assert.ok(g.fake.log.includes('cancel /navigate_to_pose'));
    const at = g.position;
    await sleep(100);
    assert.ok(Math.hypot(g.position[0] - at[0], g.position[1] - at[1]) < 0.05, 'the robot stopped');
    g.amcl.setLidar(true);
    await eventually(() => {
      try {
        world.pose();
        return true;
      } catch {
        return false;
      }
    }, 'the pose once scans come again');
  } finally {
    await close();
  }
});

test("arrival (the goal checker is the same in both distros; run on jazzy): success within xy_goal_tolerance, turned to the goal's heading — and the shipped navigate tool's 0.3 m postcondition allows for it", async () => {
  const { g, world, close } = await labWorld('jazzy');
  try {
    await world.reset({ seed: 0 });
    const seen: unknown[] = [];
    const fb = new NavigatorFeedback('base_link');
    const w = await Ros2World.open(world.config, g.fake.module, {
      distro: 'jazzy',
      onFeedback: (_s, m) => seen.push(m),
    });
    try {
      await w.reset({ seed: 0 });
      await w.execute('navigate', { x: 4, y: 1, yaw: Math.PI / 2 }, call());
    } finally {
      await w.close();
    }
    const d = Math.hypot(g.position[0] - 4, g.position[1] - 1);
    assert.ok(
      d > 0.15 && d <= GOAL_CHECKER.xy_m + 0.01,
      `the robot stops as soon as it is within the tolerance: ${d.toFixed(3)} m from the goal`,
    );
    assert.ok(
      Math.abs(g.yaw - Math.PI / 2) <= GOAL_CHECKER.yaw_rad,
      `turned to the goal's heading: ${g.yaw.toFixed(2)}`,
    );
    // distance_remaining: 0 until the planner's path is on the blackboard, then the path's length.
    const distances = seen.map((m) => (m as { distance_remaining: number }).distance_remaining);
    const first = distances.findIndex((x) => x > 0);
    assert.ok(
      first > 0 && distances.slice(0, first).every((x) => x === 0),
      `zeros before the path: ${distances.slice(0, first + 2).join(', ')}`,
    );
    assert.ok(Math.abs(distances[first]! - 3) < 0.1, `then the path's length: ${distances[first]}`);
    assert.deepEqual(
      seen.slice(0, first).map((m) => fb.read(m).path),
      seen.slice(0, first).map(() => false),
      'Witness reads the zeros as no distance yet',
    );
    const tool = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../../assets/ros2/tools/navigate.json', import.meta.url)), 'utf8'),
    ) as { postconditions: { expr: string }[] };
    const r2 = Number(/<= ([\d.]+)$/.exec(tool.postconditions[0]!.expr)![1]);
    assert.ok(
      Math.sqrt(r2) >= GOAL_CHECKER.xy_m + 0.04,
      `the shipped postcondition (${Math.sqrt(r2)} m) leaves room beyond Nav2's tolerance`,
    );
    assert.ok(d * d <= r2, 'and holds where the robot stopped');
  } finally {
    await close();
  }
});

for (const distro of DISTROS) {
  test(`feedback while the robot's pose is unavailable (${distro}): Humble sends it with current_pose the identity in base_link (Witness ignores it), Jazzy aborts the goal at once and sends none`, async () => {
    const g = await SimulatedRos2Graph.create({ start: [1, 1], distro, localised: false });
    try {
      const d = direct(g, '/navigate_to_pose', toPose('map', 3, 1));
      assert.ok(d.accepted);
      if (distro === 'jazzy') {
        const r = await d.done;
        assert.deepEqual(r, { status: 'aborted', result: { error_code: 0, error_msg: '' } });
        assert.equal(d.feedback.length, 0);
        return;
      }
      await eventually(() => d.feedback.length > 3, 'feedback');
      const f = d.feedback[0]! as {
        current_pose: { header: { frame_id: string }; pose: { position: { x: number } } };
        distance_remaining: number;
      };
      assert.equal(f.current_pose.header.frame_id, 'base_link');
      assert.equal(f.current_pose.pose.position.x, 0);
      assert.deepEqual(new NavigatorFeedback('base_link').read(f), { path: false, pose: false });
      // The planner cannot find the robot: the recoveries run (the robot spins), then the goal is aborted.
      await eventually(() => g.navigator.behaviours.some((b) => b.what === 'spin'), 'a spin');
    } finally {
      g.stop();
    }
  });

  test(`recoveries before an abort (${distro}): a goal off the map — Humble spins, waits and backs up for six rounds, Jazzy aborts at once with GOAL_OUTSIDE_MAP; a goal with no path runs them on both`, async () => {
    const g = await SimulatedRos2Graph.create({
      start: [1, 1],
      distro,
      speedup: 40,
      obstacles: [
        { min: [5, 3], max: [7, 3.2] },
        { min: [5, 4.8], max: [7, 5] },
        { min: [5, 3], max: [5.2, 5] },
        { min: [6.8, 3], max: [7, 5] },
      ],
    });
    try {
      const off = direct(g, '/navigate_to_pose', toPose('map', 1000, 1000));
      const r = await off.done;
      const moved = g.navigator.behaviours.map((b) => b.what);
      if (distro === 'humble') {
        assert.deepEqual(r, { status: 'aborted', result: { result: { structure_needs_at_least_one_member: 0 } } });
        assert.deepEqual(
          moved,
          ['spin', 'wait', 'backup', 'spin'],
          'six rounds: clear, spin, wait, back up, clear, spin',
        );
        assert.ok(Math.max(...off.feedback.map((f) => f['number_of_recoveries'] as number)) >= 10);
        assert.ok(Math.hypot(g.position[0] - 1, g.position[1] - 1) > 0.25, 'it backed up');
        assert.ok(g.clears.includes('local') && g.clears.includes('global'));
      } else {
        assert.deepEqual(r, { status: 'aborted', result: { error_code: 204, error_msg: '' } });
        assert.deepEqual(moved, [], 'no recovery helps a goal off the map');
        assert.ok(Math.hypot(g.position[0] - 1, g.position[1] - 1) < 0.01, 'the robot did not move');
      }
      g.navigator.behaviours.length = 0;
      // Inside a walled box: NO_VALID_PATH, which recoveries may help on Jazzy too.
      const boxed = await direct(g, '/navigate_to_pose', toPose('map', 6, 4)).done;
      assert.deepEqual(
        boxed.result,
        distro === 'jazzy'
          ? { error_code: 208, error_msg: '' }
          : { result: { structure_needs_at_least_one_member: 0 } },
      );
      assert.deepEqual(
        g.navigator.behaviours.map((b) => b.what),
        ['spin', 'wait', 'backup', 'spin'],
      );
    } finally {
      g.stop();
    }
  });

  test(`one navigator at a time (${distro}): a NavigateThroughPoses goal while a NavigateToPose goal runs is aborted with no code, and the running one goes on to succeed; Witness says why`, async () => {
    const { g, world, close } = await labWorld(distro);
    try {
      await world.reset({ seed: 0 });
      const running = world.execute('navigate', { x: 5, y: 1 }, call());
      await eventually(() => g.navigator.running !== null, 'the first goal runs');
      await assert.rejects(
        world.waypoints!.go(
          [
            { x: 2, y: 2 },
            { x: 3, y: 3 },
          ],
          { timeout_s: 30, signal: new AbortController().signal },
        ),
        isWorldError(
          'aborted',
          /navigate through 2 poses .*the server aborted the goal; result .* \(Nav2 gave no error code: .*another navigator is running a goal \(Nav2 runs one at a time\)\)$/,
        ),
      );
      const done = (await running) as { status: string };
      assert.equal(done.status, 'succeeded');
      assert.ok(Math.hypot(g.position[0] - 5, g.position[1] - 1) <= GOAL_CHECKER.xy_m + 0.01);
    } finally {
      await close();
    }
  });

  test(`a goal in a frame TF cannot transform (${distro}): Jazzy aborts it at once without a code, Humble's planner fails and recoveries run; Witness refuses it before sending`, async () => {
    const g = await SimulatedRos2Graph.create({ start: [1, 1], distro, speedup: 40 });
    try {
      const d = direct(g, '/navigate_to_pose', toPose('nowhere', 3, 1));
      if (distro === 'jazzy') {
        assert.deepEqual(await d.done, { status: 'aborted', result: { error_code: 0, error_msg: '' } });
        assert.equal(g.navigator.behaviours.length, 0);
      } else {
        await eventually(() => g.navigator.behaviours.some((b) => b.what === 'spin'), 'Humble spins');
        assert.equal((await d.done).status, 'aborted');
      }
      const s = setup();
      const c = JSON.parse(readFileSync(s.world.slice('ros2:'.length), 'utf8')) as {
        tools: { navigate: { goal: Record<string, unknown> } };
      };
      c.tools.navigate.goal['pose.header.frame_id'] = { value: 'nowhere' };
      const { parseRos2Config } = await import('../../../main/backends/ros2/config.js');
      const world = await Ros2World.open(
        parseRos2Config(JSON.stringify(c), s.world.slice('ros2:'.length)),
        g.fake.module,
        { distro },
      );
      try {
        await world.reset({ seed: 0 });
        const sent = g.goals.length;
        await assert.rejects(
          world.execute('navigate', { x: 3, y: 1 }, call()),
          isWorldError(
            'invalid-input',
            /skill navigate: the goal's frame "nowhere" is not linked to map in TF \(no transform map ← nowhere; known links: .*\); no goal was sent/,
          ),
        );
        assert.equal(g.goals.length, sent);
      } finally {
        await world.close();
      }
    } finally {
      g.stop();
    }
  });

  test(`error codes (${distro}): a controller that fails — Jazzy's FollowPath code is read and named after the recoveries, Humble's empty result said to carry none; the planner's own codes on the path check`, async () => {
    const { g, world, close } = await labWorld(distro, { start: [1, 1], speedup: 40 });
    try {
      await world.reset({ seed: 0 });
      g.next.push({ kind: 'abort', after_s: 0.2, code: 104 });
      await assert.rejects(
        world.execute('navigate', { x: 5, y: 1 }, call()),
        isWorldError(
          'aborted',
          distro === 'jazzy'
            ? /result \{"error_code":104,"error_msg":""\} \(Nav2's error_code 104: FollowPath PATIENCE_EXCEEDED; Nav2 ran \d+ recovery action\(s\) first/
            : /\(Nav2 gave no error code: Humble's results carry none; .*; Nav2 ran \d+ recovery action\(s\) first/,
        ),
      );
      assert.equal(g.navigator.behaviours.length, 4, 'six rounds, two of them clearing costmaps');
      await assert.rejects(
        world.waypoints!.planPath!({ x: 1, y: 1 }, { x: 1000, y: 1000 }, {}),
        isWorldError(
          'aborted',
          distro === 'jazzy'
            ? /"error_code":204.* \(GOAL_OUTSIDE_MAP\)$/
            : /\(no error code: Humble's planner server reports none\)$/,
        ),
      );
    } finally {
      await close();
    }
  });
}

test('a lifecycle node that is inactive (same in both distros; run on humble): the action server is still there but rejects the goal, and Witness says why', async () => {
  const { g, world, close } = await labWorld('humble');
  try {
    await world.reset({ seed: 0 });
    g.lifecycle.set('bt_navigator', 'inactive');
    await assert.rejects(
      world.execute('navigate', { x: 3, y: 1 }, call()),
      isWorldError(
        'rejected',
        /the server rejected the goal .*: a Nav2 navigator rejects every goal while its lifecycle node is not active .*`ros2 lifecycle get \/bt_navigator`/,
      ),
    );
    const { probeRos2 } = await import('../../../main/backends/ros2/probe.js');
    const report = await probeRos2(world, 0.5);
    assert.equal(report.ok, false);
    const nav = report.actions.find((a) => a.skill === 'navigate')!;
    assert.deepEqual([nav.found, nav.lifecycle], [true, { node: '/bt_navigator', state: 'inactive', active: false }]);
    assert.deepEqual(report.actions.find((a) => a.skill === 'waypoints.compute_path')!.lifecycle, {
      node: '/planner_server',
      state: 'active',
      active: true,
    });
    g.lifecycle.set('bt_navigator', 'active');
    const again = await probeRos2(world, 0.5);
    assert.equal(again.ok, true, JSON.stringify(again));
  } finally {
    await close();
  }
});

test("clear_costmaps (same in both distros; run on jazzy) clears the local and then the global costmap, as Nav2's own behaviour tree does", async () => {
  const { g, world, close } = await labWorld('jazzy');
  try {
    await world.execute('clear_costmaps', {}, call());
    assert.deepEqual(g.clears, ['local', 'global']);
    // A chain stops at the first service that fails, naming it.
    g.fake.serviceServers.delete('/local_costmap/clear_entirely_local_costmap');
    await assert.rejects(
      world.execute('clear_costmaps', {}, call()),
      isWorldError(
        'not-found',
        /clear_costmaps \(\/local_costmap\/clear_entirely_local_costmap, nav2_msgs\/srv\/ClearEntireCostmap\): no service server answered/,
      ),
    );
    assert.deepEqual(g.clears, ['local', 'global']);
    for (const file of ['nav2-mobile-manipulator.json', 'lab-turtlebot3.json']) {
      const c = readRos2Config(fileURLToPath(new URL(`../../../../assets/ros2/${file}`, import.meta.url)));
      assert.deepEqual(
        c.services['clear_costmaps']!.chain,
        ['/local_costmap/clear_entirely_local_costmap', '/global_costmap/clear_entirely_global_costmap'],
        file,
      );
    }
  } finally {
    await close();
  }
});
