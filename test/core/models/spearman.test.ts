import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pearson, ranks, spearman } from '../../../main/core/models/spearman.js';
import { forward, initMlp, validateMlp } from '../../../main/core/models/mlp.js';
import { createRng } from '../../../main/core/random/rng.js';

test('ranks average ties; spearman is 1 for any increasing map and -1 for a decreasing one', () => {
  assert.deepEqual(Array.from(ranks([10, 20, 20, 5])), [2, 3.5, 3.5, 1]);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 3, maxLength: 50 }), (xs) => {
      fc.pre(new Set(xs).size > 1);
      assert.ok(
        Math.abs(
          spearman(
            xs,
            xs.map((x) => 2 * x + 1),
          ) - 1,
        ) < 1e-9,
      );
      assert.ok(
        Math.abs(
          spearman(
            xs,
            xs.map((x) => -x * 3),
          ) + 1,
        ) < 1e-9,
      );
    }),
    { numRuns: 200, seed: 1 },
  );
  assert.throws(() => pearson([1], [1]), /same length ≥ 2/);
});

test('MLP forward: shapes chain, relu/tanh/linear behave, bad layers are named', () => {
  const m = initMlp(createRng(1), [3, 5, 2], 'relu', 'tanh');
  validateMlp(m, 'm');
  const y = forward(m, new Float32Array([1, 2, 3, -1, -2, -3]), 2);
  assert.equal(y.length, 4);
  assert.ok(Array.from(y).every((v) => v > -1 && v < 1));
  assert.throws(
    () => validateMlp({ layers: [{ ...m.layers[0]!, bias: new Float32Array(2) }] }, 'psi'),
    /psi: layers\[0\]\.bias has 2 values, expected 5/,
  );
});
