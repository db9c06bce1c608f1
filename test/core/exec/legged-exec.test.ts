// The legged body's tracking (core/exec/executor.ts LEGGED_EXEC): anchors reached within reach_m,
// skip-ahead along segments clear of obstacles, stall recovery; and the maze clearance it reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import {
  DEFAULT_EXEC,
  Executor,
  LEGGED_EXEC,
  execParams,
  type ExecEvent,
  type ExecParams,
  type ExecPlan,
  type Waypoint,
} from '../../../main/core/exec/executor.js';
import { checkpointBody } from '../../../main/core/exec/run-skeleton.js';
import { AUDIT_EVENTS } from '../../../main/contract/audit-events.js';
import { jsonSchema } from '../../../main/contract/schema.js';
import { MAZES, mazeClearance, mazeMap } from '../../../main/core/world/maze.js';
import { createRng } from '../../../main/core/random/rng.js';

/** A waypoint at (x, y) whose latent is `scale`·(x, y). */
const wp = (id: string, x: number, y: number, pos: string[] = [], scale = 1): Waypoint => ({
  node: 0,
  id,
  latent: Float32Array.from([scale * x, scale * y]),
  position: [x, y],
  pos,
  neg: [],
  term: pos.join(' & ') || 'true',
  checkpoint: pos.length > 0,
  state: 1,
  from: 0,
  transition: 0,
});
const plan = (prefix: Waypoint[], suffix: Waypoint[]): ExecPlan => ({
  prefix,
  suffix,
  dwell: suffix.length === 1,
  anchors: new Map(),
  dim: 2,
});
const base: ExecParams = { ...DEFAULT_EXEC, steering: null };

test('execParams: a point body keeps the paper-side executor; a legged one adds the look-ahead, anchor reach, clearance and recovery', () => {
  const p = execParams(8);
  assert.equal(p.lookahead_m, 3);
  assert.equal(p.anchorReach, false);
  assert.equal(p.clearance_m, 0);
  assert.equal(p.recovery, null);
  const l = execParams(8, 'legged');
  assert.deepEqual(
    { lookahead_m: l.lookahead_m, anchorReach: l.anchorReach, clearance_m: l.clearance_m, recovery: l.recovery },
    LEGGED_EXEC,
  );
  assert.equal(l.epsAnchor, 4, 'the latent radii still follow H_TD');
});

test('anchorReach: an anchor far in latent space but within reach_m in task space is reached only with its label, and only when asked', () => {
  // latent = 10 × position: at (8.7, 0) the body is 7 latent units from the anchor (ε_anc = 4) and 0.7 m from it
  // (reach_m = 1).
  const anchor = wp('a', 8, 0, ['a'], 10);
  const h = Float32Array.from([87, 0]);
  const strict = new Executor(plan([anchor], [anchor]), base, 's');
  assert.deepEqual(
    strict.step(0, h, new Set(['a']), 8.7, 0).events.map((e) => e.kind),
    [],
    "the paper's rule: latent proximity",
  );
  const reach = new Executor(plan([anchor], [anchor]), { ...base, anchorReach: true }, 's');
  assert.deepEqual(
    reach.step(0, h, new Set(), 8.7, 0).events.map((e) => e.kind),
    [],
    'the label is still required',
  );
  assert.deepEqual(
    reach.step(1, h, new Set(['a']), 8.7, 0).events.map((e) => e.kind),
    ['checkpoint', 'prefix-done'],
  );
  const far = new Executor(plan([anchor], [anchor]), { ...base, anchorReach: true }, 's');
  assert.deepEqual(
    far.step(0, Float32Array.from([65, 0]), new Set(['a']), 6.5, 0).events.map((e) => e.kind),
    [],
    '1.5 m away: not reached',
  );
});

/** Distance to the box [1, 3] × [1, 3]. */
const box = (x: number, y: number): number => Math.hypot(Math.max(1 - x, 0, x - 3), Math.max(1 - y, 0, y - 3));

test('clearance_m: skip-ahead takes the furthest waypoint whose straight segment keeps clear of obstacles', () => {
  // From (0, 0): A (0, 4) passes the box 1 m off; B (4, 4) and C (4, 2) cut through it.
  const stream = [wp('A', 0, 4), wp('B', 4, 4), wp('C', 4, 2)];
  const p: ExecParams = { ...base, H_TD: 0, epsWaypoint: 0, lookahead_m: 100, clearance_m: 0.5 };
  const target = (params: ExecParams, clearance?: (x: number, y: number) => number): string => {
    const x = 0,
      y = 0;
    const ex = new Executor(plan([wp('first', x - 1.5, y), ...stream], [wp('end', 9, 9)]), params, 's', clearance);
    ex.step(0, Float32Array.from([x, y]), new Set(), x, y);
    return ex.position().target.id;
  };
  assert.equal(target(p, box), 'A');
  assert.equal(target(p), 'C', 'without a clearance map: distances only');
  assert.equal(target({ ...p, clearance_m: 0 }, box), 'C', 'clearance_m 0: off');
  assert.equal(target({ ...p, clearance_m: 1.2 }, box), 'first', 'A passes 1 m off: not 1.2 m clear');
  // A body already closer than clearance_m (0.57 m off the box at (0.6, 0.6)) may move away, never closer.
  const near = (to: [number, number]): string => {
    const ex = new Executor(
      plan([wp('first', -1, -1), wp('to', ...to)], [wp('end', 9, 9)]),
      { ...p, clearance_m: 1 },
      's',
      box,
    );
    ex.step(0, Float32Array.from([0.6, 0.6]), new Set(), 0.6, 0.6);
    return ex.position().target.id;
  };
  assert.equal(near([-3, 0]), 'to', 'away from the box');
  assert.equal(near([0.9, 4]), 'first', 'along its face, closer than the body is now');
});

