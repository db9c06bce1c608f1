/** `witness data …`: offline trajectory datasets. */
import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { PointMazeSim, layoutOf } from '../backends/mujoco/pointmaze.js';
import { DATASET_KINDS, type DatasetKind, binCoverage, cellCoverage, defaultConfig, generateDataset } from '../core/data/generators.js';
import { datasetStats } from '../core/data/dataset.js';
import { datasetHash, readDataset, writeDataset } from '../services/datasets/format.js';
import { exportNpz, importNpz } from '../services/datasets/npz.js';
import { CliError, type Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { progressBar } from './progress.js';

const seedFlag = intFlag('--seed', 0, 2 ** 31 - 1);

const isNpz = (f: string): boolean => f.toLowerCase().endsWith('.npz');

export function dataCommand(io: Output, setExit: (c: number) => void): Command {
  const data = new Command('data').description('offline trajectory datasets: generate, inspect, import and export');
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);

  data
    .command('gen')
    .description('generate a dataset in a world (deterministic: same arguments, same bytes)')
    .argument('<world>', 'world id, e.g. pointmaze-medium')
    .addOption(new Option('--kind <kind>', 'regime').choices([...DATASET_KINDS]).makeOptionMandatory())
    .requiredOption('--steps <n>', 'transitions to record', intFlag('--steps', 1))
    .option('--seed <n>', 'seed', seedFlag, 0)
    .requiredOption('--out <file>', 'output file (.wds, or .npz for OGBench format)')
    .action((world: string, o: { kind: DatasetKind; steps: number; seed: number; out: string }) => run(async () => {
      layoutOf(world);
      const sim = await PointMazeSim.create(world);
      try {
        const started = Date.now();
        const d = generateDataset(sim, world, defaultConfig(o.kind, o.steps, o.seed), progressBar(io, `${o.kind} ${world}`));
        if (isNpz(o.out)) await exportNpz(o.out, d);
        else await writeDataset(o.out, d);
        const cov = cellCoverage(sim.layout, d.observations, d.obsDim);
        io.out(`wrote ${o.out}: ${o.steps} transitions, ${datasetStats(d).trajectories} trajectories, ${cov.covered}/${cov.free} free cells covered, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      } finally {
        sim.close();
      }
    })());

  data
    .command('info')
    .description('transitions, trajectories, coverage of free cells and content hash of a dataset')
    .argument('<file>', 'a .wds file (or .npz with --world)')
    .option('--world <id>', 'the world of an .npz file (required for .npz; checked for .wds)')
    .option('--json', 'print JSON')
    .action((file: string, o: { world?: string; json?: boolean }) => run(async () => {
      if (isNpz(file) && o.world === undefined) throw new CliError('an .npz file carries no world: give --world');
      const d = isNpz(file) ? await importNpz(file, { worldId: o.world! }) : await readDataset(file, o.world ? { expectWorld: o.world } : {});
      const stats = datasetStats(d);
      let coverage: { covered: number; free: number; fraction: number; bins1m: number } | null = null;
      try {
        const layout = layoutOf(d.worldId);
        coverage = { ...cellCoverage(layout, d.observations, d.obsDim), bins1m: binCoverage(layout, d.observations, d.obsDim) };
      } catch {
        coverage = null;
      }
      const info = {
        file: basename(file), world: d.worldId, transitions: stats.transitions, trajectories: stats.trajectories,
        obsDim: d.obsDim, actDim: d.actDim, coverage, sha256: datasetHash(d), generator: d.generator, seed: d.seed,
      };
      if (o.json) io.out(JSON.stringify(info, null, 2) + '\n');
      else {
        io.out(`${info.file}: world ${info.world}, ${info.transitions} transitions in ${info.trajectories} trajectories\n`);
        if (coverage) io.out(`coverage: ${coverage.covered}/${coverage.free} free cells (${(coverage.fraction * 100).toFixed(1)}%), ${(coverage.bins1m * 100).toFixed(1)}% of 1 m² bins\n`);
        io.out(`sha256: ${info.sha256}\ngenerator: ${JSON.stringify(info.generator)}\n`);
      }
    })());

  data
    .command('import')
    .description('import an OGBench-style .npz into our format')
    .argument('<npz>', 'the .npz file')
    .requiredOption('--world <id>', 'the world the trajectories belong to')
    .requiredOption('--out <file>', 'the .wds file to write')
    .action((file: string, o: { world: string; out: string }) => run(async () => {
      layoutOf(o.world);
      const d = await importNpz(file, { worldId: o.world });
      await writeDataset(o.out, d);
      io.out(`wrote ${o.out}: ${datasetStats(d).transitions} transitions\n`);
    })());

  data
    .command('export')
    .description('export a dataset as OGBench-style .npz')
    .argument('<file>', 'the .wds file')
    .requiredOption('--out <npz>', 'the .npz file to write')
    .action((file: string, o: { out: string }) => run(async () => {
      const d = await readDataset(file);
      await exportNpz(o.out, d);
      io.out(`wrote ${o.out}: ${datasetStats(d).transitions} transitions\n`);
    })());
  return data;
}
