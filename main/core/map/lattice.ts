/**
 * A labelled graph from an occupancy grid (`witness graph from-map`): nodes on a square lattice in
 * free space with clearance, edges along straight segments that keep the clearance, a start node,
 * a node of its own for every region the lattice misses, labels from the regions. Pure.
 *
 * - Lattice: every k-th cell in both directions, k = max(1, round(spacing / resolution)), from the
 *   bottom-left cell (so node positions are cell centres: x = origin.x + (i·k + ½)·res); a lattice
 *   cell is a node when it is free and its distance to the nearest blocked cell centre is at least
 *   the clearance. Ids `n_<i>_<j>` (i along x, j along y, from the bottom-left).
 * - Edges: to the lattice neighbours at offsets (1,0) (0,1) (1,±1) (1,±2) (2,±1) — 16 directions —
 *   when `segmentClear` accepts the straight segment; weight = its length in metres.
 * - Start: `start` at the given point (free, with clearance, joined to nearby nodes by clear
 *   segments), or else the lattice node nearest the map frame's origin (0, 0) that has an edge.
 * - Only the start's connected component is kept (the rest cannot be reached); the others are counted.
 * - Regions: a region with no node of the kept component gets `r_<name>` at its centre when that is
 *   free and clear, else at its cell with the most clearance, joined to nearby nodes by clear
 *   segments; a region with no free cell, no clear point or no clear segment to the component is an
 *   error, as is a start that is not free and clear.
 * - Crossings: last, every edge that passes through a region neither of its ends is in is split there
 *   (core/plan/crossings.ts): a crossing node `<a>~<b>#k` inside each run of labels along it.
 */
import { InputError } from '../input/json.js';
import { type Region, inRegion, labelAt } from '../world/regions.js';
import { splitEdges } from '../plan/crossings.js';
import { type ClearanceQuery, fieldClearance, pointClearance, segmentClear } from './clearance.js';
import { CELL_NAMES, FREE, type OccupancyGrid, cellAt, cellCentre, extentText } from './occupancy.js';

export interface MapGraphOptions {
  /** Lattice spacing in metres (rounded to whole cells). */
  readonly spacing: number;
  /** Clearance in metres from occupied and unknown cells, for nodes and edges. */
  readonly clearance: number;
  readonly regions: readonly Region[];
  /** The start point in the map frame; default: the node nearest (0, 0). */
  readonly start?: readonly [number, number];
  /** How clearance is answered (default: from the distance field); the benchmark passes the naive scan. */
  readonly query?: ClearanceQuery;
  /** Split edges where they cross a region (default true); the benchmark's baseline turns it off. */
  readonly splitCrossings?: boolean;
  /** Names of the regions file and the start flag, for errors. */
  readonly where?: { readonly regions: string; readonly start: string };
}

export interface MapGraphNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly labels: readonly string[];
  readonly kind: 'lattice' | 'region' | 'start' | 'crossing';
}

export interface MapGraph {
  readonly nodes: readonly MapGraphNode[];
  readonly edges: readonly { readonly from: number; readonly to: number; readonly weight: number }[];
  readonly start: number;
  /** How the start was chosen. */
  readonly startFrom: 'given' | 'nearest-origin';
  /** The lattice step actually used (a whole number of cells), metres. */
  readonly spacing: number;
  /** Lattice nodes (free and clear) before the start's component was kept. */
  readonly latticeNodes: number;
  /** Connected components of those lattice nodes (isolated nodes included). */
  readonly components: number;
  /** Lattice nodes dropped because the start cannot reach them. */
  readonly dropped: number;
  /** Regions that got a node of their own. */
  readonly regionNodes: readonly string[];
  /** Crossing nodes: where an edge passes through a region neither of its ends is in (core/plan/crossings.ts). */
  readonly crossings: number;
}

/** Lattice offsets (i, j) of the edges from a node, one per undirected pair: 16 directions. */
const OFFSETS: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [1, 1],
  [1, -1],
  [1, 2],
  [2, 1],
  [1, -2],
  [2, -1],
];

