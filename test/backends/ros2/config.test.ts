import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRos2Config, readRos2Config } from '../../../main/backends/ros2/config.js';
import { ROS2_BACKEND_SCHEMA } from '../../../main/backends/ros2/config-schema.js';
import { InputError } from '../../../main/core/input/json.js';
import { LocatedInputError, locatePath, pathSegments } from '../../../main/core/input/locate.js';
import { GAZEBO, SAMPLE, patch, sampleJson } from './helpers.js';

test('the sample configurations validate: Nav2 mobile manipulator and Gazebo TurtleBot3', () => {
  const c = readRos2Config(SAMPLE);
  assert.equal(c.id, 'nav2-mobile-manipulator');
  assert.deepEqual(Object.keys(c.tools), ['navigate', 'grip']);
  assert.equal(c.tools['navigate']!.type, 'nav2_msgs/action/NavigateToPose');
  assert.equal(c.tools['grip']!.action, '/gripper_controller/gripper_cmd');
  assert.equal(c.sensors['odom']!.qos.reliability, 'best_effort');
  assert.deepEqual(
    c.regions.map((r) => r.name),
    ['dock', 'bench', 'shelf'],
  );
  assert.equal(c.tools['grip']!.server_timeout_s, 5, 'defaults fill what the file leaves out');
  const g = readRos2Config(GAZEBO);
  assert.deepEqual(g.pose, { source: 'odometry', sensor: 'odom' });
  assert.equal(c.navigation, undefined, 'no navigation section: missions cannot drive it, skills can');
});

test('a navigation section: the command, the observation, the bounds, with defaults filled in', () => {
  const c = parseRos2Config(
    JSON.stringify(
      patch(sampleJson(), {
        navigation: {
          command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'angular.z'] },
          observation: ['base.x', 'base.y', 'base.yaw', 'base.vx'],
          bounds: { min: [-1, -2], max: [10, 12] },
        },
      }),
    ),
    SAMPLE,
  );
  assert.deepEqual(c.navigation, {
    command: {
      topic: '/cmd_vel',
      type: 'geometry_msgs/msg/Twist',
      action: ['linear.x', 'angular.z'],
      scale: [1, 1],
      qos: { reliability: 'reliable', durability: 'volatile', depth: 10 },
      collision_monitor: 'collision_monitor',
    },
    observation: ['base.x', 'base.y', 'base.yaw', 'base.vx'],
    bounds: { min: [-1, -2], max: [10, 12] },
    start_tolerance_m: 0.5,
  });
});

test('the published JSON Schema is the one the code validates with', () => {
  const published = JSON.parse(
    readFileSync(new URL('../../../../docs/schemas/ros2-backend.schema.json', import.meta.url), 'utf8'),
  ) as unknown;
  assert.deepEqual(published, JSON.parse(JSON.stringify(ROS2_BACKEND_SCHEMA)));
});

