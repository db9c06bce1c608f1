/** `witness data …`: offline trajectory datasets. */
import { Command, Option } from 'commander';
import { DATASET_KINDS, type DatasetKind } from '../contract/defaults.js';
import type { Output } from './errors.js';
import { CliError } from './errors.js';
import { action, intFlag, numberFlag } from './flags.js';
import { progressBar } from './progress.js';
import { printable, printableJson } from './printable.js';

interface ImportFlags {
  world: string;
  out: string;
  poseTopic?: string;
  actionTopic?: string;
  rate?: number;
  maxGap?: number;
  stamp: 'header' | 'receive';
  frame?: string;
  child?: string;
}
/** The import flags a bag takes and an .npz refuses (--stamp has a default, so it is not among them). */
const BAG_FLAGS = ['poseTopic', 'actionTopic', 'rate', 'maxGap', 'frame', 'child'] as const;

const seedFlag = intFlag('--seed', 0, 2 ** 31 - 1);
const data = (): Promise<typeof import('../app/data.js')> => import('../app/data.js');

function registerDataGen(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);
  cmd
    .command('gen')
    .description('generate a dataset in a world (deterministic: same arguments, same bytes)')
    .argument('<world>', 'world id, e.g. pointmaze-medium or antmaze-medium')
    .addOption(new Option('--kind <kind>', 'regime').choices([...DATASET_KINDS]).makeOptionMandatory())
    .requiredOption('--steps <n>', 'transitions to record', intFlag('--steps', 1))
    .option('--seed <n>', 'seed', seedFlag, 0)
    .requiredOption('--out <file>', 'output file (.wds, or .npz for OGBench format)')
    .action((world: string, o: { kind: DatasetKind; steps: number; seed: number; out: string }) =>
      run(async () => {
        const d = await data();
        const r = await d.generateData(world, { ...o, progress: progressBar(io, `${o.kind} ${world}`) });
        io.out(
          `wrote ${o.out}: ${r.transitions} transitions, ${r.trajectories} trajectories, ${r.covered}/${r.free} free cells covered, ${r.seconds.toFixed(1)} s\n`,
        );
        if (r.report !== null)
          io.out(`report: ${d.reportLine(r.report)} (rows in the file's header: witness data info --json)\n`);
      })(),
    );
}

function registerDataInfo(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);
  cmd
    .command('info')
    .description(
      'transitions, trajectories, coverage of free cells and content hash of a dataset; or what a rosbag2 bag holds (storage, distro, time range, topics and their counts)',
    )
    .argument(
      '<file>',
      'a .wds file (or .npz with --world), or a rosbag2 bag (a directory, metadata.yaml, .mcap or .db3)',
    )
    .option('--world <id>', 'the world of an .npz file (required for .npz; checked for .wds)')
    .option('--json', 'print JSON')
    .action((file: string, o: { world?: string; json?: boolean }) =>
      run(async () => {
        const d = await data();
        if (!file.toLowerCase().endsWith('.wds') && !file.toLowerCase().endsWith('.npz') && d.isBagPath(file)) {
          if (o.world !== undefined) throw new CliError(`--world: only for a dataset, not for a rosbag2 bag (${file})`);
          const b = await d.bagInfo(file);
          if (o.json) {
            io.out(printableJson(b, 2) + '\n');
            return;
          }
          const total = b.topics.every((t) => t.messages !== null)
            ? b.topics.reduce((a, t) => a + t.messages!, 0)
            : null;
          io.out(
            `${printable(`${b.bag}: rosbag2 bag, ${b.storage}${b.distro !== null ? `, ${b.distro}` : ''}${b.metadataVersion !== null ? `, metadata.yaml version ${b.metadataVersion}` : ''}${total !== null ? `, ${total} messages` : ''}${b.timeRange !== null ? `, received ${b.timeRange.start} to ${b.timeRange.end}` : ''}`)}\n`,
          );
          // Topic names, types and the distro are the bag's text.
          for (const t of b.topics)
            io.out(
              `${printable(`  ${t.name}  ${t.type || '(no type)'}  ${t.messages ?? '?'} messages${t.serialization !== 'cdr' ? `  (${t.serialization})` : ''}${t.role !== null ? `  [${t.role} topic for data import]` : ''}`)}\n`,
            );
          if (b.topics.length === 0) io.out('  (no topics)\n');
          io.out(
            `import: witness data import ${file} --world W --pose-topic T --action-topic T --out D.wds (docs/FORMATS.md, "Datasets from rosbag2")\n`,
          );
          return;
        }
        const info = await d.datasetInfo(file, o.world);
        if (o.json) io.out(printableJson(info, 2) + '\n');
        else {
          io.out(
            `${printable(`${info.file}: world ${info.world}, ${info.transitions} transitions in ${info.trajectories} trajectories`)}\n`,
          );
          const c = info.coverage;
          if (c)
            io.out(
              `coverage: ${c.covered}/${c.free} free cells (${(c.fraction * 100).toFixed(1)}%), ${(c.bins1m * 100).toFixed(1)}% of 1 m² bins\n`,
            );
          io.out(`sha256: ${info.sha256}\ngenerator: ${printableJson(info.generator)}\n`);
          if (info.report !== null) io.out(`report: ${d.reportLine(info.report)}\n`);
        }
      })(),
    );
}

