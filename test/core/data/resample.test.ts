import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  type PoseSample,
  type RowLayout,
  type TwistSample,
  medianInterval,
  medianRate,
  resampleDriving,
  wrapAngle,
} from '../../../main/core/data/resample.js';

const MAZE: RowLayout = {
  obs: ['x', 'y', 'vx', 'vy'],
  act: [
    { from: 'world.x', scale: 1 },
    { from: 'world.y', scale: 1 },
  ],
  clip: [-1, 1],
};
const cmd = (t: number, lx: number, ly = 0, az = 0): TwistSample => ({ t, linear: [lx, ly, 0], angular: [0, 0, az] });

test('medianRate: 1 / the median interval; null without two distinct stamps', () => {
  assert.equal(medianRate([0, 0.1, 0.2, 0.3, 1.3]), 1 / 0.1);
  assert.equal(medianRate([0, 1, 2, 2, 2]), 1);
  assert.equal(medianRate([5, 5]), null);
  assert.equal(medianRate([]), null);
  // Whole nanoseconds give an exact interval, and 1e9 / it an exact rate.
  assert.equal(1e9 / medianInterval([0, 10_000_000, 20_000_000, 30_000_000])!, 100);
});

test('wrapAngle keeps angles in (-π, π]', () => {
  assert.equal(wrapAngle(Math.PI), Math.PI);
  assert.equal(wrapAngle(-Math.PI), Math.PI);
  assert.ok(Math.abs(wrapAngle((3 * Math.PI) / 2) + Math.PI / 2) < 1e-12);
});

test('a straight drive at 1 m/s: positions interpolated, velocity 1, the command turned by the yaw', () => {
  const poses: PoseSample[] = [0, 1, 2].map((t) => ({ t, x: t, y: 0, yaw: Math.PI / 2 }));
  const r = resampleDriving(poses, [cmd(0, 0.5)], MAZE, { rate: 2, maxGap: 5 });
  // Grid 0, 0.5, 1.0, … up to min(last pose 2, last command 0) = 0: one row, dropped (an episode needs two).
  assert.equal(r.rows, 0);
  const r2 = resampleDriving(poses, [cmd(0, 0.5), cmd(2, 0.5)], MAZE, { rate: 2, maxGap: 5 });
  assert.equal(r2.rows, 5);
  assert.deepEqual([...r2.observations.subarray(4, 8)], [0.5, 0, 1, 0]);
  // (0.5, 0) in the robot's frame at yaw π/2 is (0, 0.5) in the world's.
  assert.ok(Math.abs(r2.actions[0]!) < 1e-7 && Math.abs(r2.actions[1]! - 0.5) < 1e-7);
  assert.deepEqual(r2.span, [0, 2]);
});

test('the yaw is interpolated along the shorter arc', () => {
  const poses: PoseSample[] = [
    { t: 0, x: 0, y: 0, yaw: 3 },
    { t: 1, x: 0, y: 0, yaw: -3 },
  ];
  const lay: RowLayout = { obs: ['yaw'], act: [{ from: 'angular.z', scale: 2 }] };
  const r = resampleDriving(poses, [cmd(0, 0, 0, 1), cmd(1, 0, 0, 1)], lay, { rate: 2, maxGap: 5 });
  assert.equal(r.rows, 3);
  // Halfway from 3 to -3 rad the short way is ±π, not 0.
  assert.ok(Math.abs(Math.abs(r.observations[1]!) - Math.PI) < 1e-6);
  assert.deepEqual([...r.actions], [0.5, 0.5, 0.5]);
});

test('a rate or gap that is not positive is a RangeError', () => {
  assert.throws(() => resampleDriving([], [], MAZE, { rate: 0, maxGap: 1 }), RangeError);
  assert.throws(() => resampleDriving([], [], MAZE, { rate: 1, maxGap: NaN }), RangeError);
});

