/** `witness run`: one mission end to end in a world — plan, execute, monitor, replan. */
import { Command, Option } from 'commander';
import {
  MISSION_WORLDS,
  MISSION_DEFAULTS,
  MISSION_METHODS,
  PLAN_DEFAULTS,
  type MissionMethod,
} from '../contract/defaults.js';
import type { MissionResult } from '../app/mission.js';
import { CliError, EXIT, type Output } from './errors.js';
import { action, injectFaultOption, intFlag, missionWorldFlag, numberFlag, pointFlag } from './flags.js';
import type { WorldFault } from '../app/faults.js';
import { type FoxgloveFlags, foxgloveOptions, withFoxglove } from './foxglove.js';
import { printable, printableJson } from './printable.js';

interface RunFlags extends FoxgloveFlags {
  world: string;
  spec: string;
  regions: string;
  start?: [number, number];
  method: MissionMethod;
  lambda: number;
  k?: number;
  replans: number;
  maxSteps: number;
  graph?: string;
  data?: string;
  models?: string;
  datasetSteps: number;
  seed: number;
  json?: boolean;
  picture?: string;
  operator?: string;
  cache: boolean;
  injectFault?: WorldFault[];
}

function summary(io: Output, r: MissionResult): void {
  const fmt = (x: number | null): string => (x === null ? '–' : String(x));
  io.out(
    `  outcome: ${r.success ? 'SUCCESS' : r.failureMode === 'stopped' ? 'STOPPED' : r.failureMode === 'safety' ? 'SAFETY STOP' : `FAILED (${r.failureMode})`} after ${r.steps} steps — ${printable(r.message)}\n`,
  );
  io.out(
    `  T_pre ${fmt(r.T_pre)}, T_suf ${fmt(r.T_suf)}, NCC ${r.ncc.toFixed(3)}; runtime monitor: ${r.monitorViable ? 'an accepting continuation remains' : 'VIOLATED'}\n`,
  );
  const checkpoints = r.events.filter((e) => e.kind === 'checkpoint');
  io.out(
    `  checkpoints: ${checkpoints.length === 0 ? 'none' : checkpoints.map((e) => `${e.node}@${e.t}`).join(', ')}\n`,
  );
  const traversals = r.events.filter((e) => e.kind === 'suffix-traversal').map((e) => e.t);
  io.out(
    `  prefix done at ${fmt(r.events.find((e) => e.kind === 'prefix-done')?.t ?? null)}; suffix traversals at ${traversals.join(', ') || '–'}\n`,
  );
  for (const f of r.failures)
    io.out(
      `${printable(`  failure at t=${f.t}: ${f.kind} ${f.from} → ${f.to} (term ${f.term}, violated ${f.violated}, labels {${f.labels.join(', ')}}): ${f.class}, ${f.action} — ${f.rule}`)}\n`,
    );
  for (const d of r.disagreements)
    io.out(
      `  monitor disagreement at t=${d.t} (${d.node}): the plan expected state ${d.planned}, the monitor has {${d.monitor.join(', ')}}\n`,
    );
  if (r.plans.length > 1) io.out(`  replans: ${r.plans.length - 1}\n`);
}

/** The first plan's sha256 as the report carries it (the one its audit run's first plan event names). */
function firstSha(report: Record<string, unknown>): string {
  const p = (report['plans'] as readonly { plan_sha?: unknown }[] | undefined)?.[0];
  return typeof p?.plan_sha === 'string' ? `, sha256 ${p.plan_sha.slice(0, 12)}…` : '';
}

/** A robot's pose as `(x, y)`, or `(unknown)` when the mission ended before it was read (a robot not localised). */
function where(p: readonly [number, number]): string {
  return Number.isFinite(p[0]) && Number.isFinite(p[1]) ? `(${p[0].toFixed(2)}, ${p[1].toFixed(2)})` : '(unknown)';
}

