// @slow: runs missions with every planner on the mazes and the Ant (long simulation) (not in npm run test:quick)
/**
 * Run executes the plan the console showed, for every planner and every kind of world: the plan
 * served by missionPlan (its document named by plan_sha) is the first plan event of the run's audit
 * log, with the method chosen; the run is recorded with that method; a replan is drawn live with the
 * sha its own plan event records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi, type DirectApi } from '../../main/api/direct.js';
import type { ApiEvent, MissionEvent, MissionPlanResult, MissionPlanRequest } from '../../main/contract/api.js';
import { PLAN_METHODS, type PlanMethod } from '../../main/contract/defaults.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';
import type { WorldFault } from '../../main/core/world/faults.js';
import type { LoaderDeps } from '../../main/backends/ros2/rclnodejs-loader.js';
import { SimulatedRos2Graph } from '../ros2-sim/simulated-graph.js';
import { PATROL, setup as labSetup } from '../ros2-sim/lab.js';

/** Every planner, the paper's baselines first (the console used to run SAGAS whatever was chosen). */
const BASELINES_FIRST: readonly PlanMethod[] = [...PLAN_METHODS].reverse();

const asset = (p: string): string => readFileSync(new URL(`../../../assets/${p}`, import.meta.url), 'utf8');

function open(o: { faults?: readonly WorldFault[]; ros2?: LoaderDeps } = {}): {
  api: DirectApi;
  events: ApiEvent[];
  audit: string;
  workspace: string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-served-'));
  const audit = path.join(dir, 'audit.sqlite');
  const workspace = path.join(dir, 'workspace');
  mkdirSync(workspace);
  const api = createDirectApi({
    workspace,
    auditFile: audit,
    ...(o.faults ? { faults: o.faults } : {}),
    ...(o.ros2 ? { ros2: o.ros2 } : {}),
  });
  const events: ApiEvent[] = [];
  api.context.bus.subscribe((e) => events.push(e));
  return { api, events, audit, workspace };
}

