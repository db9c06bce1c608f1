/**
 * `witness backbone …`: measured quality of a reachability backbone (ψ and π_low), its recipe, and AP-HIQL's policies
 * trained on it.
 */
import { Command, Option } from 'commander';
import {
  BACKBONE_RECIPE,
  DATASET_KINDS,
  HIQL_LOWS,
  REGIME_RECIPES,
  type DatasetKind,
  type HiqlLow,
} from '../contract/defaults.js';
import type { Output } from './errors.js';
import { action, intFlag, numberFlag } from './flags.js';
import { progressBar } from './progress.js';
import { hiqlFlagValues, hiqlFlags } from './hiql-flags.js';

const R = BACKBONE_RECIPE;

/** Which worlds ship a bundle of a regime of their own (contract REGIME_RECIPES), for the help. */
function regimeBundlesText(): string {
  const pairs = Object.entries(REGIME_RECIPES).flatMap(([w, rs]) => Object.keys(rs).map((k) => `${w}-${k}`));
  return `regime bundles ship as ${pairs.join(', ')}; other regimes need --out`;
}

const train = (): Promise<typeof import('../app/train.js')> => import('../app/train.js');

function registerBackboneEval(backbone: Command, io: Output, setExit: (c: number) => void): void {
  backbone
    .command('eval')
    .description(
      'Spearman of ‖ψ(s) − ψ(g)‖ against true geodesic distance on held-out pairs, and π_low success at reaching waypoints H_TD away',
    )
    .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
    .option(
      '--models <dir>',
      "model bundle (default: the world's shipped bundle of --dataset: assets/models/<world>, or assets/models/<world>-<regime> where one ships)",
    )
    .addOption(
      new Option(
        '--dataset <regime>',
        'the regime of the held-out pairs and trials (default: the one the bundle was trained on)',
      ).choices([...DATASET_KINDS]),
    )
    .option('--pairs <n>', 'held-out state pairs', intFlag('--pairs', 10), 2000)
    .option('--trials <n>', 'executor trials in the simulator', intFlag('--trials', 1), 200)
    .option(
      '--epsilon <x>',
      'a waypoint counts as reached within this latent distance (default H_TD/2, the graph node radius)',
      numberFlag('--epsilon', 1e-9, 1e9),
    )
    .option(
      '--budget <n>',
      'tracking budget in steps (default 5·H_TD, plus 2 per --ahead step)',
      intFlag('--budget', 1),
    )
    .option(
      '--ahead <steps>',
      'aim each trial at the recorded state this many steps later (around corners, as graph waypoints are) instead of its H_TD subgoal',
      intFlag('--ahead', 1, 100_000),
    )
    .option('--from-rest', 'start each trial at rest at the recorded position, as a mission starts')
    .option(
      '--goal-at-rest',
      "aim each trial at ψ of the target's position at rest, as a mission's executor steers to a waypoint, instead of the recorded state's latent",
    )
    .option(
      '--radius <m>',
      'a trial succeeds within this distance (m) of the target position, as a mission accepts a waypoint, instead of within --epsilon in latent space',
      numberFlag('--radius', 1e-6, 1e6),
    )
    .option('--json', 'print JSON')
    .action(
      action(
        io,
        setExit,
        async (o: {
          world: string;
          models?: string;
          dataset?: DatasetKind;
          pairs: number;
          trials: number;
          epsilon?: number;
          budget?: number;
          ahead?: number;
          fromRest?: boolean;
          goalAtRest?: boolean;
          radius?: number;
          json?: boolean;
        }) => {
          const r = await (await train()).evaluateBackbone(o);
          if (o.json) io.out(JSON.stringify(r) + '\n');
          else {
            const what =
              r.ahead !== null
                ? `the recorded states ${r.ahead} steps ahead`
                : `waypoints at latent distance H_TD=${r.H_TD}`;
            io.out(
              `${r.world}: spearman ${r.spearman.toFixed(3)} on ${r.pairs} held-out ${r.dataset} pairs (goal ≥ ${r.goals.spearman}); executor reached ${(r.policy_success * 100).toFixed(1)}% of ${r.trials} trials to ${what}${r.from_rest ? ', from rest,' : ''}${r.goal_at_rest ? ' (aimed at rest)' : ''}${r.radius_m !== null ? ` to within ${r.radius_m} m` : ''} within ${r.budget_steps} steps (goal ≥ ${r.goals.executor * 100}%)\n`,
            );
          }
        },
      ),
    );
}

