/**
 * `witness act`: the careful control loop with the user's tool files on a tool world; bad input exits 2 before anything
 * moves; a ROS 2 world without ROS 2 exits 4 as `ros2 check` does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { run } from '../../main/cli/main.js';

const asset = (rel: string): string => fileURLToPath(new URL(`../../../assets/${rel}`, import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '',
    err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await run(argv, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
    stdin,
  });
  return { code, out, err };
}

/** The environment of a machine without ROS 2 (this one: the real behaviour). */
const noRos = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const k of ['ROS_DISTRO', 'AMENT_PREFIX_PATH', 'WITNESS_ROS2_CONFIG']) delete env[k];
  return env;
};
const witness = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: noRos() });

const MUG_GOAL = 'objects.red_mug.on == "tray"';

function mugPlan(dir: string): string {
  const plan = join(dir, 'plan.json');
  writeFileSync(
    plan,
    JSON.stringify({
      steps: [
        { tool: 'pick', args: { target: 'red_mug' } },
        { tool: 'place', args: { target: 'tray' } },
      ],
    }),
  );
  return plan;
}

test("witness act: the user's tool folder, plan and goal on the tabletop — the trace, the audit run, --json", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-'));
  const tools = join(dir, 'tools');
  mkdirSync(tools);
  for (const f of ['pick.json', 'place.json']) copyFileSync(asset(`tools/${f}`), join(tools, f));
  const plan = mugPlan(dir),
    db = join(dir, 'a.sqlite');
  const r = await cli(
    'act',
    '--world',
    'tabletop',
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    MUG_GOAL,
    '--task',
    'put the mug on the tray',
    '--seed',
    '3',
    '--audit',
    db,
  );
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(
    r.out,
    /^"put the mug on the tray" \(goal objects\.red_mug\.on == "tray"\) in tabletop \(planner recovery, R = 2; tools pick, place\)\n/,
  );
  assert.match(
    r.out,
    /1\. pick\(\{"target":"red_mug"\}\) → postcondition "grasp_success" failed: observed \{"gripper\.width_cm":0\} → grasp-missed \(transient\)\n/,
  );
  assert.match(r.out, /place\(\{"target":"tray"\}\) → postconditions hold/);
  assert.match(r.out, /outcome: success — the goal verifier confirms the goal; 3 tool calls, 1 replan\(s\)\n/);
  const runId = /audit: run ([0-9a-f-]+) in /.exec(r.out)![1]!;
  const shown = await cli('audit', 'show', db, runId.slice(0, 8));
  assert.equal(shown.code, 0);
  assert.match(shown.out, /specification: put the mug on the tray/);

  const j = await cli(
    'act',
    '--world',
    'tabletop',
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    MUG_GOAL,
    '--seed',
    '3',
    '--no-audit',
    '--json',
  );
  assert.equal(j.code, 0, j.err);
  const doc = JSON.parse(j.out) as {
    outcome: string;
    toolCalls: number;
    replans: number;
    failures: { label: string; class: string }[];
    world: string;
    task: string;
    goal: string;
    tools: string[];
    audit?: unknown;
  };
  assert.deepEqual(
    [doc.outcome, doc.toolCalls, doc.replans, doc.world, doc.task, doc.goal, doc.tools, doc.audit],
    ['success', 3, 1, 'tabletop', MUG_GOAL, MUG_GOAL, ['pick', 'place'], undefined],
  );
  assert.deepEqual(
    doc.failures.map((f) => [f.label, f.class]),
    [['grasp-missed', 'transient']],
  );

  // No budget and no terminal: the escalation ends the run, said on stderr (exit 1); --decision answers it.
  // The first pick fails because the test says so (its controller aborts, the skill not run); the pick
  // tool's rules read the state — the hand empty, not holding the mug — and call that wrong-object.
  const fault = ['--inject-fault', 'skill:pick:1:error:aborted'];
  const none = await cli(
    'act',
    '--world',
    'tabletop',
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    MUG_GOAL,
    '--seed',
    '3',
    '--replans',
    '0',
    '--no-audit',
    ...fault,
  );
  assert.equal(none.code, 1);
  assert.match(
    none.err,
    /the loop escalated \(#1, replan-budget\)[^]*stdin is not a terminal and no --decision was given: aborting/,
  );
  assert.match(
    none.out,
    /\n {2}1\. pick\(\{"target":"red_mug"\}\) → world-error "the skill failed: tabletop: aborted: skill pick \(attempt 1\): injected fault skill:pick:1:error:aborted" failed: [^\n]* → wrong-object \(transient\)/,
  );
  assert.match(
    none.out,
    /\n {5}escalation #1 \(replan budget R = 0 exhausted; 1 failure record\(s\)\) → no operator decided abort/,
  );
  assert.match(none.out, /; 1 tool calls, 0 replan\(s\)\n/);
  const retry = await cli(
    'act',
    '--world',
    'tabletop',
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    MUG_GOAL,
    '--seed',
    '3',
    '--replans',
    '0',
    '--no-audit',
    '--decision',
    'retry',
    '--reason',
    'lower',
    '--operator',
    'ada',
    ...fault,
  );
  assert.equal(retry.code, 0, retry.out);
  assert.match(retry.out, /→ ada decided retry: lower/);
});

