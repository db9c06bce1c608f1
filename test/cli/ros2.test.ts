import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ros2Command } from '../../main/cli/ros2.js';
import { createDirectApi } from '../../main/api/direct.js';
import { FakeRclnodejs } from '../backends/ros2/fake-rclnodejs.js';
import { SAMPLE, patch, sampleJson } from '../backends/ros2/helpers.js';

const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
/** The environment of a machine without ROS 2. */
const noRos = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const k of ['ROS_DISTRO', 'AMENT_PREFIX_PATH', 'WITNESS_ROS2_CONFIG']) delete env[k];
  return env;
};
const witness = (args: string[], env: NodeJS.ProcessEnv = noRos()) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env });
let rclnodejsInstalled = true;
try {
  createRequire(import.meta.url).resolve('rclnodejs');
} catch {
  rclnodejsInstalled = false;
}

test('without ROS 2 the CLI starts: --help lists ros2, other commands run, ros2 check validates the config then exits 4 with the fix', () => {
  const help = witness(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /ros2 +the ROS 2 backend/);
  assert.equal(witness(['ltl', 'translate', 'F a']).status, 0);
  assert.equal(witness(['ros2', 'check', '--help']).status, 0);
  const r = witness(['ros2', 'check']);
  assert.equal(r.status, 4, r.stderr);
  assert.match(
    r.stdout,
    /^config {3}.*nav2-mobile-manipulator\.json: nav2-mobile-manipulator — 2 tools, 1 service, 2 sensors, 3 regions, pose from TF map ← base_link\n$/,
  );
  assert.match(
    r.stderr,
    /^error: ROS 2 is not sourced \(ROS_DISTRO is not set\): run `source \/opt\/ros\/<distro>\/setup\.bash` \(<distro>: humble or jazzy\) before starting Witness/,
  );
  const j = witness(['ros2', 'check', '--json']);
  assert.equal(j.status, 4);
  const doc = JSON.parse(j.stdout) as {
    config: { ok: boolean; tools: string[] };
    ros2: { available: boolean; problem: string; fix: string };
  };
  assert.deepEqual(
    [doc.config.ok, doc.config.tools, doc.ros2.available, doc.ros2.problem],
    [true, ['navigate', 'grip'], false, 'not-sourced'],
  );
});

test('ROS 2 sourced but rclnodejs not installed: exit 4 with the install and Electron rebuild commands', (t) => {
  if (rclnodejsInstalled) return t.skip('rclnodejs is installed here');
  const r = witness(['ros2', 'check', '--config', SAMPLE], { ...noRos(), ROS_DISTRO: 'jazzy' });
  assert.equal(r.status, 4);
  assert.equal(
    r.stderr,
    'error: rclnodejs is not installed: `npm install rclnodejs` after sourcing ROS 2, then `node native/rebuild.js` for Electron\n',
  );
});

test('a bad configuration exits 2 with file:line:col and the JSON path, before anything about ROS 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ros2-cli-'));
  const file = join(dir, 'robot.json');
  writeFileSync(
    file,
    JSON.stringify(patch(sampleJson(), { regions: undefined, 'tools.navigate.timeout_s': 'soon' }), null, 2),
  );
  const r = witness(['ros2', 'check', '--config', file]);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `error: ${file}:38:7: $.tools.navigate.timeout_s: must be number\n`);
  const missing = witness(['ros2', 'check', '--config', join(dir, 'none.json')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /none\.json: \$: cannot read: ENOENT/);
  assert.equal(witness(['ros2', 'check', '--timeout', '0']).status, 2);
});

