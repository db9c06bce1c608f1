import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  LayoutError,
  MAZES,
  cellAt,
  cellCenter,
  distancesFrom,
  freeCells,
  geodesicMatrix,
  shortestPath,
  validateLayout,
  type MazeLayout,
} from '../../../main/core/world/maze.js';
import { pointMazeMjcf } from '../../../main/core/world/mjcf.js';

test('the OGBench layouts have the sizes OGBench uses and are valid', () => {
  assert.deepEqual([MAZES.medium.grid.length, MAZES.medium.grid[0]!.length], [8, 8]);
  assert.deepEqual([MAZES.large.grid.length, MAZES.large.grid[0]!.length], [9, 12]);
  assert.deepEqual([MAZES.giant.grid.length, MAZES.giant.grid[0]!.length], [12, 16]);
  for (const l of Object.values(MAZES)) validateLayout(l);
  assert.equal(freeCells(MAZES.medium).length, 26);
});

test('cell (1,1) is at the origin (OGBench coordinates) and positions map back to their cell', () => {
  assert.deepEqual(cellCenter(MAZES.medium, { i: 1, j: 1 }), { x: 0, y: 0 });
  fc.assert(
    fc.property(
      fc.constantFrom(...freeCells(MAZES.giant)),
      fc.double({ min: -1.99, max: 1.99, noNaN: true }),
      fc.double({ min: -1.99, max: 1.99, noNaN: true }),
      (c, dx, dy) => {
        const p = cellCenter(MAZES.giant, c);
        assert.deepEqual(cellAt(MAZES.giant, p.x + dx, p.y + dy), c);
      },
    ),
    { numRuns: 300, seed: 1 },
  );
  assert.equal(cellAt(MAZES.medium, -100, 0), null);
});

test('geodesic distances: symmetric, zero on the diagonal, triangle inequality, and shortest paths realise them', () => {
  const { cells, distance } = geodesicMatrix(MAZES.large);
  const n = cells.length;
  for (let a = 0; a < n; a++) {
    assert.equal(distance[a * n + a], 0);
    for (let b = 0; b < n; b++) {
      assert.equal(distance[a * n + b], distance[b * n + a]);
      assert.ok(distance[a * n + b]! > 0 || a === b);
    }
  }
  fc.assert(
    fc.property(fc.nat(n - 1), fc.nat(n - 1), fc.nat(n - 1), (a, b, c) => {
      assert.ok(distance[a * n + c]! <= distance[a * n + b]! + distance[b * n + c]!);
      const path = shortestPath(MAZES.large, cells[a]!, cells[c]!)!;
      assert.equal(path.length - 1, distance[a * n + c]);
      for (let k = 1; k < path.length; k++) {
        assert.equal(Math.abs(path[k]!.i - path[k - 1]!.i) + Math.abs(path[k]!.j - path[k - 1]!.j), 1);
        assert.equal(MAZES.large.grid[path[k]!.i]![path[k]!.j], 0);
      }
    }),
    { numRuns: 300, seed: 2 },
  );
  // the medium maze: from (1,1) to (6,6) is 10 cells
  const d = distancesFrom(MAZES.medium, { i: 1, j: 1 });
  assert.equal(d[6 * 8 + 6], 10);
});

test('bad layouts are rejected with the field that is wrong', () => {
  const bad = (grid: number[][]): MazeLayout => ({ id: 'bad', grid, unit_m: 4, offset_m: 4 });
  const cases: [number[][], RegExp][] = [
    [
      [
        [1, 1, 1],
        [1, 0, 1],
      ],
      /grid: needs at least 3 rows/,
    ],
    [
      [
        [1, 1, 1],
        [1, 0, 1],
        [1, 1],
      ],
      /grid\[2\]: has 2 cells, row 0 has 3/,
    ],
    [
      [
        [1, 1, 1],
        [1, 2, 1],
        [1, 1, 1],
      ],
      /grid\[1\]\[1\]: must be 0 \(free\) or 1 \(wall\)/,
    ],
    [
      [
        [1, 1, 1],
        [0, 0, 1],
        [1, 1, 1],
      ],
      /grid\[1\]\[0\]: border cells must be walls/,
    ],
    [
      [
        [1, 1, 1],
        [1, 0, 1],
        [1, 1, 1],
      ],
      /needs at least two free cells/,
    ],
    [
      [
        [1, 1, 1, 1, 1],
        [1, 0, 1, 0, 1],
        [1, 1, 1, 1, 1],
      ],
      /grid\[1\]\[3\]: free cell not connected/,
    ],
  ];
  for (const [grid, msg] of cases) {
    assert.throws(
      () => validateLayout(bad(grid), 'my.maze'),
      (e: unknown) => e instanceof LayoutError && msg.test(e.message) && e.message.startsWith('my.maze: '),
    );
  }
});

test('the committed scenes are exactly what the layouts generate', () => {
  for (const name of Object.keys(MAZES) as (keyof typeof MAZES)[]) {
    const file = fileURLToPath(new URL(`../../../../assets/scenes/pointmaze-${name}.xml`, import.meta.url));
    assert.equal(readFileSync(file, 'utf8'), pointMazeMjcf(MAZES[name]), `${file} is stale: run witness world scenes`);
  }
  const xml = pointMazeMjcf(MAZES.medium);
  const walls = MAZES.medium.grid.flat().filter((v) => v === 1).length;
  assert.equal((xml.match(/<geom name="wall_/g) ?? []).length, walls);
  assert.match(xml, /<joint name="x" type="slide"/);
  assert.match(xml, /ctrlrange="-1 1"/);
});
