/**
 * Stall recovery (core/exec/recovery.ts), the back-off shared by SAGAS's tracker and AP-HIQL's
 * steering: nothing while the body moves; a stall over the window starts a walk back to where the
 * body was back_m ago (the offset to that place's latent); it ends on arrival or after `steps`; at
 * most perTarget per target, and a new target starts the count again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StallRecovery } from '../../../main/core/exec/recovery.js';
import { LEGGED_EXEC } from '../../../main/core/exec/executor.js';

const P = { window: 10, moved_m: 0.5, back_m: 1, steps: 5, arrive_m: 0.3, perTarget: 2, grant: 0 };
const at = (x: number, y: number): Float32Array => Float32Array.of(x, y);

test('recovery: nothing while the body moves', () => {
  const r = new StallRecovery(P);
  for (let t = 0; t < 100; t++) {
    const s = r.step('w', at(0.1 * t, 0), 0.1 * t, 0);
    assert.equal(s.offset, null);
    assert.equal(s.started, null);
  }
});

test('recovery: a stall over the window walks back to where the body was back_m ago, then ends after `steps`', () => {
  const r = new StallRecovery(P);
  for (let t = 0; t <= 20; t++) r.step('w', at(0.1 * t, 0), 0.1 * t, 0); // walks to x = 2
  let s = r.step('w', at(2, 0), 2, 0);
  for (let t = 0; t < P.window && s.started === null; t++) s = r.step('w', at(2, 0), 2, 0);
  assert.ok(s.started !== null, 'a stall of `window` steps starts a recovery');
  assert.ok(s.started.moved_m < P.moved_m);
  assert.deepEqual(
    s.started.to.map((v) => Math.round(v * 10) / 10),
    [1, 0],
    'back to where it was 1 m ago on its path',
  );
  assert.ok(
    s.offset !== null && Math.abs(s.offset[0]! + 1) < 1e-6 && s.offset[1] === 0,
    "the offset is to that place's latent",
  );
  assert.equal(r.active, true);
  // Held in place, it gives up after `steps` steps of trying (the start step counts as one).
  let n = 1;
  while (r.step('w', at(2, 0), 2, 0).offset !== null) n++;
  assert.equal(n, P.steps);
  assert.equal(r.active, false);
});

test('recovery: ends on arrival within arrive_m', () => {
  const r = new StallRecovery(P);
  for (let t = 0; t <= 20; t++) r.step('w', at(0.1 * t, 0), 0.1 * t, 0);
  let s = r.step('w', at(2, 0), 2, 0);
  while (s.started === null) s = r.step('w', at(2, 0), 2, 0);
  assert.notEqual(r.step('w', at(1.5, 0), 1.5, 0).offset, null);
  assert.equal(r.step('w', at(1.1, 0), 1.1, 0).offset, null, 'within 0.3 m of the place: done');
});

test('recovery: at most perTarget per target; a new target starts the count again', () => {
  const r = new StallRecovery(P);
  for (let t = 0; t <= 20; t++) r.step('w', at(0.1 * t, 0), 0.1 * t, 0);
  let starts = 0;
  for (let t = 0; t < 150; t++) if (r.step('w', at(2, 0), 2, 0).started !== null) starts++;
  assert.equal(starts, P.perTarget);
  let again = 0;
  for (let t = 0; t < 150; t++) if (r.step('v', at(2, 0), 2, 0).started !== null) again++;
  assert.equal(
    again,
    P.perTarget,
    'the trail is kept: a stalled body has a place to go back to for the new target too',
  );
});

test('recovery: a body that never moved has nowhere to go back to', () => {
  const r = new StallRecovery(LEGGED_EXEC.recovery!);
  for (let t = 0; t < 300; t++) assert.equal(r.step('w', at(0, 0), 0, 0).started, null);
});
