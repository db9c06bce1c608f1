/** `witness train …`: learning the reachability backbone from a dataset. */
import { writeFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { Command } from 'commander';
import { readDataset, datasetHash } from '../services/datasets/format.js';
import { DEFAULT_EMBED, trainEmbedding } from '../services/training/embed-trainer.js';
import { embedOnnx } from '../services/models/onnx-writer.js';
import { CliError, EXIT, type Output, report } from './errors.js';
import { progressBar } from './progress.js';

function intFlag(flag: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be an integer ≥ ${min}, got '${v}'`);
    return n;
  };
}

function sizes(v: string): number[] {
  const xs = v.split(',').map(Number);
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1)) throw new CliError(`--hidden must be comma-separated positive integers, got '${v}'`);
  return xs;
}

export function trainCommand(io: Output, setExit: (c: number) => void): Command {
  const train = new Command('train').description('learn the reachability backbone (embedding ψ, executor π_low) from a dataset');
  train
    .command('embed')
    .description('train the temporal-distance embedding ψ (expectile TD on V(s,g) = −‖ψ(s) − ψ(g)‖); writes embed.onnx and embed.json')
    .requiredOption('--data <file>', 'the dataset (.wds)')
    .requiredOption('--out <dir>', 'output folder')
    .option('--steps <n>', 'gradient steps', intFlag('--steps', 1), DEFAULT_EMBED.steps)
    .option('--batch <n>', 'batch size', intFlag('--batch', 1), DEFAULT_EMBED.batch)
    .option('--hidden <sizes>', 'hidden layer widths', sizes, [...DEFAULT_EMBED.hidden])
    .option('--latent <n>', 'latent dimension d_h', intFlag('--latent', 1), DEFAULT_EMBED.latent)
    .option('--seed <n>', 'seed', intFlag('--seed', 0), DEFAULT_EMBED.seed)
    .action(async (o: { data: string; out: string; steps: number; batch: number; hidden: number[]; latent: number; seed: number }) => {
      try {
        const d = await readDataset(o.data);
        const config = { ...DEFAULT_EMBED, steps: o.steps, batch: o.batch, hidden: o.hidden, latent: o.latent, seed: o.seed };
        const bar = progressBar(io, 'train embed');
        const started = Date.now();
        const t = await trainEmbedding(d, config, (s, total) => bar(s, total));
        mkdirSync(o.out, { recursive: true });
        // Write into a temporary sibling folder, then move the files: nothing half-written on failure.
        const tmp = join(dirname(o.out), `.${basename(o.out)}.tmp-${process.pid}`);
        mkdirSync(tmp, { recursive: true });
        try {
          writeFileSync(join(tmp, 'embed.onnx'), embedOnnx(t.mlp));
          writeFileSync(join(tmp, 'embed.json'), JSON.stringify({
            world: d.worldId, dims: { obs: d.obsDim, latent: o.latent }, normalization: t.normalization,
            training: { objective: 'expectile-td', ...config, finalLoss: t.finalLoss, seconds: (Date.now() - started) / 1000 },
            dataset: { sha256: datasetHash(d), file: basename(o.data) },
          }, null, 2) + '\n');
          for (const f of ['embed.onnx', 'embed.json']) renameSync(join(tmp, f), join(o.out, f));
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
        io.out(`wrote ${join(o.out, 'embed.onnx')} and embed.json: ${o.steps} steps, final loss ${t.finalLoss.toFixed(4)}, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        setExit(EXIT.ok);
      } catch (e) {
        setExit(report(e, io));
      }
    });
  return train;
}
