/**
 * TF chains in the plane: a robot's pose as the composition of the transforms between two frames of
 * a TF tree (map → odom from localisation at a low rate, odom → base_footprint → base_link from
 * odometry at a high rate, static links from /tf_static). Pure: the bag reader hands in each edge's
 * time series, this finds the path between two frames and evaluates the composed pose at a time.
 *
 * Rotations are yaw-only (SE(2)): each transform is taken as (x, y, yaw), the yaw of its quaternion,
 * and its z, roll and pitch are dropped before composing. The datasets use only x, y and yaw, and a
 * ground robot's chain is planar; a tilted link (a pitched laser) would be projected, not composed
 * in 3-D. Between two samples of an edge the translation is interpolated linearly and the yaw along
 * the shorter arc (which is slerp for rotations about z). A time before an edge's first sample or
 * after its last takes the nearest sample when it is at most `maxGap` away; two samples further apart
 * than `maxGap` leave the times between them without a pose, as does a time too far from any sample.
 */
import { type PoseTrack, wrapAngle } from './resample.js';

/** A transform in the plane: metres, radians. `compose(a, b)` applies b first, then a (a · b). */
export interface Pose2 {
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

export const IDENTITY: Pose2 = { x: 0, y: 0, yaw: 0 };

/** a · b: b's pose (in a's child frame) in a's parent frame. */
export function compose(a: Pose2, b: Pose2): Pose2 {
  const c = Math.cos(a.yaw),
    s = Math.sin(a.yaw);
  return { x: a.x + c * b.x - s * b.y, y: a.y + s * b.x + c * b.y, yaw: wrapAngle(a.yaw + b.yaw) };
}

/** a⁻¹: the parent's pose in the child frame. */
export function invert(a: Pose2): Pose2 {
  const c = Math.cos(a.yaw),
    s = Math.sin(a.yaw);
  return { x: -(c * a.x + s * a.y), y: s * a.x - c * a.y, yaw: wrapAngle(-a.yaw) };
}

interface TfSample {
  /** Seconds, any fixed origin. */
  readonly t: number;
  readonly pose: Pose2;
}

/** One edge of the tree: the child's pose in the parent frame over time; a static edge holds one value at all times. */
export interface TfEdge {
  readonly parent: string;
  readonly child: string;
  readonly static: boolean;
  /** Sorted by time (non-decreasing); a static edge's last sample counts. */
  readonly samples: readonly TfSample[];
}

/** The frames an edge joins (a TfEdge, or a reader's edge with its own stamps). */
export interface TfLink {
  readonly parent: string;
  readonly child: string;
}

/** One step of a path: an edge, taken from parent to child, or inverted (child to parent). */
export interface TfStep<E extends TfLink = TfEdge> {
  readonly edge: E;
  readonly inverse: boolean;
}

/**
 * A path, or why there is none: frames no edge mentions (`missing`), or two known frames in separate trees (`missing`
 * empty).
 */
export type TfPath<E extends TfLink = TfEdge> =
  | { readonly ok: true; readonly steps: readonly TfStep<E>[] }
  | { readonly ok: false; readonly missing: readonly string[] };

/** Each frame's parent edge. The edges must give each child one parent (the caller refuses a second). */
function parentEdges<E extends TfLink>(edges: readonly E[]): Map<string, E> {
  const m = new Map<string, E>();
  for (const e of edges) m.set(e.child, e);
  return m;
}

/** The frames of the tree and their parents (null for a root), sorted by frame: for messages. */
export function framesSeen(edges: readonly TfLink[]): { frame: string; parent: string | null }[] {
  const parents = parentEdges(edges);
  const frames = new Set<string>();
  for (const e of edges) frames.add(e.parent).add(e.child);
  return [...frames].sort().map((frame) => ({ frame, parent: parents.get(frame)?.parent ?? null }));
}

/** Frames from `f` up to its root (`f` first); stops at a cycle. */
function ancestry(f: string, parents: ReadonlyMap<string, TfLink>): string[] {
  const out = [f];
  const seen = new Set(out);
  for (let e = parents.get(f); e !== undefined && !seen.has(e.parent); e = parents.get(e.parent)) {
    out.push(e.parent);
    seen.add(e.parent);
  }
  return out;
}

/**
 * The steps whose composition (first · second · …) is `to`'s pose in `from`'s frame: up from
 * `from` to the nearest common ancestor (edges inverted), then down to `to`.
 */
export function tfPath<E extends TfLink>(edges: readonly E[], from: string, to: string): TfPath<E> {
  const known = new Set<string>();
  for (const e of edges) known.add(e.parent).add(e.child);
  const missing = [from, to].filter((f, i, a) => !known.has(f) && a.indexOf(f) === i);
  if (missing.length > 0) return { ok: false, missing };
  const parents = parentEdges(edges);
  const up = ancestry(from, parents),
    down = ancestry(to, parents);
  const i = up.findIndex((f) => down.includes(f));
  if (i < 0) return { ok: false, missing: [] };
  const lca = up[i]!,
    j = down.indexOf(lca);
  const steps: TfStep<E>[] = [];
  for (let k = 0; k < i; k++) steps.push({ edge: parents.get(up[k]!)!, inverse: true });
  for (let k = j - 1; k >= 0; k--) steps.push({ edge: parents.get(down[k]!)!, inverse: false });
  return { ok: true, steps };
}

/** Index of the last sample at or before t; -1 when none is. */
function before(samples: readonly TfSample[], t: number): number {
  let lo = 0,
    hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid]!.t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** An edge's transform at time t (see the module's comment), or null when t is too far from its samples. */
