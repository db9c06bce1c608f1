import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  type Pose2,
  type TfEdge,
  IDENTITY,
  chainAt,
  chainTrack,
  compose,
  edgeAt,
  framesSeen,
  invert,
  tfPath,
} from '../../../main/core/data/tf-tree.js';
import { resampleDriving, wrapAngle } from '../../../main/core/data/resample.js';

const near = (a: Pose2, b: Pose2, eps = 1e-9): boolean =>
  Math.abs(a.x - b.x) < eps && Math.abs(a.y - b.y) < eps && Math.abs(wrapAngle(a.yaw - b.yaw)) < eps;
const pose = fc.record({
  x: fc.double({ min: -100, max: 100, noNaN: true }),
  y: fc.double({ min: -100, max: 100, noNaN: true }),
  yaw: fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
});
const fixed = (parent: string, child: string, p: Pose2): TfEdge => ({
  parent,
  child,
  static: true,
  samples: [{ t: 0, pose: p }],
});

test('compose and invert: a pose times its inverse is the identity; composing is associative', () => {
  fc.assert(
    fc.property(pose, pose, pose, (a, b, c) => {
      assert.ok(near(compose(a, invert(a)), IDENTITY, 1e-9));
      assert.ok(near(compose(invert(a), a), IDENTITY, 1e-9));
      assert.ok(near(compose(compose(a, b), c), compose(a, compose(b, c)), 1e-7));
      assert.ok(near(invert(compose(a, b)), compose(invert(b), invert(a)), 1e-7));
    }),
    { seed: 20, numRuns: 300 },
  );
  // By hand: odom at (1, 2) turned a quarter left; base 1 m ahead of odom's x axis is at (1, 3) in map.
  assert.ok(near(compose({ x: 1, y: 2, yaw: Math.PI / 2 }, { x: 1, y: 0, yaw: 0 }), { x: 1, y: 3, yaw: Math.PI / 2 }));
  assert.ok(near(invert({ x: 1, y: 2, yaw: Math.PI / 2 }), { x: -2, y: 1, yaw: -Math.PI / 2 }));
});

test('a random chain composed from its root to its tip, then back from the tip to the root, gives the identity', () => {
  fc.assert(
    fc.property(fc.array(pose, { minLength: 1, maxLength: 6 }), (ps) => {
      const edges = ps.map((p, i) => fixed(`f${i}`, `f${i + 1}`, p));
      const there = tfPath(edges, 'f0', `f${ps.length}`),
        back = tfPath(edges, `f${ps.length}`, 'f0');
      assert.ok(there.ok && back.ok);
      assert.deepEqual(
        back.steps.map((s) => s.inverse),
        ps.map(() => true),
      );
      const a = chainAt(there.steps, 0, 1)!,
        b = chainAt(back.steps, 0, 1)!;
      assert.ok(near(compose(a, b), IDENTITY, 1e-7));
      assert.ok(near(b, invert(a), 1e-7));
    }),
    { seed: 21, numRuns: 200 },
  );
});

test("a chain equals the direct transform built from the same poses (each frame's pose in the root)", () => {
  // Poses of frames in one world frame; the chain's edges are the relative transforms between them.
  fc.assert(
    fc.property(fc.array(pose, { minLength: 2, maxLength: 6 }), fc.nat(), fc.nat(), (world, i0, j0) => {
      const edges = world.slice(1).map((p, i) => fixed(`f${i}`, `f${i + 1}`, compose(invert(world[i]!), p)));
      const i = i0 % world.length,
        j = j0 % world.length;
      const path = tfPath(edges, `f${i}`, `f${j}`);
      assert.ok(path.ok);
      assert.equal(path.steps.length, Math.abs(i - j));
      assert.ok(near(chainAt(path.steps, 0, 1)!, compose(invert(world[i]!), world[j]!), 1e-6));
    }),
    { seed: 22, numRuns: 300 },
  );
});

test('a path through a branching tree goes up to the common ancestor and down, inverting the edges it climbs', () => {
  // map → odom → base_footprint → base_link → laser, and base_footprint → wheel.
  const edges = [
    fixed('map', 'odom', { x: 1, y: 0, yaw: 0 }),
    fixed('odom', 'base_footprint', { x: 0, y: 2, yaw: 0 }),
    fixed('base_footprint', 'base_link', { x: 0, y: 0, yaw: Math.PI / 2 }),
    fixed('base_link', 'laser', { x: 0.5, y: 0, yaw: 0 }),
    fixed('base_footprint', 'wheel', { x: -1, y: 0, yaw: 0 }),
  ];
  const p = tfPath(edges, 'wheel', 'laser');
  assert.ok(p.ok);
  assert.deepEqual(
    p.steps.map((s) => [s.edge.child, s.inverse]),
    [
      ['wheel', true],
      ['base_link', false],
      ['laser', false],
    ],
  );
  // laser is at (0, 0.5) from base_footprint (base_link turned a quarter), wheel at (-1, 0): (1, 0.5), yaw π/2.
  assert.ok(near(chainAt(p.steps, 0, 1)!, { x: 1, y: 0.5, yaw: Math.PI / 2 }));
  const q = tfPath(edges, 'map', 'laser');
  assert.ok(q.ok);
  assert.ok(near(chainAt(q.steps, 0, 1)!, { x: 1, y: 2.5, yaw: Math.PI / 2 }));
  assert.deepEqual(tfPath(edges, 'map', 'map'), { ok: true, steps: [] });
  assert.deepEqual(tfPath(edges, 'map', 'gps'), { ok: false, missing: ['gps'] });
  assert.deepEqual(tfPath([...edges, fixed('earth', 'gps', IDENTITY)], 'map', 'gps'), { ok: false, missing: [] });
  assert.deepEqual(framesSeen(edges.slice(0, 2)), [
    { frame: 'base_footprint', parent: 'odom' },
    { frame: 'map', parent: null },
    { frame: 'odom', parent: 'map' },
  ]);
});

