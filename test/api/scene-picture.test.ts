import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pictureInWorld } from '../../main/services/ui/scene.js';
import { forceLayout, gridLayout } from '../../main/services/ui/scene-layout.js';

test('pictureInWorld nests a pixel-space SVG in a world-coordinate viewBox', () => {
  const svg =
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="480" height="240" viewBox="0 0 480 240"><rect width="10" height="10"/></svg>';
  const out = pictureInWorld(svg, { minX: -1, minY: -0.5, maxX: 3, maxY: 1.5 });
  assert.match(out, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="-1 -0\.5 4 2">/);
  assert.match(
    out,
    /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 480 240" x="-1" y="-0\.5" width="4" height="2" preserveAspectRatio="none"><rect width="10" height="10"\/><\/svg><\/svg>$/,
  );
  assert.ok(!out.includes('<?xml'));
  assert.throws(() => pictureInWorld(svg, { minX: 0, minY: 0, maxX: 0, maxY: 1 }), /empty rectangle/);
  assert.throws(() => pictureInWorld('<g/>', { minX: 0, minY: 0, maxX: 1, maxY: 1 }), /no <svg>/);
});

test('layouts: force layout keeps edges shorter than non-edges; the grid layout is a permutation of cells', () => {
  // A path of 12 nodes: neighbours end up closer together than the ends.
  const n = 12;
  const adj = Array.from({ length: n }, (_, v) => [v - 1, v + 1].filter((w) => w >= 0 && w < n));
  const xy = forceLayout(n, adj);
  const d = (a: number, b: number): number => Math.hypot(xy[2 * a]! - xy[2 * b]!, xy[2 * a + 1]! - xy[2 * b + 1]!);
  assert.ok(d(0, 1) < d(0, n - 1));
  assert.deepEqual(forceLayout(n, adj), xy, 'deterministic');
  const g = gridLayout(
    10,
    Array.from({ length: 10 }, () => []),
    3,
  );
  const cells = new Set<string>();
  for (let v = 0; v < 10; v++) cells.add(`${g[2 * v]},${g[2 * v + 1]}`);
  assert.equal(cells.size, 10);
  assert.deepEqual([g[6], g[7]], [0, -0], 'the start comes first');
});
