/**
 * The waypoint driver on a robot that moves a fixed distance toward its goal each time its pose is
 * read (no clock, no sleep): a patrol realised, an aborted goal replanned or ending the run, a detour
 * into a forbidden region stopped, the rollout budget, the world failing, and escalation past R.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Pose, type Waypoints, WorldError } from '../../../main/core/world/world.js';
import { WAYPOINT_DEFAULTS, runWaypointMission } from '../../../main/core/exec/waypoint-mission.js';
import type { MissionResult } from '../../../main/core/exec/run-skeleton.js';
import { labelledGraph } from '../../../main/core/plan/labelled-graph.js';
import { onRegions } from '../../../main/core/plan/crossings.js';
import { parseRegions } from '../../../main/core/world/regions.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { PATROL, REGIONS, labGraph } from '../../ros2-sim/lab.js';
import { catalogueAudit } from '../../contract/catalogue.js';

interface Robot {
  readonly start: [number, number];
  /** Metres moved toward the goal's next pose per pose read. */
  readonly speed: number;
  readonly maxPoses: number;
  /** The goal (1-based, in the order sent) the robot's navigation gives up after three reads. */
  readonly abortGoal?: number;
  /** Reads of the pose after which a goal times out. */
  readonly timeoutReads?: number;
  /** The first goal's first pose is replaced by a detour through this point. */
  readonly detour?: [number, number];
  /** The pose read that fails (0-based): the robot is lost. */
  readonly lostAt?: number;
}

function robot(o: Robot): Waypoints & { goals: number } {
  let p = { x: o.start[0], y: o.start[1] };
  let reads = 0;
  let goal: {
    poses: { x: number; y: number }[];
    resolve(): void;
    reject(e: Error): void;
    reads: number;
    n: number;
  } | null = null;
  const self = {
    goals: 0,
    map: {
      bounds: { minX: 0, minY: 0, maxX: 10, maxY: 6 },
      blocked: () => null,
      randomFree: () => [1, 1] as [number, number],
    },
    maxPoses: o.maxPoses,
    poll_s: 0.01,
    pose(): Promise<Pose> {
      if (reads++ === o.lostAt) return Promise.reject(new WorldError('disconnected', 'fake', 'lost the robot'));
      const g = goal;
      if (g !== null) {
        const q = g.poses[0]!;
        const d = Math.hypot(q.x - p.x, q.y - p.y);
        if (d <= o.speed) {
          p = { x: q.x, y: q.y };
          g.poses.shift();
        } else p = { x: p.x + ((q.x - p.x) * o.speed) / d, y: p.y + ((q.y - p.y) * o.speed) / d };
        g.reads++;
        if (g.poses.length === 0) {
          goal = null;
          g.resolve();
        } else if (o.abortGoal === g.n && g.reads >= 3) {
          goal = null;
          g.reject(new WorldError('aborted', 'fake', 'the planner gave up'));
        } else if (g.reads > (o.timeoutReads ?? 500)) {
          goal = null;
          g.reject(new WorldError('timeout', 'fake', 'deadline'));
        }
      }
      return Promise.resolve({ ...p });
    },
    go(poses: readonly Pose[], c: { readonly signal: AbortSignal }): Promise<void> {
      const n = ++self.goals;
      return new Promise<void>((resolve, reject) => {
        const detour = o.detour !== undefined && n === 1 ? [{ x: o.detour[0], y: o.detour[1] }] : [];
        goal = { poses: [...detour, ...poses.map((q) => ({ x: q.x, y: q.y }))], resolve, reject, reads: 0, n };
        c.signal.addEventListener(
          'abort',
          () => {
            if (goal === null) return;
            goal = null;
            reject(new WorldError('cancelled', 'fake', 'goal cancelled, robot stopped'));
          },
          { once: true },
        );
      });
    },
  };
  return self;
}

const regionSet = parseRegions(REGIONS, 'regions.json');
const base = labelledGraph(labGraph(), 'graph.json');

async function mission(
  spec: string,
  world: Robot,
  o: { method?: 'sagas' | 'sagas-replan'; replans?: number; maxSteps?: number } = {},
): Promise<{ r: MissionResult; kinds: Record<string, number>; goals: number }> {
  const formula = parseLtl(spec);
  const automaton = translateFormula(formula).automaton;
  const regions = regionSet.regions.filter((r) => automaton.aps.includes(r.name));
  const { graph } = onRegions(base, regions, 'graph.json');
  const audit = catalogueAudit();
  const w = robot(world);
  const r = await runWaypointMission(
    { world: w, graph, automaton, formula, regions, audit, sleep: () => Promise.resolve() },
    {
      method: o.method ?? 'sagas',
      lambda: 0.5,
      k: Infinity,
      tauSoft: 0.5,
      replans: o.replans ?? 3,
      maxSteps: o.maxSteps ?? 3000,
      ...WAYPOINT_DEFAULTS,
    },
  );
  return { r, kinds: audit.kinds, goals: w.goals };
}