test('errors name the file, line, column and JSON path, in words', () => {
  const bad = (edits: Record<string, unknown>, re: RegExp): void => {
    const text = JSON.stringify(patch(sampleJson(), edits), null, 2);
    assert.throws(
      () => parseRos2Config(text, SAMPLE),
      (e: unknown) => {
        assert.ok(e instanceof InputError, String(e));
        assert.match(e.message, re);
        return true;
      },
    );
  };
  bad(
    { 'tools.navigate.timeout_s': 0 },
    /nav2-mobile-manipulator\.json:\d+:\d+: \$\.tools\.navigate\.timeout_s: must be > 0$/,
  );
  bad({ 'tools.navigate.goall': {} }, /:\d+:7: \$\.tools\.navigate\.goall: unknown field "goall"$/);
  bad({ 'sensors.odom.topic': undefined }, /\$\.sensors\.odom: missing required field "topic"$/);
  bad(
    { 'tools.grip.type': 'control_msgs/GripperCommand' },
    /\$\.tools\.grip\.type: not a ROS 2 action type: <package>\/action\/<Name>/,
  );
  bad({ 'sensors.odom.topic': 'odom topic' }, /\$\.sensors\.odom\.topic: not a ROS name/);
  bad(
    { 'sensors.joints.fields.gripper\\.width_cm.path': 'position[name=]' },
    /\$\.sensors\.joints\.fields\["gripper\.width_cm"\]\.path: not a message path/,
  );
  bad(
    { 'sensors.odom.qos.reliability': 'sometimes' },
    /\$\.sensors\.odom\.qos\.reliability: must be equal to one of the allowed values/,
  );
  bad(
    { 'services.navigate': { service: '/x', type: 'std_srvs/srv/Trigger', timeout_s: 1 } },
    /\$\.services\.navigate: a skill named "navigate" is already defined \(\$\.tools\.navigate\)/,
  );
  bad({ 'tools.navigate.goal.pose\\.pose\\.position\\.x': { arg: 'x', value: 1 } }, /has both "arg" and "value"/);
  bad(
    { 'tools.navigate.goal.pose\\.pose\\.position\\.x': { value: 1, default: 2 } },
    /\.default: "default" applies to "arg" only/,
  );
  bad(
    { 'tools.navigate.goal.pose\\.pose': { value: {} } },
    /"pose\.pose" is set as a whole and "pose\.pose\.position\.x" inside it/,
  );
  // A service skill names one service or several, called in order.
  bad({ 'services.clear_costmaps.service': 5 }, /\$\.services\.clear_costmaps\.service: must be string or array$/);
  bad(
    { 'services.clear_costmaps.service': [] },
    /\$\.services\.clear_costmaps\.service: must NOT have fewer than 1 items$/,
  );
  bad(
    { 'services.clear_costmaps.service': ['/a', 'b c'] },
    /\$\.services\.clear_costmaps\.service\[1\]: not a ROS name/,
  );
  bad(
    { 'services.clear_costmaps.service': ['/a', '/a'] },
    /\$\.services\.clear_costmaps\.service: must NOT have duplicate items/,
  );
  bad({ 'sensors.odom.fields.base\\.x': { path: 'a' } }, /"base\.x" is computed from the pose \(tf\)/);
  bad({ 'sensors.odom.fields.at\\.dock': { path: 'a' } }, /names under "at\." are reserved \(the label function\)/);
  bad(
    { 'sensors.odom.fields.gripper\\.width_cm': { path: 'a' } },
    /\$\.sensors\.joints\.fields\["gripper\.width_cm"\]: the field "gripper\.width_cm" is already mapped at \$\.sensors\.odom/,
  );
  bad({ pose: { source: 'odometry' } }, /\$\.pose: an odometry pose needs "sensor"/);
  bad(
    { pose: { source: 'odometry', sensor: 'imu' } },
    /\$\.pose\.sensor: no sensor "imu"; the sensors are odom, joints/,
  );
  bad({ 'frames.base': 'map' }, /\$\.frames\.base: the base frame must differ/);
  bad({ 'contract.fail.skill': 'fly' }, /\$\.contract\.fail\.skill: no skill "fly"/);
  bad({ 'contract.slow.timeout_s': undefined }, /\$\.contract\.slow: missing required field "timeout_s"/);
  bad({ regions: 'nope.json' }, /\$\.regions: cannot read .*nope\.json: ENOENT/);
  bad({ version: 2 }, /\$\.version: must be equal to constant/);
  const nav = {
    command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'angular.z'] },
    observation: ['base.x', 'base.y', 'base.yaw'],
    bounds: { min: [0, 0], max: [10, 10] },
  };
  bad(
    { navigation: { ...nav, observation: ['base.x', 'base.speed'] } },
    /\$\.navigation\.observation\[1\]: no field "base\.speed": the policy reads base\.x, base\.y, base\.yaw or a sensor's/,
  );
  bad(
    { navigation: { ...nav, command: { ...nav.command, scale: [1] } } },
    /\$\.navigation\.command\.scale: 1 factor\(s\) for 2 action dimension\(s\)/,
  );
  bad(
    { navigation: { ...nav, bounds: { min: [0, 5], max: [10, 5] } } },
    /\$\.navigation\.bounds\.max\[1\]: must be greater than min\[1\] \(5\)/,
  );
  bad(
    { navigation: { ...nav, command: { ...nav.command, type: 'Twist' } } },
    /\$\.navigation\.command\.type: not a ROS 2 message type/,
  );
  assert.throws(
    () => parseRos2Config('{\n  "version": 1\n  "id": "x"\n}', 'c.json'),
    /^InputError: c\.json: 3:3: not valid JSON: comma expected$|c\.json: 3:3: not valid JSON/,
  );
});

test('the regions file is checked too: its own errors with its line and column, names usable as propositions, the same world', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ros2-'));
  const cfg = (regions: unknown): string => {
    writeFileSync(join(dir, 'r.json'), JSON.stringify(regions, null, 2));
    return JSON.stringify(patch(sampleJson(), { regions: 'r.json' }), null, 2);
  };
  assert.throws(
    () =>
      parseRos2Config(
        cfg({ regions: [{ name: 'the dock', kind: 'disk', center: [0, 0], radius: 1 }] }),
        join(dir, 'c.json'),
      ),
    /r\.json:4:7: \$\.regions\[0\]\.name: "the dock" is not usable as a proposition and field name/,
  );
  assert.throws(
    () => parseRos2Config(cfg({ regions: [{ name: 'dock', kind: 'disk', center: [0, 0] }] }), join(dir, 'c.json')),
    /r\.json:\d+:\d+: \$\.regions\[0\]: a disk needs "radius"/,
  );
  assert.throws(
    () => parseRos2Config(cfg({ world: 'pointmaze-medium', regions: [] }), join(dir, 'c.json')),
    /\$\.world: the regions are for "pointmaze-medium", this configuration is "nav2-mobile-manipulator"/,
  );
});

test('locating JSON paths: keys with dots, indices, the nearest ancestor', () => {
  assert.deepEqual(pathSegments('$.a["b.c"][2].d'), ['a', 'b.c', 2, 'd']);
  assert.equal(pathSegments('a.b'), null);
  const text = '{\n  "a": {\n    "b.c": [1, 2, {"d": true}]\n  }\n}';
  assert.deepEqual(locatePath(text, '$.a["b.c"][2].d'), { line: 3, column: 20 });
  assert.deepEqual(locatePath(text, '$.a.missing'), { line: 2, column: 3 });
  const e = new LocatedInputError('f.json', '$.a', 'bad', 2, 3);
  assert.equal(e.message, 'f.json:2:3: $.a: bad');
});
