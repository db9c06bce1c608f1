/**
 * `witness graph from-map`: a ROS map_server map (YAML + image) and a regions file → a labelled
 * graph (docs/FORMATS.md, "Labelled graphs") that `witness plan` plans on like any other.
 * Reading: services/maps; the distance transform and the graph: core/map; the file: platform.
 */
import path from 'node:path';
import { WitnessError } from '../contract/errors.js';
import type { GraphDocument } from '../contract/formats.js';
import { InputError } from '../core/input/json.js';
import { distanceField } from '../core/map/clearance.js';
import { type MapGraph, buildMapGraph } from '../core/map/lattice.js';
import type { RegionSet } from '../core/world/regions.js';
import { type MapFile, readMap } from '../services/maps/read.js';
import { readRegions } from '../services/plan/inputs.js';
import { writeFileAtomic } from '../platform/files.js';

export interface FromMapRequest {
  readonly map: string;
  readonly regions: string;
  readonly out: string;
  readonly spacing: number;
  readonly clearance: number;
  readonly start?: readonly [number, number];
}

export interface FromMapReport {
  readonly nodes: number;
  readonly edges: number;
  /** Components of the lattice before only the start's was kept. */
  readonly components: number;
  readonly dropped: number;
  readonly perLabel: Readonly<Record<string, number>>;
  readonly regionNodes: readonly string[];
  /** Nodes put where an edge passes through a region neither end is in. */
  readonly crossings: number;
  readonly start: {
    readonly id: string;
    readonly pos: readonly [number, number];
    readonly from: 'given' | 'nearest-origin';
  };
  readonly spacing: number;
  readonly map: {
    readonly width: number;
    readonly height: number;
    readonly resolution: number;
    readonly format: string;
  };
  readonly seconds: number;
}

const round = (v: number): number => Math.round(v * 1e6) / 1e6;

/** The graph document of a map graph. */
export function mapGraphDocument(
  g: MapGraph,
  m: { name: string; file: string; resolution: number; clearance: number; out?: string },
): GraphDocument {
  return {
    name: m.name,
    description: `from the map ${path.basename(m.file)} (resolution ${m.resolution} m): lattice spacing ${round(g.spacing)} m, clearance ${m.clearance} m, 16-neighbour straight edges that keep the clearance from occupied and unknown cells, split by a crossing node where they pass through a region; weights in metres`,
    nodes: g.nodes.map((n) => ({
      id: n.id,
      ...(n.labels.length > 0 ? { labels: [...n.labels] } : {}),
      pos: [n.x, n.y],
    })),
    edges: g.edges.map((e) => ({ from: g.nodes[e.from]!.id, to: g.nodes[e.to]!.id, weight: e.weight })),
    start: g.nodes[g.start]!.id,
    directed: false,
    // The map, relative to the graph file: a mission on the graph records it in its audit run.
    ...(m.out !== undefined
      ? {
          map: path
            .relative(path.dirname(path.resolve(m.out)), path.resolve(m.file))
            .split(path.sep)
            .join('/'),
        }
      : {}),
  };
}

/** Checks the regions file is for this map (its `world`, when present, is the map's name). */
export function checkRegionsWorld(regions: RegionSet, regionsFile: string, map: MapFile): void {
  if (regions.world !== undefined && regions.world !== map.name) {
    throw new InputError(
      regionsFile,
      '$.world',
      `the regions are for "${regions.world}", the map ${map.file} is "${map.name}" (its file name without the extension)`,
    );
  }
}

/** Reads the map and the regions, builds the graph and writes it (atomically); nothing is written on an error. */
export async function graphFromMap(o: FromMapRequest): Promise<FromMapReport> {
  if (!(o.spacing > 0 && Number.isFinite(o.spacing)))
    throw new WitnessError('invalid-input', `--spacing must be > 0 metres, got ${o.spacing}`, { path: '--spacing' });
  if (!(o.clearance >= 0 && Number.isFinite(o.clearance)))
    throw new WitnessError('invalid-input', `--clearance must be ≥ 0 metres, got ${o.clearance}`, {
      path: '--clearance',
    });
  const started = performance.now();
  const map = await readMap(o.map);
  const regions = await readRegions(o.regions);
  checkRegionsWorld(regions, o.regions, map);
  const dist2 = distanceField(map.grid);
  const g = buildMapGraph(map.grid, dist2, {
    spacing: o.spacing,
    clearance: o.clearance,
    regions: regions.regions,
    where: { regions: o.regions, start: '--start' },
    ...(o.start !== undefined ? { start: o.start } : {}),
  });
  const doc = mapGraphDocument(g, {
    name: map.name,
    file: o.map,
    resolution: map.grid.resolution,
    clearance: o.clearance,
    out: o.out,
  });
  await writeFileAtomic(o.out, JSON.stringify(doc) + '\n');
  const perLabel: Record<string, number> = {};
  for (const r of regions.regions) perLabel[r.name] = 0;
  for (const n of g.nodes) for (const l of n.labels) perLabel[l] = (perLabel[l] ?? 0) + 1;
  const s = g.nodes[g.start]!;
  return {
    nodes: g.nodes.length,
    edges: g.edges.length,
    components: g.components,
    dropped: g.dropped,
    perLabel,
    regionNodes: g.regionNodes,
    crossings: g.crossings,
    start: { id: s.id, pos: [s.x, s.y], from: g.startFrom },
    spacing: g.spacing,
    map: { width: map.grid.width, height: map.grid.height, resolution: map.grid.resolution, format: map.format },
    seconds: (performance.now() - started) / 1000,
  };
}