function until<T extends MissionEvent['topic']>(
  events: ApiEvent[],
  topic: T,
  run: string,
  timeoutMs = 120_000,
): Promise<Extract<MissionEvent, { topic: T }>> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const hit = events.find((e): e is Extract<MissionEvent, { topic: T }> => e.topic === topic && e.run === run);
      if (hit !== undefined) return resolve(hit);
      if (Date.now() - t0 > timeoutMs)
        return reject(new Error(`no ${topic} event of run ${run} within ${timeoutMs} ms`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

interface PlanEvent {
  plan_sha: string;
  method: string;
  trigger: string;
  doc: { method: string; prefix: string[]; suffix: string[] };
  blob: string;
}

/** A run's plan events in order, each with its blob, and its run_start meta. */
function recorded(audit: string, run: string): { plans: PlanEvent[]; meta: Record<string, unknown> } {
  const db = openAuditReadOnly(audit);
  try {
    const rows = db
      .prepare(
        "SELECT e.body AS body, b.body AS blob FROM events e JOIN blobs b ON b.sha256 = json_extract(e.body, '$.plan_sha') WHERE e.run_id = ? AND e.kind = 'plan' ORDER BY e.seq",
      )
      .all(run) as { body: string; blob: string }[];
    const start = db.prepare("SELECT body FROM events WHERE run_id = ? AND kind = 'run_start'").get(run) as {
      body: string;
    };
    return {
      plans: rows.map((r) => ({
        ...(JSON.parse(r.body) as Omit<PlanEvent, 'doc' | 'blob'>),
        doc: JSON.parse(r.blob) as PlanEvent['doc'],
        blob: r.blob,
      })),
      meta: (JSON.parse(start.body) as { meta: Record<string, unknown> }).meta,
    };
  } finally {
    db.close();
  }
}

/**
 * The served plan is the run's first plan event: the same sha (of the blob's text), the same waypoints, the method
 * chosen.
 */
function assertServed(
  planned: MissionPlanResult,
  method: PlanMethod,
  r: ReturnType<typeof recorded>,
  what: string,
): void {
  const first = r.plans[0];
  assert.ok(first !== undefined, `${what}: no plan event`);
  assert.equal(first.trigger, 'initial');
  assert.equal(first.method, method, `${what}: the first plan is the chosen planner's`);
  assert.deepEqual(
    [first.doc.prefix, first.doc.suffix],
    [planned.plan.prefix, planned.plan.suffix],
    `${what}: the recorded waypoints are the ones drawn`,
  );
  assert.deepEqual(
    [r.meta['method'], r.meta['planner'], r.meta['replanning']],
    [method, method, true],
    `${what}: the run is recorded with the method chosen`,
  );
  assert.equal(planned.method, method, `${what}: the plan served says its method`);
  assert.match(planned.plan_sha ?? '', /^[0-9a-f]{64}$/, `${what}: the plan served carries its sha256`);
  assert.equal(first.plan_sha, planned.plan_sha, `${what}: the first plan event names the plan served`);
  assert.equal(
    createHash('sha256').update(first.blob).digest('hex'),
    first.plan_sha,
    `${what}: the sha is of the recorded document's text`,
  );
}

async function planAndRun(
  api: DirectApi,
  events: ApiEvent[],
  req: MissionPlanRequest,
  run: { replans?: number; maxSteps?: number },
): Promise<{ planned: MissionPlanResult; auditRun: string; end: Extract<MissionEvent, { topic: 'mission.end' }> }> {
  const planned = await api.missionPlan(req);
  assert.equal(planned.plan.status, 'ok', `${req.world} ${req.method}: ${planned.plan.reason?.message ?? ''}`);
  const started = await api.missionRun({ session: planned.session, ...run });
  assert.ok(started.auditRun !== null);
  const end = await until(events, 'mission.end', started.run);
  return { planned, auditRun: started.auditRun, end };
}

test('maze and Ant: Run executes the plan served for SAGAS, LF-GAS and GA-GAS, recorded with its sha and the method chosen', async () => {
  const { api, events, audit } = open();
  try {
    // In the point maze the planners draw different plans for this task, so a run that planned again with another
    // planner could not pass.
    const worlds = [
      ['pointmaze-medium', 'F e2 & G F e1 & G F e4 & G !e0', true],
      ['antmaze-medium', 'F e2 & G !e0', false],
    ] as const;
    for (const [world, spec, differ] of worlds) {
      const shown = new Map<PlanMethod, MissionPlanResult>();
      for (const method of BASELINES_FIRST) {
        const req = {
          job: `${world}-${method}`,
          world,
          spec,
          regions: asset(`regions/${world}.json`),
          start: [4, 20] as [number, number],
          datasetSteps: 20_000,
          method,
        };
        // A few steps are enough: the first plan is recorded before the robot moves.
        const { planned, auditRun } = await planAndRun(api, events, req, { replans: 0, maxSteps: 3 });
        assertServed(planned, method, recorded(audit, auditRun), `${world} ${method}`);
        shown.set(method, planned);
      }
      const waypoints = (m: PlanMethod): string =>
        JSON.stringify([shown.get(m)!.plan.prefix, shown.get(m)!.plan.suffix]);
      if (differ)
        assert.ok(
          waypoints('lf-gas') !== waypoints('sagas') && waypoints('ga-gas') !== waypoints('sagas'),
          `${world}: the baselines' plans differ from SAGAS's`,
        );
    }
  } finally {
    await api.close();
  }
});

test("a replan is drawn live with its own sha, made by the chosen planner and recorded as the run's next plan event", async () => {
  // The robot stops for good at step 150: tracking times out, the run replans once (R = 1), then escalates.
  const { api, events, audit } = open({ faults: [{ at: 'step', n: 150, kind: 'stuck' }] });
  try {
    const req = {
      job: 'replan',
      world: 'pointmaze-medium',
      spec: 'F e2 & G F e1 & G F e4 & G !e0',
      regions: asset('regions/pointmaze-medium.json'),
      start: [4, 20] as [number, number],
      datasetSteps: 20_000,
      method: 'lf-gas' as const,
    };
    const planned = await api.missionPlan(req);
    const { run, auditRun } = await api.missionRun({ session: planned.session, replans: 1 });
    const replan = await until(events, 'mission.replan', run);
    const esc = await until(events, 'mission.escalation', run);
    await api.escalationDecide({ run, escalation: esc.escalation.id, decision: 'abort', reason: 'the robot is stuck' });
    await until(events, 'mission.end', run);
    const r = recorded(audit, auditRun!);
    assertServed(planned, 'lf-gas', r, 'replanning run');
    assert.equal(r.plans.length, 2);
    const second = r.plans[1]!;
    assert.deepEqual([second.trigger, second.method, second.plan_sha], ['replan', 'lf-gas', replan.plan_sha]);
    assert.deepEqual([second.doc.prefix, second.doc.suffix], [replan.plan.prefix, replan.plan.suffix]);
  } finally {
    await api.close();
  }
});

test("robot: Run executes the plan served from the robot's pose, for every planner, recorded with its sha and the method chosen", async () => {
  const lab = labSetup();
  const g = await SimulatedRos2Graph.create({ start: [0.2, 0.3] });
  const { api, events, audit, workspace } = open({ ros2: g.open.ros2! });
  try {
    mkdirSync(path.join(workspace, 'ros2'));
    mkdirSync(path.join(workspace, 'graphs'));
    copyFileSync(lab.regions, path.join(workspace, 'ros2', 'regions.json'));
    writeFileSync(path.join(workspace, 'ros2', 'lab-sim.json'), readFileSync(path.join(lab.dir, 'robot.json')));
    copyFileSync(lab.graph, path.join(workspace, 'graphs', 'lab.json'));
    const world = `ros2:${path.join(workspace, 'ros2', 'lab-sim.json')}`;
    for (const method of BASELINES_FIRST) {
      const req = {
        job: `robot-${method}`,
        world,
        graph: 'graphs/lab.json',
        spec: PATROL,
        regions: readFileSync(lab.regions, 'utf8'),
        method,
      };
      // A few pose samples: the first plan is recorded before the first goal goes to Nav2.
      const { planned, auditRun } = await planAndRun(api, events, req, { replans: 0, maxSteps: 3 });
      const r = recorded(audit, auditRun);
      assertServed(planned, method, r, `robot ${method}`);
      assert.equal(r.plans[0]!.doc.prefix[0], 'robot@0');
    }
  } finally {
    await api.close();
    g.stop();
  }
});
