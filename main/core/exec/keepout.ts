/**
 * Where the robot may not go, on the motion rather than on the graph: the letters a straight piece
 * of path reads (they change only where it enters or leaves a region: segment-labels.ts), the first point of a
 * path where the specification's monitor would have no accepting continuation, and the keepout mask
 * for the robot's own planner (Nav2's keepout filter) — a grid whose cells are kept out when some
 * point in them could read a letter that is dead now. Pure.
 */
import type { LetterSteps } from '../ltl/forbidden.js';
import type { Region } from '../world/regions.js';
import { segmentRuns } from '../world/segment-labels.js';
import type { KeepoutGrid } from '../world/world.js';

export interface Pt {
  readonly x: number;
  readonly y: number;
}

export interface Reading {
  readonly x: number;
  readonly y: number;
  /** The regions containing the point, in the regions' order (labelAt's letter). */
  readonly letter: readonly string[];
}

/**
 * The letters read along the segment a→b, in order, consecutive repeats merged, each with the point
 * where the segment begins to read it (core/world/segment-labels.ts segmentRuns: regions are
 * closed, so a touch counts).
 */
export function segmentLetters(regions: readonly Region[], a: Pt, b: Pt): Reading[] {
  return segmentRuns(regions, a.x, a.y, b.x, b.y).map((r) => ({
    x: r.from === 0 ? a.x : r.from === 1 ? b.x : a.x + r.from * (b.x - a.x),
    y: r.from === 0 ? a.y : r.from === 1 ? b.y : a.y + r.from * (b.y - a.y),
    letter: r.labels,
  }));
}

/** Where a path first reads a dead letter. */
export interface PathEntry extends Reading {
  /** The regions entered there (in the letter, not in the one before); empty when leaving one is what is forbidden. */
  readonly entered: readonly string[];
  readonly left: readonly string[];
  /** The index of the straight piece (points[i] → points[i + 1]) it is on. */
  readonly piece: number;
}

/**
 * Follows the polyline from the monitor's state set, reading each new letter as the runtime monitor
 * would (stutter-free: mission specifications have no X), and returns the first point whose letter
 * leaves no accepting continuation, or null, with the states after the whole path.
 */
export function pathEntry(
  steps: LetterSteps,
  states: readonly number[],
  regions: readonly Region[],
  points: readonly Pt[],
): { readonly entry: PathEntry | null; readonly states: readonly number[] } {
  let now = [...states];
  let prev: readonly string[] | null = null;
  if (points.length === 0) return { entry: null, states: now };
  for (let i = 0; i < Math.max(1, points.length - 1); i++) {
    const a = points[i]!,
      b = points[Math.min(i + 1, points.length - 1)]!;
    for (const r of segmentLetters(regions, a, b)) {
      if (prev !== null && prev.join('\u0000') === r.letter.join('\u0000')) continue;
      const next = steps.next(now, r.letter);
      if (!steps.viable(next)) {
        const before = prev ?? [];
        return {
          entry: {
            ...r,
            entered: r.letter.filter((n) => !before.includes(n)),
            left: before.filter((n) => !r.letter.includes(n)),
            piece: i,
          },
          states: next,
        };
      }
      now = next;
      prev = r.letter;
    }
  }
  return { entry: null, states: now };
}

/** The most cells a keepout mask may have (a 100 m × 100 m floor at 5 cm). */
const MAX_MASK_CELLS = 4_000_000;

/** A grid over the points and every region, `margin_m` beyond, at `resolution_m`; a RangeError past MAX_MASK_CELLS. */
export function maskGrid(
  points: readonly Pt[],
  regions: readonly Region[],
  resolution_m: number,
  margin_m: number,
): Omit<KeepoutGrid, 'data'> {
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  const take = (x: number, y: number): void => {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  };
  for (const p of points) take(p.x, p.y);
  for (const r of regions) {
    const [x0, y0, x1, y1] = box(r);
    take(x0, y0);
    take(x1, y1);
  }
  if (!Number.isFinite(minX)) throw new RangeError('a keepout mask needs a place: no points and no regions');
  const originX = Math.floor((minX - margin_m) / resolution_m) * resolution_m;
  const originY = Math.floor((minY - margin_m) / resolution_m) * resolution_m;
  const width = Math.ceil((maxX + margin_m - originX) / resolution_m);
  const height = Math.ceil((maxY + margin_m - originY) / resolution_m);
  if (width * height > MAX_MASK_CELLS) {
    throw new RangeError(
      `a keepout mask over (${minX.toFixed(1)}, ${minY.toFixed(1)})–(${maxX.toFixed(1)}, ${maxY.toFixed(1)}) m at ${resolution_m} m would have ${width} × ${height} cells, more than ${MAX_MASK_CELLS}: choose a coarser resolution_m`,
    );
  }
  return { originX, originY, resolution_m, width, height };
}

function box(r: Region): readonly [number, number, number, number] {
  return r.kind === 'box'
    ? [r.min[0], r.min[1], r.max[0], r.max[1]]
    : [r.center[0] - r.radius, r.center[1] - r.radius, r.center[0] + r.radius, r.center[1] + r.radius];
}

