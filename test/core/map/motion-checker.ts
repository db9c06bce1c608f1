/**
 * An independent check of a plan on the motion: the robot drives straight legs between the plan's
 * node positions, and this samples every leg densely, labels every sample by its own point-in-region
 * test (closed disks and boxes, written here apart from core/world), and reads the lasso word the
 * continuous path produces. It shares nothing with the planner, the graph builder or the crossing
 * split; the word is then judged by the lasso evaluators.
 */
export type CheckRegion =
  | {
      readonly name: string;
      readonly kind: 'disk';
      readonly center: readonly [number, number];
      readonly radius: number;
    }
  | {
      readonly name: string;
      readonly kind: 'box';
      readonly min: readonly [number, number];
      readonly max: readonly [number, number];
    };

type Point = readonly [number, number];

function contains(r: CheckRegion, x: number, y: number): boolean {
  if (r.kind === 'box') return r.min[0] <= x && x <= r.max[0] && r.min[1] <= y && y <= r.max[1];
  return (x - r.center[0]) ** 2 + (y - r.center[1]) ** 2 <= r.radius ** 2;
}

const letterAt = (regions: readonly CheckRegion[], x: number, y: number): string[] =>
  regions
    .filter((r) => contains(r, x, y))
    .map((r) => r.name)
    .sort();

/**
 * The letters along a polyline, `step_m` apart or closer on each leg, each leg's end left to the
 * next leg (so the polyline's last point is not sampled), consecutive equal letters merged.
 */
export function lettersAlong(points: readonly Point[], regions: readonly CheckRegion[], step_m: number): string[][] {
  const out: string[][] = [];
  const push = (l: string[]): void => {
    const last = out[out.length - 1];
    if (last === undefined || last.join('\u0000') !== l.join('\u0000')) out.push(l);
  };
  for (let i = 0; i + 1 < points.length; i++) {
    const [ax, ay] = points[i]!,
      [bx, by] = points[i + 1]!;
    const n = Math.ceil(Math.hypot(bx - ax, by - ay) / step_m);
    for (let s = 0; s < n; s++) push(letterAt(regions, ax + ((bx - ax) * s) / n, ay + ((by - ay) * s) / n));
  }
  return out;
}

/**
 * The lasso word of the motion of a plan (prefix node ids, suffix node ids ending at the prefix's
 * last): the prefix's legs, then the cycle's legs from the prefix's last node round to it again.
 */
export function drivenLasso(
  prefix: readonly string[],
  suffix: readonly string[],
  pos: ReadonlyMap<string, Point>,
  regions: readonly CheckRegion[],
  step_m: number,
): { prefix: Set<string>[]; cycle: Set<string>[] } {
  const at = (id: string): Point => {
    const p = pos.get(id);
    if (p === undefined) throw new Error(`the plan names node ${id}, which has no position`);
    return p;
  };
  const end = prefix[prefix.length - 1]!;
  const pre = lettersAlong(prefix.map(at), regions, step_m);
  let cycle = lettersAlong([end, ...suffix].map(at), regions, step_m);
  if (cycle.length === 0) cycle = [letterAt(regions, ...at(end))];
  return { prefix: pre.map((l) => new Set(l)), cycle: cycle.map((l) => new Set(l)) };
}
