/** `witness bench …`: benchmark commands that print figures with ratios against in-process baselines. */
import { Command } from 'commander';
import { runLtlBench } from '../services/bench/ltl-bench.js';
import { runWorldBench } from '../services/bench/world-bench.js';
import type { Output } from './errors.js';
import { action, intFlag } from './flags.js';


export function benchCommand(io: Output, setExit: (c: number) => void): Command {
  const bench = new Command('bench').description('benchmarks (figures for docs/BENCHMARKS.md)');
  bench
    .command('ltl')
    .description('LTL → Büchi translation: time p50/p95 and automaton size on the SAGAS suites and GF-n / F-n')
    .option('--count <n>', 'formulas per difficulty suite', intFlag('--count', 1, 10_000), 100)
    .option('--seed <n>', 'seed of the suite generator', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option('--family-max <n>', 'largest n for GF-n and F-n', intFlag('--family-max', 2, 16), 12)
    .option('--ltl2ba <path>', 'an ltl2ba binary to compare sizes with (default: $LTL2BA if set)')
    .option('--baseline-time-limit-ms <n>', 'time budget of each plain Gastin–Oddoux baseline run', intFlag('--baseline-time-limit-ms', 1, 600_000), 5000)
    .option('--json', 'print every measurement as JSON instead of tables')
    .action(action(io, setExit, (o: { count: number; seed: number; familyMax: number; ltl2ba?: string; baselineTimeLimitMs: number; json?: boolean }) => {
      const ltl2ba = o.ltl2ba ?? process.env['LTL2BA'];
      const started = Date.now();
      const { markdown, goals, measurements } = runLtlBench({
        count: o.count,
        seed: o.seed,
        familyMax: o.familyMax,
        baselineTimeLimit_ms: o.baselineTimeLimitMs,
        ...(ltl2ba ? { ltl2ba } : {}),
        progress: (done, total, label) => {
          if (process.stderr.isTTY) io.err(`\r[${'#'.repeat(Math.round((done / total) * 30)).padEnd(30)}] ${done}/${total} ${label.padEnd(12)}`);
          else if (done === total || done % 50 === 0) io.err(`${done}/${total} ${label}\n`);
        },
      });
      if (process.stderr.isTTY) io.err('\n');
      if (o.json) {
        io.out(JSON.stringify(measurements.map((m) => ({ suite: m.item.suite, id: m.item.id, ms: m.ms, states: m.states, transitions: m.transitions, baseline: m.baseline, reference: m.reference })), null, 1) + '\n');
      } else {
        io.out(`# witness bench ltl --count ${o.count} --seed ${o.seed} --family-max ${o.familyMax}${ltl2ba ? ' --ltl2ba <ltl2ba>' : ''}\n\n${markdown}\n\n`);
        io.out(goals.map((g) => `- ${g}`).join('\n') + `\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; GO = plain Gastin–Oddoux in the same process)\n`);
      }
    }));
  bench
    .command('world')
    .description('simulator steps/s per scene (vs an open room), dataset generation time and coverage per regime')
    .option('--sim-steps <n>', 'simulation steps per measurement', intFlag('--sim-steps', 1000, 100_000_000), 200_000)
    .option('--dataset-steps <n>', 'transitions per generated dataset', intFlag('--dataset-steps', 1000, 100_000_000), 200_000)
    .option('--navigate-medium-steps <n>', 'transitions for navigate on pointmaze-medium', intFlag('--navigate-medium-steps', 1000, 100_000_000), 1_000_000)
    .action(action(io, setExit, async (o: { simSteps: number; datasetSteps: number; navigateMediumSteps: number }) => {
      const started = Date.now();
      const table = await runWorldBench({ ...o, progress: (label) => io.err(`bench world: ${label}\n`) });
      io.out(`# witness bench world --sim-steps ${o.simSteps} --dataset-steps ${o.datasetSteps} --navigate-medium-steps ${o.navigateMediumSteps}\n\n${table}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`);
    }));
  return bench;
}
