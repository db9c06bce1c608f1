// The rclnodejs surface a real robot exercises, over the stand-in with Humble's and Jazzy's
// interface definitions: goals, requests and messages validated (a field that does not fit is
// invalid-input naming it; a misspelled configured field fails on load), services through
// sendRequestAsync under Witness's deadline, velocity commands through the collision monitor's input,
// QoS compatibility (best-effort publishers, latched topics).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorldError, type WorldErrorKind } from '../../../main/core/world/world.js';
import type { Distro } from '../../../main/backends/ros2/interfaces.js';
import { GAZEBO, rig, sample } from './helpers.js';
import {
  FakeRclnodejs,
  LATCHED_QOS,
  MessageValidationError,
  SENSOR_QOS,
  jointState,
  odometry,
} from './fake-rclnodejs.js';

const isWorldError =
  (kind: WorldErrorKind, re?: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof WorldError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (re) assert.match(e.message, re);
    return true;
  };
const call = (timeout_s = 5) => ({ timeout_s, signal: new AbortController().signal });
const DISTROS: readonly Distro[] = ['humble', 'jazzy'];

/**
 * A lab's own action and service, which Witness has no definition of (rclnodejs generates code for them when
 * installed).
 */
function defineLab(fake: FakeRclnodejs): FakeRclnodejs {
  fake.define('lab_msgs/action/Dock', 'string dock_id\nfloat64 speed\n---\nbool success\n---\nfloat32 progress');
  fake.define('lab_msgs/srv/SetLight', 'string color\nuint8 level\n---\nbool success\nstring message');
  fake.define('lab_msgs/msg/Drive', 'float64 speed\nfloat64 turn');
  return fake;
}

const LAB = {
  'tools.dock': {
    action: '/dock',
    type: 'lab_msgs/action/Dock',
    timeout_s: 5,
    server_timeout_s: 0.05,
    goal: { dock_idd: { arg: 'dock' }, speed: { arg: 'speed', default: 0.2 } },
  },
  'services.light': {
    service: '/light',
    type: 'lab_msgs/srv/SetLight',
    timeout_s: 5,
    server_timeout_s: 0.05,
    request: { colour: { arg: 'color' } },
    success: 'success',
  },
};

test('a misspelled field in a configuration fails on load, naming the field and the fields the type has (goals, feedback, sensors, services, the command)', () => {
  assert.throws(
    () => sample({ 'tools.navigate.goal': { 'pose.pose.positon.x': { arg: 'x' } } }),
    /\$\.tools\.navigate\.goal\["pose\.pose\.positon\.x"\]: "pose\.pose\.positon\.x" does not fit nav2_msgs\/action\/NavigateToPose \(its goal\): geometry_msgs\/Pose has no field "positon" \(in pose\.pose\); its fields are position, orientation/,
  );
  assert.throws(
    () => sample({ 'tools.navigate.feedback': { 'nav.left_m': { path: 'distance_remainig' } } }),
    /\$\.tools\.navigate\.feedback\["nav\.left_m"\]\.path: .* \(its feedback\): .*has no field "distance_remainig"; its fields are current_pose, navigation_time, estimated_time_remaining, number_of_recoveries, distance_remaining/,
  );
  assert.throws(
    () => sample({ 'sensors.odom.fields': { 'base.vx': { path: 'twist.twist.linar.x' } } }),
    /\$\.sensors\.odom\.fields\["base\.vx"\]\.path: .*geometry_msgs\/Twist has no field "linar" \(in twist\.twist\)/,
  );
  assert.throws(
    () => sample({ 'sensors.joints.fields': { 'gripper.width_cm': { path: 'positions[name=finger]' } } }),
    /sensor_msgs\/JointState has no field "positions"/,
  );
  assert.throws(
    () => sample({ 'sensors.odom.fields': { 'base.vx': { path: 'twist.twist.linear' } } }),
    /"twist\.twist\.linear" is a geometry_msgs\/Vector3, not a single value: name one of its fields/,
  );
  assert.throws(
    () => sample({ 'services.clear_costmaps.success': 'success' }),
    /\$\.services\.clear_costmaps\.success: "success" does not fit nav2_msgs\/srv\/ClearEntireCostmap \(its response\): .*has no field "success"; its fields are response/,
  );
  assert.throws(
    () => sample({ 'tools.navigate.goal': { 'pose.header.stamp': { yaw_to_quaternion: 'yaw' } } }),
    /yaw_to_quaternion.*"pose\.header\.stamp" is a time; yaw_to_quaternion writes a geometry_msgs\/Quaternion/,
  );
  const nav = {
    command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'angullar.z'] },
    observation: ['base.x', 'base.y'],
    bounds: { min: [0, 0], max: [1, 1] },
  };
  assert.throws(
    () => sample({ navigation: nav }),
    /\$\.navigation\.command\.action\[1\]: .*geometry_msgs\/Twist has no field "angullar"; its fields are linear, angular/,
  );
  // The shipped samples, and a type Witness does not know, load.
  sample();
  sample({}, GAZEBO);
  sample(LAB);
});

