// A replay places the plan nodes the log does not place along the maze's corridors, and an Ant
// maze's replay has its maze (the Ant mazes share the point mazes' layouts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAZES, type MazeLayout, cellAt, isFree } from '../../../main/core/world/maze.js';
import { alongPath, mazePath, spreadAlong } from '../../../main/services/audit/replay-path.js';
import { mazeOf } from '../../../main/services/audit/replay.js';

/** Whether the straight segment p→q stays in free cells (sampled finely against the cell size). */
function clear(layout: MazeLayout, p: readonly [number, number], q: readonly [number, number]): boolean {
  const n = Math.ceil((Math.hypot(q[0] - p[0], q[1] - p[1]) / layout.unit_m) * 50) + 1;
  for (let k = 0; k <= n; k++) {
    const x = p[0] + ((q[0] - p[0]) * k) / n,
      y = p[1] + ((q[1] - p[1]) * k) / n;
    const c = cellAt(layout, x, y);
    if (c === null || !isFree(layout, c.i, c.j)) return false;
  }
  return true;
}

test('the path between two points of a maze runs through free cells only, where a straight line crosses walls', () => {
  for (const layout of Object.values(MAZES)) {
    const free: [number, number][] = [];
    layout.grid.forEach((row, i) =>
      row.forEach((v, j) => {
        if (v === 0) free.push([j * layout.unit_m - layout.offset_m + 0.3, i * layout.unit_m - layout.offset_m - 0.4]);
      }),
    );
    let crossing = 0;
    for (let k = 0; k < free.length; k += 3) {
      const a = free[k]!,
        b = free[(k * 7 + 5) % free.length]!;
      if (!clear(layout, a, b)) crossing++;
      const path = mazePath(layout, a, b);
      assert.deepEqual(path[0], a);
      assert.deepEqual(path[path.length - 1], b);
      for (let s = 1; s < path.length; s++)
        assert.ok(
          clear(layout, path[s - 1]!, path[s]!),
          `${layout.id}: ${JSON.stringify(path.slice(s - 1, s + 1))} crosses a wall`,
        );
      for (const t of [0, 0.25, 0.5, 0.75, 1]) {
        const [x, y] = alongPath(path, t);
        const c = cellAt(layout, x, y)!;
        assert.ok(isFree(layout, c.i, c.j), `${layout.id}: the point at ${t} of the path is in a wall`);
      }
    }
    assert.ok(crossing > 0, `${layout.id}: some straight lines cross walls (else this test shows nothing)`);
  }
});

test('a point along a path is at its share of the path’s length', () => {
  const path: [number, number][] = [
    [0, 0],
    [4, 0],
    [4, 4],
  ];
  assert.deepEqual(alongPath(path, 0), [0, 0]);
  assert.deepEqual(alongPath(path, 0.25), [2, 0]);
  assert.deepEqual(alongPath(path, 0.75), [4, 2]);
  assert.deepEqual(alongPath(path, 1), [4, 4]);
  assert.deepEqual(alongPath(path, 2), [4, 4]);
  assert.deepEqual(alongPath([[1, 2]], 0.5), [1, 2]);
  // Outside the grid: a straight segment.
  assert.deepEqual(mazePath(MAZES.medium, [-100, 0], [4, 4]), [
    [-100, 0],
    [4, 4],
  ]);
});

test('an Ant maze world replays in its maze, as a point maze does', () => {
  assert.equal(mazeOf('antmaze-medium'), MAZES.medium);
  assert.equal(mazeOf('antmaze-large'), MAZES.large);
  assert.equal(mazeOf('pointmaze-giant'), MAZES.giant);
  assert.equal(mazeOf('antmaze-unknown'), null);
  assert.equal(mazeOf('tabletop'), null);
});

test('nodes spread along a path take its corners first: with as many nodes as corners, every leg stays off the walls', () => {
  const layout = MAZES.medium;
  // From the bottom left room to the top right one: a winding way.
  const a: [number, number] = [8, 20],
    b: [number, number] = [20, 0];
  assert.equal(clear(layout, a, b), false);
  const path = mazePath(layout, a, b);
  for (const m of [1, 2, 3, 6, 12]) {
    const pts = spreadAlong(path, m);
    assert.equal(pts.length, m);
    for (const [x, y] of pts) {
      const c = cellAt(layout, x, y)!;
      assert.ok(isFree(layout, c.i, c.j), `${m} nodes: (${x}, ${y}) is in a wall`);
    }
    const legs = [a, ...pts, b];
    const crossing = legs.slice(1).filter((q, k) => !clear(layout, legs[k]!, q)).length;
    if (m >= 6) assert.equal(crossing, 0, `${m} nodes: ${crossing} legs cross walls`);
  }
  assert.deepEqual(spreadAlong(path, 0), []);
  // A straight path: evenly spread.
  assert.deepEqual(
    spreadAlong(
      [
        [0, 0],
        [3, 0],
      ],
      2,
    ),
    [
      [1, 0],
      [2, 0],
    ],
  );
});
