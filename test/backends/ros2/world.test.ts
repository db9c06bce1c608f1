// The ROS 2 adapter against the in-process fake of rclnodejs (a test double, not ROS 2): sensors
// mapped to named fields, the pose and the label function, staleness, goals with feedback,
// our timeout cancelling the goal, rejections, aborts, services, closing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorldError, type WorldErrorKind } from '../../../main/core/world/world.js';
import { Ros2World } from '../../../main/backends/ros2/world.js';
import { GAZEBO, rig, sample } from './helpers.js';
import { FakeRclnodejs, type GoalControl, odometry } from './fake-rclnodejs.js';

const isWorldError =
  (kind: WorldErrorKind, re?: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof WorldError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (re) assert.match(e.message, re);
    return true;
  };
const call = (timeout_s = 5, signal = new AbortController().signal) => ({ timeout_s, signal });
const near = (a: number, b: number): boolean => Math.abs(a - b) < 1e-9;

/**
 * Waits for something the world does asynchronously (polling, not a fixed sleep); fails if it never happens within 10
 * s.
 */
async function eventually(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`never happened: ${what}`);
}

test('sensors become named fields; the pose comes from TF map ← odom ← base_link; the label function on it', async () => {
  const r = await rig();
  try {
    assert.equal(r.fake.subscription('/odom')!.qos!.depth, 10);
    assert.deepEqual(r.fake.subscription('/tf_static')!.qos, r.fake.subscription('/tf_static')!.qos); // created
    assert.equal(
      (r.fake.subscription('/tf_static')!.qos as unknown as { durability: number }).durability,
      1,
      'static TF is transient-local',
    );
    assert.equal(
      (r.fake.subscription('/odom')!.qos as unknown as { reliability: number }).reliability,
      2,
      'odometry as configured: best effort',
    );
    r.robotAt(2, 0.2, Math.PI / 2, 0.03);
    const s = await r.world.observe();
    const base = s['base'] as { x: number; y: number; yaw: number; vx: number };
    assert.ok(near(base.x, 2) && near(base.y, 0.2) && near(base.yaw, Math.PI / 2), JSON.stringify(base));
    assert.equal(base.vx, 0.1);
    assert.deepEqual(s['gripper'], { width_cm: 6, effort_N: 3 });
    assert.deepEqual(s['at'], { dock: false, bench: true, shelf: false });
    assert.deepEqual(r.world.labels(), ['bench']);
    const v = r.world.vocabulary();
    assert.deepEqual(v.propositions, ['dock', 'bench', 'shelf']);
    assert.deepEqual(v.skills, ['navigate', 'grip', 'clear_costmaps']);
    assert.equal(v.fields['gripper.width_cm'], 'number');
    assert.equal(v.fields['at.dock'], 'bool');
    assert.equal(v.fields['grip.stalled'], 'bool');
    assert.deepEqual(r.world.tools.vocabulary(), v, 'the World interface reports the same vocabulary');
    assert.deepEqual(await r.world.tools.observe(), s);
    assert.deepEqual(r.world.spec.observation.names, [
      'base.x',
      'base.y',
      'base.yaw',
      'base.vx',
      'base.wz',
      'gripper.width_cm',
      'gripper.effort_N',
    ]);
  } finally {
    await r.world.close();
  }
});

test('an odometry pose (the Gazebo sample) reads pose.pose of the odometry message', async () => {
  const r = await rig(sample({}, GAZEBO));
  try {
    assert.equal(r.fake.subscription('/tf'), undefined, 'no TF subscription when the pose is odometry');
    r.fake.publish('/odom', odometry(1.2, 0.1, 0.5));
    r.fake.publish('/joint_states', { name: ['wheel_left_joint', 'wheel_right_joint'], position: [1, 2], effort: [] });
    const s = await r.world.observe();
    assert.deepEqual(s['at'], { start: false, ahead: true });
    assert.ok(near((s['base'] as { yaw: number }).yaw, 0.5));
    assert.deepEqual(s['wheels'], { left_rad: 1, right_rad: 2 });
  } finally {
    await r.world.close();
  }
});