/**
 * The stand-in is rclnodejs on the wire: without validation unknown fields are dropped and missing ones sent as
 * defaults; with it the call throws.
 */
async function wireLikeRclnodejs(distro: Distro): Promise<void> {
  const fake = new FakeRclnodejs({ distro });
  const rcl = fake.load();
  fake.removeSignalHandler();
  await rcl.init();
  const node = new rcl.Node('probe');
  const seen: Record<string, unknown>[] = [];
  fake.servers.set('/navigate_to_pose', {
    execute: (g) => {
      seen.push(g.goal);
      g.succeed({});
    },
  });
  const loose = new rcl.ActionClient(node, 'nav2_msgs/action/NavigateToPose', '/navigate_to_pose');
  const h = await loose.sendGoal({ pose: { pose: { positon: { x: 3 } } }, behavior_tree: '', speed: 2 });
  const result = await h.getResult();
  assert.deepEqual(
    seen[0],
    {
      pose: {
        header: { stamp: { sec: 0, nanosec: 0 }, frame_id: '' },
        pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      },
      behavior_tree: '',
    },
    'a typo sends zeros',
  );
  // Humble's NavigateToPose result is std_msgs/Empty; Jazzy's carries an error code and message.
  assert.deepEqual(result, distro === 'humble' ? { result: {} } : { error_code: 0, error_msg: '' });
  const strict = new rcl.ActionClient(node, 'nav2_msgs/action/NavigateToPose', '/navigate_to_pose', {
    validateGoals: true,
  });
  assert.throws(
    () => strict.sendGoal({ pose: { pose: { positon: { x: 3 } } } }),
    (e: unknown) => {
      assert.ok(e instanceof MessageValidationError);
      assert.equal(
        e.message,
        "Invalid message for 'nav2_msgs/action/NavigateToPose_Goal': pose.pose.positon: UNKNOWN_FIELD",
      );
      return true;
    },
  );
  rcl.shutdown();
}

