import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { PointMazeSim, PointMazeWorld } from '../../../main/backends/mujoco/pointmaze.js';
import { defaultConfig, generateDataset } from '../../../main/core/data/generators.js';
import { loadModels } from '../../../main/services/models/bundle.js';
import { buildArtifact } from '../../../main/services/graph/build-artifact.js';
import { augmentTask, type Backbone } from '../../../main/services/plan/inputs.js';
import { executionCause, runMission, withMotion, type MissionOptions } from '../../../main/core/exec/mission.js';
import type { Navigation } from '../../../main/core/world/world.js';
import { DEFAULT_EXEC } from '../../../main/core/exec/executor.js';
import { DEFAULT_AUGMENT } from '../../../main/core/graph/augment.js';
import { DEFAULT_PLAN } from '../../../main/core/plan/plan.js';
import { createRng } from '../../../main/core/random/rng.js';
import { parseLtl } from '../../../main/core/ltl/parser.js';
import { translateFormula } from '../../../main/core/ltl/translate.js';
import { evaluateLasso } from '../../../main/core/ltl/lasso.js';
import type { Region } from '../../../main/core/world/regions.js';
import { catalogueAudit } from '../../contract/catalogue.js';
import { type CheckRegion, lettersAlong } from '../map/motion-checker.js';

const MODELS = fileURLToPath(new URL('../../../../assets/models/pointmaze-medium', import.meta.url));
const REGIONS: Region[] = [
  { name: 'e1', kind: 'disk', center: [20, 0], radius: 1.5 },
  { name: 'e2', kind: 'disk', center: [8, 8], radius: 1.5 },
  // Thin walls across both ways out of the start cell: any route crosses one.
  { name: 'bad1', kind: 'box', min: [5.6, 17], max: [6.4, 23] },
  { name: 'bad2', kind: 'box', min: [-3, 17.6], max: [3, 18.4] },
];
const OPTS: MissionOptions = {
  method: 'sagas',
  lambda: 0.5,
  k: 5,
  tauSoft: DEFAULT_PLAN.tauSoft,
  exec: DEFAULT_EXEC,
  maxSteps: 3000,
  replans: 2,
  seed: 3,
};

async function setup(): Promise<{ b: Backbone; sim: PointMazeWorld }> {
  const models = await loadModels(MODELS);
  const gen = await PointMazeSim.create('pointmaze-medium');
  const dataset = generateDataset(gen, 'pointmaze-medium', defaultConfig('navigate', 100_000, 1));
  gen.close();
  const artifact = await buildArtifact(dataset, models, 0.99);
  return {
    b: { artifact, dataset, models, files: { graph: '-', data: '-', models: MODELS } },
    sim: await PointMazeWorld.open('pointmaze-medium'),
  };
}

/** Every event a mission records, checked against the audit event catalogue as it happens. */
const audit = catalogueAudit();

async function mission(
  b: Backbone,
  w: PointMazeWorld,
  spec: string,
  o: Partial<MissionOptions> = {},
  regionNames = ['e1', 'e2'],
) {
  return missionOn(b, w.navigation, spec, o, regionNames);
}

async function missionOn(
  b: Backbone,
  nav: Navigation,
  spec: string,
  o: Partial<MissionOptions> = {},
  regionNames = ['e1', 'e2'],
) {
  const formula = parseLtl(spec);
  const automaton = translateFormula(formula).automaton;
  const regions = REGIONS.filter((r) => regionNames.includes(r.name));
  const task = await augmentTask(
    b,
    { id: 'pointmaze-medium', map: nav.map, restObservation: nav.restObservation },
    { regions },
    [4, 20],
    DEFAULT_AUGMENT,
    createRng(0),
  );
  return runMission(
    {
      world: nav,
      policy: b.models,
      graph: task.graph,
      automaton,
      formula,
      regions,
      start: [4, 20],
      now: () => performance.now(),
      audit,
    },
    { ...OPTS, ...o },
  );
}

