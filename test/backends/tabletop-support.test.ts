import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TabletopSim } from '../../main/backends/mujoco/tabletop.js';

/** Where an object rests (`objects.<name>.on`) and its height, from the observed state. */
async function on(world: TabletopSim, name: string): Promise<{ on: string; z: number }> {
  const s = await world.observe();
  const o = (s['objects'] as Record<string, { on: string; z: number }>)[name]!;
  return { on: o.on, z: o.z };
}

const TRAY = { x: 0.22, y: -0.12, top: 0.41 };
const TABLE_TOP = 0.4;
/** A quarter turn about the x axis (w, x, y, z): the local y axis points up. */
const QUARTER_X = [Math.SQRT1_2, Math.SQRT1_2, 0, 0] as const;
/** A quarter turn about the y axis: the local z axis (a cylinder's axis) lies along x. */
const QUARTER_Y = [Math.SQRT1_2, 0, Math.SQRT1_2, 0] as const;

test("support comes from contacts, whatever the object's orientation: the scene at rest, lying and tilted objects on the tray", async () => {
  const world = await TabletopSim.create({ heightNoise_m: 0, perceptionNoise_m: 0 });
  try {
    await world.reset(1);
    // The scene at rest: the mug upright on the table, the load on its bin.
    assert.equal((await on(world, 'red_mug')).on, 'table');
    assert.equal((await on(world, 'red_bin_load')).on, 'red_bin');
    assert.equal((await on(world, 'red_bin')).on, 'table');
    assert.equal((await on(world, 'marker')).on, 'table');

    // The marker (6 × 1.8 × 6 cm) lying on its side on the tray: its centre is 0.9 cm above the
    // tray, so an upright half-height (3 cm) puts its "bottom" 2 cm under the tray — "unknown" before.
    world.setPose('marker', [TRAY.x, TRAY.y, TRAY.top + 0.0095], QUARTER_X, 300);
    const lying = await on(world, 'marker');
    assert.ok(lying.z - 0.03 < TRAY.top - 0.015, `lying low: z = ${lying.z}`);
    assert.equal(lying.on, 'tray');

    world.setPose('marker', [0.3, 0.2, TABLE_TOP + 0.031], [1, 0, 0, 0], 200);
    assert.equal((await on(world, 'marker')).on, 'table');

    // The mug (7 cm across, 9 cm tall) tipped over inside the tray's outline: its upright
    // "bottom" is at the table's height — "table" before.
    world.setPose('red_mug', [TRAY.x, TRAY.y, TRAY.top + 0.036], QUARTER_Y, 300);
    const tipped = await on(world, 'red_mug');
    assert.ok(Math.abs(tipped.z - 0.045 - TABLE_TOP) < 0.01, `the upright rule would read the table: z = ${tipped.z}`);
    assert.equal(tipped.on, 'tray');

    // A mug tilted by 20° in the tray, then left to settle (it rights itself or tips; it stays on the tray).
    const a = (20 * Math.PI) / 180;
    world.setPose('red_mug', [TRAY.x - 0.02, TRAY.y, TRAY.top + 0.055], [Math.cos(a / 2), Math.sin(a / 2), 0, 0], 500);
    assert.equal((await on(world, 'red_mug')).on, 'tray');

    // The mug upright on the table again.
    world.setPose('red_mug', [0.05, 0.0, TABLE_TOP + 0.0455], [1, 0, 0, 0], 200);
    assert.equal((await on(world, 'red_mug')).on, 'table');

    // In free fall mid-air: nothing carries it.
    world.setPose('marker', [0.3, 0.2, 0.62], [1, 0, 0, 0], 5);
    const falling = await on(world, 'marker');
    assert.ok(falling.z > 0.55, `still in the air: z = ${falling.z}`);
    assert.equal(falling.on, 'unknown');
    // It lands on the table.
    world.setPose('marker', [0.3, 0.2, 0.45], [1, 0, 0, 0], 400);
    assert.equal((await on(world, 'marker')).on, 'table');
    // Off the table's edge: the floor.
    world.setPose('marker', [0.6, 0.0, 0.1], [1, 0, 0, 0], 500);
    assert.equal((await on(world, 'marker')).on, 'floor');

    assert.throws(() => world.setPose('nothing', [0, 0, 0]), /no object "nothing"/);
  } finally {
    world.close();
  }
});

test('an object held in the gripper is on "gripper"; placed on the tray, on "tray"', async () => {
  const world = await TabletopSim.create({ heightNoise_m: 0, perceptionNoise_m: 0 });
  try {
    await world.reset(1);
    const ac = new AbortController();
    await world.execute('pick', { target: 'red_mug', approach_dz: -0.02 }, { timeout_s: 60, signal: ac.signal });
    const s = await world.observe();
    assert.equal((s['gripper'] as { holding: string }).holding, 'red_mug');
    assert.equal((await on(world, 'red_mug')).on, 'gripper');
    await world.execute('place', { target: 'tray' }, { timeout_s: 60, signal: ac.signal });
    assert.equal((await on(world, 'red_mug')).on, 'tray');
  } finally {
    world.close();
  }
});
