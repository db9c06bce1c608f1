/**
 * A map world's occupancy grid as the audit log keeps it (a blob of kind `map`, named by the run's
 * run_start as `map_sha`): JSON with the grid's geometry and its cells (core/map/occupancy.ts: 0
 * free, 1 occupied, 2 unknown; row 0 at the top) deflated and in base64. The exports draw it
 * (foxglove.ts: a foxglove.Grid on /witness/map), so a run's log shows the map it ran on without the
 * map's files.
 */
import { deflateSync, inflateSync } from 'fflate';
import type { OccupancyGrid } from '../../core/map/occupancy.js';

interface MapBlob {
  readonly version: 1;
  /** The map's name (its YAML file's name without the extension). */
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly origin: readonly [number, number];
  /** deflate(cells), base64. */
  readonly cells: string;
}

export function mapBlobText(name: string, g: OccupancyGrid): string {
  const blob: MapBlob = {
    version: 1,
    name,
    width: g.width,
    height: g.height,
    resolution: g.resolution,
    origin: [g.originX, g.originY],
    cells: Buffer.from(deflateSync(g.cells, { level: 9 })).toString('base64'),
  };
  return JSON.stringify(blob);
}

/** The grid of a map blob, or null when the text is not one (a log written by another version, a damaged blob). */
export function parseMapBlob(text: string): { name: string; grid: OccupancyGrid } | null {
  try {
    const b = JSON.parse(text) as Partial<MapBlob>;
    if (b.version !== 1 || typeof b.name !== 'string' || typeof b.cells !== 'string' || !Array.isArray(b.origin))
      return null;
    const { width, height, resolution } = b;
    if (!Number.isInteger(width) || !Number.isInteger(height) || !(typeof resolution === 'number' && resolution > 0))
      return null;
    const cells = inflateSync(new Uint8Array(Buffer.from(b.cells, 'base64')));
    if (cells.length !== width! * height!) return null;
    return {
      name: b.name,
      grid: {
        width: width!,
        height: height!,
        resolution,
        originX: Number(b.origin[0]),
        originY: Number(b.origin[1]),
        cells,
      },
    };
  } catch {
    return null;
  }
}
