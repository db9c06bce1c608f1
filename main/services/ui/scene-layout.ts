/**
 * Positions for graphs that come without them, so the graph view always gets preset positions
 * and never runs a layout in the renderer (a force layout over thousands of nodes would freeze it).
 * Deterministic: the same graph always gets the same picture. Pure functions over data.
 */
import type { SemanticGraph } from '../../core/plan/semantic.js';

/** Above this many nodes a force layout is too slow; nodes go on a grid in breadth-first order. */
const FORCE_MAX_NODES = 600;
const FORCE_ITERATIONS = 150;

/**
 * Fills the NaN entries of `g.positions` in place and returns how many nodes it placed. Nodes with
 * a position keep it; nodes next to placed ones go to their neighbours' mean; a graph with no
 * positions at all is laid out from scratch (force-directed when small, a grid when large).
 */
export function layoutMissing(g: SemanticGraph): number {
  const n = g.ids.length;
  const p = g.positions;
  const known = (v: number): boolean => Number.isFinite(p[2 * v]) && Number.isFinite(p[2 * v + 1]);
  let missing = 0;
  for (let v = 0; v < n; v++) if (!known(v)) missing++;
  if (missing === 0) return 0;
  const adj = neighbours(g);
  if (missing === n) {
    const xy = n <= FORCE_MAX_NODES ? forceLayout(n, adj) : gridLayout(n, adj, g.start);
    p.set(xy);
    return n;
  }
  // Some positions known: spread them outwards, each newly placed node at the mean of its placed
  // neighbours (slightly offset so siblings do not coincide).
  const placed = new Uint8Array(n);
  let frontier: number[] = [];
  for (let v = 0; v < n; v++)
    if (known(v)) {
      placed[v] = 1;
      frontier.push(v);
    }
  let minX = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (const v of frontier) {
    minX = Math.min(minX, p[2 * v]!);
    maxX = Math.max(maxX, p[2 * v]!);
    maxY = Math.max(maxY, p[2 * v + 1]!);
  }
  const step = Math.max(1e-3, (maxX - minX) / Math.max(1, Math.sqrt(n)));
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const u of frontier) {
      for (const v of adj[u]!) {
        if (placed[v]) continue;
        let sx = 0,
          sy = 0,
          c = 0;
        for (const w of adj[v]!)
          if (placed[w]) {
            sx += p[2 * w]!;
            sy += p[2 * w + 1]!;
            c++;
          }
        const jitter = ((v * 2654435761) % 1000) / 1000 - 0.5;
        p[2 * v] = sx / c + step * 0.5 * jitter;
        p[2 * v + 1] = sy / c + step * 0.5;
        placed[v] = 1;
        next.push(v);
      }
    }
    frontier = next;
  }
  // Nodes not connected to any placed node: a row above the picture.
  let k = 0;
  for (let v = 0; v < n; v++) {
    if (placed[v]) continue;
    p[2 * v] = minX + step * k++;
    p[2 * v + 1] = maxY + 2 * step;
  }
  return missing;
}

function neighbours(g: SemanticGraph): number[][] {
  const n = g.ids.length;
  const adj: Set<number>[] = Array.from({ length: n }, () => new Set<number>());
  for (let u = 0; u < n; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      adj[u]!.add(v);
      adj[v]!.add(u);
    }
  }
  return adj.map((s) => [...s].sort((a, b) => a - b));
}

/** Fruchterman–Reingold from a circle, ideal edge length 1, cooling linearly. */
export function forceLayout(n: number, adj: readonly (readonly number[])[]): Float64Array {
  const xy = new Float64Array(2 * n);
  const r = Math.max(1, Math.sqrt(n));
  for (let v = 0; v < n; v++) {
    xy[2 * v] = r * Math.cos((2 * Math.PI * v) / n);
    xy[2 * v + 1] = r * Math.sin((2 * Math.PI * v) / n);
  }
  if (n < 2) return xy;
  const dx = new Float64Array(2 * n);
  for (let it = 0; it < FORCE_ITERATIONS; it++) {
    const temp = (r / 4) * (1 - it / FORCE_ITERATIONS) + 0.01;
    dx.fill(0);
    for (let u = 0; u < n; u++) {
      for (let v = u + 1; v < n; v++) {
        const ddx = xy[2 * u]! - xy[2 * v]!,
          ddy = xy[2 * u + 1]! - xy[2 * v + 1]!;
        const d2 = Math.max(1e-6, ddx * ddx + ddy * ddy);
        push(dx, u, v, ddx / d2, ddy / d2); // k² / d, divided by d for the unit vector
      }
      for (const v of adj[u]!) {
        if (v <= u) continue;
        const ddx = xy[2 * u]! - xy[2 * v]!,
          ddy = xy[2 * u + 1]! - xy[2 * v + 1]!;
        const d = Math.sqrt(ddx * ddx + ddy * ddy); // d² / k, divided by d
        push(dx, u, v, -ddx * d, -ddy * d);
      }
    }
    for (let v = 0; v < n; v++) {
      const mx = dx[2 * v]!,
        my = dx[2 * v + 1]!;
      const len = Math.sqrt(mx * mx + my * my);
      if (len === 0) continue;
      const s = Math.min(len, temp) / len;
      xy[2 * v] = xy[2 * v]! + mx * s;
      xy[2 * v + 1] = xy[2 * v + 1]! + my * s;
    }
  }
  return xy;
}

/** Adds force (fx, fy) to u and its opposite to v. */
function push(f: Float64Array, u: number, v: number, fx: number, fy: number): void {
  f[2 * u] = f[2 * u]! + fx;
  f[2 * u + 1] = f[2 * u + 1]! + fy;
  f[2 * v] = f[2 * v]! - fx;
  f[2 * v + 1] = f[2 * v + 1]! - fy;
}

/** Breadth-first order from the start (then any unreached node), row by row on a square grid. */
export function gridLayout(n: number, adj: readonly (readonly number[])[], start: number): Float64Array {
  const order: number[] = [];
  const seen = new Uint8Array(n);
  const visit = (s: number): void => {
    seen[s] = 1;
    const queue = [s];
    for (let h = 0; h < queue.length; h++) {
      const u = queue[h]!;
      order.push(u);
      for (const v of adj[u]!)
        if (!seen[v]) {
          seen[v] = 1;
          queue.push(v);
        }
    }
  };
  visit(start);
  for (let v = 0; v < n; v++) if (!seen[v]) visit(v);
  const cols = Math.ceil(Math.sqrt(n));
  const xy = new Float64Array(2 * n);
  order.forEach((v, k) => {
    const row = Math.floor(k / cols),
      col = k % cols;
    // Boustrophedon: consecutive nodes in the order stay side by side across row ends.
    xy[2 * v] = row % 2 === 0 ? col : cols - 1 - col;
    xy[2 * v + 1] = -row;
  });
  return xy;
}
