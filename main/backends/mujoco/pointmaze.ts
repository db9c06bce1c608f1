/**
 * The embedded point-maze worlds: a MuJoCo point mass in an OGBench maze. `PointMazeSim` is the
 * synchronous core (dataset generation steps it a million times); `PointMazeWorld` is the same
 * simulator behind the asynchronous, fallible World interface.
 */
import { readFileSync } from 'node:fs';
import type { MainModule, MjData, MjModel } from 'mujoco-js';
import { MAZES, type MazeLayout, cellAt, cellCenter, freeCells, mazeMap } from '../../core/world/maze.js';
import { createRng, type Rng } from '../../core/random/rng.js';
import { type NavState, type Navigation, type World, WorldError, type WorldSpec } from '../../core/world/world.js';
import { guardCall } from '../world.js';
import { assetPath } from '../../platform/paths.js';
import { MAZE_WORLDS } from '../../contract/defaults.js';
import { loadModel } from './runtime.js';
import type { DataAgent } from '../../core/data/agent.js';
import { POINT_AGENT } from '../../core/data/point-agent.js';

export interface PointMazeOptions {
  /** Standard deviation of the Gaussian noise added to each action (before clipping). */
  readonly actionNoise: number;
  /** Simulation steps per control step. */
  readonly frameSkip: number;
}

const DEFAULT_POINTMAZE_OPTIONS: PointMazeOptions = { actionNoise: 0.1, frameSkip: 5 };

export function sceneFile(id: string): string {
  return assetPath(`scenes/${id}.xml`);
}

export function layoutOf(id: string): MazeLayout {
  const name = id.replace(/^pointmaze-/, '');
  const layout = (MAZES as Record<string, MazeLayout | undefined>)[name];
  if (!id.startsWith('pointmaze-') || !layout) {
    throw new WorldError('not-found', id, `no such world; the embedded worlds are ${MAZE_WORLDS.join(', ')}`);
  }
  return layout;
}

export function pointMazeSpec(
  id: string,
  opts: PointMazeOptions = DEFAULT_POINTMAZE_OPTIONS,
  timestep_s = 0.01,
): WorldSpec {
  const layout = layoutOf(id);
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  return {
    id,
    backend: 'mujoco',
    description: `point mass in the OGBench ${layout.id} maze (${rows}×${cols} cells of ${layout.unit_m} m, ${freeCells(layout).length} free)`,
    observation: { dim: 4, names: ['x', 'y', 'vx', 'vy'] },
    action: { dim: 2, names: ['fx', 'fy'], low: [-1, -1], high: [1, 1] },
    taskSpace: { dim: 2, names: ['x', 'y'] },
    control_dt_s: timestep_s * opts.frameSkip,
  };
}

/** Synchronous simulator: no promises in the inner loop. */
export class PointMazeSim {
  readonly layout: MazeLayout;
  /** How the dataset generators drive this body. */
  readonly agent: DataAgent = POINT_AGENT;
  readonly state = new Float64Array(4);
  private rng: Rng = createRng(0);
  private closed = false;
  private time = 0;

  private constructor(
    readonly id: string,
    private readonly mj: MainModule,
    private readonly model: MjModel,
    private readonly data: MjData,
    readonly options: PointMazeOptions,
  ) {
    this.layout = layoutOf(id);
  }

  /** Loads the scene file from assets/scenes (or the given MJCF text). */
  static async create(
    id: string,
    options: Partial<PointMazeOptions> = {},
    xml?: { text: string; source: string },
  ): Promise<PointMazeSim> {
    layoutOf(id);
    let text = xml?.text;
    const source = xml?.source ?? sceneFile(id);
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
    const { mj, model, data } = await loadModel(text, source, id);
    if (model.nq !== 2 || model.nu !== 2) {
      const found = `nq=${model.nq} nu=${model.nu}`;
      data.delete();
      model.delete();
      throw new WorldError(
        'invalid-input',
        id,
        `${source}: expected a point mass with 2 slide joints and 2 motors, found ${found}`,
      );
    }
    const opts = { ...DEFAULT_POINTMAZE_OPTIONS, ...options };
    if (!(opts.actionNoise >= 0) || !Number.isInteger(opts.frameSkip) || opts.frameSkip < 1) {
      throw new WorldError('invalid-input', id, `options: actionNoise must be ≥ 0 and frameSkip a positive integer`);
    }
    return new PointMazeSim(id, mj, model, data, opts);
  }

  get timestep_s(): number {
    return this.model.opt.timestep;
  }

  get time_s(): number {
    return this.time;
  }

