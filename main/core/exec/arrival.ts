/**
 * Where a checkpoint's goal goes so that the robot stops inside the regions it must be in. A
 * navigator reports a goal reached anywhere within its goal tolerance (Nav2's SimpleGoalChecker:
 * xy_goal_tolerance, 0.25 m by default; the robot stops as soon as it is that close), so a waypoint
 * near a region's edge can be "reached" outside the region. The goal moves to the point nearest the
 * waypoint whose tolerance disc lies inside every region the checkpoint needs — as deep inside as
 * the region allows when it is narrower than the disc — and stays at the waypoint when that point
 * would read a label the checkpoint forbids, or a needed one is missing. Pure.
 */
import { type Region, labelAt } from '../world/regions.js';

/** The region shrunk by `inset` (a box by at most half its width on each axis, a disk to at least a point). */
function shrink(r: Region, inset: number): Region {
  if (r.kind === 'disk') return { ...r, radius: Math.max(0, r.radius - inset) };
  const lo: [number, number] = [0, 0],
    hi: [number, number] = [0, 0];
  for (const k of [0, 1] as const) {
    const mid = (r.min[k] + r.max[k]) / 2,
      d = Math.min(inset, (r.max[k] - r.min[k]) / 2);
    lo[k] = Math.min(mid, r.min[k] + d);
    hi[k] = Math.max(mid, r.max[k] - d);
  }
  return { ...r, min: lo, max: hi };
}

function project(r: Region, x: number, y: number): [number, number] {
  if (r.kind === 'box') return [Math.min(r.max[0], Math.max(r.min[0], x)), Math.min(r.max[1], Math.max(r.min[1], y))];
  const dx = x - r.center[0],
    dy = y - r.center[1],
    d = Math.hypot(dx, dy);
  return d <= r.radius ? [x, y] : [r.center[0] + (dx / d) * r.radius, r.center[1] + (dy / d) * r.radius];
}

/** Whether every sample of the disc of radius `rad` about (x, y) reads `pos` and none of `neg`; the centre must. */
function discFits(
  regions: readonly Region[],
  pos: readonly string[],
  neg: readonly string[],
  x: number,
  y: number,
  rad: number,
): { centre: boolean; disc: boolean } {
  const fits = (px: number, py: number): boolean => {
    const l = labelAt(regions, px, py);
    return pos.every((p) => l.includes(p)) && !neg.some((n) => l.includes(n));
  };
  let disc = true;
  for (let k = 0; k < 16 && disc; k++)
    disc = fits(x + rad * Math.cos((k * Math.PI) / 8), y + rad * Math.sin((k * Math.PI) / 8));
  return { centre: fits(x, y), disc };
}

/**
 * The goal for a waypoint at (x, y) that must read the labels `pos` and none of `neg`, for a
 * navigator that stops within `tolerance_m` of its goal; (x, y) itself when nothing is needed or
 * no better point exists.
 */
export function arrivalPoint(
  regions: readonly Region[],
  pos: readonly string[],
  neg: readonly string[],
  x: number,
  y: number,
  tolerance_m: number,
): { x: number; y: number } {
  const needed = pos.map((p) => regions.find((r) => r.name === p)).filter((r): r is Region => r !== undefined);
  if (needed.length === 0 || !(tolerance_m > 0)) return { x, y };
  if (discFits(regions, pos, neg, x, y, tolerance_m).disc) return { x, y };
  // The nearest point of the intersection of the shrunk regions (alternating projections onto convex sets).
  const inner = needed.map((r) => shrink(r, tolerance_m));
  let p: [number, number] = [x, y];
  for (let i = 0; i < 50; i++) for (const r of inner) p = project(r, p[0], p[1]);
  const fit = discFits(regions, pos, neg, p[0], p[1], tolerance_m);
  // A region narrower than the disc: as deep as it goes, if that point reads the labels and its disc no forbidden one.
  if (fit.disc || (fit.centre && discFits(regions, [], neg, p[0], p[1], tolerance_m).disc)) return { x: p[0], y: p[1] };
  return { x, y };
}
