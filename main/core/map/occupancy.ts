/**
 * Occupancy grids as ROS map_server reads them (nav2_map_server map_io): a decoded image, the map
 * YAML's thresholds and mode → one of free / occupied / unknown per cell. Pure; decoding the image
 * and reading the YAML are in services/maps.
 *
 * Per pixel (row 0 is the top of the map): the mean of its colour channels c (0 … maxval); in
 * trinary mode an alpha channel is averaged in as map_server does ((3c + a) / 4), and a pixel with
 * alpha 0 is unknown whatever its colour (our addition: never free, see docs/FORMATS.md).
 * shade = v / maxval, occ = negate ? shade : 1 − shade;
 *   trinary: occ > occupied_thresh → occupied, occ < free_thresh → free, else unknown;
 *   scale:   a pixel that is not opaque → unknown; occupied / free as trinary; in between map_server
 *            writes a cost, which this module calls unknown (not free, so kept clear of);
 *   raw:     the value round(c · 255 / maxval) is the occupancy in percent: above 100 → unknown
 *            (map_saver writes 255 for unknown); else p = value / 100 against the thresholds as
 *            trinary (negate and alpha do not apply, as in map_server).
 */

export const FREE = 0;
export const OCCUPIED = 1;
export const UNKNOWN = 2;
export type Cell = typeof FREE | typeof OCCUPIED | typeof UNKNOWN;

export type MapMode = 'trinary' | 'scale' | 'raw';
export const MAP_MODES: readonly MapMode[] = ['trinary', 'scale', 'raw'];

/** A decoded raster: samples 0 … maxval, row-major from the top row, channels interleaved. */
export interface RasterImage {
  readonly width: number;
  readonly height: number;
  /** 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA. */
  readonly channels: 1 | 2 | 3 | 4;
  readonly maxval: number;
  readonly data: Uint8Array | Uint16Array;
}

export interface OccupancyParams {
  readonly negate: boolean;
  readonly occupiedThresh: number;
  readonly freeThresh: number;
  readonly mode: MapMode;
}

/** A classified map: cells[row · width + col], row 0 at the top; the bottom-left corner at origin. */
export interface OccupancyGrid {
  readonly width: number;
  readonly height: number;
  /** Metres per cell. */
  readonly resolution: number;
  readonly originX: number;
  readonly originY: number;
  readonly cells: Uint8Array;
}

/** The class of one pixel given its colour mean c and alpha a (maxval when there is none). */
export function classifyPixel(c: number, a: number, hasAlpha: boolean, maxval: number, p: OccupancyParams): Cell {
  if (p.mode === 'raw') {
    const value = Math.round((c / maxval) * 255);
    if (value > 100) return UNKNOWN;
    const occ = value / 100;
    return occ > p.occupiedThresh ? OCCUPIED : occ < p.freeThresh ? FREE : UNKNOWN;
  }
  if (hasAlpha && (p.mode === 'scale' ? a !== maxval : a === 0)) return UNKNOWN;
  const v = p.mode === 'trinary' && hasAlpha ? (3 * c + a) / 4 : c;
  const shade = v / maxval;
  const occ = p.negate ? shade : 1 - shade;
  return occ > p.occupiedThresh ? OCCUPIED : occ < p.freeThresh ? FREE : UNKNOWN;
}

/** Classifies every pixel of an image into cells (same layout: row 0 at the top). */
export function classify(img: RasterImage, p: OccupancyParams): Uint8Array {
  const n = img.width * img.height,
    ch = img.channels,
    d = img.data,
    max = img.maxval;
  const hasAlpha = ch === 2 || ch === 4;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = i * ch;
    const c = ch <= 2 ? d[b]! : (d[b]! + d[b + 1]! + d[b + 2]!) / 3;
    const a = ch === 2 ? d[b + 1]! : ch === 4 ? d[b + 3]! : max;
    out[i] = classifyPixel(c, a, hasAlpha, max, p);
  }
  return out;
}

/** The centre of cell (col, row) in the map frame, metres. */
export function cellCentre(g: OccupancyGrid, col: number, row: number): [number, number] {
  return [g.originX + (col + 0.5) * g.resolution, g.originY + (g.height - row - 0.5) * g.resolution];
}

/** The cell holding (x, y), or null outside the map. */
export function cellAt(g: OccupancyGrid, x: number, y: number): { col: number; row: number } | null {
  const col = Math.floor((x - g.originX) / g.resolution);
  const row = g.height - 1 - Math.floor((y - g.originY) / g.resolution);
  if (!(col >= 0 && col < g.width && row >= 0 && row < g.height)) return null;
  return { col, row };
}

/** Words for a cell class in messages. */
export const CELL_NAMES = ['free', 'occupied', 'unknown'] as const;

/** The map's extent in messages: "[x0, x1] × [y0, y1] m". */
export function extentText(g: OccupancyGrid): string {
  const f = (v: number): string => String(Math.round(v * 1000) / 1000);
  return `[${f(g.originX)}, ${f(g.originX + g.width * g.resolution)}] × [${f(g.originY)}, ${f(g.originY + g.height * g.resolution)}] m`;
}
