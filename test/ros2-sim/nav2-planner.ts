/**
 * TEST CODE — the simulated graph's Nav2 planner server and global costmap, modelled on
 * navigation2's sources, not on what Witness expects of them:
 *
 * - The global costmap covers the static map's `bounds` at `resolution_m`; its static layer marks the
 *   `obstacles` (a pallet the map graph does not know) LETHAL_OBSTACLE (254).
 * - Its keepout filter (nav2_costmap_2d keepout_filter.cpp), when configured (`keepoutInfoTopic`):
 *   it subscribes to the filter info topic, then to the mask topic the info names (both reliable,
 *   transient-local, depth 1, so the latest message published before is delivered); a new info
 *   replaces the mask subscription. Each costmap cell is looked up at its centre in the mask
 *   (worldToMask: floor((x − origin) / resolution), outside: untouched), the mask value v read as the
 *   cost round(v × 254 / 100) (getMaskCost; -1: no information), written where it exceeds the cell's
 *   cost. Without a mask the filter changes nothing. Like Nav2's, it ignores the info's type and
 *   only complains about a base or multiplier other than 0 and 1 (it still applies the mask).
 * - The planner server (planner_server.cpp computePlan) answers nav2_msgs/action/ComputePathToPose:
 *   the start is goal.start with use_start, else the robot's pose; an unknown planner_id is
 *   INVALID_PLANNER (201) unless it is empty; the planner, NavFn with tolerance 0
 *   (navfn_planner.cpp createPlan), refuses a start or goal off the map (203, 204) and a goal in a
 *   lethal cell (206), clears the robot's own cell, returns the single start pose when start and
 *   goal coincide, and otherwise a path through cells below INSCRIBED_INFLATED_OBSTACLE (253) or
 *   NO_VALID_PATH (208). Failures end the goal ABORTED with error_code and error_msg (Jazzy's
 *   result). The path is the straight segment when it crosses no such cell — so a path runs
 *   straight through a hazard the costmap does not know — else a shortest 8-connected grid path
 *   (no corner cutting), shortened by line of sight; poses every resolution_m.
 */
import type { FakeRclnodejs } from '../backends/ros2/fake-rclnodejs.js';

export interface Box {
  readonly min: readonly [number, number];
  readonly max: readonly [number, number];
}

export interface CostmapOptions {
  /** The static map's extent (metres, map frame). */
  readonly bounds: Box;
  readonly resolution_m: number;
  readonly obstacles: readonly Box[];
  /**
   * The keepout filter's filter_info_topic (filters: ["keepout_filter"], enabled: true); null: no keepout filter
   * configured.
   */
  readonly keepoutInfoTopic: string | null;
}

/** A path: its poses (every resolution_m) and its corners (what the simulated controller steers through). */
export type PlanResult =
  | {
      readonly ok: true;
      readonly poses: readonly (readonly [number, number])[];
      readonly corners: readonly (readonly [number, number])[];
    }
  | { readonly ok: false; readonly code: number; readonly message: string };

const LETHAL = 254,
  INSCRIBED = 253,
  NO_INFORMATION = 255;

interface Mask {
  readonly info: { resolution: number; width: number; height: number; origin: { position: { x: number; y: number } } };
  readonly data: ArrayLike<number>;
}

export class SimCostmap {
  private readonly width: number;
  private readonly height: number;
  private readonly staticCost: Uint8Array;
  private maskTopic: string | null = null;
  private mask: Mask | null = null;
  /** What the keepout filter complained about (Nav2 logs it), in order. */
  readonly warnings: string[] = [];

  constructor(
    private readonly fake: FakeRclnodejs,
    private readonly o: CostmapOptions,
  ) {
    const res = o.resolution_m;
    this.width = Math.ceil((o.bounds.max[0] - o.bounds.min[0]) / res);
    this.height = Math.ceil((o.bounds.max[1] - o.bounds.min[1]) / res);
    this.staticCost = new Uint8Array(this.width * this.height);
    for (let j = 0; j < this.height; j++) {
      for (let i = 0; i < this.width; i++) {
        const [x, y] = this.centre(i, j);
        if (o.obstacles.some((b) => x >= b.min[0] && x <= b.max[0] && y >= b.min[1] && y <= b.max[1]))
          this.staticCost[j * this.width + i] = LETHAL;
      }
    }
    if (o.keepoutInfoTopic !== null) this.subscribe(o.keepoutInfoTopic, (m) => this.onInfo(m));
  }

