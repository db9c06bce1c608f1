/** Top-down SVG of a maze: walls, free cells, optional trajectories. Pure string generation. */
import { type MazeLayout, cellCenter } from './maze.js';
import type { Region } from './regions.js';
import { propositionColours } from '../../contract/colours.js';

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
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const u = layout.unit_m;
  const w = cols * CELL_PX,
    h = rows * CELL_PX;
  const scale = CELL_PX / u;
  // world (x, y) → svg: x grows right, y grows down the rows (row 0 at the top)
  const sx = (x: number): number => (x + layout.offset_m + u / 2) * scale;
  const sy = (y: number): number => (y + layout.offset_m + u / 2) * scale;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w.toFixed(0)}" height="${h.toFixed(0)}" viewBox="0 0 ${w.toFixed(0)} ${h.toFixed(0)}">`,
    `<title>${escape(title)}</title>`,
    `<rect width="100%" height="100%" fill="#f4f4f0"/>`,
  ];
  layout.grid.forEach((row, i) =>
    row.forEach((v, j) => {
      const c = cellCenter(layout, { i, j });
      const x = sx(c.x - u / 2),
        y = sy(c.y - u / 2),
        s = u * scale;
      out.push(
        v === 1
          ? `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${s.toFixed(1)}" height="${s.toFixed(1)}" fill="#5b5f6b"/>`
          : `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${s.toFixed(1)}" height="${s.toFixed(1)}" fill="none" stroke="#dcdcd4" stroke-width="1"/>`,
      );
    }),
  );
  if (traj) {
    const n = traj.terminals.length;
    const stride = Math.max(1, Math.ceil(n / (traj.maxPoints ?? 20000)));
    let pts: string[] = [];
    let k = 0;
    const flush = (): void => {
      if (pts.length > 1) {
        out.push(
          `<polyline points="${pts.join(' ')}" fill="none" stroke="hsl(${(k * 47) % 360},65%,45%)" stroke-width="1.2" stroke-opacity="0.6"/>`,
        );
      }
      pts = [];
      k++;
    };
    for (let r = 0; r < n; r++) {
      if (r % stride === 0 || traj.terminals[r] === 1) {
        pts.push(
          `${sx(traj.observations[r * traj.obsDim]!).toFixed(1)},${sy(traj.observations[r * traj.obsDim + 1]!).toFixed(1)}`,
        );
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
      out.push(
        `<line x1="${px(u)}" y1="${py(u)}" x2="${px(v)}" y2="${py(v)}" stroke="#2a6f97" stroke-width="0.8" stroke-opacity="0.5"/>`,
      );
    });
    for (let v = 0; v < graph.positions.length / 2; v++)
      out.push(`<circle cx="${px(v)}" cy="${py(v)}" r="2.2" fill="#1b4965"/>`);
  }
  out.push('</svg>', '');
  return out.join('\n');
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface MissionPicture {
  readonly regions: readonly Region[];
  /** Planned waypoints in task space: prefix and suffix polylines (x, y pairs). */
  readonly prefix: readonly (readonly [number, number])[];
  readonly suffix: readonly (readonly [number, number])[];
  /** The realised trajectory (x, y per step). */
  readonly trajectory?: Float32Array;
  readonly start: readonly [number, number];
  /** Where failures happened (replans). */
  readonly failures?: readonly (readonly [number, number])[];
}

/** The regions' colours: the propositions' own, as every view draws them (contract/colours.ts). */
export const regionColours = (regions: readonly Region[]): Map<string, string> =>
  propositionColours(regions.map((r) => r.name));

/** The maze with its labelled regions (the world picture of the UI's graph views). */
export function mazeRegionsSvg(layout: MazeLayout, title: string, regions: readonly Region[]): string {
  return mazeSvg(layout, title).replace('</svg>', `${regionsSvg(layout, regions).join('\n')}\n</svg>`);
}

/**
 * A region's name goes under its outline, not at its centre: the graph views draw the region's
 * anchor nodes inside it with their labels above them, and the two would overlap. Baseline this far
 * (pixels, 12 px type) below the outline.
 */
const LABEL_GAP_PX = 13;

function regionsSvg(layout: MazeLayout, regions: readonly Region[]): string[] {
  const u = layout.unit_m;
  const scale = CELL_PX / u;
  const sx = (x: number): number => (x + layout.offset_m + u / 2) * scale;
  const sy = (y: number): number => (y + layout.offset_m + u / 2) * scale;
  const out: string[] = [];
  const colour = regionColours(regions);
  regions.forEach((r) => {
    const c = colour.get(r.name)!;
    if (r.kind === 'disk') {
      out.push(
        `<circle cx="${sx(r.center[0]).toFixed(1)}" cy="${sy(r.center[1]).toFixed(1)}" r="${(r.radius * scale).toFixed(1)}" fill="${c}" fill-opacity="0.25" stroke="${c}" stroke-width="1.5"/>`,
      );
      out.push(
        `<text x="${sx(r.center[0]).toFixed(1)}" y="${(sy(r.center[1]) + r.radius * scale + LABEL_GAP_PX).toFixed(1)}" font-family="Helvetica" font-size="12" text-anchor="middle" fill="${c}">${escape(r.name)}</text>`,
      );
    } else {
      out.push(
        `<rect x="${sx(r.min[0]).toFixed(1)}" y="${sy(r.min[1]).toFixed(1)}" width="${((r.max[0] - r.min[0]) * scale).toFixed(1)}" height="${((r.max[1] - r.min[1]) * scale).toFixed(1)}" fill="${c}" fill-opacity="0.25" stroke="${c}" stroke-width="1.5"/>`,
      );
      out.push(
        `<text x="${sx((r.min[0] + r.max[0]) / 2).toFixed(1)}" y="${(sy(r.max[1]) + LABEL_GAP_PX).toFixed(1)}" font-family="Helvetica" font-size="12" text-anchor="middle" fill="${c}">${escape(r.name)}</text>`,
      );
    }
  });
  return out;
}

