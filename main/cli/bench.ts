/** `witness bench …`: benchmark commands that print figures with ratios against in-process baselines. */
import { Command, Option } from 'commander';
import {
  ABLATION_METHODS,
  BASELINE_METHODS,
  DATASET_KINDS,
  MAP_GRAPH_DEFAULTS,
  MISSION_DEFAULTS,
  MISSION_METHODS,
} from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action, intFlag, numberFlag } from './flags.js';
import { progressBar } from './progress.js';
import { hiqlFlagValues, hiqlFlags } from './hiql-flags.js';

const bench = (): Promise<typeof import('../bench/benchmarks.js')> => import('../bench/benchmarks.js');

/** The translation benchmark's flags (on `bench translate`, and on `bench ltl` without --world); --seed serves both. */
function translationFlags(c: Command): Command {
  return c
    .option('--count <n>', 'translation: formulas per difficulty suite', intFlag('--count', 1, 10_000), 100)
    .option('--seed <n>', 'seed of the suites', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option('--family-max <n>', 'translation: largest n for GF-n and F-n', intFlag('--family-max', 2, 16), 12)
    .option('--ltl2ba <path>', 'translation: an ltl2ba binary to compare sizes with (default: $LTL2BA if set)')
    .option(
      '--baseline-time-limit-ms <n>',
      'translation: time budget of each plain Gastin–Oddoux baseline run',
      intFlag('--baseline-time-limit-ms', 1, 600_000),
      5000,
    );
}

interface TranslateBenchFlags {
  count: number;
  seed: number;
  familyMax: number;
  ltl2ba?: string;
  baselineTimeLimitMs: number;
  json?: boolean;
}

async function translationBench(io: Output, o: TranslateBenchFlags): Promise<void> {
  const ltl2ba = o.ltl2ba ?? process.env['LTL2BA'];
  const started = Date.now();
  const { markdown, goals, measurements } = (await bench()).translationBench({
    count: o.count,
    seed: o.seed,
    familyMax: o.familyMax,
    baselineTimeLimit_ms: o.baselineTimeLimitMs,
    ...(ltl2ba ? { ltl2ba } : {}),
    progress: (done, total, label) => {
      if (process.stderr.isTTY)
        io.err(`\r[${'#'.repeat(Math.round((done / total) * 30)).padEnd(30)}] ${done}/${total} ${label.padEnd(12)}`);
      else if (done === total || done % 50 === 0) io.err(`${done}/${total} ${label}\n`);
    },
  });
  if (process.stderr.isTTY) io.err('\n');
  if (o.json) {
    io.out(
      JSON.stringify(
        measurements.map((m) => ({
          suite: m.item.suite,
          id: m.item.id,
          ms: m.ms,
          states: m.states,
          transitions: m.transitions,
          baseline: m.baseline,
          reference: m.reference,
        })),
        null,
        1,
      ) + '\n',
    );
  } else {
    io.out(
      `# witness bench translate --count ${o.count} --seed ${o.seed} --family-max ${o.familyMax}${ltl2ba ? ' --ltl2ba <ltl2ba>' : ''}\n\n${markdown}\n\n`,
    );
    io.out(
      goals.map((g) => `- ${g}`).join('\n') +
        `\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; GO = plain Gastin–Oddoux in the same process)\n`,
    );
  }
}

interface MissionBenchFlags {
  world?: string;
  dataset?: string;
  difficulty: string;
  tasks: number;
  methods: string;
  maxSteps: number;
  replans: number;
  threads?: number;
  out?: string;
  pictures?: string;
  pictureTasks: number;
  graph?: string;
  data?: string;
  models?: string;
  cache?: string;
  seed: number;
  json?: boolean;
  audit: string | boolean;
  hiqlSteps: number;
  hiqlHidden: number[];
  hiqlLowAlpha: number;
}

async function missionBench(io: Output, o: TranslateBenchFlags & MissionBenchFlags): Promise<void> {
  const app = await bench();
  const world = o.world!;
  const started = Date.now();
  const out = o.out ?? `bench-ltl-${world}-seed${o.seed}.jsonl`;
  const bar = progressBar(io, `bench ltl ${world}`);
  const audit = o.audit === false ? null : typeof o.audit === 'string' ? o.audit : `${out}.audit.sqlite`;
  const r = await app.missionBench({
    world,
    difficulties: app.difficultiesOf(o.difficulty),
    tasks: o.tasks,
    methods: o.methods,
    maxSteps: o.maxSteps,
    replans: o.replans,
    ...(o.dataset !== undefined ? { dataset: o.dataset } : {}),
    out,
    pictureTasks: o.pictureTasks,
    seed: o.seed,
    audit,
    log: (s) => io.err(`bench ltl: ${s}\n`),
    progress: bar,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o.pictures !== undefined ? { pictures: o.pictures } : {}),
    ...(o.graph !== undefined ? { graph: o.graph } : {}),
    ...(o.data !== undefined ? { data: o.data } : {}),
    ...(o.models !== undefined ? { models: o.models } : {}),
    ...(o.cache !== undefined ? { cache: o.cache } : {}),
    hiql: hiqlFlagValues(o as unknown as Record<string, unknown>, 'hiql-'),
  });
  if (o.json) {
    io.out(
      JSON.stringify(
        {
          world,
          dataset: r.dataset,
          seed: o.seed,
          methods: r.methods,
          tasks: r.outcomes.length,
          results: r.summary.results,
          comparisons: r.summary.comparisons,
          step_ms: { p95_median: r.summary.stepP95_ms, p95_max: r.summary.stepMaxP95_ms },
        },
        null,
        1,
      ) + '\n',
    );
    return;
  }
  io.out(
    `# witness bench ltl --world ${world} --dataset ${r.dataset} --difficulty ${o.difficulty} --tasks ${o.tasks} --methods ${o.methods} --seed ${o.seed}\n\n`,
  );
  io.out(`${r.tables}\n\n`);
  io.out(
    `Per environment step (embedding + policy + monitor): p95 ${app.fmt(r.summary.stepP95_ms, 3)} ms (median over missions; worst mission ${app.fmt(r.summary.stepMaxP95_ms, 3)} ms).\n`,
  );
  io.out(
    `Results: ${out}${o.pictures !== undefined ? `; pictures: ${o.pictures}` : ''}${audit !== null ? `; audit log: ${audit}` : ''}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; ${r.threads} worker thread(s))\n`,
  );
}

