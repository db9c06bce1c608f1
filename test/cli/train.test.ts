import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDataset } from '../../main/services/datasets/format.js';
import { embedWithOnnx } from '../../main/services/training/bundle.js';
import { medianOffsetRatio } from '../../main/core/models/latent-scale.js';
import { BACKBONE_VARIANTS, REGIME_RECIPES } from '../../main/contract/defaults.js';
import { reproduceCommand } from '../../main/app/train.js';
import { cli } from './harness.js';

test('train embed → train policy → model check → backbone eval, end to end (tiny settings)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-train-'));
  const data = join(dir, 'nav.wds'),
    emb = join(dir, 'emb'),
    bundle = join(dir, 'bundle');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '3000',
        '--seed',
        '1',
        '--out',
        data,
      )
    ).code,
    0,
  );
  const e = await cli(
    'train',
    'embed',
    '--data',
    data,
    '--out',
    emb,
    '--steps',
    '600',
    '--batch',
    '64',
    '--hidden',
    '16,16',
    '--latent',
    '8',
  );
  assert.equal(e.code, 0, e.err);
  assert.deepEqual(readdirSync(emb).sort(), ['embed.json', 'embed.onnx']);
  const p = await cli(
    'train',
    'policy',
    '--data',
    data,
    '--embed',
    emb,
    '--out',
    bundle,
    '--steps',
    '40',
    '--batch',
    '64',
    '--hidden',
    '16,16',
    '--h-td',
    '4',
  );
  assert.equal(p.code, 0, p.err);
  assert.deepEqual(readdirSync(bundle).sort(), ['embed.onnx', 'manifest.json', 'policy.onnx']);
  assert.equal((await cli('model', 'check', bundle, '--world', 'pointmaze-medium')).code, 0);
  const ev = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--models',
    bundle,
    '--pairs',
    '100',
    '--trials',
    '4',
    '--json',
  );
  assert.equal(ev.code, 0, ev.err);
  const r = JSON.parse(ev.out) as { spearman: number; policy_success: number; pairs: number; trials: number };
  assert.equal(r.pairs, 100);
  assert.ok(
    Number.isInteger(r.policy_success * r.trials),
    `policy_success ${r.policy_success} is a count over ${r.trials} trials`,
  );
  // A trained embedding ranks distances better than one trained for a single step (same data, same seeds).
  const emb1 = join(dir, 'emb1'),
    bundle1 = join(dir, 'bundle1');
  assert.equal(
    (
      await cli(
        'train',
        'embed',
        '--data',
        data,
        '--out',
        emb1,
        '--steps',
        '1',
        '--batch',
        '64',
        '--hidden',
        '16,16',
        '--latent',
        '8',
      )
    ).code,
    0,
  );
  assert.equal(
    (
      await cli(
        'train',
        'policy',
        '--data',
        data,
        '--embed',
        emb1,
        '--out',
        bundle1,
        '--steps',
        '1',
        '--batch',
        '64',
        '--hidden',
        '16,16',
        '--h-td',
        '4',
      )
    ).code,
    0,
  );
  const ev1 = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--models',
    bundle1,
    '--pairs',
    '100',
    '--trials',
    '4',
    '--json',
  );
  const r1 = JSON.parse(ev1.out) as { spearman: number };
  assert.ok(r.spearman > r1.spearman + 0.03, `trained Spearman ${r.spearman} vs untrained ${r1.spearman}`);
  // bad input: the bundle is for another world; an embedding for another world; a folder with other files
  const wrong = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-large',
    '--models',
    bundle,
    '--pairs',
    '10',
    '--trials',
    '1',
  );
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /the models are for pointmaze-medium, not pointmaze-large/);
  const large = join(dir, 'large.wds');
  await cli('data', 'gen', 'pointmaze-large', '--kind', 'navigate', '--steps', '1000', '--out', large);
  const mismatch = await cli(
    'train',
    'policy',
    '--data',
    large,
    '--embed',
    emb,
    '--out',
    join(dir, 'b2'),
    '--steps',
    '2',
  );
  assert.equal(mismatch.code, 2);
  assert.match(
    mismatch.err,
    /embed\.json: world: the embedding is for pointmaze-medium, the dataset for pointmaze-large/,
  );
  writeFileSync(join(dir, 'keep.txt'), 'precious');
  const clobber = await cli(
    'train',
    'policy',
    '--data',
    data,
    '--embed',
    emb,
    '--out',
    dir,
    '--steps',
    '2',
    '--batch',
    '8',
    '--hidden',
    '4',
  );
  assert.equal(clobber.code, 2);
  assert.match(clobber.err, /exists and holds other files/);
  assert.ok(readdirSync(dir).includes('keep.txt'));
});

