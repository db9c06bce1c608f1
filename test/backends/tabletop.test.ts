// @slow: MuJoCo tabletop grasps (long simulation) (not in npm run test:quick)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TABLETOP_VOCABULARY, TabletopSim, TabletopWorld } from '../../main/backends/mujoco/tabletop.js';
import { type World, WorldError } from '../../main/core/world/world.js';
import { parseTool, registerTools } from '../../main/core/loop/tools.js';
import { runLoop } from '../../main/core/loop/loop.js';
import { RecoveryPlanner, parseScript } from '../../main/core/loop/planners.js';
import { run } from '../../main/cli/main.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const asset = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../assets/tools/${f}`, import.meta.url), 'utf8'));

test("the seed's step-through in the MuJoCo tabletop: the nominal grasp misses, 2 cm lower holds, the mug ends on the tray", async () => {
  // No height noise: the catalogue's grasp height closes the fingers just above the mug, as in the seed.
  const world = await TabletopSim.create({ heightNoise_m: 0, perceptionNoise_m: 0 });
  try {
    const tools = registerTools(
      ['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(f), f), file: f })),
      TABLETOP_VOCABULARY,
    );
    await world.reset(1);
    const plan = parseScript(
      {
        steps: [
          { tool: 'pick', args: { target: 'red_mug' } },
          { tool: 'place', args: { target: 'tray' } },
        ],
      },
      'plan.json',
    );
    let t = 0;
    const r = await runLoop(tools, world, new RecoveryPlanner(plan), 'place the red mug on the tray', {
      replans: 2,
      goal: 'objects.red_mug.on == "tray"',
      clock: () => (t += 1),
    });
    assert.equal(r.outcome, 'success', r.reason);
    assert.deepEqual([r.toolCalls, r.replans], [3, 1]);
    const fr = r.failures[0]!;
    assert.deepEqual([fr.violated, fr.label, fr.observed['gripper.width_cm']], ['grasp_success', 'grasp-missed', 0]);
    // The weight limit: the red bin is too heavy for the lift (load saturates above the 20 N limit).
    await world.reset(2);
    const heavy = await runLoop(
      tools,
      world,
      new RecoveryPlanner(
        parseScript({ steps: [{ tool: 'pick', args: { target: 'red_bin', approach_dz: -0.02 } }] }, 'p.json'),
      ),
      'g',
      { replans: 1, goal: 'gripper.holding == "red_bin"', clock: () => 0 },
    );
    assert.equal(heavy.failures[0]!.label, 'weight-limit');
    assert.ok((heavy.failures[0]!.observed['gripper.load_N'] as number) > 20);
  } finally {
    world.close();
  }
});

test('witness lab verify-vs-blind --json: the documented shape; every episode and configuration one audit run, intact', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'witness-lab-')), 'lab.sqlite');
  let out = '';
  const code = await run(['lab', 'verify-vs-blind', '--episodes', '2', '--seed', '1', '--json', '--audit', db], {
    out: (s) => {
      out += s;
    },
    err: () => undefined,
  });
  assert.equal(code, 0);
  const j = JSON.parse(out) as {
    blind: { sr: number };
    verified: { sr: number; threshold_cm: number };
    sweep: { threshold_cm: number; replans: number; sr: number }[];
    audit: { file: string; runs: number };
  };
  // On this seed both episodes miss a grasp: blind trusts the return code and fails them, verified catches
  // the miss and recovers by replanning; with no replan budget verification alone recovers nothing.
  assert.ok(j.verified.sr > j.blind.sr, `verified ${j.verified.sr} vs blind ${j.blind.sr}`);
  assert.deepEqual([j.blind.sr, j.verified.sr], [0, 1]);
  for (const t of [1, 3, 5]) {
    const sr = [0, 1, 2].map((R) => j.sweep.find((s) => s.threshold_cm === t && s.replans === R)!.sr);
    assert.ok(
      sr[0]! <= sr[1]! && sr[1]! <= sr[2]! && sr[0]! < sr[2]!,
      `threshold ${t} cm: sr by replan budget ${sr.join(', ')}`,
    );
  }
  assert.equal(j.verified.threshold_cm, 1.5);
  assert.deepEqual(
    j.sweep.map((s) => `${s.threshold_cm}/${s.replans}`),
    ['1/0', '1/1', '1/2', '3/0', '3/1', '3/2', '5/0', '5/1', '5/2'],
  );
  assert.deepEqual(j.audit, { file: db, runs: 22 });
  const { openAuditReadOnly } = await import('../../main/services/audit/store.js');
  const { listRuns, queryEvents, verifyChain } = await import('../../main/services/audit/forensics.js');
  const a = openAuditReadOnly(db);
  try {
    const runs = listRuns(a);
    assert.equal(runs.length, 22, '2 episodes x (blind + verified + 9 sweep configurations)');
    assert.ok(
      runs.every((r) => r.world === 'tabletop' && r.outcome !== null),
      'every run ended',
    );
    const starts = queryEvents(a, { kind: 'run_start', limit: 1000 }).map(
      (e) => (JSON.parse(e.body) as { meta: Record<string, unknown> }).meta,
    );
    const configs = new Set(
      starts.map(
        (m) => `${String(m['mode'])} ${String(m['threshold_cm'])} ${String(m['budget'])} ${String(m['episode'])}`,
      ),
    );
    assert.equal(configs.size, 22, 'one run per episode and configuration');
    assert.ok(
      starts.some((m) => m['mode'] === 'blind') &&
        starts.every((m) => typeof m['seed'] === 'number' && m['lab'] === 'verify-vs-blind'),
    );
    const kinds = new Set(queryEvents(a, { limit: 100_000 }).map((e) => e.kind));
    for (const k of [
      'run_start',
      'tool_call',
      'verifier_result',
      'failure_record',
      'replan',
      'escalation',
      'evidence',
      'run_end',
    ])
      assert.ok(kinds.has(k), k);
    // Blind trusts return codes: its runs hold calls but no verifier results.
    const blindRun = queryEvents(a, { kind: 'run_start', limit: 1000 }).find(
      (e) => (JSON.parse(e.body) as { meta: { mode: string } }).meta.mode === 'blind',
    )!.run_id;
    assert.deepEqual(queryEvents(a, { run: blindRun, kind: 'verifier_result' }), []);
    assert.ok(queryEvents(a, { run: blindRun, kind: 'tool_call' }).length > 0);
    const v = verifyChain(a);
    assert.equal(v.ok, true, JSON.stringify(v));
  } finally {
    a.close();
  }
  const verify = await run(['audit', 'verify', db], { out: () => undefined, err: () => undefined });
  assert.equal(verify, 0);
});

