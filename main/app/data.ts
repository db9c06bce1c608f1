/**
 * The offline data workflow: generate a dataset in a world, inspect one (transitions, coverage,
 * content hash), import and export OGBench-style .npz.
 */
import { basename } from 'node:path';
import { WitnessError } from '../contract/errors.js';
import { DATASET_KINDS, type DatasetKind } from '../contract/defaults.js';
import { binCoverage, cellCoverage, datasetGenerator, defaultConfig } from '../core/data/generators.js';
import { type Dataset, datasetStats } from '../core/data/dataset.js';
import { worldEntry } from '../backends/catalogue.js';
import { breathe } from '../platform/event-loop.js';
import { datasetHash, readDataset, writeDataset } from '../services/datasets/format.js';
import { exportNpz, importNpz } from '../services/datasets/npz.js';

/** A dataset regime as a caller gave it (a flag, an API field), checked: exit 2 naming `path` for an unknown one. */
export function checkedRegime(value: string | undefined, path = '--dataset'): DatasetKind | undefined {
  if (value === undefined || (DATASET_KINDS as readonly string[]).includes(value))
    return value as DatasetKind | undefined;
  throw new WitnessError('invalid-input', `${path}: unknown dataset regime '${value}' (${DATASET_KINDS.join(', ')})`, {
    path,
  });
}

const isNpz = (f: string): boolean => f.toLowerCase().endsWith('.npz');

/**
 * A dataset driven in a world's embedded simulator (deterministic: same arguments, same bytes); a
 * world without one — a robot — is refused with `refusal`.
 */
export async function simulateDataset(
  world: string,
  kind: DatasetKind,
  steps: number,
  seed: number,
  progress?: (done: number, total: number) => void,
  refusal = 'cannot generate datasets (the generators drive the maze worlds)',
): Promise<Dataset> {
  const e = worldEntry(world);
  if (e.stepper === undefined) throw new WitnessError('invalid-input', `${world} ${refusal}`);
  const sim = await e.stepper();
  try {
    // In slices, with a turn of the event loop every 50 ms (platform/event-loop.ts): the Ant simulates
    // about 1 400 rows a second, and a million must not shut out Ctrl-C; the rows are the same however sliced.
    const g = datasetGenerator(sim, world, defaultConfig(kind, steps, seed, sim.agent, sim.layout), progress);
    while (!g.run(64)) await breathe();
    return g.result();
  } finally {
    sim.close();
  }
}

/**
 * A dataset of `steps` transitions in a maze world (deterministic: same arguments, same bytes), written as .wds or
 * .npz.
 */
export async function generateData(
  world: string,
  o: { kind: DatasetKind; steps: number; seed: number; out: string; progress?: (done: number, total: number) => void },
): Promise<{
  transitions: number;
  trajectories: number;
  covered: number;
  free: number;
  seconds: number;
  report: DatasetReport | null;
}> {
  const layout = worldEntry(world).layout;
  if (layout === undefined)
    throw new WitnessError('invalid-input', `${world} cannot generate datasets (the generators drive the maze worlds)`);
  const started = Date.now();
  const d = await simulateDataset(world, o.kind, o.steps, o.seed, o.progress);
  if (isNpz(o.out)) await exportNpz(o.out, d);
  else await writeDataset(o.out, d);
  const cov = cellCoverage(layout, d.observations, d.obsDim);
  return {
    transitions: o.steps,
    trajectories: datasetStats(d).trajectories,
    covered: cov.covered,
    free: cov.free,
    seconds: (Date.now() - started) / 1000,
    report: reportOf(d),
  };
}

/** What a generated dataset's report counts (falls, stalls), when it has one (datasets of bodies that can fall). */
export interface DatasetReport {
  readonly episodes: number;
  readonly flips: number;
  readonly stalls: number;
  /** The rows where they happened (the first 1000 of each). */
  readonly flipRows: readonly number[];
  readonly stallRows: readonly number[];
}