test('backbone eval --ahead --from-rest --radius: the shipped medium executor reaches states 40 steps ahead from rest; bad --ahead is bad input', async () => {
  // The mission-like check: from rest, around corners, accepted in task space.
  // Measured with 200 trials: medium 96.5 %, the path-distance giant variant 42.5 % (docs/BENCHMARKS.md).
  const ev = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--pairs',
    '50',
    '--trials',
    '20',
    '--ahead',
    '40',
    '--from-rest',
    '--radius',
    '0.5',
    '--json',
  );
  assert.equal(ev.code, 0, ev.err);
  const r = JSON.parse(ev.out) as {
    policy_success: number;
    ahead: number;
    from_rest: boolean;
    radius_m: number;
    budget_steps: number;
  };
  assert.deepEqual([r.ahead, r.from_rest, r.radius_m, r.budget_steps], [40, true, 0.5, 120]);
  assert.ok(r.policy_success >= 0.8, `shipped medium executor reached ${r.policy_success} of the trials`);
  // Aimed at ψ of the target's position at rest, as missions steer (measured with 200 trials: giant 99.5 % against 92.0
  // %).
  const atRest = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--pairs',
    '50',
    '--trials',
    '20',
    '--ahead',
    '40',
    '--from-rest',
    '--goal-at-rest',
    '--radius',
    '0.5',
    '--json',
  );
  assert.equal(atRest.code, 0, atRest.err);
  const q = JSON.parse(atRest.out) as { policy_success: number; goal_at_rest: boolean };
  assert.equal(q.goal_at_rest, true);
  assert.ok(
    q.policy_success >= 0.9,
    `aimed at rest, the shipped medium executor reached ${q.policy_success} of the trials`,
  );
  const zero = await cli('backbone', 'eval', '--world', 'pointmaze-medium', '--ahead', '0');
  assert.equal(zero.code, 2);
  assert.match(zero.err, /--ahead/);
  const far = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--pairs',
    '10',
    '--trials',
    '1',
    '--ahead',
    '99999',
  );
  assert.equal(far.code, 2);
  assert.match(far.err, /--ahead 99999: no held-out trajectory is that many steps long/);
});

test('backbone train reproduces a bundle in one command (tiny settings) that model check accepts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-backbone-'));
  const out = join(dir, 'models');
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--out',
    out,
    '--dataset-steps',
    '2000',
    '--embed-steps',
    '10',
    '--policy-steps',
    '10',
    '--seed',
    '3',
  );
  assert.equal(r.code, 0, r.err);
  const check = await cli('model', 'check', out, '--world', 'pointmaze-medium', '--json');
  assert.equal(check.code, 0, check.err);
  const m = JSON.parse(check.out) as { training: { command: string }; H_TD: number };
  assert.match(m.training.command, /^witness backbone train --world pointmaze-medium --dataset-steps 2000/);
  assert.equal(m.H_TD, 8);
});

test("backbone train --data trains on the given dataset of the world and refuses another world's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-backbone-data-'));
  const data = join(dir, 'drive.wds');
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'explore', '--steps', '2000', '--seed', '4', '--out', data))
      .code,
    0,
  );
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--data',
    data,
    '--out',
    join(dir, 'm'),
    '--embed-steps',
    '10',
    '--policy-steps',
    '10',
  );
  assert.equal(r.code, 0, r.err);
  const check = await cli('model', 'check', join(dir, 'm'), '--world', 'pointmaze-medium', '--json');
  const m = JSON.parse(check.out) as { training: { command: string; dataset: { file: string; transitions: number } } };
  assert.match(m.training.command, /--data drive\.wds/);
  assert.deepEqual([m.training.dataset.file, m.training.dataset.transitions], ['drive.wds', 2000]);
  const other = await cli('backbone', 'train', '--world', 'pointmaze-large', '--data', data, '--out', join(dir, 'n'));
  assert.equal(other.code, 2);
  assert.match(other.err, /drive\.wds: dataset is for world "pointmaze-medium", expected world "pointmaze-large"/);
  const both = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--data',
    data,
    '--dataset-steps',
    '5000',
    '--out',
    join(dir, 'o'),
  );
  assert.equal(both.code, 2);
  assert.match(both.err, /--data and --dataset-steps exclude each other/);
});