test('witness act refuses bad input with exit 2 before anything moves: the folder, a tool file (file and JSON path), a skill the world lacks, the goal (with its position), the plan', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-bad-'));
  const plan = mugPlan(dir);
  const folder = (name: string, files: Record<string, string>): string => {
    const d = join(dir, name);
    mkdirSync(d);
    for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
    return d;
  };
  const act = (...args: string[]) => cli('act', '--world', 'tabletop', '--no-audit', ...args);
  const expect = async (args: string[], re: RegExp): Promise<void> => {
    const r = await act(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}${r.out}`);
    assert.match(r.err, re);
    assert.equal(r.out, '', 'nothing ran');
  };
  const empty = folder('empty', { 'notes.txt': 'no tools here' });
  await expect(
    ['--tools', empty, '--plan', plan, '--goal', MUG_GOAL],
    /^error: --tools .*empty: no tool files \(\*\.json\) in the folder\n$/,
  );
  await expect(['--tools', join(dir, 'nope'), '--plan', plan, '--goal', MUG_GOAL], /--tools .*nope: no such folder/);
  const typo = folder('typo', {
    'grab.json': JSON.stringify({
      name: 'grab',
      description: 'd',
      skill: 'pick',
      arguments: { type: 'object' },
      postconditions: [{ name: 'p', expr: 'gripper.widht_cm > 1.5' }],
      timeout_s: 1,
    }),
  });
  await expect(
    ['--tools', typo, '--plan', plan, '--goal', MUG_GOAL],
    /^error: .*typo\/grab\.json: \$\.postconditions\[0\]\.expr: unknown field "gripper\.widht_cm" \(did you mean gripper\.width_cm\?\)\n$/,
  );
  const schema = folder('schema', {
    'grab.json': JSON.stringify({
      name: 'grab',
      description: 'd',
      skill: 'pick',
      arguments: { type: 'object' },
      postconditions: [],
      timeout_s: 1,
    }),
  });
  await expect(['--tools', schema, '--plan', plan, '--goal', MUG_GOAL], /schema\/grab\.json: \$\.postconditions: /);
  const fly = folder('fly', {
    'fly.json': JSON.stringify({
      name: 'fly',
      description: 'd',
      skill: 'fly',
      arguments: { type: 'object' },
      postconditions: [{ name: 'p', expr: 'true' }],
      timeout_s: 1,
    }),
  });
  await expect(
    ['--tools', fly, '--plan', plan, '--goal', MUG_GOAL],
    /fly\/fly\.json: \$\.skill: the world has no skill "fly"; it has pick, place, move/,
  );
  const broken = folder('broken', { 'x.json': '{"name": 3,\n' });
  await expect(['--tools', broken, '--plan', plan, '--goal', MUG_GOAL], /broken\/x\.json: 2:1: not valid JSON/);
  // JSON nested 200 000 deep (was: exit 70, "Maximum call stack size exceeded", no file named).
  const deep = folder('deep', { 'x.json': '['.repeat(200_000) });
  await expect(
    ['--tools', deep, '--plan', plan, '--goal', MUG_GOAL],
    /^error: .*deep\/x\.json: 1:257: nested deeper than 256 levels of arrays and objects\n$/,
  );
  const deepPlan = join(dir, 'deep-plan.json');
  writeFileSync(deepPlan, `{"steps": ${'['.repeat(200_000)}`);
  await expect(
    ['--tools', asset('tools'), '--plan', deepPlan, '--goal', MUG_GOAL],
    /^error: .*deep-plan\.json: 1:\d+: nested deeper than 256 levels of arrays and objects\n$/,
  );
  const tools = asset('tools');
  await expect(
    ['--tools', tools, '--plan', plan, '--goal', 'objects.red_mug.on = "tray"'],
    /^error: --goal "objects\.red_mug\.on = \\"tray\\"": not a CEL expression: 1:20: found = but expecting end of input\n$/,
  );
  await expect(
    ['--tools', tools, '--plan', plan, '--goal', 'objects.red_mgu.on == "tray"'],
    /--goal .*unknown object "red_mgu" .*\(did you mean red_mug\?\)/,
  );
  await expect(['--tools', tools, '--goal', MUG_GOAL], /--planner recovery follows a scripted plan: give --plan FILE/);
  await expect(
    ['--tools', tools, '--goal', MUG_GOAL, '--planner', 'scripted'],
    /--planner scripted follows a scripted plan/,
  );
  await expect(
    ['--tools', tools, '--goal', MUG_GOAL, '--planner', 'llm', '--plan', plan],
    /--plan goes with --planner scripted or recovery/,
  );
  const badPlan = join(dir, 'bad-plan.json');
  writeFileSync(badPlan, JSON.stringify({ steps: [{ tool: 'pick', args: { target: 3 } }] }));
  await expect(
    ['--tools', tools, '--plan', badPlan, '--goal', MUG_GOAL],
    /bad-plan\.json: \$\.steps\[0\]\.args\.target: pick: must be string/,
  );
  // The hidden test flag: a malformed fault names the flag and the forms.
  await expect(
    ['--tools', tools, '--plan', plan, '--goal', MUG_GOAL, '--inject-fault', 'skill:pick:0:error:aborted'],
    /^error: --inject-fault 'skill:pick:0:error:aborted': the attempt must be an integer ≥ 1 \(the forms: step:N:stuck/,
  );
  const r = await cli(
    'act',
    '--world',
    'pointmaze-medium',
    '--no-audit',
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    'true',
  );
  assert.equal(r.code, 2);
  assert.match(r.err, /--world pointmaze-medium: a navigation world has no skills/);
});

test('without ROS 2, act and run on a ros2: world exit 4 with the diagnosis `witness ros2 check` gives, after the input is checked and before any audit log is touched', () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-act-ros2-'));
  const config = asset('ros2/nav2-mobile-manipulator.json');
  const tools = join(dir, 'tools');
  mkdirSync(tools);
  writeFileSync(
    join(tools, 'go_to.json'),
    JSON.stringify({
      name: 'go_to',
      description: 'drive the base',
      skill: 'navigate',
      arguments: {
        type: 'object',
        required: ['x', 'y'],
        properties: { x: { type: 'number' }, y: { type: 'number' }, yaw: { type: 'number' } },
      },
      postconditions: [
        {
          name: 'arrived',
          expr: '(base.x - args.x) * (base.x - args.x) + (base.y - args.y) * (base.y - args.y) < 0.04',
        },
      ],
      timeout_s: 60,
      failures: [
        {
          when: 'error.kind == "not-found"',
          label: 'no-action-server',
          class: 'permanent',
          reason: 'Nav2 is not running',
        },
      ],
    }),
  );
  const plan = join(dir, 'plan.json');
  writeFileSync(plan, JSON.stringify({ steps: [{ tool: 'go_to', args: { x: 2, y: 0, yaw: 0 } }] }));
  const check = witness(['ros2', 'check', '--config', config]);
  assert.equal(check.status, 4);
  assert.match(check.stderr, /^error: ROS 2 is not sourced/);
  const db = join(dir, 'audit.sqlite');
  const act = witness([
    'act',
    '--world',
    `ros2:${config}`,
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    'at.bench',
    '--audit',
    db,
  ]);
  assert.equal(act.status, 4, act.stderr);
  assert.equal(act.stderr, check.stderr);
  assert.equal(act.stdout, '');
  assert.equal(existsSync(db), false, 'no audit log for a run that never started');
  // Bad input is still exit 2 on a ROS 2 world: checked against its configuration's vocabulary first.
  const badGoal = witness([
    'act',
    '--world',
    `ros2:${config}`,
    '--tools',
    tools,
    '--plan',
    plan,
    '--goal',
    'at.kitchen',
    '--no-audit',
  ]);
  assert.equal(badGoal.status, 2);
  assert.match(badGoal.stderr, /--goal "at\.kitchen": unknown field "at\.kitchen"/);

  // witness run on a robot: connected first (its pose is the start), so the same exit and words.
  const robot = join(dir, 'robot.json');
  writeFileSync(
    robot,
    JSON.stringify({
      version: 1,
      id: 'lab-robot',
      frames: { map: 'odom', base: 'base_link' },
      pose: { source: 'odometry', sensor: 'odom' },
      sensors: {
        odom: {
          topic: '/odom',
          type: 'nav_msgs/msg/Odometry',
          fields: { 'base.vx': { path: 'twist.twist.linear.x' } },
        },
      },
      navigation: {
        command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/Twist', action: ['linear.x', 'linear.y'] },
        observation: ['base.x', 'base.y'],
        bounds: { min: [0, 0], max: [10, 10] },
      },
    }),
  );
  const runCheck = witness(['ros2', 'check', '--config', robot]);
  assert.equal(runCheck.status, 4);
  const r = witness([
    'run',
    '--world',
    `ros2:${robot}`,
    '--spec',
    'F e1',
    '--regions',
    asset('regions/pointmaze-medium.json'),
    '--graph',
    join(dir, 'g.wgraph'),
    '--data',
    join(dir, 'd.wds'),
    '--no-audit',
  ]);
  assert.equal(r.status, 4, r.stderr);
  assert.equal(r.stderr, runCheck.stderr);
});
