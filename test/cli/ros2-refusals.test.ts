// What `witness run` refuses on a robot before anything moves, through a `witness run` child process
// over the stand-in (test/backends/ros2/standin): a velocity command that would bypass Nav2's
// collision monitor, and a robot AMCL has not localised (no map → odom: Jazzy's navigator would abort
// the goal, Humble's would spin and back up first). Each ends with its reason, exit 1, and the robot's
// side shows that nothing reached it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';
import { runWithStandin, velocityRobot } from '../backends/ros2/standin/child.js';

test("jazzy: a velocity-command mission whose command would bypass the collision monitor is refused before anything moves, exit 1, naming the monitor's input", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-refusal-'));
  // Jazzy's nav2_bringup: cmd_vel_smoothed → collision_monitor → cmd_vel; the configuration names cmd_vel.
  const v = await velocityRobot(dir, '/cmd_vel');
  const r = await runWithStandin(
    [
      'run',
      '--world',
      v.world,
      '--graph',
      v.graph,
      '--data',
      v.data,
      '--spec',
      'G F e1 & G F e4',
      '--regions',
      v.regions,
      '--no-audit',
    ],
    { robot: 'velocity', start: [4, 20], monitor: { input: '/cmd_vel_smoothed', output: '/cmd_vel' } },
    'jazzy',
    null,
  );
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(
    r.out,
    /outcome: FAILED \(world\) after 0 steps — .*invalid-input: a collision monitor runs on this robot \(\/collision_monitor\) and its input is \/cmd_vel_smoothed \(geometry_msgs\/msg\/Twist\): publishing the navigation command on \/cmd_vel would bypass it\. Set navigation\.command\.topic to its input \(\/cmd_vel_smoothed\)/,
  );
  assert.doesNotMatch(r.err, /internal/);
  assert.deepEqual(r.report.commands, [], 'the base received no command, on either topic');
});

for (const distro of DISTROS) {
  test(`${distro}: a map mission on a robot AMCL has not localised is refused before any goal, exit 1, saying why; the start is unknown`, async () => {
    const s = setup();
    const r = await runWithStandin(
      ['run', '--world', s.world, '--graph', s.graph, '--spec', PATROL, '--regions', s.regions, '--no-audit'],
      { robot: 'nav2', start: [0.2, 0.3], localised: false },
      distro,
      null,
    );
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    assert.match(r.out, /start: the robot's pose \(unknown\)/);
    assert.match(
      r.out,
      /outcome: FAILED \(world\) after 0 steps — .*no transform map ← base_link; .*the robot is not localised — AMCL publishes map → odom only once it has an initial pose/,
    );
    assert.deepEqual(r.report.serverGoals, [], 'no goal reached Nav2: no path asked, nothing to navigate');
  });
}
