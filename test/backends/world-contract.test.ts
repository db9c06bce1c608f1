// The world contract (world-contract.ts) against every world: the MuJoCo tabletop, point maze and
// Ant maze always, a ROS 2 robot or simulator where ROS_DISTRO is set and the operator confirmed
// (real rclnodejs; the configuration from WITNESS_ROS2_CONFIG, or the Nav2 sample), skipped with the
// reason — what it would make the robot do — otherwise.
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TabletopWorld } from '../../main/backends/mujoco/tabletop.js';
import { PointMazeWorld } from '../../main/backends/mujoco/pointmaze.js';
import { AntMazeWorld } from '../../main/backends/mujoco/antmaze.js';
import type { NavState } from '../../main/core/world/world.js';
import { readRos2Config } from '../../main/backends/ros2/config.js';
import { openRos2World } from '../../main/backends/ros2/world.js';
import { type ContractWorld, worldContract } from './world-contract.js';
import { contractMotions, ros2ContractWorld } from './ros2/contract-adapter.js';

worldContract('MuJoCo tabletop', async (): Promise<ContractWorld> => {
  const w = await TabletopWorld.open();
  const run = (skill: string, args: unknown) => (o: { timeout_s: number; signal: AbortSignal }) =>
    w.tools.execute(skill, args, o);
  return {
    reset: (seed) => w.tools.reset({ seed }),
    observe: () => w.tools.observe(),
    fields: ['gripper.width_cm', 'gripper.holding', 'gripper.load_N', 'objects.red_mug.on', 'objects.tray.z'],
    succeed: { what: 'move the hand', run: run('move', { x: 0.1, y: 0.05, z: 0.65 }), timeout_s: 30 },
    // A pick is thousands of physics steps: far longer than a millisecond.
    slow: { what: 'pick the mug within 1 ms', run: run('pick', { target: 'red_mug' }), timeout_s: 0.001 },
    cancel: { what: 'pick the mug, aborted after 5 ms', run: run('pick', { target: 'red_mug' }), after_s: 0.005 },
    fail: {
      what: 'pick an object the world does not have',
      run: run('pick', { target: 'unicorn' }),
      kinds: ['invalid-input'],
    },
    stop_s: 1,
    // Stopped means stopped: no physics runs once the call has rejected. A skill still running would
    // take a turn of the event loop every 100 physics steps (it yields with setImmediate); give it 20.
    quiescent: async () => {
      const t = w.time_s();
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(w.time_s(), t, 'the simulation advanced after the call was stopped');
    },
    close: () => w.close(),
  };
});

const NO_SKILLS = 'the point maze has no skills: its one call is a navigation step, a single synchronous physics step';

worldContract('MuJoCo point maze', async (): Promise<ContractWorld> => {
  const w = await PointMazeWorld.open('pointmaze-medium');
  const nav = w.navigation;
  // The navigation state as an observed state: the pose, the policy's observation, the time.
  const state = (s: NavState): Record<string, unknown> => ({
    pose: s.pose,
    observation: Array.from(s.observation),
    time_s: s.time_s,
  });
  return {
    reset: async (seed) => state(await nav.reset({ seed, start: [0, 0] })),
    observe: async () => state(await nav.observe()),
    fields: ['pose.x', 'pose.y', 'observation', 'time_s'],
    succeed: { what: 'one step', run: async (o) => state(await nav.step([1, 0], o)), timeout_s: 5 },
    slow: {
      skip: `${NO_SKILLS} that cannot outlast a timeout, so there is no timeout path (guardCall's timeout is unit-tested in test/backends/mujoco/pointmaze.test.ts)`,
    },
    cancel: {
      skip: `${NO_SKILLS} that cannot be aborted midway; a signal aborted before the call is refused with 'cancelled' (test/backends/mujoco/pointmaze.test.ts)`,
    },
    fail: { what: 'a step with a malformed action', run: (o) => nav.step([2], o), kinds: ['invalid-input'] },
    stop_s: 1,
    close: () => w.close(),
  };
});

worldContract('MuJoCo Ant maze', async (): Promise<ContractWorld> => {
  const w = await AntMazeWorld.open('antmaze-medium');
  const nav = w.navigation;
  const state = (s: NavState): Record<string, unknown> => ({
    pose: s.pose,
    observation: Array.from(s.observation),
    time_s: s.time_s,
  });
  const ant = 'the Ant maze has no skills: its one call is a navigation step (five physics steps)';
  return {
    reset: async (seed) => state(await nav.reset({ seed, start: [0, 0] })),
    observe: async () => state(await nav.observe()),
    fields: ['pose.x', 'pose.y', 'pose.yaw', 'observation', 'time_s'],
    succeed: {
      what: 'one step',
      run: async (o) => state(await nav.step(new Float64Array(8).fill(0.2), o)),
      timeout_s: 5,
    },
    slow: {
      skip: `${ant} that cannot outlast a timeout (guardCall's timeout is unit-tested in test/backends/mujoco/pointmaze.test.ts)`,
    },
    cancel: {
      skip: `${ant} that cannot be aborted midway; a signal aborted before the call is refused with 'cancelled' (test/backends/mujoco/antmaze.test.ts)`,
    },
    fail: { what: 'a step with a 2-D action', run: (o) => nav.step([1, 0], o), kinds: ['invalid-input'] },
    stop_s: 1,
    close: () => w.close(),
  };
});

const ros2Config =
  process.env['WITNESS_ROS2_CONFIG'] ??
  fileURLToPath(new URL('../../../assets/ros2/nav2-mobile-manipulator.json', import.meta.url));
/**
 * On a robot the suite moves it: it runs only when the operator has read what it will do and
 * confirms by naming the configuration's id in WITNESS_ROS2_CONTRACT (the adapter keeps to goals
 * that cannot set off Nav2's recovery behaviours: test/backends/ros2/contract-adapter.ts).
 */
function ros2Gate(): { readonly skip?: string } {
  if (!process.env['ROS_DISTRO'])
    return { skip: 'ROS_DISTRO is not set: source /opt/ros/<distro>/setup.bash to run the ROS 2 contract suite' };
  const config = readRos2Config(ros2Config);
  if (process.env['WITNESS_ROS2_CONTRACT'] === config.id) return {};
  return {
    skip: `the ROS 2 contract suite moves the robot of ${basename(ros2Config)}: ${contractMotions({ config })}, in the ${config.frames.map} frame. Clear the area around those goals, keep the E-STOP at hand, then confirm with WITNESS_ROS2_CONTRACT=${config.id}`,
  };
}
worldContract(
  `ROS 2, ${basename(ros2Config)}`,
  async () => ros2ContractWorld(await openRos2World(readRos2Config(ros2Config))),
  ros2Gate(),
);
