/**
 * The fleet benchmark's lab PCs: one audit log per source, written by the audit writer itself (AuditLog: its
 * canonical JSON, its hash chain, its run rows and blobs), with a clock moved by hand so that the log spans weeks.
 * Each run is a tool loop as `witness act` and `demo warehouse` record it: a run_start naming its specification and
 * tool schemas, a plan (its document a blob), tool calls each with one to three verifier results and the evidence
 * (the observed state), failures with their record, a replan or an escalation with the operator's decision, now and
 * then an operator's E-STOP, and the run's end. Bodies are the size of real ones (evidence and failure records about
 * a kilobyte: they carry the observed state).
 */
import { AuditLog } from '../services/audit/store.js';
import { seeded } from './audit-writer.js';

export interface FleetLogJob {
  readonly file: string;
  /** The source's number (its host, robot and world derive from it). */
  readonly source: number;
  readonly events: number;
  /** The first event's time and (about) the last's, in ms since 1970. */
  readonly from_ms: number;
  readonly to_ms: number;
  readonly seed: number;
}

export interface FleetLogWritten {
  readonly events: number;
  readonly runs: number;
  readonly failures: number;
  readonly estops: number;
}

const TOOLS = ['pick', 'place', 'move_to', 'open_gripper', 'close_gripper', 'scan_shelf'] as const;
const OBJECTS = ['red_bin', 'blue_bin', 'red_mug', 'marker', 'tray', 'shelf_c4', 'table', 'crate_7'];
const WORLDS = ['tabletop', 'warehouse-cell', 'lab-shelf', 'packing-line'];
const OPERATORS = ['alice', 'bilal', 'chen', 'dana', 'emeka'];
/** Failure labels with their stage, class and violated postcondition. */
const FAILURES = [
  ['grasp-missed', 'postcondition', 'transient', 'grasp_success', 'gripper.width_cm > 1.5'],
  ['weight-limit', 'postcondition', 'permanent', 'within_payload', 'gripper.load_N <= gripper.payload_limit_N'],
  ['slipped', 'postcondition', 'transient', 'holding_target', 'gripper.holding == args.target'],
  ['timeout', 'timeout', 'transient', 'done_in_time', 'elapsed_s <= timeout_s'],
  ['not-reachable', 'precondition', 'permanent', 'reachable', 'reach.distance_m <= 0.85'],
  ['collision', 'world-error', 'transient', 'no_contact', 'contacts.count == 0'],
] as const;

/** The source's identity in the store: its host and robot. */
export const fleetHost = (source: number): string => `lab-pc-${String(source + 1).padStart(2, '0')}`;
export const fleetRobot = (source: number): string => `ur5e-${String(source + 1).padStart(2, '0')}`;

const SPEC = 'G (holding -> F placed) & G !collision & F shelf_c4';
const SCHEMA = (tool: string): string =>
  JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: tool,
    type: 'object',
    properties: { target: { type: 'string', enum: OBJECTS }, approach_dz: { type: 'number', minimum: -0.1 } },
    required: ['target'],
    additionalProperties: false,
  });

/** The observed state an evidence row or a failure record carries (the objects' poses, the gripper). */
function worldState(r: () => number, holding: string, load: number): Record<string, unknown> {
  const objects: Record<string, unknown> = {};
  for (const o of OBJECTS)
    objects[o] = {
      in_workspace: true,
      mass_kg: Math.round(r() * 200) / 100,
      on: o === 'table' || o === 'tray' || o === 'shelf_c4' ? 'fixed' : 'table',
      x: (r() - 0.5) * 0.6,
      y: (r() - 0.5) * 0.4,
      z: 0.4 + r() * 0.2,
    };
  return { gripper: { holding, load_N: load, payload_limit_N: 20, width_cm: Math.round(r() * 100) / 10 }, objects };
}

