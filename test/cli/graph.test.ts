import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeModels } from '../../main/services/models/bundle.js';
import type { Mlp } from '../../main/core/models/mlp.js';
import { cli } from './harness.js';

/** A hand-made "trained elsewhere" bundle: ψ(s) = 5·(x, y) (a position-based embedding). */
async function linearBundle(dir: string, world = 'pointmaze-medium'): Promise<void> {
  const embed: Mlp = {
    layers: [
      {
        inputs: 4,
        outputs: 2,
        weights: Float32Array.from([5, 0, 0, 5, 0, 0, 0, 0]),
        bias: new Float32Array(2),
        activation: 'linear',
      },
    ],
  };
  const policy: Mlp = {
    layers: [
      {
        inputs: 6,
        outputs: 2,
        weights: Float32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]),
        bias: new Float32Array(2),
        activation: 'tanh',
      },
    ],
  };
  await writeModels(
    dir,
    { embed, policy },
    {
      world,
      dims: { obs: 4, latent: 2, action: 2 },
      H_TD: 8,
      normalization: { mean: [0, 0, 0, 0], std: [1, 1, 1, 1] },
      training: { handmade: true },
      dataset: { sha256: 'c'.repeat(64) },
    },
  );
}

test('graph build / info / export on a dataset with a model bundle; stale and mismatched inputs are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-graphcli-'));
  const data = join(dir, 'nav.wds'),
    models = join(dir, 'models'),
    file = join(dir, 'g.wgraph'),
    json = join(dir, 'g.json');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '20000',
        '--seed',
        '2',
        '--out',
        data,
      )
    ).code,
    0,
  );
  await linearBundle(models);
  const b = await cli('graph', 'build', '--data', data, '--models', models, '--out', file);
  assert.equal(b.code, 0, b.err);
  assert.match(b.out, /\d+ nodes, \d+ edges, 1 component/);
  const info = JSON.parse((await cli('graph', 'info', file, '--models', models, '--json')).out) as {
    nodes: number;
    components: number;
    states: number;
  };
  assert.equal(info.components, 1);
  assert.equal(info.states, 20000);
  assert.ok(info.nodes > 20);
  assert.equal((await cli('graph', 'export', file, '--out', json)).code, 0);
  const svg = join(dir, 'g.svg');
  assert.equal((await cli('world', 'render', 'pointmaze-medium', '--graph', file, '--out', svg)).code, 0);
  assert.match(readFileSync(svg, 'utf8'), /<circle /);
  assert.equal((await cli('world', 'render', 'pointmaze-giant', '--graph', file, '--out', svg)).code, 2);
  const g = JSON.parse(readFileSync(json, 'utf8')) as { nodes: { position: number[] }[] };
  // node positions are Π of their support means: inside the maze's extent
  assert.ok(
    g.nodes.every((n) => n.position[0]! > -3 && n.position[0]! < 27 && n.position[1]! > -3 && n.position[1]! < 27),
  );
  // a different bundle makes the graph stale
  const other = join(dir, 'other');
  await linearBundle(other);
  const o2 = join(dir, 'o2');
  const embed: Mlp = {
    layers: [
      {
        inputs: 4,
        outputs: 2,
        weights: Float32Array.from([4, 0, 0, 4, 0, 0, 0, 0]),
        bias: new Float32Array(2),
        activation: 'linear',
      },
    ],
  };
  const policy: Mlp = {
    layers: [{ inputs: 6, outputs: 2, weights: new Float32Array(12), bias: new Float32Array(2), activation: 'tanh' }],
  };
  await writeModels(
    o2,
    { embed, policy },
    {
      world: 'pointmaze-medium',
      dims: { obs: 4, latent: 2, action: 2 },
      H_TD: 8,
      normalization: { mean: [0, 0, 0, 0], std: [1, 1, 1, 1] },
      training: {},
      dataset: { sha256: 'c'.repeat(64) },
    },
  );
  const stale = await cli('graph', 'info', file, '--models', o2);
  assert.equal(stale.code, 2);
  assert.match(stale.err, /models: stale/);
  const wrongWorld = join(dir, 'large-models');
  await linearBundle(wrongWorld, 'pointmaze-large');
  const ww = await cli('graph', 'build', '--data', data, '--models', wrongWorld, '--out', join(dir, 'x.wgraph'));
  assert.equal(ww.code, 2);
  assert.match(ww.err, /the models are for pointmaze-large, the dataset for pointmaze-medium/);
});

test('an interrupted graph build leaves nothing behind', async () => {
  const { spawn } = await import('node:child_process');
  const { readdirSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const dir = mkdtempSync(join(tmpdir(), 'witness-cancel-'));
  const data = join(dir, 'nav.wds'),
    models = join(dir, 'models'),
    out = join(dir, 'g.wgraph');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '300000',
        '--seed',
        '2',
        '--out',
        data,
      )
    ).code,
    0,
  );
  await linearBundle(models);
  const bin = fileURLToPath(new URL('../../../bin/witness.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'graph', 'build', '--data', data, '--models', models, '--out', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Interrupt mid-way, whatever the machine's speed: once the embedding stage reports progress.
  await new Promise<void>((r) => {
    let text = '';
    child.stderr.on('data', (b: Buffer) => {
      text += b.toString();
      if (/graph build: [1-4]\d%/.test(text)) r();
    });
    child.on('exit', () => r());
  });
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.notEqual(code, 0);
  assert.deepEqual(readdirSync(dir).sort(), ['models', 'nav.wds'], 'no graph file and no temporary file');
});
