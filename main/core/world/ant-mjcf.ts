/**
 * MJCF for an Ant maze: the quadruped of the Gym/OGBench locomotion suites, written from its public
 * description (a torso sphere on a free joint; four legs at the diagonals, each a hip hinge about
 * the vertical and an ankle hinge that lifts the foot; motors of gear 150 with control in [-1, 1];
 * 0.01 s steps of the RK4 integrator) in a maze whose walls are merged into few boxes. Pure string
 * generation.
 *
 * Observation layout (29): qpos (x, y, z, qw, qx, qy, qz, then hip/ankle 1..4 in body order) and
 * qvel (vx, vy, vz, wx, wy, wz, the 8 joint rates). The actuators follow the Gym Ant's order
 * (hip 4, ankle 4, hip 1, ankle 1, hip 2, ankle 2, hip 3, ankle 3), so OGBench's 8-D Ant actions
 * mean the same joints here.
 */
import { type MazeLayout, cellCenter } from './maze.js';

export interface AntParams {
  /** Simulation step, s. */
  readonly timestep_s: number;
  /** Motor gear: torque per unit of control, N·m. */
  readonly gear: number;
  /** Wall height, m (the Ant's torso stands about 0.5 m high). */
  readonly wallHeight_m: number;
}

export const DEFAULT_ANT: AntParams = { timestep_s: 0.01, gear: 150, wallHeight_m: 1 };
/** Every hinge's armature (kg·m²) and damping (N·m·s/rad): the inertia the gait's feedforward moves. */
export const ANT_ARMATURE = 1;
export const ANT_DAMPING = 1;

/** Joint order of qpos[7..14] (body order) and actuator order (the Gym Ant's). */
export const ANT_JOINTS = ['hip_1', 'ankle_1', 'hip_2', 'ankle_2', 'hip_3', 'ankle_3', 'hip_4', 'ankle_4'] as const;
export const ANT_ACTUATORS = ['hip_4', 'ankle_4', 'hip_1', 'ankle_1', 'hip_2', 'ankle_2', 'hip_3', 'ankle_3'] as const;
/** For actuator k, the index of its joint in ANT_JOINTS (qpos[7 + j], qvel[6 + j]). */
export const ACTUATOR_JOINT: readonly number[] = ANT_ACTUATORS.map((a) => ANT_JOINTS.indexOf(a));

/** Per leg (1..4): the direction it points (x, y signs), its ankle axis and the ankle's range, degrees. */
const LEGS: readonly { sx: number; sy: number; axis: string; range: string }[] = [
  { sx: 1, sy: 1, axis: '-1 1 0', range: '30 70' },
  { sx: -1, sy: 1, axis: '1 1 0', range: '-70 -30' },
  { sx: -1, sy: -1, axis: '-1 1 0', range: '-70 -30' },
  { sx: 1, sy: -1, axis: '1 1 0', range: '30 70' },
];

/** A wall rectangle in cells: rows i0..i1, columns j0..j1, inclusive. */
export interface WallBox {
  readonly i0: number;
  readonly i1: number;
  readonly j0: number;
  readonly j1: number;
}

/**
 * The wall cells as few rectangles: maximal horizontal runs, then runs with the same columns in
 * consecutive rows merged. Fewer geoms make the collision broad phase cheaper (the Ant touches
 * the walls with nine geoms every step), and the union is exactly the wall cells.
 */
export function wallBoxes(layout: MazeLayout): WallBox[] {
  const open: WallBox[] = [];
  const done: WallBox[] = [];
  layout.grid.forEach((row, i) => {
    const runs: WallBox[] = [];
    for (let j = 0; j < row.length; j++) {
      if (row[j] !== 1) continue;
      let k = j;
      while (row[k + 1] === 1) k++;
      runs.push({ i0: i, i1: i, j0: j, j1: k });
      j = k;
    }
    const next: WallBox[] = [];
    for (const r of runs) {
      const above = open.findIndex((b) => b.j0 === r.j0 && b.j1 === r.j1 && b.i1 === i - 1);
      if (above >= 0) {
        next.push({ ...open[above]!, i1: i });
        open.splice(above, 1);
      } else next.push(r);
    }
    done.push(...open);
    open.length = 0;
    open.push(...next);
  });
  return [...done, ...open];
}

const f = (x: number): string => String(Math.round(x * 1e6) / 1e6);

