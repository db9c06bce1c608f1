/**
 * latentRange: a latent that is the geodesic itself (a corridor, z = position along it) ranks every
 * triple right and its distance per geodesic cell is exact; Euclidean positions in a U-shaped maze
 * (a thin wall between the arms) rank the cell across the wall nearer than cells down the corridor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latentRange } from '../../../main/core/exec/latent-range.js';
import { type MazeLayout, freeCells } from '../../../main/core/world/maze.js';

const layout = (grid: number[][]): MazeLayout => ({ id: 't', grid, unit_m: 1, offset_m: 0 });

test('latentRange: a latent equal to the geodesic ranks every triple right', () => {
  const l = layout([
    [1, 1, 1, 1, 1, 1, 1],
    [1, 0, 0, 0, 0, 0, 1],
    [1, 1, 1, 1, 1, 1, 1],
  ]);
  const r = latentRange(
    l,
    freeCells(l).map((c) => Float32Array.of(c.j)),
  );
  assert.equal(r.misranked, 0);
  // Per anchor along a 5-cell corridor (the anchor itself not a candidate): 3 + 2 + 0 + 2 + 3.
  assert.equal(r.triples, 10);
  assert.deepEqual(
    r.byCells.map((b) => [b.cells, b.median, b.pairs]),
    [
      [1, 1, 8],
      [2, 2, 6],
      [3, 3, 4],
      [4, 4, 2],
    ],
  );
});

test('latentRange: Euclidean latents across a thin wall are misranked', () => {
  const l = layout([
    [1, 1, 1, 1, 1],
    [1, 0, 1, 0, 1],
    [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
    [1, 1, 1, 1, 1],
  ]);
  const r = latentRange(
    l,
    freeCells(l).map((c) => Float32Array.of(c.i, c.j)),
  );
  assert.ok(r.misranked > 0);
  const six = r.byCells.find((b) => b.cells === 6)!;
  assert.equal(six.median, 2); // the two arm ends: 6 cells apart, 2 apart as the crow flies
  assert.throws(() => latentRange(l, []), /0 latents for 7 free cells/);
});
