/**
 * An audit run as Foxglove and Lichtblick draw it with no configuration: the well-known `foxglove.*`
 * schemas (@foxglove/schemas, JSON encoding) beside the log's own channels in an MCAP export.
 *
 * - `/witness/robot/pose` (foxglove.PoseInFrame): the robot's position at every evidence event.
 * - `/witness/scene` (foxglove.SceneUpdate): the maze's walls, the task regions in their colours
 *   and the plan's path (prefix, then the cycle), sent at the run's start and again at every plan.
 * - `/witness/log` (foxglove.Log): failure records and escalations (warning, error), replans,
 *   operator decisions and the run's end (info).
 * - `/witness/map` (foxglove.Grid): a map world's occupancy grid (the run's `map` blob), at the run's
 *   start: one INT8 cell per map cell, as nav_msgs/OccupancyGrid has them (0 free, 100 occupied,
 *   -1 unknown), row 0 at the map's origin (the bottom).
 *
 * Everything is in one frame, `world` (the task space in metres, z up). The plan's nodes are placed
 * as the audit replay places them (services/audit/replay.ts): the log does not store the graph.
 */
import type Database from 'better-sqlite3';
import { Grid, Log, PoseInFrame, SceneUpdate } from '@foxglove/schemas/jsonschema.js';
import type { AuditRunSummary } from '../../contract/api.js';
import { type MazeLayout, cellCenter } from '../../core/world/maze.js';
import type { Region } from '../../core/world/regions.js';
import { regionColours } from '../../core/world/svg.js';
import { mazeOf, regionsOf, replayRun } from './replay.js';
import { num, obj, text } from './body.js';
import { getBlob, runStartBody } from './forensics.js';
import { EVENT_COLUMNS, bodyOf, eventOf } from './rows.js';
import { parseMapBlob } from './map-blob.js';
import { FREE, OCCUPIED, type OccupancyGrid } from '../../core/map/occupancy.js';

const FOXGLOVE_FRAME = 'world';

/** The foxglove channels: topic, schema name, JSON Schema. */
export const FOXGLOVE_CHANNELS = {
  pose: { topic: '/witness/robot/pose', schema: PoseInFrame },
  scene: { topic: '/witness/scene', schema: SceneUpdate },
  log: { topic: '/witness/log', schema: Log },
  map: { topic: '/witness/map', schema: Grid },
} as const;
export type FoxgloveChannel = keyof typeof FOXGLOVE_CHANNELS;

export interface FoxgloveMessage {
  readonly channel: FoxgloveChannel;
  readonly t_ms: number;
  readonly message: object;
}

/** foxglove.Log levels. */
const LEVEL = { info: 2, warning: 3, error: 4 } as const;

const time = (t_ms: number): { sec: number; nsec: number } => {
  const ns = Math.max(0, Math.round(t_ms * 1e6));
  return { sec: Math.floor(ns / 1e9), nsec: ns % 1e9 };
};

/** A CSS colour (#rrggbb, or anything else as grey) as foxglove.Color. */
function rgba(css: string, a: number): { r: number; g: number; b: number; a: number } {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css);
  if (m === null) return { r: 0.5, g: 0.5, b: 0.5, a };
  return { r: parseInt(m[1]!, 16) / 255, g: parseInt(m[2]!, 16) / 255, b: parseInt(m[3]!, 16) / 255, a };
}

const pose = (x: number, y: number, z = 0, yaw = 0): object => ({
  position: { x, y, z },
  orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
});

function walls(layout: MazeLayout): object[] {
  const cubes: object[] = [];
  layout.grid.forEach((row, i) =>
    row.forEach((cell, j) => {
      if (cell !== 1) return;
      const c = cellCenter(layout, { i, j });
      cubes.push({
        pose: pose(c.x, c.y, 0.5),
        size: { x: layout.unit_m, y: layout.unit_m, z: 1 },
        color: { r: 0.45, g: 0.45, b: 0.5, a: 1 },
      });
    }),
  );
  return cubes;
}