const LAB: Robot = { start: [0.2, 0.3], speed: 0.3, maxPoses: 8 };

test('a patrol on the lab graph is realised goal by goal and judged by the lasso evaluator, whatever the poses per goal', async () => {
  for (const maxPoses of [8, 1]) {
    const { r, kinds, goals } = await mission(PATROL, { ...LAB, maxPoses });
    assert.equal(r.success, true, r.message);
    assert.equal(r.executorComplete, true);
    assert.ok(r.T_pre !== null && r.T_suf !== null && r.T_suf > 0);
    assert.equal(r.steps, r.labels.length);
    assert.ok(!r.labels.some((l) => l.includes('hazard')), 'the patrol never enters the hazard');
    assert.equal(kinds['run_end'], 1);
    assert.equal(r.plans.length, 1);
    if (maxPoses === 1) assert.ok(goals > r.events.filter((e) => e.kind === 'suffix-traversal').length);
  }
});

test('an aborted goal is a goal-aborted record: sagas-replan replans from the pose and succeeds; plain SAGAS ends in its stage', async () => {
  const replanned = await mission(PATROL, { ...LAB, abortGoal: 1 }, { method: 'sagas-replan' });
  assert.equal(replanned.r.success, true, replanned.r.message);
  assert.deepEqual(
    replanned.r.failures.map((f) => f.kind),
    ['goal-aborted'],
  );
  assert.equal(replanned.r.plans.length, 2);
  assert.equal(replanned.kinds['replan'], 1);
  const plain = await mission(PATROL, { ...LAB, abortGoal: 1 });
  assert.equal(plain.r.success, false);
  assert.equal(plain.r.failureMode, 'prefix');
  assert.match(plain.r.message, /^goal-aborted at /);
  assert.equal(plain.r.plans.length, 1);
});

test('goals that time out past the budget escalate; the escalation is recorded once', async () => {
  const { r, kinds } = await mission(
    'G F shelf & G F dock',
    { ...LAB, speed: 0.02, maxPoses: 1, timeoutReads: 20 },
    { method: 'sagas-replan', replans: 1 },
  );
  assert.equal(r.success, false);
  assert.equal(r.failureMode, 'escalated');
  assert.equal(r.message, 'replanning budget R = 1 exhausted; escalating with 2 failure record(s)');
  assert.deepEqual(
    r.failures.map((f) => f.kind),
    ['tracking-timeout', 'tracking-timeout'],
  );
  assert.equal(kinds['escalation'], 1);
});

test('a detour into a forbidden region cancels the goal and ends the run as a safety stop', async () => {
  const { r } = await mission(PATROL, { ...LAB, detour: [4.5, 1.5] });
  assert.equal(r.success, false);
  assert.equal(r.failureMode, 'safety');
  assert.match(r.message, /^safety stop: the robot entered hazard/);
  assert.deepEqual(
    r.failures.map((f) => f.kind),
    ['safety'],
  );
  assert.equal(r.monitorViable, false);
});

test('the rollout budget, a lost robot and a start inside a forbidden region each end the run with their reason', async () => {
  const budget = await mission('G F shelf & G F dock', { ...LAB, speed: 0.1 }, { maxSteps: 40 });
  assert.equal(budget.r.failureMode, 'prefix');
  assert.equal(budget.r.steps, 40);
  assert.match(budget.r.message, /^rollout budget of 40 pose samples exhausted/);
  const lost = await mission('G F shelf & G F dock', { ...LAB, lostAt: 7 });
  assert.equal(lost.r.failureMode, 'world');
  assert.match(lost.r.message, /lost the robot; cancelling the goal: goal cancelled, robot stopped$/);
  assert.equal(lost.r.steps, 7);
  const inside = await mission('G F shelf & G !hazard', { ...LAB, start: [4.5, 1] });
  assert.equal(inside.r.failureMode, 'planning');
  assert.match(inside.r.message, /in hazard, where the specification is already violated/);
  assert.equal(inside.goals, 0, 'no goal is sent');
});