  /** Whether the keepout filter holds a mask (KeepoutFilter::isActive). */
  get keepoutActive(): boolean {
    return this.mask !== null;
  }

  /** A transient-local subscription: the latest message already published, then every new one. */
  private subscribe(topic: string, f: (m: unknown) => void): void {
    const last = this.fake.sent.get(topic);
    this.fake.onPublish(topic, f);
    if (last !== undefined && last.length > 0) f(last[last.length - 1]);
  }

  private onInfo(m: unknown): void {
    const info = m as { filter_mask_topic?: string; base?: number; multiplier?: number };
    if (info.base !== 0 || info.multiplier !== 1)
      this.warnings.push('KeepoutFilter: base and multiplier should be 0 and 1');
    const topic = String(info.filter_mask_topic ?? '');
    if (topic === this.maskTopic) return;
    this.maskTopic = topic;
    // The old subscription is reset: only messages on the new topic count from now on.
    this.subscribe(topic, (mask) => {
      if (this.maskTopic === topic) this.mask = mask as Mask;
    });
  }

  private centre(i: number, j: number): [number, number] {
    const res = this.o.resolution_m;
    return [this.o.bounds.min[0] + (i + 0.5) * res, this.o.bounds.min[1] + (j + 0.5) * res];
  }

  private cell(x: number, y: number): [number, number] | null {
    const res = this.o.resolution_m;
    const i = Math.floor((x - this.o.bounds.min[0]) / res),
      j = Math.floor((y - this.o.bounds.min[1]) / res);
    return i >= 0 && j >= 0 && i < this.width && j < this.height ? [i, j] : null;
  }

  /** The master grid now: static layer, then the keepout filter. */
  private costs(): Uint8Array {
    const c = Uint8Array.from(this.staticCost);
    const m = this.mask;
    if (m === null) return c;
    const { resolution, width, height } = m.info,
      ox = m.info.origin.position.x,
      oy = m.info.origin.position.y;
    for (let j = 0; j < this.height; j++) {
      for (let i = 0; i < this.width; i++) {
        const [x, y] = this.centre(i, j);
        if (x < ox || y < oy) continue;
        const mx = Math.floor((x - ox) / resolution),
          my = Math.floor((y - oy) / resolution);
        if (mx >= width || my >= height) continue;
        const v = m.data[my * width + mx]!;
        const cost = v === -1 ? NO_INFORMATION : Math.round((v * LETHAL) / 100);
        if (cost === NO_INFORMATION) continue;
        if (cost > c[j * this.width + i]!) c[j * this.width + i] = cost;
      }
    }
    return c;
  }

  /** NavFn (tolerance 0) on the master grid, as the planner server calls it. */
  plan(start: readonly [number, number], goal: readonly [number, number]): PlanResult {
    const s = this.cell(start[0], start[1]),
      g = this.cell(goal[0], goal[1]);
    if (s === null)
      return { ok: false, code: 203, message: `Start Coordinates of(${start[0]}, ${start[1]}) was outside bounds` };
    if (g === null)
      return { ok: false, code: 204, message: `Goal Coordinates of(${goal[0]}, ${goal[1]}) was outside bounds` };
    const cost = this.costs();
    const W = this.width;
    if (cost[g[1] * W + g[0]] === LETHAL)
      return { ok: false, code: 206, message: `Goal Coordinates of(${goal[0]}, ${goal[1]}) was in lethal cost` };
    if (start[0] === goal[0] && start[1] === goal[1])
      return { ok: true, poses: [[start[0], start[1]]], corners: [[start[0], start[1]]] };
    // NavFn clears the robot's cell: it cannot be an obstacle.
    cost[s[1] * W + s[0]] = 0;
    const free = (i: number, j: number): boolean =>
      i >= 0 && j >= 0 && i < W && j < this.height && cost[j * W + i]! < INSCRIBED;
    if (this.clear(start, goal, free))
      return { ok: true, poses: dense([start, goal], this.o.resolution_m), corners: [start, goal] };
    const cells = astar(s, g, W, this.height, free);
    if (cells === null) return { ok: false, code: 208, message: 'Failed to create plan with tolerance of: 0.000000' };
    const points: [number, number][] = [
      [start[0], start[1]],
      ...cells.slice(1, -1).map(([i, j]) => this.centre(i, j)),
      [goal[0], goal[1]],
    ];
    const corners = this.shorten(points, free);
    return { ok: true, poses: dense(corners, this.o.resolution_m), corners };
  }