for (const distro of DISTROS) {
  test(`${distro}: a goal, a request and a command that do not fit their types are invalid-input naming the field and the mapping that wrote it; nothing is sent`, async () => {
    await wireLikeRclnodejs(distro);
    const drive = {
      command: { topic: '/drive', type: 'lab_msgs/msg/Drive', action: ['speed', 'trun'] },
      observation: ['base.x', 'base.y'],
      bounds: { min: [-5, -5], max: [5, 5] },
    };
    const r = await rig(sample({ ...LAB, navigation: drive }), { fake: defineLab(new FakeRclnodejs({ distro })) });
    try {
      r.fake.servers.set('/dock', { execute: (g) => g.succeed({ success: true }) });
      r.fake.servers.set('/navigate_to_pose', { execute: (g) => g.succeed({}) });
      r.fake.serviceServers.set('/light', { handle: () => ({ success: true, message: '' }) });
      // Localised: a navigator goal goes no further than Witness's own checks otherwise.
      r.robotAt(0, 0);
      const before = r.fake.log.length;
      // A type Witness does not know: checked by rclnodejs when the goal is sent (validateGoals).
      await assert.rejects(
        r.world.execute('dock', { dock: 'A' }, call()),
        isWorldError(
          'invalid-input',
          /dock \(\/dock, lab_msgs\/action\/Dock\): the goal does not fit lab_msgs\/action\/Dock: field "dock_idd": no such field in the type, written by \$\.tools\.dock\.goal\["dock_idd"\]; nothing was sent/,
        ),
      );
      await assert.rejects(
        r.world.execute('light', { color: 'red' }, call()),
        isWorldError(
          'invalid-input',
          /light \(\/light, lab_msgs\/srv\/SetLight\): the request does not fit lab_msgs\/srv\/SetLight: field "colour": no such field in the type, written by \$\.services\.light\.request\["colour"\]/,
        ),
      );
      // A value of the wrong type: a string where the goal has a float64.
      await assert.rejects(
        r.world.execute('navigate', { x: 'far', y: 1 }, call()),
        isWorldError(
          'invalid-input',
          /field "pose\.pose\.position\.x": the wrong type \(expected number, got string\), written by \$\.tools\.navigate\.goal\["pose\.pose\.position\.x"\]/,
        ),
      );
      // A command of a type Witness does not know: checked by rclnodejs when it is published (validateMessages).
      await assert.rejects(
        r.world.navigation!.step(Float32Array.of(0.5, 0.1)),
        isWorldError(
          'invalid-input',
          /navigation command \(\/drive\): the message does not fit lab_msgs\/msg\/Drive: field "trun": no such field in the type, written by \$\.navigation\.command\.action\[1\]/,
        ),
      );
      assert.equal(r.fake.log.length, before, `nothing went out: ${r.fake.log.slice(before).join('; ')}`);
      assert.deepEqual(r.fake.serverGoals, []);
      assert.equal(r.fake.sent.get('/drive'), undefined);
    } finally {
      await r.world.close();
    }
  });
}

test("services go through sendRequestAsync under Witness's deadline: past it the call is a timeout and no response callback stays registered", async () => {
  const r = await rig(sample({ 'services.clear_costmaps.timeout_s': 0.1 }));
  try {
    // The sample's clear_costmaps is a chain (local, then global): one deadline for both calls, the second never
    // answered.
    r.fake.serviceServers.set('/local_costmap/clear_entirely_local_costmap', { handle: () => ({}) });
    r.fake.serviceServers.set('/global_costmap/clear_entirely_global_costmap', { handle: () => undefined });
    await assert.rejects(
      r.world.execute('clear_costmaps', {}, call()),
      isWorldError('timeout', /cannot be cancelled, so its response will be ignored/),
    );
    assert.equal(
      r.fake.pendingResponses.get('/global_costmap/clear_entirely_global_costmap'),
      0,
      'the response callback was dropped at the deadline',
    );
    const stop = new AbortController();
    const pending = r.world.execute('clear_costmaps', {}, { timeout_s: 5, signal: stop.signal });
    setTimeout(() => stop.abort(), 20);
    await assert.rejects(pending, isWorldError('cancelled'));
    assert.equal(
      r.fake.pendingResponses.get('/global_costmap/clear_entirely_global_costmap'),
      0,
      'and when the caller cancelled',
    );
    r.fake.serviceServers.set('/global_costmap/clear_entirely_global_costmap', { handle: () => ({}) });
    assert.deepEqual(await r.world.execute('clear_costmaps', {}, call()), { response: {} });
  } finally {
    await r.world.close();
  }
});

