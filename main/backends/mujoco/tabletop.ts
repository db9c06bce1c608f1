/**
 * The tabletop world (MuJoCo): a table, a red mug, a marker, a tray, bins of different masses (the red
 * one carries a load on top that makes it too heavy to lift), a shelf
 * ("shelf_c4") and a three-axis gripper with two position-controlled fingers. Skills (pick, place,
 * move) are scripted controllers that step the physics; they always *return* "ok", like the API in
 * the seed that reports success while the mug sits untouched (a name the world does not have is an
 * invalid-input error instead; a timeout or an abort stops the physics mid-skill). The truth is in `observe()`: finger
 * separation (gripper.width_cm), the lift actuator's force (gripper.load_N, against a payload limit
 * of 20 N), what is between the fingers, where each object rests (from the physics' contacts,
 * whatever its orientation) and whether it is still in the workspace (above the table). Real failure sources: the
 * skill's grasp height comes from a catalogue and a perceived position with seeded noise, so a grasp
 * at the nominal approach height closes above the mug; a heavy bin exceeds the lift force.
 */
import { readFileSync } from 'node:fs';
import type { MainModule, MjData, MjModel } from 'mujoco-js';
import { loadModel } from './runtime.js';
import { type Tools, type World, WorldError, type WorldSpec } from '../../core/world/world.js';
import { runStoppable } from '../world.js';
import { Turns } from '../../platform/event-loop.js';
import { assetPath } from '../../platform/paths.js';
import { TABLETOP_WORLD } from '../../contract/defaults.js';
import { createRng, type Rng } from '../../core/random/rng.js';
import type { WorldState } from '../../core/loop/conditions.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';

export const TABLETOP_ID = TABLETOP_WORLD;
const SCENE = assetPath('scenes/tabletop.xml');

/** Movable objects: their free joint's qpos address, catalogue height and mass. */
const OBJECTS = [
  { name: 'red_mug', q: 0, half: 0.045, mass_kg: 0.3 },
  { name: 'blue_bin', q: 7, half: 0.04, mass_kg: 0.8 },
  { name: 'red_bin', q: 14, half: 0.05, mass_kg: 1.5 },
  { name: 'red_bin_load', q: 21, half: 0.02, mass_kg: 1.5 },
  { name: 'marker', q: 28, half: 0.03, mass_kg: 0.05 },
] as const;
/** Static surfaces objects can rest on: centre, half extents, top height. */
const SURFACES = [
  { name: 'tray', x: 0.22, y: -0.12, hx: 0.08, hy: 0.08, top: 0.41 },
  { name: 'shelf_c4', x: -0.25, y: -0.15, hx: 0.1, hy: 0.1, top: 0.5 },
  { name: 'table', x: 0, y: 0, hx: 0.4, hy: 0.3, top: 0.4 },
] as const;
/** The table: the workspace is above it (objects.<o>.in_workspace). */
const TABLE = SURFACES.find((s) => s.name === 'table')!;
/**
 * How far below the table's top an object's centre may be and still count as in the workspace (contact penetration).
 */
const WORKSPACE_MARGIN_M = 0.02;
/** Geoms an object can rest on besides the surfaces and the other objects. */
const FLOOR = 'floor';
/** A supporting contact's normal is within 60° of up. */
const SUPPORT_MIN_UP = 0.5;
const HAND = 35; // qpos of hx, hy, hz, fl, fr (after five free objects)
const HAND_Z0 = 0.75;
const FINGER_REACH = 0.09; // finger bottoms below the hand's origin
const PAYLOAD_LIMIT_N = 20;
const TRAVEL_Z = 0.7;
/** Physics steps a reset takes to settle: the objects where the scene puts them, the fingers open. */
const RESET_STEPS = 350;

export const TABLETOP_VOCABULARY: Vocabulary = {
  fields: {
    'gripper.width_cm': 'number',
    'gripper.holding': 'string',
    'gripper.load_N': 'number',
    'gripper.payload_limit_N': 'number',
  },
  objects: [...OBJECTS.map((o) => o.name), ...SURFACES.map((s) => s.name)],
  objectFields: { on: 'string', mass_kg: 'number', x: 'number', y: 'number', z: 'number', in_workspace: 'bool' },
  propositions: ['mug_on_tray', 'red_bin_on_shelf'],
  skills: ['pick', 'place', 'move'],
};

export interface TabletopOptions {
  /** Standard deviation of the perceived object position (x, y), metres. */
  readonly perceptionNoise_m: number;
  /** Standard deviation of the perceived object height, metres: the nominal grasp then misses or holds. */
  readonly heightNoise_m: number;
}

