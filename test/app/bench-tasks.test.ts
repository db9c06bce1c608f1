import { test } from 'node:test';
import assert from 'node:assert/strict';
import { worldEntry } from '../../main/backends/catalogue.js';
import { benchTask, sampleStart } from '../../main/bench/tasks.js';
import { parseLtl } from '../../main/core/ltl/parser.js';
import { atomicPropositions } from '../../main/core/ltl/ast.js';
import { inRegion } from '../../main/core/world/regions.js';
import { createRng } from '../../main/core/random/rng.js';
import { WitnessError } from '../../main/contract/errors.js';

const DIFFS = ['easy', 'medium', 'hard'] as const;

test('benchTask: the start lies outside every region the formula mentions, on every difficulty of two mazes and three seeds', () => {
  for (const world of ['pointmaze-medium', 'pointmaze-giant']) {
    const layout = worldEntry(world).layout!;
    for (const seed of [1, 2, 3]) {
      for (const d of DIFFS) {
        for (let i = 0; i < 40; i++) {
          const t = benchTask(layout, seed, d, i);
          const mentioned = new Set(atomicPropositions(parseLtl(t.formula)));
          for (const r of t.regions) {
            if (mentioned.has(r.name))
              assert.ok(
                !inRegion(r, t.start[0], t.start[1]),
                `${world} seed ${seed} ${t.id}: start (${t.start.join(', ')}) inside ${r.name} of ${t.formula}`,
              );
          }
        }
      }
    }
  }
});

test('benchTask: deterministic per task, whatever was drawn before', () => {
  const layout = worldEntry('pointmaze-medium').layout!;
  const a = DIFFS.flatMap((d) => Array.from({ length: 10 }, (_, i) => benchTask(layout, 5, d, i)));
  const b = DIFFS.flatMap((d) => Array.from({ length: 10 }, (_, i) => benchTask(layout, 5, d, 9 - i)).reverse());
  assert.deepEqual(b, a);
  assert.notDeepEqual(benchTask(layout, 6, 'easy', 0), a[0]);
});

test('sampleStart: the first draw outside is kept; regions covering the maze end with a clear input error', () => {
  const layout = worldEntry('pointmaze-medium').layout!;
  const first = sampleStart(layout, [], createRng(9), 'x');
  assert.deepEqual(
    sampleStart(layout, [{ name: 'far', kind: 'disk', center: [-1000, -1000], radius: 1 }], createRng(9), 'x'),
    first,
  );
  const inside = { name: 'e0', kind: 'disk' as const, center: [first[0], first[1]] as const, radius: 1e-3 };
  const moved = sampleStart(layout, [inside], createRng(9), 'x');
  assert.notDeepEqual(moved, first);
  assert.ok(!inRegion(inside, moved[0], moved[1]));
  const all = { name: 'e1', kind: 'box' as const, min: [-1e6, -1e6] as const, max: [1e6, 1e6] as const };
  assert.throws(
    () => sampleStart(layout, [all], createRng(9), 'task easy-3', 50),
    (e: unknown) =>
      e instanceof WitnessError &&
      e.code === 'invalid-input' &&
      /task easy-3: no start outside the regions e1 in 50 draws/.test(e.message),
  );
});