function registerBenchLtl(cmd: Command, io: Output, setExit: (c: number) => void): void {
  hiqlFlags(
    translationFlags(cmd.command('ltl'))
      .description(
        'with --world: the LTL mission benchmark (SR, NCC, failure modes per method, Appendix E); without: the LTL → Büchi translation benchmark (also `bench translate`)',
      )
      .option('--world <id>', 'run the mission benchmark in this embedded world')
      .addOption(
        new Option(
          '--dataset <regime>',
          'missions: the dataset regime the backbone is generated in (with --graph/--data: the regime the data must come from; default navigate)',
        ).choices([...DATASET_KINDS]),
      )
      .option('--difficulty <list>', 'missions: comma-separated difficulties', 'easy,medium,hard')
      .option('--tasks <n>', 'missions: tasks per difficulty', intFlag('--tasks', 1, 100_000), 100)
      .option(
        '--methods <list>',
        `missions: comma-separated methods; the Appendix H ablations ${ABLATION_METHODS.join(', ')} and the learning baselines ${BASELINE_METHODS.join(', ')} (AP-HIQL: HIQL's two policies, trained on first use, then cached; ap-hiql-pilow: HIQL's π_h over the backbone's π_low) run beside them on the same tasks`,
        MISSION_METHODS.join(','),
      )
      .option('--max-steps <n>', 'missions: rollout budget C_max', intFlag('--max-steps', 1), MISSION_DEFAULTS.maxSteps)
      .option(
        '--replans <n>',
        'missions: replanning budget R of sagas-replan',
        intFlag('--replans', 0, 100),
        MISSION_DEFAULTS.replans,
      )
      .option('--threads <n>', 'missions: worker threads (default: one per core)', intFlag('--threads', 1, 256))
      .option('--out <file>', 'missions: JSONL results file; an existing one with the same settings is resumed')
      .option(
        '--pictures <dir>',
        'missions: SVG pictures of the first --picture-tasks tasks of each difficulty, every method',
      )
      .option(
        '--picture-tasks <n>',
        'missions: how many tasks per difficulty to draw',
        intFlag('--picture-tasks', 0),
        2,
      )
      .option(
        '--graph <file>',
        'missions: a latent graph artifact (with --data) instead of the cached 1M-transition one',
      )
      .option('--data <file>', 'missions: the dataset the graph was built from')
      .option('--models <dir>', 'missions: the model bundle (default: the shipped one)')
      .option(
        '--cache <dir>',
        'missions: where generated backbones are kept between runs (default: $WITNESS_CACHE, else $XDG_CACHE_HOME/witness)',
      )
      .option(
        '--audit <db>',
        'missions: record every mission in this audit database (default: next to the results file, <out>.audit.sqlite)',
      )
      .option('--no-audit', 'missions: do not record the missions')
      .option('--json', 'print the results as JSON'),
    'hiql-',
    'missions: ',
  ).action(
    action(io, setExit, async (o: TranslateBenchFlags & MissionBenchFlags) => {
      if (o.world !== undefined) await missionBench(io, o);
      else await translationBench(io, o);
    }),
  );
}

