/**
 * AP-HIQL's mission loop on a fake point world with an ideal executor (ψ = position, the subgoal is
 * the goal offset, the action a bounded step along it): it plans the label sequence, picks dataset
 * representatives, realises the prefix and M suffix traversals and is judged by the lasso evaluator;
 * a forbidden label on the way ends it as a failure of its stage; a specification with no
 * single-region lasso, or a region without dataset states, is a planning failure with its reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import type { Region } from '../../../main/core/world/regions.js';
import type { Navigation, NavState } from '../../../main/core/world/world.js';
import {
  type HiqlExecutor,
  type HiqlMissionInput,
  DEFAULT_HIQL_EXEC,
  regionRepresentative,
  runHiqlMission,
} from '../../../main/core/exec/hiql-mission.js';

/** A point world; `wallX`: a wall no step goes past (x ≤ wallX). */
function pointWorld(wallX = Infinity): Navigation & { resets: number } {
  let x = 0,
    y = 0,
    t = 0;
  const state = (): NavState => ({ observation: Float64Array.of(x, y, 0, 0), pose: { x, y, yaw: 0 }, time_s: t });
  const w = {
    resets: 0,
    map: undefined as unknown as Navigation['map'],
    restObservation: (px: number, py: number) => Float32Array.of(px, py, 0, 0),
    observe: () => Promise.resolve(state()),
    reset: (o: { start?: readonly [number, number] }) => {
      w.resets++;
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
  return w;
}

const ideal: HiqlExecutor = {
  embed: (obs) => Promise.resolve(Float32Array.of(obs[0]!, obs[1]!)),
  subgoal: (_obs, goal) => Promise.resolve(Float32Array.from(goal)),
  act: (_obs, z) => {
    const n = Math.hypot(z[0]!, z[1]!);
    const s = Math.min(0.3, n) / Math.max(n, 1e-9);
    return Promise.resolve(Float32Array.of(z[0]! * s, z[1]! * s));
  },
};

/** A dataset of states on a grid, every 0.25 m, at rest. */
function grid(): { observations: Float32Array; obsDim: number } {
  const rows: number[] = [];
  for (let gx = -2; gx <= 12; gx += 0.25) for (let gy = -2; gy <= 12; gy += 0.25) rows.push(gx, gy, 0, 0);
  return { observations: Float32Array.from(rows), obsDim: 4 };
}

const regions: Region[] = [
  { name: 'a', kind: 'disk', center: [8, 0], radius: 1 },
  { name: 'b', kind: 'disk', center: [8, 8], radius: 1 },
  { name: 'c', kind: 'disk', center: [4, 0], radius: 1 },
];

function input(spec: string, world = pointWorld()): HiqlMissionInput & { world: ReturnType<typeof pointWorld> } {
  const formula = parseLtl(spec);
  return {
    world,
    executor: ideal,
    automaton: translateFormula(formula).automaton,
    formula,
    regions,
    start: [0, 0],
    goals: grid(),
  };
}
const params = { ...DEFAULT_HIQL_EXEC, lambda: 0.5, maxSteps: 500, seed: 0 };

test('AP-HIQL: reaches the representatives in order and is judged by the lasso evaluator', async () => {
  const r = await runHiqlMission(input('F (b & F a) & G !c'), params);
  assert.equal(r.success, true, r.message);
  assert.equal(r.failureMode, null);
  assert.ok(r.plan.status === 'ok' && r.plan.goals >= 2);
  // The representative of a region is the dataset state nearest its centre.
  const g = grid();
  const row = r.representatives['a']!;
  assert.deepEqual([g.observations[row * 4], g.observations[row * 4 + 1]], [8, 0]);
  assert.equal(regionRepresentative(g, regions, 'a'), row);
  assert.ok(r.T_pre !== null && r.T_suf !== null && r.ncc > 0 && r.ncc < 1);
  assert.equal(r.labels.length, r.steps);
  // b before a: the first region entered is b.
  const firstRegion = r.labels.find((l) => l.length > 0);
  assert.deepEqual(firstRegion, ['b']);
});

test('AP-HIQL: a forbidden label on the way ends the run as a failure of its stage', async () => {
  // c lies on the straight line from the start to a: the executor does not plan around it.
  const r = await runHiqlMission(input('F a & G !c'), params);
  assert.equal(r.success, false);
  assert.equal(r.failureMode, 'prefix');
  assert.match(r.message, /forbidden label \{c\}/);
  assert.equal(r.failures[0]!.kind, 'violation');
  assert.equal(r.ncc, 1);
});

test('AP-HIQL: no single-region lasso, or no dataset state in a region, is a planning failure with its reason', async () => {
  const both = input('F (a & b)');
  const r = await runHiqlMission(both, params);
  assert.equal(r.failureMode, 'planning');
  assert.equal(r.planningReason, 'no-label-lasso');
  assert.match(r.message, /no accepting lasso whose letters hold at most one region at a time/);
  assert.equal(both.world.resets, 0, 'the world is not touched');
  assert.equal(r.steps, 0);
  const far: HiqlMissionInput = {
    ...input('F a'),
    regions: [{ name: 'a', kind: 'disk', center: [50, 50], radius: 1 }],
  };
  const n = await runHiqlMission(far, params);
  assert.equal(n.failureMode, 'planning');
  assert.equal(n.planningReason, 'no-representative');
  assert.match(n.message, /no dataset state lies inside region a/);
});

test('AP-HIQL: a goal not reached within goalSteps is a timeout of the stage', async () => {
  const stuck: HiqlExecutor = { ...ideal, act: () => Promise.resolve(Float32Array.of(0, 0)) };
  const r = await runHiqlMission({ ...input('F a'), executor: stuck }, { ...params, goalSteps: 120 });
  assert.equal(r.failureMode, 'prefix');
  assert.equal(r.failures[0]!.kind, 'timeout');
  assert.equal(r.steps, 121);
  assert.match(r.message, /not reached within 120 steps/);
});

test('AP-HIQL: with the no-progress rule on, no progress within H_low steps is a timeout of the stage', async () => {
  const stuck: HiqlExecutor = { ...ideal, act: () => Promise.resolve(Float32Array.of(0, 0)) };
  const r = await runHiqlMission({ ...input('F a'), executor: stuck }, { ...params, H_low: 100 });
  assert.equal(r.failureMode, 'prefix');
  assert.equal(r.failures[0]!.kind, 'timeout');
  assert.equal(r.steps, 101);
  assert.match(r.message, /no progress/);
});

test('AP-HIQL: by default a pause longer than the old no-progress window (100 steps) does not abandon the goal', async () => {
  // HIQL on the maze stalls against walls for a while and then goes on (backbone eval-hiql); the
  // old default (H_low = 100) failed such runs, C_max alone (the default now) lets them finish.
  let calls = 0;
  const pausing: HiqlExecutor = {
    ...ideal,
    act: (obs, z, rows) => (++calls <= 150 ? Promise.resolve(Float32Array.of(0, 0)) : ideal.act(obs, z, rows)),
  };
  const r = await runHiqlMission({ ...input('F a'), executor: pausing }, params);
  assert.equal(r.success, true, r.message);
  assert.ok(r.steps > 150);
  const old = await runHiqlMission(
    {
      ...input('F a'),
      executor: {
        ...ideal,
        act: (() => {
          let n = 0;
          return (o: Float32Array, z: Float32Array, k: number) =>
            ++n <= 150 ? Promise.resolve(Float32Array.of(0, 0)) : ideal.act(o, z, k);
        })(),
      },
    },
    { ...params, H_low: 100 },
  );
  assert.equal(old.success, false);
});

test('AP-HIQL: with stall recovery on, a body stalled against a wall walks back along its path instead of following π_h', async () => {
  // A wall at x = 3 across the way to region a (8, 0): the ideal subgoal pushes straight into it.
  const walled = pointWorld(3);
  const seen: Float32Array[] = [];
  const recording: HiqlExecutor = {
    ...ideal,
    act: (obs, z, rows) => {
      seen.push(Float32Array.from(z));
      return ideal.act(obs, z, rows);
    },
  };
  const recovery = { window: 40, moved_m: 0.5, back_m: 1, steps: 30, arrive_m: 0.3, perTarget: 2, grant: 60 };
  const r = await runHiqlMission(
    { ...input('F a', walled), executor: recording },
    { ...params, maxSteps: 400, recovery },
  );
  assert.equal(r.success, false);
  assert.equal(r.recoveries.length, 2, 'two recoveries for the one goal, then π_h again');
  for (const k of r.recoveries) {
    assert.ok(k.moved_m < 0.5);
    assert.ok(
      Math.abs(k.to[0] - 2) < 0.31 && Math.abs(k.to[1]) < 1e-6,
      `back to about 1 m before the wall, not ${k.to.join(', ')}`,
    );
    assert.ok(seen[k.t]![0]! < 0, 'the low-level policy is steered back, away from the wall');
  }
  const none = await runHiqlMission({ ...input('F a', pointWorld(3)), executor: ideal }, { ...params, maxSteps: 400 });
  assert.deepEqual(none.recoveries, [], "off by default (the paper's AP-HIQL)");
});