test("backbone train --dataset: trains on the regime's data and records it; eval draws its held-out data from the bundle's regime; a regime with no shipped bundle needs --out; a file of another regime is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-backbone-regime-'));
  const shipped = join(
    fileURLToPath(new URL('../../../assets/models', import.meta.url)),
    'pointmaze-medium',
    'manifest.json',
  );
  const before = readFileSync(shipped, 'utf8');
  // pointmaze-medium ships no stitch bundle: without --out nothing is generated or trained, and the navigate bundle
  // stays.
  const refused = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--dataset',
    'stitch',
    '--dataset-steps',
    '2000',
    '--embed-steps',
    '10',
    '--policy-steps',
    '10',
  );
  assert.equal(refused.code, 2);
  assert.match(refused.err, /--out: pointmaze-medium ships no stitch bundle .*assets\/models\/pointmaze-medium\)/);
  assert.equal(readFileSync(shipped, 'utf8'), before);
  const out = join(dir, 'stitch');
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--dataset',
    'stitch',
    '--out',
    out,
    '--dataset-steps',
    '3000',
    '--embed-steps',
    '10',
    '--policy-steps',
    '10',
    '--seed',
    '2',
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /witness backbone eval --world pointmaze-medium --dataset stitch --models /);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    training: { command: string; dataset: { kind: string; steps: number } };
  };
  assert.match(
    m.training.command,
    /^witness backbone train --world pointmaze-medium --dataset stitch --dataset-steps 3000 /,
  );
  assert.deepEqual([m.training.dataset.kind, m.training.dataset.steps], ['stitch', 3000]);
  const ev = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--models',
    out,
    '--pairs',
    '40',
    '--trials',
    '4',
    '--json',
  );
  assert.equal(ev.code, 0, ev.err);
  assert.equal((JSON.parse(ev.out) as { dataset: string }).dataset, 'stitch', "the bundle's own regime by default");
  const asked = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-medium',
    '--models',
    out,
    '--dataset',
    'explore',
    '--pairs',
    '40',
    '--trials',
    '4',
  );
  assert.equal(asked.code, 0, asked.err);
  assert.match(asked.out, /on 40 held-out explore pairs/);
  // A navigate file asked to train a stitch bundle.
  const data = join(dir, 'nav.wds');
  assert.equal(
    (await cli('data', 'gen', 'pointmaze-medium', '--kind', 'navigate', '--steps', '2000', '--out', data)).code,
    0,
  );
  const mismatch = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--data',
    data,
    '--dataset',
    'stitch',
    '--out',
    join(dir, 'x'),
  );
  assert.equal(mismatch.code, 2);
  assert.match(mismatch.err, /--dataset: .*nav\.wds holds a navigate dataset, not stitch/);
  const unknown = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-medium',
    '--dataset',
    'random',
    '--out',
    join(dir, 'y'),
  );
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /--dataset/);
  assert.deepEqual(readdirSync(dir).sort(), ['nav.wds', 'stitch'], 'nothing written by the refused runs');
});

test('the recorded command names only the flags given: the recipe sets the rest, so running it again trains the same bundle', () => {
  assert.equal(
    reproduceCommand({ world: 'antmaze-giant', data: '/tmp/x/giant.wds', seed: 0 }, 'navigate'),
    'witness backbone train --world antmaze-giant --data giant.wds --seed 0',
  );
  assert.equal(
    reproduceCommand(
      { world: 'antmaze-medium', datasetSteps: 5000, embedSteps: 10, policySteps: 20, seed: 3 },
      'stitch',
    ),
    'witness backbone train --world antmaze-medium --dataset stitch --dataset-steps 5000 --embed-steps 10 --policy-steps 20 --seed 3',
  );
  assert.equal(
    reproduceCommand({ world: 'pointmaze-giant', recipe: 'two-timescale', seed: 0 }, 'navigate'),
    'witness backbone train --world pointmaze-giant --recipe two-timescale --seed 0',
  );
});