  /** Starts at `state` (x, y, vx, vy), or at a random free cell centre with a little noise. */
  reset(seed: number, state?: readonly number[]): Float64Array {
    this.ensureOpen();
    this.rng = createRng(seed);
    this.mj.mj_resetData(this.model, this.data);
    let s = state;
    if (s === undefined) {
      const c = cellCenter(this.layout, this.rng.pick(freeCells(this.layout)));
      s = [c.x + this.gauss() * 0.1, c.y + this.gauss() * 0.1, 0, 0];
    }
    if (s.length !== 4 || s.some((v) => !Number.isFinite(v))) {
      throw new WorldError(
        'invalid-input',
        this.id,
        `initial state must be 4 finite numbers (x, y, vx, vy), got [${s.join(', ')}]`,
      );
    }
    const cell = cellAt(this.layout, s[0]!, s[1]!);
    if (!cell || this.layout.grid[cell.i]![cell.j] !== 0) {
      throw new WorldError('invalid-input', this.id, `initial position (${s[0]}, ${s[1]}) is not in a free cell`);
    }
    const qpos = this.data.qpos as Float64Array,
      qvel = this.data.qvel as Float64Array;
    qpos[0] = s[0]!;
    qpos[1] = s[1]!;
    qvel[0] = s[2]!;
    qvel[1] = s[3]!;
    this.mj.mj_forward(this.model, this.data);
    this.time = 0;
    this.read();
    return this.state;
  }

  /** One control step: noisy, clipped action held for frameSkip simulation steps. */
  step(ax: number, ay: number): Float64Array {
    const n = this.options.actionNoise;
    const ctrl = this.data.ctrl as Float64Array;
    ctrl[0] = clip(ax + (n > 0 ? n * this.gauss() : 0));
    ctrl[1] = clip(ay + (n > 0 ? n * this.gauss() : 0));
    for (let k = 0; k < this.options.frameSkip; k++) this.mj.mj_step(this.model, this.data);
    this.time += this.options.frameSkip * this.model.opt.timestep;
    this.read();
    return this.state;
  }

  /** One control step with the action as a vector (the generators' form). */
  act(action: ArrayLike<number>): Float64Array {
    return this.step(action[0]!, action[1]!);
  }

  /** Raw simulation steps with a fixed control (for the benchmark). */
  rawSteps(n: number, ax: number, ay: number): void {
    const ctrl = this.data.ctrl as Float64Array;
    ctrl[0] = ax;
    ctrl[1] = ay;
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
    this.state[0] = q[0]!;
    this.state[1] = q[1]!;
    this.state[2] = v[0]!;
    this.state[3] = v[1]!;
    if (!Number.isFinite(this.state[0]) || !Number.isFinite(this.state[1])) {
      throw new WorldError('failed', this.id, 'the simulation diverged (non-finite state)');
    }
  }

  private spare: number | null = null;

  /** Standard normal from the seeded generator (Box–Muller, pairs cached). */
  private gauss(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.rng.next();
    const v = this.rng.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}

function clip(x: number): number {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}

/** The observation of the point mass at rest at (x, y): (x, y, vx = 0, vy = 0). */
export const pointMazeRest = (x: number, y: number): Float32Array => Float32Array.of(x, y, 0, 0);

/** A point maze behind the World interface: a navigation world (pose x, y; force actions in [-1, 1]). */
export class PointMazeWorld implements World {
  readonly spec: WorldSpec;
  readonly navigation: Navigation;
  private closed = false;

  private constructor(private readonly sim: PointMazeSim) {
    this.spec = pointMazeSpec(sim.id, sim.options, sim.timestep_s);
    const id = sim.id;
    const map = mazeMap(sim.layout, id);
    const state = (): NavState => {
      const s = this.sim.state;
      return { observation: Float64Array.from(s), pose: { x: s[0]!, y: s[1]! }, time_s: this.sim.time_s };
    };
    this.navigation = {
      map,
      restObservation: pointMazeRest,
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
          this.sim.reset(o.seed, o.start === undefined ? undefined : [o.start[0], o.start[1], 0, 0]);
          return Promise.resolve(state());
        }),
      step: (action, o) =>
        guardCall(id, 'step', o, () => {
          this.ensureOpen();
          const ax = action[0],
            ay = action[1];
          if (action.length !== 2 || !Number.isFinite(ax) || !Number.isFinite(ay)) {
            throw new WorldError(
              'invalid-input',
              id,
              `action must be 2 finite numbers in [-1, 1], got [${Array.from(action).join(', ')}]`,
            );
          }
          this.sim.step(ax!, ay!);
          return Promise.resolve(state());
        }),
    };
  }

  static async open(id: string, options: Partial<PointMazeOptions> = {}): Promise<PointMazeWorld> {
    return new PointMazeWorld(await PointMazeSim.create(id, options));
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
