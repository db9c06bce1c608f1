/**
 * What a straight motion passes through: the label sets L(p) (core/world/regions.ts labelAt: closed
 * disks and boxes) along the segment from a to b, in order, with equal neighbours merged. Each run
 * carries a parameter t ∈ [0, 1] of a point that has exactly the run's labels: the first run holds
 * a (t = 0), the last holds b (t = 1), and every other run's point is where a graph puts the node
 * that stands for it (core/plan/crossings.ts); `from` is where the run begins, the place a path
 * enters it (core/exec/keepout.ts). Pure.
 *
 * A region's membership can change along a segment only where the segment meets the region's
 * boundary: a box's four lines (x = min/max, y = min/max) or a disk's circle. Those parameters cut
 * the segment into open intervals of constant labels; the intervals and the cut points are labelled
 * at a point of each, so a point that only touches a region (a tangent, a corner) is a run of its own
 * when labelAt says so there, and every label is labelAt of an actual point.
 */
import { type Region, labelAt } from './regions.js';

export interface LabelRun {
  /** The labels (file order of the regions, as labelAt gives them). */
  readonly labels: readonly string[];
  /** A parameter along the segment where labelAt gives exactly `labels`; 0 for the first run, 1 for the last. */
  readonly t: number;
  /** Where the run begins: 0 for the first, else the boundary the segment crosses into it. */
  readonly from: number;
}

/** Parameters in (0, 1) where the segment meets the region's boundary (lines or circle), unsorted. */
function boundaryHits(r: Region, ax: number, ay: number, dx: number, dy: number, out: number[]): void {
  const push = (t: number): void => {
    if (t > 0 && t < 1) out.push(t);
  };
  if (r.kind === 'box') {
    if (dx !== 0) {
      push((r.min[0] - ax) / dx);
      push((r.max[0] - ax) / dx);
    }
    if (dy !== 0) {
      push((r.min[1] - ay) / dy);
      push((r.max[1] - ay) / dy);
    }
    return;
  }
  // |a + t·d − c|² = r²
  const fx = ax - r.center[0],
    fy = ay - r.center[1];
  const A = dx * dx + dy * dy,
    B = 2 * (fx * dx + fy * dy),
    C = fx * fx + fy * fy - r.radius * r.radius;
  if (A === 0) return;
  const disc = B * B - 4 * A * C;
  if (disc < 0) return;
  const s = Math.sqrt(disc);
  push((-B - s) / (2 * A));
  push((-B + s) / (2 * A));
}

/** Whether the segment's bounding box meets the region's. */
function near(r: Region, x0: number, y0: number, x1: number, y1: number): boolean {
  const [rx0, ry0, rx1, ry1] =
    r.kind === 'disk'
      ? [r.center[0] - r.radius, r.center[1] - r.radius, r.center[0] + r.radius, r.center[1] + r.radius]
      : [r.min[0], r.min[1], r.max[0], r.max[1]];
  return x0 <= rx1 && rx0 <= x1 && y0 <= ry1 && ry0 <= y1;
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The runs of label sets along the segment a → b (at least one; one exactly when the labels never
 * change). Only regions whose bounding box meets the segment's are examined.
 */
export function segmentRuns(regions: readonly Region[], ax: number, ay: number, bx: number, by: number): LabelRun[] {
  const dx = bx - ax,
    dy = by - ay;
  const x0 = Math.min(ax, bx),
    x1 = Math.max(ax, bx),
    y0 = Math.min(ay, by),
    y1 = Math.max(ay, by);
  const local = regions.filter((r) => near(r, x0, y0, x1, y1));
  const at = (t: number): string[] =>
    t === 0 ? labelAt(local, ax, ay) : t === 1 ? labelAt(local, bx, by) : labelAt(local, ax + t * dx, ay + t * dy);
  const first = at(0);
  if (local.length === 0) return [{ labels: first, t: 0, from: 0 }];
  const hits: number[] = [];
  for (const r of local) boundaryHits(r, ax, ay, dx, dy, hits);
  hits.sort((p, q) => p - q);
  // Points in order: a, then each interval's midpoint and the cut point after it, then b.
  const points: number[] = [0];
  let prev = 0;
  for (const t of hits) {
    if (t - prev <= 1e-12) continue;
    points.push((prev + t) / 2, t);
    prev = t;
  }
  if (1 - prev > 1e-12) points.push((prev + 1) / 2);
  points.push(1);
  // Group equal neighbours. A run stands at its middle interval midpoint (inside the region, away from
  // its boundary), or at its cut point when it is nothing but one (a touch).
  // Points alternate: even indices are a, the cut points and b; odd ones interval midpoints. A run
  // that begins at a midpoint began at the cut before it.
  const groups: { labels: string[]; mids: number[]; cut: number; from: number }[] = [];
  points.forEach((t, i) => {
    const labels = at(t);
    let last = groups[groups.length - 1];
    if (last === undefined || !same(last.labels, labels))
      groups.push((last = { labels, mids: [], cut: t, from: i % 2 === 1 ? points[i - 1]! : t }));
    if (i % 2 === 1) last.mids.push(t);
  });
  if (groups.length === 1) return [{ labels: first, t: 0, from: 0 }];
  return groups.map((g, i) => ({
    labels: g.labels,
    t:
      i === 0
        ? 0
        : i === groups.length - 1
          ? 1
          : g.mids.length > 0
            ? g.mids[Math.floor((g.mids.length - 1) / 2)]!
            : g.cut,
    from: g.from,
  }));
}
