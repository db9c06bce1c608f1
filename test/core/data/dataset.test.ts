import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatasetError, datasetStats, validateDataset, type Dataset } from '../../../main/core/data/dataset.js';
import { sampleDataset } from './sample.js';

/** Asserts that validation fails with a DatasetError for `field` whose message matches `detail`. */
function rejects(d: Dataset, field: string, detail: RegExp): void {
  assert.throws(
    () => validateDataset(d, 'runs/a.wds'),
    (err: unknown) => {
      assert.ok(err instanceof DatasetError, `a DatasetError, got ${String(err)}`);
      assert.equal(err.file, 'runs/a.wds');
      assert.equal(err.field, field);
      assert.match(err.message, /^runs\/a\.wds: /);
      assert.match(err.message, detail);
      return true;
    },
  );
}

test('a well-formed dataset validates', () => {
  validateDataset(sampleDataset(), 'x');
  validateDataset(sampleDataset([1], 1, 1), 'x');
});

test('non-finite values are reported with field, row and column', () => {
  const d = sampleDataset([10, 5]);
  d.observations[12 * 3 + 2] = NaN;
  rejects(d, 'observations', /^runs\/a\.wds: observations\[12\]\[2\] is NaN$/);
  const e = sampleDataset();
  e.actions[3] = -Infinity;
  rejects(e, 'actions', /actions\[1\]\[1\] is -Infinity/);
  const f = sampleDataset();
  f.observations[0] = Infinity;
  rejects(f, 'observations', /observations\[0\]\[0\] is Infinity/);
});

test('shapes must agree with the row count and dimensions', () => {
  const d = sampleDataset();
  rejects({ ...d, observations: d.observations.subarray(1) }, 'observations', /23 values, expected 8 rows × 3 = 24/);
  rejects({ ...d, actions: new Float32Array(17) }, 'actions', /expected 8 rows × 2 = 16/);
  rejects({ ...d, obsDim: 0 }, 'obsDim', /positive integer/);
  rejects({ ...d, actDim: 1.5 }, 'actDim', /positive integer/);
  rejects(
    { ...d, terminals: new Uint8Array(0), observations: new Float32Array(0), actions: new Float32Array(0) },
    'terminals',
    /no transitions/,
  );
  rejects(
    { ...d, observations: Float64Array.from(d.observations) as unknown as Float32Array },
    'observations',
    /Float32Array/,
  );
});

test('terminals are 0 or 1 and the last row ends a trajectory', () => {
  const d = sampleDataset();
  const t = d.terminals.slice();
  t[1] = 2;
  rejects({ ...d, terminals: t }, 'terminals', /terminals\[1\] is 2, expected 0 or 1/);
  const u = d.terminals.slice();
  u[7] = 0;
  rejects({ ...d, terminals: u }, 'terminals', /terminals\[7\] \(the last row\) must be 1/);
});

test('world, generator and seed are checked', () => {
  const d = sampleDataset();
  rejects({ ...d, worldId: '' }, 'worldId', /non-empty/);
  rejects({ ...d, generator: [] as unknown as Record<string, unknown> }, 'generator', /object/);
  rejects({ ...d, seed: NaN }, 'seed', /integer/);
});

test('stats count transitions and trajectories and give per-dimension ranges', () => {
  const d: Dataset = {
    ...sampleDataset([2, 1]),
    observations: Float32Array.from([0, 5, -1, 2, 3, 3, 1, -4, 0]),
    actions: Float32Array.from([1, 1, -2, 0, 0.5, 4]),
  };
  const s = datasetStats(d);
  assert.equal(s.transitions, 3);
  assert.equal(s.trajectories, 2);
  assert.deepEqual(s.observations, { min: [0, -4, -1], max: [2, 5, 3] });
  assert.deepEqual(s.actions, { min: [-2, 0], max: [1, 4] });
});
