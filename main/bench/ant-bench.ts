/**
 * The Ant benchmark: simulation and control steps per second (an open arena as the baseline, then
 * each Ant maze), the scripted expert's counted trials (open-space waypoints without and with
 * action noise; start–goal pairs through a maze with noise), and the time to generate a navigate
 * dataset, with its falls and stalls.
 */
import { ANT_WORLDS, type AntWorld } from '../contract/defaults.js';
import { WitnessError } from '../contract/errors.js';
import { antMazeMjcf } from '../core/world/ant-mjcf.js';
import { binCoverage, cellCoverage, defaultConfig, generateDataset } from '../core/data/generators.js';
import { type TrialCounts, median, mazePairTrials, openArena, openSpaceTrials } from '../core/data/ant-trials.js';
import { AntMazeSim } from '../backends/mujoco/antmaze.js';
import { antMazeRates } from '../backends/mujoco/antmaze-bench.js';
import { fmt } from './stats.js';

export interface AntBenchOptions {
  readonly simSteps: number;
  readonly waypoints: number;
  readonly pairs: number;
  readonly noise: number;
  readonly datasetSteps: number;
  /** The maze of the start–goal pairs and of the dataset. */
  readonly world: string;
  readonly progress?: (label: string) => void;
}

const trialRow = (what: string, noise: number, t: TrialCounts): string =>
  `| ${what} | ${fmt(noise, 2)} | ${t.reached}/${t.trials} | ${t.flips} | ${t.timeouts} | ${t.stalls} | ${fmt(median(t.steps), 0)} | ${fmt(t.speed_m_s, 2)} |`;

export async function runAntBench(o: AntBenchOptions): Promise<string> {
  if (!(ANT_WORLDS as readonly string[]).includes(o.world))
    throw new WitnessError('invalid-input', `--world: unknown Ant maze '${o.world}' (${ANT_WORLDS.join(', ')})`, {
      path: '--world',
    });
  const world = o.world as AntWorld;
  const lines: string[] = [];
  const [base, ...mazes] = await antMazeRates(o.simSteps, o.progress);
  lines.push(
    '| scene | geoms | sim steps/s (standing) | vs open arena | control steps/s (frame skip 5, gait walking) |',
    '|---|---|---|---|---|',
  );
  lines.push(`| ${base!.scene} | ${base!.geoms} | ${fmt(base!.raw, 0)} | 1.00 | ${fmt(base!.control, 0)} |`);
  for (const r of mazes)
    lines.push(`| ${r.scene} | ${r.geoms} | ${fmt(r.raw, 0)} | ${fmt(r.raw / base!.raw, 2)} | ${fmt(r.control, 0)} |`);

  lines.push(
    '',
    '| expert trial | action noise σ | reached | flips | timeouts | stalls | median steps | m/s |',
    '|---|---|---|---|---|---|---|---|',
  );
  const arena = openArena(10);
  const open = await AntMazeSim.create(
    'antmaze-medium',
    {},
    { text: antMazeMjcf(arena), source: arena.id, layout: arena },
  );
  try {
    for (const noise of [0, o.noise]) {
      o.progress?.(`open-space waypoints, noise ${noise}`);
      lines.push(
        trialRow(
          'open-space waypoints (2–4 m, within 0.5 m, 300 steps)',
          noise,
          openSpaceTrials(open, { waypoints: o.waypoints, noise, seed: 1 }),
        ),
      );
    }
  } finally {
    open.close();
  }
  const sim = await AntMazeSim.create(world);
  try {
    o.progress?.(`${world} start–goal pairs`);
    lines.push(
      trialRow(
        `${world} start–goal pairs (within 1 m, 2000 steps)`,
        o.noise,
        mazePairTrials(sim, { pairs: o.pairs, noise: o.noise, seed: 1 }),
      ),
    );
    o.progress?.(`${world} navigate, ${o.datasetSteps} transitions`);
    const t0 = performance.now();
    const d = generateDataset(sim, world, defaultConfig('navigate', o.datasetSteps, 0, sim.agent, sim.layout));
    const s = (performance.now() - t0) / 1000;
    const r = d.report as { episodes: number; flips: number; stalls: number };
    const cov = cellCoverage(sim.layout, d.observations, d.obsDim);
    lines.push(
      '',
      '| dataset | transitions | seconds | transitions/s | episodes | flips | stalls | free cells covered | 1 m² bins covered |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    lines.push(
      `| ${world} navigate (seed 0) | ${o.datasetSteps} | ${fmt(s, 1)} | ${fmt(o.datasetSteps / s, 0)} | ${r.episodes} | ${r.flips} | ${r.stalls} | ${cov.covered}/${cov.free} | ${fmt(binCoverage(sim.layout, d.observations, d.obsDim) * 100, 0)}% |`,
    );
  } finally {
    sim.close();
  }
  return lines.join('\n');
}
