/**
 * The embedded point-maze worlds: a MuJoCo point mass in an OGBench maze. `PointMazeSim` is the
 * synchronous core (dataset generation steps it a million times); `PointMazeWorld` is the same
 * simulator behind the asynchronous, fallible World interface.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MainModule, MjData, MjModel } from 'mujoco-js';
import { MAZES, type MazeLayout, cellAt, cellCenter, freeCells } from '../../core/world/maze.js';
import { createRng, type Rng } from '../../core/random/rng.js';
import { type CallOptions, type Registry, type ResetOptions, type SensorReading, type StepResult, type World, type WorldSpec, WorldError, guardCall } from '../world.js';
import { loadModel } from './runtime.js';

export const POINTMAZE_IDS = ['pointmaze-medium', 'pointmaze-large', 'pointmaze-giant'] as const;
export type PointMazeId = (typeof POINTMAZE_IDS)[number];

export interface PointMazeOptions {
  /** Standard deviation of the Gaussian noise added to each action (before clipping). */
  readonly actionNoise: number;
  /** Simulation steps per control step. */
  readonly frameSkip: number;
}

export const DEFAULT_POINTMAZE_OPTIONS: PointMazeOptions = { actionNoise: 0.1, frameSkip: 5 };

export function sceneFile(id: string): string {
  return fileURLToPath(new URL(`../../../../assets/scenes/${id}.xml`, import.meta.url));
}

export function layoutOf(id: string): MazeLayout {
  const name = id.replace(/^pointmaze-/, '');
  const layout = (MAZES as Record<string, MazeLayout | undefined>)[name];
  if (!id.startsWith('pointmaze-') || !layout) {
    throw new WorldError('not-found', id, `no such world; the embedded worlds are ${POINTMAZE_IDS.join(', ')}`);
  }
  return layout;
}

export function pointMazeSpec(id: string, opts: PointMazeOptions = DEFAULT_POINTMAZE_OPTIONS, timestep_s = 0.01): WorldSpec {
  const layout = layoutOf(id);
  const rows = layout.grid.length, cols = layout.grid[0]!.length;
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
  static async create(id: string, options: Partial<PointMazeOptions> = {}, xml?: { text: string; source: string }): Promise<PointMazeSim> {
    layoutOf(id);
    let text = xml?.text;
    const source = xml?.source ?? sceneFile(id);
    if (text === undefined) {
      try {
        text = readFileSync(source, 'utf8');
      } catch (e) {
        throw new WorldError('not-found', id, `cannot read scene ${source}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
    }
    const { mj, model, data } = await loadModel(text, source, id);
    if (model.nq !== 2 || model.nu !== 2) {
      const found = `nq=${model.nq} nu=${model.nu}`;
      data.delete();
      model.delete();
      throw new WorldError('invalid-input', id, `${source}: expected a point mass with 2 slide joints and 2 motors, found ${found}`);
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
      throw new WorldError('invalid-input', this.id, `initial state must be 4 finite numbers (x, y, vx, vy), got [${s.join(', ')}]`);
    }
    const cell = cellAt(this.layout, s[0]!, s[1]!);
    if (!cell || this.layout.grid[cell.i]![cell.j] !== 0) {
      throw new WorldError('invalid-input', this.id, `initial position (${s[0]}, ${s[1]}) is not in a free cell`);
    }
    const qpos = this.data.qpos as Float64Array, qvel = this.data.qvel as Float64Array;
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
    const q = this.data.qpos as Float64Array, v = this.data.qvel as Float64Array;
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

export class PointMazeWorld implements World {
  readonly spec: WorldSpec;
  private closed = false;

  private constructor(private readonly sim: PointMazeSim) {
    this.spec = pointMazeSpec(sim.id, sim.options, sim.timestep_s);
  }

  static async open(id: string, options: Partial<PointMazeOptions> = {}): Promise<PointMazeWorld> {
    return new PointMazeWorld(await PointMazeSim.create(id, options));
  }

  /** Every call on a closed world fails the same way (the simulator's memory is gone). */
  private ensureOpen(): void {
    if (this.closed) throw new WorldError('closed', this.spec.id, 'the world was closed; open a new one');
  }

  reset(options: ResetOptions): Promise<StepResult> {
    return guardCall(this.spec.id, 'reset', options, () => {
      this.ensureOpen();
      const s = this.sim.reset(options.seed, options.initialState);
      return Promise.resolve({ observation: Float64Array.from(s), time_s: this.sim.time_s });
    });
  }

  step(action: readonly number[], options?: CallOptions): Promise<StepResult> {
    return guardCall(this.spec.id, 'step', options, () => {
      this.ensureOpen();
      if (action.length !== 2 || action.some((a) => !Number.isFinite(a))) {
        throw new WorldError('invalid-input', this.spec.id, `action must be 2 finite numbers in [-1, 1], got [${action.join(', ')}]`);
      }
      const s = this.sim.step(action[0]!, action[1]!);
      return Promise.resolve({ observation: Float64Array.from(s), time_s: this.sim.time_s });
    });
  }

  project(observation: ArrayLike<number>): Float64Array {
    return Float64Array.of(observation[0]!, observation[1]!);
  }

  sensors(options?: CallOptions): Promise<Readonly<Record<string, SensorReading>>> {
    return guardCall(this.spec.id, 'sensors', options, () => {
      this.ensureOpen();
      const [x, y, vx, vy] = this.sim.state;
      const time_s = this.sim.time_s;
      const cell = cellAt(this.sim.layout, x!, y!);
      return Promise.resolve({
        'agent.position': { value: [x!, y!], unit: 'm', time_s },
        'agent.velocity': { value: [vx!, vy!], unit: 'm/s', time_s },
        'agent.cell': { value: cell ? [cell.i, cell.j] : [-1, -1], time_s },
      });
    });
  }

  registry(): Registry {
    return {
      sensors: { 'agent.position': { unit: 'm', dim: 2 }, 'agent.velocity': { unit: 'm/s', dim: 2 }, 'agent.cell': { dim: 2 } },
      fields: { 'agent.x': 'number', 'agent.y': 'number', 'agent.vx': 'number', 'agent.vy': 'number', 'agent.cell': 'vector' },
      objects: ['agent'],
    };
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
