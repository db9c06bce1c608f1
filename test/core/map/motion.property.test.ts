/**
 * Plans on map graphs hold on the motion: random occupancy maps, random box and disk regions and
 * random specifications (G !x and !x U y among them); every plan of every method is driven leg by
 * leg through the independent checker (motion-checker.ts), and the continuous path's word must
 * satisfy the specification — by the automaton's lasso acceptance, as the certificate judges, and
 * by the formula's own lasso semantics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { distanceField } from '../../../main/core/map/clearance.js';
import { buildMapGraph } from '../../../main/core/map/lattice.js';
import type { OccupancyGrid } from '../../../main/core/map/occupancy.js';
import type { Region } from '../../../main/core/world/regions.js';
import { createRng, type Rng } from '../../../main/core/random/rng.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { acceptsLasso } from '../../../main/core/ltl/accept.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { type Method, plan } from '../../../main/core/plan/plan.js';
import { PLAN_DEFAULTS } from '../../../main/contract/defaults.js';
import { mapGraphDocument } from '../../../main/app/maps.js';
import { randomGrid } from './random-grid.js';
import { drivenLasso } from './motion-checker.js';

const SPECS = [
  'F a & G !x',
  'G F a & G F b & G !x',
  '!x U a',
  '(!x U a) & F b',
  'F (a & F b) & G !x',
  'G F a & G !x & G !y',
  'F a & (!y U b)',
  'G (a -> F b) & F a & G !x',
  'G F b & (!x U a) & G !y',
  'F (b & F a) & G !x',
];
const METHODS: readonly Method[] = ['sagas', 'lf-gas', 'ga-gas'];
const STEP_M = 0.01;

/** A region somewhere over the map: a disk, a box, or a thin strip (a hazard tape across the floor). */
function randomRegion(rng: Rng, name: string, g: OccupancyGrid): Region {
  const w = g.width * g.resolution,
    h = g.height * g.resolution;
  const x = g.originX + rng.next() * w,
    y = g.originY + rng.next() * h;
  const shape = rng.int(0, 2);
  if (shape === 0) return { name, kind: 'disk', center: [x, y], radius: 0.2 + rng.next() * 1.2 };
  const [sx, sy] =
    shape === 1
      ? [0.3 + rng.next() * 2.5, 0.3 + rng.next() * 2.5]
      : rng.next() < 0.5
        ? [0.15 + rng.next() * 0.3, 1 + rng.next() * h]
        : [1 + rng.next() * w, 0.15 + rng.next() * 0.3];
  return { name, kind: 'box', min: [x - sx / 2, y - sy / 2], max: [x + sx / 2, y + sy / 2] };
}

test('every plan on a map graph drives a path whose regions satisfy the specification (independent checker, seeded)', () => {
  let checked = 0,
    crossingsUsed = 0,
    maps = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1e6 }),
      fc.constantFrom(0.3, 0.5, 0.8),
      fc.constantFrom(0, 0.1, 0.2),
      (seed, spacing, clearance) => {
        const rng = createRng(seed ^ 0x2f6b);
        const grid = randomGrid(seed, 40 + rng.int(0, 40), 30 + rng.int(0, 30));
        const regions = ['a', 'b', 'x', 'y'].map((n) => randomRegion(rng, n, grid));
        let m;
        try {
          m = buildMapGraph(grid, distanceField(grid), { spacing, clearance, regions });
        } catch {
          return; // a region walled off, or no edge at all: the builder says so (clearance.test.ts)
        }
        maps++;
        const doc = mapGraphDocument(m, {
          name: 'random',
          file: 'random.yaml',
          resolution: grid.resolution,
          clearance,
        });
        const g = labelledGraph(doc, 'random.json');
        const pos = new Map(doc.nodes.map((n) => [n.id, [n.pos![0]!, n.pos![1]!] as const]));
        for (const spec of rng.sample(SPECS, 3)) {
          const formula = parseLtl(spec);
          const automaton = translateFormula(formula).automaton;
          for (const method of METHODS) {
            const r = plan(g, automaton, {
              method,
              k: Infinity,
              lambda: PLAN_DEFAULTS.lambda,
              tauSoft: PLAN_DEFAULTS.tauSoft,
            });
            if (r.status !== 'ok') continue;
            const ids = r.steps.map((s) => g.ids[s.node]!);
            const word = drivenLasso(ids.slice(0, r.prefixLength), ids.slice(r.prefixLength), pos, regions, STEP_M);
            const where = `${method} for ${spec} on seed ${seed} (spacing ${spacing}, clearance ${clearance}): ${ids.join(' ')}`;
            assert.ok(acceptsLasso(automaton, word), `the driven path violates the spec: ${where}`);
            assert.ok(evaluateLasso(formula, word), `the driven path violates the formula: ${where}`);
            checked++;
            if (ids.some((id) => id.includes('~'))) crossingsUsed++;
          }
        }
      },
    ),
    { seed: 4747, numRuns: 150 },
  );
  assert.ok(
    maps >= 100 && checked >= 600,
    `only ${maps} maps and ${checked} plans checked: the property tested little`,
  );
  assert.ok(crossingsUsed >= 100, `only ${crossingsUsed} plans went through a crossing node`);
});
