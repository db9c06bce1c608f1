import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitCrossings } from '../../../main/core/plan/crossings.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { edgeWeight } from '../../../main/core/plan/semantic.js';
import { segmentRuns } from '../../../main/core/world/segment-labels.js';
import { type Region, labelAt } from '../../../main/core/world/regions.js';

const regions: Region[] = [
  { name: 'hazard', kind: 'box', min: [1.2, -1], max: [1.8, 5] },
  { name: 'goal', kind: 'disk', center: [4, 0], radius: 0.5 },
];

test('splitCrossings: an edge through a region gets a labelled node inside it; weights shared by length; a second split adds nothing', () => {
  const g = labelledGraph(
    {
      nodes: [
        { id: 's', pos: [0, 0] },
        { id: 'm', pos: [3, 0] },
        { id: 'g', labels: ['goal'], pos: [4, 0] },
        { id: 'far', pos: [0, 3] },
      ],
      edges: [
        { from: 's', to: 'm', weight: 6 },
        { from: 'm', to: 'g', weight: 1 },
        { from: 's', to: 'far', weight: 3 },
      ],
      start: 's',
    },
    'g.json',
  );
  const { graph: s, crossings } = splitCrossings(g, regions);
  assert.deepEqual(
    crossings.map((c) => [c.id, c.labels, c.x, c.y]),
    [['s~m#1', ['hazard'], 1.5, 0]],
  );
  const c = s.ids.indexOf('s~m#1');
  assert.deepEqual(s.labels[c], ['hazard']);
  assert.equal(edgeWeight(s, s.ids.indexOf('s'), s.ids.indexOf('m')), undefined, 'the straight edge is gone');
  assert.equal(edgeWeight(s, s.ids.indexOf('s'), c)! + edgeWeight(s, c, s.ids.indexOf('m'))!, 6);
  assert.equal(edgeWeight(s, c, s.ids.indexOf('s')), 3, 'both ways, as the graph is undirected');
  assert.equal(splitCrossings(s, regions).crossings.length, 0);
  assert.equal(splitCrossings(g, []).graph, g, 'no regions: the same graph');
  assert.throws(
    () =>
      splitCrossings(
        labelledGraph(
          { nodes: [{ id: 'p', pos: [0, 0] }, { id: 'q' }], edges: [{ from: 'p', to: 'q' }], start: 'p' },
          'g.json',
        ),
        regions,
      ),
    /node "q" has no position, so its edge p – q cannot be checked against the regions/,
  );
});

test('after the split every edge reads the labels of its ends only (first one, then the other), on random graphs', () => {
  const pt = fc.tuple(fc.double({ min: -1, max: 6, noNaN: true }), fc.double({ min: -2, max: 6, noNaN: true }));
  fc.assert(
    fc.property(fc.array(pt, { minLength: 2, maxLength: 8 }), fc.boolean(), (pts, directed) => {
      const nodes = pts.map((p, i) => ({ id: `n${i}`, pos: [p[0], p[1]], labels: labelAt(regions, p[0], p[1]) }));
      const edges = pts.flatMap((_, i) =>
        pts.slice(i + 1).map((__, j) => ({ from: `n${i}`, to: `n${i + 1 + j}`, weight: 2 })),
      );
      const g = labelledGraph({ nodes, edges, start: 'n0', directed }, 'g.json');
      const { graph: s } = splitCrossings(g, regions);
      for (let u = 0; u < s.ids.length; u++) {
        assert.deepEqual(
          s.labels[u],
          labelAt(regions, s.positions[2 * u]!, s.positions[2 * u + 1]!),
          `${s.ids[u]}'s labels are its position's`,
        );
        for (let e = s.outStart[u]!; e < s.outStart[u + 1]!; e++) {
          const v = s.outTo[e]!;
          const runs = segmentRuns(
            regions,
            s.positions[2 * u]!,
            s.positions[2 * u + 1]!,
            s.positions[2 * v]!,
            s.positions[2 * v + 1]!,
          );
          assert.ok(runs.length <= 2, `${s.ids[u]} → ${s.ids[v]} still crosses: ${JSON.stringify(runs)}`);
        }
      }
    }),
    { seed: 5, numRuns: 200 },
  );
});
