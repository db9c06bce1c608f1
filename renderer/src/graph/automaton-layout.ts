/**
 * The automaton view's pure geometry: where the states go (a circle, in breadth-first order from
 * the initial states), how each edge runs (straight; a pair of opposite edges bowed apart; a
 * self-loop and an entry arrow into the widest free angle at their state), and where each edge's
 * label goes (greedily, on its own edge, clear of every state and of every other label, one label
 * moved aside when that makes room), at the smallest scale of the circle where every label finds
 * room and the whole picture still fits its pane at a readable zoom. No DOM and no Cytoscape here:
 * cy-automaton.ts measures the labels, hands them in and draws what comes back (its edges are
 * Cytoscape unbundled-bezier edges with the control-point distances given here, so the paths below
 * are the ones on the screen to a pixel or two; each label is put exactly where it was placed).
 */

export interface Point {
  x: number;
  y: number;
}
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** States in breadth-first order from the initial states (successors by id), then any unreached ones by id. */
export function stateOrder(
  states: readonly { id: number; initial: boolean }[],
  edges: readonly { from: number; to: number }[],
): number[] {
  const next = new Map<number, number[]>();
  for (const e of edges) {
    if (e.from !== e.to) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const seen = new Set<number>();
  const order: number[] = [];
  const queue = states
    .filter((s) => s.initial)
    .map((s) => s.id)
    .sort((a, b) => a - b);
  for (const q of queue) seen.add(q);
  for (let i = 0; i < queue.length; i++) {
    const q = queue[i]!;
    order.push(q);
    for (const r of [...new Set(next.get(q) ?? [])].sort((a, b) => a - b)) {
      if (!seen.has(r)) {
        seen.add(r);
        queue.push(r);
      }
    }
  }
  for (const s of [...states].sort((a, b) => a.id - b.id)) if (!seen.has(s.id)) order.push(s.id);
  return order;
}

/**
 * The radius of a circle with `n` states `spacing` apart (neighbours' centres), at least `min`.
 * One state sits at the centre (radius 0).
 */
export function circleRadius(n: number, spacing: number, min: number): number {
  if (n <= 1) return 0;
  return Math.max(min, spacing / (2 * Math.sin(Math.PI / n)));
}

/** `n` points on a circle around the origin, the first at the top, going clockwise (y down). */
export function circlePoints(n: number, radius: number): Point[] {
  return Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    return { x: radius * Math.sin(a), y: -radius * Math.cos(a) };
  });
}

/**
 * Cytoscape's angle of the direction from `from` to `to`: from 12 o'clock, clockwise (y down),
 * in radians within (-π, π].
 */
export function clockAngle(from: Point, to: Point): number {
  return Math.atan2(to.x - from.x, -(to.y - from.y));
}

const TAU = 2 * Math.PI;
const norm = (a: number): number => ((a % TAU) + TAU) % TAU;

/**
 * The middle of the widest gap between the directions `taken` (clock angles), each widened by
 * `halfWidth` on both sides; with nothing taken, `fallback`. Ties go to the gap met first from 0.
 */
export function freeDirection(taken: readonly number[], halfWidth: number, fallback: number): number {
  if (taken.length === 0) return fallback;
  const a = [...taken].map(norm).sort((x, y) => x - y);
  let best = -Infinity,
    dir = fallback;
  for (let i = 0; i < a.length; i++) {
    const from = a[i]!,
      to = i + 1 < a.length ? a[i + 1]! : a[0]! + TAU;
    const gap = to - from - 2 * halfWidth;
    if (gap > best + 1e-9) {
      best = gap;
      dir = norm((from + to) / 2);
    }
  }
  return dir > Math.PI ? dir - TAU : dir;
}

/**
 * An edge's path as Cytoscape draws a bezier edge: from the source endpoint through its control
 * points to the target endpoint, as a chain of quadratic pieces (consecutive control points meet
 * at their midpoint); no control points is a straight line.
 */
export function edgePath(source: Point, controls: readonly Point[], target: Point): Point[] {
  if (controls.length === 0) return [source, target];
  const pts: Point[] = [source];
  controls.forEach((c, i) => {
    pts.push(c);
    const d = controls[i + 1];
    if (d !== undefined) pts.push({ x: (c.x + d.x) / 2, y: (c.y + d.y) / 2 });
  });
  pts.push(target);
  return pts;
}

