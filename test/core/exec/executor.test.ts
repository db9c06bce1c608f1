import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_EXEC,
  Executor,
  type ExecParams,
  type ExecPlan,
  type Waypoint,
} from '../../../main/core/exec/executor.js';

// ψ is the identity on task positions here: latent (x, y) = position.
const wp = (id: string, x: number, y: number, pos: string[] = [], neg: string[] = [], transition = 0): Waypoint => ({
  node: transition,
  id,
  latent: Float32Array.from([x, y]),
  position: [x, y],
  pos,
  neg,
  term: [...pos, ...neg.map((n) => `!${n}`)].join(' & ') || 'true',
  checkpoint: pos.length > 0,
  state: 1,
  from: 0,
  transition,
});
const params: ExecParams = { ...DEFAULT_EXEC, reach_m: 0.5, lookahead_m: 0 };
const plan = (prefix: Waypoint[], suffix: Waypoint[], anchors: [string, Float32Array[]][] = []): ExecPlan => ({
  prefix,
  suffix,
  dwell: suffix.length === 1,
  anchors: new Map(anchors),
  dim: 2,
});
const at = (x: number, y: number) => [Float32Array.from([x, y]), x, y] as const;

test('skip-ahead stops at the pending checkpoint, which needs both proximity and its label; a dwell suffix is repeated checks', () => {
  const ex = new Executor(plan([wp('w1', 4, 0), wp('a1', 8, 0, ['a'])], [wp('a1', 8, 0, ['a'])]), params, 'start');
  const [h0, x0, y0] = at(0, 0);
  const s0 = ex.step(0, h0, new Set(), x0, y0);
  assert.equal(s0.status, 'running');
  assert.deepEqual(
    s0.events.map((e) => e.kind),
    ['waypoint'],
    'w1 is skipped: a1 is within H_TD',
  );
  assert.deepEqual([...s0.direction!], [1, 0]);
  assert.equal(ex.position().target.id, 'a1');
  const [h1, x1, y1] = at(8, 0);
  assert.deepEqual(ex.step(1, h1, new Set(), x1, y1).events, [], 'at the anchor without its label: not verified');
  const s2 = ex.step(2, h1, new Set(['a']), x1, y1);
  assert.deepEqual(
    s2.events.map((e) => e.kind),
    ['checkpoint', 'prefix-done'],
  );
  assert.deepEqual(
    ex.step(3, h1, new Set(['a']), x1, y1).events.map((e) => e.kind),
    ['checkpoint', 'suffix-traversal'],
  );
  const done = ex.step(4, h1, new Set(['a']), x1, y1);
  assert.equal(done.status, 'complete');
  assert.deepEqual(ex.marks, { prefixDone: 2, traversals: [3, 4] });
});

test('a forbidden label of the transition being realised fails the run; so does the tracking budget', () => {
  const v = new Executor(plan([wp('w1', 4, 0, [], ['b'])], [wp('w1', 4, 0)]), params, 'start');
  const [h, x, y] = at(1, 0);
  const r = v.step(0, h, new Set(['b']), x, y);
  assert.equal(r.status, 'failed');
  assert.deepEqual(
    r.events.map((e) => e.kind === 'violation' && e.literal),
    ['b'],
  );
  const slow = new Executor(plan([wp('far', 40, 0)], [wp('far', 40, 0)]), { ...params, H_low: 3 }, 'start');
  const kinds: string[] = [];
  for (let t = 0; t < 5 && slow.status === 'running'; t++)
    kinds.push(...slow.step(t, h, new Set(), x, y).events.map((e) => e.kind));
  assert.deepEqual(kinds, ['timeout']);
  assert.equal(slow.status, 'failed');
});

test('guard-aware steering bends the direction away from anchors of forbidden labels, within r_max', () => {
  const target = wp('w', 10, 0, [], ['b']);
  const plain = new Executor(plan([target], [target]), { ...params, steering: null }, 's');
  const steered = new Executor(
    plan([target], [target], [['b', [Float32Array.from([3, 1])]]]),
    { ...params, steering: { rho: 64, beta: 5, p: 1, rMax: 0.5 } },
    's',
  );
  const [h, x, y] = at(2, 0);
  const d0 = plain.step(0, h, new Set(), x, y).direction!;
  const d1 = steered.step(0, h, new Set(), x, y).direction!;
  assert.deepEqual([...d0], [1, 0]);
  assert.ok(d1[1]! < 0, 'pushed away from the anchor at y = 1');
  assert.ok(Math.abs(Math.hypot(d1[0]!, d1[1]!) - 1) < 1e-6);
  // r is clipped to r_max = 0.5 before normalising: the bend is at most atan(0.5 / 8).
  assert.ok(Math.atan2(-d1[1]!, d1[0]!) <= Math.atan(0.5 / 8) + 1e-6);
});

test('steeredSteps counts the steps the steering term was active: never with steering off, nor without a forbidden anchor within ρ_rep', () => {
  const target = wp('w', 10, 0, [], ['b']);
  const anchors: [string, Float32Array[]][] = [['b', [Float32Array.from([3, 1])]]];
  const on = new Executor(
    plan([target], [target], anchors),
    { ...params, steering: { rho: 4, beta: 5, p: 1, rMax: 0.5 } },
    's',
  );
  const off = new Executor(plan([target], [target], anchors), { ...params, steering: null }, 's');
  const free = new Executor(
    plan([wp('w', 10, 0)], [wp('w', 10, 0)], anchors),
    { ...params, steering: { rho: 4, beta: 5, p: 1, rMax: 0.5 } },
    's',
  );
  // Near the anchor (distance ~1.4, then ~2.2) and then far from it (> ρ_rep = 4).
  for (const [t, px] of [
    [0, 2],
    [1, 1],
    [2, 8],
  ] as const) {
    const [h, x, y] = at(px, 0);
    for (const e of [on, off, free]) e.step(t, h, new Set(), x, y);
  }
  assert.equal(on.steeredSteps, 2);
  assert.equal(off.steeredSteps, 0);
  assert.equal(free.steeredSteps, 0, 'no negative literal on the transition: nothing to steer away from');
});

test('targets: an ordinary waypoint steers to ψ of its position at rest by default, to its node latent with targets = node; an anchor to its rest latent either way', () => {
  // The node latent (the mean of member states moving every way) is off the robot's plane: (4, 3);
  // the rest latent of the same position is (4, 0), straight ahead.
  const cluster: Waypoint = { ...wp('c', 4, 3), position: [4, 0], rest: Float32Array.from([4, 0]) };
  const anchor: Waypoint = { ...wp('a', 4, 3, ['a']), position: [4, 0], rest: Float32Array.from([4, 0]) };
  const [h, x, y] = at(0, 0);
  const dir = (w: Waypoint, targets: ExecParams['targets']): number[] =>
    [...new Executor(plan([w], [w]), { ...params, targets }, 's').step(0, h, new Set(), x, y).direction!].map(
      (v) => Math.round(v * 1e6) / 1e6,
    );
  assert.deepEqual(DEFAULT_EXEC.targets, 'rest');
  assert.deepEqual(dir(cluster, 'rest'), [1, 0]);
  assert.deepEqual(dir(cluster, 'node'), [0.8, 0.6]);
  assert.deepEqual(dir(anchor, 'node'), [1, 0], 'anchors steer to their rest latent under either setting');
  // Without a rest latent (a caller that supplies none) the node latent is the target.
  assert.deepEqual(dir(wp('c', 4, 3), 'rest'), [0.8, 0.6]);
});