/**
 * Read once at load: which object or surface each geom belongs to (null: the hand's), each object's body, the friction
 * cone.
 */
interface SupportIds {
  readonly geomOwner: readonly (string | null)[];
  readonly body: ReadonlyMap<string, number>;
  readonly elliptic: boolean;
}

function supportIds(mj: MainModule, model: MjModel): SupportIds {
  const GEOM = mj.mjtObj.mjOBJ_GEOM.value,
    BODY = mj.mjtObj.mjOBJ_BODY.value;
  const missing = (kind: string, name: string): WorldError =>
    new WorldError('invalid-input', TABLETOP_ID, `${SCENE}: no ${kind} "${name}"`);
  const geomOwner: (string | null)[] = new Array<string | null>(model.ngeom).fill(null);
  const body = new Map<string, number>();
  const geomBody = model.geom_bodyid as Int32Array;
  for (const ob of OBJECTS) {
    const b = mj.mj_name2id(model, BODY, ob.name);
    if (b < 0) throw missing('body', ob.name);
    body.set(ob.name, b);
    for (let g = 0; g < model.ngeom; g++) if (geomBody[g] === b) geomOwner[g] = ob.name;
  }
  for (const name of [...SURFACES.map((s) => s.name), FLOOR]) {
    const g = mj.mj_name2id(model, GEOM, name);
    if (g < 0) throw missing('geom', name);
    geomOwner[g] = name;
  }
  const opt = model.opt;
  const elliptic = opt.cone === 1; // mjCONE_ELLIPTIC
  opt.delete();
  return { geomOwner, body, elliptic };
}

/** The simulator and its scripted skills (tests reach in to place objects). */
export class TabletopSim {
  private rng: Rng = createRng(0);
  private closed = false;
  /** A turn of the event loop every few milliseconds while the physics steps (platform/event-loop.ts). */
  private readonly turns = new Turns();

  private constructor(
    private readonly mj: MainModule,
    private readonly model: MjModel,
    private readonly data: MjData,
    private readonly o: TabletopOptions,
    private readonly ids: SupportIds,
  ) {}

