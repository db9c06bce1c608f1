/**
 * Audit databases for the browser's tests, written through the real writer (AuditLog and the
 * mission recorder): a small run with tool calls, verifier evidence, failure records, a replan with
 * two plans and an escalation; and a large run (100k events) for the virtualised table.
 */
import { AuditLog } from '../../main/services/audit/store.js';
import { missionRecorder } from '../../main/services/audit/mission-recorder.js';
import type { AuditEventKind as EventKind } from '../../main/contract/audit-events.js';

export const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
export const T1 = Date.UTC(2026, 0, 15, 10, 0, 0);

export const REGIONS = {
  world: 'pointmaze-medium',
  regions: [
    { name: 'e0', kind: 'disk', center: [0, 0], radius: 1.5 },
    { name: 'e1', kind: 'disk', center: [20, 0], radius: 1.5 },
    { name: 'e2', kind: 'disk', center: [8, 8], radius: 1.5 },
  ],
};
const SMALL_SPEC = 'F e2 & G F e1 & G !e0';

function planDoc(prefix: string[], suffix: string[], states: number[], objective: number): Record<string, unknown> {
  const steps = [...prefix, ...suffix].map((node, i) => ({
    node,
    state: states[i] ?? 0,
    from: states[i - 1] ?? 0,
    term: { text: '!e0', pos: [], neg: ['e0'] },
    letter: [],
  }));
  return {
    status: 'ok',
    method: 'sagas',
    prefix,
    suffix,
    cost: { prefix: objective + 1, suffix: objective - 1, objective },
    dwell: false,
    k: 5,
    lambda: 0.5,
    stats: {},
    certificate: {
      formula: SMALL_SPEC,
      automaton: { states: 3, initial: [0], accepting: [2] },
      steps,
      suffixStart: prefix.length,
      dwell: false,
      checked: { guardWordAccepted: true },
    },
  };
}

export const PLAN_1 = {
  prefix: ['start', 'c1', 'c2', 'anchor:e2:0'],
  suffix: ['c3', 'anchor:e1:0', 'c3', 'anchor:e2:0'],
};
const PLAN_2 = { prefix: ['start', 'c4', 'anchor:e1:0'], suffix: ['c3', 'anchor:e2:0', 'c5', 'anchor:e1:0'] };

export interface SmallRun {
  run: string;
  /** Events per kind, as appended. */
  kinds: Record<string, number>;
  events: number;
  /** Positions (step, x, y) the evidence recorded. */
  positions: [number, number, number][];
}

