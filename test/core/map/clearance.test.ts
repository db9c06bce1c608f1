import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  distanceField,
  fieldClearance,
  naiveClearance,
  pointClearance,
  segmentClear,
} from '../../../main/core/map/clearance.js';
import { buildMapGraph } from '../../../main/core/map/lattice.js';
import { FREE, type OccupancyGrid, cellAt } from '../../../main/core/map/occupancy.js';
import { floorPlan } from '../../../main/core/map/synthetic.js';
import { type Region, labelAt } from '../../../main/core/world/regions.js';
import { createRng } from '../../../main/core/random/rng.js';
import { randomGrid } from './random-grid.js';

/**
 * Brute force: the distance (metres) from (x, y) to the nearest blocked cell centre, the ring outside the map included.
 */
function bruteClearance(g: OccupancyGrid, x: number, y: number): number {
  let best = Infinity;
  for (let r = -1; r <= g.height; r++) {
    for (let c = -1; c <= g.width; c++) {
      const inside = r >= 0 && r < g.height && c >= 0 && c < g.width;
      if (inside && g.cells[r * g.width + c] === FREE) continue;
      const cx = g.originX + (c + 0.5) * g.resolution,
        cy = g.originY + (g.height - r - 0.5) * g.resolution;
      best = Math.min(best, Math.hypot(cx - x, cy - y));
    }
  }
  return best;
}

const SEEDED = { seed: 1616, numRuns: 60 };

test('the distance transform equals brute force on random maps (seeded)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1e6 }),
      fc.integer({ min: 1, max: 24 }),
      fc.integer({ min: 1, max: 24 }),
      (seed, w, h) => {
        const g = randomGrid(seed, w, h);
        const d2 = distanceField(g);
        for (let r = 0; r < h; r++) {
          for (let c = 0; c < w; c++) {
            const x = g.originX + (c + 0.5) * g.resolution,
              y = g.originY + (h - r - 0.5) * g.resolution;
            const expect = bruteClearance(g, x, y) / g.resolution;
            assert.ok(
              Math.abs(Math.sqrt(d2[r * w + c]!) - expect) < 1e-9,
              `cell (${c}, ${r}): ${Math.sqrt(d2[r * w + c]!)} vs ${expect}`,
            );
          }
        }
      },
    ),
    SEEDED,
  );
});

test('the naive scan answers every clearance query as the distance field does; pointClearance is exact', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e6 }), (seed) => {
      const g = randomGrid(seed, 20, 16);
      const d2 = distanceField(g),
        a = fieldClearance(g, d2),
        b = naiveClearance(g);
      const rng = createRng(seed);
      for (let k = 0; k < 200; k++) {
        const c = rng.int(0, 19),
          r = rng.int(0, 15),
          rad = rng.next() * 6;
        assert.equal(a(c, r, rad), b(c, r, rad));
        assert.equal(a(c, r, 3), b(c, r, 3)); // integer radii: the boundary case
      }
      for (let k = 0; k < 30; k++) {
        const x = g.originX + rng.next() * 2,
          y = g.originY + rng.next() * 1.6;
        assert.ok(Math.abs(pointClearance(g, d2, x, y) - bruteClearance(g, x, y)) < 1e-9);
      }
    }),
    { seed: 7, numRuns: 30 },
  );
});

/** Checks a segment by dense sampling against brute force: free cells only, clearance kept. */
function denseCheck(
  g: OccupancyGrid,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  clearance: number,
): string | null {
  const n = Math.ceil(Math.hypot(bx - ax, by - ay) / (g.resolution / 8)) + 1;
  for (let i = 0; i <= n; i++) {
    const x = ax + ((bx - ax) * i) / n,
      y = ay + ((by - ay) * i) / n;
    const c = cellAt(g, x, y);
    if (c === null) return `(${x}, ${y}) is outside the map`;
    if (g.cells[c.row * g.width + c.col] !== FREE) return `(${x}, ${y}) is in a blocked cell`;
    const d = bruteClearance(g, x, y);
    if (d < clearance - 1e-9) return `(${x}, ${y}) is ${d} from a blocked cell centre`;
  }
  return null;
}

