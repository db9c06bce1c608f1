// The world contract's ROS 2 adapter exercised over the in-process fake of rclnodejs (a TEST
// DOUBLE, not ROS 2): it checks that Ros2World and the adapter satisfy the contract's shape, so that
// the real run (world-contract.test.ts, with ROS_DISTRO set) fails only for reasons of the robot.
import { worldContract } from '../world-contract.js';
import { ros2ContractWorld } from './contract-adapter.js';
import { rig, sample } from './helpers.js';

worldContract('ROS 2 adapter over the fake rclnodejs (test double)', async () => {
  const r = await rig(sample({ 'tools.navigate.cancel_timeout_s': 0.5 }), { clock: false });
  const feed = setInterval(() => r.robotAt(0, 0), 10);
  // The adapter asks the planner for a path before each moving goal.
  r.fake.servers.set('/compute_path_to_pose', {
    execute: (g) => g.succeed({ path: { poses: [{ pose: { position: { x: 0, y: 0 } } }] } }),
  });
  r.fake.servers.set('/navigate_to_pose', {
    // The contract's calls: a near goal succeeds, the others run until cancelled (the failing one is refused before it
    // is sent).
    accept: (g) => Math.abs((g as { pose: { pose: { position: { x: number } } } }).pose.pose.position.x) < 100,
    execute: (g) => {
      if ((g.goal as { pose: { pose: { position: { x: number } } } }).pose.pose.position.x === 0.5)
        setTimeout(() => g.succeed({}), 20);
    },
  });
  return ros2ContractWorld(r.world, () => clearInterval(feed));
});
