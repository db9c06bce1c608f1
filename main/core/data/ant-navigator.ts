/**
 * The Ant's way through a maze: the trot of ant-gait.ts steered toward the next cell of a shortest
 * path to the goal, recomputed at every step from the cell the Ant is in (an oracle subgoal, as
 * OGBench's expert is given), so that a push into another cell never leaves it steering at a
 * wall. It watches its own progress: 0.5 m closer to the goal in 5 s, or it reports a stall.
 * The dataset expert (ant-agent.ts) and the checks and benchmarks of the gait share it.
 */
import { type Cell, type MazeLayout, cellAt, cellCenter, distancesFrom, isFree } from '../world/maze.js';
import { AntGait, DEFAULT_GAIT, type GaitParams } from './ant-gait.js';

/** Steps without PROGRESS_M of progress toward the goal that count as a stall (5 s at 0.05 s a step). */
const STALL_STEPS = 100;
const PROGRESS_M = 0.5;
/** Within this of the goal cell's centre the goal is reached. */
const REACH_M = 1.0;
const STEPS = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
] as const;

export class AntNavigator {
  readonly gait: AntGait;
  private readonly cols: number;
  private goalCell: Cell = { i: 0, j: 0 };
  private toGoal: Int32Array = new Int32Array(0);
  private last: Cell = { i: 0, j: 0 };
  private best = Infinity;
  private since = 0;

  constructor(
    readonly layout: MazeLayout,
    params: GaitParams = DEFAULT_GAIT,
  ) {
    this.gait = new AntGait(params);
    this.cols = layout.grid[0]!.length;
  }

  get goal(): Cell {
    return this.goalCell;
  }

  /** The free cell the Ant is in (on a boundary with a wall: the last free one it was in). */
  cellOf(s: ArrayLike<number>): Cell {
    const c = cellAt(this.layout, s[0]!, s[1]!);
    if (c !== null && isFree(this.layout, c.i, c.j)) this.last = c;
    return this.last;
  }

  /** A new episode from state `s`, toward `goal`. */
  start(s: ArrayLike<number>, goal: Cell): void {
    this.gait.start(s);
    const c = cellAt(this.layout, s[0]!, s[1]!);
    if (c !== null) this.last = c;
    this.setGoal(goal);
  }

  setGoal(goal: Cell): void {
    this.goalCell = goal;
    this.toGoal = distancesFrom(this.layout, goal);
    this.best = Infinity;
    this.since = 0;
  }

  /** Within REACH_M of the goal cell's centre. */
  reached(s: ArrayLike<number>): boolean {
    const g = cellCenter(this.layout, this.goalCell);
    return Math.hypot(g.x - s[0]!, g.y - s[1]!) < REACH_M;
  }

  /** Writes the noise-free action toward the goal into `out`; 'stall' when progress stopped. */
  act(s: ArrayLike<number>, out: Float64Array): 'ok' | 'stall' {
    const at = this.cellOf(s);
    const sub = cellCenter(this.layout, this.next(at));
    const dx = sub.x - s[0]!,
      dy = sub.y - s[1]!;
    this.gait.act(s, dx, dy, out);
    // Progress: cells still to cross plus the way to the next one.
    const left = Math.max(0, this.toGoal[at.i * this.cols + at.j]! - 1) * this.layout.unit_m + Math.hypot(dx, dy);
    if (left < this.best - PROGRESS_M) {
      this.best = left;
      this.since = 0;
    } else if (++this.since >= STALL_STEPS) {
      this.since = 0;
      this.best = left;
      return 'stall';
    }
    return 'ok';
  }

  /** The next cell toward the goal from `at` (the goal itself once there). */
  private next(at: Cell): Cell {
    const d = this.toGoal[at.i * this.cols + at.j]!;
    if (d <= 0) return this.goalCell;
    for (const [di, dj] of STEPS) {
      const i = at.i + di,
        j = at.j + dj;
      if (isFree(this.layout, i, j) && this.toGoal[i * this.cols + j] === d - 1) return { i, j };
    }
    return this.goalCell;
  }
}