/** The point at `t` ∈ [0, 1] along a path of edgePath, and the unit tangent there. */
export function pathAt(path: readonly Point[], t: number): { at: Point; tangent: Point } {
  const unit = (x: number, y: number): Point => {
    const l = Math.hypot(x, y);
    return l < 1e-12 ? { x: 1, y: 0 } : { x: x / l, y: y / l };
  };
  if (path.length === 2) {
    const [a, b] = path as [Point, Point];
    return { at: { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t }, tangent: unit(b.x - a.x, b.y - a.y) };
  }
  const pieces = (path.length - 1) / 2;
  const k = Math.min(pieces - 1, Math.floor(t * pieces));
  const u = t * pieces - k;
  const p0 = path[2 * k]!,
    p1 = path[2 * k + 1]!,
    p2 = path[2 * k + 2]!;
  const v = 1 - u;
  return {
    at: { x: v * v * p0.x + 2 * v * u * p1.x + u * u * p2.x, y: v * v * p0.y + 2 * v * u * p1.y + u * u * p2.y },
    tangent: unit(2 * v * (p1.x - p0.x) + 2 * u * (p2.x - p1.x), 2 * v * (p1.y - p0.y) + 2 * u * (p2.y - p1.y)),
  };
}

export const boxAt = (c: Point, w: number, h: number): Box => ({
  x1: c.x - w / 2,
  y1: c.y - h / 2,
  x2: c.x + w / 2,
  y2: c.y + h / 2,
});

/** Two boxes overlap (touching edges do not). */
export const overlaps = (a: Box, b: Box): boolean => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

export interface LabelToPlace {
  id: string;
  /** The edge's path (edgePath). */
  path: Point[];
  /** The label's box size, axis-aligned (labels are drawn level). */
  w: number;
  h: number;
  /** A self-loop: its label goes at the loop's far end, or further out along `outward`. */
  loop?: { outward: Point };
}

/** Where along an edge its label may go, best first: the middle, then outwards to both ends. */
const ALONG = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82];
/** Shifts across the edge, in parts of the label's extent across it: the edge still runs through the label. */
const ACROSS = [0, 0.45, -0.45, 0.9, -0.9];

/** The path as a polyline (16 chords a quadratic piece), for telling whether a box lies on it. */
function polyline(path: readonly Point[]): Point[] {
  const n = path.length === 2 ? 1 : 8 * (path.length - 1);
  return Array.from({ length: n + 1 }, (_, k) => pathAt(path, k / n).at);
}

/** A segment meets a box (Liang–Barsky clipping). */
function segmentMeets(a: Point, b: Point, box: Box): boolean {
  let t0 = 0,
    t1 = 1;
  const dx = b.x - a.x,
    dy = b.y - a.y;
  for (const [p, q] of [
    [-dx, a.x - box.x1],
    [dx, box.x2 - a.x],
    [-dy, a.y - box.y1],
    [dy, box.y2 - a.y],
  ] as const) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const r = q / p;
      if (p < 0) t0 = Math.max(t0, r);
      else t1 = Math.min(t1, r);
      if (t0 > t1) return false;
    }
  }
  return true;
}

/** A box lies on a path (as a polyline): the path runs through it. */
const meetsPolyline = (pts: readonly Point[], box: Box): boolean => {
  for (let i = 1; i < pts.length; i++) if (segmentMeets(pts[i - 1]!, pts[i]!, box)) return true;
  return false;
};

/** Candidate centres for one label, best first; every one keeps the label on its own edge. */
export function candidates(l: LabelToPlace): Point[] {
  const out: Point[] = [];
  if (l.loop !== undefined) {
    const apex = pathAt(l.path, 0.5).at,
      o = l.loop.outward;
    // Outwards from the loop's far end, then slid sideways (the loop still touches the label).
    const reach = (Math.abs(o.x) * l.w) / 2 + (Math.abs(o.y) * l.h) / 2;
    const side = (Math.abs(o.y) * l.w) / 2 + (Math.abs(o.x) * l.h) / 2;
    for (const across of [0, 0.4, -0.4, 0.8, -0.8]) {
      for (const k of [0, 0.5, 0.9])
        out.push({
          x: apex.x + o.x * reach * k - o.y * side * across,
          y: apex.y + o.y * reach * k + o.x * side * across,
        });
    }
  } else {
    for (const across of ACROSS) {
      for (const t of ALONG) {
        const { at, tangent } = pathAt(l.path, t);
        const n = { x: -tangent.y, y: tangent.x };
        const extent = (Math.abs(n.x) * l.w) / 2 + (Math.abs(n.y) * l.h) / 2;
        out.push({ x: at.x + n.x * extent * across, y: at.y + n.y * extent * across });
      }
    }
  }
  // A curved edge may bend away from a place shifted across it: only places it runs through.
  const pts = polyline(l.path);
  return out.filter((c) => meetsPolyline(pts, boxAt(c, l.w, l.h)));
}

