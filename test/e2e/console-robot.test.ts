/**
 * A mission on the operator's robot from the console: web mode over a simulated ROS 2 graph
 * in this process (test/ros2-sim: Nav2 servers moving a MuJoCo body, odometry, TF) behind the real
 * Ros2World. The robot and its map graph come from the workspace; the plan starts at the robot's
 * pose when planning; Run refuses a plan whose robot has moved since; a plan runs once; the mission
 * runs through Nav2 to success; the console's Stop cancels the running goal and is recorded as a stop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { PATROL, setup } from '../ros2-sim/lab.js';
import { type AppUnderTest, openApp } from './harness.js';

const inHazard = (x: number, y: number): boolean => x >= 3.6 && x <= 5.4 && y >= -0.4 && y <= 3.4;

async function planOnRobot(app: AppUnderTest, robot: string): Promise<void> {
  const { page } = app;
  await page.click('#plan');
  await page.waitForSelector('#plan-summary .plan-status.ok', { timeout: 60_000 });
  assert.ok(await page.isVisible('#plan-robot'));
  void robot;
}

test("console on a robot: plan on the map graph from the robot's pose, refuse a plan the robot has left, run a patrol through Nav2, stop a running goal", async () => {
  const lab = setup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3] });
  const app = await openApp({ ros2: g.open.ros2! });
  try {
    const { page } = app;
    mkdirSync(path.join(app.workspace, 'ros2'), { recursive: true });
    mkdirSync(path.join(app.workspace, 'graphs'), { recursive: true });
    copyFileSync(lab.regions, path.join(app.workspace, 'ros2', 'regions.json'));
    writeFileSync(path.join(app.workspace, 'ros2', 'lab-sim.json'), readFileSync(path.join(lab.dir, 'robot.json')));
    copyFileSync(lab.graph, path.join(app.workspace, 'graphs', 'lab.json'));
    // A configuration that does not check is listed with its problem, not hidden.
    writeFileSync(path.join(app.workspace, 'ros2', 'broken.json'), '{ "version": 1, "id": "broken" ');
    const robot = `ros2:${path.join(app.workspace, 'ros2', 'lab-sim.json')}`;
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector(`#world option[value="${robot}"]`, { state: 'attached' });
    assert.match((await page.textContent('#world')) ?? '', /ROS 2: broken\.json|broken.*does not check/);
    await page.selectOption('#world', robot);
    // A robot plans on a map graph from where it is: no models, no start, no dataset.
    await page.waitForSelector('#map-graph option[value="graphs/lab.json"]', { state: 'attached' });
    assert.ok(await page.isHidden('#models'));
    assert.ok(await page.isDisabled('#start'));
    assert.match(await page.inputValue('#regions'), /"shelf"/);
    await page.fill('#spec', PATROL);
    await planOnRobot(app, robot);
    assert.match((await page.textContent('#plan-robot')) ?? '', /from the robot at \(0\.20, 0\.30\)/);
    assert.ok(Number(await page.getAttribute('#mission-graph', 'data-nodes')) >= 60);
    await app.screenshot('robot-planned');

    // Someone pushes the robot: the plan on the screen no longer starts where the robot is.
    g.place(1.6, 0.3);
    await page.waitForTimeout(200);
    await page.click('#run');
    await page.waitForSelector('#mission-error:not(:empty)');
    assert.match(
      (await page.textContent('#mission-error')) ?? '',
      /the robot has moved 1\.\d\d m since the plan .*plan again/,
    );
    await page.waitForSelector('#plan-spent');
    assert.ok(await page.isDisabled('#run'));
    assert.equal(g.goals.length, 0, 'nothing moved');
    await app.screenshot('robot-moved-refused');

    // A plan from where it is now runs — through Nav2, to the end of the patrol.
    await planOnRobot(app, robot);
    assert.match((await page.textContent('#plan-robot')) ?? '', /from the robot at \(1\.60, 0\.30\)/);
    await page.fill('#replans', '2');
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    await page.waitForSelector('#mission-log li.ok', { timeout: 120_000 });
    assert.match((await page.textContent('#mission-log')) ?? '', /SUCCESS: prefix and \d+ suffix traversal/);
    assert.ok(g.goals.length > 0, 'goals went to Nav2');
    assert.ok(await page.isDisabled('#run'), "a robot's plan runs once");
    assert.match((await page.textContent('#plan-spent')) ?? '', /plan again from where the robot is now/);
    await app.screenshot('robot-patrolled');

    // Stop while a goal runs: the goal is cancelled, the run ends as stopped.
    await planOnRobot(app, robot);
    const goalsBefore = g.goals.length;
    await page.click('#run');
    await page.waitForSelector('#run-state[data-state="running"]');
    for (let i = 0; i < 200 && g.goals.length === goalsBefore; i++) await page.waitForTimeout(20);
    await page.click('#stop');
    await page.waitForSelector('#mission-log li.stopped', { timeout: 30_000 });
    assert.match((await page.textContent('#mission-log')) ?? '', /STOPPED: stopped by the operator; /);
    assert.ok(
      g.fake.log.some((l) => l.startsWith('cancel ')),
      g.fake.log.slice(-5).join('\n'),
    );
    await app.screenshot('robot-stopped');

    const db = openAuditReadOnly(app.api.context.auditFile);
    try {
      const runs = db.prepare("SELECT id, world FROM runs WHERE world = 'lab-sim' ORDER BY started_ms").all() as {
        id: string;
      }[];
      assert.equal(runs.length, 2, 'the refused plan never became a run');
      const end = (run: string): Record<string, unknown> =>
        JSON.parse(
          (db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_end'").get(run) as { body: string })
            .body,
        ) as Record<string, unknown>;
      assert.equal(end(runs[0]!.id)['outcome'], 'success');
      assert.equal(end(runs[1]!.id)['outcome'], 'stopped');
      // The run executed the plan that was shown: its initial plan starts at the pose shown.
      const plan = JSON.parse(
        (
          db
            .prepare(
              "SELECT b.body FROM events e JOIN blobs b ON b.sha256 = json_extract(e.body, '$.plan_sha') WHERE e.run_id = ? AND e.kind = 'plan' ORDER BY e.seq LIMIT 1",
            )
            .get(runs[0]!.id) as { body: string }
        ).body,
      ) as { prefix: string[] };
      assert.equal(plan.prefix[0], 'robot@0');
      const samples = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'evidence'").all(runs[0]!.id) as {
        body: string;
      }[];
      for (const s of samples) {
        const st = (JSON.parse(s.body) as { state: { x: number; y: number } }).state;
        assert.ok(!inHazard(st.x, st.y), `(${st.x}, ${st.y}) is in the hazard`);
      }
    } finally {
      db.close();
    }
    assert.deepEqual(app.internalErrors, []);
  } finally {
    await app.close();
    g.stop();
  }
});