function registerBenchTranslate(cmd: Command, io: Output, setExit: (c: number) => void): void {
  translationFlags(cmd.command('translate'))
    .description('LTL → Büchi translation: time p50/p95 and automaton size on the SAGAS suites and GF-n / F-n')
    .option('--json', 'print every measurement as JSON instead of tables')
    .action(action(io, setExit, (o: TranslateBenchFlags) => translationBench(io, o)));
}

function registerBenchWorld(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('world')
    .description('simulator steps/s per scene (vs an open room), dataset generation time and coverage per regime')
    .option('--sim-steps <n>', 'simulation steps per measurement', intFlag('--sim-steps', 1000, 100_000_000), 200_000)
    .option(
      '--dataset-steps <n>',
      'transitions per generated dataset',
      intFlag('--dataset-steps', 1000, 100_000_000),
      200_000,
    )
    .option(
      '--navigate-medium-steps <n>',
      'transitions for navigate on pointmaze-medium',
      intFlag('--navigate-medium-steps', 1000, 100_000_000),
      1_000_000,
    )
    .action(
      action(io, setExit, async (o: { simSteps: number; datasetSteps: number; navigateMediumSteps: number }) => {
        const started = Date.now();
        const table = await (
          await bench()
        ).worldBench({ ...o, progress: (label) => io.err(`bench world: ${label}\n`) });
        io.out(
          `# witness bench world --sim-steps ${o.simSteps} --dataset-steps ${o.datasetSteps} --navigate-medium-steps ${o.navigateMediumSteps}\n\n${table}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`,
        );
      }),
    );
}

function registerBenchAnt(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('ant')
    .description(
      "the Ant: simulator and control steps/s (vs an open arena), the scripted expert's counted trials, navigate dataset generation time",
    )
    .option('--sim-steps <n>', 'simulation steps per measurement', intFlag('--sim-steps', 1000, 100_000_000), 100_000)
    .option('--waypoints <n>', 'open-space waypoints per noise level', intFlag('--waypoints', 1, 100_000), 400)
    .option('--pairs <n>', 'start–goal pairs through the maze', intFlag('--pairs', 1, 100_000), 30)
    .option('--noise <sigma>', 'action noise of the noisy trials', numberFlag('--noise', 0, 10), 0.2)
    .option(
      '--dataset-steps <n>',
      'transitions of the navigate dataset',
      intFlag('--dataset-steps', 1000, 100_000_000),
      1_000_000,
    )
    .option('--world <id>', 'the Ant maze of the pairs and the dataset', 'antmaze-medium')
    .action(
      action(
        io,
        setExit,
        async (o: {
          simSteps: number;
          waypoints: number;
          pairs: number;
          noise: number;
          datasetSteps: number;
          world: string;
        }) => {
          const started = Date.now();
          const table = await (await bench()).antBench({ ...o, progress: (label) => io.err(`bench ant: ${label}\n`) });
          io.out(
            `# witness bench ant --sim-steps ${o.simSteps} --waypoints ${o.waypoints} --pairs ${o.pairs} --noise ${o.noise} --dataset-steps ${o.datasetSteps} --world ${o.world}\n\n${table}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`,
          );
        },
      ),
    );
}

function registerBenchAudit(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('audit')
    .description(
      'the audit log: sustained durable appends, filtered paged queries and chain verification over a large log',
    )
    .option('--events <n>', 'events to append', intFlag('--events', 1000, 100_000_000), 1_000_000)
    .option(
      '--writers <n>',
      'then the same events from this many writer processes at once (1: skip)',
      intFlag('--writers', 1, 64),
      4,
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { events: number; writers: number; json?: boolean }) => {
        const started = Date.now();
        const app = await bench();
        const r = await app.auditBench(o.events, (l) => io.err(`bench audit: ${l}\n`), o.writers);
        if (o.json) {
          io.out(JSON.stringify(r) + '\n');
          return;
        }
        io.out(
          `# witness bench audit --events ${o.events} --writers ${o.writers}\n\n${app.auditTable(r)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; SQLite through better-sqlite3, WAL, synchronous=FULL)\n`,
        );
      }),
    );
}

