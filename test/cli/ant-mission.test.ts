import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, asset } from './harness.js';
import { LEGGED_EXEC } from '../../main/core/exec/executor.js';

test('the Ant maze end to end from the CLI: its dataset, the graph on its shipped bundle, a mission with a picture, and bench ltl with failures by cause', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ant-'));
  const data = join(dir, 'nav.wds'),
    graph = join(dir, 'g.wgraph'),
    svg = join(dir, 'm.svg');
  assert.equal(
    (await cli('data', 'gen', 'antmaze-medium', '--kind', 'navigate', '--steps', '20000', '--seed', '1', '--out', data))
      .code,
    0,
  );
  const built = await cli('graph', 'build', '--data', data, '--models', asset('models/antmaze-medium'), '--out', graph);
  assert.equal(built.code, 0, built.err);
  const r = await cli(
    'run',
    '--world',
    'antmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--regions',
    asset('regions/antmaze-medium.json'),
    '--spec',
    'F e2 & G !e0',
    '--start',
    '4,20',
    '--max-steps',
    '800',
    '--json',
    '--picture',
    svg,
    '--no-audit',
  );
  // The shipped bundle walks it: three cells and a doorway to e2 (385 steps on this seed), never through e0.
  assert.equal(r.code, 0, r.err + r.out);
  const d = JSON.parse(r.out) as {
    world: string;
    status: string;
    failureMode: string | null;
    steps: number;
    plans: { status: string }[];
    failures: { kind: string }[];
  };
  assert.equal(d.world, 'antmaze-medium');
  assert.equal(d.plans[0]!.status, 'ok');
  assert.deepEqual([d.status, d.failureMode, d.failures.length], ['success', null, 0]);
  assert.ok(d.steps > 100, `${d.steps} steps: e2 is three cells from the start`);
  assert.match(readFileSync(svg, 'utf8'), /<svg[^]*prefix[^]*<\/svg>/);
  // The bundles of the two bodies do not mix: refused before anything moves, naming the file.
  const mixed = await cli(
    'run',
    '--world',
    'antmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--models',
    asset('models/pointmaze-medium'),
    '--regions',
    asset('regions/antmaze-medium.json'),
    '--spec',
    'F e2',
    '--start',
    '4,20',
    '--no-audit',
  );
  assert.equal(mixed.code, 2, mixed.out);
  assert.match(
    mixed.err,
    /pointmaze-medium\/manifest\.json: world: the models are for pointmaze-medium, not antmaze-medium/,
  );

  const b = await cli(
    'bench',
    'ltl',
    '--world',
    'antmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--tasks',
    '2',
    '--difficulty',
    'easy',
    '--methods',
    'sagas,lf-gas',
    '--threads',
    '1',
    '--no-audit',
    '--out',
    join(dir, 'b.jsonl'),
  );
  assert.equal(b.code, 0, b.err);
  assert.match(b.out, /# witness bench ltl --world antmaze-medium/);
  assert.match(b.out, /Failed executions \(prefix, suffix, escalated, unrecoverable\) by what ended them/);
  // The results name the legged body's executor; a file of the paper-side one (no `tracking`) is not resumed into them.
  const lines = readFileSync(join(dir, 'b.jsonl'), 'utf8').trim().split('\n');
  const header = JSON.parse(lines[0]!) as { config: Record<string, unknown> };
  assert.deepEqual(header.config['tracking'], LEGGED_EXEC);
  const { tracking: _tracking, ...before } = header.config;
  writeFileSync(join(dir, 'old.jsonl'), JSON.stringify({ ...header, config: before }) + '\n' + lines[1]! + '\n');
  const old = await cli(
    'bench',
    'ltl',
    '--world',
    'antmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--tasks',
    '2',
    '--difficulty',
    'easy',
    '--methods',
    'sagas,lf-gas',
    '--threads',
    '1',
    '--no-audit',
    '--out',
    join(dir, 'old.jsonl'),
  );
  assert.equal(old.code, 2, old.out);
  assert.match(old.err, /old\.jsonl.*holds results of other settings/);
});

test('regions written for another maze are refused before anything is opened, naming the file and $.world; each Ant maze ships its own', async () => {
  const r = await cli(
    'run',
    '--world',
    'antmaze-large',
    '--regions',
    asset('regions/pointmaze-medium.json'),
    '--spec',
    'F e2',
    '--no-audit',
  );
  assert.equal(r.code, 2, r.out);
  assert.match(
    r.err,
    /pointmaze-medium\.json: \$\.world: the regions are for "pointmaze-medium", the mission is in "antmaze-large" \(its shipped regions: assets\/regions\/antmaze-large\.json\)/,
  );
  // The same medium layout does not make the point maze's regions the Ant's: the file names its world.
  const medium = await cli(
    'run',
    '--world',
    'antmaze-medium',
    '--regions',
    asset('regions/pointmaze-medium.json'),
    '--spec',
    'F e2',
    '--no-audit',
  );
  assert.equal(medium.code, 2, medium.out);
  assert.match(medium.err, /the regions are for "pointmaze-medium", the mission is in "antmaze-medium"/);
});
