/**
 * The worlds workflow: list the embedded worlds, check a layout or a scene before using it, draw a
 * world (with a dataset's trajectories or a graph), regenerate the shipped scenes, the worlds the
 * console offers with their model bundles, and the ROS 2 backend: availability and `ros2 check`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import {
  ANT_WORLDS,
  type DatasetKind,
  MAZE_WORLDS,
  MISSION_WORLDS,
  shippedBundleNames,
  trainedRegime,
} from '../contract/defaults.js';
import type { Ros2Status, WorldInfo } from '../contract/api.js';
import { MAZES, freeCells, validateLayout } from '../core/world/maze.js';
import { pointMazeMjcf } from '../core/world/mjcf.js';
import { antMazeMjcf } from '../core/world/ant-mjcf.js';
import { mazeSvg } from '../core/world/svg.js';
import {
  type LoaderDeps,
  type ProbeReport,
  type Ros2Availability,
  type Ros2Config,
  Ros2Unavailable,
  compileScene,
  describeAvailability,
  loadRclnodejs,
  mazeSceneFile,
  probeRos2Robot,
  readRos2Config,
  worldEntry,
} from '../backends/catalogue.js';
import { readDataset } from '../services/datasets/format.js';
import { readGraph } from '../services/graph/store.js';
import { peekManifest } from '../services/models/bundle.js';
import { readLayoutFile } from '../services/worlds/layout-file.js';
import { writeFileAtomic } from '../platform/files.js';
import { INPUT, InputRefused, readFailure, readInputText, readInputTextSync } from '../platform/input-files.js';
import { assetPath, shippedModelsDir } from '../platform/paths.js';
import type { Session } from './session.js';
import { Workspace } from '../services/editor/workspace.js';

export interface WorldRow {
  readonly id: string;
  readonly backend: string;
  readonly description: string;
  readonly cells: [number, number];
  readonly freeCells: number;
  readonly observation: readonly string[];
  readonly action: readonly string[];
  readonly control_dt_s: number;
  readonly scene: string;
}

/** The embedded mazes (point mass, then Ant), as `witness world ls` lists them. */
export function mazeWorlds(): WorldRow[] {
  return [...MAZE_WORLDS, ...ANT_WORLDS].map((id) => {
    const e = worldEntry(id);
    const layout = e.layout!;
    return {
      id,
      backend: e.spec.backend,
      description: e.spec.description,
      cells: [layout.grid.length, layout.grid[0]!.length],
      freeCells: freeCells(layout).length,
      observation: e.spec.observation.names,
      action: e.spec.action.names,
      control_dt_s: e.spec.control_dt_s,
      scene: mazeSceneFile(id),
    };
  });
}

/** Checks a maze layout (.json) or an MJCF scene (.xml); returns what it found, in words. */
export async function checkWorldFile(file: string): Promise<string> {
  if (file.toLowerCase().endsWith('.xml')) {
    let text: string;
    try {
      text = await readInputText(file, INPUT.scene);
    } catch (e) {
      if (e instanceof InputRefused) throw e;
      throw new WitnessError(
        readFailure(e) === 'ENOENT' ? 'not-found' : 'invalid-input',
        `cannot read ${file}: ${readFailure(e)}`,
        { file },
      );
    }
    return `${file}: MJCF compiles: ${await compileScene(text, file)}`;
  }
  const layout = await readLayoutFile(file);
  return `${file}: layout ${layout.id}, ${layout.grid.length}×${layout.grid[0]!.length} cells, ${freeCells(layout).length} free, all connected`;
}

/** Draws a world (an id, or a layout .json) from above as SVG, optionally with a dataset's trajectories or a graph. */
export async function renderWorld(id: string, o: { out: string; data?: string; graph?: string }): Promise<void> {
  const isFile = id.toLowerCase().endsWith('.json');
  const layout = isFile ? await readLayoutFile(id) : worldEntry(id).layout;
  if (layout === undefined)
    throw new WitnessError('invalid-input', `${id} is not a maze world: there is no layout to draw`);
  const data = o.data !== undefined ? await readDataset(o.data, isFile ? {} : { expectWorld: id }) : undefined;
  const g = o.graph !== undefined ? await readGraph(o.graph, isFile ? {} : { world: id }) : undefined;
  const svg = mazeSvg(
    layout,
    `${id}${o.data ? ` — ${o.data}` : ''}`,
    data,
    g ? { positions: g.positions, edgeU: g.graph.edgeU, edgeV: g.graph.edgeV } : undefined,
  );
  await writeFileAtomic(o.out, svg);
}