  /** Whether the straight segment crosses only cells the planner may use (sampled at a tenth of a cell). */
  private clear(
    a: readonly [number, number],
    b: readonly [number, number],
    free: (i: number, j: number) => boolean,
  ): boolean {
    const n = Math.max(1, Math.ceil((Math.hypot(b[0] - a[0], b[1] - a[1]) / this.o.resolution_m) * 10));
    for (let k = 0; k <= n; k++) {
      const c = this.cell(a[0] + ((b[0] - a[0]) * k) / n, a[1] + ((b[1] - a[1]) * k) / n);
      if (c === null || !free(c[0], c[1])) return false;
    }
    return true;
  }

  /** String pulling: from each corner, the farthest later point in line of sight. */
  private shorten(points: readonly [number, number][], free: (i: number, j: number) => boolean): [number, number][] {
    const out: [number, number][] = [points[0]!];
    let i = 0;
    while (i < points.length - 1) {
      let j = points.length - 1;
      while (j > i + 1 && !this.clear(points[i]!, points[j]!, free)) j--;
      out.push(points[j]!);
      i = j;
    }
    return out;
  }
}

/** The polyline with a pose every `step` metres (its corners kept). */
function dense(corners: readonly (readonly [number, number])[], step: number): [number, number][] {
  const out: [number, number][] = [[corners[0]![0], corners[0]![1]]];
  for (let k = 1; k < corners.length; k++) {
    const a = corners[k - 1]!,
      b = corners[k]!;
    const n = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / step));
    for (let m = 1; m <= n; m++) out.push([a[0] + ((b[0] - a[0]) * m) / n, a[1] + ((b[1] - a[1]) * m) / n]);
  }
  return out;
}

/** A shortest 8-connected cell path (diagonals only between two free orthogonal neighbours), or null. */
function astar(
  s: readonly [number, number],
  g: readonly [number, number],
  W: number,
  H: number,
  free: (i: number, j: number) => boolean,
): [number, number][] | null {
  const n = W * H,
    goal = g[1] * W + g[0],
    start = s[1] * W + s[0];
  const dist = new Float64Array(n).fill(Infinity),
    prev = new Int32Array(n).fill(-1),
    done = new Uint8Array(n);
  const h = (v: number): number => Math.hypot((v % W) - g[0], Math.floor(v / W) - g[1]);
  const heap: [number, number][] = [];
  const push = (f: number, v: number): void => {
    heap.push([f, v]);
    for (let k = heap.length - 1; k > 0;) {
      const p = (k - 1) >> 1;
      if (heap[p]![0] <= heap[k]![0]) break;
      [heap[p], heap[k]] = [heap[k]!, heap[p]!];
      k = p;
    }
  };
  const pop = (): [number, number] => {
    const top = heap[0]!,
      last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let k = 0; ;) {
        const l = 2 * k + 1,
          r = l + 1;
        let m = k;
        if (l < heap.length && heap[l]![0] < heap[m]![0]) m = l;
        if (r < heap.length && heap[r]![0] < heap[m]![0]) m = r;
        if (m === k) break;
        [heap[m], heap[k]] = [heap[k]!, heap[m]!];
        k = m;
      }
    }
    return top;
  };
  dist[start] = 0;
  push(h(start), start);
  while (heap.length > 0) {
    const [, v] = pop();
    if (done[v] === 1) continue;
    done[v] = 1;
    if (v === goal) break;
    const i = v % W,
      j = Math.floor(v / W);
    for (const [di, dj] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
      [1, 1],
      [1, -1],
      [-1, 1],
      [-1, -1],
    ] as const) {
      const a = i + di,
        b = j + dj;
      if (!free(a, b) || (di !== 0 && dj !== 0 && (!free(i + di, j) || !free(i, j + dj)))) continue;
      const u = b * W + a,
        d = dist[v]! + Math.hypot(di, dj);
      if (d < dist[u]!) {
        dist[u] = d;
        prev[u] = v;
        push(d + h(u), u);
      }
    }
  }
  if (done[goal] !== 1) return null;
  const out: [number, number][] = [];
  for (let v = goal; v !== -1; v = prev[v]!) out.push([v % W, Math.floor(v / W)]);
  return out.reverse();
}
