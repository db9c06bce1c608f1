// @slow: the tool loop through Nav2 on the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// The tool loop on a ROS 2 robot through the real Ros2World and the real act workflow
// (app/act.ts), with the shipped ROS 2 tool files (assets/ros2/tools), over the simulated ROS 2
// graph (test/ros2-sim): Nav2's NavigateToPose and a GripperCommand controller moving a MuJoCo
// body; postconditions read the pose from TF and the gripper from joint states. The aborted goal differs
// between Humble and Jazzy (the recovery rounds before it, the result's code) and runs on both
// profiles; the other tests do not depend on the distro (default jazzy).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { act } from '../../main/app/act.js';
import { parseTool } from '../../main/core/loop/tools.js';
import { ScriptedPlanner } from '../../main/core/loop/planners.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { setup } from '../ros2-sim/lab.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tool = (name: string) => {
  const file = path.join(ROOT, 'assets', 'ros2', 'tools', `${name}.json`);
  return { def: parseTool(JSON.parse(readFileSync(file, 'utf8')), file), file };
};
const TOOLS = [tool('navigate'), tool('grip')];
const PLAN = [
  { tool: 'navigate', args: { x: 7.5, y: 4.5, yaw: 0 } },
  { tool: 'grip', args: { position_m: 0.035 } },
];
const GOAL = 'at.shelf && gripper.width_cm > 6.0';

test('act on a ROS 2 robot: drive to the shelf, open the gripper; postconditions on TF and joint states, the goal verified on sensors', async () => {
  const s = setup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3] });
  try {
    const r = await act({
      world: s.world,
      open: g.open,
      tools: TOOLS,
      planner: new ScriptedPlanner(PLAN),
      goal: 'open the gripper at the shelf',
      verify: GOAL,
      seed: 0,
      replans: 2,
    });
    assert.equal(r.result.outcome, 'success', r.result.reason);
    assert.equal(r.result.toolCalls, 2);
    assert.equal(r.result.failures.length, 0);
    assert.ok(Math.hypot(g.position[0] - 7.5, g.position[1] - 4.5) < 0.3, 'the base is at the shelf');
    assert.ok(g.finger_m > 0.03, 'the finger opened');
  } finally {
    g.stop();
  }
});

for (const distro of DISTROS) {
  test(`act on a ROS 2 robot: an aborted navigation goal is a failure record, replanned, and the loop recovers; the record says what Nav2 said (${distro})`, async () => {
    const s = setup();
    const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3], distro });
    try {
      g.next.push({ kind: 'abort', after_s: 0.5 });
      const r = await act({
        world: s.world,
        open: g.open,
        tools: TOOLS,
        planner: new ScriptedPlanner(PLAN),
        goal: 'open the gripper at the shelf',
        verify: GOAL,
        seed: 0,
        replans: 2,
      });
      assert.equal(r.result.outcome, 'success', r.result.reason);
      assert.equal(r.result.failures.length, 1);
      const f = r.result.failures[0]!;
      assert.equal(f.tool, 'navigate');
      assert.equal(f.stage, 'world-error');
      assert.match(f.violated, /aborted/);
      assert.match(
        JSON.stringify(f),
        distro === 'jazzy'
          ? /FollowPath FAILED_TO_MAKE_PROGRESS/
          : /Nav2 gave no error code: Humble's results carry none/,
      );
      assert.equal(r.result.replans, 1);
      assert.equal(r.result.toolCalls, 3);
    } finally {
      g.stop();
    }
  });
}

test("act on a ROS 2 robot: a navigation goal that stalls past the tool's timeout is cancelled and recorded as a timeout", async () => {
  const s = setup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3] });
  try {
    g.next.push({ kind: 'stall' });
    const fast = { ...TOOLS[0]!, def: { ...TOOLS[0]!.def, timeout_s: 2 } };
    const r = await act({
      world: s.world,
      open: g.open,
      tools: [fast, TOOLS[1]!],
      planner: new ScriptedPlanner(PLAN),
      goal: 'open the gripper at the shelf',
      verify: GOAL,
      seed: 0,
      replans: 2,
    });
    assert.equal(r.result.outcome, 'success', r.result.reason);
    assert.equal(r.result.failures[0]?.stage, 'timeout');
    assert.ok(
      g.fake.log.some((l) => l.startsWith('cancel /navigate_to_pose')),
      'the stalled goal was cancelled',
    );
  } finally {
    g.stop();
  }
});

test('an action server that is not there is a permanent failure: escalated at once, the replan budget unspent', async () => {
  const s = setup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3], gripper: false });
  try {
    const asked: string[] = [];
    const r = await act({
      world: s.world,
      open: g.open,
      tools: TOOLS,
      planner: new ScriptedPlanner(PLAN),
      goal: 'open the gripper at the shelf',
      verify: GOAL,
      seed: 0,
      replans: 3,
      decide: (e) => {
        asked.push(`${e.cause}: ${e.reason}`);
        return Promise.resolve({ decision: 'abort', reason: 'no gripper on this robot', operator: 'tester' });
      },
    });
    assert.equal(r.result.outcome, 'escalated');
    assert.equal(r.result.failures.length, 1);
    const f = r.result.failures[0]!;
    assert.equal(f.tool, 'grip');
    assert.equal(f.class, 'permanent');
    assert.equal(f.world_error?.kind, 'not-found');
    assert.equal(r.result.replans, 0, 'no replan spent on a permanent failure');
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /^permanent-failure: /);
  } finally {
    g.stop();
  }
});
