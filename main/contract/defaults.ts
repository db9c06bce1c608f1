/**
 * Method lists and defaults, defined once: the planner, the mission executor, the CLI, the API
 * schemas and the UI's forms all read them from here (the renderer included, so no form can offer
 * a default the engine does not use). Values follow Table J.1 of the SAGAS paper where it gives one.
 */

/** Planners over a semantic graph: SAGAS and the paper's two baselines. */
export const PLAN_METHODS = ['sagas', 'lf-gas', 'ga-gas'] as const;
export type PlanMethod = (typeof PLAN_METHODS)[number];

/** Mission methods: the planners, and SAGAS that replans after a monitor failure. */
export const MISSION_METHODS = [...PLAN_METHODS, 'sagas-replan'] as const;
export type MissionMethod = (typeof MISSION_METHODS)[number];
/** The planner every plan of a mission method is made with (sagas-replan plans with SAGAS). */
export const plannerOf = (m: MissionMethod): PlanMethod => (m === 'sagas-replan' ? 'sagas' : m);
/**
 * Whether a mission method replans after a failure unless told otherwise: only sagas-replan. The
 * console replans with whichever planner the operator chose (an operator is there to decide past R).
 */
export const replansByDefault = (m: MissionMethod): boolean => m === 'sagas-replan';
/**
 * `bench ltl` only: the paired ablations of SAGAS (Appendix H), run beside the other methods on the
 * same tasks, starts, graph and executor. sagas-nosoft: no soft-label screening of negative literals
 * on cluster nodes during product search; sagas-nosteer: no guard-aware runtime steering;
 * sagas-nodelatent: ordinary waypoints steered to their node's latent (the mean of its member states)
 * instead of ψ of the node's position at rest (ours, not the paper's: ExecParams.targets).
 */
export const ABLATION_METHODS = ['sagas-nosoft', 'sagas-nosteer', 'sagas-nodelatent'] as const;
/**
 * `bench ltl` only: the paper's learning-based baseline (Appendix E). AP-HIQL plans an accepting
 * label sequence on the automaton alone and reaches dataset representatives of the regions with a
 * HIQL goal-conditioned executor (core/exec/hiql-mission.ts), trained once per backbone and cached.
 * Not in the default method list: its first use trains for minutes. 'ap-hiql-pilow' is the same
 * baseline with the backbone's π_low under HIQL's π_h instead of HIQL's own low-level policy (the
 * one SAGAS executes with; app/hiql.ts HiqlLow): on the Ant, HIQL's own π_l at our training budget
 * copies the gait's momentum and ignores the subgoal (docs/studies/defaults.md).
 */
export const BASELINE_METHODS = ['ap-hiql', 'ap-hiql-pilow'] as const;
/** The low-level policies HIQL's π_h can drive (app/hiql.ts hiqlExecutor): its own π_l, or the backbone's π_low. */
export const HIQL_LOWS = ['hiql', 'pi-low'] as const;
export type HiqlLow = (typeof HIQL_LOWS)[number];
/** The low-level policy a baseline method runs under HIQL's π_h. */
export const HIQL_METHOD_LOW: Readonly<Record<BaselineMethod, HiqlLow>> = {
  'ap-hiql': 'hiql',
  'ap-hiql-pilow': 'pi-low',
};
export const BENCH_METHODS = [...MISSION_METHODS, ...ABLATION_METHODS, ...BASELINE_METHODS] as const;
export type BenchMethod = (typeof BENCH_METHODS)[number];
export type BaselineMethod = (typeof BASELINE_METHODS)[number];
export const isBaselineMethod = (m: string): m is BaselineMethod => (BASELINE_METHODS as readonly string[]).includes(m);

export const PLAN_DEFAULTS = {
  /** Prefix candidates K (Table J.1: 5); labelled graphs plan exactly (K = all). */
  k: 5,
  /** Prefix–suffix trade-off λ. */
  lambda: 0.5,
  /** Soft-label threshold τ_soft for negative literals on cluster nodes. */
  tauSoft: 0.05,
  /** Time budget of one planning request from the UI or the API, ms. */
  apiTimeLimit_ms: 30_000,
  /** Time budget of `witness plan`, ms. */
  cliTimeLimit_ms: 60_000,
} as const;

