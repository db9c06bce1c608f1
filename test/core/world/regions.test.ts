import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  REGIONS_SCHEMA,
  labelAt,
  pairwiseDisjoint,
  parseRegions,
  sampleDiskRegions,
  type Region,
} from '../../../main/core/world/regions.js';
import { GRAPH_SCHEMA } from '../../../main/core/plan/labelled-graph.js';
import { MAZES, cellAt, isFree } from '../../../main/core/world/maze.js';
import { createRng } from '../../../main/core/random/rng.js';
import { InputError } from '../../../main/core/input/json.js';

const disk = (name: string, x: number, y: number, r: number): Region => ({
  name,
  kind: 'disk',
  center: [x, y],
  radius: r,
});

test('regions: labels, disjointness of disks and boxes', () => {
  const rs: Region[] = [disk('a', 0, 0, 1), { name: 'b', kind: 'box', min: [2, -1], max: [4, 1] }];
  assert.deepEqual(labelAt(rs, 0.5, 0.5), ['a']);
  assert.deepEqual(labelAt(rs, 3, 0), ['b']);
  assert.deepEqual(labelAt(rs, 1.5, 0), []);
  assert.equal(pairwiseDisjoint(rs), true);
  assert.equal(pairwiseDisjoint([...rs, disk('c', 4.5, 0, 0.6)]), false);
  assert.equal(pairwiseDisjoint([disk('a', 0, 0, 1), disk('b', 2, 0, 1)]), false, 'touching disks share a point');
});

test('regions files: every problem names the JSON path', () => {
  const bad = (v: unknown, re: RegExp) =>
    assert.throws(
      () => parseRegions(v, 'r.json'),
      (e: unknown) => e instanceof InputError && re.test(e.message),
    );
  bad({}, /^r\.json: \$: missing required field "regions"/);
  bad({ regions: [{ name: 'a', kind: 'disk', center: [0, 0] }] }, /\$\.regions\[0\]: a disk needs "radius"/);
  bad({ regions: [{ name: 'a', kind: 'disk', center: [0, 0], radius: 0 }] }, /\$\.regions\[0\]\.radius: must be > 0/);
  bad(
    { regions: [{ name: 'a', kind: 'box', min: [0, 0], max: [0, 1] }] },
    /\$\.regions\[0\]\.max\[0\]: must be greater than min\[0\]/,
  );
  bad(
    {
      regions: [
        { name: 'a', kind: 'disk', center: [0, 0], radius: 1 },
        { name: 'a', kind: 'disk', center: [5, 0], radius: 1 },
      ],
    },
    /\$\.regions\[1\]\.name: duplicate region "a"/,
  );
  bad({ regions: [{ name: 'a', kind: 'ring', center: [0, 0], radius: 1 }] }, /\$\.regions\[0\]\.kind: /);
  const ok = parseRegions(
    JSON.parse(readFileSync(new URL('../../../../assets/regions/pointmaze-medium.json', import.meta.url), 'utf8')),
    'medium',
  );
  assert.equal(ok.world, 'pointmaze-medium');
  assert.equal(pairwiseDisjoint(ok.regions), true);
});

test('generated task regions are disjoint disks centred in distinct free cells', () => {
  for (const maze of Object.values(MAZES)) {
    const rs = sampleDiskRegions(maze, ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'], createRng(3));
    assert.equal(pairwiseDisjoint(rs), true);
    for (const r of rs) {
      assert.equal(r.kind, 'disk');
      const c = r.kind === 'disk' ? cellAt(maze, r.center[0], r.center[1]) : null;
      assert.ok(c !== null && isFree(maze, c.i, c.j));
    }
  }
});

test('the published JSON Schemas are the ones the code validates with', () => {
  const read = (name: string): unknown =>
    JSON.parse(readFileSync(new URL(`../../../../docs/schemas/${name}`, import.meta.url), 'utf8'));
  assert.deepEqual(read('graph.schema.json'), GRAPH_SCHEMA);
  assert.deepEqual(read('regions.schema.json'), REGIONS_SCHEMA);
});