test('a misspelled message field in a configuration exits 2 naming the field, where it is configured and the fields the type has, before anything about ROS 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ros2-cli-'));
  const file = join(dir, 'robot.json');
  const json = patch(sampleJson(), { regions: undefined });
  const goal = (json['tools'] as Record<string, { goal: Record<string, unknown> }>)['navigate']!.goal;
  goal['pose.pose.postion.x'] = goal['pose.pose.position.x'];
  delete goal['pose.pose.position.x'];
  writeFileSync(file, JSON.stringify(json, null, 2));
  const r = witness(['ros2', 'check', '--config', file]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: \\$\\.tools\\.navigate\\.goal\\["pose\\.pose\\.postion\\.x"\\]: "pose\\.pose\\.postion\\.x" does not fit nav2_msgs/action/NavigateToPose \\(its goal\\): geometry_msgs/Pose has no field "postion" \\(in pose\\.pose\\); its fields are position, orientation\\n$`,
    ),
  );
});

async function check(fake: FakeRclnodejs, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '',
    code = 0;
  const cmd = ros2Command(
    {
      out: (s) => {
        out += s;
      },
      err: (s) => {
        err += s;
      },
    },
    (c) => {
      code = c;
    },
    {
      load: () => Promise.resolve({ ok: true, rcl: fake.module, distro: 'jazzy', version: '1.5.2', notes: [] }),
    },
  );
  await cmd.parseAsync(['check', ...args], { from: 'user' });
  return { code, out, err };
}

test('connected (over the fake rclnodejs, a test double): what is found, what is missing and why, the pose and labels', async () => {
  const fake = new FakeRclnodejs();
  for (const a of ['/navigate_to_pose', '/navigate_through_poses', '/compute_path_to_pose']) fake.servers.set(a, {});
  fake.serviceServers.set('/bt_navigator/get_state', { handle: () => ({ current_state: { id: 3, label: 'active' } }) });
  for (const c of ['local', 'global'])
    fake.serviceServers.set(`/${c}_costmap/clear_entirely_${c}_costmap`, { handle: () => ({}) });
  fake.graph = [{ name: '/joint_states', types: ['sensor_msgs/msg/JointState'], publishers: 0 }];
  const { odometry, tfMessage } = await import('../backends/ros2/fake-rclnodejs.js');
  const feed = setInterval(() => {
    fake.publish('/tf', tfMessage('map', 'base_link', 2, 0));
    fake.publish('/odom', odometry(2, 0));
  }, 10);
  try {
    const r = await check(fake, ['--timeout', '0.2']);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^ROS 2 {4}ROS 2 jazzy with rclnodejs 1\.5\.2$/m);
    assert.match(
      r.out,
      /^action {3}navigate +\/navigate_to_pose \[nav2_msgs\/action\/NavigateToPose\] {2}found, \/bt_navigator active$/m,
    );
    assert.match(
      r.out,
      /^action {3}waypoints\.through +\/navigate_through_poses \[nav2_msgs\/action\/NavigateThroughPoses\] {2}found, \/bt_navigator active$/m,
    );
    assert.match(
      r.out,
      /^action {3}waypoints\.compute_path +\/compute_path_to_pose \[nav2_msgs\/action\/ComputePathToPose\] {2}found \(lifecycle of \/planner_server unknown: no \/planner_server\/get_state service: not a lifecycle node by Nav2's name\)$/m,
    );
    assert.match(
      r.out,
      /^action {3}grip +\/gripper_controller\/gripper_cmd \[control_msgs\/action\/GripperCommand\] {2}MISSING: no server within 0\.2 s$/m,
    );
    assert.match(r.out, /^service {2}clear_costmaps +\/local_costmap\/clear_entirely_local_costmap .* found$/m);
    assert.match(r.out, /^service {2}clear_costmaps +\/global_costmap\/clear_entirely_global_costmap .* found$/m);
    assert.match(
      r.out,
      /^topic {4}odom +\/odom \[nav_msgs\/msg\/Odometry\] {2}\d+ message\(s\), the last 0\.\d\d s ago$/m,
    );
    assert.match(
      r.out,
      /^topic {4}joints +\/joint_states \[sensor_msgs\/msg\/JointState\] {2}NO MESSAGE: \/joint_states has no publisher$/m,
    );
    assert.match(r.out, /^pose {5}map ← base_link: x 2\.00 m, y 0\.00 m, yaw 0\.00 rad; labels: bench$/m);
    assert.match(r.out, /^check: 2 problem\(s\)$/m);
    fake.servers.set('/gripper_controller/gripper_cmd', {});
    const feed2 = setInterval(
      () => fake.publish('/joint_states', { name: ['gripper_left_finger_joint'], position: [0.01], effort: [1] }),
      10,
    );
    try {
      const ok = await check(fake, ['--timeout', '0.2', '--json']);
      assert.equal(ok.code, 0);
      const doc = JSON.parse(ok.out) as {
        ros2: { available: boolean };
        probe: { ok: boolean; pose: { labels: string[] } };
      };
      assert.deepEqual([doc.ros2.available, doc.probe.ok, doc.probe.pose.labels], [true, true, ['bench']]);
    } finally {
      clearInterval(feed2);
    }
  } finally {
    clearInterval(feed);
  }
});

test('a Nav2 navigator whose lifecycle node is inactive (over the simulated graph; the same in both distros, run on humble): its server is found but INACTIVE, and the check fails', async () => {
  const { SimulatedRos2Graph } = await import('../ros2-sim/simulated-graph.js');
  const g = await SimulatedRos2Graph.create({ start: [1, 1], distro: 'humble' });
  try {
    const config = join(mkdtempSync(join(tmpdir(), 'witness-ros2-cli-')), 'robot.json');
    writeFileSync(
      config,
      JSON.stringify(
        patch(sampleJson(), {
          'sensors.joints.fields.gripper\\.width_cm.path': 'position[name=finger_joint]',
          'sensors.joints.fields.gripper\\.effort_N.path': 'effort[name=finger_joint]',
          regions: undefined,
        }),
      ),
    );
    g.lifecycle.set('bt_navigator', 'inactive');
    const r = await check(g.fake, ['--config', config, '--timeout', '0.5']);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.out,
      /^action {3}navigate +\/navigate_to_pose \[nav2_msgs\/action\/NavigateToPose\] {2}INACTIVE: the server is there but its lifecycle node \/bt_navigator is inactive, so it rejects every goal \(`ros2 lifecycle set \/bt_navigator activate`, or restart Nav2's lifecycle manager\)$/m,
    );
    assert.match(
      r.out,
      /^action {3}waypoints\.compute_path +\/compute_path_to_pose .* {2}found, \/planner_server active$/m,
    );
    assert.match(r.out, /^check: 3 problem\(s\)$/m, 'navigate, and the two waypoints actions of bt_navigator');
    g.lifecycle.set('bt_navigator', 'active');
    assert.equal((await check(g.fake, ['--config', config, '--timeout', '0.5'])).code, 0);
  } finally {
    g.stop();
  }
});

/** A robot driven by velocity commands on `topic` (odometry for the pose), as a configuration file. */
function velocityConfig(topic: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'witness-ros2-cli-')), 'robot.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      id: 'velocity-robot',
      frames: { map: 'odom', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: { odom: { topic: '/odom', type: 'nav_msgs/msg/Odometry', fields: {} } },
      navigation: {
        command: { topic, type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'linear.y'] },
        observation: ['base.x', 'base.y'],
        bounds: { min: [-2, -2], max: [26, 26] },
      },
    }),
  );
  return file;
}

test("a velocity command that would bypass the robot's collision monitor (Jazzy's nav2_bringup) fails the check, naming the monitor's input; into its input, or with no monitor, it passes; nothing is published", async () => {
  const { odometry } = await import('../backends/ros2/fake-rclnodejs.js');
  const jazzy = new FakeRclnodejs();
  jazzy.addPeer('collision_monitor', [
    { name: '/cmd_vel_smoothed', types: ['geometry_msgs/msg/Twist'] },
    { name: '/scan', types: ['sensor_msgs/msg/LaserScan'] },
  ]);
  const humble = new FakeRclnodejs({ distro: 'humble' });
  const feed = setInterval(() => {
    for (const f of [jazzy, humble]) f.publish('/odom', odometry(4, 20));
  }, 10);
  try {
    const bypass = await check(jazzy, ['--config', velocityConfig('/cmd_vel'), '--timeout', '0.2']);
    assert.equal(bypass.code, 1, bypass.err);
    assert.match(
      bypass.out,
      /^command {2}navigation +\/cmd_vel \[geometry_msgs\/msg\/Twist\] {2}BYPASSES THE COLLISION MONITOR: a collision monitor runs on this robot \(\/collision_monitor\) and its input is \/cmd_vel_smoothed \(geometry_msgs\/msg\/Twist\): publishing the navigation command on \/cmd_vel would bypass it\. Set navigation\.command\.topic to its input \(\/cmd_vel_smoothed\)/m,
    );
    assert.match(bypass.out, /^check: 1 problem\(s\)$/m);
    const json = await check(jazzy, ['--config', velocityConfig('/cmd_vel'), '--timeout', '0.2', '--json']);
    const doc = JSON.parse(json.out) as { probe: { ok: boolean; command: { topic: string; problem: string } } };
    assert.equal(doc.probe.ok, false);
    assert.equal(doc.probe.command.topic, '/cmd_vel');
    assert.match(doc.probe.command.problem, /would bypass it/);
    const into = await check(jazzy, ['--config', velocityConfig('/cmd_vel_smoothed'), '--timeout', '0.2']);
    assert.equal(into.code, 0, into.out);
    assert.match(
      into.out,
      /^command {2}navigation +\/cmd_vel_smoothed \[geometry_msgs\/msg\/Twist\] {2}into the input of \/collision_monitor$/m,
    );
    const none = await check(humble, ['--config', velocityConfig('/cmd_vel'), '--timeout', '0.2']);
    assert.equal(none.code, 0, none.out);
    assert.match(
      none.out,
      /^command {2}navigation +\/cmd_vel .* {2}no collision monitor in the graph: published as configured$/m,
    );
    for (const f of [jazzy, humble]) assert.equal(f.sent.size, 0, 'the check publishes nothing');
  } finally {
    clearInterval(feed);
  }
});

test("the app's API says whether ROS 2 can be used and, if not, what is missing", async () => {
  const api = createDirectApi({ ros2: { env: {}, resolver: () => '/x/node_modules/rclnodejs/index.js' } });
  const s = await api.ros2Status();
  assert.deepEqual(s, {
    available: false,
    problem: 'not-sourced',
    message: 'ROS 2 is not sourced (ROS_DISTRO is not set)',
    fix: 'run `source /opt/ros/<distro>/setup.bash` (<distro>: humble or jazzy) before starting Witness',
  });
  const fake = new FakeRclnodejs();
  const ok = await createDirectApi({
    ros2: {
      env: { ROS_DISTRO: 'jazzy' },
      importer: () => Promise.resolve(fake.module),
      resolver: () => {
        throw new Error('no');
      },
    },
  }).ros2Status();
  assert.deepEqual(ok, { available: true, distro: 'jazzy', version: null, notes: [] });
});

test("witness run on a robot's map graph: inputs checked before connecting (exit 2 naming what), then without ROS 2 exit 4 with the diagnosis of ros2 check", () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-map-run-'));
  const config = fileURLToPath(new URL('../../../assets/ros2/nav2-mobile-manipulator.json', import.meta.url));
  const regions = fileURLToPath(new URL('../../../assets/ros2/nav2-regions.json', import.meta.url));
  const graph = join(dir, 'graph.json');
  writeFileSync(
    graph,
    JSON.stringify({
      nodes: [
        { id: 'a', labels: ['dock'], pos: [0, 0] },
        { id: 'b', labels: ['bench'], pos: [2, 0] },
      ],
      edges: [{ from: 'a', to: 'b', weight: 2 }],
      start: 'a',
    }),
  );
  const run = (g: string, extra: string[] = []) =>
    witness([
      'run',
      '--world',
      `ros2:${config}`,
      '--graph',
      g,
      '--spec',
      'G F dock & G F bench',
      '--regions',
      regions,
      ...extra,
    ]);
  const r = run(graph);
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /^error: ROS 2 is not sourced \(ROS_DISTRO is not set\)/);
  const bad = join(dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({
      nodes: [
        { id: 'a', labels: [], pos: [0, 0] },
        { id: 'b', labels: ['bench'], pos: [2, 0] },
      ],
      edges: [],
      start: 'a',
    }),
  );
  const b = run(bad);
  assert.equal(b.status, 2);
  assert.match(b.stderr, /bad\.json: node "a" at \(0, 0\) is labelled \{\}, but the regions put it in \{dock\}/);
  const s = run(graph, ['--start', '1,1']);
  assert.equal(s.status, 2);
  assert.match(s.stderr, /a robot starts where it is: drop --start/);
});
