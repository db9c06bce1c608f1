/** `witness backbone …`: measured quality of a reachability backbone (ψ and π_low). */
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { PointMazeSim, layoutOf } from '../backends/mujoco/pointmaze.js';
import { defaultConfig, generateDataset } from '../core/data/generators.js';
import { loadModels, writeModels } from '../services/models/bundle.js';
import { DEFAULT_EMBED, trainEmbedding } from '../services/training/embed-trainer.js';
import { DEFAULT_POLICY, embedDataset, trainPolicy } from '../services/training/policy-trainer.js';
import { datasetHash } from '../services/datasets/format.js';
import { progressBar } from './progress.js';
import { policySuccess, spearmanOnPairs } from '../services/training/evaluate.js';
import { CliError, type Output } from './errors.js';
import { action, intFlag } from './flags.js';

/** Held-out data come from a seed no training command uses by default. */
const HELD_OUT_SEED = 1_000_003;

export function defaultModelsDir(world: string): string {
  return fileURLToPath(new URL(`../../../assets/models/${world}`, import.meta.url));
}


export function backboneCommand(io: Output, setExit: (c: number) => void): Command {
  const backbone = new Command('backbone').description('the reachability backbone: embedding ψ and executor π_low');
  backbone
    .command('eval')
    .description('Spearman of ‖ψ(s) − ψ(g)‖ against true geodesic distance on held-out pairs, and π_low success at reaching waypoints H_TD away')
    .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
    .option('--models <dir>', 'model bundle (default: assets/models/<world>)')
    .option('--pairs <n>', 'held-out state pairs', intFlag('--pairs', 10), 2000)
    .option('--trials <n>', 'executor trials in the simulator', intFlag('--trials', 1), 200)
    .option('--epsilon <x>', 'a waypoint counts as reached within this latent distance (default H_TD/2, the graph node radius)', (v: string) => Number(v))
    .option('--budget <n>', 'tracking budget in steps (default 5·H_TD)', intFlag('--budget', 1))
    .option('--json', 'print JSON')
    .action(action(io, setExit, async (o: { world: string; models?: string; pairs: number; trials: number; epsilon?: number; budget?: number; json?: boolean }) => {
      const layout = layoutOf(o.world);
      const models = await loadModels(o.models ?? defaultModelsDir(o.world), { expectWorld: o.world });
      const sim = await PointMazeSim.create(o.world);
      try {
        const heldOut = generateDataset(sim, o.world, defaultConfig('navigate', 20000, HELD_OUT_SEED));
        const b = {
          latentDim: models.manifest.dims.latent, H_TD: models.manifest.H_TD,
          embed: (x: Float32Array, rows: number) => models.embed(x, rows),
          act: (x: Float32Array, z: Float32Array, rows: number) => models.act(x, z, rows),
        };
        const rho = await spearmanOnPairs(b, layout, heldOut, o.pairs, HELD_OUT_SEED);
        // A waypoint is reached when ψ(s) is within the graph's node radius H_TD/2 of it: the latent
        // also encodes velocity, so a tighter radius fails agents that stand on the waypoint at
        // another speed than the recorded state had.
        const budget = o.budget ?? 5 * Math.ceil(models.manifest.H_TD);
        const epsilon = o.epsilon ?? models.manifest.H_TD / 2;
        if (!(epsilon > 0)) throw new CliError(`--epsilon must be a positive number, got ${String(o.epsilon)}`);
        const ps = await policySuccess(b, sim, heldOut, o.trials, HELD_OUT_SEED, budget, epsilon);
        const result = {
          world: o.world, spearman: rho, pairs: o.pairs, policy_success: ps.success, trials: o.trials,
          budget_steps: budget, epsilon, mean_steps_to_reach: ps.meanSteps, H_TD: models.manifest.H_TD,
        };
        if (o.json) io.out(JSON.stringify(result) + '\n');
        else io.out(`${o.world}: spearman ${rho.toFixed(3)} on ${o.pairs} held-out pairs (goal ≥ 0.9); executor reached ${(ps.success * 100).toFixed(1)}% of ${o.trials} waypoints at latent distance H_TD=${models.manifest.H_TD} within ${budget} steps (goal ≥ 95%)\n`);
      } finally {
        sim.close();
        await models.close();
      }
    }));
  backbone
    .command('train')
    .description('reproduce a shipped backbone from scratch: generate a navigate dataset, train ψ and π_low, write the bundle, evaluate')
    .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
    .option('--out <dir>', 'bundle folder (default: assets/models/<world>)')
    .option('--dataset-steps <n>', 'navigate transitions to generate', intFlag('--dataset-steps', 1000), BACKBONE_RECIPE.datasetSteps)
    .option('--embed-steps <n>', 'embedding gradient steps', intFlag('--embed-steps', 1), BACKBONE_RECIPE.embedSteps)
    .option('--policy-steps <n>', 'executor gradient steps', intFlag('--policy-steps', 1), BACKBONE_RECIPE.policySteps)
    .option('--seed <n>', 'seed of the dataset and of training', intFlag('--seed', 0), 0)
    .action(action(io, setExit, async (o: { world: string; out?: string; datasetSteps: number; embedSteps: number; policySteps: number; seed: number }) => {
      layoutOf(o.world);
      const started = Date.now();
      const sim = await PointMazeSim.create(o.world);
      let d;
      try {
        d = generateDataset(sim, o.world, defaultConfig('navigate', o.datasetSteps, o.seed), progressBar(io, 'dataset'));
      } finally {
        sim.close();
      }
      const r = BACKBONE_RECIPE;
      const embedConfig = { ...DEFAULT_EMBED, hidden: r.hidden, latent: r.latent, batch: r.batch, steps: o.embedSteps, seed: o.seed };
      const barE = progressBar(io, 'train embed');
      const e = await trainEmbedding(d, embedConfig, (st, total) => barE(st, total));
      const policyConfig = { ...DEFAULT_POLICY, hidden: r.hidden, batch: r.batch, steps: o.policySteps, H_TD: r.H_TD, seed: o.seed };
      const barP = progressBar(io, 'train policy');
      const p = await trainPolicy(d, embedDataset(d, e.mlp, e.normalization), policyConfig, (st, total) => barP(st, total));
      const out = o.out ?? defaultModelsDir(o.world);
      await writeModels(out, { embed: e.mlp, policy: p.mlp }, {
        world: o.world, dims: { obs: d.obsDim, latent: r.latent, action: d.actDim }, H_TD: r.H_TD, normalization: e.normalization,
        training: {
          command: `witness backbone train --world ${o.world} --dataset-steps ${o.datasetSteps} --embed-steps ${o.embedSteps} --policy-steps ${o.policySteps} --seed ${o.seed}`,
          embed: { objective: 'expectile-td', ...embedConfig, finalLoss: e.finalLoss },
          policy: { objective: 'ddpg+bc', ...policyConfig, finalCriticLoss: p.finalCriticLoss },
          dataset: { kind: 'navigate', steps: o.datasetSteps, seed: o.seed },
          seconds: (Date.now() - started) / 1000,
        },
        dataset: { sha256: datasetHash(d) },
      });
      io.out(`wrote ${out} in ${((Date.now() - started) / 60000).toFixed(1)} min; evaluate it with: witness backbone eval --world ${o.world}${o.out ? ` --models ${out}` : ''}\n`);
    }));
  return backbone;
}

/** The recipe of the shipped models: sized to train from scratch within 30 minutes on two cores. */
export const BACKBONE_RECIPE = {
  datasetSteps: 1_000_000, embedSteps: 15_000, policySteps: 30_000, hidden: [64, 64], latent: 32, batch: 256, H_TD: 8,
} as const;