/**
 * The MJCF scenes of assets/scenes from the maze layouts (point mass, then Ant): written, or (check) the files that
 * differ.
 */
export async function mazeScenes(check: boolean): Promise<{ written: string[]; stale: string[] }> {
  const written: string[] = [],
    stale: string[] = [];
  const scenes = Object.entries(MAZES).flatMap(([name, layout]) => [
    { layout, file: mazeSceneFile(`pointmaze-${name}`), make: pointMazeMjcf },
    { layout, file: mazeSceneFile(`antmaze-${name}`), make: antMazeMjcf },
  ]);
  for (const { layout, file, make } of scenes) {
    validateLayout(layout);
    const want = make(layout);
    if (check) {
      let have = '';
      try {
        have = readFileSync(file, 'utf8');
      } catch {
        have = '';
      }
      if (have !== want) stale.push(file);
    } else {
      await writeFileAtomic(file, want);
      written.push(file);
    }
  }
  return { written, stale };
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The README's mission, over each maze's shipped regions (assets/regions/<world>.json: e0, e1, e3, e4
 * in the corners, e2 inside, e5 a box; test/contract/shipped-regions.test.ts).
 */
const EXAMPLE_SPECS: Record<string, string> = Object.fromEntries(
  MISSION_WORLDS.map((id) => [id, 'F e2 & G F e1 & G F e4 & G !e0']),
);

/** Bundles trained in the workspace (models/<name>/manifest.json), by world. */
function workspaceBundles(workspace: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = path.join(workspace, 'models');
  for (const name of listDirs(dir)) {
    const world = peekManifest(path.join(dir, name))?.['world'];
    if (typeof world === 'string') out.set(world, [...(out.get(world) ?? []), `workspace/${name}`]);
  }
  return out;
}

/**
 * The shipped bundles of a world that are installed: its own (navigate) first, then its regimes' (contract
 * shippedBundleName).
 */
function shippedBundles(world: string): string[] {
  const installed = new Set(listDirs(assetPath('models')));
  return shippedBundleNames(world).filter((n) => installed.has(n));
}

/**
 * The regime of the data a bundle was trained on (its manifest), which the console generates its
 * dataset in: a stitch bundle plans over stitch data, as `bench ltl --dataset stitch` does. Navigate
 * when the manifest does not say or cannot be read (loading the bundle then says why).
 */
export function bundleRegime(dir: string): DatasetKind {
  const training = peekManifest(dir)?.['training'];
  return typeof training === 'object' && training !== null
    ? (trainedRegime(training as Record<string, unknown>) ?? 'navigate')
    : 'navigate';
}

/** Where a models id of WorldInfo.models lives: shipped ones by name, `workspace/<name>` in the workspace. */
export function bundleDir(session: Pick<Session, 'workspace'>, id: string): string {
  return id.startsWith('workspace/')
    ? path.join(session.workspace, 'models', id.slice('workspace/'.length))
    : shippedModelsDir(id);
}

/** The worlds the console offers missions in, with their regions, an example spec and their model bundles. */
export function consoleWorlds(session: Pick<Session, 'workspace'>): WorldInfo[] {
  const trained = workspaceBundles(session.workspace);
  return MISSION_WORLDS.map((id) => {
    const e = worldEntry(id);
    return {
      id,
      title: e.title,
      kind: 'maze' as const,
      regions: e.regionsFile !== null ? `regions/${id}.json` : null,
      regionsText: e.regionsFile !== null ? readFileSync(e.regionsFile, 'utf8') : null,
      exampleSpec: EXAMPLE_SPECS[id] ?? null,
      models: [...shippedBundles(id), ...(trained.get(id) ?? [])],
    };
  });
}

/** Where the console finds robots and map graphs in the workspace. */
export const ROBOTS_DIR = 'ros2';
export const GRAPHS_DIR = 'graphs';

/**
 * A ROS 2 configuration the console found: its file, how it is shown, and the configuration or why it does not check.
 */
export interface FoundConfig {
  readonly id: string;
  readonly shown: string;
  readonly shipped: boolean;
  readonly config: Ros2Config | null;
  readonly problem: string | null;
}

/**
 * The ROS 2 configurations the console offers: the workspace's ros2/*.json, then the shipped ones,
 * each read and checked (a shipped one that does not check is left out; a workspace one is kept with
 * its problem, so the operator sees why it cannot be used). `paths`: the workspace's files.
 */
export function ros2Configs(workspace: string, paths: readonly string[]): FoundConfig[] {
  const found = [
    ...paths
      .filter((p) => p.startsWith(`${ROBOTS_DIR}/`) && p.endsWith('.json'))
      .map((p) => ({ file: path.join(workspace, p), shown: p, shipped: false })),
    ...readdirSync(assetPath('ros2'))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => ({ file: assetPath(`ros2/${f}`), shown: `shipped: ros2/${f}`, shipped: true })),
  ];
  return found.flatMap((c): FoundConfig[] => {
    try {
      return [
        { id: `ros2:${c.file}`, shown: c.shown, shipped: c.shipped, config: readRos2Config(c.file), problem: null },
      ];
    } catch (e) {
      return c.shipped
        ? []
        : [
            {
              id: `ros2:${c.file}`,
              shown: c.shown,
              shipped: false,
              config: null,
              problem: e instanceof Error ? e.message : String(e),
            },
          ];
    }
  });
}