test('an edge at a time: interpolated between samples, the nearest sample within maxGap outside them, else nothing', () => {
  const e: TfEdge = {
    parent: 'map',
    child: 'odom',
    static: false,
    samples: [
      { t: 0, pose: { x: 0, y: 0, yaw: 3 } },
      { t: 1, pose: { x: 2, y: 4, yaw: -3 } },
      { t: 3, pose: { x: 9, y: 9, yaw: 0 } },
    ],
  };
  const at = edgeAt(e, 0.25, 1)!;
  assert.ok(Math.abs(at.x - 0.5) < 1e-12 && Math.abs(at.y - 1) < 1e-12);
  // Along the shorter arc: from 3 through π to -3 (2π - 6 ≈ 0.283 rad in all).
  assert.ok(Math.abs(wrapAngle(at.yaw - (3 + 0.25 * (2 * Math.PI - 6)))) < 1e-12);
  assert.deepEqual(edgeAt(e, -0.5, 1), e.samples[0]!.pose);
  assert.equal(edgeAt(e, -1.5, 1), null);
  assert.equal(edgeAt(e, 2, 1), null); // samples 2 s apart, maxGap 1
  assert.ok(near(edgeAt(e, 2, 2)!, { x: 5.5, y: 6.5, yaw: -1.5 }));
  assert.deepEqual(edgeAt(e, 3.75, 1), e.samples[2]!.pose);
  assert.equal(edgeAt(e, 4.5, 1), null);
  // A static edge holds at every time.
  assert.deepEqual(edgeAt({ ...e, static: true }, 100, 0.1), e.samples[2]!.pose);
  // A chain is missing where one of its edges is.
  const p = tfPath([e, fixed('odom', 'base', IDENTITY)], 'map', 'base');
  assert.ok(p.ok);
  assert.equal(chainAt(p.steps, 2, 1), null);
  assert.ok(chainAt(p.steps, 0.5, 1) !== null);
});

test('a chain as a track for resampling: spans its dynamic edges, null where one has no value, none when all are static', () => {
  const slow: TfEdge = {
    parent: 'map',
    child: 'odom',
    static: false,
    samples: [0, 0.5, 1, 3].map((t) => ({ t, pose: { x: t, y: 0, yaw: 0 } })),
  };
  const fast: TfEdge = {
    parent: 'odom',
    child: 'base',
    static: false,
    samples: Array.from({ length: 31 }, (_, i) => ({ t: 0.2 + i * 0.1, pose: { x: 0, y: i * 0.1, yaw: 0 } })),
  };
  const p = tfPath([slow, fast, fixed('base', 'laser', { x: 1, y: 0, yaw: 0 })], 'map', 'laser');
  assert.ok(p.ok);
  const track = chainTrack(p.steps, 0.5)!;
  assert.deepEqual([track.first, track.last], [0, 3.2]);
  // At 0: base's first sample (0.2 s away) counts; map → odom (0, 0), odom → base (0, 0), base → laser (1, 0).
  assert.ok(near(track.at(0)!, { x: 1, y: 0, yaw: 0 }));
  assert.ok(near(track.at(0.75)!, { x: 1.75, y: 0.55, yaw: 0 }, 1e-12));
  assert.equal(track.at(2), null); // map → odom: 1 s to 3 s, more than 0.5 apart
  assert.ok(near(track.at(3.2)!, { x: 4, y: 3, yaw: 0 }, 1e-12)); // map → odom's last sample, 0.2 s back
  // Resampled: 4 Hz, grid 0 … 3, the rows before 1 s and at 3 s (one row: dropped).
  const r = resampleDriving(
    track,
    [0, 3.2].map((t) => ({
      t,
      linear: [1, 0, 0] as [number, number, number],
      angular: [0, 0, 0] as [number, number, number],
    })),
    { obs: ['x', 'y'], act: [{ from: 'linear.x', scale: 1 }] },
    { rate: 4, maxGap: 0.5 },
  );
  // Commands are held at most 0.5 s: only t = 0, 0.25, 0.5.
  assert.deepEqual([r.rows, r.episodes], [3, 1]);
  assert.ok(Math.abs(r.observations[2 * 2 + 1]! - 0.3) < 1e-6);
  assert.equal(chainTrack([{ edge: fixed('a', 'b', IDENTITY), inverse: false }], 1), null);
});
