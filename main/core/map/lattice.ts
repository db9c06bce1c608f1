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

interface MapGraphNode {
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

/** The graph under construction: the grid and options, and the nodes and edges so far (parallel arrays). */
interface Build {
  readonly g: OccupancyGrid;
  readonly dist2: Float64Array;
  readonly o: MapGraphOptions;
  readonly where: { readonly regions: string; readonly start: string };
  readonly query: ClearanceQuery;
  /** The clearance in cells. */
  readonly rc: number;
  /** The lattice step in cells, and the lattice's size. */
  readonly k: number;
  readonly nI: number;
  readonly nJ: number;
  /** Node index of lattice point (i, j) at j·nI + i, or -1. */
  readonly latticeIndex: Int32Array;
  readonly xs: number[];
  readonly ys: number[];
  readonly ids: string[];
  readonly kinds: MapGraphNode['kind'][];
  readonly eu: number[];
  readonly ev: number[];
  readonly ew: number[];
  /** Nodes off the lattice (the given start, regions' nodes), which later nodes may join. */
  readonly extras: number[];
}

function addNode(b: Build, x: number, y: number, id: string, kind: MapGraphNode['kind']): number {
  const n = b.xs.length;
  b.xs.push(x);
  b.ys.push(y);
  b.ids.push(id);
  b.kinds.push(kind);
  return n;
}

function addEdge(b: Build, u: number, v: number): void {
  b.eu.push(u);
  b.ev.push(v);
  b.ew.push(Math.hypot(b.xs[u]! - b.xs[v]!, b.ys[u]! - b.ys[v]!));
}

/** The lattice nodes (free cells with clearance) and the clear edges between them. */
function addLattice(b: Build): void {
  const { g, k, nI, nJ } = b;
  const li: number[] = [],
    lj: number[] = [];
  for (let j = 0; j < nJ; j++) {
    const row = g.height - 1 - j * k;
    for (let i = 0; i < nI; i++) {
      const col = i * k;
      if (g.cells[row * g.width + col] !== FREE || !b.query(col, row, b.rc)) continue;
      const [x, y] = cellCentre(g, col, row);
      b.latticeIndex[j * nI + i] = addNode(b, x, y, `n_${i}_${j}`, 'lattice');
      li.push(i);
      lj.push(j);
    }
  }
  const { xs, ys } = b;
  for (let n = 0; n < li.length; n++) {
    const i = li[n]!,
      j = lj[n]!;
    for (const [di, dj] of OFFSETS) {
      const i2 = i + di,
        j2 = j + dj;
      if (i2 < 0 || i2 >= nI || j2 < 0 || j2 >= nJ) continue;
      const m = b.latticeIndex[j2 * nI + i2]!;
      if (m >= 0 && segmentClear(g, b.query, xs[n]!, ys[n]!, xs[m]!, ys[m]!, b.o.clearance)) addEdge(b, n, m);
    }
  }
}

/** The number of connected components of the first `count` nodes, and each one's degree. */
function components(b: Build, count: number): { components: number; degree: Int32Array } {
  const parent = Int32Array.from({ length: count }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  for (let e = 0; e < b.eu.length; e++) parent[find(b.eu[e]!)] = find(b.ev[e]!);
  let components = 0;
  for (let n = 0; n < count; n++) if (find(n) === n) components++;
  const degree = new Int32Array(count);
  for (let e = 0; e < b.eu.length; e++) {
    degree[b.eu[e]!]!++;
    degree[b.ev[e]!]!++;
  }
  return { components, degree };
}

/**
 * Lattice nodes (and extra nodes) within `reach` lattice steps of (x, y) joined to it by clear segments, nearest
 * first.
 */
function neighboursOf(b: Build, x: number, y: number, accept: (n: number) => boolean): number[] {
  const { g, k, nI, nJ, xs, ys } = b;
  const res = g.resolution;
  for (const reach of [2, 4]) {
    const ci = Math.round(((x - g.originX) / res - 0.5) / k),
      cj = Math.round(((y - g.originY) / res - 0.5) / k);
    const found: number[] = [];
    for (let j = Math.max(0, cj - reach); j <= Math.min(nJ - 1, cj + reach); j++) {
      for (let i = Math.max(0, ci - reach); i <= Math.min(nI - 1, ci + reach); i++) {
        const m = b.latticeIndex[j * nI + i]!;
        if (m >= 0 && accept(m)) found.push(m);
      }
    }
    for (const m of b.extras)
      if (accept(m) && Math.hypot(xs[m]! - x, ys[m]! - y) <= reach * k * res * Math.SQRT2) found.push(m);
    const ok = found.filter((m) => segmentClear(g, b.query, x, y, xs[m]!, ys[m]!, b.o.clearance));
    if (ok.length > 0)
      return ok.sort((p, q) => Math.hypot(xs[p]! - x, ys[p]! - y) - Math.hypot(xs[q]! - x, ys[q]! - y));
  }
  return [];
}

/** Why a point cannot hold a node, or null when it is free and clear. */
function pointProblem(b: Build, x: number, y: number): string | null {
  const c = cellAt(b.g, x, y);
  if (c === null) return `outside the map (${extentText(b.g)})`;
  const cls = b.g.cells[c.row * b.g.width + c.col]!;
  if (cls !== FREE) return `in an ${CELL_NAMES[cls]} cell (column ${c.col}, row ${c.row} of the image)`;
  const d = pointClearance(b.g, b.dist2, x, y);
  if (d < b.o.clearance)
    return `only ${fmt(d)} m from an occupied or unknown cell; the clearance is ${fmt(b.o.clearance)} m`;
  return null;
}

/** The start node: the given point joined to nearby nodes, or the lattice node with an edge nearest the origin. */
function placeStart(
  b: Build,
  latticeNodes: number,
  degree: Int32Array,
): { start: number; from: MapGraph['startFrom'] } {
  const { k, where, o } = b;
  const res = b.g.resolution;
  if (o.start !== undefined) {
    const [sx, sy] = o.start;
    const problem = pointProblem(b, sx, sy);
    if (problem !== null) throw new InputError(where.start, at(sx, sy), `the start is ${problem}`);
    const near = neighboursOf(b, sx, sy, () => true);
    if (near.length === 0)
      throw new InputError(
        where.start,
        at(sx, sy),
        `no clear straight segment joins the start to a graph node within ${fmt(4 * k * res)} m; move it or lower --clearance`,
      );
    const start = addNode(b, sx, sy, 'start', 'start');
    for (const m of near) addEdge(b, start, m);
    return { start, from: 'given' };
  }
  let best = -1,
    bestD = Infinity;
  for (let n = 0; n < latticeNodes; n++) {
    const d = Math.hypot(b.xs[n]!, b.ys[n]!);
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
  return { start: best, from: 'nearest-origin' };
}

/** Marks the start's connected component (room left for the regions' nodes). */
function startComponent(b: Build, start: number): Uint8Array {
  const inComp = new Uint8Array(b.xs.length + b.o.regions.length);
  const adj: number[][] = Array.from({ length: b.xs.length }, () => []);
  for (let e = 0; e < b.eu.length; e++) {
    adj[b.eu[e]!]!.push(b.ev[e]!);
    adj[b.ev[e]!]!.push(b.eu[e]!);
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
  return inComp;
}

/** The region's free cell count, and its free cell farthest from blocked ones (squared distance in cells). */
function regionCells(b: Build, r: Region): { cellsIn: number; freeIn: number; bestCell: number; bestD2: number } {
  const { g, dist2 } = b;
  const res = g.resolution,
    W = g.width,
    H = g.height;
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
  return { cellsIn, freeIn, bestCell, bestD2 };
}

/** A node of its own for a region the start's component misses; false when the component already covers it. */
function placeRegion(b: Build, r: Region, ri: number, inComp: Uint8Array): boolean {
  const { g, where, o, xs, ys } = b;
  const W = g.width;
  const path = `$.regions[${ri}]`,
    name = `region "${r.name}" (${regionText(r)})`;
  const { cellsIn, freeIn, bestCell, bestD2 } = regionCells(b, r);
  if (cellsIn === 0) throw new InputError(where.regions, path, `${name} has no cell in the map (${extentText(g)})`);
  if (freeIn === 0)
    throw new InputError(where.regions, path, `${name}: every one of its ${cellsIn} cells is occupied or unknown`);
  const covered = xs.some((x, n) => inComp[n] === 1 && inRegion(r, x, ys[n]!));
  if (covered) return false;
  const [cx, cy] = r.kind === 'disk' ? r.center : [(r.min[0] + r.max[0]) / 2, (r.min[1] + r.max[1]) / 2];
  let px = cx,
    py = cy;
  if (pointProblem(b, cx, cy) !== null) {
    if (bestD2 < b.rc * b.rc) {
      const [bx, by] = cellCentre(g, bestCell % W, Math.floor(bestCell / W));
      throw new InputError(
        where.regions,
        path,
        `${name}: no free point of it is ${fmt(o.clearance)} m (the clearance) from occupied and unknown cells; the most is ${fmt(Math.sqrt(bestD2) * g.resolution)} m, at ${at(bx, by)}`,
      );
    }
    [px, py] = cellCentre(g, bestCell % W, Math.floor(bestCell / W));
  }
  const near = neighboursOf(b, px, py, (m) => inComp[m] === 1);
  if (near.length === 0)
    throw new InputError(
      where.regions,
      path,
      `${name}: its free point ${at(px, py)} cannot be joined to the start's part of the map by a clear segment (walled off, or narrower than the clearance of ${fmt(o.clearance)} m)`,
    );
  const n = addNode(b, px, py, `r_${r.name}`, 'region');
  inComp[n] = 1;
  for (const m of near) addEdge(b, n, m);
  b.extras.push(n);
  return true;
}

export function buildMapGraph(g: OccupancyGrid, dist2: Float64Array, o: MapGraphOptions): MapGraph {
  const res = g.resolution;
  const k = Math.max(1, Math.round(o.spacing / res));
  const nI = Math.floor((g.width - 1) / k) + 1,
    nJ = Math.floor((g.height - 1) / k) + 1;
  const b: Build = {
    g,
    dist2,
    o,
    where: o.where ?? { regions: 'regions', start: '--start' },
    query: o.query ?? fieldClearance(g, dist2),
    rc: o.clearance / res,
    k,
    nI,
    nJ,
    latticeIndex: new Int32Array(nI * nJ).fill(-1),
    xs: [],
    ys: [],
    ids: [],
    kinds: [],
    eu: [],
    ev: [],
    ew: [],
    extras: [],
  };
  addLattice(b);
  const latticeNodes = b.xs.length;
  const { components: parts, degree } = components(b, latticeNodes);
  const { start, from: startFrom } = placeStart(b, latticeNodes, degree);
  const inComp = startComponent(b, start);
  let kept = 0;
  for (let n = 0; n < latticeNodes; n++) if (inComp[n] === 1) kept++;
  if (b.kinds[start] === 'start') b.extras.push(start);
  const regionNodes: string[] = [];
  o.regions.forEach((r, ri) => {
    if (placeRegion(b, r, ri, inComp)) regionNodes.push(r.name);
  });
  const { xs, ys, eu, ev, ew } = b;
  // renumber: the start's component only
  const index = new Int32Array(xs.length).fill(-1);
  const nodes: MapGraphNode[] = [];
  for (let n = 0; n < xs.length; n++) {
    if (inComp[n] !== 1) continue;
    index[n] = nodes.length;
    nodes.push({ id: b.ids[n]!, x: xs[n]!, y: ys[n]!, labels: labelAt(o.regions, xs[n]!, ys[n]!), kind: b.kinds[n]! });
  }
  const straight: { from: number; to: number; weight: number }[] = [];
  for (let e = 0; e < eu.length; e++) {
    const u = index[eu[e]!]!,
      v = index[ev[e]!]!;
    if (u >= 0 && v >= 0) straight.push({ from: u, to: v, weight: ew[e]! });
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
    components: parts,
    dropped: latticeNodes - kept,
    regionNodes,
    crossings: split.crossings.length,
  };
}