test('staleness: no message yet, a topic gone quiet, TF gone quiet are disconnects that name the topic; fresh data recovers', async () => {
  const r = await rig();
  try {
    await assert.rejects(
      r.world.observe(),
      isWorldError('disconnected', /no message yet on \/odom \(nav_msgs\/msg\/Odometry\).*ros2 topic hz/),
    );
    r.robotAt(0, 0);
    await r.world.observe();
    r.clock = 1.5;
    r.fake.publish('/odom', odometry(-1, 0));
    r.fake.publish('/joint_states', { name: ['gripper_left_finger_joint'], position: [0.01], effort: [0] });
    r.clock = 2.5;
    await assert.rejects(
      r.world.observe(),
      isWorldError('disconnected', /the transform map ← base_link is 2\.50 s old \(bound 2 s\)/),
    );
    r.clock = 3.6;
    await assert.rejects(
      r.world.observe(),
      isWorldError('disconnected', /the last message on \/odom is 2\.10 s old \(bound 2 s\)/),
    );
    r.robotAt(0, 0);
    assert.ok((await r.world.observe())['base']);
  } finally {
    await r.world.close();
  }
});

test('TF that does not link map to base_link is not-found with the known links; a message lacking a mapped joint names the config path', async () => {
  const r = await rig();
  try {
    r.robotAt(0, 0);
    r.fake.publish('/tf', { transforms: [] });
    const w2 = await rig(sample({ 'frames.map': 'world' }), { fake: new FakeRclnodejs() });
    w2.robotAt(0, 0);
    await assert.rejects(
      w2.world.observe(),
      isWorldError('not-found', /no transform world ← base_link; known links: .*map → odom.*localization/),
    );
    await w2.world.close();
    r.fake.publish('/joint_states', { name: ['wheel_left_joint'], position: [0], effort: [0] });
    await assert.rejects(
      r.world.observe(),
      isWorldError(
        'invalid-input',
        /\$\.sensors\.joints\.fields\["gripper\.width_cm"\]: \/joint_states: "gripper_left_finger_joint" is not in name \(wheel_left_joint\)/,
      ),
    );
  } finally {
    await r.world.close();
  }
});

test('a goal: built from the arguments, feedback mapped to fields and reported, the result returned', async () => {
  const seen: unknown[] = [];
  const r = await rig(sample(), { onFeedback: (skill, fb) => seen.push([skill, fb]) });
  try {
    r.robotAt(0, 0);
    r.fake.servers.set('/navigate_to_pose', {
      execute: (g) => {
        g.feedback({ distance_remaining: 1.5, number_of_recoveries: 0 });
        setTimeout(() => {
          g.feedback({ distance_remaining: 0.2, number_of_recoveries: 1 });
          g.succeed({ error_code: 0 });
        }, 5);
      },
    });
    const out = await r.world.execute('navigate', { x: 2, y: 0, yaw: Math.PI }, call());
    // Jazzy's result and feedback, as they cross the wire: every field of the type, defaults where the server set none.
    assert.deepEqual(out, {
      status: 'succeeded',
      result: { error_code: 0, error_msg: '' },
      feedback: {
        current_pose: {
          header: { stamp: { sec: 0, nanosec: 0 }, frame_id: '' },
          pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
        },
        navigation_time: { sec: 0, nanosec: 0 },
        estimated_time_remaining: { sec: 0, nanosec: 0 },
        number_of_recoveries: 1,
        distance_remaining: Math.fround(0.2),
      },
    });
    const goal = JSON.parse(
      r.fake.log
        .find((l) => l.startsWith('goal '))!
        .split(' ')
        .slice(2)
        .join(' '),
    ) as {
      pose: { header: { frame_id: string }; pose: { position: { x: number }; orientation: { z: number; w: number } } };
    };
    assert.equal(goal.pose.header.frame_id, 'map');
    assert.equal(goal.pose.pose.position.x, 2);
    assert.ok(near(goal.pose.pose.orientation.z, 1) && Math.abs(goal.pose.pose.orientation.w) < 1e-9);
    assert.equal(seen.length, 2);
    assert.deepEqual((await r.world.observe())['nav'], { distance_remaining_m: Math.fround(0.2), recoveries: 1 });
    // A default argument fills the goal when the call leaves it out.
    r.fake.servers.set('/gripper_controller/gripper_cmd', {
      execute: (g) => g.succeed({ position: 0.01, reached_goal: true }),
    });
    await r.world.execute('grip', { position_m: 0.01 }, call());
    assert.match(r.fake.log.at(-1)!, /"command":\{"position":0\.01,"max_effort":20\}/);
  } finally {
    await r.world.close();
  }
});