export const AUGMENT_DEFAULTS = {
  /** Anchors per proposition N_s. */
  anchors: 3,
  /** Anchor candidates retrieved per proposition. */
  attempts: 50,
} as const;

export const MISSION_DEFAULTS = {
  method: 'sagas' as MissionMethod,
  /** Rollout budget C_max in environment steps (Table J.1, AntMaze: 8000). */
  maxSteps: 8000,
  /** Replanning budget R of sagas-replan; past it the mission escalates. */
  replans: 3,
  /** Navigate transitions generated for the backbone of `witness run` when no graph is given. */
  datasetSteps: 300_000,
  /** … and of a mission planned in the console (big enough for a good graph, built in seconds). */
  consoleDatasetSteps: 100_000,
  /** Simulated steps per second the console runs a mission at (0: as fast as possible). */
  consoleSpeed: 200,
  seed: 0,
} as const;

/** The operator's answers to an escalation. */
export const DECISIONS = ['abort', 'retry', 'skip'] as const;
export type DecisionKind = (typeof DECISIONS)[number];

/** What a mission escalation may be answered with (a mission has no subtask to skip). */
export const MISSION_DECISIONS = ['abort', 'retry'] as const satisfies readonly DecisionKind[];

/** ψ, the temporal-distance embedding (expectile TD). */
export const EMBED_DEFAULTS = {
  hidden: [128, 128],
  latent: 32,
  batch: 512,
  steps: 20_000,
  learningRate: 3e-4,
  gamma: 0.99,
  expectile: 0.9,
  tau: 0.005,
  pCurrent: 0.2,
  pTrajectory: 0.5,
  seed: 0,
} as const;

/** π_low, the executor (DDPG+BC with the directional reward). */
export const POLICY_DEFAULTS = {
  hidden: [128, 128],
  batch: 512,
  steps: 20_000,
  learningRate: 3e-4,
  gamma: 0.99,
  tau: 0.005,
  alpha: 2.5,
  H_TD: 8,
  seed: 0,
} as const;

/**
 * AP-HIQL's two policies (HIQL, Park et al. 2023), trained by advantage-weighted regression on the
 * backbone's value V(s, g) = −‖ψ(s) − ψ(g)‖: π_h proposes the latent offset to the state
 * `subgoalSteps` ahead, π_l acts toward it. subgoalSteps and the AWR temperatures are OGBench's HIQL
 * values for pointmaze; the networks are sized to train in minutes of CPU per maze
 * (docs/studies/defaults.md).
 */
export const HIQL_DEFAULTS = {
  hidden: [64, 64],
  batch: 256,
  steps: 30_000,
  learningRate: 3e-4,
  subgoalSteps: 25,
  highAlpha: 3,
  lowAlpha: 3,
  maxWeight: 100,
  seed: 0,
} as const;

/** How a shipped backbone is trained from scratch (`witness backbone train --world W`). */
export interface BackboneRecipe {
  readonly datasetSteps: number;
  readonly embedSteps: number;
  readonly policySteps: number;
  /** Hidden widths of ψ. */
  readonly hidden: readonly number[];
  /** Hidden widths of π_low and its critics. */
  readonly policyHidden: readonly number[];
  readonly latent: number;
  readonly batch: number;
  readonly H_TD: number;
  /** ψ's discount: its horizon 1/(1 − γ) in steps must cover the maze's long routes. */
  readonly gamma: number;
  /** ψ's TD target raised to the recorded path's return (embed-trainer's pathBound). */
  readonly pathBound: boolean;
  /** ψ's objective (embed-trainer's EmbedConfig.objective). */
  readonly objective: 'expectile-td' | 'path-distance';
  /**
   * Rescale ψ after training so that a recorded H_TD-step offset spans this many latent units per
   * step (median over the dataset); null keeps ψ's own unit. The pipeline's latent thresholds are
   * read against H_TD (core/models/latent-scale.ts).
   */
  readonly calibrate: number | null;
  /** π_low's subgoal horizons in latent units, taken in turn row by row (null: H_TD alone). */
  readonly policySubgoals: readonly number[] | null;
  /** π_low's TD3+BC α (larger trusts the critic more; 0 is behaviour cloning toward the subgoal direction). */
  readonly policyAlpha: number;
  /** The observation entries ψ reads (EmbedConfig.inputs; null: all). */
  readonly embedInputs: readonly number[] | null;
  /**
   * A second, path-distance ψ appended to the first (core/models/concat.ts): ψ = [ψ_TD; scale·ψ_far],
   * then rescaled so that a recorded H_TD-step offset spans what it did in ψ_TD alone (the local unit
   * every threshold is read in); the latent has twice `latent` dimensions. null: ψ_TD alone.
   */
  readonly far: {
    readonly hidden: readonly number[];
    readonly steps: number;
    readonly gamma: number;
    readonly scale: number;
  } | null;
}

