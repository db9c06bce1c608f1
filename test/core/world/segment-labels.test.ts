import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { segmentRuns } from '../../../main/core/world/segment-labels.js';
import { type Region, labelAt } from '../../../main/core/world/regions.js';

// Millimetres, so that segments run along box edges and through corners as often as not.
const coord = fc.integer({ min: -5000, max: 5000 }).map((v) => v / 1000);
const regionArb = (name: string): fc.Arbitrary<Region> =>
  fc.oneof(
    fc
      .record({ c: fc.tuple(coord, coord), r: fc.integer({ min: 50, max: 3000 }).map((v) => v / 1000) })
      .map(({ c, r }): Region => ({ name, kind: 'disk', center: c, radius: r })),
    fc
      .record({
        a: fc.tuple(coord, coord),
        w: fc.integer({ min: 50, max: 4000 }).map((v) => v / 1000),
        h: fc.integer({ min: 50, max: 4000 }).map((v) => v / 1000),
      })
      .map(({ a, w, h }): Region => ({ name, kind: 'box', min: a, max: [a[0] + w, a[1] + h] })),
  );
const regionsArb = fc
  .tuple(regionArb('a'), regionArb('b'), regionArb('c'))
  .chain((rs) => fc.subarray(rs, { minLength: 0 }));
const key = (l: readonly string[]): string => l.join(',');

test('segmentRuns: the labels a dense walk along the segment sees, in order, each run at a point with exactly its labels', () => {
  fc.assert(
    fc.property(regionsArb, coord, coord, coord, coord, (regions, ax, ay, bx, by) => {
      const runs = segmentRuns(regions, ax, ay, bx, by);
      assert.ok(runs.length >= 1);
      assert.equal(runs[0]!.t, 0);
      assert.equal(key(runs[0]!.labels), key(labelAt(regions, ax, ay)));
      if (runs.length > 1) {
        assert.equal(runs[runs.length - 1]!.t, 1);
        assert.equal(key(runs[runs.length - 1]!.labels), key(labelAt(regions, bx, by)));
      }
      for (let i = 0; i < runs.length; i++) {
        const r = runs[i]!;
        if (i > 0) {
          assert.ok(r.t > runs[i - 1]!.t, 'runs in order along the segment');
          assert.notEqual(key(r.labels), key(runs[i - 1]!.labels), 'neighbouring runs differ');
        }
        const [x, y] = r.t === 0 ? [ax, ay] : r.t === 1 ? [bx, by] : [ax + r.t * (bx - ax), ay + r.t * (by - ay)];
        assert.equal(key(labelAt(regions, x, y)), key(r.labels), `run ${i}'s point has its labels`);
      }
      // A dense walk sees only these label sets, in this order (it may step over a short run).
      let at = 0;
      const n = 2000;
      for (let s = 0; s <= n; s++) {
        const l = key(
          s === n ? labelAt(regions, bx, by) : labelAt(regions, ax + ((bx - ax) * s) / n, ay + ((by - ay) * s) / n),
        );
        while (at < runs.length && key(runs[at]!.labels) !== l) at++;
        assert.ok(at < runs.length, `sample ${s}/${n} has {${l}}, not among the runs' remaining labels`);
      }
    }),
    { seed: 31, numRuns: 400 },
  );
});

test('segmentRuns: through a disk and out, along a box edge, a touch, and nothing near', () => {
  const disk: Region = { name: 'h', kind: 'disk', center: [0, 0], radius: 1 };
  assert.deepEqual(
    segmentRuns([disk], -2, 0, 2, 0).map((r) => [r.labels, r.t, r.from]),
    [
      [[], 0, 0],
      [['h'], 0.5, 0.25],
      [[], 1, 0.75],
    ],
    'each run with where it begins: the boundary crossed',
  );
  // a segment tangent to the disk touches it at one point: that point is a run of its own
  const touch = segmentRuns([disk], -2, 1, 2, 1);
  assert.deepEqual(
    touch.map((r) => r.labels),
    [[], ['h'], []],
  );
  assert.equal(touch[1]!.t, 0.5);
  // along a box's top edge: the closed box holds the whole stretch
  const box: Region = { name: 'b', kind: 'box', min: [0, 0], max: [1, 1] };
  assert.deepEqual(
    segmentRuns([box], -1, 1, 2, 1).map((r) => r.labels),
    [[], ['b'], []],
  );
  assert.deepEqual(segmentRuns([box], 5, 5, 6, 6), [{ labels: [], t: 0, from: 0 }]);
  // overlapping regions: the overlap is a run of its own
  const d2: Region = { name: 'd', kind: 'disk', center: [1, 0.5], radius: 0.5 };
  assert.deepEqual(
    segmentRuns([box, d2], -1, 0.5, 3, 0.5).map((r) => r.labels),
    [[], ['b'], ['b', 'd'], ['d'], []],
  );
});
