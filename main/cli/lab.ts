/** `witness lab …`: the seed's experiments. */
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { LabStats } from '../app/lab.js';
import { LAB_AUDIT_FILE } from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action, intFlag } from './flags.js';

const pct = (x: number): string => `${(100 * x).toFixed(0)} %`;

function row(label: string, s: LabStats): string {
  return `| ${label} | ${pct(s.sr)} | ${s.tool_calls_per_episode.toFixed(2)} | ${s.successes_from_replan} (${pct(s.replan_share_of_successes)}) | ${s.replans_per_episode.toFixed(2)} | ${pct(s.false_replan_rate)} |`;
}

export function labCommand(io: Output, setExit: (c: number) => void): Command {
  const lab = new Command('lab').description("the seed's experiments in the MuJoCo tabletop");
  lab
    .command('verify-vs-blind')
    .description(
      'postcondition verification with replanning versus trusting return codes; grasp thresholds 1, 3, 5 cm and replan budgets 0, 1, 2',
    )
    .option('--episodes <n>', 'episodes per condition', intFlag('--episodes', 1, 100_000), 100)
    .option('--seed <n>', 'seed of the episodes', intFlag('--seed', 0), 1)
    .option(
      '--audit <db>',
      `audit database, one run per episode and configuration (default: ./${LAB_AUDIT_FILE}, not the operator's log)`,
    )
    .option('--no-audit', 'do not record the episodes')
    .option('--json', 'one JSON document: {"blind":{…},"verified":{…},"sweep":[…],"audit":{"file":…,"runs":…}}')
    .action(
      action(io, setExit, async (o: { episodes: number; seed: number; audit: string | boolean; json?: boolean }) => {
        const started = Date.now();
        const { verifyVsBlind } = await import('../app/lab.js');
        const file = o.audit === false ? null : resolve(typeof o.audit === 'string' ? o.audit : LAB_AUDIT_FILE);
        const r = await verifyVsBlind({
          episodes: o.episodes,
          seed: o.seed,
          audit: file,
          progress: (l) => io.err(`lab: ${l}\n`),
        });
        const audit = r.audit ?? null;
        if (o.json) {
          io.out(JSON.stringify(r) + '\n');
          return;
        }
        const head =
          '| condition | success | tool calls / episode | successes from a replan | replans / episode | false replans |\n|---|---|---|---|---|---|';
        io.out(
          `# witness lab verify-vs-blind --episodes ${o.episodes} --seed ${o.seed}\n\n${head}\n${row('blind (trust the return code)', r.blind)}\n${row('verified (grasp > 1.5 cm, R = 2)', r.verified)}\n\n`,
        );
        io.out(
          `Sweep (verified):\n\n${head.replace('| condition |', '| threshold, budget |')}\n${r.sweep.map((s) => row(`${s.threshold_cm} cm, R = ${s.replans}`, s)).join('\n')}\n\n`,
        );
        io.out(
          `Success rate by threshold (rows) and budget R = 0 / 1 / 2:\n\n${[
            ...new Set(r.sweep.map((s) => s.threshold_cm)),
          ]
            .map((t) => {
              const xs = r.sweep.filter((s) => s.threshold_cm === t);
              return `${String(t).padStart(2)} cm ${xs.map((s) => `${'█'.repeat(Math.round(s.sr * 20)).padEnd(20, '·')} ${pct(s.sr).padStart(5)}`).join('   ')}`;
            })
            .join('\n')}\n\n`,
        );
        if (audit !== null)
          io.out(
            `Audit: ${audit.runs} runs (one per episode and configuration) in ${audit.file} (witness audit ls ${audit.file})\n`,
          );
        io.out(`(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version})\n`);
      }),
    );
  return lab;
}