/** The small run: every kind the browser has a section for. */
export async function writeSmallRun(log: AuditLog, clock: { now: number }): Promise<SmallRun> {
  clock.now = T0;
  const run = await log.startRun({
    world: 'pointmaze-medium',
    backend: 'mujoco',
    operator: 'ada',
    software: 'witness test',
    models: {},
    spec: SMALL_SPEC,
    regions: JSON.stringify(REGIONS),
    meta: { method: 'sagas-replan', start: [4, 20], seed: 0 },
  });
  const kinds: Record<string, number> = { run_start: 1 };
  const positions: [number, number, number][] = [[0, 4, 20]];
  const rec = missionRecorder(log, run);
  let t = T0;
  const ev = (kind: EventKind, body: unknown, step: number, o: { tool?: string; failureLabel?: string } = {}): void => {
    t += 100;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    void log.append(run, kind, body, { step, t_ms: t, ...o });
  };
  const plan = async (
    step: number,
    trigger: string,
    p: { prefix: string[]; suffix: string[] },
    states: number[],
    objective: number,
  ): Promise<void> => {
    await log.flush();
    t += 100;
    clock.now = t;
    kinds['plan'] = (kinds['plan'] ?? 0) + 1;
    rec.plan(step, trigger, planDoc(p.prefix, p.suffix, states, objective), 12.5);
    await log.flush();
  };
  const reach = (step: number, node: string, x: number, y: number, labels: string[] = []): void => {
    const anchor = node.startsWith('anchor:');
    ev(
      'checkpoint',
      {
        kind: anchor ? 'checkpoint' : 'waypoint',
        t: step,
        stream: 'prefix',
        index: 1,
        node,
        ...(anchor ? { labels } : { skipped: 0 }),
      },
      step,
    );
    ev(
      'evidence',
      {
        instruction: `realise the planned transition to ${node}`,
        state: { x, y, labels },
        action: anchor ? 'checkpoint' : 'waypoint',
        verifier: anchor ? 'anchor verified: latent proximity and label' : 'waypoint reached',
        failure_label: null,
      },
      step,
    );
    positions.push([step, x, y]);
  };
  await plan(0, 'initial', PLAN_1, [0, 0, 0, 1, 1, 2, 1, 1], 9);
  reach(5, 'c1', 4, 14);
  reach(10, 'c2', 6, 10);
  ev('monitor_event', { states: [0, 1], viable: true, accepting: false, labels: ['e2'] }, 12);
  reach(15, 'anchor:e2:0', 8, 8, ['e2']);
  ev(
    'tool_call',
    {
      tool: 'pick',
      arguments: { target: 'red_mug', approach_dz: 0.01 },
      start_s: 1.5,
      end_s: 2.25,
      timeout_s: 10,
      response: { ok: true },
    },
    16,
    { tool: 'pick' },
  );
  ev(
    'verifier_result',
    {
      tool: 'pick',
      postcondition: 'grasp_success',
      expr: 'gripper.width_cm > 1.5',
      pass: false,
      observed: { 'gripper.width_cm': 0.4 },
    },
    16,
    { tool: 'pick' },
  );
  ev(
    'evidence',
    {
      instruction: { tool: 'pick', args: { target: 'red_mug', approach_dz: 0.01 } },
      state: { x: 8.5, y: 8.25, gripper: { width_cm: 0.4, holding: '' } },
      action: 'pick',
      verifier: 'postcondition "grasp_success" failed',
      failure_label: 'grasp-missed',
    },
    16,
    { tool: 'pick', failureLabel: 'grasp-missed' },
  );
  positions.push([16, 8.5, 8.25]);
  ev(
    'failure_record',
    {
      tool: 'pick',
      args: { target: 'red_mug', approach_dz: 0.01 },
      violated: 'grasp_success',
      expr: 'gripper.width_cm > 1.5',
      observed: { 'gripper.width_cm': 0.4 },
      t_s: 2.25,
      class: 'transient',
      label: 'grasp-missed',
      stage: 'postcondition',
      subtask: 0,
    },
    16,
    { tool: 'pick', failureLabel: 'grasp-missed' },
  );
  reach(22, 'c3', 14, 4);
  ev(
    'failure_record',
    {
      t: 30,
      kind: 'tracking-timeout',
      stream: 'suffix',
      index: 1,
      from: 'c3',
      to: 'anchor:e1:0',
      term: '!e0',
      violated: 'anchor:e1:0',
      labels: [],
      latent: [0.5, -1.25],
      class: 'transient',
      rule: 'tracking c3 → anchor:e1:0 timed out: multiply its weight by 4 and replan',
      action: 'penalize-edge',
      unrecoverable: false,
    },
    30,
    { failureLabel: 'tracking-timeout' },
  );
  await plan(30, 'replan', PLAN_2, [1, 1, 2, 1, 1, 1, 2], 11);
  ev('replan', { trigger: 'tracking-timeout', failure: 0, replan: 1, from_states: [1, 2], prefix_nodes: 3 }, 30);
  reach(35, 'c4', 18, 2);
  ev(
    'escalation',
    {
      message: 'replanning budget R = 1 exhausted; escalating with 2 failure record(s)',
      failures: [{ kind: 'tracking-timeout' }],
    },
    40,
  );
  ev(
    'run_end',
    {
      outcome: 'failed',
      failureMode: 'escalated',
      message: 'replanning budget R = 1 exhausted',
      steps: 40,
      replans: 1,
    },
    40,
  );
  await log.flush();
  return { run, kinds, events: Object.values(kinds).reduce((a, b) => a + b, 0), positions };
}