/** The recipe of the shipped medium and large point-maze models: sized to train from scratch on a laptop's CPU. */
export const BACKBONE_RECIPE: BackboneRecipe = {
  datasetSteps: 1_000_000,
  embedSteps: 15_000,
  policySteps: 30_000,
  hidden: [64, 64],
  policyHidden: [64, 64],
  latent: 32,
  batch: 256,
  H_TD: 8,
  gamma: 0.99,
  pathBound: false,
  objective: 'expectile-td',
  calibrate: null,
  policySubgoals: null,
  policyAlpha: POLICY_DEFAULTS.alpha,
  embedInputs: null,
  far: null,
};

/**
 * The TD ψ of BACKBONE_RECIPE with a path-distance ψ (2×256, 10k steps, γ = 0.995 offsets) appended
 * at 0.2 of its scale: the far ψ ranks long distances, which the TD ψ alone does not on the giant
 * maze, while the local geometry the executor steers by stays nearly as it was
 * (docs/studies/defaults.md).
 */
const TWO_TIMESCALE: BackboneRecipe = {
  ...BACKBONE_RECIPE,
  far: { hidden: [256, 256], steps: 10_000, gamma: 0.995, scale: 0.2 },
};

/**
 * The Ant mazes' recipe: giant's two timescales (TWO_TIMESCALE) with both ψ reading the body's
 * position x, y alone (observation entries 0 and 1), and π_low by TD3+BC at α = 1. ψ on more entries
 * separates the gait's joint phases or follows its speed oscillation, and one timescale on x, y ranks
 * distance poorly; π_low reads all 29 entries (without the velocities it walks the wrong way), and a
 * larger α overturns the Ant where α = 0 ignores the direction (docs/studies/defaults.md).
 */
const ANT: BackboneRecipe = { ...TWO_TIMESCALE, embedInputs: [0, 1], policyAlpha: 1 };

/**
 * antmaze-giant's and antmaze-large's recipe: the Ant's, with π_low at 2×128. Their ψ measures fewer
 * latent units per recorded step than medium's, so H_TD waypoints lie farther and must be met as
 * precisely: the wider π_low meets more of them (docs/studies/defaults.md). The shipped
 * bundles are this recipe's (test/contract/shipped-recipes.test.ts).
 */
const ANT_WIDE: BackboneRecipe = { ...ANT, policyHidden: [128, 128] };

/** Worlds whose shipped models follow another recipe than BACKBONE_RECIPE. */
const BACKBONE_RECIPES: Readonly<Record<string, BackboneRecipe>> = {
  'pointmaze-giant': TWO_TIMESCALE,
  'antmaze-medium': ANT,
  'antmaze-large': ANT_WIDE,
  'antmaze-giant': ANT_WIDE,
};

/**
 * Recipes one can ask for by name (`witness backbone train --recipe NAME`). 'path-distance': ψ by path distance (no
 * bootstrapping; γ = 0.995 offsets), 2×256 for 10k steps, with π_low at 2×128 for 40k steps; rescaled to 0.9 latent
 * units per step at H_TD. It ranks geodesic distance better than expectile TD, but is not shipped: plans through its
 * velocity-separated cluster nodes are not trackable by π_low (docs/studies/defaults.md).
 */
