import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, asset } from './harness.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';

test('witness run: a mission end to end with --json and --picture; bench ltl --world runs, resumes and summarises', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-run-'));
  const data = join(dir, 'nav.wds'),
    graph = join(dir, 'g.wgraph'),
    svg = join(dir, 'm.svg');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '100000',
        '--seed',
        '1',
        '--out',
        data,
      )
    ).code,
    0,
  );
  assert.equal(
    (await cli('graph', 'build', '--data', data, '--models', asset('models/pointmaze-medium'), '--out', graph)).code,
    0,
  );
  const regions = asset('regions/pointmaze-medium.json');
  const audit = join(dir, 'audit.sqlite');
  const r = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F (e2 & F e1)',
    '--start',
    '4,20',
    '--json',
    '--picture',
    svg,
    '--audit',
    audit,
    '--operator',
    'ada',
  );
  assert.equal(r.code, 0, r.err + r.out);
  const d = JSON.parse(r.out) as {
    status: string;
    plans: { status: string; prefix: string[] }[];
    events: { kind: string }[];
    ncc: number;
    step_ms: { p95: number };
  };
  assert.equal(d.status, 'success');
  assert.equal(d.plans[0]!.status, 'ok');
  assert.ok(d.events.some((e) => e.kind === 'checkpoint'));
  assert.ok(d.ncc > 0 && d.ncc < 1);
  assert.match(readFileSync(svg, 'utf8'), /<svg[^]*prefix[^]*suffix[^]*<\/svg>/);
  // The run is in the audit log: its plan with the certificate, checkpoints, the outcome; the chain verifies.
  const ls = JSON.parse((await cli('audit', 'ls', audit, '--json')).out) as {
    id: string;
    operator: string;
    outcome: string;
  }[];
  assert.deepEqual(
    ls.map((x) => [x.operator, x.outcome]),
    [['ada', 'success']],
  );
  const plans = (await cli('audit', 'query', audit, '--kind', 'plan', '--json')).out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { body: { status: string } });
  assert.deepEqual(
    plans.map((p) => p.body.status),
    ['ok'],
  );
  assert.ok((await cli('audit', 'query', audit, '--kind', 'checkpoint', '--json')).out.trim().split('\n').length >= 2);
  assert.match((await cli('audit', 'verify', audit)).out, /intact: \d+ events/);
  const shown = await cli('audit', 'show', audit, ls[0]!.id.slice(0, 8));
  assert.match(shown.out, /specification: F \(e2 & F e1\)/);
  const exported = await cli('audit', 'export', audit, '--format', 'mcap', '--out', join(dir, 'a.mcap'));
  assert.match(exported.out, /messages on \d+ channel/);
  const text = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F (e2 & F e1)',
    '--start',
    '4,20',
    '--no-audit',
  );
  assert.match(text.out, /outcome: SUCCESS/);
  // Failure is exit 1 (a negative answer); a wall start or unknown proposition is exit 2.
  const bad = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F e2',
    '--start',
    '4,20',
    '--max-steps',
    '5',
    '--audit',
    audit,
  );
  assert.equal(bad.code, 1);
  assert.match(bad.out, /FAILED \(prefix\)/);
  // An audit database with a trigger that swallows every insert: refused before the mission moves (exit 2 naming it),
  // nothing recorded.
  const swallowing = join(dir, 'swallowing.sqlite');
  copyFileSync(audit, swallowing);
  const raw = new Database(swallowing);
  raw.exec('CREATE TRIGGER swallow BEFORE INSERT ON events BEGIN SELECT RAISE(IGNORE); END');
  const before = (raw.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  raw.close();
  const refused = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F (e2 & F e1)',
    '--start',
    '4,20',
    '--audit',
    swallowing,
  );
  assert.equal(refused.code, 2, refused.out + refused.err);
  assert.match(
    refused.err,
    new RegExp(
      `^error: ${swallowing}: its schema is not the one Witness creates: a trigger swallow \\(on events\\) that Witness does not create was added; refusing to write to it`,
    ),
  );
  assert.doesNotMatch(refused.out, /SUCCESS/);
  const after = new Database(swallowing, { readonly: true });
  assert.equal(
    (after.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
    before,
    'nothing recorded',
  );
  after.close();
  // A world that fails on cue (the hidden test flag): the mission ends as a world failure at that very step.
  const lost = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F (e2 & F e1)',
    '--start',
    '4,20',
    '--no-audit',
    '--json',
    '--inject-fault',
    'step:10:error:disconnected',
  );
  assert.equal(lost.code, 1, lost.err);
  const lr = JSON.parse(lost.out) as { failureMode: string; message: string; steps: number };
  assert.deepEqual([lr.failureMode, lr.steps], ['world', 10]);
  assert.match(lr.message, /^pointmaze-medium: disconnected: step 10: injected fault step:10:error:disconnected$/);
  assert.equal(
    (await cli('run', '--graph', graph, '--data', data, '--regions', regions, '--spec', 'F e9', '--no-audit')).code,
    2,
  );
  // No first plan: the mission is infeasible, exit 3 as for `witness plan`, with the planner's reason.
  const none = await cli(
    'run',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    regions,
    '--spec',
    'F e2 & G !e2',
    '--start',
    '4,20',
    '--no-audit',
  );
  assert.equal(none.code, 3, none.out + none.err);
  assert.match(none.out, /FAILED \(planning\)/);
  assert.match(
    none.out,
    /Why: the conjuncts F e2 and G !e2 cannot hold together on any graph: they contradict each other/,
  );
  assert.equal((await cli('audit', 'verify', join(dir, 'nav.wds'))).code, 2, 'not an audit database');

  const out = join(dir, 'bench.jsonl'),
    pics = join(dir, 'pics');
  const args = [
    'bench',
    'ltl',
    '--world',
    'pointmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--tasks',
    '2',
    '--difficulty',
    'easy',
    '--methods',
    'sagas,ga-gas',
    '--threads',
    '1',
    '--out',
    out,
    '--json',
  ];
  const b1 = await cli(...args, '--pictures', pics, '--picture-tasks', '1');
  assert.equal(b1.code, 0, b1.err);
  const j = JSON.parse(b1.out) as {
    tasks: number;
    results: Record<string, { sr: number; ncc: number; tasks: number }>;
  };
  assert.equal(j.tasks, 2);
  assert.deepEqual(Object.keys(j.results), ['sagas', 'ga-gas']);
  assert.ok(existsSync(join(pics, 'easy-0-sagas.svg')) && !existsSync(join(pics, 'easy-1-sagas.svg')));
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  assert.equal(lines.length, 3, 'a header and one line per task');
  // The summary's success rate is the share of the task records in which the method succeeded; both
  // methods complete both easy tasks of this seeded benchmark.
  assert.deepEqual([j.results['sagas']!.sr, j.results['ga-gas']!.sr], [1, 1]);
  const tasks = lines.slice(1).map((l) => JSON.parse(l) as { results: { method: string; success: boolean }[] });
  for (const m of ['sagas', 'ga-gas']) {
    const ok = tasks.map((t) => t.results.find((x) => x.method === m)!.success);
    assert.equal(j.results[m]!.sr, ok.filter(Boolean).length / ok.length, m);
  }
  const benchRuns = JSON.parse((await cli('audit', 'ls', `${out}.audit.sqlite`, '--json')).out) as unknown[];
  assert.equal(benchRuns.length, 4, 'every mission of the benchmark is in its audit log');
  assert.equal((await cli('audit', 'verify', `${out}.audit.sqlite`)).code, 0);
  // Resumed: nothing runs again and the summary is the same.
  const b2 = await cli(...args);
  assert.deepEqual(JSON.parse(b2.out), j);
  // The printed tables carry planning failures by cause and, per ordering claim, wins / ties / losses
  // and a bootstrap interval over tasks.
  const tables = await cli(...args.filter((a) => a !== '--json'));
  assert.equal(tables.code, 0, tables.err);
  assert.match(tables.out, /Planning failures of the first plan by the planner's reason:/);
  assert.match(
    tables.out,
    /\| A vs B \| difficulty \| tasks \| success: A wins \/ ties \/ A loses \| SR A − B \(pp\) \[95 % CI\] \|/,
  );
  assert.match(
    tables.out,
    /\| SAGAS vs GA-GAS \| easy \| 2 \| \d \/ \d \/ \d \| [+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]/,
  );
  assert.match(tables.out, /\| SAGAS vs GA-GAS \| all \| 2 \|/);
  const comparisons = (j as unknown as { comparisons: { a: string; b: string; difficulty: string; tasks: number }[] })
    .comparisons;
  assert.deepEqual(
    comparisons.map((c) => [c.a, c.b, c.difficulty, c.tasks]),
    [
      ['sagas', 'ga-gas', 'easy', 2],
      ['sagas', 'ga-gas', 'all', 2],
    ],
  );
  // The planner benchmark draws the same tasks as the mission benchmark for the same seed.
  const planned = await cli(
    'bench',
    'plan',
    '--world',
    'pointmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--tasks',
    '2',
    '--difficulty',
    'easy',
    '--grids',
    '',
    '--json',
  );
  assert.equal(planned.code, 0, planned.err);
  const pt = (
    JSON.parse(planned.out) as { tasks: { difficulty: string; index: number; formula: string; start: number[] }[] }
  ).tasks;
  const mt = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as { difficulty: string; index: number; formula: string; start: number[] })
    .sort((x, y) => x.index - y.index);
  assert.deepEqual(
    pt.map((t) => [t.difficulty, t.index, t.formula, t.start]),
    mt.map((t) => [t.difficulty, t.index, t.formula, t.start]),
  );
  const other = await cli(
    'bench',
    'ltl',
    '--world',
    'pointmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--tasks',
    '1',
    '--methods',
    'sagas',
    '--out',
    out,
  );
  assert.equal(other.code, 2);
  assert.match(other.err, /holds results of other settings/);
});

