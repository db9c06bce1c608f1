// Every shipped backbone (assets/models/<world>) was trained by its world's recipe, so that
// `witness backbone train --world <world>` reproduces what ships: a bundle trained with other widths,
// steps or α than the recipe names fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backboneRecipe } from '../../main/contract/defaults.js';

const MODELS = fileURLToPath(new URL('../../../assets/models', import.meta.url));

interface Manifest {
  world: string; H_TD: number; dims: { latent: number };
  training: { command: string; embed: { hidden: number[]; steps: number; latent: number; inputs?: number[]; far?: unknown }; policy: { hidden: number[]; steps: number; alpha: number } };
}

const bundles = readdirSync(MODELS).filter((d) => !d.startsWith('.'));

test('the shipped bundles are the six mazes', () => {
  assert.deepEqual(bundles.sort(), ['antmaze-giant', 'antmaze-large', 'antmaze-medium', 'pointmaze-giant', 'pointmaze-large', 'pointmaze-medium']);
});

for (const world of bundles) {
  test(`${world}: the shipped bundle follows the world's recipe`, () => {
    const m = JSON.parse(readFileSync(join(MODELS, world, 'manifest.json'), 'utf8')) as Manifest;
    const r = backboneRecipe(world);
    assert.equal(m.world, world);
    assert.equal(m.H_TD, r.H_TD);
    assert.deepEqual(m.training.policy.hidden, [...r.policyHidden], 'π_low widths');
    assert.equal(m.training.policy.steps, r.policySteps, 'π_low steps');
    assert.equal(m.training.policy.alpha, r.policyAlpha, 'π_low α');
    assert.deepEqual(m.training.embed.hidden, [...r.hidden], 'ψ widths');
    assert.equal(m.training.embed.steps, r.embedSteps, 'ψ steps');
    assert.deepEqual(m.training.embed.inputs ?? null, r.embedInputs === null ? null : [...r.embedInputs], 'ψ inputs');
    assert.equal(m.training.embed.far !== undefined, r.far !== null, 'second timescale');
    assert.equal(m.dims.latent, r.latent * (r.far !== null ? 2 : 1), 'latent size');
    assert.match(m.training.command, new RegExp(`^witness backbone train --world ${world} `));
  });
}