export const BIG_TOOLS = ['pick', 'place', 'move'] as const;
/** A text only one event of the big run holds (a tool call near 78 % of the run). */
export const NEEDLE = 'needle-in-the-haystack';

export interface BigRun {
  run: string;
  events: number;
  kinds: Record<string, number>;
  tools: Record<string, number>;
  failures: number;
  /** The step of the one event that holds NEEDLE. */
  needleStep: number;
}

/**
 * `n` events (run_start … run_end), appended in a few large batches: tool calls, verifier results, evidence with
 * positions, failures.
 */
async function writeBigRun(log: AuditLog, clock: { now: number }, n = 100_000): Promise<BigRun> {
  clock.now = T1;
  const run = await log.startRun({
    world: 'pointmaze-large',
    backend: 'mujoco',
    operator: 'bob',
    software: 'witness test',
    models: {},
    spec: 'G F e1',
    meta: { start: [0, 0] },
  });
  const kinds: Record<string, number> = { run_start: 1, run_end: 1 };
  const tools: Record<string, number> = {};
  let failures = 0;
  const needleStep = 3 * Math.floor((0.78 * n) / 3);
  for (let i = 1; i < n - 1; i++) {
    const tool = BIG_TOOLS[Math.floor(i / 3) % 3]!;
    let kind: EventKind, body: unknown;
    const o: { step: number; t_ms: number; tool?: string; failureLabel?: string } = { step: i, t_ms: T1 + i * 10 };
    if (i % 1000 === 500) {
      kind = 'failure_record';
      body = { tool, violated: 'grasp_success', class: 'transient', label: 'grasp-missed', stage: 'postcondition' };
      o.tool = tool;
      o.failureLabel = 'grasp-missed';
      failures++;
    } else if (i % 3 === 0) {
      kind = 'tool_call';
      body = {
        tool,
        arguments: { object: `mug_${i % 50}`, approach_height_cm: 5 + (i % 4) },
        response: { ok: true },
        ...(i === needleStep ? { note: NEEDLE } : {}),
      };
      o.tool = tool;
    } else if (i % 3 === 1) {
      kind = 'verifier_result';
      body = {
        tool,
        postcondition: 'grasp_success',
        expr: 'gripper.width_cm > 1.5',
        pass: true,
        observed: { 'gripper.width_cm': 2 },
      };
      o.tool = tool;
    } else {
      kind = 'evidence';
      body = {
        instruction: `step ${i}`,
        state: { x: 10 + 8 * Math.cos(i / 500), y: 10 + 8 * Math.sin(i / 500) },
        verifier: 'postconditions hold',
        failure_label: null,
      };
    }
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    if (o.tool !== undefined) tools[o.tool] = (tools[o.tool] ?? 0) + 1;
    void log.append(run, kind, body, o);
    if (i % 20_000 === 0) await log.flush();
  }
  void log.append(
    run,
    'run_end',
    { outcome: 'success', steps: n, replans: 0 },
    { step: n - 1, t_ms: T1 + (n - 1) * 10 },
  );
  await log.flush();
  return { run, events: n, kinds, tools, failures, needleStep };
}

/** A database with the small run, then (unless `big` is 0) the large one. */
export async function writeFixture(file: string, big = 100_000): Promise<{ small: SmallRun; big: BigRun | null }> {
  const clock = { now: T0 };
  const log = AuditLog.open(file, { now: () => clock.now });
  try {
    const small = await writeSmallRun(log, clock);
    const b = big > 0 ? await writeBigRun(log, clock, big) : null;
    return { small, big: b };
  } finally {
    await log.close();
  }
}
