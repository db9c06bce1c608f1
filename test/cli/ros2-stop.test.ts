// Stopping a robot with a real signal: `witness run` is a child process whose `rclnodejs` is the
// stand-in (test/backends/ros2/standin: resolved by a module hook, so the real loader imports it and
// it registers rclnodejs's own SIGINT handler, which shuts every context down). The test sends SIGINT
// or SIGTERM while the robot moves and reads what the robot saw: the goal cancelled on the action
// server, or a zero velocity command, before ROS 2 shut down — and the robot at rest afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { GOAL_STATUS } from '../../main/backends/ros2/rclnodejs-api.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';
import {
  type StandinReport as Report,
  movedAfterShutdown,
  runWithStandin,
  velocityRobot,
} from '../backends/ros2/standin/child.js';

/** Runs `witness …` over the stand-in, sends `signal` once the robot is underway, and returns what the robot saw. */
async function interrupted(
  args: string[],
  standin: Record<string, unknown>,
  signal: 'SIGINT' | 'SIGTERM',
  distro: string,
): Promise<{ code: number | null; out: string; err: string; report: Report }> {
  const r = await runWithStandin(args, standin, distro, signal);
  assert.ok(r.sent, `the robot never got underway: ${r.err}`);
  return r;
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