test('segmentClear never accepts a segment that enters a blocked cell or comes within the clearance (dense sampling, seeded)', () => {
  let accepted = 0;
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e6 }), fc.constantFrom(0, 0.05, 0.15, 0.3), (seed, clearance) => {
      const g = randomGrid(seed, 24, 20);
      const d2 = distanceField(g),
        q = fieldClearance(g, d2);
      const rng = createRng(seed ^ 0x5bd1);
      for (let k = 0; k < 40; k++) {
        const ax = g.originX + rng.next() * 2.4,
          ay = g.originY + rng.next() * 2,
          bx = g.originX + rng.next() * 2.4,
          by = g.originY + rng.next() * 2;
        if (segmentClear(g, q, ax, ay, bx, by, clearance)) {
          accepted++;
          assert.equal(denseCheck(g, ax, ay, bx, by, clearance), null);
        }
      }
    }),
    SEEDED,
  );
  assert.ok(accepted > 100, `only ${accepted} segments accepted: the property tested little`);
});

test('graph from a map: nodes free and clear, every edge clear by dense sampling, weights are lengths, labels are labelAt, one component', () => {
  let built = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1e6 }),
      fc.constantFrom(0.1, 0.2),
      fc.constantFrom(0.3, 0.5),
      (seed, clearance, spacing) => {
        const g = randomGrid(seed, 40, 30);
        const d2 = distanceField(g);
        const regions: Region[] = [
          { name: 'p', kind: 'disk', center: [g.originX + 1, g.originY + 1.5], radius: 0.7 },
          { name: 'q', kind: 'box', min: [g.originX + 2, g.originY + 0.5], max: [g.originX + 3.5, g.originY + 2] },
        ];
        let m: ReturnType<typeof buildMapGraph>;
        try {
          m = buildMapGraph(g, d2, { spacing, clearance, regions });
        } catch (e) {
          // random maps may wall a region off or hold no edge at all: the error says so, and names it
          assert.match((e as Error).message, /regions: \$\.regions\[\d\]: region "[pq]"|no two lattice nodes/);
          return;
        }
        built++;
        for (const n of m.nodes) {
          assert.ok(bruteClearance(g, n.x, n.y) >= clearance - 1e-9, `${n.id} too close`);
          assert.deepEqual(n.labels, labelAt(regions, n.x, n.y));
        }
        const adj = m.nodes.map(() => [] as number[]);
        for (const e of m.edges) {
          const a = m.nodes[e.from]!,
            b = m.nodes[e.to]!;
          assert.equal(denseCheck(g, a.x, a.y, b.x, b.y, clearance), null, `${a.id}–${b.id}`);
          assert.ok(Math.abs(e.weight - Math.hypot(a.x - b.x, a.y - b.y)) < 1e-12);
          adj[e.from]!.push(e.to);
          adj[e.to]!.push(e.from);
        }
        const seen = new Set([m.start]),
          stack = [m.start];
        while (stack.length > 0)
          for (const v of adj[stack.pop()!]!)
            if (!seen.has(v)) {
              seen.add(v);
              stack.push(v);
            }
        assert.equal(seen.size, m.nodes.length, 'every node is reachable from the start');
        for (const r of regions)
          assert.ok(
            m.nodes.some((n) => n.labels.includes(r.name)),
            `region ${r.name} has a node`,
          );
      },
    ),
    { seed: 99, numRuns: 40 },
  );
  assert.ok(built >= 20, `only ${built} of 40 random maps gave a graph`);
});

test('the naive clearance check builds the same graph as the distance field', () => {
  const plan = floorPlan(createRng(3), { size: 12, resolution: 0.05, rooms: 2 });
  const d2 = distanceField(plan.grid);
  const regions: Region[] = [
    { name: 'a', kind: 'disk', center: [...plan.roomCentres[0]!] as [number, number], radius: 0.5 },
  ];
  const a = buildMapGraph(plan.grid, d2, { spacing: 0.5, clearance: 0.25, regions });
  const b = buildMapGraph(plan.grid, d2, { spacing: 0.5, clearance: 0.25, regions, query: naiveClearance(plan.grid) });
  assert.deepEqual(b.nodes, a.nodes);
  assert.deepEqual(b.edges, a.edges);
  assert.ok(a.nodes.length > 100);
});
