/**
 * The world catalogue: every world Witness can open, by id, with what is known of it before it is
 * opened (its spec, its map, its vocabulary, the regions shipped for it). This is the one place that
 * names the concrete world classes; workflows ask it for a world and use the interfaces of
 * core/world/world.ts. Ids: the embedded MuJoCo worlds by name (`pointmaze-medium`, `tabletop`, …),
 * a ROS 2 robot or simulator as `ros2:<configuration file>`.
 *
 * It is also the only module of main/backends the application layer may import (the layer table in
 * eslint.config.js): besides the worlds it offers what the workflows need of a backend without
 * naming one (a scene's compile check, the ROS 2 configuration, availability and probe, the reading
 * of a recorded message's field). What loads a simulator or a ROS 2 connection is imported when it
 * is first used: MuJoCo's WebAssembly module on the first simulation or scene check, the ROS 2
 * world and its probe on the first connection.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { World, WorldMap, WorldSpec } from '../core/world/world.js';
import { WorldError } from '../core/world/world.js';
import { WitnessError } from '../contract/errors.js';
import { type WorldFault, withFaults } from '../core/world/faults.js';
import type { Vocabulary } from '../core/loop/vocabulary.js';
import type { MazeStepper } from '../core/data/generators.js';
import { type MazeLayout, mazeMap } from '../core/world/maze.js';
import { assetPath } from '../platform/paths.js';
import { ANT_WORLDS, EMBEDDED_WORLDS, MAZE_WORLDS } from '../contract/defaults.js';
import { PointMazeSim, PointMazeWorld, layoutOf, pointMazeRest, pointMazeSpec, sceneFile } from './mujoco/pointmaze.js';
import { AntMazeSim, AntMazeWorld, antLayoutOf, antMazeSpec, antSceneFile } from './mujoco/antmaze.js';
import { antRestObservation } from '../core/data/ant-agent.js';
import { TABLETOP_ID, TABLETOP_SPEC, TABLETOP_VOCABULARY, TabletopWorld } from './mujoco/tabletop.js';
import { type Ros2Config, readRos2Config } from './ros2/config.js';
import { ros2Map, ros2Rest, ros2Spec, ros2Vocabulary } from './ros2/spec.js';
import type { LoaderDeps, Ros2Availability } from './ros2/rclnodejs-loader.js';
import type { ProbeReport } from './ros2/probe.js';

export { type FieldSpec, type Ros2Config, fieldType, readRos2Config } from './ros2/config.js';
export { readField } from './ros2/message-path.js';
export {
  type LoaderDeps,
  type Ros2Availability,
  Ros2Unavailable,
  describeAvailability,
  loadRclnodejs,
} from './ros2/rclnodejs-loader.js';
export type { ProbeReport } from './ros2/probe.js';

/** 'maze': a point mass in a maze; 'antmaze': the Ant in a maze (joint-level control, 29-D state). */
type WorldKind = 'maze' | 'antmaze' | 'tabletop' | 'ros2';

/** A world as the catalogue knows it, without opening it. */
export interface WorldEntry {
  readonly id: string;
  readonly title: string;
  readonly kind: WorldKind;
  readonly spec: WorldSpec;
  /** Navigation worlds: the free space (start checks, random starts, pictures). */
  readonly map?: WorldMap;
  /** Maze worlds (point mass and Ant): the layout (dataset generators, benchmark tasks, pictures). */
  readonly layout?: MazeLayout;
  /** What tool files and specifications may name (tool worlds; propositions of ROS 2 worlds). */
  readonly vocabulary?: Vocabulary;
  /** The regions file shipped for the world (assets/regions/<id>.json), if any. */
  readonly regionsFile: string | null;
  /** Navigation worlds: the observation of the robot at rest at (x, y) (what ψ embeds for a position). */
  readonly restObservation?: (x: number, y: number) => Float32Array;
  /** Opens the world (a simulator, or a connection to the robot). */
  open(o?: OpenOptions): Promise<World>;
  /** A robot starts a mission where it is (its pose), not where a simulator would place it. */
  readonly startsWhereItIs?: boolean;
  /** Maze worlds: the synchronous simulator the dataset generators step a million times. */
  stepper?(): Promise<MazeStepper & { close(): void }>;
}

export interface OpenOptions {
  /** How rclnodejs is found (tests substitute a simulated ROS 2 graph). */
  readonly ros2?: LoaderDeps;
  /** Simulators only: perceive object positions exactly (deterministic demos). */
  readonly perfectPerception?: boolean;
  /** Tests only: faults the opened world injects on cue (core/world/faults.ts). */
  readonly faults?: readonly WorldFault[];
}

export { EMBEDDED_WORLDS };

const shippedRegions = (id: string): string | null =>
  existsSync(assetPath(`regions/${id}.json`)) ? assetPath(`regions/${id}.json`) : null;

function mazeEntry(id: string): WorldEntry {
  const layout = layoutOf(id);
  return {
    id,
    kind: 'maze',
    title: `Point maze (${id.replace('pointmaze-', '')})`,
    spec: pointMazeSpec(id),
    layout,
    map: mazeMap(layout, id),
    regionsFile: shippedRegions(id),
    restObservation: pointMazeRest,
    open: () => PointMazeWorld.open(id),
    stepper: () => PointMazeSim.create(id),
  };
}

