import { FREE, OCCUPIED, type OccupancyGrid, UNKNOWN } from '../../../main/core/map/occupancy.js';
import { createRng } from '../../../main/core/random/rng.js';

/** A random map: free with random occupied and unknown boxes and speckle. */
export function randomGrid(seed: number, w: number, h: number, res = 0.1): OccupancyGrid {
  const rng = createRng(seed);
  const cells = new Uint8Array(w * h).fill(FREE);
  const boxes = rng.int(0, 6);
  for (let b = 0; b < boxes; b++) {
    const c0 = rng.int(0, w - 1),
      r0 = rng.int(0, h - 1),
      cw = rng.int(1, 6),
      rh = rng.int(1, 6),
      v = rng.next() < 0.7 ? OCCUPIED : UNKNOWN;
    for (let r = r0; r < Math.min(h, r0 + rh); r++)
      for (let c = c0; c < Math.min(w, c0 + cw); c++) cells[r * w + c] = v;
  }
  for (let i = 0; i < w * h; i++) if (rng.next() < 0.01) cells[i] = OCCUPIED;
  return { width: w, height: h, resolution: res, originX: -1.3 + rng.next(), originY: 0.7 - rng.next(), cells };
}