test("a navigator's feedback is read for what it says: distance_remaining 0 before a path is no distance; Humble's feedback without a pose (current_pose in base_link) says nothing of the robot", async () => {
  const r = await rig(sample({ 'tools.navigate.feedback.nav\\.x': { path: 'current_pose.pose.position.x' } }));
  try {
    r.robotAt(0, 0);
    let goal: GoalControl | null = null;
    r.fake.servers.set('/navigate_to_pose', {
      execute: (g) => {
        goal = g;
      },
    });
    const running = r.world.execute('navigate', { x: 2, y: 0 }, call());
    await eventually(() => goal !== null, 'the goal runs');
    const step = (f: unknown): void => goal!.feedback(f);
    step({
      distance_remaining: 0,
      number_of_recoveries: 0,
      current_pose: { header: { frame_id: 'map' }, pose: { position: { x: 0.1 } } },
    });
    const nav = async (): Promise<unknown> => (await r.world.observe())['nav'];
    assert.deepEqual(await nav(), { recoveries: 0, x: 0.1 }, 'no distance before a path');
    step({
      distance_remaining: 0,
      number_of_recoveries: 1,
      current_pose: { header: { frame_id: 'base_link' }, pose: { position: { x: 0 } } },
    });
    assert.deepEqual(await nav(), { recoveries: 1, x: 0.1 }, 'the pose-less feedback leaves the pose as it was');
    step({
      distance_remaining: 2.5,
      number_of_recoveries: 1,
      current_pose: { header: { frame_id: 'map' }, pose: { position: { x: 0.3 } } },
    });
    assert.deepEqual(await nav(), { distance_remaining_m: 2.5, recoveries: 1, x: 0.3 });
    goal!.succeed({});
    await running;
  } finally {
    await r.world.close();
  }
});

test('our timeout cancels the running goal before the call rejects; an abort mid-goal does the same', async () => {
  const r = await rig();
  try {
    r.robotAt(0, 0);
    r.fake.servers.set('/navigate_to_pose', {});
    await assert.rejects(
      r.world.execute('navigate', { x: 5, y: 0 }, call(0.05)),
      isWorldError(
        'timeout',
        /skill navigate took longer than 0\.05 s; the goal was cancelled \(final status CANCELED\)/,
      ),
    );
    assert.deepEqual(
      r.fake.log.filter((l) => l.startsWith('cancel')),
      ['cancel /navigate_to_pose'],
    );
    // The tool's own timeout_s bounds a call that asks for more.
    const cfg = sample({ 'tools.navigate.timeout_s': 0.05 });
    const r2 = await rig(cfg, { fake: new FakeRclnodejs() });
    r2.robotAt(0, 0);
    r2.fake.servers.set('/navigate_to_pose', {});
    await assert.rejects(
      r2.world.execute('navigate', { x: 5, y: 0 }, call(60)),
      isWorldError('timeout', /longer than 0\.05 s/),
    );
    await r2.world.close();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    await assert.rejects(
      r.world.execute('navigate', { x: 5, y: 0 }, call(10, ac.signal)),
      isWorldError('cancelled', /skill navigate cancelled; the goal was cancelled/),
    );
    assert.equal(r.fake.log.filter((l) => l.startsWith('cancel')).length, 2);
  } finally {
    await r.world.close();
  }
});

test('a cancel the server rejects or never answers is reported: the robot may still be moving', async () => {
  const r = await rig();
  try {
    r.robotAt(0, 0);
    r.fake.servers.set('/navigate_to_pose', { onCancel: 'reject' });
    await assert.rejects(
      r.world.execute('navigate', { x: 5, y: 0 }, call(0.03)),
      isWorldError('timeout', /rejected the cancel request \(return code 1\): the robot may still be moving/),
    );
    r.fake.servers.set('/navigate_to_pose', { onCancel: 'ignore' });
    await assert.rejects(
      r.world.execute('navigate', { x: 5, y: 0 }, call(0.03)),
      isWorldError('timeout', /no answer to the cancel request within 0\.2 s/),
    );
    r.fake.servers.set('/navigate_to_pose', { onCancel: 'accept-keep-running' });
    await assert.rejects(
      r.world.execute('navigate', { x: 5, y: 0 }, call(0.03)),
      isWorldError('timeout', /accepted the cancel request but the goal had not stopped 0\.2 s later/),
    );
  } finally {
    await r.world.close();
  }
});

