import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { concatMlps } from '../../../main/core/models/concat.js';
import { forward, initMlp, validateMlp } from '../../../main/core/models/mlp.js';
import { createRng } from '../../../main/core/random/rng.js';

test('concatMlps: the merged MLP computes [a(x); k·b(x)] for any widths, depths and scale', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 0, maxLength: 3 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 3, maxLength: 3 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 6 }),
      fc.double({ min: 0.01, max: 10, noNaN: true }),
      fc.integer({ min: 0, max: 1 << 30 }),
      (input, hiddenA, widthsB, outA, outB, k, seed) => {
        const rng = createRng(seed);
        const hiddenB = widthsB.slice(0, hiddenA.length);
        const a = initMlp(rng, [input, ...hiddenA, outA], 'relu', 'linear');
        const b = initMlp(rng, [input, ...hiddenB, outB], 'relu', 'linear');
        // Non-zero biases, so that a misplaced bias shows.
        for (const l of [...a.layers, ...b.layers])
          for (let o = 0; o < l.bias.length; o++) l.bias[o] = rng.next() - 0.5;
        const m = concatMlps(a, b, k);
        validateMlp(m, 'merged');
        const rows = 4;
        const x = Float32Array.from({ length: rows * input }, () => rng.next() * 4 - 2);
        const ya = forward(a, x, rows),
          yb = forward(b, x, rows),
          y = forward(m, x, rows);
        const out = outA + outB;
        for (let r = 0; r < rows; r++) {
          for (let o = 0; o < outA; o++) assert.ok(Math.abs(y[r * out + o]! - ya[r * outA + o]!) < 1e-4);
          for (let o = 0; o < outB; o++)
            assert.ok(Math.abs(y[r * out + outA + o]! - k * yb[r * outB + o]!) < 1e-4 * Math.max(1, k));
        }
      },
    ),
    { numRuns: 200, seed: 31 },
  );
});

test('concatMlps: embeddings of other depths, inputs or activations, and a bad scale, are refused with what differs', () => {
  const rng = createRng(3);
  const a = initMlp(rng, [4, 8, 8, 2], 'relu', 'linear');
  assert.throws(
    () => concatMlps(a, initMlp(rng, [4, 8, 2], 'relu', 'linear'), 1),
    /3 and 2 layers: they must have the same depth/,
  );
  assert.throws(() => concatMlps(a, initMlp(rng, [5, 8, 8, 2], 'relu', 'linear'), 1), /read 4 and 5 inputs/);
  assert.throws(
    () => concatMlps(a, initMlp(rng, [4, 8, 8, 2], 'tanh', 'linear'), 1),
    /layers\[0\]: activations relu and tanh differ/,
  );
  for (const k of [0, -1, NaN, Infinity]) assert.throws(() => concatMlps(a, a, k), /scale must be a positive number/);
});
