/**
 * Labelled task-space regions: the label function L_φ(s) = {ℓ | Π(s) ∈ R_ℓ} of a mission, read from a
 * regions file (docs/FORMATS.md). Disks and axis-aligned boxes in the world's x–y plane. Pure.
 */
import { InputError, checkSchema } from '../input/json.js';
import { type RegionEntry, RegionsDocument, jsonSchema } from '../../contract/formats.js';
import type { Rng } from '../random/rng.js';
import { type MazeLayout, cellCenter, freeCells } from './maze.js';

export type Region =
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

export interface RegionSet {
  readonly world?: string;
  readonly regions: readonly Region[];
}

/** The published schema of regions files (docs/schemas/regions.schema.json). */
export const REGIONS_SCHEMA = jsonSchema(RegionsDocument);

type RawRegion = RegionEntry;

/** Validates a parsed regions document. */
export function parseRegions(value: unknown, file: string): RegionSet {
  const raw = checkSchema<RegionsDocument>(RegionsDocument, value, file);
  const seen = new Map<string, number>();
  const regions = raw.regions.map((r, i): Region => {
    const at = `$.regions[${i}]`;
    const prev = seen.get(r.name);
    if (prev !== undefined)
      throw new InputError(file, `${at}.name`, `duplicate region "${r.name}" (also $.regions[${prev}])`);
    seen.set(r.name, i);
    const need = (field: keyof RawRegion): void => {
      if (r[field] === undefined) throw new InputError(file, at, `a ${r.kind} needs "${field}"`);
    };
    const forbid = (field: keyof RawRegion): void => {
      if (r[field] !== undefined) throw new InputError(file, `${at}.${field}`, `a ${r.kind} has no "${field}"`);
    };
    if (r.kind === 'disk') {
      need('center');
      need('radius');
      forbid('min');
      forbid('max');
      return { name: r.name, kind: 'disk', center: [r.center![0]!, r.center![1]!], radius: r.radius! };
    }
    need('min');
    need('max');
    forbid('center');
    forbid('radius');
    for (const k of [0, 1] as const) {
      if (!(r.min![k]! < r.max![k]!))
        throw new InputError(file, `${at}.max[${k}]`, `must be greater than min[${k}] (${r.min![k]})`);
    }
    return { name: r.name, kind: 'box', min: [r.min![0]!, r.min![1]!], max: [r.max![0]!, r.max![1]!] };
  });
  return raw.world === undefined ? { regions } : { world: raw.world, regions };
}

export function inRegion(r: Region, x: number, y: number): boolean {
  if (r.kind === 'disk') {
    const dx = x - r.center[0],
      dy = y - r.center[1];
    return dx * dx + dy * dy <= r.radius * r.radius;
  }
  return x >= r.min[0] && x <= r.max[0] && y >= r.min[1] && y <= r.max[1];
}

/** L(s) for a task-space point: the names of the regions containing it, in file order. */
export function labelAt(regions: readonly Region[], x: number, y: number): string[] {
  return regions.filter((r) => inRegion(r, x, y)).map((r) => r.name);
}

function overlaps(a: Region, b: Region): boolean {
  if (a.kind === 'disk' && b.kind === 'disk') {
    return Math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) <= a.radius + b.radius;
  }
  if (a.kind === 'box' && b.kind === 'box') {
    return a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] && b.min[1] <= a.max[1];
  }
  const d = a.kind === 'disk' ? a : (b as Extract<Region, { kind: 'disk' }>);
  const x = a.kind === 'box' ? a : (b as Extract<Region, { kind: 'box' }>);
  const cx = Math.min(Math.max(d.center[0], x.min[0]), x.max[0]);
  const cy = Math.min(Math.max(d.center[1], x.min[1]), x.max[1]);
  return Math.hypot(cx - d.center[0], cy - d.center[1]) <= d.radius;
}

/** No two regions share a point (closed sets), so at most one proposition holds anywhere. */
export function pairwiseDisjoint(regions: readonly Region[]): boolean {
  for (let i = 0; i < regions.length; i++)
    for (let j = i + 1; j < regions.length; j++) if (overlaps(regions[i]!, regions[j]!)) return false;
  return true;
}

/** Default disk radius of generated task regions: well inside a 4 m maze cell. */
const TASK_REGION_RADIUS_M = 1.5;

/**
 * Task regions as the SAGAS benchmark grounds them (Appendix E): one disk per name, centred in
 * distinct random free cells, hence pairwise disjoint when the radius is under half a cell.
 */
export function sampleDiskRegions(
  layout: MazeLayout,
  names: readonly string[],
  rng: Rng,
  radius = TASK_REGION_RADIUS_M,
): Region[] {
  const cells = freeCells(layout);
  if (names.length > cells.length)
    throw new RangeError(`${names.length} regions need as many free cells; ${layout.id} has ${cells.length}`);
  return rng.sample(cells, names.length).map((c, i) => {
    const { x, y } = cellCenter(layout, c);
    return { name: names[i]!, kind: 'disk', center: [x, y], radius };
  });
}
