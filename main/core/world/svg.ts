/** Top-down SVG of a maze: walls, free cells, optional trajectories. Pure string generation. */
import { type MazeLayout, cellCenter } from './maze.js';

export interface SvgTrajectories {
  readonly observations: Float32Array;
  readonly obsDim: number;
  readonly terminals: Uint8Array;
  /** Most points drawn in all (the rest are skipped evenly); keeps files small. */
  readonly maxPoints?: number;
}

/** Pixels per maze cell. */
const CELL_PX = 48;

/** A graph drawn in task space: node positions (x, y) and undirected edges. */
export interface SvgGraph {
  readonly positions: Float32Array;
  readonly edgeU: Int32Array;
  readonly edgeV: Int32Array;
}

export function mazeSvg(layout: MazeLayout, title: string, traj?: SvgTrajectories, graph?: SvgGraph): string {
  const rows = layout.grid.length, cols = layout.grid[0]!.length;
  const u = layout.unit_m;
  const w = cols * CELL_PX, h = rows * CELL_PX;
  const scale = CELL_PX / u;
  // world (x, y) → svg: x grows right, y grows down the rows (row 0 at the top)
  const sx = (x: number): number => (x + layout.offset_m + u / 2) * scale;
  const sy = (y: number): number => (y + layout.offset_m + u / 2) * scale;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w.toFixed(0)}" height="${h.toFixed(0)}" viewBox="0 0 ${w.toFixed(0)} ${h.toFixed(0)}">`,
    `<title>${escape(title)}</title>`,
    `<rect width="100%" height="100%" fill="#f4f4f0"/>`,
  ];
  layout.grid.forEach((row, i) => row.forEach((v, j) => {
    const c = cellCenter(layout, { i, j });
    const x = sx(c.x - u / 2), y = sy(c.y - u / 2), s = u * scale;
    out.push(v === 1
      ? `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${s.toFixed(1)}" height="${s.toFixed(1)}" fill="#5b5f6b"/>`
      : `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${s.toFixed(1)}" height="${s.toFixed(1)}" fill="none" stroke="#dcdcd4" stroke-width="1"/>`);
  }));
  if (traj) {
    const n = traj.terminals.length;
    const stride = Math.max(1, Math.ceil(n / (traj.maxPoints ?? 20000)));
    let pts: string[] = [];
    let k = 0;
    const flush = (): void => {
      if (pts.length > 1) {
        out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="hsl(${(k * 47) % 360},65%,45%)" stroke-width="1.2" stroke-opacity="0.6"/>`);
      }
      pts = [];
      k++;
    };
    for (let r = 0; r < n; r++) {
      if (r % stride === 0 || traj.terminals[r] === 1) {
        pts.push(`${sx(traj.observations[r * traj.obsDim]!).toFixed(1)},${sy(traj.observations[r * traj.obsDim + 1]!).toFixed(1)}`);
      }
      if (traj.terminals[r] === 1) flush();
    }
    flush();
  }
  if (graph) {
    const px = (v: number): string => sx(graph.positions[v * 2]!).toFixed(1);
    const py = (v: number): string => sy(graph.positions[v * 2 + 1]!).toFixed(1);
    graph.edgeU.forEach((u, e) => {
      const v = graph.edgeV[e]!;
      out.push(`<line x1="${px(u)}" y1="${py(u)}" x2="${px(v)}" y2="${py(v)}" stroke="#2a6f97" stroke-width="0.8" stroke-opacity="0.5"/>`);
    });
    for (let v = 0; v < graph.positions.length / 2; v++) out.push(`<circle cx="${px(v)}" cy="${py(v)}" r="2.2" fill="#1b4965"/>`);
  }
  out.push('</svg>', '');
  return out.join('\n');
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
