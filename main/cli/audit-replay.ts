/**
 * `witness audit replay`: one run replayed as the console's replay draws it (services/audit/replay.ts), on a local log
 * or (--from) on the mirror of the one source the filters select. `--json` prints the replay the console receives; the
 * text is the run's header, then its plans, marks and rule verdicts in the order of the log, then the counts.
 */
import type { Command } from 'commander';
import type { AuditReplay } from '../contract/api.js';
import { CliError, type Output } from './errors.js';
import { action, intFlag } from './flags.js';
import { printable, printableJson } from './printable.js';
import { runHeader } from './audit-lines.js';
import { type FleetFlags, filterOf, fleetFilterOptions, mirrorOf, targetOf } from './audit-fleet.js';

interface ReplayFlags extends FleetFlags {
  from?: string;
  positions?: number;
  json?: boolean;
}

const short = (hash: string): string => (hash.length > 16 ? `${hash.slice(0, 16)}…` : hash);

/** Where on the replay's axis: the step, or the time since the run started. */
const place = (r: AuditReplay, at: number): string =>
  (r.axis === 'step' ? `step ${at}` : `+${(at / 1000).toFixed(3)} s`).padEnd(12);

/** The plan's line: its trigger, status, cost, nodes and document hash. */
function planText(p: AuditReplay['plans'][number]): string {
  const v = p.plan;
  const how =
    v.status === 'ok'
      ? `ok${v.cost !== undefined ? `, cost ${Number(v.cost.objective.toFixed(2))}` : ''}`
      : `infeasible${v.reason !== undefined ? ` (${v.reason.kind}: ${v.reason.message})` : ''}`;
  return `plan (${p.trigger}) ${how}, ${v.prefix.length} + ${v.suffix.length} nodes, sha ${short(p.sha)}`;
}

/** A rule verdict's line: the phase, ok or refused/violated, the rule, the proposition, the tool, its event's hash. */
function verdictText(v: AuditReplay['rules'][number]): string {
  const how = v.ok ? 'ok' : v.phase === 'predicted' ? 'refused' : 'violated';
  const what = v.rule !== undefined ? `: rule "${v.rule}" on ${v.proposition ?? '?'}` : '';
  return `rule_verdict (${v.phase}) ${how}${what} (${v.tool}), hash ${short(v.hash)}`;
}

/** The replay as text: header, the plans, marks and verdicts in log order, the counts and the notes. */
function replayText(r: AuditReplay): string {
  const lines: { seq: number; at: number; text: string }[] = [
    ...r.plans.map((p) => ({ seq: p.seq, at: p.at, text: planText(p) })),
    // A refusal or violation is both a mark and a verdict: it is printed once, as the verdict.
    ...r.marks.filter((m) => m.kind !== 'rule_verdict').map((m) => ({ ...m, text: `${m.kind} ${m.label}` })),
    ...r.rules.map((v) => ({ seq: v.seq, at: v.at, text: verdictText(v) })),
  ].sort((a, b) => a.seq - b.seq);
  const axis = r.axis === 'step' ? `steps ${r.min}–${r.max}` : `time ${r.min}–${r.max} ms since the start`;
  let out = runHeader(r.run, r.run.spec) + `replay on ${axis}\n`;
  for (const l of lines) out += `  ${place(r, l.at)} ${String(l.seq).padStart(8)}  ${printable(l.text)}\n`;
  const p = r.positions;
  out +=
    `positions: ${p.total} recorded, ${p.x.length} in the replay; ${r.plans.length} plans, ${r.marks.length} marks, ` +
    `${r.rules.length} rule verdicts, ${r.monitor.length} monitor state changes\n`;
  for (const n of r.notes) out += `note: ${printable(n)}\n`;
  return out;
}

export function registerAuditReplay(cmd: Command, io: Output, setExit: (c: number) => void): void {
  const c = cmd
    .command('replay')
    .description(
      "one run replayed as the console draws it: its plans, failures, replans, escalations, rule verdicts and end in the log's order, and the robot's positions",
    )
    .usage('[options] <db> <run> | --from <url> [filters] <run>')
    .argument('[db]', 'audit database')
    .argument('[run]', 'run id (or a unique prefix)')
    .option(
      '--from <url>',
      'a fleet store (postgres://user@host:port/database; PG* variables fill in the rest): the run of the one source the filters select',
    );
  fleetFilterOptions(c)
    .option(
      '--positions <n>',
      'robot positions in the replay at most (evenly spaced, first and last kept)',
      intFlag('--positions', 2, 200_000),
    )
    .option('--json', 'JSON: the replay the console receives')
    .action(
      action(io, setExit, async (a: string | undefined, b: string | undefined, o: ReplayFlags) => {
        // With --from the one argument is the run.
        const [db, run] = o.from !== undefined && b === undefined ? [undefined, a] : [a, b];
        if (run === undefined) throw new CliError('name the run to replay (its id, or a unique prefix)');
        const file =
          targetOf(db, o.from, o) === 'store' ? await mirrorOf(io, o.from!, filterOf(o, run), 'replay') : db!;
        const r = (await import('../app/audit.js')).auditReplay(file, run, o.positions);
        io.out(o.json ? printableJson(r) + '\n' : replayText(r));
      }),
    );
}