/** A cell meets the region (closed sets: a shared edge counts). */
function touches(r: Region, x0: number, y0: number, x1: number, y1: number): boolean {
  if (r.kind === 'box') return r.min[0] <= x1 && x0 <= r.max[0] && r.min[1] <= y1 && y0 <= r.max[1];
  const cx = Math.min(Math.max(r.center[0], x0), x1),
    cy = Math.min(Math.max(r.center[1], y0), y1);
  return Math.hypot(cx - r.center[0], cy - r.center[1]) <= r.radius;
}

/** The region holds everywhere in the cell (its four corners, regions being convex). */
function covers(r: Region, x0: number, y0: number, x1: number, y1: number): boolean {
  if (r.kind === 'box') return r.min[0] <= x0 && x1 <= r.max[0] && r.min[1] <= y0 && y1 <= r.max[1];
  const inside = (x: number, y: number): boolean => Math.hypot(x - r.center[0], y - r.center[1]) <= r.radius;
  return inside(x0, y0) && inside(x1, y0) && inside(x0, y1) && inside(x1, y1);
}

/** Metres: cell edges are compared with this much slack (rounding), on the side of keeping out. */
const EDGE = 1e-9;

/** More regions than this crossing one cell: the cell is kept out without enumerating its letters. */
const MAX_PARTIAL = 6;

/**
 * A mask's cells grouped by the letters a point in them may read: the regions covering the cell
 * always, with any subset of those only touching it. Built once per mission; `mask` then costs one
 * dead-letter question per group and one pass over the grid.
 */
export class KeepoutCells {
  /** Per group: the letters its cells may read, or null (too many regions cross it to enumerate). */
  private readonly groups: (readonly (readonly string[])[] | null)[] = [[[]]];
  /** The group of each cell that some region touches (the others are group 0: the empty letter). */
  private readonly cellGroup = new Map<number, number>();

  constructor(
    readonly grid: Omit<KeepoutGrid, 'data'>,
    private readonly regions: readonly Region[],
  ) {
    const { originX, originY, resolution_m: res, width, height } = grid;
    const parts = new Map<number, { full: number[]; partial: number[] }>();
    regions.forEach((r, k) => {
      const [x0, y0, x1, y1] = box(r);
      const i0 = Math.max(0, Math.floor((x0 - originX) / res) - 1),
        i1 = Math.min(width - 1, Math.floor((x1 - originX) / res) + 1);
      const j0 = Math.max(0, Math.floor((y0 - originY) / res) - 1),
        j1 = Math.min(height - 1, Math.floor((y1 - originY) / res) + 1);
      for (let j = j0; j <= j1; j++) {
        for (let i = i0; i <= i1; i++) {
          const cx0 = originX + i * res,
            cy0 = originY + j * res,
            cx1 = originX + (i + 1) * res,
            cy1 = originY + (j + 1) * res;
          // Grown by a hair for the rounding of i × res: a region ending on a cell edge keeps that cell out too.
          if (!touches(r, cx0 - EDGE, cy0 - EDGE, cx1 + EDGE, cy1 + EDGE)) continue;
          const cell = j * width + i;
          let p = parts.get(cell);
          if (p === undefined) parts.set(cell, (p = { full: [], partial: [] }));
          (covers(r, cx0, cy0, cx1, cy1) ? p.full : p.partial).push(k);
        }
      }
    });
    const byKey = new Map<string, number>([['|', 0]]);
    for (const [cell, p] of parts) {
      const key = `${p.full.join(',')}|${p.partial.join(',')}`;
      let g = byKey.get(key);
      if (g === undefined) {
        g = this.groups.length;
        byKey.set(key, g);
        this.groups.push(this.lettersOf(p.full, p.partial));
      }
      this.cellGroup.set(cell, g);
    }
  }

  private lettersOf(full: readonly number[], partial: readonly number[]): (readonly string[])[] | null {
    if (partial.length > MAX_PARTIAL) return null;
    const out: string[][] = [];
    for (let m = 0; m < 1 << partial.length; m++) {
      const ks = [...full, ...partial.filter((_, b) => (m >> b) & 1)].sort((a, b) => a - b);
      out.push(ks.map((k) => this.regions[k]!.name));
    }
    return out;
  }

  /** Which groups of cells are kept out from the monitor's states, as a string: equal strings, equal masks. */
  signature(steps: LetterSteps, states: readonly number[]): string {
    return this.groups
      .map((letters) => (letters === null || letters.some((l) => steps.dead(states, l)) ? '1' : '0'))
      .join('');
  }

  /** The mask from the monitor's states: 100 (keep out) where some letter of the cell is dead, 0 elsewhere. */
  mask(
    steps: LetterSteps,
    states: readonly number[],
  ): { readonly grid: KeepoutGrid; readonly keptOut: number; readonly signature: string } {
    const signature = this.signature(steps, states);
    const dead = [...signature].map((c) => c === '1');
    const { width, height } = this.grid;
    const data = new Int8Array(width * height);
    if (dead[0]) data.fill(100);
    let keptOut = dead[0] ? width * height : 0;
    for (const [cell, g] of this.cellGroup) {
      const v = dead[g] ? 100 : 0;
      if (v !== data[cell]) keptOut += v === 100 ? 1 : -1;
      data[cell] = v;
    }
    return { grid: { ...this.grid, data }, keptOut, signature };
  }
}