/** Runs an executor for `steps` steps with the body at the positions `walk(t)` (latent = position). */
function drive(
  params: ExecParams,
  walk: (t: number) => [number, number],
  steps: number,
): { events: ExecEvent[]; dirs: [number, number][]; status: string; t: number } {
  const target = wp('far', 40, 0);
  const ex = new Executor(plan([target], [target]), params, 's');
  const events: ExecEvent[] = [];
  const dirs: [number, number][] = [];
  let t = 0;
  for (; t < steps && ex.status === 'running'; t++) {
    const [x, y] = walk(t);
    const r = ex.step(t, Float32Array.from([x, y]), new Set(), x, y);
    events.push(...r.events);
    if (r.direction !== null) dirs.push([r.direction[0]!, r.direction[1]!]);
  }
  return { events, dirs, status: ex.status, t };
}

test('recovery: a body that has stalled walks back along its own path to where it was back_m ago, then tracks again; at most perTarget times, each giving back grant steps', () => {
  const recovery = { window: 10, moved_m: 0.5, back_m: 1, steps: 5, arrive_m: 0.3, perTarget: 2, grant: 10 };
  // It walks from (−3, 0) to (0, 0) in 6 steps, then stays there whatever it is told.
  const walk = (t: number): [number, number] => [Math.min(0, -3 + t * 0.5), 0];
  const off = drive({ ...base, H_low: 60 }, walk, 500);
  const on = drive({ ...base, H_low: 60, recovery }, walk, 500);
  assert.deepEqual(
    off.events.map((e) => e.kind),
    ['timeout'],
  );
  const kinds = on.events.map((e) => e.kind);
  assert.deepEqual(kinds, ['recovery', 'recovery', 'timeout'], 'two recoveries, then the budget');
  const first = on.events[0] as Extract<ExecEvent, { kind: 'recovery' }>;
  assert.equal(first.t, 16, 'stalled over the 10 steps after it stopped at step 6');
  assert.deepEqual(first.to, [-1, 0], 'the most recent place at least 1 m back');
  assert.ok(first.moved_m < 0.5);
  assert.deepEqual(on.dirs[first.t], [-1, 0], 'steered back');
  assert.deepEqual(on.dirs[first.t + 5], [1, 0], 'after steps = 5 it tracks the target again');
  const second = on.events[1] as Extract<ExecEvent, { kind: 'recovery' }>;
  assert.equal(
    second.t,
    first.t + 5 + 11,
    'a stall is looked for again over a full window after the first recovery ends',
  );
  const timeoutOf = (r: { events: ExecEvent[] }): number => r.events.find((e) => e.kind === 'timeout')!.t;
  assert.equal(timeoutOf(on), timeoutOf(off) + 2 * recovery.grant, 'each recovery gives grant steps back');
  // A body that keeps moving (here, round a 2 m circle) never triggers it.
  const moving = drive({ ...base, H_low: 60, recovery }, (t) => [Math.cos(t / 3) * 2, Math.sin(t / 3) * 2], 500);
  assert.deepEqual(
    moving.events.map((e) => e.kind),
    ['timeout'],
  );
  // A recovery ends early once within arrive_m of its point.
  const back = drive({ ...base, H_low: 60, recovery }, (t) => (t < 17 ? walk(t) : [-1, 0]), 18);
  assert.deepEqual(back.dirs.slice(16, 18), [
    [-1, 0],
    [1, 0],
  ]);
});

test('a recovery event is a valid audit checkpoint body', () => {
  const ajv = new Ajv({ strict: false });
  const check = ajv.compile(jsonSchema(AUDIT_EVENTS.checkpoint));
  const e: ExecEvent = { kind: 'recovery', t: 3, stream: 'prefix', index: 1, node: 'c7', moved_m: 0.2, to: [1.5, -2] };
  assert.ok(check(checkpointBody(e)), JSON.stringify(check.errors));
});

test('mazeClearance: exact distance to the nearest wall cell (outside the grid is wall), against every wall cell, on seeded points', () => {
  const layout = MAZES.medium;
  const c = mazeClearance(layout);
  const u = layout.unit_m,
    off = layout.offset_m;
  const rows = layout.grid.length,
    cols = layout.grid[0]!.length;
  const brute = (x: number, y: number): number => {
    let best = Infinity;
    for (let i = -1; i <= rows; i++) {
      for (let j = -1; j <= cols; j++) {
        if (i >= 0 && j >= 0 && i < rows && j < cols && layout.grid[i]![j] === 0) continue;
        best = Math.min(
          best,
          Math.hypot(
            Math.max(Math.abs(x - (j * u - off)) - u / 2, 0),
            Math.max(Math.abs(y - (i * u - off)) - u / 2, 0),
          ),
        );
      }
    }
    return best;
  };
  const rng = createRng(21);
  const map = mazeMap(layout, 'medium');
  for (let k = 0; k < 2000; k++) {
    const x = map.bounds.minX + rng.next() * (map.bounds.maxX - map.bounds.minX);
    const y = map.bounds.minY + rng.next() * (map.bounds.maxY - map.bounds.minY);
    const want = brute(x, y);
    // within two cells it is exact; beyond, it only needs to read as clear (≥ 1.5 cells)
    if (want <= 1.5 * u) assert.ok(Math.abs(c(x, y) - want) < 1e-9, `${x}, ${y}: ${c(x, y)} ≠ ${want}`);
    else assert.ok(c(x, y) >= 1.5 * u);
    if (map.blocked(x, y) !== null && map.blocked(x, y)!.includes('inside a wall')) assert.equal(c(x, y), 0);
  }
  assert.equal(map.clearance!(0, 0), 2, 'the centre of a cell with walls on two sides: half a cell');
});
