import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapMean, fmtInterval, winsTiesLosses, withinNoise } from '../../main/bench/stats.js';

test('bootstrapMean: a known interval on a known sample with a fixed seed, the same on every call', () => {
  const xs = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1];
  const ci = bootstrapMean(xs, { seed: 7, resamples: 2000 });
  assert.equal(ci.mean, 0.8);
  // A mean of ten 0/1 values is a multiple of 0.1; the normal approximation says 0.8 ± 0.25, the percentile bootstrap
  // [0.6, 1].
  assert.deepEqual({ lo: Number(ci.lo.toFixed(10)), hi: Number(ci.hi.toFixed(10)) }, KNOWN);
  assert.deepEqual(bootstrapMean(xs, { seed: 7, resamples: 2000 }), ci, 'deterministic per seed');
  assert.ok(!withinNoise(ci), '0 lies outside');
});

const KNOWN = { lo: 0.6, hi: 1 };

test('bootstrapMean: a constant sample has a point interval, an empty one NaN; wider levels are wider', () => {
  assert.deepEqual(bootstrapMean([2, 2, 2], { seed: 1 }), { mean: 2, lo: 2, hi: 2 });
  const e = bootstrapMean([], { seed: 1 });
  assert.ok(Number.isNaN(e.mean) && Number.isNaN(e.lo) && Number.isNaN(e.hi));
  const xs = [-1, 0, 0, 1, 0, 1, -1, 0, 1, 0, 0, 1];
  const a = bootstrapMean(xs, { seed: 3, level: 0.5 }),
    b = bootstrapMean(xs, { seed: 3, level: 0.99 });
  assert.ok(b.lo <= a.lo && a.hi <= b.hi && a.lo <= a.mean && a.mean <= a.hi);
  assert.ok(withinNoise(b), 'a difference around 0 is within noise');
  assert.match(fmtInterval(b, 1, 100), /^\+16\.7 \[-?\d+\.\d, \+\d+\.\d\] within noise$/);
  assert.equal(fmtInterval(e), '–');
});

test('winsTiesLosses: per task, in the direction asked; infinities tie only with each other', () => {
  assert.deepEqual(winsTiesLosses([1, 0, 1, 0], [0, 0, 1, 1], 'higher'), { wins: 1, ties: 2, losses: 1 });
  assert.deepEqual(winsTiesLosses([1, Infinity, Infinity, 2, 3], [2, Infinity, 5, Infinity, 3 + 1e-12], 'lower'), {
    wins: 2,
    ties: 2,
    losses: 1,
  });
});

test('fmtInterval: a ratio unsigned against 1; every task tied is "no difference"; an interval off 0 is not within noise', () => {
  assert.equal(fmtInterval({ mean: 1.2, lo: 1.05, hi: 1.4 }, 2, 1, 1), '1.20 [1.05, 1.40]');
  assert.equal(fmtInterval({ mean: 1, lo: 0.9, hi: 1.1 }, 2, 1, 1), '1.00 [0.90, 1.10] within noise');
  assert.equal(fmtInterval({ mean: 0, lo: 0, hi: 0 }, 1, 100), '+0.0 [+0.0, +0.0] no difference');
  assert.equal(fmtInterval({ mean: -0.2, lo: -0.3, hi: -0.1 }, 1, 100), '-20.0 [-30.0, -10.0]');
});
