/**
 * Point-maze layouts (the OGBench maps), the continuous ↔ cell mapping, and ground truth for later
 * quality checks: free cells and geodesic (BFS) distances between them. Pure.
 *
 * Coordinates follow OGBench so imported OGBench data lines up: cell (i, j) — row i, column j — has
 * its centre at x = j·unit − offset, y = i·unit − offset, with unit = offset = 4 m.
 */
import { WitnessError } from '../../contract/errors.js';
import type { WorldMap } from './world.js';

type Grid = readonly (readonly number[])[];

export interface MazeLayout {
  readonly id: string;
  /** 1 = wall, 0 = free; rows top to bottom (i), columns left to right (j). */
  readonly grid: Grid;
  /** Cell size in metres. */
  readonly unit_m: number;
  /** World position of cell (0, 0)'s centre is (−offset, −offset). */
  readonly offset_m: number;
}

export class LayoutError extends WitnessError {
  override readonly name = 'LayoutError';
  constructor(
    readonly where: string,
    readonly field: string,
    detail: string,
  ) {
    super('invalid-input', `${where}: ${field}: ${detail}`, { file: where, path: field });
  }
}

const M = (rows: string[]): number[][] => rows.map((r) => [...r].map((c) => (c === '#' ? 1 : 0)));

/** OGBench's medium (8×8), large (9×12) and giant (12×16) point mazes. */
export const MAZES: Readonly<Record<'medium' | 'large' | 'giant', MazeLayout>> = {
  medium: {
    id: 'medium',
    unit_m: 4,
    offset_m: 4,
    grid: M(['########', '#..##..#', '#..#...#', '##...###', '#..#...#', '#.#..#.#', '#...#..#', '########']),
  },
  large: {
    id: 'large',
    unit_m: 4,
    offset_m: 4,
    grid: M([
      '############',
      '#....#.....#',
      '#.##.#.#.#.#',
      '#......#...#',
      '#.####.###.#',
      '#..#.#.....#',
      '##.#.#.#.###',
      '#..#...#...#',
      '############',
    ]),
  },
  giant: {
    id: 'giant',
    unit_m: 4,
    offset_m: 4,
    grid: M([
      '################',
      '#.#......##....#',
      '#.#.##.#.#..##.#',
      '#...#..#...#...#',
      '#.###.######.#.#',
      '#...#...#....#.#',
      '###.#.#..#.#.###',
      '#...#..#...#...#',
      '#.#.#.######.#.#',
      '#.###...#...##.#',
      '#.....#...#....#',
      '################',
    ]),
  },
};

export interface Cell {
  readonly i: number;
  readonly j: number;
}

/** Checks a grid: rectangular, 0/1 only, walled border, at least two free cells, all connected. */
export function validateLayout(layout: MazeLayout, where = layout.id): void {
  const g: Grid = layout.grid;
  if (!Array.isArray(layout.grid) || g.length < 3) throw new LayoutError(where, 'grid', 'needs at least 3 rows');
  const cols = g[0]!.length;
  if (cols < 3) throw new LayoutError(where, 'grid[0]', 'needs at least 3 columns');
  g.forEach((row: readonly number[], i: number) => {
    if (row.length !== cols) throw new LayoutError(where, `grid[${i}]`, `has ${row.length} cells, row 0 has ${cols}`);
    row.forEach((v: number, j: number) => {
      if (v !== 0 && v !== 1)
        throw new LayoutError(where, `grid[${i}][${j}]`, `must be 0 (free) or 1 (wall), got ${String(v)}`);
      const border = i === 0 || j === 0 || i === g.length - 1 || j === cols - 1;
      if (border && v !== 1) throw new LayoutError(where, `grid[${i}][${j}]`, 'border cells must be walls');
    });
  });
  if (!(layout.unit_m > 0) || !Number.isFinite(layout.unit_m))
    throw new LayoutError(where, 'unit_m', 'must be a positive number');
  if (!Number.isFinite(layout.offset_m)) throw new LayoutError(where, 'offset_m', 'must be a number');
  const free = freeCells(layout);
  if (free.length < 2) throw new LayoutError(where, 'grid', 'needs at least two free cells');
  const d = distancesFrom(layout, free[0]!);
  const cut = free.find((c) => d[c.i * cols + c.j] === -1);
  if (cut)
    throw new LayoutError(
      where,
      `grid[${cut.i}][${cut.j}]`,
      `free cell not connected to cell (${free[0]!.i}, ${free[0]!.j})`,
    );
}

export function isFree(layout: MazeLayout, i: number, j: number): boolean {
  return layout.grid[i]?.[j] === 0;
}

export function freeCells(layout: MazeLayout): Cell[] {
  const out: Cell[] = [];
  layout.grid.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v === 0) out.push({ i, j });
    }),
  );
  return out;
}

export function cellCenter(layout: MazeLayout, c: Cell): { x: number; y: number } {
  return { x: c.j * layout.unit_m - layout.offset_m, y: c.i * layout.unit_m - layout.offset_m };
}

