/** `witness train …`: learning the reachability backbone from a dataset. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { Command } from 'commander';
import { readDataset, datasetHash } from '../services/datasets/format.js';
import { DEFAULT_EMBED, trainEmbedding } from '../services/training/embed-trainer.js';
import { DEFAULT_POLICY, trainPolicy } from '../services/training/policy-trainer.js';
import { type Checkpoint, readCheckpoint, writeCheckpoint } from '../services/training/checkpoint.js';
import { BundleError, bundleManifest, embedWithOnnx, readEmbedJson, writeBundle } from '../services/training/bundle.js';
import { embedOnnx, policyOnnx } from '../services/models/onnx-writer.js';
import { MODEL_FILES, ModelError } from '../core/models/manifest.js';
import { readFileSync } from 'node:fs';
import { CliError, type Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { progressBar } from './progress.js';


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
    .option('--checkpoint <file>', 'write a checkpoint here every --checkpoint-every steps')
    .option('--checkpoint-every <n>', 'steps between checkpoints', intFlag('--checkpoint-every', 1), 1000)
    .option('--resume <file>', 'continue from this checkpoint (same settings; --steps may grow)')
    .action(action(io, setExit, async (o: { data: string; out: string; steps: number; batch: number; hidden: number[]; latent: number; seed: number; checkpoint?: string; checkpointEvery: number; resume?: string }) => {
      const d = await readDataset(o.data);
      const config = { ...DEFAULT_EMBED, steps: o.steps, batch: o.batch, hidden: o.hidden, latent: o.latent, seed: o.seed };
      const bar = progressBar(io, 'train embed');
      const started = Date.now();
      const resume = o.resume !== undefined ? await readCheckpoint(o.resume, 'embed') : undefined;
      const t = await trainEmbedding(d, config, (s, total) => bar(s, total), {
        ...(resume ? { resume } : {}),
        ...(o.checkpoint !== undefined ? { checkpointEvery: o.checkpointEvery, onCheckpoint: (ck: Checkpoint) => writeCheckpoint(o.checkpoint!, ck) } : {}),
      }).catch((e: unknown) => {
        if (e instanceof RangeError) throw new CliError(`${o.resume ?? o.data}: ${e.message}`);
        throw e;
      });
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
    }));
  train
    .command('policy')
    .description('train the executor π_low (DDPG+BC with the directional reward) on an embedding; writes the full model bundle')
    .requiredOption('--data <file>', 'the dataset (.wds)')
    .requiredOption('--embed <dir>', 'folder with embed.onnx and embed.json (from `train embed`, or trained elsewhere)')
    .requiredOption('--out <dir>', 'bundle folder to write (embed.onnx, policy.onnx, manifest.json)')
    .option('--steps <n>', 'gradient steps', intFlag('--steps', 1), DEFAULT_POLICY.steps)
    .option('--batch <n>', 'batch size', intFlag('--batch', 1), DEFAULT_POLICY.batch)
    .option('--hidden <sizes>', 'hidden layer widths', sizes, [...DEFAULT_POLICY.hidden])
    .option('--h-td <n>', 'subgoal horizon H_TD in latent units', (v: string) => Number(v), DEFAULT_POLICY.H_TD)
    .option('--seed <n>', 'seed', intFlag('--seed', 0), DEFAULT_POLICY.seed)
    .option('--checkpoint <file>', 'write a checkpoint here every --checkpoint-every steps')
    .option('--checkpoint-every <n>', 'steps between checkpoints', intFlag('--checkpoint-every', 1), 1000)
    .option('--resume <file>', 'continue from this checkpoint (same settings; --steps may grow)')
    .action(action(io, setExit, async (o: { data: string; embed: string; out: string; steps: number; batch: number; hidden: number[]; hTd: number; seed: number; checkpoint?: string; checkpointEvery: number; resume?: string }) => {
      if (!(o.hTd > 0)) throw new CliError(`--h-td must be a positive number, got ${o.hTd}`);
      const d = await readDataset(o.data);
      const meta = readEmbedJson(join(o.embed, 'embed.json'));
      if (meta.world !== d.worldId) throw new ModelError(join(o.embed, 'embed.json'), 'world', `the embedding is for ${meta.world}, the dataset for ${d.worldId}`);
      const embedBytes = new Uint8Array(readFileSync(join(o.embed, 'embed.onnx')));
      const embedded = await embedWithOnnx(embedBytes, join(o.embed, 'embed.onnx'), d, meta.normalization, meta.dims.latent);
      const config = { ...DEFAULT_POLICY, steps: o.steps, batch: o.batch, hidden: o.hidden, H_TD: o.hTd, seed: o.seed };
      const bar = progressBar(io, 'train policy');
      const started = Date.now();
      const resume = o.resume !== undefined ? await readCheckpoint(o.resume, 'policy') : undefined;
      const p = await trainPolicy(d, embedded, config, (st, total) => bar(st, total), {
        ...(resume ? { resume } : {}),
        ...(o.checkpoint !== undefined ? { checkpointEvery: o.checkpointEvery, onCheckpoint: (ck: Checkpoint) => writeCheckpoint(o.checkpoint!, ck) } : {}),
      }).catch((e: unknown) => {
        if (e instanceof RangeError) throw new CliError(`${o.resume ?? o.data}: ${e.message}`);
        throw e;
      });
      const policyBytes = policyOnnx(p.mlp, d.obsDim, meta.dims.latent);
      const files: Record<(typeof MODEL_FILES)[number], Uint8Array> = { 'embed.onnx': embedBytes, 'policy.onnx': policyBytes };
      const manifest = bundleManifest(d, basename(o.data), meta.dims.latent, o.hTd, meta.normalization, {
        embed: meta.training, policy: { objective: 'ddpg+bc', ...config, finalCriticLoss: p.finalCriticLoss, seconds: (Date.now() - started) / 1000 },
      }, files);
      try {
        writeBundle(o.out, files, manifest);
      } catch (e) {
        if (e instanceof BundleError) throw new CliError(`--out ${e.message}`);
        throw e;
      }
      io.out(`wrote ${o.out}: embed.onnx, policy.onnx, manifest.json (${o.steps} policy steps, ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }));
  return train;
}