test('witness run --world: an unknown world, a robot without a backbone, a missing robot configuration, a picture of a robot — each refused before anything connects', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-run-'));
  const regions = asset('regions/pointmaze-medium.json');
  const base = ['run', '--spec', 'F e1', '--regions', regions, '--no-audit'];
  const bogus = await cli(...base, '--world', 'mars');
  assert.equal(bogus.code, 2);
  assert.match(bogus.err, /--world must be one of pointmaze-medium, .*, or ros2:<configuration file>, got 'mars'/);
  const noGraph = await cli(...base, '--world', `ros2:${asset('ros2/nav2-mobile-manipulator.json')}`);
  assert.equal(noGraph.code, 2);
  assert.match(
    noGraph.err,
    /is a robot: datasets are not generated on it; give --graph \(a map graph from `witness graph from-map`, executed through the robot's navigation action\), or --graph and --data/,
  );
  const missing = join(dir, 'no-such-robot.json');
  const noConfig = await cli(
    ...base,
    '--world',
    `ros2:${missing}`,
    '--graph',
    join(dir, 'g.wgraph'),
    '--data',
    join(dir, 'd.wds'),
  );
  assert.equal(noConfig.code, 2, noConfig.err);
  assert.match(noConfig.err, /no-such-robot\.json/);
  const noNavigation = await cli(
    ...base,
    '--world',
    `ros2:${asset('ros2/nav2-mobile-manipulator.json')}`,
    '--graph',
    join(dir, 'g.wgraph'),
    '--data',
    join(dir, 'd.wds'),
  );
  assert.equal(noNavigation.code, 2, noNavigation.err);
  assert.match(
    noNavigation.err,
    /is not a navigation world: .* a ROS 2 robot whose configuration has a "navigation" section/,
  );
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
  const picture = await cli(
    ...base,
    '--world',
    `ros2:${robot}`,
    '--graph',
    join(dir, 'g.wgraph'),
    '--data',
    join(dir, 'd.wds'),
    '--picture',
    join(dir, 'm.svg'),
  );
  assert.equal(picture.code, 2, picture.err);
  assert.match(picture.err, /has no maze layout to draw: drop --picture/);
  assert.equal(existsSync(join(dir, 'm.svg')), false);
});