/** The Gazebo sample with a velocity command on `topic`; odometry and joint states fed until stopped. */
async function velocityRig(distro: Distro, topic: string, type = 'geometry_msgs/msg/Twist') {
  const nav = {
    command: {
      topic,
      type,
      action: type.endsWith('Stamped') ? ['twist.linear.x', 'twist.angular.z'] : ['linear.x', 'angular.z'],
    },
    observation: ['base.x', 'base.y', 'base.yaw'],
    bounds: { min: [-5, -5], max: [5, 5] },
  };
  const r = await rig(sample({ navigation: nav, connect_timeout_s: 1 }, GAZEBO), {
    fake: new FakeRclnodejs({ distro }),
    clock: false,
  });
  const feed = setInterval(() => {
    r.fake.publish('/odom', odometry(0, 0));
    r.fake.publish('/joint_states', jointState({ wheel_left_joint: 0, wheel_right_joint: 0 }));
  }, 10);
  return Object.assign(r, { stopFeed: () => clearInterval(feed) });
}

test('jazzy: where a collision monitor runs, a velocity command that would bypass it is refused before anything moves; into its input it goes through', async () => {
  // Jazzy's nav2_bringup: velocity_smoother → cmd_vel_smoothed → collision_monitor → cmd_vel.
  const bypass = await velocityRig('jazzy', '/cmd_vel');
  bypass.fake.addPeer('collision_monitor', [
    { name: '/cmd_vel_smoothed', types: ['geometry_msgs/msg/Twist'] },
    { name: '/scan', types: ['sensor_msgs/msg/LaserScan'] },
  ]);
  try {
    await assert.rejects(
      bypass.world.navigation!.reset({ seed: 0 }),
      isWorldError(
        'invalid-input',
        /a collision monitor runs on this robot \(\/collision_monitor\) and its input is \/cmd_vel_smoothed \(geometry_msgs\/msg\/Twist\): publishing the navigation command on \/cmd_vel would bypass it\. Set navigation\.command\.topic to its input \(\/cmd_vel_smoothed\)/,
      ),
    );
    await assert.rejects(
      bypass.world.navigation!.step(Float32Array.of(0.5, 0)),
      isWorldError('invalid-input', /would bypass it/),
    );
    assert.equal(bypass.fake.sent.get('/cmd_vel'), undefined, 'nothing was published');
  } finally {
    bypass.stopFeed();
    await bypass.world.close();
  }
  const through = await velocityRig('jazzy', '/cmd_vel_smoothed');
  through.fake.addPeer('collision_monitor', [{ name: '/cmd_vel_smoothed', types: ['geometry_msgs/msg/Twist'] }]);
  const heard: unknown[] = [];
  through.fake.onPublish('/cmd_vel_smoothed', (m) => heard.push(m), { reliability: 1, durability: 2, depth: 1 });
  try {
    await through.world.navigation!.reset({ seed: 0 });
    await through.world.navigation!.step(Float32Array.of(0.5, 0.1));
    assert.deepEqual(heard.at(-1), { linear: { x: 0.5, y: 0, z: 0 }, angular: { x: 0, y: 0, z: Math.fround(0.1) } });
  } finally {
    through.stopFeed();
    await through.world.close();
  }
  assert.deepEqual(
    heard.at(-1),
    { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } },
    'closing the world left the robot at rest',
  );
  // A monitor that takes TwistStamped (enable_stamped_cmd_vel) does not receive a Twist.
  const stamped = await velocityRig('jazzy', '/cmd_vel_smoothed');
  stamped.fake.addPeer('collision_monitor', [{ name: '/cmd_vel_smoothed', types: ['geometry_msgs/msg/TwistStamped'] }]);
  try {
    await assert.rejects(
      stamped.world.navigation!.reset({ seed: 0 }),
      isWorldError(
        'invalid-input',
        /the collision monitor's input \/cmd_vel_smoothed \(\/collision_monitor\) takes geometry_msgs\/msg\/TwistStamped; navigation\.command\.type is geometry_msgs\/msg\/Twist/,
      ),
    );
  } finally {
    stamped.stopFeed();
    await stamped.world.close();
  }
});

