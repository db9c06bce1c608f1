import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AntMazeSim, AntMazeWorld } from '../../../main/backends/mujoco/antmaze.js';
import { ANT_REST, antRestObservation, antRestPose } from '../../../main/core/data/ant-agent.js';
import { antUprightness, antYaw } from '../../../main/core/data/ant-gait.js';
import { type World, WorldError } from '../../../main/core/world/world.js';
import { MAZES, cellAt, cellCenter } from '../../../main/core/world/maze.js';
import { pointMazeMjcf } from '../../../main/core/world/mjcf.js';
import { readFileSync } from 'node:fs';
import { worldEntry } from '../../../main/backends/catalogue.js';
import { labelAt, parseRegions } from '../../../main/core/world/regions.js';
import { mazeSvg } from '../../../main/core/world/svg.js';

const ZERO = new Float64Array(8);

test('the Ant stands at rest without falling: from its rest pose it stays put for 20 s with no control', async () => {
  const sim = await AntMazeSim.create('antmaze-medium');
  const c = cellCenter(sim.layout, { i: 1, j: 1 });
  sim.reset(1, [c.x, c.y]);
  let s: Float64Array = sim.state;
  for (let k = 0; k < 400; k++) {
    s = sim.act(ZERO);
    assert.ok(antUprightness(s) > 0.99, `tilted at step ${k}: uprightness ${antUprightness(s)}`);
  }
  assert.ok(Math.abs(s[2]! - ANT_REST.z) < 0.01, `torso height ${s[2]} vs rest ${ANT_REST.z}`);
  assert.ok(Math.hypot(s[0]! - c.x, s[1]! - c.y) < 0.05, `drifted to (${s[0]}, ${s[1]})`);
  for (const j of [8, 10, 12, 14])
    assert.ok(Math.abs(Math.abs(s[j]!) - ANT_REST.ankle) < 0.02, `ankle qpos[${j}] = ${s[j]}`);
  sim.close();
});

test("dropped from the MJCF's initial pose, the Ant settles into the rest pose restObservation gives", async () => {
  const sim = await AntMazeSim.create('antmaze-medium');
  const start: Float64Array = antRestPose(0, 0);
  start[2] = 0.75;
  start.set([0, 1, 0, -1, 0, -1, 0, 1], 7);
  sim.reset(1, Array.from(start));
  for (let k = 0; k < 400; k++) sim.act(ZERO);
  const rest = antRestObservation(0, 0);
  for (let i = 2; i < 15; i++)
    assert.ok(Math.abs(sim.state[i]! - rest[i]!) < 0.02, `qpos[${i}] = ${sim.state[i]} vs rest ${rest[i]}`);
  sim.close();
});

test('same seed, same trajectory; random resets land in free cells facing every way', async () => {
  const a = await AntMazeSim.create('antmaze-large'),
    b = await AntMazeSim.create('antmaze-large');
  const act = Float64Array.of(0.3, -0.2, 0.1, 0.4, -0.5, 0.2, 0, -0.1);
  a.reset(5);
  b.reset(5);
  for (let k = 0; k < 50; k++) {
    a.act(act);
    b.act(act);
  }
  assert.deepEqual(Array.from(a.state), Array.from(b.state));
  const yaws = new Set<number>();
  for (let seed = 0; seed < 40; seed++) {
    const s = a.reset(seed);
    const cell = cellAt(a.layout, s[0]!, s[1]!)!;
    assert.equal(a.layout.grid[cell.i]![cell.j], 0);
    yaws.add(Math.floor((antYaw(s) + Math.PI) / (Math.PI / 2)));
  }
  assert.equal(yaws.size, 4, 'headings in every quadrant');
  a.close();
  b.close();
});

