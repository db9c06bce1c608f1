// Every maze a mission runs in ships its regions (assets/regions/<world>.json) and an example
// specification over them, so that the console and `witness run --world W` work on each maze as on
// the medium one: the regions are the world's own, lie in free cells, do not overlap, and the example
// mission can be carried out in the maze's layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MISSION_WORLDS } from '../../main/contract/defaults.js';
import { worldEntry } from '../../main/backends/catalogue.js';
import { consoleWorlds } from '../../main/app/worlds.js';
import { specOf } from '../../main/app/task-inputs.js';
import { type Region, inRegion, pairwiseDisjoint, parseRegions } from '../../main/core/world/regions.js';
import {
  type Cell,
  type MazeLayout,
  cellAt,
  cellCenter,
  distancesFrom,
  freeCells,
  isFree,
} from '../../main/core/world/maze.js';

/** Points on a region's outline and its centre. */
function outline(r: Region): [number, number][] {
  if (r.kind === 'box') {
    return [
      [r.min[0], r.min[1]],
      [r.min[0], r.max[1]],
      [r.max[0], r.min[1]],
      [r.max[0], r.max[1]],
      [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2],
    ];
  }
  const pts: [number, number][] = [[r.center[0], r.center[1]]];
  for (let k = 0; k < 32; k++)
    pts.push([
      r.center[0] + r.radius * Math.cos((2 * Math.PI * k) / 32),
      r.center[1] + r.radius * Math.sin((2 * Math.PI * k) / 32),
    ]);
  return pts;
}

/** The layout with every free cell whose centre lies in one of `avoid` walled off. */
function walledOff(layout: MazeLayout, avoid: readonly Region[]): MazeLayout {
  const grid = layout.grid.map((row, i) =>
    row.map((v, j) => {
      const p = cellCenter(layout, { i, j });
      return v === 0 && avoid.some((r) => inRegion(r, p.x, p.y)) ? 1 : v;
    }),
  );
  return { ...layout, grid };
}

const worlds = consoleWorlds({ workspace: mkdtempSync(join(tmpdir(), 'witness-regions-')) });

for (const id of MISSION_WORLDS) {
  test(`${id}: ships its own regions, in free cells, disjoint, and an example mission the maze allows`, () => {
    const e = worldEntry(id);
    assert.ok(e.regionsFile !== null, `${id} ships no regions`);
    const set = parseRegions(JSON.parse(readFileSync(e.regionsFile, 'utf8')), e.regionsFile);
    assert.equal(set.world, id, 'the regions name their world');
    const layout = e.layout!;
    for (const r of set.regions) {
      for (const [x, y] of outline(r)) {
        const c = cellAt(layout, x, y);
        assert.ok(c !== null && isFree(layout, c.i, c.j), `${r.name}: (${x.toFixed(2)}, ${y.toFixed(2)}) is in a wall`);
      }
    }
    assert.ok(pairwiseDisjoint(set.regions), 'the regions do not overlap');

    const info = worlds.find((w) => w.id === id)!;
    assert.equal(info.regions, `regions/${id}.json`);
    assert.ok(info.exampleSpec !== null, `${id} has no example specification`);
    const { automaton } = specOf(info.exampleSpec);
    const named = new Map(set.regions.map((r) => [r.name, r]));
    for (const ap of automaton.aps)
      assert.ok(named.has(ap), `the example names ${ap}, which the regions do not define`);
    // F e2 & G F e1 & G F e4 & G !e0: e2, e1 and e4 reachable from one another without entering e0,
    // from a start that is not in e0.
    const centre = (n: string): Cell => {
      const r = named.get(n)!;
      const [x, y] = r.kind === 'disk' ? r.center : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];
      return cellAt(layout, x, y)!;
    };
    const avoiding = walledOff(layout, [named.get('e0')!]);
    const cols = layout.grid[0]!.length;
    const d = distancesFrom(avoiding, centre('e2'));
    for (const n of ['e1', 'e4']) assert.ok(d[centre(n).i * cols + centre(n).j]! >= 0, `${n} is cut off from e2 by e0`);
    const reached = freeCells(avoiding).filter((c) => d[c.i * cols + c.j]! >= 0).length;
    assert.ok(reached >= freeCells(layout).length - 1, 'e0 cuts off no more than its own cell');
  });
}
