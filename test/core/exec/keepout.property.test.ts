/**
 * The motion-side checks of core/exec/keepout.ts against brute force on random boxes and disks:
 * the letters a segment reads (every letter a dense sampling sees, in order), the first point of a
 * path that leaves no accepting continuation (a sampled point inside a forbidden region is never
 * missed), and the keepout mask (every point whose letter is dead is in a kept-out cell, as Nav2
 * looks it up; a cell no region touches is kept out only when the empty letter is dead).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KeepoutCells, maskGrid, pathEntry, segmentLetters } from '../../../main/core/exec/keepout.js';
import { LetterSteps } from '../../../main/core/ltl/forbidden.js';
import { StateSetMonitor } from '../../../main/core/ltl/monitor.js';
import { translateLtl } from '../../../main/core/ltl/translate.js';
import { type Region, inRegion, labelAt } from '../../../main/core/world/regions.js';

const NAMES = ['a', 'b', 'c'] as const;
/** Millimetres, as maps and regions are written (no denormals: rounding at 1e-300 m is not geometry). */
const mm = (min: number, max: number): fc.Arbitrary<number> =>
  fc.integer({ min: min * 1000, max: max * 1000 }).map((v) => v / 1000);
const regionArb = (name: string): fc.Arbitrary<Region> =>
  fc.oneof(
    fc
      .tuple(mm(0, 10), mm(0, 10), mm(0.2, 4), mm(0.2, 4))
      .map(([x, y, w, h]): Region => ({ name, kind: 'box', min: [x, y], max: [x + w, y + h] })),
    fc
      .tuple(mm(0, 10), mm(0, 10), mm(0.2, 2.5))
      .map(([x, y, r]): Region => ({ name, kind: 'disk', center: [x, y], radius: r })),
  );
const regionsArb = fc.tuple(...NAMES.map(regionArb));
/** Points over the regions and around them (the masks below reach 1 m beyond 0 … 12.5). */
const pointArb = fc.tuple(mm(-0.9, 13.4), mm(-0.9, 13.4)).map(([x, y]) => ({ x, y }));
const key = (l: readonly string[]): string => l.join(',');

/** The letters read at n + 1 evenly spaced points of a→b, consecutive repeats merged. */
function sampled(
  regions: readonly Region[],
  a: { x: number; y: number },
  b: { x: number; y: number },
  n: number,
): string[] {
  const out: string[] = [];
  for (let k = 0; k <= n; k++) {
    const l = key(labelAt(regions, a.x + ((b.x - a.x) * k) / n, a.y + ((b.y - a.y) * k) / n));
    if (out[out.length - 1] !== l) out.push(l);
  }
  return out;
}

test('a segment reads every letter a dense sampling sees, in the same order', () => {
  fc.assert(
    fc.property(regionsArb, pointArb, pointArb, (regions, a, b) => {
      const exact = segmentLetters(regions, a, b).map((r) => key(r.letter));
      const seen = sampled(regions, a, b, 2000);
      let i = 0;
      for (const l of seen) {
        while (i < exact.length && exact[i] !== l) i++;
        assert.ok(
          i < exact.length,
          `sampled letters [${seen.join(' | ')}] are not a subsequence of [${exact.join(' | ')}]`,
        );
        i++;
      }
      assert.equal(exact[0], seen[0], 'it starts with the letter at its start');
    }),
    { numRuns: 500, seed: 21 },
  );
});

test('a tangent is read: a path grazing a forbidden disk is caught where sampling would miss it', () => {
  const disk: Region = { name: 'a', kind: 'disk', center: [5, 1], radius: 1 };
  const steps = new LetterSteps(translateLtl('G !a').automaton);
  const r = pathEntry(
    steps,
    steps.automaton.initial,
    [disk],
    [
      { x: 0, y: 0 },
      { x: 10, y: 0 },
    ],
  );
  assert.ok(r.entry !== null);
  assert.deepEqual(r.entry.entered, ['a']);
  assert.ok(Math.abs(r.entry.x - 5) < 1e-6 && Math.abs(r.entry.y) < 1e-9);
});

test('G !x: a path whose samples enter x is refused at a point of x, and one that never comes near it passes', () => {
  const steps = new LetterSteps(translateLtl('G !a').automaton);
  fc.assert(
    fc.property(regionsArb, fc.array(pointArb, { minLength: 2, maxLength: 5 }), (regions, points) => {
      const start = labelAt(regions, points[0]!.x, points[0]!.y);
      fc.pre(!start.includes('a'));
      const states = new StateSetMonitor(steps.automaton).step(start).states;
      const r = pathEntry(steps, states, regions, points);
      const hit = points
        .slice(1)
        .some((p, i) => sampled(regions, points[i]!, p, 500).some((l) => l.split(',').includes('a')));
      if (hit) assert.ok(r.entry !== null, 'the sampled path enters a; the check must refuse it');
      const ra = regions[0]!;
      const outside = (x: number, y: number): number =>
        ra.kind === 'disk'
          ? Math.hypot(x - ra.center[0], y - ra.center[1]) - ra.radius
          : Math.max(ra.min[0] - x, x - ra.max[0], ra.min[1] - y, y - ra.max[1]);
      if (r.entry !== null) {
        assert.ok(r.entry.entered.includes('a'), `entered ${r.entry.entered.join(',')}`);
        assert.ok(outside(r.entry.x, r.entry.y) <= 1e-9, `the entry (${r.entry.x}, ${r.entry.y}) is on a`);
      }
      const clear = points
        .slice(1)
        .every((p, i) =>
          Array.from({ length: 501 }, (_, k) =>
            outside(points[i]!.x + ((p.x - points[i]!.x) * k) / 500, points[i]!.y + ((p.y - points[i]!.y) * k) / 500),
          ).every((d) => d > 0.05),
        );
      if (clear) assert.equal(r.entry, null, 'a path that stays 5 cm away from a passes');
    }),
    { numRuns: 500, seed: 22 },
  );
});