test('missions in pointmaze-medium: success by the lasso evaluator, budgets, replanning, escalation, committed violations', async () => {
  const { b, sim } = await setup();
  try {
    const ok = await mission(b, sim, 'F (e2 & F e1)');
    assert.equal(ok.success, true, ok.message);
    assert.equal(ok.executorComplete, true);
    assert.ok(ok.T_pre !== null && ok.T_suf !== null && ok.ncc > 0 && ok.ncc < 1);
    assert.deepEqual(
      ok.events
        .filter((e) => e.kind === 'checkpoint')
        .slice(0, 2)
        .map((e) => e.node.split(':')[1]),
      ['e2', 'e1'],
    );
    // The verdict is the realised labels': check it again from the recorded labels.
    const letters = ok.labels.map((l) => new Set(l));
    assert.equal(
      evaluateLasso(parseLtl('F (e2 & F e1)'), { prefix: letters.slice(0, -1), cycle: letters.slice(-1) }),
      true,
    );
    assert.ok(ok.stepTimes_ms.length === ok.steps);

    // A tracking budget too small to reach anything: every transition times out; sagas-replan
    // replans R = 2 times from the monitor's state set, then escalates with the whole trace.
    const tight = { ...DEFAULT_EXEC, H_low: 2 };
    const plain = await mission(b, sim, 'F (e2 & F e1)', { exec: tight });
    assert.deepEqual(
      [plain.success, plain.failureMode, plain.failures.length, plain.plans.length],
      [false, 'prefix', 1, 1],
    );
    const replan = await mission(b, sim, 'F (e2 & F e1)', { exec: tight, method: 'sagas-replan' });
    assert.equal(replan.success, false);
    assert.equal(replan.failureMode, 'escalated');
    assert.equal(replan.plans.length, 3);
    assert.equal(replan.failures.length, 3);
    assert.match(replan.message, /budget R = 2 exhausted/);
    assert.ok(
      replan.plans.slice(1).every((p) => p.result.status === 'ok' && p.result.certificate.resume !== undefined),
    );

    // With the soft-label screen off (τ_soft = 1) the plan crosses a thin forbidden strip; G ¬ℓ is
    // then violated for good: unrecoverable, never replanned.
    const bad = await mission(b, sim, 'F e2 & G !bad1 & G !bad2', { tauSoft: 1, method: 'sagas-replan' }, [
      'e2',
      'bad1',
      'bad2',
    ]);
    assert.equal(bad.failureMode, 'unrecoverable', bad.message);
    assert.equal(bad.plans.length, 1);
    assert.equal(bad.monitorViable, false);

    const none = await mission(b, sim, 'F e2 & G !e2');
    assert.equal(none.failureMode, 'planning');
    // why: the two conjuncts conflict, and the first plan's document carries the explanation
    assert.match(
      none.message,
      /Why: the conjuncts F e2 and G !e2 cannot hold together on any graph: they contradict each other/,
    );
    assert.deepEqual((none.plans[0]!.document['explanation'] as { conflict: number[] }).conflict, [0, 1]);
    // Failures, replans, the escalation and every run's end were recorded in the catalogue's shapes.
    for (const k of ['failure_record', 'replan', 'escalation', 'run_end', 'checkpoint', 'monitor_event'])
      assert.ok((audit.kinds[k] ?? 0) > 0, `no ${k}: ${JSON.stringify(audit.kinds)}`);
  } finally {
    await sim.close();
    await b.models.close();
  }
});

test('a body that falls ends the mission as overturned, never replanned; a tracking time-out says whether the body stalled', async () => {
  const { b, sim } = await setup();
  try {
    const nav = sim.navigation;
    // The world reports the body fallen from step 5 on (as the Ant's world does once it lies on its back).
    let steps = 0;
    const falling: Navigation = {
      ...nav,
      reset: (o) => {
        steps = 0;
        return nav.reset(o);
      },
      step: (a, o) => {
        steps++;
        return nav.step(a, o);
      },
      fallen: () => (steps >= 5 ? 'on its back' : null),
    };
    const fell = await missionOn(b, falling, 'F (e2 & F e1)', { method: 'sagas-replan' });
    assert.deepEqual([fell.success, fell.failureMode, fell.steps, fell.plans.length], [false, 'prefix', 6, 1]);
    assert.deepEqual(
      fell.failures.map((f) => [f.kind, f.class, f.unrecoverable]),
      [['overturned', 'permanent', true]],
    );
    assert.match(fell.message, /overturned while tracking .*on its back/);
    assert.equal(executionCause(fell), 'overturned');

    // A world that ignores every action: the first transition times out with the body where it started.
    const frozen: Navigation = { ...nav, step: () => nav.observe() };
    const stuck = await missionOn(b, frozen, 'F (e2 & F e1)');
    assert.deepEqual(
      [stuck.failureMode, stuck.failures[0]?.kind, stuck.failures[0]?.stalled, stuck.failures[0]?.moved_m],
      ['prefix', 'tracking-timeout', true, 0],
    );
    assert.equal(executionCause(stuck), 'stalled');
    assert.equal(executionCause({ ...stuck, success: true }), null);
  } finally {
    await sim.close();
    await b.models.close();
  }
});

