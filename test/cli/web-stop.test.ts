// Stopping a robot when web mode ends: `witness web` is a child process whose `rclnodejs` is the
// stand-in (test/backends/ros2/standin: it registers rclnodejs's own SIGINT handler, as the real
// package does). A client plans and runs a console mission on the lab robot over the WebSocket — or
// starts a tool loop from the console's Tool loop tab — and the test sends SIGINT or SIGTERM while a
// Nav2 goal runs. What the robot saw must show the goal cancelled on the action server before ROS 2
// shut down and the robot at rest afterwards; the process exits within moments with the signal's
// code, and the audit log's run ends as stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { GOAL_STATUS } from '../../main/backends/ros2/rclnodejs-api.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';
import { type StandinReport as Report, movedAfterShutdown, spawnWithStandin } from '../backends/ros2/standin/child.js';
import { type Reply, apiClient, webUrl } from '../api/web-client.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Workbench {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  call(method: string, params?: unknown): Promise<Reply>;
  /** Resolves once the stand-in says the robot is moving. */
  underway(): Promise<void>;
  err(): string;
}

/**
 * A workspace the console lists the lab robot in: its configuration and regions under ros2/, its map graph under
 * graphs/, the navigate tool under tools/.
 */
function labWorkspace(dir: string, cancelTimeout_s?: number): { workspace: string; robot: string } {
  const lab = setup();
  const workspace = path.join(dir, 'workspace');
  for (const d of ['ros2', 'graphs', 'tools']) mkdirSync(path.join(workspace, d), { recursive: true });
  copyFileSync(lab.regions, path.join(workspace, 'ros2', 'regions.json'));
  const config = JSON.parse(readFileSync(path.join(lab.dir, 'robot.json'), 'utf8')) as {
    waypoints: Record<string, unknown>;
  };
  if (cancelTimeout_s !== undefined) config.waypoints['cancel_timeout_s'] = cancelTimeout_s;
  writeFileSync(path.join(workspace, 'ros2', 'lab-sim.json'), JSON.stringify(config));
  copyFileSync(lab.graph, path.join(workspace, 'graphs', 'lab.json'));
  copyFileSync(
    path.join(ROOT, 'assets', 'ros2', 'tools', 'navigate.json'),
    path.join(workspace, 'tools', 'navigate.json'),
  );
  return { workspace, robot: `ros2:${path.join(workspace, 'ros2', 'lab-sim.json')}` };
}

async function startWeb(
  dir: string,
  workspace: string,
  distro: string,
  standin: Record<string, unknown> = {},
): Promise<Workbench & { report: string; audit: string }> {
  const report = path.join(dir, 'report.json'),
    audit = path.join(dir, 'audit.sqlite');
  const child = spawnWithStandin(
    ['web', '--port', '0', '--workspace', workspace, '--audit', audit],
    { robot: 'nav2', start: [0.2, 0.3], report, ...standin },
    distro,
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  let err = '';
  let moving: () => void = () => undefined;
  const underway = new Promise<void>((resolve) => {
    moving = resolve;
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
    if (err.includes('standin: underway')) moving();
  });
  const { call } = await apiClient(await webUrl(child, exited, () => err));
  return {
    child,
    exited,
    report,
    audit,
    err: () => err,
    underway: () => underway,
    call,
  };
}

/** Sends `signal` once the robot moves; how the process ended, how long it took, and what the robot saw. */
async function interrupt(
  w: Workbench & { report: string },
  signal: 'SIGINT' | 'SIGTERM',
): Promise<{ code: number | null; ms: number; report: Report }> {
  const killer = setTimeout(() => w.child.kill('SIGKILL'), 60_000);
  await Promise.race([
    w.underway(),
    w.exited.then(() => assert.fail(`witness web exited before the robot moved: ${w.err()}`)),
  ]);
  const t0 = performance.now();
  w.child.kill(signal);
  const code = await w.exited;
  const ms = performance.now() - t0;
  clearTimeout(killer);
  return { code, ms, report: JSON.parse(readFileSync(w.report, 'utf8')) as Report };
}

/** The outcome of the audit log's only run on the lab robot, and its reason. */
function runEnd(audit: string): { outcome: string; message?: string; reason?: string } {
  const db = openAuditReadOnly(audit);
  try {
    const runs = db.prepare("SELECT id FROM runs WHERE world = 'lab-sim'").all() as { id: string }[];
    assert.equal(runs.length, 1, 'one run on the robot');
    const end = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(runs[0]!.id) as
      { body: string } | undefined;
    assert.ok(end !== undefined, 'the run was ended in the audit log');
    return JSON.parse(end.body) as { outcome: string; message?: string; reason?: string };
  } finally {
    db.close();
  }
}

/**
 * The robot's side: the goal ended CANCELED on the server, the cancel before ROS 2 shut down, the robot at rest
 * afterwards.
 */
function assertStopped(rep: Report, action: string, err: string): void {
  const last = rep.serverGoals.filter((g) => g.action === action).at(-1);
  assert.equal(
    last?.status,
    GOAL_STATUS.canceled,
    `the action server cancelled the goal: ${JSON.stringify(rep.serverGoals)}\n${err}`,
  );
  const cancel = rep.log.findIndex((l) => l.startsWith(`cancel ${action}`));
  const shutdown = rep.log.indexOf('shutdown');
  assert.ok(
    cancel >= 0 && shutdown > cancel,
    `the cancel went out before ROS 2 shut down: ${rep.log.filter((l) => !l.startsWith('goal')).join('; ')}`,
  );
  assert.ok(rep.midway !== null && rep.afterShutdown !== null, 'ROS 2 shut down before the process exited');
  const moved = movedAfterShutdown(rep);
  assert.ok(moved < 0.005, `the robot is at rest after the shutdown (moved ${moved.toFixed(3)} m)`);
  assert.equal(rep.signalHandlerInstalled, false, "Witness removed rclnodejs's SIGINT handler when it loaded it");
}

for (const [signal, distro] of DISTROS.flatMap((d) =>
  (['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, d] as const),
)) {
  test(
    `${signal} to witness web during a console mission on a Nav2 robot (${distro}): the goal is cancelled and the robot stopped before the process exits, and the run ends as stopped`,
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'witness-web-stop-'));
      const { workspace, robot } = labWorkspace(dir);
      const w = await startWeb(dir, workspace, distro);
      try {
        const regions = readFileSync(path.join(workspace, 'ros2', 'regions.json'), 'utf8');
        const plan = await w.call('missionPlan', {
          job: 'plan-1',
          world: robot,
          graph: 'graphs/lab.json',
          spec: PATROL,
          regions,
        });
        assert.equal(plan.ok, true, JSON.stringify(plan.error));
        const run = await w.call('missionRun', { session: (plan.result as { session: string }).session });
        assert.equal(run.ok, true, JSON.stringify(run.error));
        const r = await interrupt(w, signal);
        assertStopped(r.report, r.report.serverGoals.at(-1)?.action ?? '/navigate_through_poses', w.err());
        assert.equal(r.code, signal === 'SIGINT' ? 130 : 143, w.err());
        assert.ok(r.ms < 5000, `the process exited within moments (${Math.round(r.ms)} ms)`);
        const end = runEnd(w.audit);
        assert.equal(end.outcome, 'stopped', JSON.stringify(end));
        assert.match(end.message ?? end.reason ?? '', new RegExp(`interrupted \\(${signal}\\)`));
      } finally {
        w.child.kill('SIGKILL');
      }
    },
  );
}

