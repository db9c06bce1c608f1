/**
 * Seeded synthetic floor plans as SLAM leaves them, for `witness bench map` and the tests: an n×n
 * grid of rooms behind outer walls (unknown outside), one door per inner wall, a corridor across
 * the middle, furniture and pillars (occupied boxes) kept away from walls and room centres, and a
 * few unknown patches (unexplored corners). Cells and a map_saver image (254 free, 0 occupied,
 * 205 unknown). Pure.
 */
import type { Rng } from '../random/rng.js';
import { FREE, OCCUPIED, type OccupancyGrid, UNKNOWN } from './occupancy.js';

export interface FloorPlan {
  readonly grid: OccupancyGrid;
  /** map_saver's grey levels per cell, row 0 at the top. */
  readonly gray: Uint8Array;
  /** Room centres (map frame), kept free of furniture within 1.5 m: places for regions. */
  readonly roomCentres: readonly (readonly [number, number])[];
}

const MAP_SAVER_GRAY = { [FREE]: 254, [OCCUPIED]: 0, [UNKNOWN]: 205 } as const;

/**
 * A square floor of `size` metres at `resolution` (the map frame's origin in its centre), with
 * rooms×rooms rooms; deterministic given the generator's state.
 */
export function floorPlan(rng: Rng, o: { size: number; resolution: number; rooms: number }): FloorPlan {
  const res = o.resolution,
    n = Math.round(o.size / res);
  const origin = -o.size / 2;
  const cells = new Uint8Array(n * n).fill(UNKNOWN);
  const rect = (x0: number, y0: number, x1: number, y1: number, v: number): void => {
    const c0 = Math.max(0, Math.ceil((x0 - origin) / res - 0.5)),
      c1 = Math.min(n - 1, Math.floor((x1 - origin) / res - 0.5));
    const b0 = Math.max(0, Math.ceil((y0 - origin) / res - 0.5)),
      b1 = Math.min(n - 1, Math.floor((y1 - origin) / res - 0.5));
    for (let b = b0; b <= b1; b++) cells.fill(v, (n - 1 - b) * n + c0, (n - 1 - b) * n + c1 + 1);
  };
  const margin = 1,
    t = 0.075;
  const lo = origin + margin,
    hi = origin + o.size - margin,
    room = (hi - lo) / o.rooms;
  rect(lo, lo, hi, hi, FREE);
  // walls: outer, then inner with one 1 m door each (the middle row's north walls open as a corridor)
  for (let k = 0; k <= o.rooms; k++) {
    const p = lo + k * room;
    rect(p - t, lo - t, p + t, hi + t, OCCUPIED);
    rect(lo - t, p - t, hi + t, p + t, OCCUPIED);
  }
  const mid = Math.floor(o.rooms / 2);
  for (let k = 1; k < o.rooms; k++) {
    for (let r = 0; r < o.rooms; r++) {
      const p = lo + k * room,
        a = lo + r * room;
      const door = a + 0.6 + rng.next() * (room - 2.2);
      rect(p - t - 0.01, door, p + t + 0.01, door + 1, FREE); // vertical wall x = p
      const door2 = a + 0.6 + rng.next() * (room - 2.2);
      rect(door2, p - t - 0.01, door2 + 1, p + t + 0.01, FREE); // horizontal wall y = p
    }
  }
  // a corridor: the wall between the middle row and the one above it is gone, save pillars
  const cy = lo + (mid + 1) * room;
  rect(lo + t + 0.01, cy - t - 0.01, hi - t - 0.01, cy + t + 0.01, FREE);
  for (let k = 1; k < o.rooms; k++) rect(lo + k * room - 0.2, cy - 0.2, lo + k * room + 0.2, cy + 0.2, OCCUPIED);
  const roomCentres: [number, number][] = [];
  for (let i = 0; i < o.rooms; i++) {
    for (let j = 0; j < o.rooms; j++) {
      const x0 = lo + i * room,
        y0 = lo + j * room,
        cx = x0 + room / 2,
        cyy = y0 + room / 2;
      roomCentres.push([cx, cyy]);
      const pieces = 3 + rng.int(0, 4);
      for (let f = 0; f < pieces; f++) {
        const w = 0.3 + rng.next() * 1.2,
          h = 0.3 + rng.next() * 1.2;
        const fx = x0 + 1.2 + rng.next() * (room - 2.4 - w),
          fy = y0 + 1.2 + rng.next() * (room - 2.4 - h);
        if (Math.hypot(fx + w / 2 - cx, fy + h / 2 - cyy) < 1.5 + Math.hypot(w, h) / 2) continue;
        rect(fx, fy, fx + w, fy + h, OCCUPIED);
      }
    }
  }
  // unexplored corners
  for (let u = 0; u < Math.max(1, o.rooms); u++) {
    const i = rng.int(0, o.rooms - 1),
      j = rng.int(0, o.rooms - 1);
    const x0 = lo + i * room + t,
      y0 = lo + j * room + t;
    rect(x0, y0, x0 + room * 0.3, y0 + room * 0.3, UNKNOWN);
  }
  const gray = new Uint8Array(n * n);
  for (let i = 0; i < n * n; i++) gray[i] = MAP_SAVER_GRAY[cells[i] as 0 | 1 | 2];
  return { grid: { width: n, height: n, resolution: res, originX: origin, originY: origin, cells }, gray, roomCentres };
}
