import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PointMazeSim, PointMazeWorld } from '../../../main/backends/mujoco/pointmaze.js';
import { guardCall } from '../../../main/backends/world.js';
import { type World, WorldError } from '../../../main/core/world/world.js';
import { MAZES, cellAt, cellCenter } from '../../../main/core/world/maze.js';
import { pointMazeMjcf } from '../../../main/core/world/mjcf.js';

test('the point mass moves under its motors and never enters a wall cell', async () => {
  const sim = await PointMazeSim.create('pointmaze-medium', { actionNoise: 0 });
  sim.reset(1, [0, 0, 0, 0]);
  for (let k = 0; k < 100; k++) sim.step(1, 0);
  // (1,1) → the wall at (1,3) stops it inside cell (1,2): x < 8 - 2 - radius
  assert.ok(sim.state[0]! > 3 && sim.state[0]! < 5.6, `x = ${sim.state[0]}`);
  let x = 0,
    y = 0;
  for (let k = 0; k < 3000; k++) {
    const s = sim.step(Math.sin(k / 37), Math.cos(k / 53));
    x = s[0]!;
    y = s[1]!;
    const c = cellAt(sim.layout, x, y)!;
    assert.equal(sim.layout.grid[c.i]![c.j], 0, `entered wall cell (${c.i}, ${c.j}) at step ${k}`);
  }
  sim.close();
});

test('same seed, same trajectory; action noise makes control non-trivial', async () => {
  const a = await PointMazeSim.create('pointmaze-large');
  const b = await PointMazeSim.create('pointmaze-large');
  a.reset(5);
  b.reset(5);
  for (let k = 0; k < 200; k++) {
    a.step(0.5, -0.2);
    b.step(0.5, -0.2);
  }
  assert.deepEqual(Array.from(a.state), Array.from(b.state));
  const quiet = await PointMazeSim.create('pointmaze-large', { actionNoise: 0 });
  quiet.reset(5);
  a.reset(5);
  for (let k = 0; k < 50; k++) {
    quiet.step(0.5, -0.2);
    a.step(0.5, -0.2);
  }
  assert.notDeepEqual(Array.from(a.state), Array.from(quiet.state));
  for (const s of [a, b, quiet]) s.close();
});

test('bad input: unknown world, broken scene, wrong model, bad start state, closed simulator', async () => {
  await assert.rejects(
    PointMazeSim.create('pointmaze-nope'),
    (e: unknown) => e instanceof WorldError && e.kind === 'not-found',
  );
  await assert.rejects(
    PointMazeSim.create(
      'pointmaze-medium',
      {},
      { text: '<mujoco><worldbody><geom type="box"/></worldbody>', source: 'broken.xml' },
    ),
    (e: unknown) => e instanceof WorldError && e.kind === 'invalid-input' && /broken\.xml: .*XML/.test(e.message),
  );
  await assert.rejects(
    PointMazeSim.create(
      'pointmaze-medium',
      {},
      { text: '<mujoco><worldbody><geom type="sphere" size="1"/></worldbody></mujoco>', source: 'empty.xml' },
    ),
    (e: unknown) =>
      e instanceof WorldError &&
      /empty\.xml: expected a point mass with 2 slide joints and 2 motors, found nq=0 nu=0/.test(e.message),
  );
  const sim = await PointMazeSim.create(
    'pointmaze-medium',
    {},
    { text: pointMazeMjcf(MAZES.medium), source: 'inline' },
  );
  const wall = cellCenter(MAZES.medium, { i: 0, j: 0 });
  assert.throws(() => sim.reset(1, [wall.x, wall.y, 0, 0]), /is not in a free cell/);
  assert.throws(() => sim.reset(1, [0, 0, NaN, 0]), /4 finite numbers/);
  sim.close();
  assert.throws(
    () => sim.reset(1),
    (e: unknown) => e instanceof WorldError && e.kind === 'closed',
  );
});

test('the World interface: navigation with async reset/step, the pose, the map, the rest observation, input checks', async () => {
  const w = await PointMazeWorld.open('pointmaze-giant');
  assert.equal(w.spec.observation.dim, 4);
  assert.equal(w.spec.control_dt_s, 0.05);
  assert.equal((w as World).tools, undefined, 'a point maze has no skills');
  const nav = w.navigation;
  const r = await nav.reset({ seed: 3, start: [0, 0] });
  assert.deepEqual(Array.from(r.observation), [0, 0, 0, 0]);
  assert.deepEqual(r.pose, { x: 0, y: 0 });
  const s = await nav.step([1, 1]);
  assert.ok(s.time_s > 0 && w.time_s() === s.time_s);
  assert.deepEqual([s.pose.x, s.pose.y], [s.observation[0], s.observation[1]]);
  assert.ok(s.pose.x > 0 && s.pose.y > 0, 'the push moved it');
  assert.deepEqual(Array.from(nav.restObservation(2, 3)), [2, 3, 0, 0]);
  assert.equal(nav.map.blocked(0, 0), null);
  assert.equal(nav.map.blocked(-4, -4), 'inside a wall of pointmaze-giant (cell row 0, column 0)');
  assert.match(nav.map.blocked(-100, 0)!, /outside the pointmaze-giant maze/);
  await assert.rejects(
    nav.reset({ seed: 1, start: [-100, 0] }),
    (e: unknown) =>
      e instanceof WorldError && e.kind === 'invalid-input' && /outside the pointmaze-giant maze/.test(e.message),
  );
  await assert.rejects(nav.step([2]), (e: unknown) => e instanceof WorldError && e.kind === 'invalid-input');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    nav.step([0, 0], { signal: controller.signal }),
    (e: unknown) => e instanceof WorldError && e.kind === 'cancelled',
  );
  await w.close();
  await assert.rejects(nav.step([0, 0]), (e: unknown) => e instanceof WorldError && e.kind === 'closed');
});

test('guardCall turns slow and cancelled calls into WorldErrors', async () => {
  const never = (): Promise<number> => new Promise(() => undefined);
  await assert.rejects(
    guardCall('robot', 'step', { timeout_s: 0.02 }, never),
    (e: unknown) =>
      e instanceof WorldError && e.kind === 'timeout' && /robot: timeout: step took longer than 0.02 s/.test(e.message),
  );
  const c = new AbortController();
  setTimeout(() => c.abort(), 10);
  await assert.rejects(
    guardCall('robot', 'reset', { signal: c.signal }, never),
    (e: unknown) => e instanceof WorldError && e.kind === 'cancelled',
  );
  assert.equal(await guardCall('robot', 'x', { timeout_s: 1 }, () => Promise.resolve(7)), 7);
});
