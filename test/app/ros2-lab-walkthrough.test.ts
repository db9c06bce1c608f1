// @slow: a mission through Nav2 on the simulated ROS 2 graph (long simulation) (not in npm run test:quick)
// docs/ROS2.md's walk-through, executed: the shipped lab map becomes a graph (`witness graph
// from-map`), and a mission runs on it through the shipped TurtleBot3 + Nav2 configuration
// (assets/ros2/lab-turtlebot3.json) — over the simulated ROS 2 graph (test/ros2-sim) in place of
// the robot. The realised path is checked against the map itself: every pose sample in a free cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { graphFromMap } from '../../main/app/maps.js';
import { runMapMission } from '../../main/app/mission.js';
import { readMap } from '../../main/services/maps/read.js';
import { FREE, cellAt } from '../../main/core/map/occupancy.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAP = path.join(ROOT, 'assets', 'maps', 'lab.yaml');
const REGIONS = path.join(ROOT, 'assets', 'maps', 'lab-regions.json');

/** The shipped configuration, sampling the pose every 20 ms (the simulated robot runs 10× real time). */
function labConfig(dir: string): string {
  const c = JSON.parse(readFileSync(path.join(ROOT, 'assets', 'ros2', 'lab-turtlebot3.json'), 'utf8')) as Record<
    string,
    unknown
  > & { waypoints: Record<string, unknown> };
  const file = path.join(dir, 'lab.json');
  writeFileSync(
    file,
    JSON.stringify({ ...c, connect_timeout_s: 2, regions: REGIONS, waypoints: { ...c.waypoints, poll_s: 0.02 } }),
  );
  return file;
}

test('the walk-through: the lab map becomes a graph, and a patrol avoiding the spill runs on it through Nav2 goals, every pose in free space', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-lab-'));
  const graph = path.join(dir, 'lab-graph.json');
  const built = await graphFromMap({ map: MAP, regions: REGIONS, out: graph, spacing: 1, clearance: 0.25 });
  assert.ok(built.nodes > 20);
  for (const label of ['dock', 'bench', 'shelf', 'spill'])
    assert.ok((built.perLabel[label] ?? 0) >= 1, `a node carries ${label}`);
  // A patrol that succeeds does not depend on the distro (Nav2's goal checker is the same in both): Humble here.
  const g = await SimulatedRos2Graph.create({ start: [0, 0], distro: 'humble' });
  try {
    const r = await runMapMission(
      { world: `ros2:${labConfig(dir)}`, spec: 'G F shelf & G F bench & G !spill', regions: { file: REGIONS }, graph },
      { method: 'sagas-replan', audit: path.join(dir, 'audit.sqlite'), open: g.open },
    );
    assert.equal(r.result.success, true, r.result.message);
    assert.ok(r.result.labels.some((l) => l.includes('shelf')) && r.result.labels.some((l) => l.includes('bench')));
    assert.ok(r.result.labels.every((l) => !l.includes('spill')));
    const map = await readMap(MAP);
    const t = r.result.trajectory;
    for (let i = 0; i < t.length; i += 2) {
      const c = cellAt(map.grid, t[i]!, t[i + 1]!);
      assert.ok(
        c !== null && map.grid.cells[c.row * map.grid.width + c.col] === FREE,
        `sample ${i / 2} at (${t[i]!.toFixed(2)}, ${t[i + 1]!.toFixed(2)}) is not in a free cell`,
      );
    }
  } finally {
    g.stop();
  }
});
