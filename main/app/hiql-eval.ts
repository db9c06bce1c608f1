/**
 * `witness backbone eval-hiql`: AP-HIQL's goal reaching alone, OGBench style, with SAGAS's own
 * executor on the same pairs as the yardstick. Start/goal pairs are dataset states drawn from the
 * seed with their cells at least `minCells` apart along the maze; HIQL steers for the goal
 * observation (core/exec/hiql-reach.ts); SAGAS runs the mission `F goal` with a disk of `radius` m
 * around the goal's position (the latent graph, π_low, the same budget). Success for both: within
 * `radius` m of the goal's position inside `maxSteps` steps.
 */
import { mkdir } from 'node:fs/promises';
import { writeFileAtomic } from '../platform/files.js';
import path from 'node:path';
import { MISSION_WORLDS, type DatasetKind } from '../contract/defaults.js';
import { WitnessError } from '../contract/errors.js';
import { DEFAULT_EXEC } from '../core/exec/executor.js';
import { DEFAULT_HIQL_EXEC } from '../core/exec/hiql-mission.js';
import { type ReachResult, reachGoal } from '../core/exec/hiql-reach.js';
import { createRng } from '../core/random/rng.js';
import { type LatentRange, latentRange } from '../core/exec/latent-range.js';
import { type MazeLayout, cellAt, distancesFrom, freeCells } from '../core/world/maze.js';
import { missionSvg } from '../core/world/svg.js';
import { type World, navigationOf } from '../core/world/world.js';
import { loadHiql } from '../services/models/hiql-bundle.js';
import { type Backbone, benchBackbone, openBackbone } from './backbone.js';
import { type HiqlLow, type HiqlOverrides, ensureHiql, hiqlConfig, hiqlExecutor, hiqlRecovery } from './hiql.js';
import { bodyOf, missionWorld, prepareMission, runMissionTask } from './mission.js';

export interface HiqlEvalRequest {
  readonly world: string;
  readonly goals: number;
  readonly seed: number;
  readonly maxSteps: number;
  readonly radius: number;
  readonly minCells: number;
  /** Steer HIQL for the goal at rest (its position, zero velocity) instead of the dataset state as recorded. */
  readonly goalAtRest: boolean;
  /** Also run SAGAS on the same pairs. */
  readonly sagas: boolean;
  /** Changes to AP-HIQL's recipe (HIQL_DEFAULTS); part of its policies' cache key. */
  readonly hiql?: HiqlOverrides;
  /** The low-level policy under π_h (default: HIQL's own π_l). */
  readonly low?: HiqlLow;
  readonly dataset?: DatasetKind;
  readonly cache?: string;
  /** Write an SVG of each failed HIQL rollout here. */
  readonly pictures?: string;
  readonly log?: (line: string) => void;
}

export interface HiqlEvalPair {
  readonly start: readonly [number, number];
  readonly goal: readonly [number, number];
  readonly cells: number;
  readonly hiql: Omit<ReachResult, 'trajectory'>;
  readonly sagas?: { readonly success: boolean; readonly steps: number; readonly failureMode: string | null };
}

export interface HiqlEvalReport {
  readonly world: string;
  readonly hiqlDir: string;
  readonly pairs: readonly HiqlEvalPair[];
  readonly hiqlSuccess: number;
  /** Of HIQL's successes, how many the mission executor's no-progress rule would have abandoned first. */
  readonly hiqlTimeoutFirst: number;
  readonly sagasSuccess: number | null;
  /**
   * How far HIQL's value (the backbone's ψ) tracks the maze: ψ of every free cell's centre at rest
   * (core/exec/latent-range.ts).
   */
  readonly psiRange: LatentRange;
}

/** SAGAS on the same start and goal (a mission `F goal` with the goal a disk of the pair's radius). */
async function sagasOnPair(
  o: HiqlEvalRequest,
  b: Backbone,
  world: World,
  start: readonly [number, number],
  goal: readonly [number, number],
  seed: number,
): Promise<NonNullable<HiqlEvalPair['sagas']>> {
  const task = await prepareMission({
    world: o.world,
    spec: 'F goal',
    regions: {
      text: JSON.stringify({ regions: [{ name: 'goal', kind: 'disk', center: [goal[0], goal[1]], radius: o.radius }] }),
    },
    start: [start[0], start[1]],
    seed,
    backbone: b,
  });
  const m = (await runMissionTask(task, { method: 'sagas', maxSteps: o.maxSteps, world })).result;
  return { success: m.success, steps: m.steps, failureMode: m.failureMode };
}

/** The picture of a pair HIQL failed: the maze, the goal, the straight line, the rollout and where it timed out. */
async function drawFailedPair(
  dir: string,
  layout: MazeLayout,
  p: number,
  cells: number,
  [sx, sy]: readonly [number, number],
  [gx, gy]: readonly [number, number],
  radius: number,
  r: { minDistance: number; timeoutAt: number | null },
  trajectory: Float32Array,
): Promise<void> {
  const svg = missionSvg(layout, `HIQL pair ${p}: ${cells} cells, closest ${r.minDistance.toFixed(2)} m`, {
    regions: [{ name: 'goal', kind: 'disk', center: [gx, gy], radius }],
    prefix: [
      [sx, sy],
      [gx, gy],
    ],
    suffix: [],
    trajectory,
    start: [sx, sy],
    failures: r.timeoutAt !== null ? [[trajectory[2 * r.timeoutAt]!, trajectory[2 * r.timeoutAt + 1]!] as const] : [],
  });
  await writeFileAtomic(path.join(dir, `hiql-pair-${String(p).padStart(3, '0')}.svg`), svg);
}