/** The Ant's body tree, standing at the origin (its free joint places it). */
function antBody(): string[] {
  const legs = LEGS.flatMap((l, k) => {
    const n = k + 1;
    const a = `${f(0.2 * l.sx)} ${f(0.2 * l.sy)}`;
    return [
      `      <body name="leg_${n}">`,
      `        <geom name="thigh_${n}" type="capsule" size="0.08" fromto="0 0 0 ${a} 0"/>`,
      `        <body name="hip_${n}" pos="${a} 0">`,
      `          <joint name="hip_${n}" type="hinge" axis="0 0 1" range="-30 30"/>`,
      `          <geom name="shin_${n}" type="capsule" size="0.08" fromto="0 0 0 ${a} 0"/>`,
      `          <body name="foot_${n}" pos="${a} 0">`,
      `            <joint name="ankle_${n}" type="hinge" axis="${l.axis}" range="${l.range}"/>`,
      `            <geom name="foot_${n}" type="capsule" size="0.08" fromto="0 0 0 ${f(0.4 * l.sx)} ${f(0.4 * l.sy)} 0"/>`,
      `          </body>`,
      `        </body>`,
      `      </body>`,
    ];
  });
  return [
    `    <body name="torso" pos="0 0 0.75">`,
    `      <joint name="root" type="free" limited="false" armature="0" damping="0" margin="0.01"/>`,
    `      <geom name="torso" type="sphere" size="0.25"/>`,
    ...legs,
    `    </body>`,
  ];
}

export function antMazeMjcf(layout: MazeLayout, p: AntParams = DEFAULT_ANT): string {
  const u = layout.unit_m,
    h = p.wallHeight_m / 2;
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const walls = wallBoxes(layout).map((b, k) => {
    const a = cellCenter(layout, { i: b.i0, j: b.j0 }),
      z = cellCenter(layout, { i: b.i1, j: b.j1 });
    const sx = ((b.j1 - b.j0 + 1) * u) / 2,
      sy = ((b.i1 - b.i0 + 1) * u) / 2;
    return `    <geom name="wall_${k}" type="box" pos="${f((a.x + z.x) / 2)} ${f((a.y + z.y) / 2)} ${f(h)}" size="${f(sx)} ${f(sy)} ${f(h)}" material="wall" contype="1" conaffinity="1"/>`;
  });
  const cx = ((cols - 1) * u) / 2 - layout.offset_m,
    cy = ((rows - 1) * u) / 2 - layout.offset_m;
  return [
    `<mujoco model="antmaze-${layout.id}">`,
    `  <!-- generated by witness from the ${rows}x${cols} ${layout.id} layout; do not edit -->`,
    `  <compiler angle="degree" inertiafromgeom="true"/>`,
    // RK4, as the Gym Ant: with Euler's steps the feet's contacts come back springier, and the
    // scripted gait falls over far more often on noisy waypoints (docs/BENCHMARKS.md).
    `  <option timestep="${f(p.timestep_s)}" integrator="RK4" gravity="0 0 -9.81"/>`,
    // Body geoms collide with the floor and walls (conaffinity 1 there) but not with each other.
    `  <default>`,
    `    <joint limited="true" armature="${f(ANT_ARMATURE)}" damping="${f(ANT_DAMPING)}"/>`,
    `    <geom condim="3" contype="1" conaffinity="0" margin="0.01" friction="1 0.5 0.5" density="5" material="body"/>`,
    `  </default>`,
    `  <asset>`,
    `    <material name="wall" rgba="0.55 0.55 0.6 1"/>`,
    `    <material name="floor" rgba="0.92 0.92 0.9 1"/>`,
    `    <material name="body" rgba="0.8 0.6 0.4 1"/>`,
    `  </asset>`,
    `  <worldbody>`,
    `    <light pos="${f(cx)} ${f(cy)} 20" dir="0 0 -1"/>`,
    `    <geom name="floor" type="plane" pos="${f(cx)} ${f(cy)} 0" size="${f((cols * u) / 2)} ${f((rows * u) / 2)} 0.1" material="floor" contype="1" conaffinity="1"/>`,
    ...walls,
    ...antBody(),
    `  </worldbody>`,
    `  <actuator>`,
    ...ANT_ACTUATORS.map(
      (j) => `    <motor name="${j}" joint="${j}" gear="${f(p.gear)}" ctrllimited="true" ctrlrange="-1 1"/>`,
    ),
    `  </actuator>`,
    `</mujoco>`,
    '',
  ].join('\n');
}
