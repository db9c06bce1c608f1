import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './harness.js';

test('world ls lists the three point mazes and the three Ant mazes; --json is machine-readable', async () => {
  const r = await cli('world', 'ls');
  assert.equal(r.code, 0);
  for (const id of [
    'pointmaze-medium',
    'pointmaze-large',
    'pointmaze-giant',
    'antmaze-medium',
    'antmaze-large',
    'antmaze-giant',
  ])
    assert.match(r.out, new RegExp(id));
  const j = JSON.parse((await cli('world', 'ls', '--json')).out) as {
    id: string;
    cells: number[];
    observation: string[];
    action: string[];
    scene: string;
  }[];
  assert.deepEqual(
    j.map((w) => w.cells),
    [
      [8, 8],
      [9, 12],
      [12, 16],
      [8, 8],
      [9, 12],
      [12, 16],
    ],
  );
  const ant = j.find((w) => w.id === 'antmaze-large')!;
  assert.equal(ant.observation.length, 29);
  assert.equal(ant.action.length, 8);
  assert.match(ant.scene, /scenes\/antmaze-large\.xml$/);
});

test('Ant datasets through the CLI: gen prints the report, info shows 29-D rows and the falls and stalls, render draws the walks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ant-'));
  const wds = join(dir, 'x.wds'),
    svg = join(dir, 'x.svg');
  const g = await cli(
    'data',
    'gen',
    'antmaze-medium',
    '--kind',
    'navigate',
    '--steps',
    '600',
    '--seed',
    '0',
    '--out',
    wds,
  );
  assert.equal(g.code, 0, g.err);
  assert.match(g.out, /wrote .*x\.wds: 600 transitions, 1 trajectories, \d+\/26 free cells covered/);
  assert.match(
    g.out,
    /report: \d+ flips? \(episodes ended on the Ant's back\) and \d+ stalls? of the expert in \d+ episodes/,
  );
  const info = JSON.parse((await cli('data', 'info', wds, '--json')).out) as {
    world: string;
    obsDim: number;
    actDim: number;
    generator: Record<string, unknown>;
    report: { episodes: number; flipRows: number[] };
  };
  assert.deepEqual(
    [info.world, info.obsDim, info.actDim, info.generator['agent'], info.generator['episodeLength']],
    ['antmaze-medium', 29, 8, 'ant', 1000],
  );
  assert.ok(Array.isArray(info.report.flipRows));
  assert.match((await cli('data', 'info', wds)).out, /report: /);
  const r = await cli('world', 'render', 'antmaze-medium', '--data', wds, '--out', svg);
  assert.equal(r.code, 0, r.err);
  assert.match(readFileSync(svg, 'utf8'), /<polyline /);
  // Bad inputs name what and where.
  const wrong = await cli('world', 'render', 'pointmaze-medium', '--data', wds, '--out', svg);
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /x\.wds: .*antmaze-medium.*pointmaze-medium/);
  const unknown = await cli('data', 'gen', 'antmaze-huge', '--kind', 'navigate', '--steps', '10', '--out', wds);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /antmaze-huge: not-found: no such world; the embedded worlds are .*antmaze-medium/);
  const npz = join(dir, 'point.npz'),
    point = join(dir, 'point.wds');
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'explore', '--steps', '100', '--out', point)).code,
    0,
  );
  assert.equal((await cli('data', 'export', point, '--out', npz)).code, 0);
  const dims = await cli('data', 'import', npz, '--world', 'antmaze-medium', '--out', join(dir, 'y.wds'));
  assert.equal(dims.code, 2);
  assert.match(
    dims.err,
    /point\.npz: observations have 4 values a row, but antmaze-medium has 29 \(29-D observations, 8-D actions\)/,
  );
});