function registerBenchExport(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('export')
    .description(
      'audit export rate: one mission-like run of N events exported to MCAP (with the foxglove.* channels) against JSON Lines of the same database',
    )
    .option('--events <n>', 'events in the run', intFlag('--events', 1000, 100_000_000), 1_000_000)
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { events: number; json?: boolean }) => {
        const started = Date.now();
        const app = await bench();
        const r = await app.exportBench(o.events, (l) => io.err(`bench export: ${l}\n`));
        if (o.json) {
          io.out(JSON.stringify(r) + '\n');
          return;
        }
        io.out(
          `# witness bench export --events ${o.events}\n\n${app.exportTable(r)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`,
        );
      }),
    );
}

function registerBenchFleet(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('fleet')
    .description(
      'the fleet store on a real PostgreSQL: push rates from one PC and four at once, verify --from, the failures report over twenty sources (with its query plans), and the store size against SQLite',
    )
    .option(
      '--events <n>',
      'events pushed from one PC, and from four at once in all',
      intFlag('--events', 1000, 100_000_000),
      1_000_000,
    )
    .option(
      '--verify-events <n>',
      'events in the store (twenty sources) when it is verified and reported on',
      intFlag('--verify-events', 1000, 1_000_000_000),
      10_000_000,
    )
    .option(
      '--to <url>',
      'measure on this PostgreSQL server, in a database the benchmark creates and drops (default: a private server it starts)',
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { events: number; verifyEvents: number; to?: string; json?: boolean }) => {
        const started = Date.now();
        const app = await bench();
        const r = await app.fleetBench({
          events: o.events,
          verifyEvents: o.verifyEvents,
          ...(o.to !== undefined ? { to: o.to } : {}),
          progress: (l) => io.err(`bench fleet: ${l}\n`),
        });
        if (o.json) {
          io.out(JSON.stringify(r) + '\n');
          return;
        }
        io.out(
          `# witness bench fleet --events ${o.events} --verify-events ${o.verifyEvents}${o.to !== undefined ? ' --to <url>' : ''}\n\n${app.fleetTable(r)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version})\n`,
        );
      }),
    );
}

function registerBenchPlan(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('plan')
    .description(
      'SAGAS planning time and expanded product states on the Easy/Medium/Hard suites over a latent graph, and exact planning on grids against the reference algorithm',
    )
    .option(
      '--world <id>',
      'world of the latent-graph suites (built here unless --graph/--data are given)',
      'pointmaze-giant',
    )
    .option('--graph <file>', 'a latent graph artifact to use instead of building one')
    .option('--data <file>', 'the dataset the graph was built from')
    .option('--models <dir>', 'the model bundle (default: the shipped one)')
    .option('--tasks <n>', 'tasks per difficulty', intFlag('--tasks', 0, 100_000), 100)
    .option('--difficulty <list>', 'comma-separated difficulties', 'easy,medium,hard')
    .option('--grids <list>', 'grid sizes n for the exact part (comma-separated; empty for none)', '20,40,80')
    .option(
      '--reference-max-grid <n>',
      'largest grid on which the reference algorithm also runs',
      intFlag('--reference-max-grid', 0),
      80,
    )
    .option('--seed <n>', 'seed of tasks, regions, starts and grids', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option('--json', 'print every measurement as JSON')
    .action(
      action(
        io,
        setExit,
        async (o: {
          world: string;
          graph?: string;
          data?: string;
          models?: string;
          tasks: number;
          difficulty: string;
          grids: string;
          referenceMaxGrid: number;
          seed: number;
          json?: boolean;
        }) => {
          const app = await bench();
          const difficulties = app.difficultiesOf(o.difficulty);
          const gridSizes = o.grids
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x !== '')
            .map((x) => intFlag('--grids', 2, 2000)(x));
          const started = Date.now();
          const { nodes, tasks, grids } = await app.planBench({
            world: o.world,
            tasks: o.tasks,
            difficulties,
            gridSizes,
            referenceMaxGrid: o.referenceMaxGrid,
            seed: o.seed,
            log: (s) => io.err(`bench plan: ${s}\n`),
            ...(o.graph !== undefined ? { graph: o.graph } : {}),
            ...(o.data !== undefined ? { data: o.data } : {}),
            ...(o.models !== undefined ? { models: o.models } : {}),
          });
          if (o.json) {
            io.out(JSON.stringify({ tasks, grids }, null, 1) + '\n');
            return;
          }
          const hard = tasks
            .filter((t) => t.difficulty === 'hard')
            .map((t) => t.plan_ms)
            .sort((a, b) => a - b);
          const p95 = hard.length > 0 ? hard[Math.min(hard.length - 1, Math.ceil(0.95 * hard.length) - 1)]! : NaN;
          const g40 = grids.find((g) => g.n === 40);
          io.out(
            `# witness bench plan --world ${o.world} --tasks ${o.tasks} --difficulty ${o.difficulty} --grids ${o.grids} --seed ${o.seed}\n\n`,
          );
          if (tasks.length > 0)
            io.out(
              `Latent graph: ${o.world}, ${nodes} cluster nodes; SAGAS with K = 5, λ = 0.5, τ_soft = 0.05, N_s = 3, 50 attempts.\n\n${app.latentTable(tasks, difficulties)}\n\n`,
            );
          if (grids.length > 0)
            io.out(
              `Exact planning (K = all) on n×n grids, 8 labelled cells, the "hard giant" formula:\n\n${app.gridTable(grids)}\n\n`,
            );
          if (hard.length > 0) io.out(`- Hard p95 ≤ 50 ms: ${p95 <= 50 ? 'met' : 'NOT met'} (${p95.toFixed(2)} ms)\n`);
          if (g40)
            io.out(
              `- exact n = 40 under 100 ms: ${g40.exact_ms < 100 ? 'met' : 'NOT met'} (${g40.exact_ms.toFixed(1)} ms)\n`,
            );
          io.out(
            `\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; times are the minimum of 3 runs after one warm-up)\n`,
          );
        },
      ),
    );
}

