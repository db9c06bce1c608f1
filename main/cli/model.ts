/** `witness model …`: the ONNX model bundles (embedding ψ and executor π_low). */
import { Command } from 'commander';
import type { Output } from './errors.js';
import { action } from './flags.js';

export function modelCommand(io: Output, setExit: (c: number) => void): Command {
  const model = new Command('model').description('ONNX model bundles: embed.onnx, policy.onnx and manifest.json');
  model
    .command('check')
    .description('load a bundle and check the manifest, hashes, input/output names, dtypes and shapes')
    .argument('<dir>', 'folder with embed.onnx, policy.onnx and manifest.json')
    .option('--world <id>', 'fail unless the models are for this world')
    .option('--json', 'print the manifest as JSON')
    .action(
      action(io, setExit, async (dir: string, o: { world?: string; json?: boolean }) => {
        const m = await (await import('../app/train.js')).checkBundle(dir, o.world);
        const { dims, H_TD, world } = m;
        if (o.json) io.out(JSON.stringify(m, null, 2) + '\n');
        else
          io.out(
            `${dir}: models for ${world}: obs ${dims.obs} → latent ${dims.latent}; (obs, direction) → action ${dims.action}; H_TD ${H_TD}; hashes and shapes check out\n`,
          );
      }),
    );
  return model;
}