test('!x U y along a path: x after y passes, x before y is refused', () => {
  const steps = new LetterSteps(translateLtl('!a U b').automaton);
  const a: Region = { name: 'a', kind: 'box', min: [4, -1], max: [5, 1] };
  const b: Region = { name: 'b', kind: 'disk', center: [2, 0], radius: 0.5 };
  const init = steps.next(steps.automaton.initial, []);
  assert.equal(
    pathEntry(
      steps,
      init,
      [a, b],
      [
        { x: 0, y: 0 },
        { x: 6, y: 0 },
      ],
    ).entry,
    null,
    'through b, then a',
  );
  const r = pathEntry(
    steps,
    init,
    [a, b],
    [
      { x: 0, y: 3 },
      { x: 6, y: 0 },
    ],
  );
  assert.deepEqual(r.entry?.entered, ['a']);
  assert.ok(Math.abs(r.entry.x - 4) < 1e-9, 'refused where it enters a');
});

test('the mask keeps out every point whose letter is dead, and leaves untouched cells to the empty letter', () => {
  const specs = ['G !a', '!a U b', 'G (a -> b) & F c', 'G !(a & b)', 'G F a & G !c'];
  fc.assert(
    fc.property(
      regionsArb,
      fc.constantFrom(...specs),
      fc.array(fc.constantFrom([], ['b'], ['c']), { maxLength: 2 }),
      fc.array(pointArb, { minLength: 50, maxLength: 50 }),
      fc.constantFrom(0.05, 0.1, 0.25),
      (regions, spec, word, probes, res) => {
        const automaton = translateLtl(spec).automaton;
        const steps = new LetterSteps(automaton);
        const m = new StateSetMonitor(automaton);
        for (const l of word) m.step(l);
        fc.pre(m.snapshot().viable);
        const states = m.snapshot().states;
        const grid = maskGrid(
          [
            { x: 0, y: 0 },
            { x: 12.5, y: 12.5 },
          ],
          regions,
          res,
          1,
        );
        const { grid: g } = new KeepoutCells(grid, regions).mask(steps, states);
        const at = (x: number, y: number): number => {
          const i = Math.floor((x - g.originX) / g.resolution_m),
            j = Math.floor((y - g.originY) / g.resolution_m);
          return g.data[j * g.width + i]!;
        };
        const emptyDead = steps.dead(states, []);
        for (const p of probes) {
          const letter = labelAt(regions, p.x, p.y);
          if (steps.dead(states, letter))
            assert.equal(
              at(p.x, p.y),
              100,
              `${spec}: (${p.x}, ${p.y}) reads dead {${letter.join(',')}} but its cell is free`,
            );
          const i = Math.floor((p.x - g.originX) / g.resolution_m),
            j = Math.floor((p.y - g.originY) / g.resolution_m);
          const corners = [
            [0, 0],
            [1, 0],
            [0, 1],
            [1, 1],
            [0.5, 0.5],
          ].map(([u, v]) => [g.originX + (i + u!) * g.resolution_m, g.originY + (j + v!) * g.resolution_m] as const);
          const far = regions.every(
            (r) =>
              corners.every(([x, y]) => !inRegion(r, x, y)) &&
              (r.kind === 'box'
                ? r.max[0] < corners[0]![0] - 1e-6 ||
                  r.min[0] > corners[3]![0] + 1e-6 ||
                  r.max[1] < corners[0]![1] - 1e-6 ||
                  r.min[1] > corners[3]![1] + 1e-6
                : Math.hypot(
                    Math.min(Math.max(r.center[0], corners[0]![0]), corners[3]![0]) - r.center[0],
                    Math.min(Math.max(r.center[1], corners[0]![1]), corners[3]![1]) - r.center[1],
                  ) >
                  r.radius + 1e-6),
          );
          if (far)
            assert.equal(at(p.x, p.y), emptyDead ? 100 : 0, `${spec}: (${p.x}, ${p.y}) is in a cell no region touches`);
        }
        assert.ok(g.width * g.height === g.data.length);
      },
    ),
    { numRuns: 150, seed: 23 },
  );
});

test('a mask too large for its resolution is refused with the fix', () => {
  assert.throws(
    () =>
      maskGrid(
        [
          { x: 0, y: 0 },
          { x: 500, y: 500 },
        ],
        [],
        0.05,
        1,
      ),
    /10040 × 10040 cells, more than 4000000: choose a coarser resolution_m/,
  );
});
