// Region colours are one per proposition in every view: the maze picture, the
// robot's map picture and the scene's colours the graph views draw nodes with agree, whatever order
// the regions file lists them in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAZES } from '../../../main/core/world/maze.js';
import { parseRegions } from '../../../main/core/world/regions.js';
import { buildRows, type SemanticGraph } from '../../../main/core/plan/semantic.js';
import { mapScene, mazeScene } from '../../../main/services/ui/scene.js';
import { PROPOSITION_PALETTE, propositionColours } from '../../../main/contract/colours.js';

const REGIONS = parseRegions(
  JSON.parse(readFileSync(new URL('../../../../assets/regions/pointmaze-medium.json', import.meta.url), 'utf8')),
  'regions.json',
).regions;

function tiny(): SemanticGraph {
  const positions = Float64Array.of(1, 1, 2, 2);
  return {
    ids: ['a', 'b'],
    kinds: ['labelled', 'labelled'],
    positions,
    labels: [['e1'], []],
    soft: new Map(),
    start: 0,
    directed: false,
    ...buildRows(2, [{ from: 0, to: 1, weight: 1 }], false),
  } as unknown as SemanticGraph;
}

/** The fill of each region's shape in a picture, by the label drawn on it. */
function pictureFills(svg: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<(?:circle|rect)[^>]*fill="(#[0-9a-f]{6})" fill-opacity[^>]*\/>\s*<text[^>]*>([^<]+)<\/text>/g;
  for (const m of svg.matchAll(re)) out.set(m[2]!, m[1]!);
  return out;
}

test('the maze picture, the map picture and the scenes colour each region by its proposition, in any file order', () => {
  const reversed = [...REGIONS].reverse();
  const a = mazeScene('pointmaze-medium', MAZES.medium, tiny(), 't', REGIONS);
  const b = mazeScene('pointmaze-medium', MAZES.medium, tiny(), 't', reversed);
  const c = mapScene('lab', tiny(), 't', reversed);
  const want = propositionColours(REGIONS.map((r) => r.name));
  assert.equal(want.get('e0'), PROPOSITION_PALETTE[0]);
  for (const s of [a, b, c]) {
    assert.deepEqual(s.colours, Object.fromEntries(want));
    const fills = pictureFills(s.picture!);
    assert.equal(fills.size, REGIONS.length, s.picture!.slice(0, 300));
    for (const [name, colour] of fills) assert.equal(colour, want.get(name), `${name} in the picture`);
  }
});
