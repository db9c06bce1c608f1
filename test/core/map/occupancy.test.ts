import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FREE,
  OCCUPIED,
  type OccupancyParams,
  type RasterImage,
  UNKNOWN,
  cellAt,
  cellCentre,
  classify,
  classifyPixel,
} from '../../../main/core/map/occupancy.js';

const P: OccupancyParams = { negate: false, occupiedThresh: 0.65, freeThresh: 0.196, mode: 'trinary' };
const gray = (values: number[], o: Partial<OccupancyParams> = {}): number[] => [
  ...classify(
    { width: values.length, height: 1, channels: 1, maxval: 255, data: Uint8Array.from(values) },
    { ...P, ...o },
  ),
];

test('trinary: occ = 1 − v/255 against the thresholds (strict), as map_server', () => {
  // 254 free (map_saver), 0 occupied, 205 unknown; the threshold values themselves are unknown
  assert.deepEqual(gray([254, 0, 205, 255]), [FREE, OCCUPIED, UNKNOWN, FREE]);
  // 89 → occ 0.651 occupied, 90 → 0.647 unknown; 205 → 0.196078 unknown, 206 → 0.192 free
  assert.deepEqual(gray([89, 90, 205, 206]), [OCCUPIED, UNKNOWN, UNKNOWN, FREE]);
  // strict comparisons: occ equal to a threshold is neither occupied nor free (1 − 51/255 and 1 − 153/255 are 0.8 and
  // 0.4 exactly)
  assert.equal(classifyPixel(51, 255, false, 255, { ...P, occupiedThresh: 0.8 }), UNKNOWN);
  assert.equal(classifyPixel(50, 255, false, 255, { ...P, occupiedThresh: 0.8 }), OCCUPIED);
  assert.equal(classifyPixel(153, 255, false, 255, { ...P, freeThresh: 0.4 }), UNKNOWN);
  assert.equal(classifyPixel(154, 255, false, 255, { ...P, freeThresh: 0.4 }), FREE);
  // thresholds move the boundaries
  assert.deepEqual(gray([100], { occupiedThresh: 0.5 }), [OCCUPIED]);
  assert.deepEqual(gray([100], { freeThresh: 0.7, occupiedThresh: 0.9 }), [FREE]);
});

test('negate: dark is free, light is occupied', () => {
  assert.deepEqual(gray([254, 0, 205], { negate: true }), [OCCUPIED, FREE, OCCUPIED]);
  assert.deepEqual(gray([100], { negate: true }), [UNKNOWN]);
});

test('colour: the mean of the channels; 16-bit samples scale by maxval', () => {
  const rgb: RasterImage = {
    width: 3,
    height: 1,
    channels: 3,
    maxval: 255,
    data: Uint8Array.from([255, 255, 252, 255, 0, 0, 10, 20, 30]),
  };
  // mean 254 free; mean 85 → occ 0.667 occupied; mean 20 occupied
  assert.deepEqual([...classify(rgb, P)], [FREE, OCCUPIED, OCCUPIED]);
  const wide: RasterImage = { width: 2, height: 1, channels: 1, maxval: 65535, data: Uint16Array.from([65535, 0]) };
  assert.deepEqual([...classify(wide, P)], [FREE, OCCUPIED]);
});

test('alpha: trinary averages it in (map_server) and alpha 0 is unknown; scale: anything not opaque is unknown', () => {
  const ga = (v: number, a: number, mode: OccupancyParams['mode'] = 'trinary'): number =>
    classify({ width: 1, height: 1, channels: 2, maxval: 255, data: Uint8Array.from([v, a]) }, { ...P, mode })[0]!;
  assert.equal(ga(254, 255), FREE);
  assert.equal(ga(0, 255), OCCUPIED); // (0·3 + 255) / 4 = 63.75 → occ 0.75
  assert.equal(ga(254, 0), UNKNOWN); // transparent white
  assert.equal(ga(0, 0), UNKNOWN); // transparent black: map_server would say occupied; never free either way
  // averaging the alpha in moves an opaque grey: 200 alone is unknown (occ 0.216), (600 + 255) / 4 is free (occ 0.162)
  assert.equal(gray([200])[0], UNKNOWN);
  assert.equal(ga(200, 255), FREE);
  assert.equal(ga(254, 254, 'scale'), UNKNOWN);
  assert.equal(ga(254, 255, 'scale'), FREE);
  assert.equal(ga(0, 255, 'scale'), OCCUPIED);
  assert.equal(ga(120, 255, 'scale'), UNKNOWN); // a cost in between: not free
  const rgba: RasterImage = {
    width: 2,
    height: 1,
    channels: 4,
    maxval: 255,
    data: Uint8Array.from([254, 254, 254, 255, 254, 254, 254, 0]),
  };
  assert.deepEqual([...classify(rgba, P)], [FREE, UNKNOWN]);
});

test('raw: the value is occupancy in percent; above 100 unknown; negate ignored', () => {
  assert.deepEqual(gray([0, 100, 50, 255, 101], { mode: 'raw' }), [FREE, OCCUPIED, UNKNOWN, UNKNOWN, UNKNOWN]);
  assert.deepEqual(gray([0, 100], { mode: 'raw', negate: true }), [FREE, OCCUPIED]);
  assert.deepEqual(gray([19, 66], { mode: 'raw' }), [FREE, OCCUPIED]);
});

test('row 0 is the top of the map; cell centres and cellAt agree', () => {
  const g = { width: 4, height: 3, resolution: 0.5, originX: -1, originY: 2, cells: new Uint8Array(12) };
  assert.deepEqual(cellCentre(g, 0, 2), [-0.75, 2.25]); // bottom-left pixel at the origin
  assert.deepEqual(cellCentre(g, 3, 0), [0.75, 3.25]);
  for (let row = 0; row < 3; row++)
    for (let col = 0; col < 4; col++) assert.deepEqual(cellAt(g, ...cellCentre(g, col, row)), { col, row });
  assert.equal(cellAt(g, -1.01, 2.1), null);
  assert.equal(cellAt(g, 0, 3.6), null);
});