test('rejected, aborted, cancelled elsewhere, no server: each its own error class; bad arguments never send a goal', async () => {
  const r = await rig();
  try {
    r.robotAt(0, 0);
    r.fake.servers.set('/navigate_to_pose', { accept: () => false });
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError(
        'rejected',
        /navigate \(\/navigate_to_pose, nav2_msgs\/action\/NavigateToPose\): the server rejected the goal .*: a Nav2 navigator rejects every goal while its lifecycle node is not active \(`witness ros2 check` says; `ros2 lifecycle get \/bt_navigator`\)$/,
      ),
    );
    r.fake.servers.set('/navigate_to_pose', { execute: (g) => g.abort({ error_code: 104 }) });
    // Jazzy's code is named: 104 is FollowPath's PATIENCE_EXCEEDED (not a planner's "no valid path").
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError(
        'aborted',
        /aborted the goal; result \{"error_code":104,"error_msg":""\} \(Nav2's error_code 104: FollowPath PATIENCE_EXCEEDED\)$/,
      ),
    );
    r.fake.servers.set('/navigate_to_pose', { execute: (g) => g.abort({ error_code: 208, error_msg: '' }) });
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError('aborted', /\(Nav2's error_code 208: ComputePathToPose NO_VALID_PATH\)$/),
    );
    // Jazzy's 0: no code, and what that can mean.
    r.fake.servers.set('/navigate_to_pose', {
      execute: (g) => {
        g.feedback({ distance_remaining: 2, number_of_recoveries: 5 });
        g.abort({ error_code: 0, error_msg: '' });
      },
    });
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError(
        'aborted',
        /Nav2 gave no error code: Humble's results carry none; Jazzy's navigator aborts without one when it cannot read the robot's pose or transform the goal .*another navigator is running a goal.*; Nav2 ran 5 recovery action\(s\) first/,
      ),
    );
    r.fake.servers.set('/navigate_to_pose', { execute: (g) => g.canceledElsewhere() });
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError('cancelled', /cancelled by another client/),
    );
    r.fake.servers.delete('/navigate_to_pose');
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError('not-found', /no action server answered within 0\.05 s.*ros2 action list -t/),
    );
    const sent = r.fake.log.length;
    await assert.rejects(
      r.world.execute('navigate', { y: 1 }, call()),
      isWorldError('invalid-input', /navigate: missing argument "x" \(for pose\.pose\.position\.x\)/),
    );
    await assert.rejects(
      r.world.execute('navigate', { x: 1, y: 1, yaw: 'north' }, call()),
      isWorldError('invalid-input', /"yaw".*finite number of radians/),
    );
    await assert.rejects(
      r.world.execute('fly', {}, call()),
      isWorldError('invalid-input', /no skill "fly"; the skills are navigate, grip, clear_costmaps/),
    );
    assert.equal(r.fake.log.length, sent);
  } finally {
    await r.world.close();
  }
  // Humble's navigators answer with std_msgs/Empty (rosidl gives it one member, structure_needs_at_least_one_member;
  // rclnodejs reads it as {}).
  const h = await rig(sample(), { fake: new FakeRclnodejs({ distro: 'humble' }) });
  try {
    h.robotAt(0, 0);
    h.fake.servers.set('/navigate_to_pose', {
      execute: (g) => g.abort({ result: { structure_needs_at_least_one_member: 0 } }),
    });
    await assert.rejects(
      h.world.execute('navigate', { x: 1, y: 1 }, call()),
      isWorldError(
        'aborted',
        /aborted the goal; result \{"result":\{\}\} \(Nav2 gave no error code: Humble's results carry none/,
      ),
    );
  } finally {
    await h.world.close();
  }
});