/** The cell a continuous position lies in (walls included), or null outside the grid. */
export function cellAt(layout: MazeLayout, x: number, y: number): Cell | null {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
  const j = Math.round((x + layout.offset_m) / layout.unit_m);
  const i = Math.round((y + layout.offset_m) / layout.unit_m);
  if (i < 0 || j < 0 || i >= layout.grid.length || j >= layout.grid[0]!.length) return null;
  return { i, j };
}

const STEPS: readonly [number, number][] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

/** BFS steps from one cell to every cell (−1: wall or unreachable), indexed i·cols + j. */
export function distancesFrom(layout: MazeLayout, from: Cell): Int32Array {
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const dist = new Int32Array(rows * cols).fill(-1);
  if (!isFree(layout, from.i, from.j)) return dist;
  const queue = [from.i * cols + from.j];
  dist[queue[0]!] = 0;
  for (let k = 0; k < queue.length; k++) {
    const v = queue[k]!;
    const i = Math.floor(v / cols),
      j = v % cols;
    for (const [di, dj] of STEPS) {
      const ni = i + di,
        nj = j + dj;
      const w = ni * cols + nj;
      if (isFree(layout, ni, nj) && dist[w] === -1) {
        dist[w] = dist[v]! + 1;
        queue.push(w);
      }
    }
  }
  return dist;
}

/** Geodesic distances (in cells) between all free cells: matrix[a][b] over freeCells order. */
export function geodesicMatrix(layout: MazeLayout): { cells: Cell[]; distance: Int32Array } {
  const cells = freeCells(layout);
  const cols = layout.grid[0]!.length;
  const n = cells.length;
  const distance = new Int32Array(n * n);
  cells.forEach((c, a) => {
    const d = distancesFrom(layout, c);
    cells.forEach((e, b) => {
      distance[a * n + b] = d[e.i * cols + e.j]!;
    });
  });
  return { cells, distance };
}

/** A shortest path of cells from `from` to `to` (both included), or null when unreachable. */
export function shortestPath(layout: MazeLayout, from: Cell, to: Cell): Cell[] | null {
  const cols = layout.grid[0]!.length;
  const d = distancesFrom(layout, to);
  if (d[from.i * cols + from.j] === -1) return null;
  const path: Cell[] = [from];
  let cur = from;
  while (cur.i !== to.i || cur.j !== to.j) {
    const here = d[cur.i * cols + cur.j]!;
    const next = STEPS.map(([di, dj]) => ({ i: cur.i + di, j: cur.j + dj })).find(
      (c) => isFree(layout, c.i, c.j) && d[c.i * cols + c.j] === here - 1,
    )!;
    path.push(next);
    cur = next;
  }
  return path;
}

/** The rectangle a maze covers, walls included (pictures and scenes are drawn over it). */
export function mazeBounds(layout: MazeLayout): WorldMap['bounds'] {
  const u = layout.unit_m,
    rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  return {
    minX: -layout.offset_m - u / 2,
    minY: -layout.offset_m - u / 2,
    maxX: cols * u - layout.offset_m - u / 2,
    maxY: rows * u - layout.offset_m - u / 2,
  };
}

/** A maze as a world map: starts must lie in a free cell; random starts are free cell centres. */
export function mazeMap(layout: MazeLayout, world: string): WorldMap & { readonly layout: MazeLayout } {
  const cells = freeCells(layout);
  return {
    layout,
    bounds: mazeBounds(layout),
    blocked(x, y) {
      const c = cellAt(layout, x, y);
      if (c === null) return `outside the ${world} maze`;
      return isFree(layout, c.i, c.j) ? null : `inside a wall of ${world} (cell row ${c.i}, column ${c.j})`;
    },
    randomFree(rng) {
      const c = cellCenter(layout, rng.pick(cells));
      return [c.x, c.y];
    },
    clearance: mazeClearance(layout),
  };
}

/**
 * Metres from (x, y) to the nearest wall cell of a maze (cells outside the grid count as walls; 0
 * inside a wall): exact, over the wall cells within two cells of the one (x, y) lies in. Farther
 * walls do not matter to the executor, whose clearances are under a cell; a point farther than two
 * cells from every wall reads as at least 1.5 cells clear.
 */
export function mazeClearance(layout: MazeLayout): (x: number, y: number) => number {
  const u = layout.unit_m,
    off = layout.offset_m,
    rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  return (x, y) => {
    const jc = Math.round((x + off) / u),
      ic = Math.round((y + off) / u);
    let best = Infinity;
    for (let i = ic - 2; i <= ic + 2; i++) {
      for (let j = jc - 2; j <= jc + 2; j++) {
        if (i >= 0 && j >= 0 && i < rows && j < cols && layout.grid[i]![j] === 0) continue;
        const dx = Math.max(Math.abs(x - (j * u - off)) - u / 2, 0),
          dy = Math.max(Math.abs(y - (i * u - off)) - u / 2, 0);
        best = Math.min(best, Math.hypot(dx, dy));
      }
    }
    return best;
  };
}