/** A mission on a robot's map graph: waypoints as navigation goals (Nav2); Ctrl-C cancels the running goal. */
async function mapMission(io: Output, o: RunFlags): Promise<number> {
  if (o.picture !== undefined)
    throw new CliError("--picture draws a maze; a robot's map mission has none: drop --picture");
  if (o.start !== undefined) throw new CliError('a robot starts where it is: drop --start');
  const app = await import('../app/mission.js');
  const r = await app.runMapMission(
    { world: o.world, spec: o.spec, regions: { file: o.regions }, graph: o.graph! },
    {
      method: o.method,
      lambda: o.lambda,
      ...(o.k !== undefined ? { k: o.k } : {}),
      replans: o.replans,
      maxSteps: o.maxSteps,
      audit: o.audit,
      ...(o.operator !== undefined ? { operator: o.operator } : {}),
      interruptible: true,
    },
  );
  const res = r.result;
  if (r.audit !== null && !o.json) io.err(`run: recorded as run ${r.audit.run} in ${r.audit.file}\n`);
  if (o.json) io.out(printableJson(r.report) + '\n');
  else {
    io.out(
      `mission on ${o.world} over ${o.graph} (${o.method}, waypoints through the robot's navigation): ${printable(String(r.report['formula']))}\n  start: the robot's pose ${where(r.start)}\n`,
    );
    const p0 = res.plans[0]?.result;
    if (p0?.status === 'ok')
      io.out(
        `  plan: ${p0.prefixLength - 1} prefix and ${p0.steps.length - p0.prefixLength} suffix waypoints${p0.dwell ? ' (dwell suffix)' : ''}, objective ${p0.cost.objective.toFixed(1)} m, ${res.plans[0]!.planning_ms.toFixed(1)} ms${firstSha(r.report)}\n`,
      );
    summary(io, res);
  }
  return missionExit(res);
}

/**
 * A mission's exit code: 0 success, 130 stopped by the operator, 5 a safety stop, 3 no first plan (infeasible), 1 any
 * other failure.
 */
export function missionExit(r: Pick<MissionResult, 'success' | 'failureMode'>): number {
  if (r.success) return EXIT.ok;
  // No first plan is an infeasible mission, as `witness plan` says it (exit 3).
  return r.failureMode === 'stopped'
    ? EXIT.interrupted
    : r.failureMode === 'safety'
      ? EXIT.safety
      : r.failureMode === 'planning'
        ? EXIT.budget
        : EXIT.negative;
}

/** `witness run` in an embedded world, or on a robot with a latent graph (a map graph alone goes to mapMission). */
async function runMission(io: Output, o: RunFlags): Promise<number> {
  const robot = o.world.startsWith('ros2:');
  if (robot && o.graph !== undefined && o.data === undefined) return mapMission(io, o);
  if ((o.graph === undefined) !== (o.data === undefined))
    throw new CliError(
      '--graph and --data go together (on a robot, --graph alone is a map graph from `witness graph from-map`)',
    );
  if (robot && o.graph === undefined) {
    throw new CliError(
      `${o.world} is a robot: datasets are not generated on it; give --graph (a map graph from \`witness graph from-map\`, executed through the robot's navigation action), or --graph and --data (a latent graph of the robot's own recordings)`,
    );
  }
  const app = await import('../app/mission.js');
  const r = await app.runOnce(
    {
      world: o.world,
      spec: o.spec,
      regions: { file: o.regions },
      seed: o.seed,
      ...(o.start !== undefined ? { start: o.start } : {}),
      backbone:
        o.graph !== undefined || o.data !== undefined
          ? {
              kind: 'files',
              graph: o.graph!,
              data: o.data!,
              ...(o.models !== undefined ? { models: o.models } : {}),
            }
          : {
              kind: 'generate',
              world: o.world,
              datasetSteps: o.datasetSteps,
              seed: o.seed,
              ...(o.models !== undefined ? { models: o.models } : {}),
            },
    },
    {
      method: o.method,
      lambda: o.lambda,
      k: o.k ?? PLAN_DEFAULTS.k,
      replans: o.replans,
      maxSteps: o.maxSteps,
      audit: o.audit,
      ...(o.operator !== undefined ? { operator: o.operator } : {}),
      ...(o.picture !== undefined ? { picture: o.picture } : {}),
      cache: o.cache,
      log: (s) => io.err(`run: ${s}\n`),
      ...(o.injectFault !== undefined ? { open: { faults: o.injectFault } } : {}),
      interruptible: robot,
    },
  );
  const { task, result: res } = r;
  if (r.audit !== null && !o.json) io.err(`run: recorded as run ${r.audit.run} in ${r.audit.file}\n`);
  if (o.json) io.out(JSON.stringify(r.report) + '\n');
  else {
    io.out(
      `mission in ${o.world} (${o.method}): ${task.automaton.formula}\n  start (${task.start[0].toFixed(2)}, ${task.start[1].toFixed(2)}); ${task.report.nodes.anchors} anchors${task.report.unavailable.length > 0 ? `, unavailable: ${task.report.unavailable.join(', ')}` : ''}\n`,
    );
    // A mission the world refused before its first plan (a robot whose command would bypass its collision monitor,
    // stale data at the start) has none: the outcome says why.
    const p0 = res.plans[0]?.result;
    if (p0?.status === 'ok')
      io.out(
        `  plan: ${p0.prefixLength - 1} prefix and ${p0.steps.length - p0.prefixLength} suffix waypoints${p0.dwell ? ' (dwell suffix)' : ''}, objective ${p0.cost.objective.toFixed(1)}, ${res.plans[0]!.planning_ms.toFixed(1)} ms${firstSha(r.report)}\n`,
      );
    summary(io, res);
    if (o.picture !== undefined) io.out(`  wrote ${o.picture}\n`);
  }
  return missionExit(res);
}