test('services: a response, a reported failure, no server, and a timeout that says the call cannot be cancelled', async () => {
  const r = await rig(
    sample({
      'services.clear_costmaps.service': '/global_costmap/clear_entirely_global_costmap',
      'services.clear_costmaps.success': 'success',
      'services.clear_costmaps.message': 'message',
      'services.clear_costmaps.type': 'std_srvs/srv/Trigger',
    }),
  );
  try {
    r.fake.serviceServers.set('/global_costmap/clear_entirely_global_costmap', {
      handle: () => ({ success: true, message: '' }),
    });
    assert.deepEqual(await r.world.execute('clear_costmaps', {}, call()), { success: true, message: '' });
    r.fake.serviceServers.set('/global_costmap/clear_entirely_global_costmap', {
      handle: () => ({ success: false, message: 'costmap locked' }),
    });
    await assert.rejects(
      r.world.execute('clear_costmaps', {}, call()),
      isWorldError('failed', /the service reported failure: costmap locked/),
    );
    r.fake.serviceServers.set('/global_costmap/clear_entirely_global_costmap', { handle: () => undefined });
    await assert.rejects(
      r.world.execute('clear_costmaps', {}, call(0.03)),
      isWorldError('timeout', /cannot be cancelled, so its response will be ignored/),
    );
    r.fake.serviceServers.clear();
    await assert.rejects(
      r.world.execute('clear_costmaps', {}, call()),
      isWorldError('not-found', /ros2 service list -t/),
    );
  } finally {
    await r.world.close();
  }
});

test('reset waits for fresh data (disconnected past the bound) and calls the reset service', async () => {
  const plain = await rig(sample(), { clock: false });
  await assert.rejects(plain.world.reset({ seed: 0 }), isWorldError('disconnected', /not ready within 0\.3 s/));
  await plain.world.close();
  const r = await rig(sample({ reset: { service: '/reset_world', type: 'std_srvs/srv/Empty', timeout_s: 1 } }), {
    clock: false,
  });
  try {
    r.fake.serviceServers.set('/reset_world', { handle: () => ({}) });
    await assert.rejects(
      r.world.reset({ seed: 0 }),
      isWorldError('disconnected', /not ready within 0\.3 s: no message yet on \/odom/),
    );
    const feed = setInterval(() => r.robotAt(0, 0), 10);
    try {
      const s = await r.world.tools.reset({ seed: 0 });
      assert.ok(s['base'] !== undefined && s['gripper'] !== undefined, JSON.stringify(s));
      assert.ok(r.fake.log.includes('request /reset_world {}'));
    } finally {
      clearInterval(feed);
    }
  } finally {
    await r.world.close();
  }
});

test('closing cancels a running goal and fails it as closed; later calls fail clearly; rclnodejs shuts down with the last world', async () => {
  const fake = new FakeRclnodejs();
  const a = await rig(sample(), { fake });
  const b = await rig(sample(), { fake });
  // The trigger is the server running the goal (accepted, so the world holds its handle), not the
  // request being sent: closing between the two is the other case ("before the server answered").
  let executing = false;
  a.robotAt(0, 0);
  fake.servers.set('/navigate_to_pose', {
    execute: () => {
      executing = true;
    },
  });
  const running = a.world.execute('navigate', { x: 3, y: 0 }, call(30));
  await eventually(() => executing, 'the server runs the goal');
  await a.world.close();
  await assert.rejects(running, isWorldError('closed', /closed during the call; the goal was cancelled/));
  await assert.rejects(a.world.observe(), isWorldError('closed', /the world was closed; open a new one/));
  await assert.rejects(a.world.execute('navigate', { x: 1, y: 0 }, call()), isWorldError('closed'));
  assert.equal(fake.log.filter((l) => l === 'init').length, 1, 'one init for two worlds');
  assert.ok(!fake.log.includes('shutdown'), 'b still uses it');
  fake.module.shutdown();
  await assert.rejects(b.world.observe(), isWorldError('disconnected', /the ROS 2 context was shut down/));
  await b.world.close();
  const c = await rig(sample(), { fake });
  await c.world.close();
  assert.deepEqual(
    fake.log.filter((l) => l === 'init' || l === 'shutdown'),
    ['init', 'shutdown', 'init', 'shutdown'],
  );
});