const PATH_DISTANCE: BackboneRecipe = {
  ...BACKBONE_RECIPE,
  embedSteps: 10_000,
  policySteps: 40_000,
  hidden: [256, 256],
  policyHidden: [128, 128],
  gamma: 0.995,
  objective: 'path-distance',
  calibrate: 0.9,
};
export const BACKBONE_VARIANTS: Readonly<Record<string, BackboneRecipe>> = {
  'path-distance': PATH_DISTANCE,
  /**
   * The same ψ, and π_low trained on subgoals 24 latent units ahead instead of H_TD: on the
   * path-distance ψ an executor trained on H_TD subgoals does not follow the latent direction
   * around corners.
   */
  'path-distance-far': { ...PATH_DISTANCE, policySubgoals: [24] },
  /** Giant's shipped recipe, for the other worlds too. */
  'two-timescale': TWO_TIMESCALE,
  /**
   * The medium and large mazes' recipe (BACKBONE_RECIPE: the expectile-TD ψ alone), for any world: for
   * explore data, where the two-timescale recipe's path-distance ψ, trained on random-direction data, is
   * noisy at short range and the graph's temporal-efficiency filter then keeps almost nothing.
   */
  'expectile-td': BACKBONE_RECIPE,
  /**
   * The Ant mazes' recipe with ψ rescaled to 0.5 latent units per recorded step (about antmaze-medium's
   * own unit): ψ_TD's own unit shrinks as the maze grows, so an H_TD waypoint lies farther ahead on the
   * larger mazes; this fixes the unit instead. Not shipped.
   */
  'ant-step-unit': { ...ANT, calibrate: 0.5 },
  /**
   * The Ant's recipe with π_low 2×128 (antmaze-large's and -giant's shipped recipe), for any world:
   * for medium, where the shipped π_low is 2×64. Not shipped for medium.
   */
  'ant-wide': ANT_WIDE,
};

/**
 * What a world's backbone should reach (`witness backbone eval` prints them beside its figures):
 * Spearman of latent against geodesic distance, and the executor's share of H_TD subgoals reached,
 * as fractions. The giant point maze and the Ant mazes have lower goals than the other point mazes.
 */
export function backboneGoals(world: string): { readonly spearman: number; readonly executor: number } {
  if (world.startsWith('antmaze-')) return { spearman: 0.85, executor: 0.9 };
  if (world === 'pointmaze-giant') return { spearman: 0.85, executor: 0.95 };
  return { spearman: 0.9, executor: 0.95 };
}

/**
 * The bundles a world ships for a dataset regime of its own, beside its navigate bundle
 * (assets/models/<world>): assets/models/<world>-<regime>, trained by this recipe on 1M transitions
 * of that regime (`witness backbone train --world W --dataset R`), the one `bench ltl --dataset R`
 * runs on, as OGBench (and so the paper) trains every agent on each dataset. Only where the regime's
 * own bundle does better (stitch on the medium and large Ant mazes, with π_low at 2×128); elsewhere the
 * navigate bundle is kept: an explore-trained π_low imitates the regime's noise
 * (docs/studies/defaults.md).
 */
export const REGIME_RECIPES: Readonly<Record<string, Readonly<Partial<Record<DatasetKind, BackboneRecipe>>>>> = {
  'antmaze-medium': { stitch: ANT_WIDE },
  'antmaze-large': { stitch: ANT_WIDE },
};

/**
 * The shipped bundle a world's missions on a regime's data run on: `<world>-<regime>` where REGIME_RECIPES has one,
 * else the world's own.
 */
export function shippedBundleName(world: string, regime: DatasetKind = 'navigate'): string {
  return regime !== 'navigate' && REGIME_RECIPES[world]?.[regime] !== undefined ? `${world}-${regime}` : world;
}

/** Every shipped bundle name of a world: its own (navigate) first, then its regimes'. */
export function shippedBundleNames(world: string): string[] {
  return [...new Set(DATASET_KINDS.map((k) => shippedBundleName(world, k)))];
}

/** The recipe of a world's shipped models (of the regime's bundle, where one ships), or the named variant. */
export function backboneRecipe(world: string, variant?: string, regime: DatasetKind = 'navigate'): BackboneRecipe {
  if (variant !== undefined && variant !== 'shipped') {
    const v = BACKBONE_VARIANTS[variant];
    if (v === undefined)
      throw new RangeError(
        `unknown recipe "${variant}" (known: shipped, ${Object.keys(BACKBONE_VARIANTS).join(', ')})`,
      );
    return v;
  }
  return REGIME_RECIPES[world]?.[regime] ?? BACKBONE_RECIPES[world] ?? BACKBONE_RECIPE;
}

/** A bundle trained from the console. */
export const TRAIN_DEFAULTS = {
  /** Navigate transitions of the dataset a bundle is trained on. */
  datasetSteps: 100_000,
  embedSteps: EMBED_DEFAULTS.steps,
  policySteps: POLICY_DEFAULTS.steps,
  seed: 0,
} as const;

