// Stopping a robot with a real signal: `witness run` is a child process whose `rclnodejs` is the
// stand-in (test/backends/ros2/standin: resolved by a module hook, so the real loader imports it and
// it registers rclnodejs's own SIGINT handler, which shuts every context down). The test sends SIGINT
// or SIGTERM while the robot moves and reads what the robot saw: the goal cancelled on the action
// server, or a zero velocity command, before ROS 2 shut down — and the robot at rest afterwards. A
// velocity-command mission whose command would bypass the collision monitor never starts the robot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { openBackbone } from '../../main/app/backbone.js';
import { GOAL_STATUS } from '../../main/backends/ros2/rclnodejs-api.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';
import { type StandinReport as Report, movedAfterShutdown, spawnWithStandin } from '../backends/ros2/standin/child.js';

/**
 * Runs `witness …` over the stand-in, sends `signal` once the robot is underway (null: none, the command runs to its
 * end), and returns how it ended and what the robot saw.
 */
async function interrupted(
  args: string[],
  standin: Record<string, unknown>,
  signal: 'SIGINT' | 'SIGTERM' | null,
  distro: string,
): Promise<{ code: number | null; out: string; err: string; report: Report }> {
  const report = path.join(mkdtempSync(path.join(tmpdir(), 'witness-stop-')), 'report.json');
  const child = spawnWithStandin(args, { ...standin, report }, distro);
  let out = '',
    err = '',
    sent = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (signal !== null && !sent && err.includes('standin: underway')) {
      sent = true;
      child.kill(signal);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  assert.ok(sent || signal === null, `the robot never got underway: ${err}`);
  return { code, out, err, report: JSON.parse(readFileSync(report, 'utf8')) as Report };
}

const moved = movedAfterShutdown;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

for (const [signal, distro] of DISTROS.flatMap((d) =>
  (['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, d] as const),
)) {
  test(`${signal} during a Nav2 goal on ${distro}: the goal is cancelled on the action server and the robot stopped before ROS 2 shuts down`, async () => {
    const s = setup();
    const r = await interrupted(
      ['run', '--world', s.world, '--graph', s.graph, '--spec', PATROL, '--regions', s.regions, '--no-audit'],
      { robot: 'nav2', start: [0.2, 0.3] },
      signal,
      distro,
    );
    const rep = r.report;
    const last = rep.serverGoals.at(-1)!;
    assert.equal(
      last.status,
      GOAL_STATUS.canceled,
      `the action server cancelled the goal: ${JSON.stringify(rep.serverGoals)}; ${r.out}`,
    );
    const cancel = rep.log.findIndex((l) => l.startsWith(`cancel ${last.action}`));
    const shutdown = rep.log.indexOf('shutdown');
    assert.ok(
      cancel >= 0 && shutdown > cancel,
      `the cancel went out before ROS 2 shut down: ${rep.log.filter((l) => !l.startsWith('goal')).join('; ')}`,
    );
    assert.ok(moved(rep) < 0.005, `the robot is at rest after the shutdown (moved ${moved(rep).toFixed(3)} m)`);
    assert.equal(rep.signalHandlerInstalled, false, "Witness removed rclnodejs's SIGINT handler when it loaded it");
    assert.equal(r.code, 130, r.err);
    assert.match(r.err, new RegExp(`witness: ${signal}: stopping the robot first \\(its goal cancelled`));
    assert.match(
      r.out,
      /outcome: STOPPED after \d+ steps — interrupted \(SIG(INT|TERM)\); navigate .* cancelled; the goal was cancelled \(final status CANCELED\)/,
    );
  });
}

for (const distro of DISTROS) {
  test(`SIGINT during witness act on a robot on ${distro}: the running navigation goal is cancelled on the server before ROS 2 shuts down, and the loop ends as stopped`, async () => {
    const s = setup();
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-stop-'));
    const tools = path.join(dir, 'tools');
    mkdirSync(tools);
    copyFileSync(path.join(ROOT, 'assets', 'ros2', 'tools', 'navigate.json'), path.join(tools, 'navigate.json'));
    const plan = path.join(dir, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({ goal: 'to the shelf', steps: [{ tool: 'navigate', args: { x: 7.5, y: 4.5, yaw: 0 } }] }),
    );
    const r = await interrupted(
      ['act', '--world', s.world, '--tools', tools, '--plan', plan, '--goal', 'at.shelf', '--no-audit'],
      { robot: 'nav2', start: [0.2, 0.3] },
      'SIGINT',
      distro,
    );
    const rep = r.report;
    assert.equal(
      rep.serverGoals.at(-1)?.status,
      GOAL_STATUS.canceled,
      `the action server cancelled the goal: ${JSON.stringify(rep.serverGoals)}; ${r.out}${r.err}`,
    );
    assert.ok(
      rep.log.indexOf('shutdown') > rep.log.findIndex((l) => l.startsWith('cancel /navigate_to_pose')),
      rep.log.filter((l) => !l.startsWith('goal')).join('; '),
    );
    assert.ok(moved(rep) < 0.005, `the robot is at rest after the shutdown (moved ${moved(rep).toFixed(3)} m)`);
    assert.equal(r.code, 130, r.err);
    assert.match(r.out, /interrupted \(SIGINT\); the running navigate was cancelled/);
  });
}

/**
 * A robot driven by velocity commands (a point mass in the medium maze), its configuration, regions and backbone files.
 */
async function velocityRobot(
  dir: string,
  command: string,
): Promise<{ world: string; regions: string; graph: string; data: string }> {
  const file = path.join(dir, 'robot.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      id: 'pointmaze-medium',
      connect_timeout_s: 2,
      control_dt_s: 0.001,
      staleness_s: 2,
      frames: { map: 'odom', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: {
        odom: {
          topic: '/odom',
          type: 'nav_msgs/msg/Odometry',
          fields: { 'base.vx': { path: 'twist.twist.linear.x' }, 'base.vy': { path: 'twist.twist.linear.y' } },
        },
      },
      navigation: {
        command: { topic: command, type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'linear.y'] },
        observation: ['base.x', 'base.y', 'base.vx', 'base.vy'],
        bounds: { min: [-2, -2], max: [26, 26] },
      },
    }),
  );
  const regions = path.join(dir, 'regions.json');
  writeFileSync(regions, readFileSync(path.join(ROOT, 'assets', 'regions', 'pointmaze-medium.json')));
  const b = await openBackbone(
    { kind: 'generate', world: 'pointmaze-medium', datasetSteps: 100_000, seed: 1 },
    { cacheDir: path.join(dir, 'cache') },
  );
  await b.models.close();
  return { world: `ros2:${file}`, regions, graph: b.files.graph, data: b.files.data };
}

for (const [distro, signal, monitor] of [
  ['jazzy', 'SIGINT', true],
  ['humble', 'SIGTERM', false],
] as const) {
  test(`${signal} during a velocity-command mission on ${distro}${monitor ? ' (through the collision monitor)' : ''}: a zero command reaches the robot before ROS 2 shuts down`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-stop-'));
    // Jazzy's nav2_bringup: cmd_vel_smoothed → collision_monitor → cmd_vel; Humble's starts no collision monitor.
    const topic = monitor ? '/cmd_vel_smoothed' : '/cmd_vel';
    const v = await velocityRobot(dir, topic);
    const standin = {
      robot: 'velocity',
      start: [4, 20],
      underway_m: 0.3,
      ...(monitor ? { monitor: { input: topic, output: '/cmd_vel' } } : {}),
    };
    const r = await interrupted(
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
      standin,
      signal,
      distro,
    );
    const rep = r.report;
    assert.ok(
      rep.commands.length > 3,
      `the policy drove the robot: ${r.out}\n${r.err}\n${rep.log.slice(-5).join('; ')}`,
    );
    assert.deepEqual(
      rep.commands.at(-1)!.linear,
      { x: 0, y: 0 },
      `the last command is zero velocity: ${rep.log.slice(-4).join('; ')}`,
    );
    const zero = rep.log.lastIndexOf('cmd_vel 0 0');
    assert.ok(
      zero >= 0 && rep.log.indexOf('shutdown') > zero,
      `the zero command went out before ROS 2 shut down: ${rep.log.slice(-4).join('; ')}`,
    );
    assert.equal(r.code, 130, r.err);
    assert.match(
      r.out,
      new RegExp(
        `outcome: STOPPED after \\d+ steps — interrupted \\(${signal}\\); the (step in progress was cancelled|mission stopped before its next step)`,
      ),
    );
    assert.match(r.err, new RegExp(`witness: ${signal}: stopping the robot first`));
  });
}

test("witness run on jazzy with a velocity command that would bypass the collision monitor: refused before anything moves, exit 1, naming the monitor's input", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-stop-'));
  // Jazzy's nav2_bringup: cmd_vel_smoothed → collision_monitor → cmd_vel; the configuration names cmd_vel.
  const v = await velocityRobot(dir, '/cmd_vel');
  const r = await interrupted(
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
    null,
    'jazzy',
  );
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(
    `${r.out}${r.err}`,
    /a collision monitor runs on this robot \(\/collision_monitor\) and its input is \/cmd_vel_smoothed \(geometry_msgs\/msg\/Twist\): publishing the navigation command on \/cmd_vel would bypass it\. Set navigation\.command\.topic to its input \(\/cmd_vel_smoothed\)/,
  );
  assert.deepEqual(r.report.commands, [], 'the base received no command, on either topic');
});