test('policy training checkpoints and resumes through the CLI; a mismatched resume is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-pck-'));
  const data = join(dir, 'nav.wds'),
    emb = join(dir, 'emb'),
    ck = join(dir, 'p.ckpt');
  await cli('data', 'gen', 'pointmaze-medium', '--kind', 'navigate', '--steps', '2000', '--seed', '1', '--out', data);
  assert.equal(
    (
      await cli(
        'train',
        'embed',
        '--data',
        data,
        '--out',
        emb,
        '--steps',
        '20',
        '--batch',
        '32',
        '--hidden',
        '8',
        '--latent',
        '4',
      )
    ).code,
    0,
  );
  const common = ['--data', data, '--embed', emb, '--batch', '32', '--hidden', '8', '--h-td', '2'];
  assert.equal(
    (
      await cli(
        'train',
        'policy',
        ...common,
        '--out',
        join(dir, 'a'),
        '--steps',
        '10',
        '--checkpoint',
        ck,
        '--checkpoint-every',
        '5',
      )
    ).code,
    0,
  );
  const resumed = await cli('train', 'policy', ...common, '--out', join(dir, 'b'), '--steps', '20', '--resume', ck);
  assert.equal(resumed.code, 0, resumed.err);
  const bad = await cli(
    'train',
    'policy',
    ...common.slice(0, 6),
    '--hidden',
    '16',
    '--h-td',
    '2',
    '--out',
    join(dir, 'c'),
    '--steps',
    '20',
    '--resume',
    ck,
  );
  assert.equal(bad.code, 2);
  assert.match(bad.err, /cannot resume: the checkpoint was made with/);
});

test('train embed --calibrate rescales ψ so that a recorded H_TD-step offset spans ratio·H_TD latent units (median), and records it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-calibrate-'));
  const data = join(dir, 'nav.wds'),
    emb = join(dir, 'emb');
  assert.equal(
    (
      await cli(
        'data',
        'gen',
        'pointmaze-medium',
        '--kind',
        'navigate',
        '--steps',
        '3000',
        '--seed',
        '2',
        '--out',
        data,
      )
    ).code,
    0,
  );
  const e = await cli(
    'train',
    'embed',
    '--data',
    data,
    '--out',
    emb,
    '--steps',
    '50',
    '--batch',
    '64',
    '--hidden',
    '16,16',
    '--latent',
    '8',
    '--objective',
    'path-distance',
    '--calibrate',
    '0.9',
    '--h-td',
    '6',
  );
  assert.equal(e.code, 0, e.err);
  assert.match(e.out, /rescaled ×[0-9.]+ \(median 6-step offset [0-9.]+ → 0\.9 latent units per step\)/);
  const meta = JSON.parse(readFileSync(join(emb, 'embed.json'), 'utf8')) as {
    training: { calibration: { offset: number; measured: number; target: number; factor: number } };
    normalization: { mean: number[]; std: number[] };
  };
  assert.equal(meta.training.calibration.offset, 6);
  assert.equal(meta.training.calibration.target, 0.9);
  // The written model itself: its latents of the dataset have the median ratio asked for.
  const d = await readDataset(data);
  const got = await embedWithOnnx(readFileSync(join(emb, 'embed.onnx')), 'embed.onnx', d, meta.normalization, 8);
  assert.ok(
    Math.abs(medianOffsetRatio(got.latent, got.dim, d.terminals, 6) - 0.9) < 1e-3,
    String(medianOffsetRatio(got.latent, got.dim, d.terminals, 6)),
  );
  const bad = await cli(
    'train',
    'embed',
    '--data',
    data,
    '--out',
    join(dir, 'e2'),
    '--steps',
    '1',
    '--calibrate',
    '-1',
  );
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--calibrate/);
});

test("backbone train --help names every recipe variant it accepts, and each Ant maze's π_low width", async () => {
  const h = await cli('backbone', 'train', '--help');
  const text = (h.out + h.err).replace(/\s+/g, ' ');
  for (const name of Object.keys(BACKBONE_VARIANTS))
    assert.ok(text.includes(`'${name}'`), `--recipe help lacks '${name}'`);
  assert.match(text, /2×64 on antmaze-medium and 2×128 on antmaze-large, antmaze-giant and every stitch bundle/);
  // --dataset names every regime bundle that ships.
  for (const [world, regimes] of Object.entries(REGIME_RECIPES))
    for (const r of Object.keys(regimes))
      assert.ok(text.includes(`${world}-${r}`), `--dataset help lacks ${world}-${r}`);
});

