import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arrivalPoint } from '../../../main/core/exec/arrival.js';
import { labelAt, type Region } from '../../../main/core/world/regions.js';

const REGIONS: Region[] = [
  { name: 'bench', kind: 'box', min: [7.5, 4.4], max: [10.5, 4.9] },
  { name: 'dock', kind: 'disk', center: [1, 1], radius: 0.6 },
  { name: 'spill', kind: 'box', min: [0, 0], max: [0.9, 2] },
];
const near = (p: { x: number; y: number }, x: number, y: number): boolean =>
  Math.abs(p.x - x) < 1e-6 && Math.abs(p.y - y) < 1e-6;

test("a checkpoint near a region's edge moves inside by the goal tolerance; one deep inside stays; nothing needed, nothing moves", () => {
  // 8 cm inside the bench band's corner: a robot stopping 0.25 m short could be outside it.
  assert.ok(near(arrivalPoint(REGIONS, ['bench'], [], 7.58, 4.48, 0.25), 7.75, 4.65));
  // The band is 0.5 m: as deep as it goes (its middle); every point of the disc still reads bench.
  const p = arrivalPoint(REGIONS, ['bench'], [], 9, 4.45, 0.25);
  assert.ok(near(p, 9, 4.65));
  for (let k = 0; k < 16; k++)
    assert.ok(
      labelAt(REGIONS, p.x + 0.249 * Math.cos((k * Math.PI) / 8), p.y + 0.249 * Math.sin((k * Math.PI) / 8)).includes(
        'bench',
      ),
    );
  assert.ok(near(arrivalPoint(REGIONS, ['bench'], [], 9, 4.65, 0.25), 9, 4.65), 'already deep enough');
  assert.ok(near(arrivalPoint(REGIONS, [], [], 7.58, 4.48, 0.25), 7.58, 4.48), 'no label needed');
  assert.ok(near(arrivalPoint(REGIONS, ['bench'], [], 7.58, 4.48, 0), 7.58, 4.48), 'no tolerance');
});

test('a disk shrinks by the tolerance; a point that would read a forbidden label is not used', () => {
  const p = arrivalPoint(REGIONS, ['dock'], [], 1.55, 1, 0.25);
  assert.ok(near(p, 1.35, 1), JSON.stringify(p));
  // dock & !spill: the disc about the nearest inner point reaches into the spill; the waypoint stays where the plan put
  // it.
  const q = arrivalPoint(REGIONS, ['dock'], ['spill'], 0.95, 1, 0.25);
  assert.ok(near(q, 0.95, 1), JSON.stringify(q));
});