/** Sorted stamps with random gaps, some longer than the limit. */
const stamps = (n: number): fc.Arbitrary<number[]> =>
  fc
    .array(fc.oneof(fc.double({ min: 0.001, max: 0.3, noNaN: true }), fc.double({ min: 0.5, max: 3, noNaN: true })), {
      minLength: 1,
      maxLength: n,
    })
    .map((ds) => ds.reduce<number[]>((acc, d) => [...acc, acc[acc.length - 1]! + d], [Math.round(ds[0]! * 100) / 100]));

test('properties: rows fit the layout, terminals end each episode, every row lies in the overlap, actions in the clip (seeded)', () => {
  fc.assert(
    fc.property(
      stamps(60),
      stamps(60),
      fc.double({ min: 0.5, max: 30, noNaN: true }),
      fc.double({ min: 0.05, max: 1, noNaN: true }),
      fc.double({ min: -3, max: 3, noNaN: true }),
      (pt, ct, rate, maxGap, speed) => {
        const poses = pt.map((t, i) => ({ t, x: Math.sin(i), y: Math.cos(i) * 2, yaw: i * 0.7 }));
        const commands = ct.map((t, i) => cmd(t, speed * Math.cos(i), speed * Math.sin(i)));
        const r = resampleDriving(poses, commands, MAZE, { rate, maxGap });
        assert.equal(r.observations.length, r.rows * 4);
        assert.equal(r.actions.length, r.rows * 2);
        assert.equal(r.terminals.length, r.rows);
        assert.equal(
          r.terminals.reduce((a, b) => a + b, 0),
          r.episodes,
        );
        if (r.rows > 0) {
          assert.equal(r.terminals[r.rows - 1], 1);
          assert.ok(
            r.span !== null &&
              r.span[0] >= Math.max(pt[0]!, ct[0]!) - 1e-9 &&
              r.span[1] <= Math.min(pt[pt.length - 1]!, ct[ct.length - 1]!) + 1e-9,
          );
          // No episode of one row.
          let len = 0;
          for (const t of r.terminals) {
            len++;
            if (t === 1) {
              assert.ok(len >= 2, `an episode of ${len} row`);
              len = 0;
            }
          }
        } else assert.equal(r.span, null);
        for (const a of r.actions) assert.ok(a >= -1 && a <= 1 && Number.isFinite(a));
        for (const o of r.observations) assert.ok(Number.isFinite(o));
        // Positions are convex combinations of two poses: inside the poses' box.
        for (let i = 0; i < r.rows; i++) {
          assert.ok(r.observations[i * 4]! >= -1 - 1e-6 && r.observations[i * 4]! <= 1 + 1e-6);
          assert.ok(r.observations[i * 4 + 1]! >= -2 - 1e-6 && r.observations[i * 4 + 1]! <= 2 + 1e-6);
        }
      },
    ),
    { seed: 20, numRuns: 200 },
  );
});

test('property: with no gap anywhere (maxGap above every interval) the data is one episode (seeded)', () => {
  fc.assert(
    fc.property(stamps(40), fc.double({ min: 1, max: 20, noNaN: true }), (pt, rate) => {
      const poses = pt.map((t) => ({ t, x: t, y: 0, yaw: 0 }));
      const commands = pt.map((t) => cmd(t, 1));
      const r = resampleDriving(poses, commands, MAZE, { rate, maxGap: 100 });
      const steps = Math.floor((pt[pt.length - 1]! - pt[0]!) * rate + 1e-9) + 1;
      assert.equal(r.rows, steps >= 2 ? steps : 0);
      assert.equal(r.episodes, steps >= 2 ? 1 : 0);
      // x = t, so the velocity is 1 wherever there are rows.
      for (let i = 0; i < r.rows; i++) assert.ok(Math.abs(r.observations[i * 4 + 2]! - 1) < 1e-3);
    }),
    { seed: 21, numRuns: 200 },
  );
});