  static async create(o: Partial<TabletopOptions> = {}): Promise<TabletopSim> {
    let text: string;
    try {
      text = readFileSync(SCENE, 'utf8');
    } catch (e) {
      throw new WorldError(
        'not-found',
        TABLETOP_ID,
        `cannot read scene ${SCENE}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      );
    }
    const { mj, model, data } = await loadModel(text, SCENE, TABLETOP_ID);
    if (model.nq !== 40 || model.nu !== 5)
      throw new WorldError(
        'invalid-input',
        TABLETOP_ID,
        `${SCENE}: expected 5 free objects, a 3-axis hand and 2 fingers`,
      );
    let ids: SupportIds;
    try {
      ids = supportIds(mj, model);
    } catch (e) {
      data.delete();
      model.delete();
      throw e;
    }
    return new TabletopSim(mj, model, data, { perceptionNoise_m: 0.004, heightNoise_m: 0.008, ...o }, ids);
  }

  /** A new episode: objects where the scene puts them, the hand up, fingers open; seeded perception noise. */
  async reset(seed: number, signal: AbortSignal = new AbortController().signal): Promise<WorldState> {
    this.ensureOpen();
    this.rng = createRng(seed);
    this.mj.mj_resetData(this.model, this.data);
    this.mj.mj_forward(this.model, this.data);
    this.setGrip(0.1);
    await this.skillSteps(RESET_STEPS, signal);
    return await this.observe();
  }

  private ensureOpen(): void {
    if (this.closed) throw new WorldError('closed', TABLETOP_ID, 'the simulator was closed');
  }

  private steps(n: number): void {
    for (let i = 0; i < n; i++) this.mj.mj_step(this.model, this.data);
  }

  /**
   * One physics step inside a skill or a reset, which stops there once the signal is aborted (or the world closed);
   * true once the steps since the last turn of the event loop have held it for a few milliseconds: the caller then
   * takes a turn, so that the E-STOP is answered and a timeout or an abort can fire mid-skill.
   */
  private skillStep(signal: AbortSignal): boolean {
    if (signal.aborted) throw new WorldError('cancelled', TABLETOP_ID, 'the skill was stopped');
    this.ensureOpen();
    this.mj.mj_step(this.model, this.data);
    return this.turns.due();
  }

  private async skillSteps(n: number, signal: AbortSignal): Promise<void> {
    for (let i = 0; i < n; i++) if (this.skillStep(signal)) await this.turns.take();
  }

  private q(i: number): number {
    return (this.data.qpos as Float64Array)[i]!;
  }

  /** A straight, smooth move of the hand's set point (a ramp), then a settle. */
  private async moveTo(x: number, y: number, z: number, signal: AbortSignal): Promise<void> {
    const c = this.data.ctrl as Float64Array;
    const from = [c[0]!, c[1]!, c[2]!];
    const to = [x, y, z - HAND_Z0];
    const dist = Math.hypot(to[0]! - from[0]!, to[1]! - from[1]!, to[2]! - from[2]!);
    const n = Math.max(50, Math.ceil(dist / 0.0006)); // about 0.3 m/s at 2 ms per step
    for (let i = 1; i <= n; i++) {
      const f = i / n;
      const sm = f * f * (3 - 2 * f);
      for (let k = 0; k < 3; k++) c[k] = from[k]! + (to[k]! - from[k]!) * sm;
      if (this.skillStep(signal)) await this.turns.take();
    }
    await this.skillSteps(250, signal);
  }

  private setGrip(width_m: number): void {
    const c = this.data.ctrl as Float64Array;
    c[3] = c[4] = (width_m - 0.108) / 2;
  }

  private async gripSkill(width_m: number, n: number, signal: AbortSignal): Promise<void> {
    this.setGrip(width_m);
    await this.skillSteps(n, signal);
  }

  private gauss(): number {
    let u = 0;
    while (u === 0) u = this.rng.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rng.next());
  }

  /**
   * Runs a skill within the call's timeout and abort signal: either stops the physics at the next
   * step and rejects with WorldError 'timeout' or 'cancelled' (the hand stays where it was). A name
   * the world does not have is an 'invalid-input' error, never a silent "ok".
   */
  async execute(skill: string, args: unknown, o: { timeout_s: number; signal: AbortSignal }): Promise<unknown> {
    this.ensureOpen();
    return await runStoppable(TABLETOP_ID, `skill ${skill}`, o, (signal) => this.skill(skill, args, signal));
  }

  private async skill(skill: string, args: unknown, signal: AbortSignal): Promise<unknown> {
    const a = (args ?? {}) as { target?: string; approach_dz?: number; x?: number; y?: number; z?: number };
    if (skill === 'pick') {
      const obj = OBJECTS.find((x) => x.name === a.target);
      if (obj === undefined)
        throw new WorldError(
          'invalid-input',
          TABLETOP_ID,
          `pick: no object "${String(a.target)}"; the objects are ${OBJECTS.map((x) => x.name).join(', ')}`,
        );
      // Perceived position (noisy) and the catalogue's grasp height: finger tips just below the top.
      const px = this.q(obj.q) + this.o.perceptionNoise_m * this.gauss();
      const py = this.q(obj.q + 1) + this.o.perceptionNoise_m * this.gauss();
      const top = this.q(obj.q + 2) + obj.half + this.o.heightNoise_m * this.gauss();
      await this.gripSkill(0.1, 200, signal);
      await this.moveTo(px, py, TRAVEL_Z, signal);
      await this.moveTo(px, py, top + FINGER_REACH - 0.005 + (a.approach_dz ?? 0), signal);
      await this.gripSkill(0, 400, signal);
      await this.moveTo(px, py, TRAVEL_Z, signal);
      return { status: 'ok', skill: 'pick' };
    }
    if (skill === 'place') {
      const s = SURFACES.find((x) => x.name === a.target);
      if (s === undefined)
        throw new WorldError(
          'invalid-input',
          TABLETOP_ID,
          `place: no surface "${String(a.target)}"; the surfaces are ${SURFACES.map((x) => x.name).join(', ')}`,
        );
      const held = this.held();
      const half = held?.half ?? 0.05;
      await this.moveTo(s.x, s.y, TRAVEL_Z, signal);
      await this.moveTo(s.x, s.y, s.top + 2 * half + FINGER_REACH - 0.03, signal);
      await this.gripSkill(0.1, 300, signal);
      await this.moveTo(s.x, s.y, TRAVEL_Z, signal);
      return { status: 'ok', skill: 'place' };
    }
    if (skill === 'move') {
      await this.moveTo(a.x ?? this.q(HAND), a.y ?? this.q(HAND + 1), a.z ?? TRAVEL_Z, signal);
      return { status: 'ok', skill: 'move' };
    }
    throw new WorldError(
      'invalid-input',
      TABLETOP_ID,
      `no skill "${skill}"; the skills are ${TABLETOP_VOCABULARY.skills.join(', ')}`,
    );
  }

  private hand(): [number, number, number] {
    return [this.q(HAND), this.q(HAND + 1), HAND_Z0 + this.q(HAND + 2)];
  }

  private width_m(): number {
    return 0.108 + this.q(HAND + 3) + this.q(HAND + 4);
  }

  /**
   * What carries each object, from the physics (one pass over MuJoCo's contacts): the surface or
   * object whose geom touches it from below — a contact whose normal, pointing from the other geom
   * to this object, is within 60° of up, at a point below the object's centre, with the other geom's
   * centre below it too. When several do (a mug leaning on the tray's edge and the table), the one
   * bearing the most vertical normal force wins. Absent when nothing does (held in the fingers, in
   * the air; the fingers are not supports). The object's orientation does not matter: a marker
   * lying on its side on the tray touches the tray.
   */
  private supports(): Map<string, string> {
    const out = new Map<string, string>();
    const n = this.data.ncon;
    if (n === 0) return out;
    const xpos = this.data.xpos as Float64Array,
      gpos = this.data.geom_xpos as Float64Array;
    const bearing = new Map<string, Map<string, number>>();
    const consider = (ob: string, other: number, up: number, contactZ: number, force: () => number): void => {
      const by = this.ids.geomOwner[other] ?? null;
      if (by === null || by === ob || up < SUPPORT_MIN_UP) return;
      const zc = xpos[3 * this.ids.body.get(ob)! + 2]!;
      if (contactZ >= zc || gpos[3 * other + 2]! >= zc) return;
      const m = bearing.get(ob) ?? new Map<string, number>();
      m.set(by, (m.get(by) ?? 0) + up * force());
      bearing.set(ob, m);
    };
    const contacts = this.data.contact; // a copy of the contact array (embind): deleted below
    try {
      for (let i = 0; i < n; i++) {
        const c = contacts.get(i);
        if (c === undefined) continue;
        try {
          const g1 = c.geom1,
            g2 = c.geom2;
          // The frame's first row is the normal, pointing from geom1 to geom2.
          const nz = (c.frame as Float64Array)[2]!,
            z = (c.pos as Float64Array)[2]!;
          const force = (): number => this.normalForce(c.efc_address, c.dim);
          const o1 = this.ids.geomOwner[g1] ?? null,
            o2 = this.ids.geomOwner[g2] ?? null;
          if (o1 !== null && this.ids.body.has(o1)) consider(o1, g2, -nz, z, force);
          if (o2 !== null && this.ids.body.has(o2)) consider(o2, g1, nz, z, force);
        } finally {
          c.delete();
        }
      }
    } finally {
      contacts.delete();
    }
    for (const [ob, m] of bearing) {
      let best = '',
        most = -1;
      for (const [by, f] of m) if (f > most) [best, most] = [by, f];
      out.set(ob, best);
    }
    return out;
  }

  /**
   * A contact's normal force from the constraint solver (elliptic cones: the first row; pyramidal: the sum of the
   * edges).
   */
  private normalForce(address: number, dim: number): number {
    if (address < 0) return 0;
    const f = this.data.efc_force as Float64Array;
    if (this.ids.elliptic || dim === 1) return Math.max(0, f[address]!);
    let sum = 0;
    for (let k = 0; k < 2 * (dim - 1); k++) sum += f[address + k]!;
    return Math.max(0, sum);
  }

  /** The object between the closed fingers and lifted off whatever it rested on, if any. */
  private held(supports = this.supports()): (typeof OBJECTS)[number] | undefined {
    const [hx, hy, hz] = this.hand();
    return OBJECTS.find((ob) => {
      const x = this.q(ob.q),
        y = this.q(ob.q + 1),
        z = this.q(ob.q + 2);
      return (
        Math.hypot(x - hx, y - hy) < 0.03 &&
        z > hz - FINGER_REACH - ob.half &&
        z < hz &&
        this.width_m() > 0.01 &&
        !supports.has(ob.name)
      );
    });
  }

  /**
   * "gripper" when held, else what carries it (contacts), else "floor" below the table, else "unknown" (in the air).
   */
  private restingOn(
    ob: (typeof OBJECTS)[number],
    supports: ReadonlyMap<string, string>,
    held: (typeof OBJECTS)[number] | undefined,
  ): string {
    if (held === ob) return 'gripper';
    const s = supports.get(ob.name);
    if (s !== undefined) return s;
    return this.q(ob.q + 2) - ob.half < 0.3 ? 'floor' : 'unknown';
  }

  /**
   * Puts an object at a pose (position, and orientation as a unit quaternion w, x, y, z), at rest,
   * then steps the physics `settleSteps` times (hand and fingers hold their set points): scenario
   * set-up and tests.
   */
  setPose(
    object: string,
    position: readonly [number, number, number],
    quat: readonly [number, number, number, number] = [1, 0, 0, 0],
    settleSteps = 0,
  ): void {
    this.ensureOpen();
    const ob = OBJECTS.find((x) => x.name === object);
    if (ob === undefined)
      throw new WorldError(
        'invalid-input',
        TABLETOP_ID,
        `setPose: no object "${object}"; the objects are ${OBJECTS.map((x) => x.name).join(', ')}`,
      );
    const norm = Math.hypot(...quat);
    if (!(norm > 0) || ![...position, ...quat].every(Number.isFinite))
      throw new WorldError(
        'invalid-input',
        TABLETOP_ID,
        'setPose: position and quaternion must be finite, the quaternion non-zero',
      );
    const qpos = this.data.qpos as Float64Array,
      qvel = this.data.qvel as Float64Array;
    qpos.set(position, ob.q);
    qpos.set(
      quat.map((v) => v / norm),
      ob.q + 3,
    );
    const dof = (ob.q / 7) * 6; // free joints come first: 6 velocities each
    qvel.fill(0, dof, dof + 6);
    this.mj.mj_forward(this.model, this.data);
    this.steps(settleSteps);
  }

  /** The observed state; a closed world rejects (never throws synchronously). */
  observe(): Promise<WorldState> {
    return new Promise((resolve) => resolve(this.state()));
  }

  /**
   * Whether the hand can reach the object: held, or above the table's top within its x–y extent
   * (its centre not below the top, whatever its orientation: a marker lying on its side counts). An
   * object knocked off the table is not, and no skill brings it back.
   */
  private inWorkspace(ob: (typeof OBJECTS)[number], held: (typeof OBJECTS)[number] | undefined): boolean {
    if (held === ob) return true;
    const x = this.q(ob.q),
      y = this.q(ob.q + 1),
      z = this.q(ob.q + 2);
    return (
      Math.abs(x - TABLE.x) <= TABLE.hx && Math.abs(y - TABLE.y) <= TABLE.hy && z >= TABLE.top - WORKSPACE_MARGIN_M
    );
  }

  private state(): WorldState {
    this.ensureOpen();
    const supports = this.supports();
    const held = this.held(supports);
    const load = Math.abs((this.data.actuator_force as Float64Array)[2]!);
    const objects: Record<string, unknown> = {};
    for (const ob of OBJECTS) {
      objects[ob.name] = {
        on: this.restingOn(ob, supports, held),
        mass_kg: ob.mass_kg,
        x: this.q(ob.q),
        y: this.q(ob.q + 1),
        z: this.q(ob.q + 2),
        in_workspace: this.inWorkspace(ob, held),
      };
    }
    for (const s of SURFACES)
      objects[s.name] = { on: 'fixed', mass_kg: 0, x: s.x, y: s.y, z: s.top, in_workspace: true };
    return {
      gripper: {
        width_cm: Math.max(0, Math.round(this.width_m() * 1000) / 10),
        holding: held?.name ?? '',
        load_N: Math.round(load * 100) / 100,
        payload_limit_N: PAYLOAD_LIMIT_N,
      },
      objects,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.data.delete();
    this.model.delete();
  }

  get time_s(): number {
    return (this.data as unknown as { time: number }).time;
  }
}

/** A tool world: no low-level control (its skills step the physics); the task space is the hand's. */
export const TABLETOP_SPEC: WorldSpec = {
  id: TABLETOP_ID,
  backend: 'mujoco',
  description:
    'MuJoCo tabletop: a table, a mug, a marker, a tray, bins and a shelf; a three-axis hand with two fingers',
  observation: { dim: 0, names: [] },
  action: { dim: 0, names: [] },
  taskSpace: { dim: 3, names: ['hand.x', 'hand.y', 'hand.z'] },
  control_dt_s: 0.002,
};

/** The tabletop behind the World interface: a tool world (pick, place, move; gripper and object fields). */
export class TabletopWorld implements World {
  readonly spec = TABLETOP_SPEC;
  readonly tools: Tools;

  private constructor(readonly sim: TabletopSim) {
    this.tools = {
      vocabulary: () => TABLETOP_VOCABULARY,
      reset: (o) => runStoppable(TABLETOP_ID, 'reset', o, (signal) => sim.reset(o.seed, signal)),
      observe: () => sim.observe(),
      execute: (skill, args, o) => sim.execute(skill, args, o),
    };
  }

  static async open(o: Partial<TabletopOptions> = {}): Promise<TabletopWorld> {
    return new TabletopWorld(await TabletopSim.create(o));
  }

  time_s(): number {
    return this.sim.time_s;
  }

  close(): Promise<void> {
    this.sim.close();
    return Promise.resolve();
  }
}