test('witness demo warehouse: a weight-limit fault, the two-step alternative, every step in the audit log; R = 0 escalates', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'witness-wh-')), 'a.sqlite');
  const cli = async (...argv: string[]) => {
    let out = '';
    const code = await run(argv, {
      out: (s) => {
        out += s;
      },
      err: () => undefined,
    });
    return { code, out };
  };
  const ok = await cli('demo', 'warehouse', '--audit', db, '--json');
  assert.equal(ok.code, 0);
  const j = JSON.parse(ok.out) as {
    outcome: string;
    toolCalls: number;
    replans: number;
    failures: { label: string; violated: string }[];
  };
  assert.deepEqual([j.outcome, j.toolCalls, j.replans], ['success', 5, 1]);
  assert.deepEqual(
    j.failures.map((f) => [f.label, f.violated]),
    [['weight-limit', 'within_payload']],
  );
  const esc = await cli('demo', 'warehouse', '--audit', db, '--replans', '0');
  assert.equal(esc.code, 1);
  assert.match(esc.out, /outcome: escalated — replan budget R = 0 exhausted/);
  const kinds = (await cli('audit', 'query', db, '--json', '--limit', '1000')).out
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { kind: string }).kind);
  for (const k of [
    'run_start',
    'tool_call',
    'verifier_result',
    'failure_record',
    'replan',
    'evidence',
    'escalation',
    'run_end',
  ])
    assert.ok(kinds.includes(k), k);
  assert.equal((await cli('audit', 'verify', db)).code, 0);
});

test("the recovery planner splits a load by itself after a weight-limit fault (from the failure record's observed state)", async () => {
  const world = await TabletopSim.create({ heightNoise_m: 0, perceptionNoise_m: 0 });
  try {
    const tools = registerTools(
      ['pick.json', 'place.json'].map((f) => ({ def: parseTool(asset(f), f), file: f })),
      TABLETOP_VOCABULARY,
    );
    await world.reset(3);
    const plan = parseScript(
      {
        steps: [
          { tool: 'pick', args: { target: 'red_bin', approach_dz: -0.02 } },
          { tool: 'place', args: { target: 'shelf_c4' } },
        ],
      },
      'p.json',
    );
    const r = await runLoop(tools, world, new RecoveryPlanner(plan), 'move the red bin to shelf C4', {
      replans: 2,
      goal: 'objects.red_bin.on == "shelf_c4"',
      clock: () => 0,
    });
    assert.equal(r.outcome, 'success', r.reason);
    const calls = r.history.entries.flatMap((e) =>
      e.kind === 'pass' ? [`${e.call.tool}:${(e.call.args as { target: string }).target}`] : [],
    );
    assert.deepEqual(calls, ['pick:red_bin_load', 'place:tray', 'pick:red_bin', 'place:shelf_c4']);
  } finally {
    world.close();
  }
});

test('the tabletop behind the World interface: a tool world (vocabulary, reset, observe, execute), no navigation, input checks', async () => {
  const w = await TabletopWorld.open({ heightNoise_m: 0, perceptionNoise_m: 0 });
  assert.equal((w as World).navigation, undefined, 'the tabletop has no low-level navigation');
  const tools = w.tools;
  try {
    assert.deepEqual(tools.vocabulary().skills, ['pick', 'place', 'move']);
    assert.equal(tools.vocabulary().objectFields['on'], 'string');
    const s0 = await tools.reset({ seed: 1 });
    assert.equal((s0['objects'] as Record<string, { on: string }>)['red_mug']!.on, 'table');
    const t0 = w.time_s();
    const ac = new AbortController();
    await tools.execute('move', { x: 0.1, y: 0.05, z: 0.65 }, { timeout_s: 30, signal: ac.signal });
    assert.ok(w.time_s() > t0, 'the skill stepped the physics');
    await assert.rejects(
      tools.execute('fly', {}, { timeout_s: 1, signal: ac.signal }),
      (e: unknown) => e instanceof WorldError && e.kind === 'invalid-input',
    );
  } finally {
    await w.close();
  }
  await assert.rejects(tools.observe(), (e: unknown) => e instanceof WorldError && e.kind === 'closed');
});