test('an interface rclnodejs has no code for fails to open with the install and generate commands', async () => {
  const fake = new FakeRclnodejs();
  fake.knownTypes = new Set([
    'nav_msgs/msg/Odometry',
    'sensor_msgs/msg/JointState',
    'tf2_msgs/msg/TFMessage',
    'control_msgs/action/GripperCommand',
    'nav2_msgs/srv/ClearEntireCostmap',
  ]);
  await assert.rejects(
    Ros2World.open(sample(), fake.module, { distro: 'humble' }),
    isWorldError(
      'not-found',
      /tool navigate \(\/navigate_to_pose\): rclnodejs has no generated code for nav2_msgs\/action\/NavigateToPose .*sudo apt install ros-humble-nav2-msgs.*npx generate-ros-messages/,
    ),
  );
  assert.deepEqual(fake.log.slice(-2), ['destroy witness', 'shutdown'], 'a failed open cleans up');
});

test('the control loop over ROS 2: tools registered against the world\'s vocabulary; "succeeded" without moving fails its postcondition; a slow goal is a timeout record and gets cancelled', async () => {
  const { parseTool, registerTools } = await import('../../../main/core/loop/tools.js');
  const { runLoop } = await import('../../../main/core/loop/loop.js');
  const { ScriptedPlanner, parseScript } = await import('../../../main/core/loop/planners.js');
  const r = await rig(sample(), { clock: false });
  let x = 0;
  const feed = setInterval(() => r.robotAt(x, 0), 5);
  try {
    r.robotAt(0, 0);
    const def = (timeout_s: number) =>
      parseTool(
        {
          name: 'go_to_bench',
          description: 'drive to the bench',
          skill: 'navigate',
          timeout_s,
          arguments: {
            type: 'object',
            required: ['x', 'y'],
            properties: { x: { type: 'number' }, y: { type: 'number' } },
          },
          postconditions: [{ name: 'at_bench', expr: 'at.bench' }],
          failures: [{ when: '!at.bench', label: 'not-at-goal', class: 'transient' }],
        },
        'go_to_bench.json',
      );
    const bad = () =>
      registerTools(
        [
          {
            def: parseTool({ ...def(5), postconditions: [{ name: 'p', expr: 'at.kitchen' }] }, 't.json'),
            file: 't.json',
          },
        ],
        r.world.vocabulary(),
      );
    assert.throws(bad, /unknown field "at\.kitchen"/);
    const tools = registerTools([{ def: def(5), file: 'go_to_bench.json' }], r.world.vocabulary());
    const plan = new ScriptedPlanner(parseScript({ steps: [{ tool: 'go_to_bench', args: { x: 2, y: 0 } }] }, 'p.json'));
    // A navigator that reports success but never moves: the loop does not believe it.
    r.fake.servers.set('/navigate_to_pose', { execute: (g) => g.succeed({}) });
    const lie = await runLoop(tools, r.world, plan, 'go to the bench', {
      replans: 0,
      goal: 'at.bench',
      clock: () => 0,
    });
    assert.equal(lie.outcome, 'escalated');
    assert.deepEqual(
      [lie.failures[0]!.stage, lie.failures[0]!.label, lie.failures[0]!.observed['at.bench']],
      ['postcondition', 'not-at-goal', false],
    );
    // One that drives there.
    r.fake.servers.set('/navigate_to_pose', {
      execute: (g) =>
        setTimeout(() => {
          x = (g.goal as { pose: { pose: { position: { x: number } } } }).pose.pose.position.x;
          setTimeout(() => g.succeed({}), 20);
        }, 10),
    });
    const ok = await runLoop(tools, r.world, plan, 'go to the bench', { replans: 0, goal: 'at.bench', clock: () => 0 });
    assert.equal(ok.outcome, 'success', ok.reason);
    // One too slow for the tool's timeout: a timeout record, and the goal is cancelled on the robot.
    x = 0;
    r.fake.servers.set('/navigate_to_pose', {});
    const slow = await runLoop(
      registerTools([{ def: def(0.05), file: 'go_to_bench.json' }], r.world.vocabulary()),
      r.world,
      plan,
      'go to the bench',
      { replans: 0, goal: 'at.bench', clock: () => 0 },
    );
    assert.equal(slow.failures[0]!.stage, 'timeout');
    await eventually(() => r.fake.log.includes('cancel /navigate_to_pose'), 'the goal was cancelled on the robot');
  } finally {
    clearInterval(feed);
    await r.world.close();
  }
});