test('bad input: unknown world, a point-mass scene, bad start states, the closed simulator — each named', async () => {
  await assert.rejects(
    AntMazeSim.create('antmaze-tiny'),
    (e: unknown) =>
      e instanceof WorldError &&
      e.kind === 'not-found' &&
      /antmaze-medium, antmaze-large, antmaze-giant/.test(e.message),
  );
  await assert.rejects(
    AntMazeSim.create('antmaze-medium', {}, { text: pointMazeMjcf(MAZES.medium), source: 'point.xml' }),
    (e: unknown) => e instanceof WorldError && /point\.xml: expected an Ant .* found nq=2 nv=2 nu=2/.test(e.message),
  );
  await assert.rejects(AntMazeSim.create('antmaze-medium', { frameSkip: 0 }), /frameSkip a positive integer/);
  const sim = await AntMazeSim.create('antmaze-medium');
  const wall = cellCenter(MAZES.medium, { i: 0, j: 0 });
  assert.throws(() => sim.reset(1, [wall.x, wall.y]), /initial position \(-4, -4\) is not in a free cell/);
  assert.throws(() => sim.reset(1, [0, 0, 0]), /2 finite numbers \(x, y\) or 29 \(qpos, qvel\), got 3/);
  assert.throws(() => sim.reset(1, [0, NaN]), /2 finite numbers/);
  sim.close();
  assert.throws(
    () => sim.reset(1),
    (e: unknown) => e instanceof WorldError && e.kind === 'closed',
  );
});

test('the World interface: 29-D observation with x, y first, 8-D action, rest starts, the pose with heading, input checks', async () => {
  const w = await AntMazeWorld.open('antmaze-giant');
  assert.equal(w.spec.observation.dim, 29);
  assert.deepEqual(w.spec.observation.names.slice(0, 3), ['x', 'y', 'z']);
  assert.equal(w.spec.action.dim, 8);
  assert.equal(w.spec.control_dt_s, 0.05);
  assert.equal((w as World).tools, undefined, 'an Ant maze has no skills');
  const nav = w.navigation;
  const r = await nav.reset({ seed: 3, start: [0, 0] });
  assert.deepEqual(Array.from(r.observation), Array.from(antRestPose(0, 0)));
  assert.deepEqual(Array.from(nav.restObservation(2, 3)), Array.from(antRestObservation(2, 3)));
  assert.deepEqual(r.pose, { x: 0, y: 0, yaw: 0 });
  const s = await nav.step(new Float64Array(8));
  assert.ok(s.time_s > 0 && w.time_s() === s.time_s);
  assert.deepEqual([s.pose.x, s.pose.y], [s.observation[0], s.observation[1]]);
  assert.equal(nav.map.blocked(-4, -4), 'inside a wall of antmaze-giant (cell row 0, column 0)');
  // Standing, it has not fallen; turned over (half a turn about x: torso quaternion w, x = 0, 1) it has.
  assert.equal(nav.fallen?.(r), null);
  const back = Float64Array.from(r.observation);
  back.set([0, 1, 0, 0], 3);
  assert.match(nav.fallen?.({ ...r, observation: back }) ?? '', /the Ant is on its back \(torso up axis z = -1\.00\)/);
  await assert.rejects(
    nav.reset({ seed: 1, start: [-100, 0] }),
    (e: unknown) =>
      e instanceof WorldError && e.kind === 'invalid-input' && /outside the antmaze-giant maze/.test(e.message),
  );
  await assert.rejects(
    nav.step([1, 0]),
    (e: unknown) =>
      e instanceof WorldError && e.kind === 'invalid-input' && /8 finite numbers .*hip_4.*got 2/.test(e.message),
  );
  await assert.rejects(
    nav.step([0, 0, 0, 0, 0, 0, 0, Infinity]),
    (e: unknown) => e instanceof WorldError && e.kind === 'invalid-input',
  );
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    nav.step(new Float64Array(8), { signal: controller.signal }),
    (e: unknown) => e instanceof WorldError && e.kind === 'cancelled',
  );
  await w.close();
  await assert.rejects(nav.step(new Float64Array(8)), (e: unknown) => e instanceof WorldError && e.kind === 'closed');
});

test("labels and pictures: the shipped medium regions label the Ant's pose; the catalogue draws its maze", async () => {
  const e = worldEntry('antmaze-medium');
  assert.equal(e.kind, 'antmaze');
  assert.ok(e.regionsFile !== null, "antmaze-medium ships regions (the point maze's, same layout and frame)");
  const regions = parseRegions(JSON.parse(readFileSync(e.regionsFile, 'utf8')), e.regionsFile).regions;
  const w = await e.open();
  const s = await w.navigation!.reset({ seed: 1, start: [20, 20] });
  assert.deepEqual(labelAt(regions, s.pose.x, s.pose.y), ['e4']);
  await w.close();
  assert.match(mazeSvg(e.layout!, 'antmaze-medium'), /^<svg /);
});
