/**
 * Clearance on an occupancy grid: how far a point is from the nearest blocked cell (occupied or
 * unknown; everything outside the map counts as blocked), measured to blocked cell centres.
 *
 * - `distanceField`: the exact squared Euclidean distance transform (Felzenszwalb & Huttenlocher
 *   2012, two passes of 1-D lower envelopes of parabolas, O(cells)), in cells², per cell centre.
 * - `segmentClear`: a conservative test that a straight segment keeps a clearance: it walks every
 *   cell the segment passes through (Amanatides–Woo) and, for the piece of the segment inside cell
 *   c, bounds clearance(q) ≥ D(c) − |q − centre(c)| (triangle inequality), the worst case being one
 *   end of the piece. So an accepted segment never comes within `clearance` of a blocked cell
 *   centre and never enters a blocked cell; a segment may be refused that a denser exact test
 *   would accept by at most half a cell diagonal.
 * - `naiveClearance`: the same queries answered by scanning every cell within the radius (the
 *   benchmark's baseline; identical answers).
 * Pure.
 */
import { FREE, type OccupancyGrid } from './occupancy.js';

/** "No blocked cell centre lies strictly within r cells of the centre of (col, row)": D(col, row) ≥ r. */
export type ClearanceQuery = (col: number, row: number, rCells: number) => boolean;

/** 1-D squared distance transform of f (length n) into d, with scratch v (int) and z (n + 1). */
function dt1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    const fq = f[q]! + q * q;
    let s = (fq - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    while (s <= z[k]!) {
      k--;
      s = (fq - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1]! < q) k++;
    const dq = q - v[k]!;
    d[q] = dq * dq + f[v[k]!]!;
  }
}

/**
 * Squared distance (in cells²) from each cell centre to the nearest blocked cell centre, cells
 * outside the map included (the grid is padded by one blocked cell on every side). Blocked cells have 0.
 */
export function distanceField(g: OccupancyGrid): Float64Array {
  const W = g.width + 2,
    H = g.height + 2;
  const grid = new Float64Array(W * H);
  // pass 1, along rows (contiguous): squared distance to the nearest blocked cell of the row, by two
  // sweeps (for a binary image the 1-D transform needs no parabolas); the padding blocks both ends
  for (let r = 0; r < H; r++) {
    const o = r * W,
      inside = r > 0 && r < H - 1;
    let last = -Infinity;
    for (let c = 0; c < W; c++) {
      const blocked = !inside || c === 0 || c === W - 1 || g.cells[(r - 1) * g.width + (c - 1)] !== FREE;
      if (blocked) last = c;
      grid[o + c] = c - last;
    }
    last = Infinity;
    for (let c = W - 1; c >= 0; c--) {
      if (grid[o + c] === 0) last = c;
      const d = Math.min(grid[o + c]!, last - c);
      grid[o + c] = d * d;
    }
  }
  // pass 2, along columns: the lower envelope of parabolas (Felzenszwalb–Huttenlocher)
  const f = new Float64Array(H),
    d = new Float64Array(H),
    v = new Int32Array(H),
    z = new Float64Array(H + 1);
  const out = new Float64Array(g.width * g.height);
  for (let c = 1; c < W - 1; c++) {
    for (let r = 0; r < H; r++) f[r] = grid[r * W + c]!;
    dt1d(f, H, d, v, z);
    for (let r = 1; r < H - 1; r++) out[(r - 1) * g.width + (c - 1)] = d[r]!;
  }
  return out;
}

/** Queries answered from the distance field in O(1). */
export function fieldClearance(g: OccupancyGrid, dist2: Float64Array): ClearanceQuery {
  const w = g.width;
  return (col, row, r) => dist2[row * w + col]! >= r * r;
}

/** Queries answered by scanning every cell within the radius (the baseline of `witness bench map`). */
export function naiveClearance(g: OccupancyGrid): ClearanceQuery {
  const { width: w, height: h, cells } = g;
  return (col, row, r) => {
    const r2 = r * r,
      R = Math.ceil(r);
    for (let dr = -R; dr <= R; dr++) {
      const rr = row + dr;
      for (let dc = -R; dc <= R; dc++) {
        if (dc * dc + dr * dr >= r2) continue;
        const cc = col + dc;
        if (rr < 0 || rr >= h || cc < 0 || cc >= w || cells[rr * w + cc] !== FREE) return false;
      }
    }
    return true;
  };
}

/**
 * Whether the segment (ax, ay)–(bx, by) (metres, map frame) stays in free cells and at least
 * `clearance` metres from every blocked cell centre (conservatively; see the module comment).
 */
export function segmentClear(
  g: OccupancyGrid,
  query: ClearanceQuery,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  clearance: number,
): boolean {
  const res = g.resolution,
    w = g.width,
    h = g.height;
  // continuous cell coordinates: u along columns, v along rows (downwards)
  const u0 = (ax - g.originX) / res,
    v0 = h - (ay - g.originY) / res;
  const du = (bx - g.originX) / res - u0,
    dv = h - (by - g.originY) / res - v0;
  let col = Math.floor(u0),
    row = Math.floor(v0);
  const stepC = du > 0 ? 1 : du < 0 ? -1 : 0,
    stepR = dv > 0 ? 1 : dv < 0 ? -1 : 0;
  const dtC = stepC !== 0 ? 1 / Math.abs(du) : Infinity,
    dtR = stepR !== 0 ? 1 / Math.abs(dv) : Infinity;
  let tC = stepC > 0 ? (col + 1 - u0) / du : stepC < 0 ? (col - u0) / du : Infinity;
  let tR = stepR > 0 ? (row + 1 - v0) / dv : stepR < 0 ? (row - v0) / dv : Infinity;
  const rc = clearance / res;
  let tIn = 0;
  for (;;) {
    if (col < 0 || col >= w || row < 0 || row >= h || g.cells[row * w + col] !== FREE) return false;
    const tOut = Math.min(tC, tR, 1);
    const cu = col + 0.5,
      cv = row + 0.5;
    const e = Math.max(
      Math.hypot(u0 + du * tIn - cu, v0 + dv * tIn - cv),
      Math.hypot(u0 + du * tOut - cu, v0 + dv * tOut - cv),
    );
    if (!query(col, row, rc + e)) return false;
    if (tOut >= 1) return true;
    if (tC < tR) {
      col += stepC;
      tIn = tC;
      tC += dtC;
    } else {
      row += stepR;
      tIn = tR;
      tR += dtR;
    }
  }
}

/** The exact clearance of a point (metres): its distance to the nearest blocked cell centre, outside cells included. */
export function pointClearance(g: OccupancyGrid, dist2: Float64Array, x: number, y: number): number {
  const res = g.resolution;
  const u = (x - g.originX) / res,
    v = g.height - (y - g.originY) / res;
  const col = Math.floor(u),
    row = Math.floor(v);
  if (col < 0 || col >= g.width || row < 0 || row >= g.height) return 0;
  // the nearest blocked centre to the cell's centre bounds the point's from above
  const R = Math.ceil(Math.sqrt(dist2[row * g.width + col]!) + Math.hypot(u - col - 0.5, v - row - 0.5)) + 1;
  let best = Infinity;
  for (let r = row - R; r <= row + R; r++) {
    for (let c = col - R; c <= col + R; c++) {
      const blocked = r < 0 || r >= g.height || c < 0 || c >= g.width || g.cells[r * g.width + c] !== FREE;
      if (!blocked) continue;
      const d = (c + 0.5 - u) ** 2 + (r + 0.5 - v) ** 2;
      if (d < best) best = d;
    }
  }
  return Math.sqrt(best) * res;
}
