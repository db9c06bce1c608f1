import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTUATOR_JOINT,
  ANT_ACTUATORS,
  ANT_JOINTS,
  antMazeMjcf,
  wallBoxes,
} from '../../../main/core/world/ant-mjcf.js';
import { MAZES } from '../../../main/core/world/maze.js';

test('wallBoxes covers exactly the wall cells, each once, with far fewer boxes than cells', () => {
  for (const layout of Object.values(MAZES)) {
    const rows = layout.grid.length,
      cols = layout.grid[0]!.length;
    const covered = new Uint8Array(rows * cols);
    const boxes = wallBoxes(layout);
    for (const b of boxes) {
      for (let i = b.i0; i <= b.i1; i++) {
        for (let j = b.j0; j <= b.j1; j++) {
          assert.equal(layout.grid[i]![j], 1, `${layout.id}: box covers free cell (${i}, ${j})`);
          assert.equal(covered[i * cols + j], 0, `${layout.id}: cell (${i}, ${j}) covered twice`);
          covered[i * cols + j] = 1;
        }
      }
    }
    const walls = layout.grid.flat().filter((v) => v === 1).length;
    assert.equal(
      covered.reduce((a, b) => a + b, 0),
      walls,
      `${layout.id}: every wall cell covered`,
    );
    assert.ok(boxes.length * 2 < walls, `${layout.id}: ${boxes.length} boxes for ${walls} wall cells`);
  }
});

test('the Ant MJCF: one box geom per merged wall, eight motors of gear 150 in the Gym order, control in [-1, 1]', () => {
  const xml = antMazeMjcf(MAZES.medium);
  assert.equal((xml.match(/<geom name="wall_/g) ?? []).length, wallBoxes(MAZES.medium).length);
  const motors = [
    ...xml.matchAll(/<motor name="(\w+)" joint="(\w+)" gear="150" ctrllimited="true" ctrlrange="-1 1"\/>/g),
  ].map((m) => m[2]);
  assert.deepEqual(motors, [...ANT_ACTUATORS]);
  assert.match(xml, /<option timestep="0.01" integrator="RK4"/);
  assert.match(xml, /<joint name="root" type="free"/);
  assert.deepEqual(
    ACTUATOR_JOINT.map((j) => ANT_JOINTS[j]),
    [...ANT_ACTUATORS],
  );
});
