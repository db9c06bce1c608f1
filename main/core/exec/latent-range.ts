/**
 * How far a latent distance tracks the maze: for every pair of free cells, ‖z(a) − z(b)‖ (z = ψ of
 * the cell centre at rest) against the geodesic distance in cells — per geodesic distance the
 * median, min and max latent distance, and how often, from one cell, of two cells at least 2 cells
 * apart in geodesic distance the latent distance ranks the farther one nearer (or equal). A value
 * V(s, g) = −‖ψ(s) − ψ(g)‖ that HIQL can steer by needs that fraction near 0 at long range. Pure.
 */
import { type MazeLayout, distancesFrom, freeCells } from '../world/maze.js';

export interface LatentRange {
  /** Per geodesic distance d (cells, ≥ 1): median, min and max latent distance, and the number of ordered pairs. */
  readonly byCells: readonly {
    readonly cells: number;
    readonly median: number;
    readonly min: number;
    readonly max: number;
    readonly pairs: number;
  }[];
  /**
   * (anchor, nearer, farther) triples with geodesic(farther) − geodesic(nearer) ≥ 2, and those the latent ranks
   * wrongly.
   */
  readonly triples: number;
  readonly misranked: number;
}

/** `latents`: one per free cell, in freeCells(layout) order. */
export function latentRange(layout: MazeLayout, latents: readonly Float32Array[]): LatentRange {
  const cells = freeCells(layout),
    cols = layout.grid[0]!.length;
  if (latents.length !== cells.length)
    throw new RangeError(`latentRange: ${latents.length} latents for ${cells.length} free cells`);
  const dist = (a: number, b: number): number => {
    let s = 0;
    const za = latents[a]!,
      zb = latents[b]!;
    for (let q = 0; q < za.length; q++) s += (za[q]! - zb[q]!) ** 2;
    return Math.sqrt(s);
  };
  const by = new Map<number, number[]>();
  let triples = 0,
    misranked = 0;
  for (let a = 0; a < cells.length; a++) {
    const d = distancesFrom(layout, cells[a]!);
    const geo = cells.map((c) => d[c.i * cols + c.j]!);
    const lat = cells.map((_, b) => dist(a, b));
    for (let b = 0; b < cells.length; b++) {
      if (b === a || geo[b]! < 1) continue;
      let xs = by.get(geo[b]!);
      if (xs === undefined) by.set(geo[b]!, (xs = []));
      xs.push(lat[b]!);
    }
    for (let n = 0; n < cells.length; n++) {
      if (n === a || geo[n]! < 0) continue;
      for (let f = 0; f < cells.length; f++) {
        if (geo[f]! - geo[n]! < 2) continue;
        triples++;
        if (lat[n]! >= lat[f]!) misranked++;
      }
    }
  }
  const byCells = [...by.keys()]
    .sort((x, y) => x - y)
    .map((cells) => {
      const xs = by.get(cells)!.sort((x, y) => x - y);
      return { cells, median: xs[xs.length >> 1]!, min: xs[0]!, max: xs[xs.length - 1]!, pairs: xs.length };
    });
  return { byCells, triples, misranked };
}
