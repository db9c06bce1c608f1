// The world contract suite with the Nav2 sample's own "contract" calls, on the simulated ROS 2 graph
// (test/ros2-sim, a TEST STAND-IN for Nav2) as Humble and as Jazzy: it must pass, and it must be safe
// to run on a real robot — no goal that sets off Nav2's recovery behaviours (Humble spins and backs up
// for up to six rounds before it aborts a goal it cannot plan), nothing sent for the failing call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRos2Config } from '../../../main/backends/ros2/config.js';
import { Ros2World } from '../../../main/backends/ros2/world.js';
import { worldContract } from '../world-contract.js';
import { contractMotions, ros2ContractWorld } from './contract-adapter.js';
import { SAMPLE, patch, sampleJson } from './helpers.js';
import { SimulatedRos2Graph } from '../../ros2-sim/simulated-graph.js';
import { DISTROS } from '../../ros2-sim/nav2-profile.js';

/** The sample, its gripper joint named as the stand-in's, its servers given the usual bounds. */
function config(edits: Readonly<Record<string, unknown>> = {}): ReturnType<typeof parseRos2Config> {
  return parseRos2Config(
    JSON.stringify(
      patch(sampleJson(), {
        'sensors.joints.fields.gripper\\.width_cm.path': 'position[name=finger_joint]',
        'sensors.joints.fields.gripper\\.effort_N.path': 'effort[name=finger_joint]',
        'tools.navigate.server_timeout_s': 2,
        'tools.navigate.cancel_timeout_s': 1,
        connect_timeout_s: 2,
        ...edits,
      }),
    ),
    SAMPLE,
  );
}

for (const distro of DISTROS) {
  const graphs: SimulatedRos2Graph[] = [];
  // Real time and a TurtleBot3's top speed: the sample's goals take as long as on the robot.
  worldContract(`the Nav2 sample on the simulated graph (${distro})`, async () => {
    const g = await SimulatedRos2Graph.create({ start: [0, 0], distro, speedup: 1, speed_m_s: 0.22 });
    graphs.push(g);
    const w = await Ros2World.open(config(), g.fake.module, { distro });
    return ros2ContractWorld(w, () => g.stop());
  });

  test(`the contract suite on the simulated graph (${distro}) set off no recovery behaviour and sent no goal for the failing call`, () => {
    assert.equal(graphs.length, 7);
    for (const g of graphs) {
      assert.deepEqual(g.navigator.behaviours, [], 'no spin, wait or back-up');
      assert.deepEqual(g.clears, [], 'no costmap cleared by the tree');
      assert.ok(
        g.goals.every((p) => p.every((q) => Math.hypot(q.x, q.y) <= 2)),
        `goals near the robot: ${JSON.stringify(g.goals)}`,
      );
    }
  });
}

test("the adapter refuses a failing call that would send a goal (the old sample's 1 km goal), and a moving goal Nav2 has no path to — before anything moves", async () => {
  const g = await SimulatedRos2Graph.create({ start: [0, 0], distro: 'humble' });
  try {
    const far = await Ros2World.open(config({ 'contract.fail.args': { x: 1000, y: 1000, yaw: 0 } }), g.fake.module, {
      distro: 'humble',
    });
    try {
      assert.throws(
        () => ros2ContractWorld(far),
        /\$\.contract\.fail: navigate\(\{"x":1000,"y":1000,"yaw":0\}\) sends a goal to \/navigate_to_pose: on a robot, Nav2 may spin and back up .* Use a call Witness refuses before sending anything/,
      );
    } finally {
      await far.close();
    }
    const w = await Ros2World.open(config({ 'contract.succeed.args': { x: 30, y: 0, yaw: 0 } }), g.fake.module, {
      distro: 'humble',
    });
    const c = ros2ContractWorld(w);
    try {
      await c.reset(0);
      const s = c.succeed as { run: (o: { timeout_s: number; signal: AbortSignal }) => Promise<unknown> };
      await assert.rejects(
        s.run({ timeout_s: 5, signal: new AbortController().signal }),
        /\$\.contract\.succeed: Nav2 finds no path for navigate\(\{"x":30,"y":0,"yaw":0\}\) from the robot at \(0\.00, 0\.00\) \(.*GOAL_OUTSIDE_MAP|no error code.*\); the goal was not sent/,
      );
      assert.equal(g.goals.length, 0);
      assert.deepEqual(g.navigator.behaviours, []);
      assert.match(contractMotions(w), /navigate\(\{"y":0,"yaw":0\}\) \(refused before anything is sent\)/);
    } finally {
      await c.close();
    }
  } finally {
    g.stop();
  }
});
