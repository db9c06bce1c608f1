// @slow: the tool loop through Nav2 on the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// docs/ROS2.md's walk-through, step 5, executed: `witness act` (app runAct) on the shipped TurtleBot3
// + Nav2 configuration with a folder holding the shipped navigate tool and the shipped plan, over the
// simulated ROS 2 graph in place of the robot — as Humble and as Jazzy (the aborted goal differs: the
// recovery rounds before it, the result's code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAct } from '../../main/app/act.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { DISTROS } from '../ros2-sim/nav2-profile.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

for (const distro of DISTROS)
  test(`the walk-through's tool loop: to the shelf, then the bench, verified on the pose; an aborted goal is retried (${distro})`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'witness-lab-act-'));
    const tools = path.join(dir, 'lab-tools');
    mkdirSync(tools);
    copyFileSync(path.join(ROOT, 'assets', 'ros2', 'tools', 'navigate.json'), path.join(tools, 'navigate.json'));
    const c = JSON.parse(readFileSync(path.join(ROOT, 'assets', 'ros2', 'lab-turtlebot3.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const config = path.join(dir, 'lab.json');
    writeFileSync(
      config,
      JSON.stringify({ ...c, connect_timeout_s: 2, regions: path.join(ROOT, 'assets', 'maps', 'lab-regions.json') }),
    );
    const g = await SimulatedRos2Graph.create({ start: [0, 0], gripper: false, distro });
    try {
      g.next.push({ kind: 'abort', after_s: 0.5 });
      const r = await runAct({
        world: `ros2:${config}`,
        open: g.open,
        tools,
        plan: path.join(ROOT, 'assets', 'ros2', 'plans', 'lab-shelf-then-bench.json'),
        planner: 'recovery',
        goal: 'at.bench',
        task: 'to the shelf, then the bench',
        replans: 2,
        seed: 0,
        audit: path.join(dir, 'audit.sqlite'),
      });
      assert.equal(r.result.outcome, 'success', r.result.reason);
      assert.equal(r.result.failures.length, 1);
      assert.equal(r.result.failures[0]!.class, 'transient');
      assert.equal(r.result.failures[0]!.world_error?.kind, 'aborted');
      assert.equal(r.result.toolCalls, 3);
      assert.ok(Math.hypot(g.position[0] - 9.0, g.position[1] - 4.65) < 0.3);
      assert.notEqual(r.audit, null);
    } finally {
      g.stop();
    }
  });