test('withMotion: a time-out is a stall under the reach radius over the last H_low steps, a drift beyond it', () => {
  const base = {
    source: 'mission' as const,
    kind: 'tracking-timeout' as const,
    label: 'tracking-timeout' as const,
    t: 150,
    stream: 'prefix' as const,
    index: 0,
    from: 'a',
    to: 'b',
    term: 'true',
    labels: [],
    latent: [],
    violated: 'b',
    class: 'transient' as const,
    action: 'penalize-edge' as const,
    unrecoverable: false,
    rule: 'tracking a → b timed out',
  };
  const line = (n: number, v: number): number[] => Array.from({ length: n }, (_, i) => [4 + v * i, 20]).flat();
  const still = withMotion(base, line(151, 0), DEFAULT_EXEC);
  assert.deepEqual([still.stalled, still.moved_m], [true, 0]);
  // 0.005 m a step: 0.5 m over the last 100 steps, under reach_m = 1.
  assert.equal(withMotion(base, line(151, 0.005), DEFAULT_EXEC).stalled, true);
  const moving = withMotion(base, line(151, 0.05), DEFAULT_EXEC);
  assert.equal(moving.stalled, false);
  assert.ok(Math.abs(moving.moved_m! - 5) < 1e-9, String(moving.moved_m));
  assert.match(moving.rule, /drifted: moved 5\.00 m in the last 100 steps/);
  // Only time-outs carry it.
  const other = { ...base, kind: 'forbidden-label' as const, label: 'forbidden-label' as const };
  assert.equal(withMotion(other, line(151, 0.05), DEFAULT_EXEC), other);
});

test("on a latent graph the motion is the policy's: a run succeeds only if its recorded path, sampled between every two steps, keeps out of what the spec forbids", async () => {
  const { b, sim } = await setup();
  try {
    const checked = REGIONS as CheckRegion[];
    let entered = 0,
      succeeded = 0;
    const cases: [string, string[], Partial<MissionOptions>][] = [
      ['F e1 & G !bad1', ['e1', 'bad1'], {}],
      ['F e2 & G !bad2', ['e2', 'bad2'], { method: 'sagas-replan' }],
      ['(!bad1 U e2) & F e1', ['e1', 'e2', 'bad1'], { method: 'sagas-replan' }],
      ['F e2 & G !bad1 & G !bad2', ['e2', 'bad1', 'bad2'], { method: 'lf-gas' }],
      // the soft-label screen off: plans run across the strips, and the monitor must catch it
      ['F e1 & G !bad1', ['e1', 'bad1'], { tauSoft: 1 }],
      ['F e2 & G !bad1 & G !bad2', ['e2', 'bad1', 'bad2'], { tauSoft: 1, method: 'sagas-replan' }],
    ];
    for (const [spec, names, o] of cases) {
      const r = await mission(b, sim, spec, o, names);
      const forbidden = names.filter((n) => n.startsWith('bad'));
      const points = Array.from(
        { length: r.steps },
        (_, i) => [r.trajectory[2 * i]!, r.trajectory[2 * i + 1]!] as const,
      );
      const word = lettersAlong(
        [...points, points[points.length - 1]!],
        checked.filter((x) => names.includes(x.name)),
        0.01,
      );
      const before = (x: string, y: string): boolean => {
        const i = word.findIndex((l) => l.includes(x)),
          j = word.findIndex((l) => l.includes(y));
        return i >= 0 && (j < 0 || i < j);
      };
      const violated = spec.includes('U e2')
        ? before('bad1', 'e2')
        : word.some((l) => l.some((n) => forbidden.includes(n)));
      if (violated) {
        entered++;
        assert.equal(
          r.success,
          false,
          `${spec} ${JSON.stringify(o)}: succeeded although the path entered a forbidden region`,
        );
      }
      if (r.success) succeeded++;
    }
    assert.ok(entered > 0 && succeeded > 0, `entered ${entered}, succeeded ${succeeded}: the cases tested little`);
  } finally {
    await sim.close();
    await b.models.close();
  }
});