function registerBenchMap(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('map')
    .description(
      'ROS maps → labelled graphs → plans: a seeded 50 m × 50 m floor at 5 cm written as YAML + PGM, read back, distance transform, graph (vs a naive clearance scan), planning 4 specs (vs a plain Dijkstra)',
    )
    .option('--size <m>', 'side of the square floor, metres', numberFlag('--size', 5, 500), 50)
    .option('--resolution <m>', 'metres per cell', numberFlag('--resolution', 0.01, 1), 0.05)
    .option('--rooms <n>', 'rooms per side', intFlag('--rooms', 1, 20), 4)
    .option('--spacing <m>', 'lattice spacing, metres', numberFlag('--spacing', 0.01, 100), MAP_GRAPH_DEFAULTS.spacing)
    .option('--clearance <m>', 'clearance, metres', numberFlag('--clearance', 0, 10), MAP_GRAPH_DEFAULTS.clearance)
    .option('--seed <n>', 'seed of the floor plan', intFlag('--seed', 0, 2 ** 31 - 1), 1)
    .option(
      '--runs <n>',
      'timed runs per measurement (the minimum is shown; one warm-up before)',
      intFlag('--runs', 1, 100),
      5,
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(
        io,
        setExit,
        async (o: {
          size: number;
          resolution: number;
          rooms: number;
          spacing: number;
          clearance: number;
          seed: number;
          runs: number;
          json?: boolean;
        }) => {
          const app = await bench();
          const started = Date.now();
          const r = await app.mapBench({ ...o, log: (l) => io.err(`bench map: ${l}\n`) });
          if (o.json) {
            io.out(JSON.stringify(r) + '\n');
            return;
          }
          io.out(
            `# witness bench map --size ${o.size} --resolution ${o.resolution} --rooms ${o.rooms} --spacing ${o.spacing} --clearance ${o.clearance} --seed ${o.seed} --runs ${o.runs}\n\n${app.mapBenchTables(r)}\n\n`,
          );
          const worst = Math.max(...r.plans.map((p) => p.workflow_ms));
          io.out(
            `- planning under 1 s on this map (the whole \`witness plan\` workflow: read, validate, translate, search): ${worst < 1000 ? 'met' : 'NOT met'} (slowest ${worst.toFixed(0)} ms)\n`,
          );
          io.out(
            `\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core; times are the minimum of ${o.runs} runs after one warm-up)\n`,
          );
        },
      ),
    );
}