test("map missions' path check: ComputePathToPose from the given start (use_start), its path read; Nav2's error code named; Humble's bare abort, an empty path and no server each fail clearly", async () => {
  const r = await rig(
    sample({ 'waypoints.server_timeout_s': 0.05, 'waypoints.compute_path': { planner_id: 'GridBased', timeout_s: 2 } }),
  );
  try {
    const nav = r.world.waypoints!;
    const pose = (x: number, y: number) => ({
      pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    });
    r.fake.servers.set('/compute_path_to_pose', {
      execute: (g) =>
        g.succeed({
          path: { header: { frame_id: 'map' }, poses: [pose(1, 2), pose(1.5, 2), pose(2, 2.5)] },
          error_code: 0,
        }),
    });
    const path = await nav.planPath!({ x: 1, y: 2 }, { x: 2, y: 2.5, yaw: Math.PI / 2 }, {});
    assert.deepEqual(
      path.map((p) => [p.x, p.y]),
      [
        [1, 2],
        [1.5, 2],
        [2, 2.5],
      ],
    );
    const sent = JSON.parse(
      r.fake.log.find((l) => l.startsWith('goal /compute_path_to_pose'))!.replace('goal /compute_path_to_pose ', ''),
    ) as {
      goal: { header: { frame_id: string }; pose: { position: { x: number } } };
      start: { pose: { position: { x: number; y: number } } };
      planner_id: string;
      use_start: boolean;
    };
    assert.equal(sent.use_start, true);
    assert.equal(sent.planner_id, 'GridBased');
    assert.equal(sent.goal.header.frame_id, 'map');
    assert.deepEqual([sent.start.pose.position.x, sent.start.pose.position.y], [1, 2]);
    r.fake.servers.set('/compute_path_to_pose', {
      execute: (g) =>
        g.abort({
          path: { poses: [] },
          error_code: 208,
          error_msg: 'Failed to create plan with tolerance of: 0.000000',
        }),
    });
    await assert.rejects(
      nav.planPath!({ x: 1, y: 2 }, { x: 9, y: 9 }, {}),
      isWorldError(
        'aborted',
        /path from \(1\.00, 2\.00\) to \(9\.00, 9\.00\) \(\/compute_path_to_pose, nav2_msgs\/action\/ComputePathToPose\): the server aborted the goal; .*"error_code":208.* \(NO_VALID_PATH\)$/,
      ),
    );
    r.fake.servers.set('/compute_path_to_pose', { execute: (g) => g.succeed({ path: { poses: [] } }) });
    await assert.rejects(
      nav.planPath!({ x: 1, y: 2 }, { x: 9, y: 9 }, {}),
      isWorldError('failed', /ComputePathToPose\): the path is empty/),
    );
    r.fake.servers.set('/compute_path_to_pose', {
      execute: (g) => g.succeed({ path: { poses: [{ pose: { position: { x: NaN } } }] } }),
    });
    await assert.rejects(
      nav.planPath!({ x: 1, y: 2 }, { x: 9, y: 9 }, {}),
      isWorldError('failed', /path\.poses\[0\] has no finite pose\.position/),
    );
    r.fake.servers.delete('/compute_path_to_pose');
    await assert.rejects(
      nav.planPath!({ x: 1, y: 2 }, { x: 9, y: 9 }, {}),
      isWorldError(
        'not-found',
        /no action server answered within 0\.05 s.*\/compute_path_to_pose \[nav2_msgs\/action\/ComputePathToPose\]/,
      ),
    );
  } finally {
    await r.world.close();
  }
  // Humble's ComputePathToPose result has no error code: an abort is bare, and said to be.
  const h = await rig(sample({ 'waypoints.server_timeout_s': 0.05 }), {
    fake: new FakeRclnodejs({ distro: 'humble' }),
  });
  try {
    h.fake.servers.set('/compute_path_to_pose', { execute: (g) => g.abort({ path: { poses: [] }, error_code: 208 }) });
    await assert.rejects(
      h.world.waypoints!.planPath!({ x: 1, y: 2 }, { x: 9, y: 9 }, {}),
      isWorldError(
        'aborted',
        /the server aborted the goal; result \{"path":\{"header":\{"stamp":\{"sec":0,"nanosec":0\},"frame_id":""\},"poses":\[\]\},"planning_time":\{"sec":0,"nanosec":0\}\} \(no error code: Humble's planner server reports none\)$/,
      ),
    );
  } finally {
    await h.world.close();
  }
});