function registerBackboneTrain(backbone: Command, io: Output, setExit: (c: number) => void): void {
  backbone
    .command('train')
    .description(
      'reproduce a shipped backbone from scratch: generate a dataset (navigate unless --dataset), train ψ and π_low, write the bundle, evaluate',
    )
    .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
    .addOption(
      new Option(
        '--dataset <regime>',
        `the regime of the data, and so of the recipe and the bundle (default: the --data file's, else navigate); ${regimeBundlesText()}`,
      ).choices([...DATASET_KINDS]),
    )
    .option(
      '--out <dir>',
      'bundle folder (default: the shipped bundle of the regime: assets/models/<world>, or assets/models/<world>-<regime>)',
    )
    .option(
      '--data <file>',
      "train on this dataset (.wds of the world, e.g. a robot's own driving from `witness data import BAG`) instead of generating one",
    )
    .option(
      '--dataset-steps <n>',
      `transitions to generate (default: the world's recipe, ${R.datasetSteps} for most)`,
      intFlag('--dataset-steps', 1000),
    )
    .option(
      '--embed-steps <n>',
      `embedding gradient steps (default: the world's recipe, ${R.embedSteps} for most; both ψ of two-timescale)`,
      intFlag('--embed-steps', 1),
    )
    .option(
      '--policy-steps <n>',
      `executor gradient steps (default: the world's recipe, ${R.policySteps} for most)`,
      intFlag('--policy-steps', 1),
    )
    .option(
      '--recipe <name>',
      "'shipped' (the recipe of the world's shipped bundle of the regime: two-timescale on pointmaze-giant; on the Ant " +
        'mazes two-timescale with ψ reading x, y alone and π_low 2×64 on antmaze-medium and 2×128 on antmaze-large, ' +
        'antmaze-giant and every stitch bundle) or a variant: ' +
        "'path-distance' (a path-distance ψ rescaled to the TD scale, π_low 2×128), 'path-distance-far' (the same, " +
        "π_low trained on subgoals 24 latent units ahead), 'two-timescale' (the TD ψ with a path-distance ψ appended), " +
        "'expectile-td' (the TD ψ alone), 'ant-step-unit' (the Ant recipe with ψ rescaled to 0.5 latent units per " +
        "recorded step), 'ant-wide' (the Ant recipe with π_low 2×128)",
      'shipped',
    )
    .option('--seed <n>', 'seed of the dataset and of training', intFlag('--seed', 0), 0)
    .action(
      action(
        io,
        setExit,
        async (o: {
          world: string;
          out?: string;
          data?: string;
          dataset?: DatasetKind;
          recipe: string;
          datasetSteps?: number;
          embedSteps?: number;
          policySteps?: number;
          seed: number;
        }) => {
          const r = await (await train()).trainBackbone({ ...o, progress: (phase) => progressBar(io, phase) });
          io.out(
            `wrote ${r.out} in ${r.minutes.toFixed(1)} min; evaluate it with: witness backbone eval --world ${o.world}${o.dataset !== undefined && o.dataset !== 'navigate' ? ` --dataset ${o.dataset}` : ''}${o.out ? ` --models ${r.out}` : ''}\n`,
          );
        },
      ),
    );
}

function registerBackboneTrainHiql(backbone: Command, io: Output, setExit: (c: number) => void): void {
  hiqlFlags(
    backbone
      .command('train-hiql')
      .description(
        "train AP-HIQL's policies (bench ltl --methods ap-hiql) on the backbone the mission benchmark uses, or find them in the cache",
      )
      .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
      .addOption(
        new Option('--dataset <regime>', 'the dataset regime of the cached backbone (default navigate)').choices([
          ...DATASET_KINDS,
        ]),
      )
      .option('--graph <file>', 'a latent graph artifact (with --data) instead of the cached 1M-transition backbone')
      .option('--data <file>', 'the dataset the graph was built from')
      .option('--models <dir>', 'the model bundle (default: the shipped one)')
      .option('--cache <dir>', 'the cache folder (default: $WITNESS_CACHE, else $XDG_CACHE_HOME/witness)'),
    '',
    '',
  ).action(
    action(
      io,
      setExit,
      async (
        o: {
          world: string;
          dataset?: DatasetKind;
          graph?: string;
          data?: string;
          models?: string;
          cache?: string;
        } & Record<string, unknown>,
      ) => {
        const { world, dataset, graph, data, models, cache } = o;
        const r = await (
          await import('../app/hiql.js')
        ).benchHiql({
          world,
          ...(dataset !== undefined ? { dataset } : {}),
          ...(graph !== undefined ? { graph } : {}),
          ...(data !== undefined ? { data } : {}),
          ...(models !== undefined ? { models } : {}),
          ...(cache !== undefined ? { cache } : {}),
          hiql: hiqlFlagValues(o, ''),
          log: (line) => io.err(`backbone train-hiql: ${line}\n`),
        });
        io.out(
          r.trained
            ? `trained AP-HIQL's policies in ${r.seconds.toFixed(0)} s: ${r.dir}\n`
            : `AP-HIQL's policies are in the cache: ${r.dir}\n`,
        );
      },
    ),
  );
}