test('backbone train --recipe path-distance: path-distance ψ 2×256, rescaled to 0.9 latent units per step at H_TD; an unknown recipe exits 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-giant-recipe-'));
  const out = join(dir, 'models');
  const bad = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-giant',
    '--out',
    out,
    '--recipe',
    'nope',
    '--dataset-steps',
    '3000',
  );
  assert.equal(bad.code, 2);
  assert.match(
    bad.err,
    /--recipe: unknown recipe "nope" \(known: shipped, path-distance, path-distance-far, two-timescale, expectile-td, ant-step-unit, ant-wide\)/,
  );
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-giant',
    '--recipe',
    'path-distance',
    '--out',
    out,
    '--dataset-steps',
    '3000',
    '--embed-steps',
    '5',
    '--policy-steps',
    '5',
    '--seed',
    '1',
  );
  assert.equal(r.code, 0, r.err);
  const check = await cli('model', 'check', out, '--world', 'pointmaze-giant', '--json');
  assert.equal(check.code, 0, check.err);
  const m = JSON.parse(check.out) as {
    training: {
      embed: { objective: string; hidden: number[]; calibration: { target: number; offset: number; factor: number } };
    };
  };
  assert.equal(m.training.embed.objective, 'path-distance');
  assert.deepEqual(m.training.embed.hidden, [256, 256]);
  assert.deepEqual([m.training.embed.calibration.target, m.training.embed.calibration.offset], [0.9, 8]);
  assert.ok(m.training.embed.calibration.factor > 0);
  // path-distance-far: the same ψ recipe, π_low trained on subgoals 24 latent units ahead (recorded in the manifest).
  const far = join(dir, 'far');
  const f = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-giant',
    '--recipe',
    'path-distance-far',
    '--out',
    far,
    '--dataset-steps',
    '3000',
    '--embed-steps',
    '5',
    '--policy-steps',
    '5',
    '--seed',
    '1',
  );
  assert.equal(f.code, 0, f.err);
  const fm = JSON.parse((await cli('model', 'check', far, '--world', 'pointmaze-giant', '--json')).out) as {
    H_TD: number;
    training: { command: string; policy: { subgoalHorizons: number[] } };
  };
  assert.deepEqual(fm.training.policy.subgoalHorizons, [24]);
  assert.equal(fm.H_TD, 8);
  assert.match(fm.training.command, /--recipe path-distance-far/);
});

test("backbone train --recipe two-timescale: ψ = [ψ_TD; 0.2·ψ_far] in a 64-D latent, rescaled to ψ_TD's unit at H_TD, recorded in the manifest", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-two-timescale-'));
  const out = join(dir, 'models');
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'pointmaze-giant',
    '--recipe',
    'two-timescale',
    '--out',
    out,
    '--dataset-steps',
    '3000',
    '--embed-steps',
    '5',
    '--policy-steps',
    '5',
    '--seed',
    '1',
  );
  assert.equal(r.code, 0, r.err);
  const check = await cli('model', 'check', out, '--world', 'pointmaze-giant', '--json');
  assert.equal(check.code, 0, check.err);
  const m = JSON.parse(check.out) as {
    dims: { latent: number };
    training: {
      command: string;
      embed: {
        objective: string;
        hidden: number[];
        far: { objective: string; hidden: number[]; scale: number; steps: number };
        calibration: { offset: number; target: number; factor: number };
      };
    };
  };
  assert.equal(m.dims.latent, 64);
  assert.equal(m.training.embed.objective, 'expectile-td');
  assert.deepEqual(m.training.embed.hidden, [64, 64]);
  assert.deepEqual(
    [
      m.training.embed.far.objective,
      m.training.embed.far.hidden,
      m.training.embed.far.scale,
      m.training.embed.far.steps,
    ],
    ['path-distance', [256, 256], 0.2, 5],
  );
  assert.equal(m.training.embed.calibration.offset, 8);
  assert.ok(m.training.embed.calibration.target > 0 && m.training.embed.calibration.factor > 0);
  assert.match(m.training.command, /--recipe two-timescale/);
  // The bundle runs: the evaluation embeds and acts with the 64-D latent.
  const ev = await cli(
    'backbone',
    'eval',
    '--world',
    'pointmaze-giant',
    '--models',
    out,
    '--pairs',
    '20',
    '--trials',
    '2',
    '--json',
  );
  assert.equal(ev.code, 0, ev.err);
});