test("witness run --method M: records M and executes M's plan first; --json prints that plan with the sha its plan event records", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-run-method-'));
  const audit = join(dir, 'audit.sqlite');
  const regions = asset('regions/pointmaze-medium.json');
  const cases = [
    ['lf-gas', 'lf-gas', false],
    ['ga-gas', 'ga-gas', false],
    ['sagas-replan', 'sagas', true],
  ] as const;
  for (const [method, planner, replanning] of cases) {
    // A few steps: the first plan is recorded before the robot moves.
    const r = await cli(
      'run',
      '--world',
      'pointmaze-medium',
      '--dataset-steps',
      '20000',
      '--spec',
      'F e2 & G F e1 & G F e4 & G !e0',
      '--regions',
      regions,
      '--start',
      '4,20',
      '--method',
      method,
      '--max-steps',
      '3',
      '--audit',
      audit,
      '--json',
    );
    assert.equal(r.code, 1, r.err);
    const d = JSON.parse(r.out) as {
      method: string;
      audit: { run: string };
      plans: ({ t: number; planning_ms: number; plan_sha: string } & Record<string, unknown>)[];
    };
    assert.equal(d.method, method);
    const { t: _t, planning_ms: _ms, plan_sha, ...doc } = d.plans[0]!;
    assert.match(plan_sha, /^[0-9a-f]{64}$/);
    assert.equal(doc['method'], planner);
    const events = (await cli('audit', 'query', audit, '--run', d.audit.run, '--kind', 'plan', '--json')).out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { body: { plan_sha: string; method: string; trigger: string } });
    assert.deepEqual(
      [events[0]!.body.trigger, events[0]!.body.method, events[0]!.body.plan_sha],
      ['initial', planner, plan_sha],
      `${method}: the first plan event is the plan printed`,
    );
    const db = openAuditReadOnly(audit);
    try {
      const blob = db.prepare('SELECT body FROM blobs WHERE sha256 = ?').get(plan_sha) as { body: string };
      assert.deepEqual(JSON.parse(blob.body), doc, `${method}: --json prints the document recorded`);
    } finally {
      db.close();
    }
    const shown = JSON.parse((await cli('audit', 'show', audit, d.audit.run, '--json')).out) as {
      run: { meta: Record<string, unknown> };
    };
    const meta = shown.run.meta;
    assert.deepEqual(
      [meta['method'], meta['planner'], meta['replanning']],
      [method, planner, replanning],
      `${method}: recorded as chosen`,
    );
  }
});