class RunWriter {
  step = 0;
  private readonly pending: Promise<number>[] = [];
  constructor(
    private readonly log: AuditLog,
    private readonly run: string,
    private readonly clock: { t: number },
    private readonly dt: number,
  ) {}

  /** Appends one event at the next tick of the clock (the promises are awaited in waves by the caller). */
  add(kind: Parameters<AuditLog['append']>[1], body: unknown, tool?: string, failure?: string): void {
    this.clock.t += this.dt;
    this.pending.push(
      this.log.append(this.run, kind, body, {
        t_ms: Math.round(this.clock.t),
        step: this.step,
        ...(tool !== undefined ? { tool } : {}),
        ...(failure !== undefined ? { failureLabel: failure } : {}),
      }),
    );
  }

  get queued(): number {
    return this.pending.length;
  }

  async settle(): Promise<void> {
    await Promise.all(this.pending.splice(0));
  }
}

/** One tool call: the call, its verifier results and evidence; on a failure its record. Returns the failure label. */
function toolCall(w: RunWriter, r: () => number, t_s: number): (typeof FAILURES)[number] | null {
  const tool = TOOLS[Math.floor(r() * TOOLS.length)]!;
  const target = OBJECTS[Math.floor(r() * 5)]!;
  const args = { approach_dz: -0.02, target };
  const failed = r() < 0.06 ? FAILURES[Math.floor(r() * FAILURES.length)]! : null;
  const dur = 0.08 + r() * 0.3;
  const response = failed?.[1] === 'timeout' ? { error: 'timeout', skill: tool } : { skill: tool, status: 'ok' };
  w.add('tool_call', { arguments: args, end_s: t_s + dur, response, start_s: t_s, timeout_s: 10, tool }, tool);
  const checks = 1 + Math.floor(r() * 3);
  const load = Math.round(r() * 2500) / 100;
  for (let k = 0; k < checks; k++) {
    const pass = failed === null || k < checks - 1;
    const [, , , post, expr] = pass ? FAILURES[k]! : failed;
    w.add(
      'verifier_result',
      { expr, observed: { 'gripper.load_N': load, 'args.target': target }, pass, postcondition: post, tool },
      tool,
    );
  }
  const state = worldState(r, failed === null ? target : '', load);
  if (failed !== null) {
    const [label, stage, cls, violated, expr] = failed;
    w.add(
      'failure_record',
      {
        args,
        class: cls,
        expr,
        label,
        observed: { 'gripper.load_N': load, 'gripper.payload_limit_N': 20 },
        reason: `${violated} failed on ${target}`,
        source: 'tool',
        stage,
        state,
        subtask: w.step,
        t_s: t_s + dur,
        tool,
        violated,
      },
      tool,
      label,
    );
  }
  w.add('evidence', {
    action: tool,
    failure_label: failed?.[0] ?? null,
    instruction: { args, tool },
    state,
    verifier: failed === null ? 'postconditions hold' : `postcondition "${failed[3]}" failed`,
  });
  w.step++;
  return failed;
}

/** The plan document a run's plan event names (stored as a blob), about the size of a real tool-loop plan. */
function planDocument(r: () => number, source: number, run: number): string {
  const steps = Array.from({ length: 6 + Math.floor(r() * 10) }, (_, i) => ({
    tool: TOOLS[i % TOOLS.length],
    args: { target: OBJECTS[Math.floor(r() * 5)], approach_dz: -0.02 },
    because: `subgoal ${i}: move the load toward shelf_c4 without exceeding the payload limit`,
  }));
  return JSON.stringify({ version: 1, source, run, goal: 'objects.red_bin.on == "shelf_c4"', steps });
}