test("backbone train --recipe ant-step-unit: the Ant's two timescales, the joined ψ rescaled to 0.5 latent units per recorded step", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ant-unit-'));
  const out = join(dir, 'models');
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'antmaze-medium',
    '--recipe',
    'ant-step-unit',
    '--out',
    out,
    '--dataset-steps',
    '2000',
    '--embed-steps',
    '5',
    '--policy-steps',
    '5',
    '--seed',
    '1',
  );
  assert.equal(r.code, 0, r.err);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    dims: { latent: number };
    normalization: { mean: number[]; std: number[] };
    training: {
      command: string;
      dataset: { steps: number; seed: number };
      embed: { far: { objective: string }; calibration: { offset: number; target: number } };
    };
  };
  // Both timescales survive the rescaling (64-D), and the recorded unit is the recipe's.
  assert.equal(m.dims.latent, 64);
  assert.equal(m.training.embed.far.objective, 'path-distance');
  assert.deepEqual([m.training.embed.calibration.offset, m.training.embed.calibration.target], [8, 0.5]);
  assert.match(m.training.command, /--recipe ant-step-unit/);
  // The written ψ measures 0.5 per step: the median 8-step offset of the same dataset, regenerated.
  const data = join(dir, 'nav.wds');
  const g = await cli(
    'data',
    'gen',
    'antmaze-medium',
    '--kind',
    'navigate',
    '--steps',
    '2000',
    '--seed',
    '1',
    '--out',
    data,
  );
  assert.equal(g.code, 0, g.err);
  const d = await readDataset(data);
  const e = await embedWithOnnx(
    new Uint8Array(readFileSync(join(out, 'embed.onnx'))),
    'embed.onnx',
    d,
    m.normalization,
    64,
  );
  const ratio = medianOffsetRatio(e.latent, 64, d.terminals, 8);
  assert.ok(Math.abs(ratio - 0.5) < 1e-3, `median offset ${ratio} per step, want 0.5`);
});

test('backbone train --world antmaze-medium follows the Ant recipe: two timescales on x, y alone, π_low by TD3+BC at α = 1; ψ ignores every other entry', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'witness-ant-recipe-'));
  const out = join(dir, 'models');
  const r = await cli(
    'backbone',
    'train',
    '--world',
    'antmaze-medium',
    '--out',
    out,
    '--dataset-steps',
    '2000',
    '--embed-steps',
    '5',
    '--policy-steps',
    '5',
    '--seed',
    '1',
  );
  assert.equal(r.code, 0, r.err);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    dims: { obs: number; latent: number };
    normalization: { mean: number[]; std: number[] };
    training: { embed: { inputs: number[]; far: { inputs: number[]; objective: string } }; policy: { alpha: number } };
  };
  assert.deepEqual([m.dims.obs, m.dims.latent], [29, 64]);
  assert.deepEqual(m.training.embed.inputs, [0, 1]);
  assert.deepEqual([m.training.embed.far.inputs, m.training.embed.far.objective], [[0, 1], 'path-distance']);
  assert.equal(m.training.policy.alpha, 1);
  // Two states at the same place, one at rest and one mid-stride (every joint, the height, the
  // orientation and the velocities changed): the same latent. Another place: another latent.
  const rest = Array.from({ length: 29 }, (_, j) => m.normalization.mean[j]!);
  const stride = rest.map((v, j) => (j < 2 ? v : v + 0.7 * m.normalization.std[j]!));
  const moved = rest.map((v, j) => (j === 0 ? v + 2 : v));
  const d = {
    obsDim: 29,
    actDim: 8,
    observations: Float32Array.from([...rest, ...stride, ...moved]),
    actions: new Float32Array(24),
    terminals: Uint8Array.from([0, 0, 1]),
  };
  const e = await embedWithOnnx(
    new Uint8Array(readFileSync(join(out, 'embed.onnx'))),
    'embed.onnx',
    d,
    m.normalization,
    m.dims.latent,
  );
  const at = (i: number): number[] => Array.from(e.latent.subarray(i * 64, i * 64 + 64));
  at(1).forEach((v, q) =>
    assert.ok(Math.abs(v - at(0)[q]!) < 1e-5, `latent entry ${q} moved with the joints: ${at(0)[q]} → ${v}`),
  );
  assert.ok(
    at(2).some((v, q) => Math.abs(v - at(0)[q]!) > 1e-3),
    'ψ must read the position',
  );
});