export function runCommand(io: Output, setExit: (c: number) => void): Command {
  return foxgloveOptions(new Command('run'))
    .description(
      'run one LTL mission end to end in an embedded world or on a ROS 2 robot: plan on the latent graph, execute with π_low, monitor, replan',
    )
    .option(
      '--world <id>',
      `${MISSION_WORLDS.join(', ')}, or ros2:<file> (a robot: it starts where it is; give --graph and --data)`,
      missionWorldFlag(MISSION_WORLDS),
      'pointmaze-medium',
    )
    .requiredOption('--spec <formula>', 'the LTL specification')
    .requiredOption('--regions <file>', 'the regions file (docs/FORMATS.md)')
    .option('--start <x,y>', 'start position in metres (default: a random free cell from --seed)', pointFlag)
    .addOption(
      new Option('--method <m>', 'planner; sagas-replan replans after monitor failures')
        .choices([...MISSION_METHODS])
        .default(MISSION_DEFAULTS.method),
    )
    .option('--lambda <x>', 'prefix–suffix trade-off λ', numberFlag('--lambda', 0, 1), PLAN_DEFAULTS.lambda)
    .option('--k <n>', `prefix candidates K (default ${PLAN_DEFAULTS.k}; all on a map graph)`, intFlag('--k', 1))
    .option(
      '--replans <n>',
      'replanning budget R (sagas-replan)',
      intFlag('--replans', 0, 100),
      MISSION_DEFAULTS.replans,
    )
    .option(
      '--max-steps <n>',
      'rollout budget C_max in environment steps',
      intFlag('--max-steps', 1),
      MISSION_DEFAULTS.maxSteps,
    )
    .option(
      '--graph <file>',
      'a latent graph artifact (with --data) instead of building one here; on a robot, alone: a map graph (`witness graph from-map`) whose waypoints go to its navigation action',
    )
    .option('--data <file>', 'the dataset the graph was built from')
    .option('--models <dir>', 'the model bundle (default: the shipped one for the world)')
    .option(
      '--dataset-steps <n>',
      'transitions of the navigate dataset generated when no --graph is given',
      intFlag('--dataset-steps', 1000),
      MISSION_DEFAULTS.datasetSteps,
    )
    .option(
      '--no-cache',
      'build the dataset and graph here even when the cache has them (default: reuse them from $WITNESS_CACHE, else $XDG_CACHE_HOME/witness)',
    )
    .option(
      '--seed <n>',
      'seed of the dataset, the start, anchor retrieval and the simulator noise',
      intFlag('--seed', 0),
      MISSION_DEFAULTS.seed,
    )
    .option('--picture <file>', 'draw the mission (maze, regions, prefix and suffix, rollout) as SVG')
    .option(
      '--audit <db>',
      'the audit database to record the run in (default: $WITNESS_AUDIT, else ~/.local/share/witness/audit.sqlite)',
    )
    .option('--no-audit', 'do not record the run')
    .option('--operator <name>', 'who runs the mission (recorded in the audit log; default: the user)')
    .option('--json', 'one JSON document on stdout')
    .addOption(injectFaultOption())
    .action(action(io, setExit, async (o: RunFlags) => withFoxglove(io, o, () => runMission(io, o))));
}
