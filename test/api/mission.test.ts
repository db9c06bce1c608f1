// @slow: runs missions and trains a model bundle (not in npm run test:quick)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi, type DirectApi } from '../../main/api/direct.js';
import type { ApiEvent, MissionEvent } from '../../main/contract/api.js';
import { WitnessError, errorReport } from '../../main/contract/errors.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import type { WorldFault } from '../../main/core/world/faults.js';

const REGIONS = readFileSync(new URL('../../../assets/regions/pointmaze-medium.json', import.meta.url), 'utf8');
const SPEC = 'F e2 & G F e1 & G F e4 & G !e0';

function setup(faults: readonly WorldFault[] = []): { api: DirectApi; events: ApiEvent[]; audit: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-mission-'));
  const audit = path.join(dir, 'audit.sqlite');
  const api = createDirectApi({ workspace: dir, auditFile: audit, faults });
  const events: ApiEvent[] = [];
  api.context.bus.subscribe((e) => events.push(e));
  return { api, events, audit };
}

const code = async (p: Promise<unknown>): Promise<string | undefined> => {
  try {
    await p;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof WitnessError, String(e));
    return errorReport(e).code;
  }
};

function until<T extends MissionEvent['topic']>(
  events: ApiEvent[],
  topic: T,
  pred: (e: Extract<MissionEvent, { topic: T }>) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<Extract<MissionEvent, { topic: T }>> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const hit = events.find(
        (e): e is Extract<MissionEvent, { topic: T }> =>
          e.topic === topic && pred(e as Extract<MissionEvent, { topic: T }>),
      );
      if (hit !== undefined) return resolve(hit);
      if (Date.now() - t0 > timeoutMs) return reject(new Error(`no ${topic} event within ${timeoutMs} ms`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

test('missionPlan refuses bad input precisely, before any long work', async () => {
  const { api } = setup();
  try {
    const base = { job: 'j', world: 'pointmaze-medium', spec: SPEC, regions: REGIONS, datasetSteps: 20_000 };
    assert.equal(await code(api.missionPlan({ ...base, world: 'mars' })), 'invalid-params');
    assert.equal(await code(api.missionPlan({ ...base, models: 'pointmaze-giant' })), 'invalid-params');
    assert.equal(await code(api.missionPlan({ ...base, spec: 'F (e1 &' })), 'invalid-spec');
    assert.equal(await code(api.missionPlan({ ...base, spec: 'F kitchen' })), 'invalid-spec');
    assert.equal(await code(api.missionPlan({ ...base, regions: '{"regions": [' })), 'invalid-regions');
    // The editor still holds the medium maze's regions when the operator picks another maze: refused, naming $.world.
    await assert.rejects(api.missionPlan({ ...base, world: 'antmaze-large' }), (e: unknown) => {
      const r = errorReport(e);
      assert.equal(r.code, 'invalid-regions');
      assert.match(
        r.message,
        /regions \$\.world: the regions are for "pointmaze-medium", the mission is in "antmaze-large" \(its shipped regions: assets\/regions\/antmaze-large\.json\)/,
      );
      return true;
    });
    assert.equal(await code(api.missionPlan({ ...base, start: [-100, -100] })), 'invalid-params'); // outside the maze
    assert.equal(await code(api.missionPlan({ ...base, start: [-4, -4] })), 'invalid-params'); // the border wall
    assert.equal(await code(api.missionRun({ session: 'nope' })), 'not-found');
    assert.equal(await code(api.missionControl({ run: 'nope', action: 'pause' })), 'not-found');
  } finally {
    await api.close();
  }
});

test('planning is a job with progress that the operator can cancel', async () => {
  const { api, events } = setup();
  try {
    // The operator cancels as the job reports that it runs (not after a fixed sleep, which a job served from
    // the backbone cache can outrun).
    let cancel: Promise<{ cancelled: boolean }> | undefined;
    api.context.bus.subscribe((e) => {
      if (cancel === undefined && e.topic === 'job' && e.job === 'slow' && e.state === 'running')
        cancel = api.cancelJob({ job: 'slow' });
    });
    const p = api.missionPlan({
      job: 'slow',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: REGIONS,
      datasetSteps: 1_000_000,
    });
    assert.equal(await code(p), 'cancelled');
    assert.deepEqual(await cancel, { cancelled: true });
    const jobs = events.filter((e) => e.topic === 'job' && e.job === 'slow');
    assert.ok(jobs.some((e) => e.topic === 'job' && e.state === 'running'));
    const last = jobs.at(-1);
    assert.ok(last?.topic === 'job' && last.state === 'cancelled', JSON.stringify(last));
  } finally {
    await api.close();
  }
});

/** The robot stops moving at its 150th step, for good: the executor's tracking budget runs out there. */
const STUCK_AT = 150;

test('a console mission plans, runs with live ticks, escalates past R = 0 (the robot stuck on cue) and records the operator’s decision', async () => {
  const { api, events, audit } = setup([{ at: 'step', n: STUCK_AT, kind: 'stuck' }]);
  try {
    const planned = await api.missionPlan({
      job: 'p1',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: REGIONS,
      start: [4, 20],
      datasetSteps: 50_000,
    });
    assert.equal(planned.plan.status, 'ok');
    assert.ok(planned.plan.prefix.length > 1 && planned.plan.suffix.length > 0);
    assert.ok(planned.scene.nodes.length === planned.report.nodes && planned.scene.picture?.startsWith('<svg'));
    assert.ok(planned.automaton.states.length > 0);
    assert.ok(events.some((e) => e.topic === 'job' && e.job === 'p1' && e.state === 'done'));
    const { run, auditRun } = await api.missionRun({ session: planned.session, replans: 0, speed: 300 });
    assert.equal(await code(api.missionRun({ session: planned.session })), 'busy');
    const esc = await until(events, 'mission.escalation', (e) => e.run === run);
    assert.ok(events.some((e) => e.topic === 'mission.tick' && e.run === run));
    // The failure we caused, and nothing before it: one tracking timeout after the robot stuck, no replan, R = 0 spent.
    const f = esc.escalation.failure;
    assert.ok(f.source === 'mission');
    assert.deepEqual(
      [f.kind, esc.escalation.cause, esc.escalation.replans, esc.escalation.budget, esc.escalation.failures.length],
      ['tracking-timeout', 'replan-budget', 0, 0, 1],
    );
    assert.ok(f.t >= STUCK_AT, `the failure (step ${f.t}) comes after the fault (step ${STUCK_AT})`);
    assert.ok(!events.some((e) => e.topic === 'mission.replan' && e.run === run), 'no replan with R = 0');
    assert.deepEqual((await api.missionControl({ run, action: 'pause' })).state, 'escalated');
    assert.deepEqual(
      await api.escalationDecide({ run, escalation: 'wrong', decision: 'abort', reason: 'wrong escalation id' }),
      { accepted: false },
    );
    assert.deepEqual(
      await api.escalationDecide({
        run,
        escalation: esc.escalation.id,
        decision: 'abort',
        reason: 'bumper hit the wall twice',
      }),
      { accepted: true },
    );
    const end = await until(events, 'mission.end', (e) => e.run === run);
    assert.equal(end.success, false);
    assert.equal(end.failureMode, 'escalated');
    assert.match(end.message, /operator aborted: bumper hit the wall twice/);
    // The whole driven path comes with the end (the ticks are a sample): one point per step, each tick's among them.
    assert.equal(end.trajectory.length, 2 * end.steps);
    for (let t = STUCK_AT; t < end.steps; t++) {
      assert.deepEqual(
        end.trajectory.slice(2 * t, 2 * t + 2),
        end.trajectory.slice(2 * STUCK_AT - 2, 2 * STUCK_AT),
        `held where it stuck at step ${t}`,
      );
    }
    const ticks = events.filter(
      (e): e is Extract<typeof e, { topic: 'mission.tick' }> => e.topic === 'mission.tick' && e.run === run,
    );
    for (const k of ticks)
      assert.ok(
        Math.abs(end.trajectory[2 * k.t]! - k.x) < 2e-3 && Math.abs(end.trajectory[2 * k.t + 1]! - k.y) < 2e-3,
        `tick t=${k.t}`,
      );
    // Each tick says where the run stands: the target's place in its stream, the distance to it, the speed over the
    // last step.
    const nodes = new Map(planned.scene.nodes.map((n) => [n.id, n]));
    const dts: number[] = [];
    for (const k of ticks) {
      assert.ok(
        k.progress.index >= 0 && k.progress.index < k.progress.length,
        `tick t=${k.t}: ${JSON.stringify(k.progress)}`,
      );
      assert.equal(
        k.progress.length,
        k.progress.stream === 'prefix' ? planned.plan.prefix.length - 1 : planned.plan.suffix.length,
      );
      assert.equal(k.progress.rounds, 2);
      const target = nodes.get(k.target!)!;
      assert.ok(
        Math.abs(k.distance_m! - Math.hypot(target.x - k.x, target.y - k.y)) < 1e-6,
        `tick t=${k.t}: distance to ${k.target}`,
      );
      assert.ok(k.elapsed_s >= 0);
      if (k.t === 0) assert.equal(k.speed_mps, null);
      const moved =
        k.t > 0
          ? Math.hypot(
              end.trajectory[2 * k.t]! - end.trajectory[2 * k.t - 2]!,
              end.trajectory[2 * k.t + 1]! - end.trajectory[2 * k.t - 1]!,
            )
          : 0;
      if (moved > 0.02) dts.push(moved / k.speed_mps!);
    }
    // A paced run (speed > 0) ticks at every step, not on a wall-clock sample: every step of the motion up to
    // STUCK_AT is here, whatever the machine, and each must give the same control step.
    assert.deepEqual(
      ticks.slice(0, STUCK_AT).map((k) => k.t),
      Array.from({ length: STUCK_AT }, (_, t) => t),
      'one tick per step',
    );
    assert.ok(dts.length >= 2, `ticks with motion: ${dts.length}`);
    for (const dt of dts)
      assert.ok(
        Math.abs(dt / dts[0]! - 1) < 0.05,
        `speed × one control step = the displacement (dt ${dt} vs ${dts[0]})`,
      );
    assert.ok(
      ticks.every((k, i) => i === 0 || k.elapsed_s >= ticks[i - 1]!.elapsed_s),
      'elapsed time never goes back',
    );
    const db = openAuditReadOnly(audit);
    try {
      const rows = db
        .prepare("SELECT kind, body FROM events WHERE run_id = ? AND kind IN ('escalation', 'operator_decision')")
        .all(auditRun) as { kind: string; body: string }[];
      assert.deepEqual(
        rows.map((r) => r.kind),
        ['escalation', 'operator_decision'],
      );
      assert.equal((JSON.parse(rows[1]!.body) as { reason: string }).reason, 'bumper hit the wall twice');
    } finally {
      db.close();
    }
  } finally {
    await api.close();
  }
});

test('pause holds the robot, resume continues, and the emergency stop ends the run and is recorded', async () => {
  const { api, events, audit } = setup();
  try {
    const planned = await api.missionPlan({
      job: 'p2',
      world: 'pointmaze-medium',
      spec: SPEC,
      regions: REGIONS,
      start: [4, 20],
      datasetSteps: 50_000,
    });
    const { run, auditRun } = await api.missionRun({ session: planned.session, replans: 3, speed: 200 });
    await until(events, 'mission.tick', (e) => e.run === run);
    const ticks = (): number => events.filter((e) => e.topic === 'mission.tick' && e.run === run).length;
    assert.equal((await api.missionControl({ run, action: 'pause' })).state, 'paused');
    // A window opening now joins from the snapshot: the run, its plan, where it stands, numbered like its events.
    const { mission: live } = await api.missionLive();
    assert.ok(live !== null);
    assert.equal(live.run, run);
    assert.equal(live.auditRun, auditRun);
    assert.equal(live.session, planned.session);
    assert.equal(live.state, 'paused');
    assert.deepEqual(live.plan, planned.plan);
    const sent = events.filter(
      (e): e is MissionEvent => e.topic.startsWith('mission.') && (e as MissionEvent).run === run,
    );
    assert.deepEqual(
      sent.map((e) => e.seq),
      sent.map((_, i) => i + 1),
      'a run numbers its events from 1, in order',
    );
    assert.equal(live.seq, sent.length, 'the snapshot holds every event sent so far');
    assert.equal(live.ticks.length, sent.filter((e) => e.topic === 'mission.tick').length);
    assert.deepEqual(
      live.ticks.at(-1),
      (({ topic: _t, run: _r, seq: _s, ...k }) => k)(
        sent.filter((e) => e.topic === 'mission.tick').at(-1) as Extract<MissionEvent, { topic: 'mission.tick' }>,
      ),
    );
    // Paused: the step in flight may still tick once (ticks are emitted before a step), then nothing.
    const held = ticks();
    // A pause is steps NOT happening. The run paces its steps with timers of this same event loop (one per
    // 1000 / 200 ms at speed 200): once 60 such intervals have passed here, a run that was not held would have
    // ticked, however loaded the machine.
    for (let i = 0; i < 60; i++) await new Promise((r) => setTimeout(r, 1000 / 200));
    assert.ok(ticks() <= held + 1, 'no steps while paused');
    assert.equal((await api.missionControl({ run, action: 'resume' })).state, 'running');
    await until(
      events,
      'mission.tick',
      (e) => e.run === run && events.filter((x) => x.topic === 'mission.tick').length > held + 3,
    );
    const fired = await api.emergencyStop();
    // It names the runs it stopped as the audit log does.
    assert.deepEqual(fired.stopped, [auditRun]);
    assert.equal(fired.state.latched, true);
    assert.ok(fired.state.latched && fired.state.stopped.length === 1 && fired.state.stopped[0] === auditRun);
    const end = await until(events, 'mission.end', (e) => e.run === run);
    assert.equal(end.failureMode, 'stopped');
    assert.equal(end.outcome, 'stopped');
    assert.match(end.message, /emergency stop/);
    // Latched: nothing starts or resumes until an acknowledged reset with a reason.
    await assert.rejects(
      api.missionRun({ session: planned.session }),
      (e: Error & { code?: string }) => e.code === 'estop-latched',
    );
    await assert.rejects(api.estopReset({ acknowledged: true, reason: '  ' }), /needs a reason/);
    // The transport validates the acknowledgement; called directly, a missing one is refused as well.
    await assert.rejects(
      api.estopReset({ acknowledged: false as unknown as true, reason: 'x' }),
      (e: Error & { code?: string }) => e.code === 'invalid-params' && /acknowledg/.test(e.message),
    );
    const after = await api.estopReset({ acknowledged: true, reason: 'checked the robot' });
    assert.deepEqual(after, { latched: false });
    await assert.rejects(
      api.estopReset({ acknowledged: true, reason: 'again' }),
      (e: Error & { code?: string }) => e.code === 'conflict',
    );
    assert.ok(
      events.some((e) => e.topic === 'estop' && e.state.latched) &&
        events.some((e) => e.topic === 'estop' && !e.state.latched),
    );
    assert.ok(events.some((e) => e.topic === 'mission.state' && e.run === run && e.state === 'estopped'));
    const db = openAuditReadOnly(audit);
    try {
      const d = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'operator_decision'").get(auditRun) as {
        body: string;
      };
      assert.equal((JSON.parse(d.body) as { decision: string }).decision, 'estop');
      // The latch's own run names the audit run it stopped: a run that is in the log.
      const latch = db.prepare("SELECT id, meta FROM runs WHERE world = 'console'").get() as {
        id: string;
        meta: string;
      };
      assert.deepEqual((JSON.parse(latch.meta) as { stopped: string[] }).stopped, [auditRun]);
      assert.ok(db.prepare('SELECT 1 FROM runs WHERE id = ?').get(auditRun) !== undefined);
      const e = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'operator_decision'").get(latch.id) as {
        body: string;
      };
      assert.match(
        (JSON.parse(e.body) as { reason: string }).reason,
        new RegExp(`\\(stopped audit run ${auditRun}\\)$`),
      );
    } finally {
      db.close();
    }
  } finally {
    await api.close();
  }
});

test("the Ant mazes offer their stitch bundles beside their own; a plan runs over the chosen bundle's regime and says so", async () => {
  const { api } = setup();
  try {
    const worlds = await api.listWorlds();
    const models = (id: string): string[] => worlds.find((w) => w.id === id)!.models;
    assert.deepEqual(models('antmaze-medium'), ['antmaze-medium', 'antmaze-medium-stitch']);
    assert.deepEqual(models('antmaze-large'), ['antmaze-large', 'antmaze-large-stitch']);
    assert.deepEqual(models('pointmaze-medium'), ['pointmaze-medium']);
    const regions = readFileSync(new URL('../../../assets/regions/antmaze-medium.json', import.meta.url), 'utf8');
    const base = {
      world: 'antmaze-medium',
      spec: 'F e2',
      regions,
      start: [4, 20] as [number, number],
      datasetSteps: 20_000,
    };
    const stitch = await api.missionPlan({ ...base, job: 'ps', models: 'antmaze-medium-stitch' });
    assert.deepEqual(stitch.report.dataset, { regime: 'stitch', transitions: 20_000 });
    const nav = await api.missionPlan({ ...base, job: 'pn' });
    assert.deepEqual(nav.report.dataset, { regime: 'navigate', transitions: 20_000 });
    assert.equal(
      await code(api.missionPlan({ ...base, job: 'px', models: 'antmaze-large-stitch' })),
      'invalid-params',
      "another world's bundle",
    );
  } finally {
    await api.close();
  }
});

test('training a model bundle is a cancellable job whose bundle joins the world’s models', async () => {
  const { api, events } = setup();
  try {
    const t0 = Date.now();
    const r = await api.trainModels({
      job: 't1',
      world: 'pointmaze-medium',
      name: 'tiny',
      datasetSteps: 2000,
      embedSteps: 3,
      policySteps: 3,
    });
    const seconds = (Date.now() - t0) / 1000;
    assert.equal(r.models, 'workspace/tiny');
    const manifest = JSON.parse(readFileSync(path.join(r.dir, 'manifest.json'), 'utf8')) as {
      world: string;
      files: Record<string, unknown>;
    };
    assert.equal(manifest.world, 'pointmaze-medium');
    assert.deepEqual(Object.keys(manifest.files).sort(), ['embed.onnx', 'policy.onnx']);
    const medium = (await api.listWorlds()).find((w) => w.id === 'pointmaze-medium')!;
    assert.deepEqual(medium.models, ['pointmaze-medium', 'workspace/tiny']);
    assert.ok(
      events.some((e) => e.topic === 'job' && e.job === 't1' && e.state === 'done'),
      `trained in ${seconds} s`,
    );
    assert.equal(await code(api.trainModels({ job: 't2', world: 'pointmaze-medium', name: 'tiny' })), 'conflict');
    assert.equal(await code(api.trainModels({ job: 't3', world: 'mars', name: 'x' })), 'invalid-params');
    const slow = api.trainModels({
      job: 't4',
      world: 'pointmaze-medium',
      name: 'slow',
      datasetSteps: 2000,
      embedSteps: 100_000,
      policySteps: 10,
    });
    // Cancel while ψ is training (the job says so), not after a guessed delay.
    const training = (): boolean =>
      events.some((e) => e.topic === 'job' && e.job === 't4' && e.state === 'running' && /ψ/.test(e.phase));
    for (let i = 0; i < 6000 && !training(); i++) await new Promise((res) => setTimeout(res, 10));
    assert.ok(training(), 'the slow job reports training ψ');
    assert.deepEqual(await api.cancelJob({ job: 't4' }), { cancelled: true });
    assert.equal(await code(slow), 'cancelled');
    assert.deepEqual((await api.listWorlds()).find((w) => w.id === 'pointmaze-medium')!.models, [
      'pointmaze-medium',
      'workspace/tiny',
    ]);
  } finally {
    await api.close();
  }
});
