import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../../main/core/random/rng.js';

test('the same seed gives the same sequence; different seeds differ', () => {
  const a = createRng(42),
    b = createRng(42),
    c = createRng(43);
  const xs = Array.from({ length: 100 }, () => a.next());
  assert.deepEqual(
    Array.from({ length: 100 }, () => b.next()),
    xs,
  );
  assert.notDeepEqual(
    Array.from({ length: 100 }, () => c.next()),
    xs,
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
});

test('int, pick and sample stay in range; sample draws distinct items', () => {
  const r = createRng(7);
  const counts = new Array<number>(6).fill(0);
  for (let i = 0; i < 6000; i++) counts[r.int(0, 5)]!++;
  assert.ok(
    counts.every((n) => n > 800 && n < 1200),
    `roughly uniform: ${counts.join(',')}`,
  );
  assert.ok(['x', 'y'].includes(r.pick(['x', 'y'])));
  assert.throws(() => r.pick([]), /empty list/);
  const s = r.sample([1, 2, 3, 4, 5], 3);
  assert.equal(new Set(s).size, 3);
  assert.equal(r.sample([1, 2], 5).length, 2);
});
