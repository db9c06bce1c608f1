/**
 * Where a replay places plan nodes the log does not place, in a maze: along the corridors, never
 * through a wall. The path between two placed points goes through the centres of a shortest chain
 * of free cells (breadth-first over the maze grid); a node between them sits at its share of that
 * path's length. Pure.
 */
import { type MazeLayout, cellAt, cellCenter, distancesFrom, isFree } from '../../core/world/maze.js';

type Point = readonly [number, number];

const STEPS: readonly [number, number][] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

/**
 * The path from `a` to `b` through the maze: `a`, the centres of the free cells of a shortest
 * chain between their cells (their own cells included when the point is not at its centre), `b`.
 * A straight segment when either point lies outside the free cells or no chain joins them.
 */
export function mazePath(layout: MazeLayout, a: Point, b: Point): Point[] {
  const ca = cellAt(layout, a[0], a[1]),
    cb = cellAt(layout, b[0], b[1]);
  if (ca === null || cb === null) return [a, b];
  const cols = layout.grid[0]!.length;
  const dist = distancesFrom(layout, cb);
  let d = dist[ca.i * cols + ca.j]!;
  if (d < 0) return [a, b];
  const out: Point[] = [a];
  const add = (p: Point): void => {
    const last = out[out.length - 1]!;
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) > 1e-9) out.push(p);
  };
  let { i, j } = ca;
  const centre = (): Point => {
    const c = cellCenter(layout, { i, j });
    return [c.x, c.y];
  };
  add(centre());
  while (d > 0) {
    const step = STEPS.find(([di, dj]) => isFree(layout, i + di, j + dj) && dist[(i + di) * cols + (j + dj)] === d - 1);
    if (step === undefined) break;
    i += step[0];
    j += step[1];
    d--;
    add(centre());
  }
  add(b);
  return out;
}

/** The point at fraction `t` (0…1) of a path's length. */
export function alongPath(path: readonly Point[], t: number): [number, number] {
  const first = path[0]!;
  if (path.length === 1) return [first[0], first[1]];
  let total = 0;
  for (let k = 1; k < path.length; k++)
    total += Math.hypot(path[k]![0] - path[k - 1]![0], path[k]![1] - path[k - 1]![1]);
  let left = Math.max(0, Math.min(1, t)) * total;
  for (let k = 1; k < path.length; k++) {
    const p = path[k - 1]!,
      q = path[k]!;
    const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
    if (left <= len && len > 0) return [p[0] + ((q[0] - p[0]) * left) / len, p[1] + ((q[1] - p[1]) * left) / len];
    left -= len;
  }
  const last = path[path.length - 1]!;
  return [last[0], last[1]];
}

/** The length along `path` of each of its vertices. */
function vertexLengths(path: readonly Point[]): number[] {
  const at = [0];
  for (let k = 1; k < path.length; k++)
    at.push(at[k - 1]! + Math.hypot(path[k]![0] - path[k - 1]![0], path[k]![1] - path[k - 1]![1]));
  return at;
}

/**
 * `m` points on `path` (between its ends, in order) for the nodes between its two placed ends. The
 * path's corners come first, so that when there are as many nodes as corners the straight legs
 * between consecutive nodes follow the path (and stay off the walls); the rest spread evenly by
 * length. Fewer nodes than corners: corners evenly chosen.
 */
export function spreadAlong(path: readonly Point[], m: number): [number, number][] {
  if (m <= 0) return [];
  const at = vertexLengths(path);
  const total = at[at.length - 1]!;
  const corners: number[] = [];
  for (let k = 1; k < path.length - 1; k++) {
    const p = path[k - 1]!,
      q = path[k]!,
      r = path[k + 1]!;
    const cross = (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0]);
    if (Math.abs(cross) > 1e-9) corners.push(at[k]!);
  }
  let picks: number[];
  if (m < corners.length)
    picks = Array.from({ length: m }, (_, q) => corners[Math.floor(((q + 0.5) * corners.length) / m)]!);
  else {
    const extra = m - corners.length;
    picks = [...corners, ...Array.from({ length: extra }, (_, q) => ((q + 1) * total) / (extra + 1))];
  }
  return picks.sort((x, y) => x - y).map((len) => alongPath(path, total > 0 ? len / total : 0));
}