test('data gen is byte-identical for the same seed and arguments; info reports coverage and hash', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-data-'));
  const a = join(dir, 'a.wds'),
    b = join(dir, 'b.wds'),
    c = join(dir, 'c.wds');
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'stitch', '--steps', '3000', '--seed', '4', '--out', a))
      .code,
    0,
  );
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'stitch', '--steps', '3000', '--seed', '4', '--out', b))
      .code,
    0,
  );
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'stitch', '--steps', '3000', '--seed', '5', '--out', c))
      .code,
    0,
  );
  assert.deepEqual(readFileSync(a), readFileSync(b));
  assert.notDeepEqual(readFileSync(a), readFileSync(c));
  const info = JSON.parse((await cli('data', 'info', a, '--json')).out) as {
    transitions: number;
    trajectories: number;
    coverage: { free: number };
    sha256: string;
  };
  assert.equal(info.transitions, 3000);
  assert.equal(info.trajectories, 15);
  assert.equal(info.coverage.free, 26);
  assert.match(info.sha256, /^[0-9a-f]{64}$/);
  // no temporary files left behind
  assert.deepEqual(readdirSync(dir).sort(), ['a.wds', 'b.wds', 'c.wds']);
});

test('npz export/import through the CLI, and render draws trajectories', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-npz-'));
  const wds = join(dir, 'd.wds'),
    npz = join(dir, 'd.npz'),
    back = join(dir, 'back.wds'),
    svg = join(dir, 'm.svg');
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-large', '--kind', 'explore', '--steps', '2000', '--out', wds)).code,
    0,
  );
  assert.equal((await cli('data', 'export', wds, '--out', npz)).code, 0);
  assert.equal((await cli('data', 'import', npz, '--world', 'pointmaze-large', '--out', back)).code, 0);
  const i1 = JSON.parse((await cli('data', 'info', wds, '--json')).out) as { transitions: number };
  const i2 = JSON.parse((await cli('data', 'info', back, '--json')).out) as { transitions: number };
  assert.equal(i1.transitions, i2.transitions);
  assert.equal((await cli('world', 'render', 'pointmaze-large', '--data', wds, '--out', svg)).code, 0);
  const text = readFileSync(svg, 'utf8');
  assert.match(text, /^<svg /);
  assert.match(text, /<polyline /);
});

test('bad input: unknown world, wrong world for a dataset, npz without --world, bad flags, broken layouts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bad-'));
  const r1 = await cli(
    'data',
    'gen',
    'pointmaze-tiny',
    '--kind',
    'navigate',
    '--steps',
    '10',
    '--out',
    join(dir, 'x.wds'),
  );
  assert.equal(r1.code, 2);
  assert.match(r1.err, /pointmaze-tiny: not-found: no such world/);
  const wds = join(dir, 'd.wds');
  await cli('data', 'gen', 'pointmaze-medium', '--kind', 'navigate', '--steps', '1000', '--out', wds);
  const r2 = await cli('world', 'render', 'pointmaze-giant', '--data', wds, '--out', join(dir, 'm.svg'));
  assert.equal(r2.code, 2);
  assert.match(r2.err, /d\.wds: .*pointmaze-medium.*pointmaze-giant/);
  const r3 = await cli('data', 'info', join(dir, 'd.npz'));
  assert.equal(r3.code, 2);
  assert.match(r3.err, /give --world/);
  const r4 = await cli('data', 'gen', 'pointmaze-medium', '--kind', 'wander', '--steps', '10', '--out', wds);
  assert.equal(r4.code, 2);
  const r5 = await cli('data', 'gen', 'pointmaze-medium', '--kind', 'navigate', '--steps', '-3', '--out', wds);
  assert.equal(r5.code, 2);
  const layout = join(dir, 'maze.json');
  writeFileSync(layout, '{"id": "two", "grid": [[1,1,1,1],[1,0,1,1],[1,1,0,1],[1,1,1,1]]}');
  const r6 = await cli('world', 'check', layout);
  assert.equal(r6.code, 2);
  assert.match(r6.err, /maze\.json: grid\[2\]\[2\]: free cell not connected/);
  writeFileSync(layout, '{"id": "two",\n "grid": [[1,1]');
  const r7 = await cli('world', 'check', layout);
  assert.match(r7.err, /maze\.json: json: 2:\d+: /);
  const scene = join(dir, 'scene.xml');
  writeFileSync(scene, '<mujoco><worldbody>');
  const r8 = await cli('world', 'check', scene);
  assert.equal(r8.code, 2);
  assert.match(r8.err, /scene\.xml: .*XML/);
  writeFileSync(layout, '{"id": "room", "grid": [[1,1,1,1],[1,0,0,1],[1,1,1,1]]}');
  assert.equal((await cli('world', 'check', layout)).code, 0);
  assert.equal((await cli('world', 'scenes', '--check')).code, 0);
});
