/** `witness data …`: offline trajectory datasets. */
import { Command, Option } from 'commander';
import { DATASET_KINDS, type DatasetKind } from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { progressBar } from './progress.js';

const seedFlag = intFlag('--seed', 0, 2 ** 31 - 1);
const data = (): Promise<typeof import('../app/data.js')> => import('../app/data.js');

export function dataCommand(io: Output, setExit: (c: number) => void): Command {
  const cmd = new Command('data').description('offline trajectory datasets: generate, inspect, import and export');
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);

  cmd
    .command('gen')
    .description('generate a dataset in a world (deterministic: same arguments, same bytes)')
    .argument('<world>', 'world id, e.g. pointmaze-medium')
    .addOption(new Option('--kind <kind>', 'regime').choices([...DATASET_KINDS]).makeOptionMandatory())
    .requiredOption('--steps <n>', 'transitions to record', intFlag('--steps', 1))
    .option('--seed <n>', 'seed', seedFlag, 0)
    .requiredOption('--out <file>', 'output file (.wds, or .npz for OGBench format)')
    .action((world: string, o: { kind: DatasetKind; steps: number; seed: number; out: string }) => run(async () => {
      const r = await (await data()).generateData(world, { ...o, progress: progressBar(io, `${o.kind} ${world}`) });
      io.out(`wrote ${o.out}: ${r.transitions} transitions, ${r.trajectories} trajectories, ${r.covered}/${r.free} free cells covered, ${r.seconds.toFixed(1)} s\n`);
    })());

  cmd
    .command('info')
    .description('transitions, trajectories, coverage of free cells and content hash of a dataset')
    .argument('<file>', 'a .wds file (or .npz with --world)')
    .option('--world <id>', 'the world of an .npz file (required for .npz; checked for .wds)')
    .option('--json', 'print JSON')
    .action((file: string, o: { world?: string; json?: boolean }) => run(async () => {
      const info = await (await data()).datasetInfo(file, o.world);
      if (o.json) io.out(JSON.stringify(info, null, 2) + '\n');
      else {
        io.out(`${info.file}: world ${info.world}, ${info.transitions} transitions in ${info.trajectories} trajectories\n`);
        const c = info.coverage;
        if (c) io.out(`coverage: ${c.covered}/${c.free} free cells (${(c.fraction * 100).toFixed(1)}%), ${(c.bins1m * 100).toFixed(1)}% of 1 m² bins\n`);
        io.out(`sha256: ${info.sha256}\ngenerator: ${JSON.stringify(info.generator)}\n`);
      }
    })());

  cmd
    .command('import')
    .description('import an OGBench-style .npz into our format')
    .argument('<npz>', 'the .npz file')
    .requiredOption('--world <id>', 'the world the trajectories belong to')
    .requiredOption('--out <file>', 'the .wds file to write')
    .action((file: string, o: { world: string; out: string }) => run(async () => {
      const r = await (await data()).importData(file, o);
      io.out(`wrote ${o.out}: ${r.transitions} transitions\n`);
    })());

  cmd
    .command('export')
    .description('export a dataset as OGBench-style .npz')
    .argument('<file>', 'the .wds file')
    .requiredOption('--out <npz>', 'the .npz file to write')
    .action((file: string, o: { out: string }) => run(async () => {
      const r = await (await data()).exportData(file, o.out);
      io.out(`wrote ${o.out}: ${r.transitions} transitions\n`);
    })());
  return cmd;
}