/** A model bundle's name in the workspace (models/<name>). */
export const BUNDLE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/**
 * The LLM planner's client (an OpenAI-compatible server): how long one request may take, the
 * largest reply it reads, and the caps on a proposed call's arguments — checked before the
 * arguments are validated, so nothing larger reaches the world, the audit log or the next request.
 */
export const LLM_DEFAULTS = {
  timeout_ms: 60_000,
  /** Attempts per turn for timeouts and server errors (5xx, 429). */
  attempts: 2,
  maxReplyBytes: 8 * 1024 * 1024,
  /** The longest string (a value or a key) in a call's arguments, UTF-8 bytes. */
  maxArgumentStringBytes: 64 * 1024,
  /** A call's whole arguments, as the JSON text the model sent, UTF-8 bytes. */
  maxArgumentsBytes: 1024 * 1024,
} as const;

/** Replan budget R of the tool loop when a command does not say. */
export const LOOP_DEFAULTS = { replans: 2, maxSchemaErrors: 3, maxSteps: 50 } as const;

/**
 * The embedded MuJoCo point mazes (OGBench's layouts) and the Ant mazes (the same layouts at 4 m
 * cells, a quadruped under joint-level control): missions and benchmarks run on both, each on its
 * world's model bundle. And every embedded world.
 */
export const MAZE_WORLDS = ['pointmaze-medium', 'pointmaze-large', 'pointmaze-giant'] as const;
export const ANT_WORLDS = ['antmaze-medium', 'antmaze-large', 'antmaze-giant'] as const;
export type AntWorld = (typeof ANT_WORLDS)[number];
/** The embedded worlds missions, `bench ltl` and AP-HIQL run in. */
export const MISSION_WORLDS: readonly string[] = [...MAZE_WORLDS, ...ANT_WORLDS];
export const TABLETOP_WORLD = 'tabletop';
export const EMBEDDED_WORLDS: readonly string[] = [...MAZE_WORLDS, ...ANT_WORLDS, TABLETOP_WORLD];

/** The offline data regimes of OGBench the generators reproduce. */
export const DATASET_KINDS = ['navigate', 'stitch', 'explore'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];

/** The regime a dataset was generated in, from its generator record (undefined for imported data). */
export function datasetRegime(generator: Readonly<Record<string, unknown>>): DatasetKind | undefined {
  const k = generator['kind'];
  return typeof k === 'string' && (DATASET_KINDS as readonly string[]).includes(k) ? (k as DatasetKind) : undefined;
}

/**
 * The regime of the data a bundle was trained on, from its manifest's `training` record (the given
 * file's generator, or the generated dataset's kind); undefined when it does not say (imported data).
 */
export function trainedRegime(training: Readonly<Record<string, unknown>>): DatasetKind | undefined {
  const d = training['dataset'];
  if (typeof d !== 'object' || d === null) return undefined;
  const rec = d as { kind?: unknown; generator?: unknown };
  return datasetRegime(
    typeof rec.generator === 'object' && rec.generator !== null
      ? (rec.generator as Record<string, unknown>)
      : { kind: rec.kind },
  );
}

/** The latent graph (Appendix B.1): the temporal-efficiency filter's cosine threshold, the subgoal horizon. */
export const GRAPH_DEFAULTS = { H_TD: 8, teThreshold: 0.99 } as const;

/** `witness graph from-map`: lattice spacing and clearance in metres (a TurtleBot3-sized robot). */
export const MAP_GRAPH_DEFAULTS = { spacing: 1.0, clearance: 0.25 } as const;

/** How an automaton is printed: HOA v1, JSON, or Graphviz DOT. */
export const LTL_OUTPUT_FORMATS = ['hoa', 'json', 'dot'] as const;
/** What a run of the audit log exports to. */
export const AUDIT_EXPORT_FORMATS = ['jsonl', 'csv', 'mcap'] as const;

/**
 * Lab runs go to their own database by default (in the current folder), so thousands of episodes never fill the
 * operator's log.
 */
export const LAB_AUDIT_FILE = 'witness-lab.audit.sqlite';

/** The console's live Foxglove server (it binds 127.0.0.1 only). */
export const FOXGLOVE_DEFAULTS = {
  /** The port Foxglove and Lichtblick suggest for a Foxglove WebSocket connection. */
  port: 8765,
} as const;
