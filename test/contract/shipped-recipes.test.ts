// Every shipped backbone was trained by its recipe, so that `witness backbone train --world <world>`
// (with `--dataset <regime>` for a regime's own bundle, assets/models/<world>-<regime>) reproduces
// what ships: a bundle trained with other widths, steps, α or data than the recipe names fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DATASET_KINDS,
  type DatasetKind,
  MISSION_WORLDS,
  REGIME_RECIPES,
  backboneRecipe,
  shippedBundleName,
  shippedBundleNames,
  trainedRegime,
} from '../../main/contract/defaults.js';

const MODELS = fileURLToPath(new URL('../../../assets/models', import.meta.url));

interface Manifest {
  world: string;
  H_TD: number;
  dims: { latent: number };
  training: {
    command: string;
    dataset: Record<string, unknown>;
    embed: { hidden: number[]; steps: number; latent: number; inputs?: number[]; far?: unknown };
    policy: { hidden: number[]; steps: number; alpha: number };
  };
}

const bundles = readdirSync(MODELS).filter((d) => !d.startsWith('.'));

/** Every (world, regime) whose bundle ships: each world's navigate one, and those REGIME_RECIPES names. */
const shipped: { name: string; world: string; regime: DatasetKind }[] = MISSION_WORLDS.flatMap((world) =>
  DATASET_KINDS.filter((k) => k === 'navigate' || shippedBundleName(world, k) !== world).map((regime) => ({
    name: shippedBundleName(world, regime),
    world,
    regime,
  })),
);

test("the shipped bundles are the six mazes and the Ant mazes' stitch bundles", () => {
  assert.deepEqual(bundles.sort(), [
    'antmaze-giant',
    'antmaze-large',
    'antmaze-large-stitch',
    'antmaze-medium',
    'antmaze-medium-stitch',
    'pointmaze-giant',
    'pointmaze-large',
    'pointmaze-medium',
  ]);
  assert.deepEqual(
    shipped.map((s) => s.name).sort(),
    bundles.sort(),
    'REGIME_RECIPES names the regime bundles that ship',
  );
});

test("a regime without a bundle of its own runs on the world's navigate bundle", () => {
  assert.equal(shippedBundleName('antmaze-medium', 'explore'), 'antmaze-medium');
  assert.equal(shippedBundleName('antmaze-medium', 'stitch'), 'antmaze-medium-stitch');
  assert.equal(shippedBundleName('pointmaze-medium', 'stitch'), 'pointmaze-medium');
  assert.equal(shippedBundleName('antmaze-large'), 'antmaze-large');
  assert.deepEqual(shippedBundleNames('antmaze-medium'), ['antmaze-medium', 'antmaze-medium-stitch']);
  assert.deepEqual(shippedBundleNames('pointmaze-giant'), ['pointmaze-giant']);
  // The regime's recipe is the world's own where none is named.
  assert.equal(backboneRecipe('antmaze-giant', undefined, 'stitch'), backboneRecipe('antmaze-giant'));
  assert.notEqual(backboneRecipe('antmaze-medium', undefined, 'stitch'), backboneRecipe('antmaze-medium'));
  assert.equal(backboneRecipe('antmaze-medium', undefined, 'stitch'), REGIME_RECIPES['antmaze-medium']!.stitch);
});

for (const { name, world, regime } of shipped) {
  test(`${name}: the shipped bundle follows the recipe of ${world}'s ${regime} bundle`, () => {
    const m = JSON.parse(readFileSync(join(MODELS, name, 'manifest.json'), 'utf8')) as Manifest;
    const r = backboneRecipe(world, undefined, regime);
    assert.equal(m.world, world);
    assert.equal(trainedRegime(m.training), regime, "trained on the regime's own data");
    const generator = m.training.dataset['generator'] as { steps?: number; seed?: number } | undefined;
    assert.equal(generator?.steps ?? m.training.dataset['steps'], r.datasetSteps, 'dataset transitions');
    assert.equal(generator?.seed ?? m.training.dataset['seed'], 0, 'dataset seed');
    assert.equal(m.H_TD, r.H_TD);
    assert.deepEqual(m.training.policy.hidden, [...r.policyHidden], 'π_low widths');
    assert.equal(m.training.policy.steps, r.policySteps, 'π_low steps');
    assert.equal(m.training.policy.alpha, r.policyAlpha, 'π_low α');
    assert.deepEqual(m.training.embed.hidden, [...r.hidden], 'ψ widths');
    assert.equal(m.training.embed.steps, r.embedSteps, 'ψ steps');
    assert.deepEqual(m.training.embed.inputs ?? null, r.embedInputs === null ? null : [...r.embedInputs], 'ψ inputs');
    assert.equal(m.training.embed.far !== undefined, r.far !== null, 'second timescale');
    assert.equal(m.dims.latent, r.latent * (r.far !== null ? 2 : 1), 'latent size');
    assert.equal((m.training.embed.far as { steps?: number } | undefined)?.steps, r.far?.steps, 'second ψ steps');
    // The recorded command trains this bundle again: the flags it names agree with what was trained.
    assert.match(m.training.command, new RegExp(`^witness backbone train --world ${world} `));
    const flag = (name: string): string | undefined => m.training.command.match(new RegExp(`--${name} (\\S+)`))?.[1];
    assert.equal(flag('dataset') ?? 'navigate', regime, '--dataset');
    const named = flag('recipe');
    if (named !== undefined)
      assert.deepEqual(backboneRecipe(world, named, regime), r, '--recipe names the same recipe');
    const embedSteps = flag('embed-steps');
    if (embedSteps !== undefined) {
      assert.equal(Number(embedSteps), m.training.embed.steps, '--embed-steps');
      if (r.far !== null) assert.equal(Number(embedSteps), r.far.steps, '--embed-steps also sets the second ψ');
    }
    const policySteps = flag('policy-steps');
    if (policySteps !== undefined) assert.equal(Number(policySteps), m.training.policy.steps, '--policy-steps');
    assert.equal(flag('seed'), '0');
  });
}