function regionShapes(regions: readonly Region[]): { cylinders: object[]; cubes: object[]; texts: object[] } {
  const colours = regionColours(regions);
  const cylinders: object[] = [],
    cubes: object[] = [],
    texts: object[] = [];
  for (const r of regions) {
    const color = rgba(colours.get(r.name) ?? '', 0.45);
    let cx: number, cy: number;
    if (r.kind === 'disk') {
      [cx, cy] = r.center;
      cylinders.push({
        pose: pose(cx, cy, 0.02),
        size: { x: 2 * r.radius, y: 2 * r.radius, z: 0.04 },
        bottom_scale: 1,
        top_scale: 1,
        color,
      });
    } else {
      cx = (r.min[0] + r.max[0]) / 2;
      cy = (r.min[1] + r.max[1]) / 2;
      cubes.push({
        pose: pose(cx, cy, 0.02),
        size: { x: r.max[0] - r.min[0], y: r.max[1] - r.min[1], z: 0.04 },
        color,
      });
    }
    texts.push({
      pose: pose(cx, cy, 0.3),
      billboard: true,
      font_size: 14,
      scale_invariant: true,
      color: { r: 1, g: 1, b: 1, a: 1 },
      text: r.name,
    });
  }
  return { cylinders, cubes, texts };
}

/** foxglove.Grid of an occupancy grid: INT8 occupancy per cell (0, 100, -1 unknown), rows from the bottom. */
function occupancyGridMessage(g: OccupancyGrid, t_ms: number): object {
  const data = new Uint8Array(g.width * g.height);
  for (let row = 0; row < g.height; row++) {
    // The grid's row 0 is the top of the map; the Grid's is at its pose (the bottom-left corner).
    const src = (g.height - 1 - row) * g.width,
      dst = row * g.width;
    for (let col = 0; col < g.width; col++) {
      const c = g.cells[src + col];
      data[dst + col] = c === FREE ? 0 : c === OCCUPIED ? 100 : 0xff; // -1 as an INT8
    }
  }
  return {
    timestamp: time(t_ms),
    frame_id: FOXGLOVE_FRAME,
    pose: pose(g.originX, g.originY),
    column_count: g.width,
    cell_size: { x: g.resolution, y: g.resolution },
    row_stride: g.width,
    cell_stride: 1,
    fields: [{ name: 'occupancy', offset: 0, type: 2 }],
    data: Buffer.from(data).toString('base64'),
  };
}

function entity(id: string, t_ms: number, parts: Record<string, object[]>): object {
  return {
    timestamp: time(t_ms),
    frame_id: FOXGLOVE_FRAME,
    id,
    lifetime: { sec: 0, nsec: 0 },
    frame_locked: false,
    metadata: [],
    arrows: [],
    cubes: [],
    spheres: [],
    cylinders: [],
    lines: [],
    triangles: [],
    texts: [],
    models: [],
    ...parts,
  };
}

/** An event row as the converters read it. */
export interface FoxgloveEventRow {
  readonly seq: number;
  readonly t_ms: number;
  readonly kind: string;
  readonly failure_label: string | null;
  readonly body: string;
}

/** The event kinds that become foxglove messages (plans become scenes, through the replay's placing). */
export const FOXGLOVE_KINDS = [
  'evidence',
  'plan',
  'failure_record',
  'escalation',
  'replan',
  'operator_decision',
  'run_end',
] as const;

/**
 * One run's conversion to foxglove messages, shared by the MCAP export (the whole run at once) and
 * the live server (event by event, while the run is written).
 */
export class FoxgloveRun {
  private readonly base: (t_ms: number) => object[];
  private readonly map: OccupancyGrid | null;

  constructor(
    db: Database.Database,
    readonly run: AuditRunSummary,
  ) {
    const layout = mazeOf(run.world);
    // What its chained run_start names (the runs table is outside the chain).
    const start = runStartBody(db, run.id);
    const regionsSha = start['regions_sha'];
    const shapes = regionShapes(regionsOf(db, typeof regionsSha === 'string' ? regionsSha : null));
    const mazeCubes = layout !== null ? walls(layout) : null;
    this.base = (t_ms) => [
      ...(mazeCubes !== null ? [entity('maze', t_ms, { cubes: mazeCubes })] : []),
      entity('regions', t_ms, shapes),
    ];
    const mapSha = start['map_sha'];
    const blob = typeof mapSha === 'string' ? getBlob(db, mapSha) : undefined;
    this.map = blob?.kind === 'map' ? (parseMapBlob(blob.body)?.grid ?? null) : null;
  }

  /** The world before any plan: the maze (or the map, on /witness/map) and the regions. */
  start(): FoxgloveMessage[] {
    const t_ms = this.run.started_ms;
    return [
      { channel: 'scene', t_ms, message: { deletions: [], entities: this.base(t_ms) } },
      ...(this.map !== null ? [{ channel: 'map' as const, t_ms, message: occupancyGridMessage(this.map, t_ms) }] : []),
    ];
  }

