/**
 * The embedded Ant-maze worlds: the MuJoCo Ant (core/world/ant-mjcf.ts) in an OGBench maze.
 * `AntMazeSim` is the synchronous core the dataset generators step a million times; `AntMazeWorld`
 * is the same simulator behind the asynchronous, fallible World interface.
 */
import { readFileSync } from 'node:fs';
import type { MainModule, MjData, MjModel } from 'mujoco-js';
import { MAZES, type MazeLayout, cellAt, cellCenter, freeCells, mazeMap } from '../../core/world/maze.js';
import { createRng, type Rng } from '../../core/random/rng.js';
import { gaussian } from '../../core/random/gaussian.js';
import { type NavState, type Navigation, type World, WorldError, type WorldSpec } from '../../core/world/world.js';
import { guardCall } from '../world.js';
import { ANT_ACTUATORS } from '../../core/world/ant-mjcf.js';
import { ANKLE_RANGE, ANT_AGENT, ANT_OBS_DIM, antRestObservation, antRestPose } from '../../core/data/ant-agent.js';
import { antUprightness, antYaw } from '../../core/data/ant-gait.js';
import type { DataAgent } from '../../core/data/agent.js';
import { ANT_WORLDS } from '../../contract/defaults.js';
import { assetPath } from '../../platform/paths.js';
import { loadModel } from './runtime.js';

export interface AntMazeOptions {
  /** Standard deviation of Gaussian noise the world adds to each action (before clipping); 0 as in OGBench. */
  readonly actionNoise: number;
  /** Simulation steps per control step. */
  readonly frameSkip: number;
}

const DEFAULT_ANTMAZE_OPTIONS: AntMazeOptions = { actionNoise: 0, frameSkip: 5 };

export const antSceneFile = (id: string): string => assetPath(`scenes/${id}.xml`);

export function antLayoutOf(id: string): MazeLayout {
  const layout = (MAZES as Record<string, MazeLayout | undefined>)[id.replace(/^antmaze-/, '')];
  if (!id.startsWith('antmaze-') || !layout)
    throw new WorldError('not-found', id, `no such world; the Ant mazes are ${ANT_WORLDS.join(', ')}`);
  return layout;
}

const JOINT_NAMES = ['hip_1', 'ankle_1', 'hip_2', 'ankle_2', 'hip_3', 'ankle_3', 'hip_4', 'ankle_4'];

export function antMazeSpec(id: string, opts: AntMazeOptions = DEFAULT_ANTMAZE_OPTIONS, timestep_s = 0.01): WorldSpec {
  const layout = antLayoutOf(id);
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const qpos = ['x', 'y', 'z', 'qw', 'qx', 'qy', 'qz', ...JOINT_NAMES];
  const qvel = ['vx', 'vy', 'vz', 'wx', 'wy', 'wz', ...JOINT_NAMES.map((j) => `${j}_rate`)];
  return {
    id,
    backend: 'mujoco',
    description: `Ant quadruped in the OGBench ${layout.id} maze (${rows}×${cols} cells of ${layout.unit_m} m, ${freeCells(layout).length} free)`,
    observation: { dim: ANT_OBS_DIM, names: [...qpos, ...qvel] },
    action: {
      dim: 8,
      names: [...ANT_ACTUATORS],
      low: new Array<number>(8).fill(-1),
      high: new Array<number>(8).fill(1),
    },
    taskSpace: { dim: 2, names: ['x', 'y'] },
    control_dt_s: timestep_s * opts.frameSkip,
  };
}

/** Synchronous simulator: no promises in the inner loop. */
export class AntMazeSim {
  readonly agent: DataAgent = ANT_AGENT;
  readonly state = new Float64Array(ANT_OBS_DIM);
  private rng: Rng = createRng(0);
  private gauss = gaussian(this.rng);
  private closed = false;
  private time = 0;

  private constructor(
    readonly id: string,
    private readonly mj: MainModule,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly options: AntMazeOptions,
    /** The maze's layout; tests and benchmarks give scenes of their own (an open arena). */
    readonly layout: MazeLayout,
  ) {}