function registerBackboneEvalHiql(backbone: Command, io: Output, setExit: (c: number) => void): void {
  hiqlFlags(
    backbone
      .command('eval-hiql')
      .description(
        "AP-HIQL's goal reaching alone (no LTL), OGBench style: far start/goal pairs of dataset states, success within --radius m; SAGAS reaching the same goals (F goal) as the yardstick",
      )
      .requiredOption('--world <id>', 'world, e.g. pointmaze-medium')
      .addOption(
        new Option('--dataset <regime>', 'the dataset regime of the cached backbone (default navigate)').choices([
          ...DATASET_KINDS,
        ]),
      )
      .option('--goals <n>', 'start/goal pairs', intFlag('--goals', 1, 100_000), 20)
      .option('--seed <n>', 'seed of the pairs and the simulator', intFlag('--seed', 0), 0)
      .option('--max-steps <n>', 'steps allowed per pair', intFlag('--max-steps', 1, 1_000_000), 1000)
      .option('--radius <m>', 'success within this distance of the goal position', numberFlag('--radius', 1e-6, 1e6), 1)
      .option(
        '--min-cells <n>',
        'geodesic distance between start and goal cells, at least',
        intFlag('--min-cells', 0, 10_000),
        5,
      )
      .option('--goal-at-rest', 'steer HIQL for the goal position at rest instead of the recorded dataset state')
      .option('--no-sagas', 'do not run SAGAS on the same pairs')
      .addOption(
        new Option(
          '--hiql-low <policy>',
          "the low-level policy under HIQL's π_h: 'hiql' (its own π_l) or 'pi-low' (the backbone's π_low, fed the unit direction toward π_h's subgoal)",
        )
          .choices([...HIQL_LOWS])
          .default('hiql'),
      )
      .option('--pictures <dir>', 'write an SVG of every failed HIQL rollout here')
      .option('--cache <dir>', 'the cache folder (default: $WITNESS_CACHE, else $XDG_CACHE_HOME/witness)')
      .option('--json', 'print JSON'),
    'hiql-',
    '',
  ).action(
    action(
      io,
      setExit,
      async (
        o: {
          world: string;
          dataset?: DatasetKind;
          goals: number;
          seed: number;
          maxSteps: number;
          radius: number;
          minCells: number;
          goalAtRest?: boolean;
          sagas: boolean;
          hiqlLow: HiqlLow;
          pictures?: string;
          cache?: string;
          json?: boolean;
        } & Record<string, unknown>,
      ) => {
        const r = await (
          await import('../app/hiql-eval.js')
        ).evalHiql({
          world: o.world,
          goals: o.goals,
          seed: o.seed,
          maxSteps: o.maxSteps,
          radius: o.radius,
          minCells: o.minCells,
          goalAtRest: o.goalAtRest === true,
          sagas: o.sagas,
          hiql: hiqlFlagValues(o, 'hiql-'),
          low: o.hiqlLow,
          ...(o.dataset !== undefined ? { dataset: o.dataset } : {}),
          ...(o.cache !== undefined ? { cache: o.cache } : {}),
          ...(o.pictures !== undefined ? { pictures: o.pictures } : {}),
          log: (line) => io.err(`backbone eval-hiql: ${line}\n`),
        });
        if (o.json === true) {
          io.out(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        const pct = (x: number): string => `${(100 * x).toFixed(0)} %`;
        io.out(
          `${r.world}: ${r.pairs.length} pairs, success within ${o.radius} m in ${o.maxSteps} steps: AP-HIQL ${pct(r.hiqlSuccess)}${r.sagasSuccess !== null ? `, SAGAS ${pct(r.sagasSuccess)}` : ''}\n`,
        );
        io.out(
          `AP-HIQL successes the old no-progress rule (H_low = 100 steps) would have abandoned first: ${r.hiqlTimeoutFirst}\n`,
        );
        const p = r.psiRange;
        io.out(
          `HIQL's value ‖ψ(s) − ψ(g)‖ by geodesic distance (cells: median): ${p.byCells.map((x) => `${x.cells}: ${x.median.toFixed(0)}`).join(', ')}; farther cell ranked nearer in ${p.misranked}/${p.triples} triples (${pct(p.triples > 0 ? p.misranked / p.triples : 0)})\n`,
        );
      },
    ),
  );
}

export function backboneCommand(io: Output, setExit: (c: number) => void): Command {
  const backbone = new Command('backbone').description('the reachability backbone: embedding ψ and executor π_low');
  registerBackboneEval(backbone, io, setExit);
  registerBackboneTrain(backbone, io, setExit);
  registerBackboneTrainHiql(backbone, io, setExit);
  registerBackboneEvalHiql(backbone, io, setExit);
  return backbone;
}
