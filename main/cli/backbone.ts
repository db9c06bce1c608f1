/** `witness backbone …`: measured quality of a reachability backbone (ψ and π_low). */
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { PointMazeSim, layoutOf } from '../backends/mujoco/pointmaze.js';
import { defaultConfig, generateDataset } from '../core/data/generators.js';
import { loadModels } from '../services/models/bundle.js';
import { policySuccess, spearmanOnPairs } from '../services/training/evaluate.js';
import { CliError, EXIT, type Output, report } from './errors.js';

/** Held-out data come from a seed no training command uses by default. */
const HELD_OUT_SEED = 1_000_003;

export function defaultModelsDir(world: string): string {
  return fileURLToPath(new URL(`../../../assets/models/${world}`, import.meta.url));
}

function intFlag(flag: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be an integer ≥ ${min}, got '${v}'`);
    return n;
  };
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
    .option('--json', 'print JSON')
    .action(async (o: { world: string; models?: string; pairs: number; trials: number; json?: boolean }) => {
      try {
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
          const budget = 5 * Math.ceil(models.manifest.H_TD), epsilon = models.manifest.H_TD / 4;
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
        setExit(EXIT.ok);
      } catch (e) {
        setExit(report(e, io));
      }
    });
  return backbone;
}