  /** The world with a plan's path through `points` (prefix, then the cycle). */
  planScene(t_ms: number, points: readonly { x: number; y: number }[]): FoxgloveMessage {
    const line = {
      type: 0,
      pose: pose(0, 0),
      thickness: 0.12,
      scale_invariant: false,
      points: points.map((p) => ({ x: p.x, y: p.y, z: 0.1 })),
      color: { r: 0.1, g: 0.45, b: 0.95, a: 0.9 },
      colors: [],
      indices: [],
    };
    return {
      channel: 'scene',
      t_ms,
      message: {
        deletions: [],
        entities: [...this.base(t_ms), entity('plan', t_ms, { lines: points.length >= 2 ? [line] : [] })],
      },
    };
  }

  /** The pose or log message of one event (none for other kinds, and for plans: see planScene). */
  event(e: FoxgloveEventRow): FoxgloveMessage[] {
    const b = obj(bodyOf(e));
    const log = (level: number, message: string): FoxgloveMessage[] => [
      {
        channel: 'log',
        t_ms: e.t_ms,
        message: { timestamp: time(e.t_ms), level, message, name: `witness ${this.run.id}`, file: '', line: 0 },
      },
    ];
    switch (e.kind) {
      case 'evidence': {
        const s = obj(b['state']);
        const x = num(s['x']),
          y = num(s['y']);
        return x !== null && y !== null
          ? [
              {
                channel: 'pose',
                t_ms: e.t_ms,
                message: {
                  timestamp: time(e.t_ms),
                  frame_id: FOXGLOVE_FRAME,
                  pose: pose(x, y, 0.2, num(s['yaw']) ?? 0),
                },
              },
            ]
          : [];
      }
      case 'failure_record':
        return log(
          LEVEL.warning,
          `failure ${e.failure_label ?? text(b['kind'])}: ${text(b['reason'] ?? b['message'] ?? b['detail'] ?? '')}`.trim(),
        );
      case 'escalation':
        return log(LEVEL.error, `escalation: ${text(b['message'] ?? b['reason'] ?? '')}`);
      case 'replan':
        return log(LEVEL.info, `replan ${text(b['replan'])} after ${text(b['trigger'])}`);
      case 'operator_decision':
        return log(
          LEVEL.info,
          `operator decision: ${text(b['decision'])}${b['reason'] !== undefined ? ` (${text(b['reason'])})` : ''}`,
        );
      case 'run_end':
        return log(LEVEL.info, `run ended: ${text(b['outcome'])}`);
      default:
        return [];
    }
  }
}

/** Where the replay places a plan's nodes (the log does not store the graph). */
export function planPoints(replay: ReturnType<typeof replayRun>, index: number): { x: number; y: number }[] {
  const at = new Map<string, { x: number; y: number }>(replay.scene.nodes.map((n) => [n.id, { x: n.x, y: n.y }]));
  const p = replay.plans[index];
  if (p === undefined) return [];
  return [...p.plan.prefix, ...p.plan.suffix].flatMap((id) => {
    const q = at.get(id);
    return q !== undefined ? [q] : [];
  });
}

/**
 * The foxglove messages of one run, one at a time (the whole run: plans placed as the finished
 * replay places them): the start, the poses and log messages in sequence order as SQLite yields
 * them, then a scene per plan. Nothing is gathered but the plans' times.
 */
export function* foxgloveStream(db: Database.Database, run: AuditRunSummary): Generator<FoxgloveMessage> {
  const conv = new FoxgloveRun(db, run);
  yield* conv.start();
  const planTimes = new Map<number, number>();
  const rows = db
    .prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind IN (${FOXGLOVE_KINDS.map(() => '?').join(',')}) ORDER BY seq`,
    )
    .iterate(run.id, ...FOXGLOVE_KINDS);
  for (const r of rows) {
    const e = eventOf(r);
    if (e.kind === 'plan') planTimes.set(e.seq, e.t_ms);
    yield* conv.event(e);
  }
  const replay = replayRun(db, run, 1, { placementOnly: true });
  for (let k = 0; k < replay.plans.length; k++)
    yield conv.planScene(planTimes.get(replay.plans[k]!.seq) ?? run.started_ms, planPoints(replay, k));
}