test('the keepout mask: an OccupancyGrid in the waypoints frame and one CostmapFilterInfo (type 0, base 0, multiplier 1), both latched, on the configured topics', async () => {
  const r = await rig(
    sample({
      'waypoints.keepout': { mask_topic: '/witness/keepout', info_topic: '/witness/keepout_info', resolution_m: 0.1 },
    }),
  );
  try {
    const k = r.world.waypoints!.keepout!;
    assert.equal(k.resolution_m, 0.1);
    const data = Int8Array.from([0, 100, 0, 100, 100, 0]);
    const where = k.publish({ originX: -1, originY: 2, resolution_m: 0.1, width: 3, height: 2, data });
    k.publish({ originX: -1, originY: 2, resolution_m: 0.1, width: 3, height: 2, data: new Int8Array(6) });
    assert.equal(where, '/witness/keepout (filter info on /witness/keepout_info)');
    const latched = { history: 1, depth: 1, reliability: 1, durability: 1 };
    assert.deepEqual({ ...r.fake.publishers.find((p) => p.topic === '/witness/keepout')?.qos }, latched);
    assert.deepEqual({ ...r.fake.publishers.find((p) => p.topic === '/witness/keepout_info')?.qos }, latched);
    const masks = r.fake.sent.get('/witness/keepout') as {
      header: { frame_id: string };
      info: { resolution: number; width: number; height: number; origin: { position: { x: number; y: number } } };
      data: Int8Array;
    }[];
    assert.equal(masks.length, 2);
    assert.deepEqual(
      {
        frame: masks[0]!.header.frame_id,
        res: masks[0]!.info.resolution,
        w: masks[0]!.info.width,
        h: masks[0]!.info.height,
        x: masks[0]!.info.origin.position.x,
        y: masks[0]!.info.origin.position.y,
      },
      { frame: 'map', res: Math.fround(0.1), w: 3, h: 2, x: -1, y: 2 },
      'resolution is a float32 on the wire',
    );
    assert.deepEqual(Array.from(masks[0]!.data), [0, 100, 0, 100, 100, 0]);
    const infos = r.fake.sent.get('/witness/keepout_info') as Record<string, unknown>[];
    assert.equal(infos.length, 1, 'the filter info once: a new one makes Nav2 resubscribe');
    assert.deepEqual(
      { ...infos[0], header: undefined },
      { header: undefined, type: 0, filter_mask_topic: '/witness/keepout', base: 0, multiplier: 1 },
    );
  } finally {
    await r.world.close();
  }
  assert.throws(
    () => sample({ 'waypoints.keepout': { mask_topic: '/k', info_topic: '/k' } }),
    /\$\.waypoints\.keepout\.info_topic.*the filter info and the mask need two topics; both are \/k/,
  );
  assert.throws(() => sample({ 'waypoints.keepout': { resolution_m: 0 } }), /\$\.waypoints\.keepout\.resolution_m/);
  assert.throws(
    () => sample({ 'waypoints.compute_path': { action: 'not a name' } }),
    /\$\.waypoints\.compute_path\.action.*not a ROS name/,
  );
  const d = sample().waypoints!;
  assert.deepEqual(d.keepout, {
    mask_topic: '/keepout_filter_mask',
    info_topic: '/costmap_filter_info',
    resolution_m: 0.05,
  });
  assert.deepEqual(
    [d.compute_path.action, d.compute_path.type, d.compute_path.planner_id, d.compute_path.timeout_s],
    ['/compute_path_to_pose', 'nav2_msgs/action/ComputePathToPose', '', 10],
  );
});
