import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { calibrationFactor, medianOffsetRatio, scaleOutput } from '../../../main/core/models/latent-scale.js';
import { forward, initMlp } from '../../../main/core/models/mlp.js';
import { createRng } from '../../../main/core/random/rng.js';
import { calibrateLatent } from '../../../main/app/train.js';

/** Latents along one axis: row t of a trajectory sits at speed·t (one trajectory per entry of `lengths`). */
function lines(
  lengths: readonly number[],
  speeds: readonly number[],
  dim = 2,
): { latent: Float32Array; terminals: Uint8Array } {
  const n = lengths.reduce((a, b) => a + b, 0);
  const latent = new Float32Array(n * dim),
    terminals = new Uint8Array(n);
  let r = 0;
  lengths.forEach((len, j) => {
    for (let t = 0; t < len; t++, r++) latent[r * dim] = speeds[j]! * t + 1000 * j;
    terminals[r - 1] = 1;
  });
  return { latent, terminals };
}

test('medianOffsetRatio: the median latent distance per step of recorded k-step offsets, never across a trajectory end', () => {
  // Two trajectories of 20 rows, speeds 1 and 3: the second jumps by 1000 at its start, which an
  // offset crossing the terminal would count.
  const { latent, terminals } = lines([20, 20], [1, 3]);
  // 8-step offsets: 12 in each trajectory; ratios 1 (×12) and 3 (×12): median (1 + 3) / 2.
  assert.equal(medianOffsetRatio(latent, 2, terminals, 8), 2);
  // A third, longer and slower trajectory moves the median to its own speed.
  const b = lines([20, 20, 60], [1, 3, 0.5]);
  assert.equal(medianOffsetRatio(b.latent, 2, b.terminals, 8), 0.5);
  // Stride samples starts.
  assert.equal(medianOffsetRatio(b.latent, 2, b.terminals, 8, 40), 0.5);
});

test('medianOffsetRatio refuses what it cannot measure, saying what', () => {
  const { latent, terminals } = lines([5, 5], [1, 1]);
  assert.throws(() => medianOffsetRatio(latent, 2, terminals, 8), /no trajectory holds a 8-step offset/);
  assert.throws(() => medianOffsetRatio(latent, 3, terminals, 2), /expected 10×3 values, got 20/);
  assert.throws(() => medianOffsetRatio(latent, 2, terminals, 0), /positive integer, got 0/);
  assert.throws(() => medianOffsetRatio(latent, 2, terminals, 2, 0.5), /stride must be a positive integer/);
});

test("scaleOutput multiplies the network's output by the factor and leaves the input untouched", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e6 }), fc.double({ min: 0.01, max: 100, noNaN: true }), (seed, f) => {
      const rng = createRng(seed);
      const m = initMlp(rng, [4, 16, 16, 3], 'relu', 'linear');
      const x = Float32Array.from({ length: 5 * 4 }, () => rng.next() * 4 - 2);
      const before = forward(m, x, 5),
        after = forward(scaleOutput(m, f), x, 5);
      before.forEach((v, i) =>
        assert.ok(Math.abs(after[i]! - f * v) <= 1e-4 * (1 + Math.abs(f * v)), `output ${i}: ${after[i]} vs ${f * v}`),
      );
      // The original is not modified.
      assert.deepEqual(forward(m, x, 5), before);
    }),
    { numRuns: 50, seed: 7 },
  );
  const m = initMlp(createRng(1), [2, 3], 'relu', 'tanh');
  assert.throws(() => scaleOutput(m, 2), /only a linear output layer can be rescaled, this one is tanh/);
  assert.throws(() => scaleOutput(initMlp(createRng(1), [2, 3], 'relu', 'linear'), 0), /positive number, got 0/);
  assert.throws(() => calibrationFactor(0, 0.9), /measured latent ratio must be positive, got 0/);
});

test('calibrateLatent: after rescaling, a recorded H_TD-step offset spans target·H_TD latent units (median), in ψ and its latents alike', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e6 }), fc.double({ min: 0.1, max: 3, noNaN: true }), (seed, target) => {
      const rng = createRng(seed);
      const psi = initMlp(rng, [2, 8, 4], 'relu', 'linear');
      // A trajectory of 200 observations moving along a curve.
      const n = 200,
        obs = new Float32Array(n * 2),
        terminals = new Uint8Array(n);
      for (let t = 0; t < n; t++) {
        obs[t * 2] = Math.cos(t / 30) * 3;
        obs[t * 2 + 1] = Math.sin(t / 20) * 2 + t / 100;
      }
      terminals[n - 1] = 1;
      const latent = forward(psi, obs, n);
      const c = calibrateLatent(psi, latent, 4, terminals, 8, target);
      assert.ok(Math.abs(medianOffsetRatio(c.latent, 4, terminals, 8) - target) < 1e-4 * target);
      // The rescaled network computes the rescaled latents.
      const again = forward(c.psi, obs, n);
      again.forEach((v, i) => assert.ok(Math.abs(v - c.latent[i]!) <= 1e-4 * (1 + Math.abs(v))));
      assert.equal(c.calibration.offset, 8);
      assert.ok(Math.abs(c.calibration.measured * c.calibration.factor - target) < 1e-6 * target);
    }),
    { numRuns: 30, seed: 11 },
  );
});
