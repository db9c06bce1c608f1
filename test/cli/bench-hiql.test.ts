/**
 * `bench ltl --methods sagas,ap-hiql` end to end on a small backbone: AP-HIQL's policies are trained
 * on first use and kept in the cache (`backbone train-hiql` then finds them), both methods run on
 * the same task, the tables name AP-HIQL and the SAGAS vs AP-HIQL claim, and the results header
 * records the policies' folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, asset } from './harness.js';

test('bench ltl: AP-HIQL runs beside SAGAS on the same task, trained once and cached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bench-hiql-'));
  const data = join(dir, 'nav.wds'),
    graph = join(dir, 'nav.wgraph'),
    cache = join(dir, 'cache');
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
  const out = join(dir, 'r.jsonl');
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
    '1',
    '--threads',
    '1',
    '--no-audit',
    '--difficulty',
    'easy',
    '--methods',
    'sagas,ap-hiql,ap-hiql-pilow',
    '--hiql-steps',
    '200',
    '--max-steps',
    '2000',
    '--cache',
    cache,
    '--out',
    out,
  ];
  const r = await cli(...args, '--json');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /training AP-HIQL's policies \(200 steps/);
  const j = JSON.parse(r.out) as {
    results: Record<string, { tasks: number; sr: number; failureModes: Record<string, number> }>;
    comparisons: { a: string; b: string }[];
  };
  assert.deepEqual(Object.keys(j.results), ['sagas', 'ap-hiql', 'ap-hiql-pilow']);
  assert.equal(j.results['ap-hiql-pilow']!.tasks, 1);
  assert.equal(j.results['ap-hiql']!.tasks, 1);
  assert.ok(j.comparisons.some((c) => c.a === 'sagas' && c.b === 'ap-hiql'));
  assert.ok(j.comparisons.some((c) => c.a === 'sagas' && c.b === 'ap-hiql-pilow'));
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  const header = JSON.parse(lines[0]!) as { config: { methods: string[]; hiql?: string } };
  assert.deepEqual(header.config.methods, ['sagas', 'ap-hiql', 'ap-hiql-pilow']);
  assert.ok(
    header.config.hiql !== undefined &&
      header.config.hiql.startsWith(join(cache, 'hiql')) &&
      existsSync(join(header.config.hiql, 'hiql.json')),
  );
  const task = JSON.parse(lines[1]!) as {
    results: { method: string; success: boolean; failureMode: string | null; steps: number; message: string }[];
  };
  for (const method of ['ap-hiql', 'ap-hiql-pilow']) {
    const h = task.results.find((x) => x.method === method)!;
    assert.ok(
      h.success ? h.failureMode === null : ['planning', 'prefix', 'suffix'].includes(h.failureMode!),
      JSON.stringify(h),
    );
    assert.ok(h.steps > 0 && h.steps <= 2000, JSON.stringify(h));
  }

  // The policies are in the cache now: the command that trains them finds them, and so does a new run.
  const again = await cli(
    'backbone',
    'train-hiql',
    '--world',
    'pointmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--steps',
    '200',
    '--cache',
    cache,
  );
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /AP-HIQL's policies are in the cache: /);
  const text = await cli(...args.slice(0, -1), join(dir, 'r2.jsonl'));
  assert.equal(text.code, 0, text.err);
  assert.match(text.err, /using the cached AP-HIQL policies/);
  assert.match(text.out, /AP-HIQL SR \(%\) \| NCC/);
  assert.match(text.out, /\| SAGAS vs AP-HIQL \| all \| 1 \|/);
  assert.match(text.out, /\| SAGAS vs AP-HIQL \(π_low\) \| all \| 1 \|/);
  const outcome = (x: (typeof task.results)[number]) => ({
    method: x.method,
    success: x.success,
    failureMode: x.failureMode,
    steps: x.steps,
    message: x.message,
  });
  const rerun = JSON.parse(readFileSync(join(dir, 'r2.jsonl'), 'utf8').trim().split('\n')[1]!) as typeof task;
  assert.deepEqual(rerun.results.map(outcome), task.results.map(outcome), 'the same outcomes from the same seeds');

  // Another recipe is another cache entry: other widths and π_l temperature train anew, in a folder of their own.
  const wider = await cli(
    'backbone',
    'train-hiql',
    '--world',
    'pointmaze-medium',
    '--graph',
    graph,
    '--data',
    data,
    '--steps',
    '200',
    '--hidden',
    '16,16',
    '--low-alpha',
    '5',
    '--cache',
    cache,
  );
  assert.equal(wider.code, 0, wider.err);
  const widerDir = /trained AP-HIQL's policies in \d+ s: (.+)$/m.exec(wider.out)?.[1];
  assert.ok(widerDir !== undefined && widerDir !== header.config.hiql, wider.out);
  const rec = JSON.parse(readFileSync(join(widerDir, 'hiql.json'), 'utf8')) as {
    key: { config: { hidden: number[]; lowAlpha: number; steps: number } };
  };
  assert.deepEqual([rec.key.config.hidden, rec.key.config.lowAlpha, rec.key.config.steps], [[16, 16], 5, 200]);
  for (const [flag, value] of [
    ['--hiql-hidden', '64,0'],
    ['--hiql-hidden', '64,,64'],
    ['--hiql-low-alpha', '-1'],
  ] as const) {
    const r2 = await cli('bench', 'ltl', '--world', 'pointmaze-medium', flag, value, '--tasks', '1');
    assert.equal(r2.code, 2, `${flag} ${value}`);
    assert.match(r2.err, new RegExp(`${flag} must be`));
  }

  // An unknown method is refused by name.
  const bad = await cli('bench', 'ltl', '--world', 'pointmaze-medium', '--methods', 'sagas,ap-hiq', '--tasks', '1');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--methods: unknown method 'ap-hiq' \(.*ap-hiql, ap-hiql-pilow\)/);
});