export async function evalHiql(o: HiqlEvalRequest): Promise<HiqlEvalReport> {
  if (!MISSION_WORLDS.includes(o.world))
    throw new WitnessError('invalid-input', `--world: unknown world '${o.world}' (${MISSION_WORLDS.join(', ')})`, {
      path: '--world',
    });
  const entry = missionWorld(o.world);
  const layout = entry.layout;
  if (layout === undefined)
    throw new WitnessError('invalid-input', `${o.world} has no maze layout`, { path: '--world' });
  const cache = o.cache !== undefined ? { cacheDir: o.cache } : {};
  const b = await openBackbone(
    benchBackbone({ world: o.world, ...(o.dataset !== undefined ? { dataset: o.dataset } : {}) }),
    { ...(o.log ? { log: o.log } : {}), ...cache },
  );
  const world = await entry.open();
  try {
    const { dir } = await ensureHiql(
      { world: o.world, dataset: b.dataset, models: b.models },
      {
        ...(o.log ? { log: o.log } : {}),
        ...cache,
        config: hiqlConfig(o.hiql),
      },
    );
    const hiql = await loadHiql(dir);
    const d = b.dataset,
      k = d.obsDim,
      n = d.terminals.length;
    const cols = layout.grid[0]!.length;
    const rng = createRng(o.seed);
    const pairs: HiqlEvalPair[] = [];
    const nav = navigationOf(world);
    const executor = hiqlExecutor(b.models, hiql, o.low);
    if (o.pictures !== undefined) await mkdir(o.pictures, { recursive: true });
    try {
      for (let p = 0, tries = 0; p < o.goals; tries++) {
        if (tries > 1000 * o.goals)
          throw new WitnessError(
            'invalid-input',
            `--min-cells: fewer than ${o.goals} dataset pairs lie ${o.minCells} cells apart in ${o.world}`,
            { path: '--min-cells' },
          );
        const s = rng.int(0, n - 1),
          g = rng.int(0, n - 1);
        const sx = d.observations[s * k]!,
          sy = d.observations[s * k + 1]!,
          gx = d.observations[g * k]!,
          gy = d.observations[g * k + 1]!;
        const cs = cellAt(layout, sx, sy),
          cg = cellAt(layout, gx, gy);
        if (cs === null || cg === null) continue;
        const cells = distancesFrom(layout, cs)[cg.i * cols + cg.j]!;
        if (cells < o.minCells || entry.map.blocked(sx, sy) !== null) continue;
        const goalObs = o.goalAtRest ? entry.restObservation(gx, gy) : d.observations.slice(g * k, g * k + k);
        const seed = o.seed * 1000 + p;
        const r = await reachGoal(nav, executor, [sx, sy], goalObs, {
          maxSteps: o.maxSteps,
          radius: o.radius,
          H_low: DEFAULT_EXEC.H_low,
          minProgress: DEFAULT_HIQL_EXEC.minProgress,
          seed,
          recovery: hiqlRecovery(o.low ?? 'hiql', bodyOf(entry)),
        });
        const sagas = o.sagas ? await sagasOnPair(o, b, world, [sx, sy], [gx, gy], seed) : undefined;
        const { trajectory, ...rest } = r;
        pairs.push({ start: [sx, sy], goal: [gx, gy], cells, hiql: rest, ...(sagas !== undefined ? { sagas } : {}) });
        o.log?.(
          `pair ${p + 1}/${o.goals} (${cells} cells): HIQL ${r.success ? `reached in ${r.steps}` : `failed, ${r.minDistance.toFixed(2)} m at the closest`}${sagas ? `, SAGAS ${sagas.success ? `reached in ${sagas.steps}` : `failed (${sagas.failureMode})`}` : ''}`,
        );
        if (!r.success && o.pictures !== undefined)
          await drawFailedPair(o.pictures, layout, p, cells, [sx, sy], [gx, gy], o.radius, r, trajectory);
        p++;
      }
    } finally {
      await hiql.close();
    }
    const zs: Float32Array[] = [];
    for (const c of freeCells(layout))
      zs.push(
        await b.models.embed(
          entry.restObservation(c.j * layout.unit_m - layout.offset_m, c.i * layout.unit_m - layout.offset_m),
          1,
        ),
      );
    const hs = pairs.filter((x) => x.hiql.success);
    return {
      world: o.world,
      hiqlDir: dir,
      pairs,
      hiqlSuccess: hs.length / pairs.length,
      hiqlTimeoutFirst: hs.filter((x) => x.hiql.timeoutAt !== null).length,
      sagasSuccess: o.sagas ? pairs.filter((x) => x.sagas?.success === true).length / pairs.length : null,
      psiRange: latentRange(layout, zs),
    };
  } finally {
    await world.close();
    await b.models.close();
  }
}