function registerDataImport(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);
  cmd
    .command('import')
    .description(
      'import an OGBench-style .npz, or a rosbag2 recording (a bag directory, .mcap or .db3) of a robot driving, into our format',
    )
    .argument('<file>', 'the .npz file, or the bag')
    .requiredOption('--world <id>', 'the world the trajectories belong to')
    .requiredOption('--out <file>', 'the .wds file to write')
    .option(
      '--pose-topic <topic>',
      'bag: the pose (nav_msgs/msg/Odometry, geometry_msgs/msg/PoseStamped, or tf2_msgs/msg/TFMessage with --frame and --child)',
    )
    .option('--action-topic <topic>', 'bag: the velocity command (geometry_msgs/msg/Twist or TwistStamped)')
    .option(
      '--rate <hz>',
      "bag: rows per second (default: the pose topic's median rate; TF: its chain's fastest edge's)",
      numberFlag('--rate', 1e-3, 1e4),
    )
    .option(
      '--max-gap <s>',
      'bag: a longer gap between poses, or a command older than this, ends an episode (default: max(0.5, 5 / rate))',
      numberFlag('--max-gap', 1e-6, 1e6),
    )
    .addOption(
      new Option('--stamp <source>', 'bag: time messages by their header stamp or by when the recorder received them')
        .choices(['header', 'receive'])
        .default('header'),
    )
    .option(
      '--frame <frame>',
      "bag, TF pose: the world's frame (e.g. map); the pose is the chain from it to --child through /tf and /tf_static",
    )
    .option('--child <frame>', "bag, TF pose: the robot's frame (e.g. base_link)")
    .action((file: string, o: ImportFlags) =>
      run(async () => {
        const d = await data();
        const bagFlags = BAG_FLAGS.filter((k) => o[k] !== undefined).map(
          (k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        );
        const isNpz = file.toLowerCase().endsWith('.npz');
        // A bag by its name or its flags; anything else is read as an .npz, with that reader's errors.
        if (isNpz || (bagFlags.length === 0 && !d.isBagPath(file))) {
          if (bagFlags.length > 0)
            throw new CliError(`${bagFlags.join(', ')}: only for a rosbag2 bag, not for an .npz file (${file})`);
          const r = await d.importData(file, o);
          io.out(`wrote ${o.out}: ${r.transitions} transitions\n`);
          return;
        }
        for (const k of ['poseTopic', 'actionTopic'] as const) {
          if (o[k] === undefined)
            throw new CliError(
              `${file} is read as a rosbag2 bag: give --${k === 'poseTopic' ? 'pose-topic' : 'action-topic'} (or an .npz file)`,
            );
        }
        const r = await d.importBagData(file, {
          ...o,
          poseTopic: o.poseTopic!,
          actionTopic: o.actionTopic!,
          stamp: o.stamp,
          progress: progressBar(io, `import ${file}`),
        });
        io.out(
          `wrote ${o.out}: ${r.transitions} transitions in ${r.episodes} episode${r.episodes === 1 ? '' : 's'} at ${r.rate.toPrecision(4)} Hz from ${r.messages} messages (${r.storage}${r.distro !== null ? `, ${r.distro}` : ''})${r.clipped > 0 ? `; ${r.clipped} action values clipped to the world's range` : ''}, ${r.seconds.toFixed(1)} s\n`,
        );
        if (r.outside > 0) {
          const span = (v: readonly [number, number]): string => `${v[0].toFixed(2)} … ${v[1].toFixed(2)}`;
          io.err(
            `warning: ${r.outside} of ${r.transitions} rows lie outside ${o.world}'s free cells (in a wall or off the maze; positions x ${span(r.extent.x)}, y ${span(r.extent.y)} m): the pose is taken in the maze's frame as the bag has it, so choose a pose topic (or --frame) in that frame (docs/FORMATS.md)\n`,
          );
        }
      })(),
    );
}

function registerDataExport(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const run = (body: () => Promise<number | void>) => action(io, setExit, body);
  cmd
    .command('export')
    .description('export a dataset as OGBench-style .npz')
    .argument('<file>', 'the .wds file')
    .requiredOption('--out <npz>', 'the .npz file to write')
    .action((file: string, o: { out: string }) =>
      run(async () => {
        const r = await (await data()).exportData(file, o.out);
        io.out(`wrote ${o.out}: ${r.transitions} transitions\n`);
      })(),
    );
}

export function dataCommand(io: Output, setExit: (c: number) => void): Command {
  const cmd = new Command('data').description('offline trajectory datasets: generate, inspect, import and export');
  registerDataGen(cmd, io, setExit);
  registerDataInfo(cmd, io, setExit);
  registerDataImport(cmd, io, setExit);
  registerDataExport(cmd, io, setExit);
  return cmd;
}