function reportOf(d: Dataset): DatasetReport | null {
  const r = d.report;
  if (r === undefined) return null;
  const n = (k: string): number => (typeof r[k] === 'number' ? r[k] : 0);
  const rows = (k: string): number[] =>
    Array.isArray(r[k]) ? (r[k] as unknown[]).filter((x): x is number => typeof x === 'number') : [];
  return {
    episodes: n('episodes'),
    flips: n('flips'),
    stalls: n('stalls'),
    flipRows: rows('flipRows'),
    stallRows: rows('stallRows'),
  };
}

/** One line for people: the falls and stalls a dataset's report counts. */
export function reportLine(r: DatasetReport): string {
  return `${r.flips} flip${r.flips === 1 ? '' : 's'} (episodes ended on the Ant's back) and ${r.stalls} stall${r.stalls === 1 ? '' : 's'} of the expert in ${r.episodes} episodes`;
}

export interface DatasetInfo {
  readonly file: string;
  readonly world: string;
  readonly transitions: number;
  readonly trajectories: number;
  readonly obsDim: number;
  readonly actDim: number;
  readonly coverage: { covered: number; free: number; fraction: number; bins1m: number } | null;
  readonly sha256: string;
  readonly generator: Dataset['generator'];
  readonly seed: Dataset['seed'];
  /** Falls and stalls while it was recorded (null: the dataset carries no report). */
  readonly report: DatasetReport | null;
}

/** Transitions, trajectories, coverage of free cells and content hash of a .wds (or .npz with its world). */
export async function datasetInfo(file: string, world?: string): Promise<DatasetInfo> {
  if (isNpz(file) && world === undefined)
    throw new WitnessError('invalid-input', 'an .npz file carries no world: give --world');
  const d = isNpz(file)
    ? await importNpz(file, { worldId: world! })
    : await readDataset(file, world ? { expectWorld: world } : {});
  const stats = datasetStats(d);
  let coverage: DatasetInfo['coverage'] = null;
  try {
    const layout = worldEntry(d.worldId).layout;
    if (layout !== undefined)
      coverage = {
        ...cellCoverage(layout, d.observations, d.obsDim),
        bins1m: binCoverage(layout, d.observations, d.obsDim),
      };
  } catch {
    coverage = null;
  }
  return {
    file: basename(file),
    world: d.worldId,
    transitions: stats.transitions,
    trajectories: stats.trajectories,
    obsDim: d.obsDim,
    actDim: d.actDim,
    coverage,
    sha256: datasetHash(d),
    generator: d.generator,
    seed: d.seed,
    report: reportOf(d),
  };
}

/** An OGBench-style .npz into our format; its arrays must have the world's observation and action sizes. */
export async function importData(file: string, o: { world: string; out: string }): Promise<{ transitions: number }> {
  const spec = worldEntry(o.world).spec;
  const d = await importNpz(file, { worldId: o.world });
  for (const [what, have, want] of [
    ['observations', d.obsDim, spec.observation.dim],
    ['actions', d.actDim, spec.action.dim],
  ] as const) {
    // A dimension of 0 is a world whose size is not fixed in advance (a tool world): nothing to hold it to.
    if (want > 0 && have !== want)
      throw new WitnessError(
        'invalid-input',
        `${file}: ${what} have ${have} values a row, but ${o.world} has ${want} (${spec.observation.dim}-D observations, ${spec.action.dim}-D actions)`,
        { file, path: what },
      );
  }
  await writeDataset(o.out, d);
  return { transitions: datasetStats(d).transitions };
}

/** A dataset as OGBench-style .npz. */
export async function exportData(file: string, out: string): Promise<{ transitions: number }> {
  const d = await readDataset(file);
  await exportNpz(out, d);
  return { transitions: datasetStats(d).transitions };
}

export { importBag as importBagData, bagInfo } from './bag-import.js';
export { isBagPath } from '../services/datasets/rosbag2/bag.js';