/** The workspace's files (none when it cannot be listed). */
export async function workspacePaths(workspace: string): Promise<string[]> {
  const { files } = await new Workspace(workspace).list().catch(() => ({ files: [] as { path: string }[] }));
  return files.map((f) => f.path);
}

/**
 * The robots the console offers missions on: ROS 2 configurations with a `waypoints` section, each
 * with its regions (the configuration's `regions` file) and the workspace's map graphs (graphs/…json).
 */
export async function robotWorlds(session: Pick<Session, 'workspace'>): Promise<WorldInfo[]> {
  const paths = await workspacePaths(session.workspace);
  const graphs = paths.filter((p) => p.startsWith(`${GRAPHS_DIR}/`) && p.endsWith('.json'));
  const robot = { kind: 'robot' as const, regions: null, regionsText: null, exampleSpec: null, models: [], graphs };
  return ros2Configs(session.workspace, paths).flatMap(({ id, shown, shipped, config, problem }): WorldInfo[] => {
    if (config === null) return [{ ...robot, id, title: `ROS 2: ${shown} (does not check)`, problem: problem! }];
    if (config.waypoints === undefined) {
      return shipped
        ? []
        : [
            {
              ...robot,
              id,
              title: `ROS 2: ${config.id} (${shown}; no waypoints section)`,
              problem: `${shown}: no "waypoints" section: a mission on a map graph needs the robot's navigation actions (docs/ROS2.md)`,
            },
          ];
    }
    return [
      {
        ...robot,
        id,
        title: `ROS 2: ${config.id} (${shown})`,
        regions: config.regionsFile,
        regionsText: config.regionsFile !== null ? readInputTextSync(config.regionsFile, INPUT.regions) : null,
      },
    ];
  });
}

/** ROS 2 availability in this process (loads rclnodejs; keeps nothing). */
export async function ros2Status(deps?: LoaderDeps): Promise<Ros2Status> {
  const a = await loadRclnodejs(deps);
  return a.ok
    ? { available: true, distro: a.distro, version: a.version, notes: [...a.notes] }
    : { available: false, problem: a.problem, message: a.message, fix: a.fix };
}

/** The shipped sample configuration `witness ros2 check` checks by default. */
export const DEFAULT_ROS2_CONFIG = assetPath('ros2/nav2-mobile-manipulator.json');

export type Ros2CheckResult =
  | {
      readonly stage: 'config';
      readonly config: Ros2Config;
      readonly availability: Extract<Ros2Availability, { ok: false }>;
    }
  | {
      readonly stage: 'probe';
      readonly config: Ros2Config;
      readonly availability: Extract<Ros2Availability, { ok: true }>;
      readonly report: ProbeReport;
      readonly bound_s: number;
    };

export { describeAvailability, Ros2Unavailable, type Ros2Availability };

/**
 * `ros2 check`: the configuration (an InputError names its problem); then, if ROS 2 is available,
 * connects and probes every server, topic, field and the pose within one bound.
 */
export async function ros2Check(
  file: string,
  o: {
    timeout_s?: number;
    load?: () => Promise<Ros2Availability>;
    onConfig?: (c: Ros2Config) => void;
    onAvailable?: (a: Extract<Ros2Availability, { ok: true }>) => void;
  } = {},
): Promise<Ros2CheckResult> {
  const config = readRos2Config(file);
  o.onConfig?.(config);
  const a = await (o.load ?? loadRclnodejs)();
  if (!a.ok) return { stage: 'config', config, availability: a };
  o.onAvailable?.(a);
  const bound_s = o.timeout_s ?? config.connect_timeout_s;
  return { stage: 'probe', config, availability: a, report: await probeRos2Robot(config, a, bound_s), bound_s };
}