function antEntry(id: string): WorldEntry {
  const layout = antLayoutOf(id);
  return {
    id,
    kind: 'antmaze',
    title: `Ant maze (${id.replace('antmaze-', '')})`,
    spec: antMazeSpec(id),
    layout,
    map: mazeMap(layout, id),
    regionsFile: shippedRegions(id),
    restObservation: antRestObservation,
    open: () => AntMazeWorld.open(id),
    stepper: () => AntMazeSim.create(id),
  };
}

function tabletopEntry(): WorldEntry {
  return {
    id: TABLETOP_ID,
    kind: 'tabletop',
    title: 'Tabletop (pick and place)',
    vocabulary: TABLETOP_VOCABULARY,
    regionsFile: null,
    spec: TABLETOP_SPEC,
    open: (o = {}) =>
      TabletopWorld.open(o.perfectPerception === true ? { heightNoise_m: 0, perceptionNoise_m: 0 } : {}),
  };
}

function ros2Entry(id: string, file: string): WorldEntry {
  const config: Ros2Config = readRos2Config(file);
  const n = config.navigation;
  return {
    id,
    kind: 'ros2',
    title: `ROS 2: ${config.id}`,
    spec: ros2Spec(config),
    regionsFile: config.regionsFile,
    vocabulary: ros2Vocabulary(config),
    startsWhereItIs: true,
    ...(n !== undefined ? { map: ros2Map(config.id, n), restObservation: ros2Rest(n) } : {}),
    open: async (o = {}) => {
      const { openRos2World } = await import('./ros2/world.js');
      return openRos2World(config, o.ros2 !== undefined ? { loader: o.ros2 } : {});
    },
  };
}

/**
 * The catalogue entry of a world id; an unknown id is a WorldError 'not-found' naming the worlds
 * there are. `ros2:<file>` reads and checks the configuration (an InputError names its problem).
 */
export function worldEntry(id: string, base = process.cwd()): WorldEntry {
  const e = catalogueEntry(id, base);
  return { ...e, open: async (o = {}) => withFaults(await e.open(o), o.faults ?? []) };
}

/** The kinds of world: which ids each answers, and how its entry is made (none is opened here). */
const WORLD_KINDS: readonly {
  readonly kind: WorldKind;
  owns(id: string): boolean;
  entry(id: string, base: string): WorldEntry;
}[] = [
  { kind: 'maze', owns: (id) => (MAZE_WORLDS as readonly string[]).includes(id), entry: mazeEntry },
  { kind: 'antmaze', owns: (id) => (ANT_WORLDS as readonly string[]).includes(id), entry: antEntry },
  { kind: 'tabletop', owns: (id) => id === TABLETOP_ID, entry: tabletopEntry },
  { kind: 'ros2', owns: (id) => id.startsWith('ros2:'), entry: ros2EntryOf },
];

function catalogueEntry(id: string, base: string): WorldEntry {
  const kind = WORLD_KINDS.find((k) => k.owns(id));
  if (kind !== undefined) return kind.entry(id, base);
  throw new WorldError(
    'not-found',
    id,
    `no such world; the embedded worlds are ${EMBEDDED_WORLDS.join(', ')} (a ROS 2 robot: ros2:<configuration file>)`,
  );
}

/** `ros2:<configuration file>`, the file relative to `base`. */
function ros2EntryOf(id: string, base: string): WorldEntry {
  const file = id.slice('ros2:'.length);
  if (file === '')
    throw new WorldError(
      'not-found',
      id,
      'ros2: needs a configuration file, e.g. ros2:assets/ros2/nav2-mobile-manipulator.json',
    );
  return ros2Entry(id, path.resolve(base, file));
}

/** The shipped MJCF scene of a maze world (point mass or Ant), whether or not it exists yet. */
export function mazeSceneFile(id: string): string {
  return id.startsWith('antmaze-') ? antSceneFile(id) : sceneFile(id);
}

/** Compiles an MJCF scene (MuJoCo loads on first use) and says what it holds, in words. */
export async function compileScene(text: string, file: string): Promise<string> {
  const { loadModel } = await import('./mujoco/runtime.js');
  const { model, data } = await loadModel(text, file, 'scene');
  const found = `${model.nq} position coordinates, ${model.nu} actuators, ${model.ngeom} geoms`;
  data.delete();
  model.delete();
  return found;
}

/**
 * Connects to the robot of a configuration through an available ROS 2 and probes every server,
 * topic, field and the pose within `bound_s`; the connection is closed after. A configuration that
 * does not fit this installation (an interface rclnodejs has no code for) is a 'negative' WitnessError.
 */
export async function probeRos2Robot(
  config: Ros2Config,
  a: Extract<Ros2Availability, { ok: true }>,
  bound_s: number,
): Promise<ProbeReport> {
  const { Ros2World } = await import('./ros2/world.js');
  const { probeRos2 } = await import('./ros2/probe.js');
  let world;
  try {
    world = await Ros2World.open(config, a.rcl, { distro: a.distro });
  } catch (e) {
    if (e instanceof WorldError) throw new WitnessError('negative', e.message);
    throw e;
  }
  try {
    return await probeRos2(world, bound_s);
  } finally {
    await world.close();
  }
}