/** Writes one run of at most `budget` events; returns what it wrote. */
async function writeRun(
  log: AuditLog,
  job: FleetLogJob,
  r: () => number,
  clock: { t: number },
  dt: number,
  n: number,
  budget: number,
): Promise<{ events: number; failures: number; estop: boolean }> {
  const tools = Object.fromEntries(TOOLS.map((t) => [t, SCHEMA(t)]));
  const run = await log.startRun({
    world: WORLDS[job.source % WORLDS.length]!,
    backend: job.source % 3 === 0 ? 'ros2' : 'mujoco',
    operator: OPERATORS[(job.source + n) % OPERATORS.length]!,
    software: 'witness 0.1.0',
    models: {},
    spec: SPEC,
    toolSchemas: tools,
    meta: { via: 'cli', planner: 'recovery', replans: 2, seed: n, robot: fleetRobot(job.source) },
  });
  const w = new RunWriter(log, run, clock, dt);
  const plan = log.putBlob('plan', planDocument(r, job.source, n));
  w.add('plan', {
    cost: null,
    method: 'llm',
    plan_sha: plan,
    planning_ms: 200 + r() * 900,
    status: 'ok',
    t: 0,
    trigger: 'initial',
  });
  let events = 2;
  let failures = 0;
  let replans = 0;
  let estop = false;
  const calls = 8 + Math.floor(r() * 60);
  let outcome = 'success';
  for (let c = 0; c < calls && events + 12 < budget; c++) {
    const before = w.queued;
    const f = toolCall(w, r, c * 0.4);
    if (f !== null) {
      failures++;
      if (f[2] === 'transient' && replans < 2) {
        replans++;
        w.add('replan', { budget: 2, replan: replans, trigger: f[0] });
      } else {
        w.add('escalation', {
          cause: f[2] === 'permanent' ? 'permanent-failure' : 'replan-budget',
          failures: [],
          n: 1,
          reason: `${f[0]}: ${f[3]} failed`,
          replans,
        });
        const decision = r() < 0.5 ? 'retry' : 'abort';
        w.add('operator_decision', { decision, operator: OPERATORS[c % OPERATORS.length]!, reason: 'seen on camera' });
        if (decision === 'abort') outcome = 'escalated';
      }
    }
    if (r() < 0.002) {
      w.add('operator_decision', {
        decision: 'estop',
        operator: OPERATORS[c % OPERATORS.length]!,
        reason: 'a person stepped into the cell',
      });
      outcome = 'stopped';
      estop = true;
    }
    events += w.queued - before;
    if (outcome !== 'success') break;
  }
  w.add('run_end', {
    outcome,
    reason: outcome === 'success' ? 'the goal verifier confirms the goal' : outcome,
    replans,
    toolCalls: w.step,
  });
  await w.settle();
  return { events: events + 1, failures, estop };
}

/** Writes the source's log of exactly `job.events` events (the last run cut short where the count ends). */
export async function writeFleetLog(job: FleetLogJob): Promise<FleetLogWritten> {
  const r = seeded(job.seed * 1000 + job.source);
  const clock = { t: job.from_ms };
  const dt = Math.max(1, (job.to_ms - job.from_ms) / Math.max(1, job.events));
  const log = AuditLog.open(job.file, { now: () => Math.round((clock.t += dt)) });
  let events = 0;
  let runs = 0;
  let failures = 0;
  let estops = 0;
  try {
    while (events < job.events) {
      const left = job.events - events;
      if (left < 16) {
        // Too few for a run: the last ones are the previous run's operator notes.
        const run = await log.startRun({
          world: 'tabletop',
          backend: 'mujoco',
          operator: 'bench',
          software: 'witness 0.1.0',
          models: {},
        });
        const w = new RunWriter(log, run, clock, dt);
        for (let i = 1; i < left; i++)
          w.add('operator_decision', { decision: 'stop', operator: 'bench', reason: 'end of shift' });
        await w.settle();
        events += left;
        runs++;
        break;
      }
      const done = await writeRun(log, job, r, clock, dt, runs, left);
      events += done.events;
      failures += done.failures;
      if (done.estop) estops++;
      runs++;
    }
  } finally {
    await log.close();
  }
  return { events, runs, failures, estops };
}
