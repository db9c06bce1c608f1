/**
 * The guards a mission on a robot's map puts around the robot's own planner, which chooses its path
 * between waypoints itself: the keepout mask of what the specification forbids now (published for
 * Nav2's keepout filter, again whenever that changes: after y in `!x U y`), and, before a goal is
 * sent, the path the planner would take (ComputePathToPose, one piece per waypoint of the goal)
 * followed from the monitor's states, refused where it enters a forbidden region. Pure: the world is
 * injected.
 */
import type { BuchiAutomaton } from '../ltl/automaton.js';
import { LetterSteps } from '../ltl/forbidden.js';
import type { Region } from '../world/regions.js';
import { type Pose, type Waypoints, WorldError } from '../world/world.js';
import { KeepoutCells, type PathEntry, type Pt, maskGrid, pathEntry } from './keepout.js';
import { type FailedLeg, type Leg, letterText } from './waypoint-legs.js';

/** How far the mask reaches beyond the graph, the robot and the regions (metres). */
const MASK_MARGIN_M = 1;

/** A mask published: what it keeps out, and where it went. */
export interface KeepoutNote {
  /** The regions x whose letter {x} is forbidden now. */
  readonly forbidden: readonly string[];
  readonly keptOut: number;
  readonly cells: number;
  readonly width: number;
  readonly height: number;
  readonly resolution_m: number;
  readonly where: string;
}

export type LegCheck =
  | { readonly kind: 'clear'; readonly poses: number; readonly length_m: number }
  | { readonly kind: 'enters'; readonly piece: number; readonly entry: PathEntry; readonly poses: number }
  /** The planner found no path for this piece (or refused the request). */
  | { readonly kind: 'no-path'; readonly piece: number; readonly error: WorldError };

export class WaypointSafety {
  readonly steps: LetterSteps;
  private readonly cells: KeepoutCells | null;
  private signature: string | null = null;

  /** Throws a RangeError when the mask over `extent` and the regions would be too large at the robot's resolution. */
  constructor(
    private readonly world: Waypoints,
    automaton: BuchiAutomaton,
    private readonly regions: readonly Region[],
    extent: readonly Pt[],
  ) {
    this.steps = new LetterSteps(automaton);
    const k = world.keepout;
    this.cells =
      k === undefined ? null : new KeepoutCells(maskGrid(extent, regions, k.resolution_m, MASK_MARGIN_M), regions);
  }

  /** Whether goals are checked against the robot's planner before they are sent. */
  get checksPaths(): boolean {
    return this.world.planPath !== undefined;
  }

  /**
   * Publishes the mask for the monitor's states when it differs from the last one (the first call
   * always: a mask latched by an earlier mission is replaced); null when nothing was published. A
   * violated specification (no viable state) publishes nothing: the run is ending, and a mask of
   * the whole floor would only stop the robot being moved out.
   */
  publish(states: readonly number[]): KeepoutNote | null {
    const k = this.world.keepout;
    if (k === undefined || this.cells === null || !this.steps.viable(states)) return null;
    if (this.cells.signature(this.steps, states) === this.signature) return null;
    const m = this.cells.mask(this.steps, states);
    const where = k.publish(m.grid);
    this.signature = m.signature;
    const g = m.grid;
    return {
      forbidden: this.steps.forbiddenRegions(
        states,
        this.regions.map((r) => r.name),
      ),
      keptOut: m.keptOut,
      cells: g.width * g.height,
      width: g.width,
      height: g.height,
      resolution_m: g.resolution_m,
      where,
    };
  }

  /**
   * The planner's path for each piece of a goal (from the robot to the first pose, then pose to
   * pose), followed densely — every pose and the straight pieces between them, from the robot's own
   * position to the goal pose — from the monitor's states. Other world errors than a refused or
   * aborted plan (no server, a timeout, the signal) are thrown.
   */
  async check(
    from: Pt,
    poses: readonly Pose[],
    states: readonly number[],
    signal?: AbortSignal,
  ): Promise<LegCheck | null> {
    if (this.world.planPath === undefined) return null;
    const plan = (a: Pose, b: Pose): Promise<readonly Pose[]> =>
      this.world.planPath!(a, b, signal !== undefined ? { signal } : {});
    let now = states;
    let start: Pose = { x: from.x, y: from.y };
    let count = 0,
      length_m = 0;
    for (let piece = 0; piece < poses.length; piece++) {
      const to = poses[piece]!;
      let path: readonly Pose[];
      try {
        path = await plan(start, to);
      } catch (e) {
        if (e instanceof WorldError && (e.kind === 'aborted' || e.kind === 'rejected'))
          return { kind: 'no-path', piece, error: e };
        throw e;
      }
      const points: Pt[] = [start, ...path, to];
      count += path.length;
      for (let i = 1; i < points.length; i++)
        length_m += Math.hypot(points[i]!.x - points[i - 1]!.x, points[i]!.y - points[i - 1]!.y);
      const r = pathEntry(this.steps, now, this.regions, points);
      if (r.entry !== null) return { kind: 'enters', piece, entry: r.entry, poses: path.length };
      now = r.states;
      start = to;
    }
    return { kind: 'clear', poses: count, length_m };
  }
}

/**
 * A path check in words (the audit log's evidence), and the failed leg when the goal must not be
 * sent: `safety` where the planner's path enters a forbidden region (naming it and the place),
 * `goal-aborted` where the planner found no path. `at` is the node the goal starts from.
 */
export function legVerdict(
  c: LegCheck,
  goal: readonly Leg[],
  at: number,
  pose: Pt,
): { readonly verifier: string; readonly failed: FailedLeg | null } {
  if (c.kind === 'clear')
    return {
      verifier: `the planner's path (${c.poses} poses, ${c.length_m.toFixed(2)} m) enters no forbidden region`,
      failed: null,
    };
  const leg = goal[c.piece]!;
  const from = c.piece === 0 ? at : goal[c.piece - 1]!.node;
  const fromText =
    c.piece === 0 ? `the robot's pose (${pose.x.toFixed(2)}, ${pose.y.toFixed(2)})` : goal[c.piece - 1]!.id;
  if (c.kind === 'no-path') {
    const detail = `the robot's planner found no path from ${fromText} to ${leg.id} (${c.error.detail}); the goal was not sent`;
    return { verifier: detail, failed: { failure: 'goal-aborted', leg, from, viable: true, detail } };
  }
  const e = c.entry;
  const region =
    e.entered.length > 0
      ? e.entered.join(',')
      : e.left.length > 0
        ? `outside ${e.left.join(',')}`
        : letterText(e.letter);
  const detail = `the robot's planner's path from ${fromText} to ${leg.id} enters ${region} at (${e.x.toFixed(2)}, ${e.y.toFixed(2)}), which the specification forbids there; the goal was not sent`;
  return {
    verifier: detail,
    failed: { failure: 'safety', leg, from, viable: true, literal: region, at: [e.x, e.y], detail },
  };
}