const pathLength = (path: readonly Point[]): number => {
  let len = 0;
  for (let i = 1; i < path.length; i++) len += Math.hypot(path[i]!.x - path[i - 1]!.x, path[i]!.y - path[i - 1]!.y);
  return len;
};

/**
 * Places every label clear of the `obstacles` (the states) and of each other, at least `gap`
 * apart: self-loops first (they have their own room outside their state), then edges from the
 * shortest (fewest places to go), each at its first free candidate. A label with none may move
 * one label in its way to another free place of its own. Returns each label's centre, or null when
 * some label still found no place (the caller spreads the states further apart and tries again).
 */
export function placeLabels(
  labels: readonly LabelToPlace[],
  obstacles: readonly Box[],
  gap = 1,
): Map<string, Point> | null {
  const grow = (b: Box): Box => ({ x1: b.x1 - gap, y1: b.y1 - gap, x2: b.x2 + gap, y2: b.y2 + gap });
  const fixed: Box[] = obstacles.map(grow);
  const order = [...labels].sort(
    (a, b) =>
      Number(b.loop !== undefined) - Number(a.loop !== undefined) ||
      pathLength(a.path) - pathLength(b.path) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const options = new Map(
    order.map((l) => [
      l.id,
      candidates(l)
        .map((p) => ({ at: p, box: grow(boxAt(p, l.w, l.h)) }))
        .filter((o) => fixed.every((f) => !overlaps(o.box, f))),
    ]),
  );
  /** The labels placed so far: centre and (grown) box. */
  const placed = new Map<string, { at: Point; box: Box }>();
  const free = (box: Box, except?: string): boolean => {
    for (const [id, p] of placed) if (id !== except && overlaps(box, p.box)) return false;
    return true;
  };
  for (const l of order) {
    const mine = options.get(l.id)!;
    const c = mine.find((o) => free(o.box));
    if (c !== undefined) {
      placed.set(l.id, c);
      continue;
    }
    // Nowhere free: a place where one label is in the way, if that one can go elsewhere.
    let moved = false;
    for (const o of mine) {
      const inWay = [...placed].filter(([, p]) => overlaps(o.box, p.box));
      if (inWay.length !== 1) continue;
      const [otherId] = inWay[0]!;
      const elsewhere = options.get(otherId)!.find((x) => !overlaps(x.box, o.box) && free(x.box, otherId));
      if (elsewhere === undefined) continue;
      placed.set(otherId, elsewhere);
      placed.set(l.id, o);
      moved = true;
      break;
    }
    if (!moved) return null;
  }
  return new Map([...placed].map(([id, p]) => [id, p.at]));
}

/** A guard as a label: a disjunction stacked one term a line, each line but the last ending in `|`. */
export function guardText(guard: string): string {
  return guard.split(' | ').join(' |\n');
}

/** Sizes of the drawing (model units), as the stylesheet draws it. */
export interface AutomatonGeometry {
  /** A state's outline radius (edges start and end on it). */
  stateRadius: number;
  /** Centre-to-centre distance of neighbouring states on the circle at scale 1, and the circle's least radius. */
  spacing: number;
  minRadius: number;
  /** Control-point distance of each of two opposite edges (bowed to either side). */
  pairDistance: number;
  /** Control-point distance of a self-loop, and its sweep (Cytoscape's loop-sweep, radians). */
  loopDistance: number;
  loopSweep: number;
  /** An entry arrow's length from its state's outline. */
  entryLength: number;
  /** Angle an edge takes at its state on either side, when loops and entry arrows look for room. */
  edgeHalfAngle: number;
}

export interface ShapeState {
  id: number;
  initial: boolean;
  /** Half the state's box (its border included). */ half: number;
}
export interface ShapeEdge {
  id: string;
  from: number;
  to: number;
  /** The label's box (0 × 0: no label). */ w: number;
  h: number;
}

interface ArrangedEdge {
  /** Cytoscape's control-point distance (unbundled-bezier; a self-loop's size). */
  controlDistance: number;
  /** A self-loop's direction (Cytoscape's loop-direction: clockwise from 12 o'clock, radians). */
  loopDirection?: number;
  path: Point[];
  /** The label's centre. */
  label: Point;
}

export interface Arrangement {
  scale: number;
  positions: Map<number, Point>;
  /** Each initial state's entry dot. */
  entries: Map<number, Point>;
  edges: Map<string, ArrangedEdge>;
  /** A box holding everything drawn (labels, curves' control points, states). */
  bounds: Box;
}

const unitOf = (clock: number): Point => ({ x: Math.sin(clock), y: -Math.cos(clock) });
const union = (a: Box, b: Box): Box => ({
  x1: Math.min(a.x1, b.x1),
  y1: Math.min(a.y1, b.y1),
  x2: Math.max(a.x2, b.x2),
  y2: Math.max(a.y2, b.y2),
});
const around = (p: Point, half: number): Box => ({ x1: p.x - half, y1: p.y - half, x2: p.x + half, y2: p.y + half });
const toward = (c: Point, to: Point, r: number): Point => {
  const l = Math.hypot(to.x - c.x, to.y - c.y) || 1;
  return { x: c.x + ((to.x - c.x) / l) * r, y: c.y + ((to.y - c.y) / l) * r };
};

/** The states' places and the edges' paths at `scale`, without labels. */
function skeleton(
  states: readonly ShapeState[],
  edges: readonly ShapeEdge[],
  order: readonly number[],
  g: AutomatonGeometry,
  scale: number,
) {
  const pts = circlePoints(order.length, circleRadius(order.length, g.spacing, g.minRadius) * scale);
  const positions = new Map(order.map((q, i) => [q, pts[i]!]));
  const pairs = new Set(edges.filter((e) => e.from !== e.to).map((e) => `${e.from}>${e.to}`));
  const entries = new Map<number, Point>();
  const loopDir = new Map<number, number>();
  for (const s of states) {
    const p = positions.get(s.id)!;
    const taken: number[] = [];
    for (const e of edges) {
      if (e.from === e.to) continue;
      if (e.from === s.id) taken.push(clockAngle(p, positions.get(e.to)!));
      if (e.to === s.id) taken.push(clockAngle(p, positions.get(e.from)!));
    }
    // Away from the circle's centre when nothing else decides.
    const away = Math.hypot(p.x, p.y) < 1e-9 ? 0 : clockAngle({ x: 0, y: 0 }, p);
    if (edges.some((e) => e.from === s.id && e.to === s.id)) {
      const d = freeDirection(taken, g.edgeHalfAngle, away);
      loopDir.set(s.id, d);
      const half = Math.abs(g.loopSweep) / 2 + g.edgeHalfAngle / 2;
      taken.push(d - half, d, d + half);
    }
    if (s.initial) {
      const u = unitOf(freeDirection(taken, g.edgeHalfAngle, away));
      const r = g.stateRadius + g.entryLength;
      entries.set(s.id, { x: p.x + u.x * r, y: p.y + u.y * r });
    }
  }
  const paths = new Map<string, Omit<ArrangedEdge, 'label'>>();
  for (const e of edges) {
    const a = positions.get(e.from)!,
      b = positions.get(e.to)!;
    if (e.from === e.to) {
      // Cytoscape's self-loop: two control points 1.4 × its distance out, either side of its direction.
      const d = loopDir.get(e.from)!,
        reach = 1.4 * g.loopDistance;
      const c1 = { x: a.x + unitOf(d - g.loopSweep / 2).x * reach, y: a.y + unitOf(d - g.loopSweep / 2).y * reach };
      const c2 = { x: a.x + unitOf(d + g.loopSweep / 2).x * reach, y: a.y + unitOf(d + g.loopSweep / 2).y * reach };
      paths.set(e.id, {
        controlDistance: g.loopDistance,
        loopDirection: d,
        path: edgePath(toward(a, c1, g.stateRadius), [c1, c2], toward(a, c2, g.stateRadius)),
      });
      continue;
    }
    // Unbundled bezier: the control point `distance` off the centres' midpoint, to the left of the edge's own direction
    // (y down).
    const distance = pairs.has(`${e.to}>${e.from}`) ? g.pairDistance : 0;
    const l = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const c = { x: (a.x + b.x) / 2 - ((b.y - a.y) / l) * distance, y: (a.y + b.y) / 2 + ((b.x - a.x) / l) * distance };
    paths.set(e.id, {
      controlDistance: distance,
      path:
        distance === 0
          ? [toward(a, b, g.stateRadius), toward(b, a, g.stateRadius)]
          : edgePath(toward(a, c, g.stateRadius), [c], toward(b, c, g.stateRadius)),
    });
  }
  let bounds: Box = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
  for (const s of states) bounds = union(bounds, around(positions.get(s.id)!, s.half));
  for (const p of entries.values()) bounds = union(bounds, around(p, 3));
  // A curve stays inside the hull of its control points.
  for (const { path } of paths.values()) for (const p of path) bounds = union(bounds, around(p, 2));
  return { positions, entries, paths, bounds };
}

/**
 * States, edges and labels at `scale` (of the circle at scale 1), every label clear of the states,
 * the entry dots and the other labels; null when some label finds no room at this scale.
 */
export function arrange(
  states: readonly ShapeState[],
  edges: readonly ShapeEdge[],
  g: AutomatonGeometry,
  scale: number,
): Arrangement | null {
  const order = stateOrder(states, edges);
  const { positions, entries, paths, bounds } = skeleton(states, edges, order, g, scale);
  const obstacles = [
    ...states.map((s) => around(positions.get(s.id)!, s.half)),
    ...[...entries.values()].map((p) => around(p, 3)),
  ];
  const labelled = edges.filter((e) => e.w > 0 && e.h > 0);
  const placed = placeLabels(
    labelled.map((e) => {
      const p = paths.get(e.id)!;
      return {
        id: e.id,
        path: p.path,
        w: e.w,
        h: e.h,
        ...(p.loopDirection !== undefined ? { loop: { outward: unitOf(p.loopDirection) } } : {}),
      };
    }),
    obstacles,
    1.5,
  );
  if (placed === null) return null;
  let all = bounds;
  const out = new Map<string, ArrangedEdge>();
  for (const e of edges) {
    const label = placed.get(e.id) ?? pathAt(paths.get(e.id)!.path, 0.5).at;
    if (placed.has(e.id)) all = union(all, boxAt(label, e.w, e.h));
    out.set(e.id, { ...paths.get(e.id)!, label });
  }
  return { scale, positions, entries, edges: out, bounds: all };
}

/** The zoom at which `bounds` fills a `width` × `height` pane less `pad` on every side (never above `maxZoom`). */
export function fitZoom(bounds: Box, width: number, height: number, pad: number, maxZoom: number): number {
  const w = Math.max(1e-9, bounds.x2 - bounds.x1),
    h = Math.max(1e-9, bounds.y2 - bounds.y1);
  return Math.min(maxZoom, (width - 2 * pad) / w, (height - 2 * pad) / h);
}

/** The scales of the circle tried, smallest first. */
const SCALES: readonly number[] = [0.6, 0.7, 0.8, 0.9, 1, 1.15, 1.3, 1.5, 1.75, 2, 2.4, 2.8, 3.3, 4, 5, 6.5, 8, 11];

/**
 * Whether the states and edges alone, at the smallest scale, fit the pane at `minZoom` (else no labels of any size
 * will).
 */
export function statesFit(
  states: readonly ShapeState[],
  edges: readonly ShapeEdge[],
  g: AutomatonGeometry,
  pane: { width: number; height: number; pad: number; maxZoom: number },
  minZoom: number,
): boolean {
  const bare = skeleton(states, edges, stateOrder(states, edges), g, SCALES[0]!).bounds;
  return fitZoom(bare, pane.width, pane.height, pane.pad, pane.maxZoom) >= minZoom;
}

/**
 * The smallest scale at which every label finds room and everything fits the pane at `minZoom` or
 * more, with that zoom; null when none does (larger scales only zoom out further, so the search
 * stops at the first scale whose states and edges alone would need less than `minZoom`).
 */
export function bestArrangement(
  states: readonly ShapeState[],
  edges: readonly ShapeEdge[],
  g: AutomatonGeometry,
  pane: { width: number; height: number; pad: number; maxZoom: number },
  minZoom: number,
): { arrangement: Arrangement; zoom: number } | null {
  const order = stateOrder(states, edges);
  for (const scale of SCALES) {
    const bare = skeleton(states, edges, order, g, scale).bounds;
    if (fitZoom(bare, pane.width, pane.height, pane.pad, pane.maxZoom) < minZoom) return null;
    const a = arrange(states, edges, g, scale);
    if (a === null) continue;
    const zoom = fitZoom(a.bounds, pane.width, pane.height, pane.pad, pane.maxZoom);
    return zoom >= minZoom ? { arrangement: a, zoom } : null;
  }
  return null;
}
