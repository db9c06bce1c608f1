/**
 * HIQL goal reaching alone on a fake point world: an ideal executor reaches the goal (success on
 * the step it is within the radius); one that stalls runs the whole budget, fails, and records the
 * step at which the mission's no-progress rule would have abandoned the goal; a detour that first
 * moves away in latent terms and then succeeds shows that rule firing before a success.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Navigation, NavState } from '../../../main/core/world/world.js';
import type { HiqlExecutor } from '../../../main/core/exec/hiql-mission.js';
import { reachGoal } from '../../../main/core/exec/hiql-reach.js';

/** A point world; `wallX`: a wall no step goes past (x ≤ wallX). */
function pointWorld(wallX = Infinity): Navigation {
  let x = 0,
    y = 0,
    t = 0;
  const state = (): NavState => ({ observation: Float64Array.of(x, y, 0, 0), pose: { x, y, yaw: 0 }, time_s: t });
  return {
    map: undefined as unknown as Navigation['map'],
    restObservation: (px: number, py: number) => Float32Array.of(px, py, 0, 0),
    observe: () => Promise.resolve(state()),
    reset: (o: { start?: readonly [number, number] }) => {
      [x, y] = o.start ?? [0, 0];
      t = 0;
      return Promise.resolve(state());
    },
    step: (a: ArrayLike<number>) => {
      x = Math.min(wallX, x + a[0]!);
      y += a[1]!;
      t += 0.1;
      return Promise.resolve(state());
    },
  };
}

const toward = (limit: number): HiqlExecutor => ({
  embed: (obs) => Promise.resolve(Float32Array.of(obs[0]!, obs[1]!)),
  subgoal: (_obs, goal) => Promise.resolve(Float32Array.from(goal)),
  act: (_obs, z) => {
    const n = Math.hypot(z[0]!, z[1]!);
    const s = Math.min(limit, n) / Math.max(n, 1e-9);
    return Promise.resolve(Float32Array.of(z[0]! * s, z[1]! * s));
  },
});
const params = { maxSteps: 300, radius: 1, H_low: 20, minProgress: 0.5, seed: 0 };

test('HIQL reach: an ideal executor reaches the goal and no timeout is recorded', async () => {
  const r = await reachGoal(pointWorld(), toward(0.3), [0, 0], Float32Array.of(9, 0, 0, 0), params);
  assert.equal(r.success, true);
  assert.equal(r.steps, 27); // 0.3 m a step from 9 m away, within 1 m after 27 steps
  assert.ok(r.finalDistance <= 1);
  assert.equal(r.timeoutAt, null);
  assert.equal(r.trajectory.length, 2 * (r.steps + 1));
});

test('HIQL reach: a stalled executor uses the whole budget, fails, and the no-progress rule is recorded', async () => {
  const r = await reachGoal(pointWorld(), toward(0), [0, 0], Float32Array.of(9, 0, 0, 0), params);
  assert.equal(r.success, false);
  assert.equal(r.steps, 300);
  assert.equal(r.timeoutAt, 20);
  assert.equal(r.minDistance, 9);
});

test('HIQL reach: a slow approach succeeds after the no-progress rule would have given up', async () => {
  // 0.02 m a step: 0.5 of latent progress takes 25 steps, more than H_low = 20.
  const r = await reachGoal(pointWorld(), toward(0.02), [0, 0], Float32Array.of(3, 0, 0, 0), params);
  assert.equal(r.success, true);
  assert.ok(r.timeoutAt !== null && r.timeoutAt < r.steps);
});

test('HIQL reach: with stall recovery, a body stalled against a wall backs off (twice per goal), without none', async () => {
  const recovery = { window: 40, moved_m: 0.5, back_m: 1, steps: 30, arrive_m: 0.3, perTarget: 2, grant: 60 };
  const seen: number[] = [];
  const ex = toward(0.3);
  const recording: HiqlExecutor = {
    ...ex,
    act: (obs, z, rows) => {
      seen.push(z[0]!);
      return ex.act(obs, z, rows);
    },
  };
  const r = await reachGoal(pointWorld(3), recording, [0, 0], Float32Array.of(9, 0, 0, 0), { ...params, recovery });
  assert.equal(r.success, false);
  assert.equal(r.recoveries, 2);
  assert.ok(
    seen.some((zx) => zx < 0),
    'the policy was steered back, away from the wall',
  );
  const none = await reachGoal(pointWorld(3), toward(0.3), [0, 0], Float32Array.of(9, 0, 0, 0), params);
  assert.equal(none.recoveries, 0);
});
