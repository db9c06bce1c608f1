/**
 * A mission's task on a robot's own map (`witness run --world ros2:CONFIG --graph GRAPH.json`): the
 * labelled graph made from the map (`witness graph from-map`), read and checked against the regions
 * before anything connects, the map it names (recorded with the run), and the plan from the robot's
 * pose the console shows before Run. app/mission.ts assembles and runs the mission itself.
 */
import { WitnessError } from '../contract/errors.js';
import { PLAN_DEFAULTS, type MissionMethod } from '../contract/defaults.js';
import { onRegions } from '../core/plan/crossings.js';
import { type World, waypointsOf } from '../core/world/world.js';
import type { SemanticGraph } from '../core/plan/semantic.js';
import type { Region } from '../core/world/regions.js';
import { missingPosition } from '../core/exec/waypoint-graph.js';
import { type MapPlan, WAYPOINT_DEFAULTS, planOnMap } from '../core/exec/waypoint-mission.js';
import { readGraphInput } from '../services/plan/inputs.js';
import { readMap } from '../services/maps/read.js';
import { mapBlobText } from '../services/audit/map-blob.js';
import { CLI_NAMES, type InputNames, type RegionsInput, type Spec, specOf, taskRegions } from './task-inputs.js';

export interface MapMissionRequest {
  /** A ROS 2 world whose configuration has a "waypoints" section. */
  readonly world: string;
  readonly spec: string;
  readonly regions: RegionsInput;
  /** The map's labelled graph (graph JSON with node positions in the map frame). */
  readonly graph: string;
  readonly names?: InputNames;
  /** `spec` already parsed and translated (the console translates it in its planning worker, off the event loop). */
  readonly translated?: Spec;
}

export interface MapTask {
  readonly graph: SemanticGraph;
  readonly formula: Spec['formula'];
  readonly automaton: Spec['automaton'];
  readonly regions: Awaited<ReturnType<typeof taskRegions>>;
  /**
   * The map the graph names (its "map"), as the audit log keeps it (services/audit/map-blob.ts); null when it names
   * none.
   */
  readonly map: string | null;
}

/**
 * Reads and checks the task before anything connects: the specification, the regions, the graph
 * (labelled, every node placed, its labels those the regions give its position).
 */
export async function readMapTask(req: MapMissionRequest): Promise<MapTask> {
  const names = req.names ?? CLI_NAMES;
  const { formula, automaton } = req.translated ?? specOf(req.spec, names);
  const regions = await taskRegions(req.regions, automaton.aps, names);
  const input = await readGraphInput(req.graph);
  if (input.kind !== 'labelled') {
    throw new WitnessError(
      'invalid-input',
      `${req.graph} is a latent graph (.wgraph): the learned path on a robot needs --data (and models) too; a map graph is graph JSON from \`witness graph from-map\``,
      { file: req.graph },
    );
  }
  const unplaced = missingPosition(input.graph);
  if (unplaced !== null)
    throw new WitnessError(
      'invalid-input',
      `${req.graph}: node "${unplaced}" has no position ("pos"): a robot's mission needs every node placed in the map frame (\`witness graph from-map\` writes them)`,
      { file: req.graph },
    );
  // The graph's labels and the label function on the pose must agree, or the plan and the monitor
  // disagree from the start; and edges carry what they cross, by these regions.
  const { graph } = onRegions(input.graph, regions.regions.regions, req.graph);
  return {
    graph,
    formula,
    automaton,
    regions,
    map: input.map !== undefined ? await graphMap(req.graph, input.map) : null,
  };
}

/** The map a map graph was made from, read for the audit log; an unreadable one is the graph's error. */
async function graphMap(graphFile: string, mapFile: string): Promise<string> {
  try {
    const m = await readMap(mapFile);
    return mapBlobText(m.name, m.grid);
  } catch (e) {
    if (e instanceof WitnessError)
      throw new WitnessError(
        e.code,
        `${graphFile}: its "map" ${mapFile} (recorded with the run): ${e.message}`,
        { file: graphFile, path: '$.map' },
        { cause: e },
      );
    throw e;
  }
}

/** How far a robot may be from where its plan starts and still run it (metres): the reach of a waypoint. */
export function startTolerance(world: World): number {
  return waypointsOf(world).limits?.reach_m ?? WAYPOINT_DEFAULTS.reach_m;
}

/** What a plan on a map graph from a pose needs, as plain data (the console has the planning worker make it). */
export interface MapPlanRequest {
  readonly graph: SemanticGraph;
  readonly automaton: MapTask['automaton'];
  readonly regions: readonly Region[];
  readonly pose: { readonly x: number; readonly y: number };
  readonly formula: MapTask['formula'];
  readonly method: MissionMethod;
  readonly lambda: number;
  readonly k: number;
  readonly maxLink_m: number;
}

/** The plan from the pose (core planOnMap); a pose no node is near enough to is the graph's invalid input. */
export function mapPlanOf(r: MapPlanRequest): MapPlan {
  try {
    return planOnMap(
      r.graph,
      r.automaton,
      r.regions,
      r.pose,
      {
        method: r.method,
        lambda: r.lambda,
        k: r.k,
        tauSoft: PLAN_DEFAULTS.tauSoft,
        maxLink_m: r.maxLink_m,
        formula: r.formula,
      },
      () => performance.now(),
    );
  } catch (e) {
    if (e instanceof RangeError) throw new WitnessError('invalid-input', e.message, { path: '$.graph' });
    throw e;
  }
}

/**
 * Plans a mission on a robot's map graph from where the robot is now (the console shows this plan
 * before Run): the pose read from the connected robot joins the graph as the start node. `plan` makes
 * it (default: here, mapPlanOf; the console's runs in its planning worker).
 */
export async function planMapMission(
  task: MapTask,
  world: World,
  o: { readonly method: MissionMethod; readonly lambda?: number; readonly k?: number },
  plan: (r: MapPlanRequest) => Promise<MapPlan> = (r) => Promise.resolve(mapPlanOf(r)),
): Promise<MapPlan> {
  const nav = waypointsOf(world);
  const pose = await nav.pose();
  return plan({
    graph: task.graph,
    automaton: task.automaton,
    regions: task.regions.regions.regions,
    pose: { x: pose.x, y: pose.y },
    formula: task.formula,
    method: o.method,
    lambda: o.lambda ?? PLAN_DEFAULTS.lambda,
    k: o.k ?? Infinity,
    maxLink_m: nav.limits?.maxLink_m ?? WAYPOINT_DEFAULTS.maxLink_m,
  });
}