/**
 * A mission in the style of the SAGAS paper's Figure 2: maze, regions, prefix and suffix in two colours, the rollout.
 */
export function missionSvg(layout: MazeLayout, title: string, m: MissionPicture): string {
  const base = mazeSvg(layout, title);
  const u = layout.unit_m;
  const scale = CELL_PX / u;
  const sx = (x: number): number => (x + layout.offset_m + u / 2) * scale;
  const sy = (y: number): number => (y + layout.offset_m + u / 2) * scale;
  const out: string[] = regionsSvg(layout, m.regions);
  if (m.trajectory && m.trajectory.length >= 4) {
    const pts: string[] = [];
    const stride = Math.max(1, Math.ceil(m.trajectory.length / 2 / 5000));
    for (let i = 0; i < m.trajectory.length / 2; i += stride)
      pts.push(`${sx(m.trajectory[2 * i]!).toFixed(1)},${sy(m.trajectory[2 * i + 1]!).toFixed(1)}`);
    out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="#222" stroke-width="1" stroke-opacity="0.55"/>`);
  }
  const line = (ps: readonly (readonly [number, number])[], colour: string, dash: string): void => {
    if (ps.length < 2) return;
    out.push(
      `<polyline points="${ps.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-opacity="0.85" stroke-dasharray="${dash}"/>`,
    );
  };
  line(m.prefix, '#1f77b4', '6 3');
  line(m.suffix, '#d62728', '2 2');
  for (const [x, y] of m.failures ?? [])
    out.push(
      `<path d="M ${(sx(x) - 5).toFixed(1)} ${(sy(y) - 5).toFixed(1)} l 10 10 m 0 -10 l -10 10" stroke="#000" stroke-width="2.5"/>`,
    );
  out.push(`<circle cx="${sx(m.start[0]).toFixed(1)}" cy="${sy(m.start[1]).toFixed(1)}" r="5" fill="#111"/>`);
  out.push(`<rect x="4" y="3" width="150" height="18" rx="3" fill="#ffffff" fill-opacity="0.85"/>`);
  out.push(
    `<text x="8" y="16" font-family="Helvetica" font-size="12" fill="#1f77b4">prefix</text><text x="56" y="16" font-family="Helvetica" font-size="12" fill="#d62728">suffix</text><text x="104" y="16" font-family="Helvetica" font-size="12" fill="#222">rollout</text>`,
  );
  return base.replace('</svg>', `${out.join('\n')}\n</svg>`);
}

/**
 * Regions over a robot's map, in the map frame: the viewBox is in metres and an SVG point (x, y) is
 * the map point (x, y). The views draw such pictures with y up (flipped), so each label is flipped
 * back about its own anchor to read upright. A region's name goes under its outline (see
 * LABEL_GAP_PX), clear of its anchors' labels.
 */
export function mapRegionsSvg(
  regions: readonly Region[],
  bounds: { readonly minX: number; readonly minY: number; readonly maxX: number; readonly maxY: number },
  title: string,
): string {
  const w = bounds.maxX - bounds.minX,
    h = bounds.maxY - bounds.minY;
  const font = Math.max(0.12, Math.min(w, h) / 30);
  const n = (x: number): string => x.toFixed(3);
  const label = (x: number, y: number, text: string, fill: string): string =>
    `<text transform="translate(${n(x)} ${n(y)}) scale(1 -1)" y="${n(font / 3)}" font-family="Helvetica" font-size="${n(font)}" text-anchor="middle" fill="${fill}">${escape(text)}</text>`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${n(bounds.minX)} ${n(bounds.minY)} ${n(w)} ${n(h)}">`,
    `<title>${escape(title)}</title>`,
    `<rect x="${n(bounds.minX)}" y="${n(bounds.minY)}" width="${n(w)}" height="${n(h)}" fill="#f4f6f8"/>`,
  ];
  const colour = regionColours(regions);
  regions.forEach((r) => {
    const c = colour.get(r.name)!;
    if (r.kind === 'disk') {
      out.push(
        `<circle cx="${n(r.center[0])}" cy="${n(r.center[1])}" r="${n(r.radius)}" fill="${c}" fill-opacity="0.25" stroke="${c}" stroke-width="${n(font / 8)}"/>`,
      );
      out.push(label(r.center[0], r.center[1] - r.radius - font * 0.7, r.name, c));
    } else {
      out.push(
        `<rect x="${n(r.min[0])}" y="${n(r.min[1])}" width="${n(r.max[0] - r.min[0])}" height="${n(r.max[1] - r.min[1])}" fill="${c}" fill-opacity="0.25" stroke="${c}" stroke-width="${n(font / 8)}"/>`,
      );
      out.push(label((r.min[0] + r.max[0]) / 2, r.min[1] - font * 0.7, r.name, c));
    }
  });
  out.push('</svg>');
  return out.join('\n');
}