const fmt = (v: number): string => String(Math.round(v * 1000) / 1000);
const at = (x: number, y: number): string => `(${fmt(x)}, ${fmt(y)})`;

function regionText(r: Region): string {
  return r.kind === 'disk'
    ? `disk at ${at(r.center[0], r.center[1])} radius ${fmt(r.radius)}`
    : `box ${at(r.min[0], r.min[1])}–${at(r.max[0], r.max[1])}`;
}

export function buildMapGraph(g: OccupancyGrid, dist2: Float64Array, o: MapGraphOptions): MapGraph {
  const where = o.where ?? { regions: 'regions', start: '--start' };
  const res = g.resolution,
    W = g.width,
    H = g.height;
  const query = o.query ?? fieldClearance(g, dist2);
  const rc = o.clearance / res;
  const k = Math.max(1, Math.round(o.spacing / res));
  const nI = Math.floor((W - 1) / k) + 1,
    nJ = Math.floor((H - 1) / k) + 1;
  const xs: number[] = [],
    ys: number[] = [],
    ids: string[] = [],
    kinds: MapGraphNode['kind'][] = [];
  const latticeIndex = new Int32Array(nI * nJ).fill(-1);
  const li: number[] = [],
    lj: number[] = [];
  for (let j = 0; j < nJ; j++) {
    const row = H - 1 - j * k;
    for (let i = 0; i < nI; i++) {
      const col = i * k;
      if (g.cells[row * W + col] !== FREE || !query(col, row, rc)) continue;
      const [x, y] = cellCentre(g, col, row);
      latticeIndex[j * nI + i] = xs.length;
      xs.push(x);
      ys.push(y);
      ids.push(`n_${i}_${j}`);
      kinds.push('lattice');
      li.push(i);
      lj.push(j);
    }
  }
  const latticeNodes = xs.length;
  const eu: number[] = [],
    ev: number[] = [],
    ew: number[] = [];
  const clear = (a: number, b: number): boolean => segmentClear(g, query, xs[a]!, ys[a]!, xs[b]!, ys[b]!, o.clearance);
  const addEdge = (a: number, b: number): void => {
    eu.push(a);
    ev.push(b);
    ew.push(Math.hypot(xs[a]! - xs[b]!, ys[a]! - ys[b]!));
  };
  for (let n = 0; n < latticeNodes; n++) {
    const i = li[n]!,
      j = lj[n]!;
    for (const [di, dj] of OFFSETS) {
      const i2 = i + di,
        j2 = j + dj;
      if (i2 < 0 || i2 >= nI || j2 < 0 || j2 >= nJ) continue;
      const m = latticeIndex[j2 * nI + i2]!;
      if (m >= 0 && clear(n, m)) addEdge(n, m);
    }
  }
  // components of the lattice
  const parent = Int32Array.from({ length: latticeNodes }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  for (let e = 0; e < eu.length; e++) parent[find(eu[e]!)] = find(ev[e]!);
  let components = 0;
  for (let n = 0; n < latticeNodes; n++) if (find(n) === n) components++;
  const degree = new Int32Array(latticeNodes);
  for (let e = 0; e < eu.length; e++) {
    degree[eu[e]!]!++;
    degree[ev[e]!]!++;
  }

  /**
   * Lattice nodes (and extra nodes) within `reach` lattice steps of (x, y) joined to it by clear segments, nearest
   * first.
   */
  const extras: number[] = [];
  const neighboursOf = (x: number, y: number, accept: (n: number) => boolean): number[] => {
    for (const reach of [2, 4]) {
      const ci = Math.round(((x - g.originX) / res - 0.5) / k),
        cj = Math.round(((y - g.originY) / res - 0.5) / k);
      const found: number[] = [];
      for (let j = Math.max(0, cj - reach); j <= Math.min(nJ - 1, cj + reach); j++) {
        for (let i = Math.max(0, ci - reach); i <= Math.min(nI - 1, ci + reach); i++) {
          const m = latticeIndex[j * nI + i]!;
          if (m >= 0 && accept(m)) found.push(m);
        }
      }
      for (const m of extras)
        if (accept(m) && Math.hypot(xs[m]! - x, ys[m]! - y) <= reach * k * res * Math.SQRT2) found.push(m);
      const ok = found.filter((m) => segmentClear(g, query, x, y, xs[m]!, ys[m]!, o.clearance));
      if (ok.length > 0)
        return ok.sort((a, b) => Math.hypot(xs[a]! - x, ys[a]! - y) - Math.hypot(xs[b]! - x, ys[b]! - y));
    }
    return [];
  };

  /** Why a point cannot hold a node, or null when it is free and clear. */
  const pointProblem = (x: number, y: number): string | null => {
    const c = cellAt(g, x, y);
    if (c === null) return `outside the map (${extentText(g)})`;
    const cls = g.cells[c.row * W + c.col]!;
    if (cls !== FREE) return `in an ${CELL_NAMES[cls]} cell (column ${c.col}, row ${c.row} of the image)`;
    const d = pointClearance(g, dist2, x, y);
    if (d < o.clearance)
      return `only ${fmt(d)} m from an occupied or unknown cell; the clearance is ${fmt(o.clearance)} m`;
    return null;
  };

  let start: number, startFrom: MapGraph['startFrom'];
  if (o.start !== undefined) {
    const [sx, sy] = o.start;
    const problem = pointProblem(sx, sy);
    if (problem !== null) throw new InputError(where.start, at(sx, sy), `the start is ${problem}`);
    const near = neighboursOf(sx, sy, () => true);
    if (near.length === 0)
      throw new InputError(
        where.start,
        at(sx, sy),
        `no clear straight segment joins the start to a graph node within ${fmt(4 * k * res)} m; move it or lower --clearance`,
      );
    start = xs.length;
    xs.push(sx);
    ys.push(sy);
    ids.push('start');
    kinds.push('start');
    for (const m of near) addEdge(start, m);
    startFrom = 'given';
  } else {
    let best = -1,
      bestD = Infinity;
    for (let n = 0; n < latticeNodes; n++) {
      const d = Math.hypot(xs[n]!, ys[n]!);
      if (degree[n]! > 0 && d < bestD) {
        best = n;
        bestD = d;
      }
    }
    if (best < 0)
      throw new InputError(
        where.start,
        '(default)',
        `no two lattice nodes of the map are joined by a clear segment (spacing ${fmt(k * res)} m, clearance ${fmt(o.clearance)} m): lower --spacing or --clearance`,
      );
    start = best;
    startFrom = 'nearest-origin';
  }

  // the start's component
  const inComp = new Uint8Array(xs.length + o.regions.length);
  const adj: number[][] = Array.from({ length: xs.length }, () => []);
  for (let e = 0; e < eu.length; e++) {
    adj[eu[e]!]!.push(ev[e]!);
    adj[ev[e]!]!.push(eu[e]!);
  }
  const stack = [start];
  inComp[start] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (const v of adj[u]!)
      if (inComp[v] === 0) {
        inComp[v] = 1;
        stack.push(v);
      }
  }
  let kept = 0;
  for (let n = 0; n < latticeNodes; n++) if (inComp[n] === 1) kept++;
  if (kinds[start] === 'start') extras.push(start);

  // regions
  const regionNodes: string[] = [];
  o.regions.forEach((r, ri) => {
    const path = `$.regions[${ri}]`,
      name = `region "${r.name}" (${regionText(r)})`;
    const [x0, y0, x1, y1] =
      r.kind === 'disk'
        ? [r.center[0] - r.radius, r.center[1] - r.radius, r.center[0] + r.radius, r.center[1] + r.radius]
        : [r.min[0], r.min[1], r.max[0], r.max[1]];
    const c0 = Math.max(0, Math.floor((x0 - g.originX) / res)),
      c1 = Math.min(W - 1, Math.floor((x1 - g.originX) / res));
    const rTop = Math.max(0, H - 1 - Math.floor((y1 - g.originY) / res)),
      rBot = Math.min(H - 1, H - 1 - Math.floor((y0 - g.originY) / res));
    let cellsIn = 0,
      freeIn = 0,
      bestCell = -1,
      bestD2 = -1;
    for (let row = rTop; row <= rBot; row++) {
      for (let col = c0; col <= c1; col++) {
        const [x, y] = cellCentre(g, col, row);
        if (!inRegion(r, x, y)) continue;
        cellsIn++;
        if (g.cells[row * W + col] !== FREE) continue;
        freeIn++;
        if (dist2[row * W + col]! > bestD2) {
          bestD2 = dist2[row * W + col]!;
          bestCell = row * W + col;
        }
      }
    }
    if (cellsIn === 0) throw new InputError(where.regions, path, `${name} has no cell in the map (${extentText(g)})`);
    if (freeIn === 0)
      throw new InputError(where.regions, path, `${name}: every one of its ${cellsIn} cells is occupied or unknown`);
    const covered = xs.some((x, n) => inComp[n] === 1 && inRegion(r, x, ys[n]!));
    if (covered) return;
    const [cx, cy] = r.kind === 'disk' ? r.center : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];
    let px = cx,
      py = cy;
    if (pointProblem(cx, cy) !== null) {
      if (bestD2 < rc * rc) {
        const [bx, by] = cellCentre(g, bestCell % W, Math.floor(bestCell / W));
        throw new InputError(
          where.regions,
          path,
          `${name}: no free point of it is ${fmt(o.clearance)} m (the clearance) from occupied and unknown cells; the most is ${fmt(Math.sqrt(bestD2) * res)} m, at ${at(bx, by)}`,
        );
      }
      [px, py] = cellCentre(g, bestCell % W, Math.floor(bestCell / W));
    }
    const near = neighboursOf(px, py, (m) => inComp[m] === 1);
    if (near.length === 0)
      throw new InputError(
        where.regions,
        path,
        `${name}: its free point ${at(px, py)} cannot be joined to the start's part of the map by a clear segment (walled off, or narrower than the clearance of ${fmt(o.clearance)} m)`,
      );
    const n = xs.length;
    xs.push(px);
    ys.push(py);
    ids.push(`r_${r.name}`);
    kinds.push('region');
    inComp[n] = 1;
    for (const m of near) addEdge(n, m);
    extras.push(n);
    regionNodes.push(r.name);
  });

  // renumber: the start's component only
  const index = new Int32Array(xs.length).fill(-1);
  const nodes: MapGraphNode[] = [];
  for (let n = 0; n < xs.length; n++) {
    if (inComp[n] !== 1) continue;
    index[n] = nodes.length;
    nodes.push({ id: ids[n]!, x: xs[n]!, y: ys[n]!, labels: labelAt(o.regions, xs[n]!, ys[n]!), kind: kinds[n]! });
  }
  const straight: { from: number; to: number; weight: number }[] = [];
  for (let e = 0; e < eu.length; e++) {
    const a = index[eu[e]!]!,
      b = index[ev[e]!]!;
    if (a >= 0 && b >= 0) straight.push({ from: a, to: b, weight: ew[e]! });
  }
  // Edges carry what they cross: split where they pass through a region neither end is in.
  const split = splitEdges(nodes, straight, o.splitCrossings === false ? [] : o.regions);
  for (const c of split.crossings) nodes.push({ id: c.id, x: c.x, y: c.y, labels: c.labels, kind: 'crossing' });
  return {
    nodes,
    edges: split.edges,
    start: index[start]!,
    startFrom,
    spacing: k * res,
    latticeNodes,
    components,
    dropped: latticeNodes - kept,
    regionNodes,
    crossings: split.crossings.length,
  };
}
