/** `witness train …`: learning the reachability backbone from a dataset. */
import { join } from 'node:path';
import { Command } from 'commander';
import { EMBED_DEFAULTS, POLICY_DEFAULTS } from '../contract/defaults.js';
import { CliError, type Output } from './errors.js';
import { action, intFlag, numberFlag, strictInteger } from './flags.js';
import { progressBar } from './progress.js';

const train = (): Promise<typeof import('../app/train.js')> => import('../app/train.js');

function sizes(v: string): number[] {
  const xs = v.split(',').map(strictInteger);
  if (xs.some((x) => x === null || x < 1))
    throw new CliError(`--hidden must be comma-separated positive integers, got '${v}'`);
  return xs as number[];
}

interface CheckpointFlags {
  checkpoint?: string;
  checkpointEvery: number;
  resume?: string;
}
const checkpointOf = (o: CheckpointFlags) => ({
  every: o.checkpointEvery,
  ...(o.checkpoint !== undefined ? { file: o.checkpoint } : {}),
  ...(o.resume !== undefined ? { resume: o.resume } : {}),
});

const checkpoints = (c: Command, what: string): Command =>
  c
    .option('--checkpoint <file>', 'write a checkpoint here every --checkpoint-every steps')
    .option('--checkpoint-every <n>', 'steps between checkpoints', intFlag('--checkpoint-every', 1), 1000)
    .option('--resume <file>', `continue ${what} from this checkpoint (same settings; --steps may grow)`);

function registerTrainEmbed(cmd: Command, io: Output, setExit: (c: number) => void): void {
  checkpoints(
    cmd
      .command('embed')
      .description(
        'train the temporal-distance embedding ψ (expectile TD on V(s,g) = −‖ψ(s) − ψ(g)‖); writes embed.onnx and embed.json',
      )
      .requiredOption('--data <file>', 'the dataset (.wds)')
      .requiredOption('--out <dir>', 'output folder')
      .option('--steps <n>', 'gradient steps', intFlag('--steps', 1), EMBED_DEFAULTS.steps)
      .option('--batch <n>', 'batch size', intFlag('--batch', 1), EMBED_DEFAULTS.batch)
      .option('--hidden <sizes>', 'hidden layer widths', sizes, [...EMBED_DEFAULTS.hidden])
      .option('--latent <n>', 'latent dimension d_h', intFlag('--latent', 1), EMBED_DEFAULTS.latent)
      .option(
        '--gamma <x>',
        'discount γ of the temporal distance (its horizon is 1/(1 − γ) steps)',
        numberFlag('--gamma', 0.5, 0.9999),
        EMBED_DEFAULTS.gamma,
      )
      .option(
        '--objective <name>',
        "'expectile-td' (TD fit of the discounted distance) or 'path-distance' (steps along the recorded trajectories, low expectile)",
        (v: string) => {
          if (v !== 'expectile-td' && v !== 'path-distance')
            throw new CliError(`--objective must be expectile-td or path-distance, got '${v}'`);
          return v;
        },
        'expectile-td',
      )
      .option(
        '--path-bound',
        "raise the TD target to the recorded path's return for goals later on the same trajectory",
      )
      .option(
        '--calibrate <ratio>',
        "rescale ψ after training so that a recorded H_TD-step offset spans ratio·H_TD latent units (median); the pipeline's latent thresholds are read against H_TD",
        numberFlag('--calibrate', 1e-6, 1e6),
      )
      .option('--h-td <n>', 'with --calibrate: the offset H_TD in steps', intFlag('--h-td', 1), POLICY_DEFAULTS.H_TD)
      .option('--seed <n>', 'seed', intFlag('--seed', 0), EMBED_DEFAULTS.seed),
    'training',
  ).action(
    action(
      io,
      setExit,
      async (
        o: {
          data: string;
          out: string;
          steps: number;
          batch: number;
          hidden: number[];
          latent: number;
          gamma: number;
          objective: 'expectile-td' | 'path-distance';
          pathBound?: boolean;
          calibrate?: number;
          hTd: number;
          seed: number;
        } & CheckpointFlags,
      ) => {
        const bar = progressBar(io, 'train embed');
        const r = await (
          await train()
        ).trainEmbedFiles({
          data: o.data,
          out: o.out,
          config: {
            steps: o.steps,
            batch: o.batch,
            hidden: o.hidden,
            latent: o.latent,
            gamma: o.gamma,
            objective: o.objective,
            pathBound: o.pathBound === true,
            seed: o.seed,
          },
          checkpoint: checkpointOf(o),
          progress: bar,
          ...(o.calibrate !== undefined ? { calibrate: { target: o.calibrate, H_TD: o.hTd } } : {}),
        });
        const cal = r.calibration
          ? `; rescaled ×${r.calibration.factor.toFixed(4)} (median ${r.calibration.offset}-step offset ${r.calibration.measured.toFixed(3)} → ${r.calibration.target} latent units per step)`
          : '';
        io.out(
          `wrote ${join(o.out, 'embed.onnx')} and embed.json: ${o.steps} steps, final loss ${r.finalLoss.toFixed(4)}, ${r.seconds.toFixed(0)} s${cal}\n`,
        );
      },
    ),
  );
}

function registerTrainPolicy(cmd: Command, io: Output, setExit: (c: number) => void): void {
  checkpoints(
    cmd
      .command('policy')
      .description(
        'train the executor π_low (DDPG+BC with the directional reward) on an embedding; writes the full model bundle',
      )
      .requiredOption('--data <file>', 'the dataset (.wds)')
      .requiredOption(
        '--embed <dir>',
        'folder with embed.onnx and embed.json (from `train embed`, or trained elsewhere)',
      )
      .requiredOption('--out <dir>', 'bundle folder to write (embed.onnx, policy.onnx, manifest.json)')
      .option('--steps <n>', 'gradient steps', intFlag('--steps', 1), POLICY_DEFAULTS.steps)
      .option('--batch <n>', 'batch size', intFlag('--batch', 1), POLICY_DEFAULTS.batch)
      .option('--hidden <sizes>', 'hidden layer widths', sizes, [...POLICY_DEFAULTS.hidden])
      .option(
        '--h-td <n>',
        'subgoal horizon H_TD in latent units',
        numberFlag('--h-td', 1e-9, 1e9),
        POLICY_DEFAULTS.H_TD,
      )
      .option('--seed <n>', 'seed', intFlag('--seed', 0), POLICY_DEFAULTS.seed),
    'training',
  ).action(
    action(
      io,
      setExit,
      async (
        o: {
          data: string;
          embed: string;
          out: string;
          steps: number;
          batch: number;
          hidden: number[];
          hTd: number;
          seed: number;
        } & CheckpointFlags,
      ) => {
        const bar = progressBar(io, 'train policy');
        const r = await (
          await train()
        ).trainPolicyBundle({
          data: o.data,
          embed: o.embed,
          out: o.out,
          config: { steps: o.steps, batch: o.batch, hidden: o.hidden, H_TD: o.hTd, seed: o.seed },
          checkpoint: checkpointOf(o),
          progress: bar,
        });
        io.out(
          `wrote ${o.out}: embed.onnx, policy.onnx, manifest.json (${o.steps} policy steps, ${r.seconds.toFixed(0)} s)\n`,
        );
      },
    ),
  );
}

export function trainCommand(io: Output, setExit: (c: number) => void): Command {
  const cmd = new Command('train').description(
    'learn the reachability backbone (embedding ψ, executor π_low) from a dataset',
  );
  registerTrainEmbed(cmd, io, setExit);
  registerTrainPolicy(cmd, io, setExit);
  return cmd;
}