export function edgeAt(e: TfEdge, t: number, maxGap: number): Pose2 | null {
  const n = e.samples.length;
  if (n === 0) return null;
  if (e.static) return e.samples[n - 1]!.pose;
  const i = before(e.samples, t);
  if (i < 0) return e.samples[0]!.t - t <= maxGap ? e.samples[0]!.pose : null;
  const a = e.samples[i]!;
  if (a.t === t || i === n - 1) return t - a.t <= maxGap ? a.pose : null;
  const b = e.samples[i + 1]!;
  if (b.t - a.t > maxGap) return null;
  const u = (t - a.t) / (b.t - a.t);
  return {
    x: a.pose.x + u * (b.pose.x - a.pose.x),
    y: a.pose.y + u * (b.pose.y - a.pose.y),
    yaw: wrapAngle(a.pose.yaw + u * wrapAngle(b.pose.yaw - a.pose.yaw)),
  };
}

/** The composed pose of a path at time t, or null when one of its dynamic edges has no value there. */
export function chainAt(steps: readonly TfStep[], t: number, maxGap: number): Pose2 | null {
  let acc = IDENTITY;
  for (const s of steps) {
    const p = edgeAt(s.edge, t, maxGap);
    if (p === null) return null;
    acc = compose(acc, s.inverse ? invert(p) : p);
  }
  return acc;
}

/** The dynamic edges of a path (those with times); none means the pose never changes and has no time line. */
const dynamicSteps = (steps: readonly TfStep[]): TfStep[] =>
  steps.filter((s) => !s.edge.static && s.edge.samples.length > 0);

/**
 * A path's pose over time, for resampling: from the first sample of any of its dynamic edges to the
 * last of any, null at a time where one of them has no value (see edgeAt). Null when the path has no
 * dynamic edge (a pose that never changes has no time line).
 */
export function chainTrack(steps: readonly TfStep[], maxGap: number): PoseTrack | null {
  const dyn = dynamicSteps(steps);
  if (dyn.length === 0) return null;
  return {
    first: Math.min(...dyn.map((s) => s.edge.samples[0]!.t)),
    last: Math.max(...dyn.map((s) => s.edge.samples[s.edge.samples.length - 1]!.t)),
    at: (t) => chainAt(steps, t, maxGap),
  };
}