function registerBenchRosbag(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('rosbag')
    .description(
      'rosbag2 import: a synthetic bag (MCAP, or .db3 with --storage sqlite3) of about --bytes bytes (odometry, commands, an IMU), imported as `witness data import` does, against reading the same topics without decoding (@mcap/core; better-sqlite3 for .db3)',
    )
    .option('--bytes <n>', 'size of the synthetic bag', intFlag('--bytes', 100_000, 64 * 2 ** 30), 2 ** 30)
    .addOption(
      new Option('--storage <storage>', "the bag's storage: mcap (rosbag2_storage_mcap) or sqlite3 (a .db3)")
        .choices(['mcap', 'sqlite3'])
        .default('mcap'),
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { bytes: number; storage: 'mcap' | 'sqlite3'; json?: boolean }) => {
        const app = await bench();
        const started = Date.now();
        const r = await app.rosbagBench({
          bytes: o.bytes,
          storage: o.storage,
          log: (l) => io.err(`bench rosbag: ${l}\n`),
        });
        if (o.json) {
          io.out(JSON.stringify(r) + '\n');
          return;
        }
        io.out(
          `# witness bench rosbag --bytes ${o.bytes}${o.storage === 'mcap' ? '' : ` --storage ${o.storage}`}\n\n${app.rosbagBenchTable(r)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; one core)\n`,
        );
      }),
    );
}

function registerBenchCli(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('cli')
    .description(
      "the CLI's start-up against a bare `node -e 0` in the same run: `witness --version` and `witness ltl translate 'G F a'`",
    )
    .option('--runs <n>', 'rounds of the three commands (after one warm-up round)', intFlag('--runs', 1, 1000), 15)
    .option(
      '--mission [n]',
      "also the README's `witness run` on an empty cache folder: the first run, then n more from the cache (default 3)",
      intFlag('--mission', 1, 100),
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { runs: number; mission?: number | true; json?: boolean }) => {
        const app = await bench();
        const started = Date.now();
        const rows = app.startupBench(o.runs, (l) => io.err(`bench cli: ${l}\n`));
        const missionRuns = o.mission === undefined ? 0 : o.mission === true ? 3 : o.mission;
        const rerun = missionRuns > 0 ? app.rerunBench(missionRuns, (l) => io.err(`bench cli: ${l}\n`)) : null;
        if (o.json) io.out(JSON.stringify(rerun === null ? rows : { startup: rows, mission: rerun }) + '\n');
        else {
          io.out(
            `# witness bench cli --runs ${o.runs}${missionRuns > 0 ? ` --mission ${missionRuns}` : ''}\n\n${app.startupTable(rows)}\n\n`,
          );
          if (rerun !== null) io.out(`${app.rerunTable(rerun)}\n\n`);
          io.out(
            `(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; each command a new process through bin/witness.js)\n`,
          );
        }
      }),
    );
}

function registerBenchRules(cmd: Command, io: Output, setExit: (c: number) => void): void {
  cmd
    .command('rules')
    .description(
      'the per-call overhead of a rules file (ten LTL rules) on the tool loop, against the same loop without rules',
    )
    .option('--calls <n>', 'tool calls per run', intFlag('--calls', 2, 100_000), 400)
    .option(
      '--runs <n>',
      'runs of each configuration, interleaved (after one warm-up each)',
      intFlag('--runs', 1, 1000),
      9,
    )
    .option('--json', 'print the figures as JSON')
    .action(
      action(io, setExit, async (o: { calls: number; runs: number; json?: boolean }) => {
        const app = await bench();
        const started = Date.now();
        const rows = await app.rulesBench(o.calls, o.runs);
        if (o.json) io.out(JSON.stringify(rows) + '\n');
        else
          io.out(
            `# witness bench rules --calls ${o.calls} --runs ${o.runs}\n\n${app.rulesBenchTable(rows)}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s; node ${process.version}; an in-memory world that answers at once)\n`,
          );
      }),
    );
}

export function benchCommand(io: Output, setExit: (c: number) => void): Command {
  const cmd = new Command('bench').description('benchmarks (figures for docs/BENCHMARKS.md)');
  registerBenchLtl(cmd, io, setExit);
  registerBenchTranslate(cmd, io, setExit);
  registerBenchWorld(cmd, io, setExit);
  registerBenchAnt(cmd, io, setExit);
  registerBenchAudit(cmd, io, setExit);
  registerBenchExport(cmd, io, setExit);
  registerBenchFleet(cmd, io, setExit);
  registerBenchPlan(cmd, io, setExit);
  registerBenchMap(cmd, io, setExit);
  registerBenchRosbag(cmd, io, setExit);
  registerBenchCli(cmd, io, setExit);
  registerBenchRules(cmd, io, setExit);
  return cmd;
}