test('humble: no collision monitor in the graph (nav2_bringup starts none): the command goes to /cmd_vel as configured', async () => {
  const r = await velocityRig('humble', '/cmd_vel');
  try {
    await r.world.navigation!.reset({ seed: 0 });
    await r.world.navigation!.step(Float32Array.of(0.2, 0));
    assert.equal(r.fake.sent.get('/cmd_vel')?.length, 1);
  } finally {
    r.stopFeed();
    await r.world.close();
  }
  assert.deepEqual(
    r.fake.sent.get('/cmd_vel')?.at(-1),
    { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } },
    'a zero command when the world closed',
  );
});

for (const distro of DISTROS) {
  test(`${distro}: a best-effort publisher reaches Witness's sensors by default; a subscription pinned reliable receives nothing from it`, async () => {
    const fake = new FakeRclnodejs({ distro });
    // A driver publishing with SensorDataQoS (best effort), as lidars and many odometry drivers do.
    fake.advertise('/joint_states', 'sensor_msgs/msg/JointState', SENSOR_QOS);
    const r = await rig(sample({ 'sensors.joints.qos': undefined }), { fake });
    try {
      r.robotAt(1, 1);
      const s = await r.world.observe();
      assert.deepEqual(s['gripper'], { width_cm: 4, effort_N: 3 });
    } finally {
      await r.world.close();
    }
    const pinned = await rig(sample({ 'sensors.joints.qos': { reliability: 'reliable' } }), {
      fake: (() => {
        const f = new FakeRclnodejs({ distro });
        f.advertise('/joint_states', 'sensor_msgs/msg/JointState', SENSOR_QOS);
        return f;
      })(),
    });
    try {
      pinned.robotAt(1, 1);
      await assert.rejects(pinned.world.observe(), isWorldError('disconnected', /no message yet on \/joint_states/));
    } finally {
      await pinned.world.close();
    }
  });

  test(`${distro}: a latched topic (transient local, keep last 1) published before Witness connected arrives once and never reads as stale`, async () => {
    const fake = new FakeRclnodejs({ distro });
    fake.advertise('/dock_state', 'std_msgs/msg/String', LATCHED_QOS);
    fake.publish('/dock_state', { data: 'docked' });
    const docked = {
      dock_state: {
        topic: '/dock_state',
        type: 'std_msgs/msg/String',
        qos: { durability: 'transient_local', depth: 1 },
        fields: { 'dock.state': { path: 'data', type: 'string' } },
      },
    };
    const r = await rig(sample({ 'sensors.dock_state': docked.dock_state }), { fake });
    try {
      await new Promise((resolve) => setImmediate(resolve));
      r.robotAt(1, 1);
      assert.equal((await r.world.observe())['dock'] !== undefined, true);
      assert.deepEqual((await r.world.observe())['dock'], { state: 'docked' });
      r.clock += 3600;
      r.robotAt(1, 1);
      assert.deepEqual((await r.world.observe())['dock'], { state: 'docked' }, 'an hour later it is still the state');
      assert.equal(r.world.staleSensors().length, 0);
    } finally {
      await r.world.close();
    }
    // A volatile subscription does not get what was published before it joined.
    const late = new FakeRclnodejs({ distro });
    late.advertise('/dock_state', 'std_msgs/msg/String', LATCHED_QOS);
    late.publish('/dock_state', { data: 'docked' });
    const v = await rig(sample({ 'sensors.dock_state': { ...docked.dock_state, qos: { durability: 'volatile' } } }), {
      fake: late,
    });
    try {
      await new Promise((resolve) => setImmediate(resolve));
      v.robotAt(1, 1);
      await assert.rejects(v.world.observe(), isWorldError('disconnected', /no message yet on \/dock_state/));
    } finally {
      await v.world.close();
    }
  });
}