  /** Loads the scene file from assets/scenes (or the given MJCF text). */
  static async create(
    id: string,
    options: Partial<AntMazeOptions> = {},
    xml?: { text: string; source: string; layout?: MazeLayout },
  ): Promise<AntMazeSim> {
    const layout = xml?.layout ?? antLayoutOf(id);
    const source = xml?.source ?? antSceneFile(id);
    let text = xml?.text;
    if (text === undefined) {
      try {
        text = readFileSync(source, 'utf8');
      } catch (e) {
        throw new WorldError(
          'not-found',
          id,
          `cannot read scene ${source}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        );
      }
    }
    const opts = { ...DEFAULT_ANTMAZE_OPTIONS, ...options };
    if (!(opts.actionNoise >= 0) || !Number.isInteger(opts.frameSkip) || opts.frameSkip < 1) {
      throw new WorldError('invalid-input', id, 'options: actionNoise must be ≥ 0 and frameSkip a positive integer');
    }
    const { mj, model, data } = await loadModel(text, source, id);
    if (model.nq !== 15 || model.nv !== 14 || model.nu !== 8) {
      const found = `nq=${model.nq} nv=${model.nv} nu=${model.nu}`;
      data.delete();
      model.delete();
      throw new WorldError(
        'invalid-input',
        id,
        `${source}: expected an Ant (a free joint, 8 hinges, 8 motors: nq=15 nv=14 nu=8), found ${found}`,
      );
    }
    return new AntMazeSim(id, mj, model, data, opts, layout);
  }

  get timestep_s(): number {
    return this.model.opt.timestep;
  }

  /** Geoms in the scene (the walls merged into boxes count one each). */
  get geoms(): number {
    return this.model.ngeom;
  }

  get time_s(): number {
    return this.time;
  }

  /**
   * Starts from `state`: 2 values (x, y) place the Ant standing at rest there, heading +x; 29 values
   * are a whole observation (qpos, qvel). Without one, a random free cell centre (±0.1 m), a random
   * heading and joints jittered by ±0.1 rad, so recorded episodes face every way.
   */
  reset(seed: number, state?: readonly number[]): Float64Array {
    this.ensureOpen();
    this.rng = createRng(seed);
    this.gauss = gaussian(this.rng);
    this.mj.mj_resetData(this.model, this.data);
    let s: ArrayLike<number>;
    if (state === undefined) {
      const c = cellCenter(this.layout, this.rng.pick(freeCells(this.layout)));
      const rest: Float64Array = antRestPose(
        c.x + this.gauss() * 0.1,
        c.y + this.gauss() * 0.1,
        (this.rng.next() * 2 - 1) * Math.PI,
      );
      for (let j = 7; j < 15; j++) {
        const v = rest[j]! + (this.rng.next() * 2 - 1) * 0.1;
        // Hips (odd j) jittered about straight; ankles (even j) kept inside their range, whose stop rest touches.
        rest[j] =
          j % 2 === 1 ? v : Math.sign(rest[j]!) * Math.min(ANKLE_RANGE[1], Math.max(ANKLE_RANGE[0], Math.abs(v)));
      }
      s = rest;
    } else if (state.length === 2) s = antRestPose(state[0]!, state[1]!);
    else s = state;
    if ((s.length !== 2 && s.length !== ANT_OBS_DIM) || Array.from(s).some((v) => !Number.isFinite(v))) {
      throw new WorldError(
        'invalid-input',
        this.id,
        `initial state must be 2 finite numbers (x, y) or ${ANT_OBS_DIM} (qpos, qvel), got ${s.length} [${Array.from(s).slice(0, 6).join(', ')}${s.length > 6 ? ', …' : ''}]`,
      );
    }
    const cell = cellAt(this.layout, s[0]!, s[1]!);
    if (!cell || this.layout.grid[cell.i]![cell.j] !== 0) {
      throw new WorldError('invalid-input', this.id, `initial position (${s[0]}, ${s[1]}) is not in a free cell`);
    }
    const qpos = this.data.qpos as Float64Array,
      qvel = this.data.qvel as Float64Array;
    for (let i = 0; i < 15; i++) qpos[i] = s[i]!;
    for (let i = 0; i < 14; i++) qvel[i] = s[15 + i]!;
    this.mj.mj_forward(this.model, this.data);
    this.time = 0;
    this.read();
    return this.state;
  }

  /** One control step: the noisy, clipped 8-D action held for frameSkip simulation steps. */
  act(action: ArrayLike<number>): Float64Array {
    const n = this.options.actionNoise;
    const ctrl = this.data.ctrl as Float64Array;
    for (let k = 0; k < 8; k++) {
      const a = action[k]! + (n > 0 ? n * this.gauss() : 0);
      ctrl[k] = a < -1 ? -1 : a > 1 ? 1 : a;
    }
    for (let k = 0; k < this.options.frameSkip; k++) this.mj.mj_step(this.model, this.data);
    this.time += this.options.frameSkip * this.model.opt.timestep;
    this.read();
    return this.state;
  }

  /** Raw simulation steps with a fixed control (for the benchmark). */
  rawSteps(n: number, control: ArrayLike<number>): void {
    const ctrl = this.data.ctrl as Float64Array;
    for (let k = 0; k < 8; k++) ctrl[k] = control[k]!;
    for (let k = 0; k < n; k++) this.mj.mj_step(this.model, this.data);
    this.read();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.data.delete();
    this.model.delete();
  }

  private ensureOpen(): void {
    if (this.closed) throw new WorldError('closed', this.id, 'the simulator was closed');
  }

  private read(): void {
    // mujoco-js types these views as any; they are Float64Arrays over the WASM heap.
    const q = this.data.qpos as Float64Array,
      v = this.data.qvel as Float64Array;
    for (let i = 0; i < 15; i++) this.state[i] = q[i]!;
    for (let i = 0; i < 14; i++) this.state[15 + i] = v[i]!;
    if (!Number.isFinite(this.state[0]) || !Number.isFinite(this.state[1]) || !Number.isFinite(this.state[2])) {
      throw new WorldError('failed', this.id, 'the simulation diverged (non-finite state)');
    }
  }
}

/**
 * An Ant maze behind the World interface: a navigation world (pose x, y and heading; 8 joint
 * torques in [-1, 1]). A fall is not an error here: the Ant on its back is a state the world goes
 * on reporting (its observation shows it), for the mission to judge.
 */
export class AntMazeWorld implements World {
  readonly spec: WorldSpec;
  readonly navigation: Navigation;
  private closed = false;

  private constructor(private readonly sim: AntMazeSim) {
    this.spec = antMazeSpec(sim.id, sim.options, sim.timestep_s);
    const id = sim.id;
    const map = mazeMap(sim.layout, id);
    const state = (): NavState => {
      const s = this.sim.state;
      return {
        observation: Float64Array.from(s),
        pose: { x: s[0]!, y: s[1]!, yaw: antYaw(s) },
        time_s: this.sim.time_s,
      };
    };
    this.navigation = {
      map,
      restObservation: antRestObservation,
      observe: (o) =>
        guardCall(id, 'observe', o, () => {
          this.ensureOpen();
          return Promise.resolve(state());
        }),
      reset: (o) =>
        guardCall(id, 'reset', o, () => {
          this.ensureOpen();
          if (o.start !== undefined) {
            const why = map.blocked(o.start[0], o.start[1]);
            if (why !== null)
              throw new WorldError('invalid-input', id, `start (${o.start[0]}, ${o.start[1]}) is ${why}`);
          }
          this.sim.reset(o.seed, o.start === undefined ? undefined : [o.start[0], o.start[1]]);
          return Promise.resolve(state());
        }),
      step: (action, o) =>
        guardCall(id, 'step', o, () => {
          this.ensureOpen();
          if (action.length !== 8 || Array.from(action).some((v) => !Number.isFinite(v))) {
            throw new WorldError(
              'invalid-input',
              id,
              `action must be 8 finite numbers in [-1, 1] (${ANT_ACTUATORS.join(', ')}), got ${action.length} [${Array.from(action).slice(0, 8).join(', ')}]`,
            );
          }
          this.sim.act(action);
          return Promise.resolve(state());
        }),
      fallen: (s) => {
        const up = antUprightness(s.observation);
        return up < 0 ? `the Ant is on its back (torso up axis z = ${up.toFixed(2)})` : null;
      },
    };
  }

  static async open(id: string, options: Partial<AntMazeOptions> = {}): Promise<AntMazeWorld> {
    return new AntMazeWorld(await AntMazeSim.create(id, options));
  }

  /** Every call on a closed world fails the same way (the simulator's memory is gone). */
  private ensureOpen(): void {
    if (this.closed) throw new WorldError('closed', this.spec.id, 'the world was closed; open a new one');
  }

  time_s(): number {
    return this.sim.time_s;
  }

  close(): Promise<void> {
    this.closed = true;
    this.sim.close();
    return Promise.resolve();
  }
}
