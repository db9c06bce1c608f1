import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, asset } from './harness.js';

interface Outcome {
  id: string;
  results: { method: string; success: boolean; steeredSteps: number }[];
}

async function backbone(dir: string, kind: string, steps: number): Promise<{ data: string; graph: string }> {
  const data = join(dir, `${kind}.wds`),
    graph = join(dir, `${kind}.wgraph`);
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        kind,
        '--steps',
        String(steps),
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
  return { data, graph };
}

test('bench ltl: the Appendix H ablations run beside SAGAS on the same task; the dataset regime is recorded, checked and kept apart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bench-ltl-'));
  const nav = await backbone(dir, 'navigate', 100_000);
  const out = join(dir, 'ablations.jsonl');
  const base = [
    'bench',
    'ltl',
    '--world',
    'pointmaze-medium',
    '--graph',
    nav.graph,
    '--data',
    nav.data,
    '--tasks',
    '1',
    '--threads',
    '1',
    '--no-audit',
  ];
  const args = [...base, '--difficulty', 'medium', '--methods', 'sagas,sagas-nosoft,sagas-nosteer', '--out', out];
  const r = await cli(...args, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as {
    dataset: string;
    methods: string[];
    tasks: number;
    results: Record<string, { sr: number; tasks: number }>;
  };
  assert.equal(j.dataset, 'navigate', 'the regime of the given data file');
  assert.deepEqual(Object.keys(j.results), ['sagas', 'sagas-nosoft', 'sagas-nosteer']);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  const header = JSON.parse(lines[0]!) as { config: { dataset: string; methods: string[] } };
  assert.equal(header.config.dataset, 'navigate');
  assert.deepEqual(header.config.methods, ['sagas', 'sagas-nosoft', 'sagas-nosteer']);
  // The same task (medium-0, seed 1) takes SAGAS past a forbidden label's anchor: steering bends its
  // direction on some steps; the w/o-steering variant runs the same plan with the term off.
  const task = JSON.parse(lines[1]!) as Outcome;
  const of = (m: string) => task.results.find((x) => x.method === m)!;
  assert.ok(of('sagas').steeredSteps > 0, 'steering is active for SAGAS on this task');
  assert.ok(of('sagas-nosoft').steeredSteps > 0, 'w/o soft labels keeps steering');
  assert.equal(of('sagas-nosteer').steeredSteps, 0, 'w/o steering: the steering term never acts');

  // Resumed in text: the title names the regime and the methods, the tables the variants.
  const text = await cli(...args);
  assert.equal(text.code, 0, text.err);
  assert.match(
    text.out,
    /^# witness bench ltl --world pointmaze-medium --dataset navigate --difficulty medium --tasks 1 --methods sagas,sagas-nosoft,sagas-nosteer --seed 1/,
  );
  assert.match(text.out, /SAGAS w\/o soft SR \(%\) \| NCC \| SAGAS w\/o steering SR/);
  assert.match(text.out, /\| SAGAS w\/o steering \| \d+ \| [\d.]+ \| 0 \| 0 \| 0 \|/, 'steering active on no task');
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 2, 'nothing ran again');

  // A file of the format before the regime and the ablations (version 1), even with this config, is not resumed.
  const old = join(dir, 'old.jsonl');
  writeFileSync(old, JSON.stringify({ ...(JSON.parse(lines[0]!) as object), version: 1 }) + '\n' + lines[1]! + '\n');
  const refused = await cli(...args.slice(0, -1), old);
  assert.equal(refused.code, 2);
  assert.match(refused.err, /old\.jsonl.*holds results of format version 1, not 2; pass another --out or delete it/);

  // A file from before waypoints steered to rest latents (no `targets` in its config) is not resumed either.
  const first = JSON.parse(lines[0]!) as { config: Record<string, unknown> };
  const { targets: _targets, ...before } = first.config;
  writeFileSync(old, JSON.stringify({ ...first, config: before }) + '\n' + lines[1]! + '\n');
  const earlier = await cli(...args.slice(0, -1), old);
  assert.equal(earlier.code, 2);
  assert.match(earlier.err, /old\.jsonl.*holds results of other settings/);

  writeFileSync(old, 'not json\n');
  const garbage = await cli(...args.slice(0, -1), old);
  assert.equal(garbage.code, 2);
  assert.match(garbage.err, /old\.jsonl.*is not a results file of `witness bench ltl`/);

  // --dataset must be the regime the given data comes from.
  const wrong = await cli(...args, '--dataset', 'stitch');
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /--dataset: .*navigate\.wds holds a navigate dataset, not stitch/);
  assert.equal(
    (await cli(...args, '--dataset', 'navigate', '--json')).code,
    0,
    'the same regime, said explicitly, resumes',
  );

  // A stitch backbone: its results never mix with the navigate ones.
  const stitch = await backbone(dir, 'stitch', 20_000);
  const sArgs = [
    'bench',
    'ltl',
    '--world',
    'pointmaze-medium',
    '--graph',
    stitch.graph,
    '--data',
    stitch.data,
    '--dataset',
    'stitch',
    '--tasks',
    '1',
    '--threads',
    '1',
    '--no-audit',
    '--difficulty',
    'easy',
    '--methods',
    'sagas',
  ];
  const mixed = await cli(...sArgs, '--out', out);
  assert.equal(mixed.code, 2);
  assert.match(
    mixed.err,
    /holds results of other settings \(\{"taskProtocol":2,"targets":"rest","world":"pointmaze-medium","dataset":"navigate"/,
  );
  const s = await cli(...sArgs, '--out', join(dir, 'stitch.jsonl'), '--json');
  assert.equal(s.code, 0, s.err);
  assert.equal((JSON.parse(s.out) as { dataset: string }).dataset, 'stitch');
  assert.equal(
    (JSON.parse(readFileSync(join(dir, 'stitch.jsonl'), 'utf8').split('\n')[0]!) as { config: { dataset: string } })
      .config.dataset,
    'stitch',
  );
});

test('bench ltl: an unknown dataset regime or ablation is bad input (exit 2) naming its flag, before anything is built', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-bench-ltl-'));
  const base = [
    'bench',
    'ltl',
    '--world',
    'pointmaze-medium',
    '--tasks',
    '1',
    '--no-audit',
    '--out',
    join(dir, 'x.jsonl'),
    '--cache',
    join(dir, 'cache'),
  ];
  const regime = await cli(...base, '--dataset', 'medium');
  assert.equal(regime.code, 2);
  assert.match(
    regime.err,
    /--dataset <regime>' argument 'medium' is invalid\. Allowed choices are navigate, stitch, explore/,
  );
  const method = await cli(...base, '--methods', 'sagas,sagas-nosoft,sagas-nolabels');
  assert.equal(method.code, 2);
  assert.match(
    method.err,
    /--methods: unknown method 'sagas-nolabels' \(sagas, lf-gas, ga-gas, sagas-replan, sagas-nosoft, sagas-nosteer, sagas-nodelatent, ap-hiql, ap-hiql-pilow\)/,
  );
  assert.equal(existsSync(join(dir, 'cache')), false, 'no backbone was generated');
});