for (const distro of DISTROS) {
  test(
    `SIGINT to witness web during a console tool loop on a Nav2 robot (${distro}): the running navigate is cancelled before the process exits, and the loop ends as stopped`,
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'witness-web-stop-'));
      const { workspace, robot } = labWorkspace(dir);
      mkdirSync(path.join(workspace, 'plans'));
      writeFileSync(
        path.join(workspace, 'plans', 'shelf.json'),
        JSON.stringify({ goal: 'to the shelf', steps: [{ tool: 'navigate', args: { x: 7.5, y: 4.5, yaw: 0 } }] }),
      );
      const w = await startWeb(dir, workspace, distro);
      try {
        const run = await w.call('actRun', {
          world: robot,
          tools: 'tools',
          plan: 'plans/shelf.json',
          goal: 'at.shelf',
        });
        assert.equal(run.ok, true, JSON.stringify(run.error));
        const r = await interrupt(w, 'SIGINT');
        assertStopped(r.report, '/navigate_to_pose', w.err());
        assert.equal(r.code, 130, w.err());
        assert.ok(r.ms < 5000, `the process exited within moments (${Math.round(r.ms)} ms)`);
        assert.equal(runEnd(w.audit).outcome, 'stopped');
      } finally {
        w.child.kill('SIGKILL');
      }
    },
  );
}

test(
  'a second Ctrl-C exits witness web at once while the first waits for a cancel the robot does not answer',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-web-stop-'));
    // The mission would wait up to 30 s for the cancel's answer: only the second Ctrl-C ends it sooner.
    const { workspace, robot } = labWorkspace(dir, 30);
    const w = await startWeb(dir, workspace, 'jazzy', { cancel: 'ignore' });
    try {
      const regions = readFileSync(path.join(workspace, 'ros2', 'regions.json'), 'utf8');
      const plan = await w.call('missionPlan', {
        job: 'plan-1',
        world: robot,
        graph: 'graphs/lab.json',
        spec: PATROL,
        regions,
      });
      assert.equal(plan.ok, true, JSON.stringify(plan.error));
      assert.equal((await w.call('missionRun', { session: (plan.result as { session: string }).session })).ok, true);
      await Promise.race([
        w.underway(),
        w.exited.then(() => assert.fail(`witness web exited before the robot moved: ${w.err()}`)),
      ]);
      w.child.kill('SIGINT');
      const first = await Promise.race([
        w.exited.then(() => 'exited'),
        new Promise((resolve) => setTimeout(resolve, 1000, 'waiting')),
      ]);
      assert.equal(first, 'waiting', `the first Ctrl-C waits for the goal's cancel: ${w.err()}`);
      assert.match(
        w.err(),
        /witness: SIGINT: stopping the running missions and tool loops first .*; Ctrl-C again to exit at once/,
      );
      const t0 = performance.now();
      w.child.kill('SIGINT');
      const code = await w.exited;
      const ms = performance.now() - t0;
      assert.equal(code, 130, w.err());
      assert.ok(ms < 2000, `the second Ctrl-C exited at once (${Math.round(ms)} ms)`);
      assert.match(w.err(), /witness: interrupted \(Ctrl-C\)/);
    } finally {
      w.child.kill('SIGKILL');
    }
  },
);
