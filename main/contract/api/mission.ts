// Contract, operator console: worlds, planning a mission (a long job with progress), running it
// with pause, stop and emergency stop, live progress, and the operator's decision on escalation.
import { type Static, Type } from '@sinclair/typebox';
import type { AutomatonView, GraphScene, PlanView } from './scene.js';
import { NoParams } from './core.js';
import { BUNDLE_NAME_PATTERN, DECISIONS, PLAN_METHODS, type PlanMethod } from '../defaults.js';
import type { Escalation } from '../failure.js';
import { StringEnum } from '../schema.js';

export interface WorldInfo {
  /** A maze's id, or `ros2:<configuration file>` for a robot. */
  id: string;
  title: string;
  /**
   * `robot`: a ROS 2 robot whose configuration has a `waypoints` section: missions on a map graph through its
   * navigation.
   */
  kind: 'maze' | 'tabletop' | 'robot';
  /** The regions file shipped for the world (relative to the app's assets), if any, and its text. */
  regions: string | null;
  regionsText: string | null;
  /** An example specification over those regions. */
  exampleSpec: string | null;
  /** The model bundles for the world: shipped ones by name, ones trained in the workspace as `workspace/<name>`. */
  models: string[];
  /**
   * Robots: the map graphs of the workspace (`graphs/**.json`, from `witness graph from-map`) a mission can plan on.
   */
  graphs?: string[];
  /** Why the world cannot be used as it is (a robot configuration that does not check), if so. */
  problem?: string;
}

const ID = Type.String({ minLength: 1, maxLength: 200 });
const strict = { additionalProperties: false } as const;

export const MissionPlanRequest = Type.Object(
  {
    job: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'a client-chosen id: progress events carry it and cancelJob takes it',
    }),
    world: ID,
    models: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'the model bundle (ψ and π_low) to plan and execute with: one of WorldInfo.models (default: the first)',
      }),
    ),
    graph: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          "robots: the map graph to plan on, a workspace path (one of WorldInfo.graphs); the start is the robot's pose when planning",
      }),
    ),
    spec: Type.String({ minLength: 1, maxLength: 100_000 }),
    regions: Type.String({
      minLength: 1,
      maxLength: 1_000_000,
      description: "the regions file's text (JSON, docs/FORMATS.md)",
    }),
    start: Type.Optional(
      Type.Array(Type.Number(), {
        minItems: 2,
        maxItems: 2,
        description: 'start position in metres; default: a free cell drawn from the seed',
      }),
    ),
    method: Type.Optional(StringEnum(PLAN_METHODS)),
    lambda: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    datasetSteps: Type.Optional(
      Type.Integer({
        minimum: 1000,
        maximum: 2_000_000,
        description: 'transitions of the navigate dataset the backbone is built from',
      }),
    ),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  strict,
);
export type MissionPlanRequest = Omit<Static<typeof MissionPlanRequest>, 'start'> & { start?: [number, number] };

export const TrainModelsRequest = Type.Object(
  {
    job: ID,
    world: ID,
    name: Type.String({
      pattern: BUNDLE_NAME_PATTERN,
      description: "folder name under the workspace's models/ (letters, digits, '.', '_', '-')",
    }),
    datasetSteps: Type.Optional(Type.Integer({ minimum: 1000, maximum: 5_000_000 })),
    embedSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    policySteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  strict,
);
export type TrainModelsRequest = Static<typeof TrainModelsRequest>;

export interface MissionPlanResult {
  /** Handle for missionRun. */
  session: string;
  scene: GraphScene;
  plan: PlanView;
  /**
   * The sha256 (hex) of the plan document (docs/FORMATS.md, "Plans": of its canonical JSON). Run
   * executes this very plan: the first `plan` event of its audit run records the same `plan_sha`.
   */
  plan_sha: string;
  /** The planner chosen: the run is recorded with this method, and its replans use it too. */
  method: PlanMethod;
  automaton: AutomatonView;
  planning_ms: number;
  /** The augmentation report: anchors, unavailable propositions, … */
  report: {
    anchors: number;
    unavailable: string[];
    nodes: number;
    /**
     * Mazes: the regime of the dataset the latent graph was built over (the model bundle's own) and its transitions.
     */
    dataset?: { regime: string; transitions: number };
  };
  /**
   * Robots: where the robot was when the plan was made (the plan starts there). Run refuses the plan
   * once the robot is farther than `tolerance_m` from it, and a plan runs once (the robot moves).
   */
  robot?: { x: number; y: number; tolerance_m: number };
}

export const MissionRunRequest = Type.Object(
  {
    session: ID,
    replans: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        description: 'replanning budget R; past it the run escalates to the operator',
      }),
    ),
    maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    speed: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1_000_000,
        description: 'simulated steps per second (the operator watches); 0 = as fast as possible',
      }),
    ),
  },
  strict,
);
export type MissionRunRequest = Static<typeof MissionRunRequest>;

const MISSION_ACTIONS = ['pause', 'resume', 'stop', 'estop'] as const;
export type MissionAction = (typeof MISSION_ACTIONS)[number];

export type RunState = 'running' | 'paused' | 'escalated' | 'stopped' | 'estopped' | 'finished';

/** An escalation as the console shows it: the contract's Escalation and the id its decision names. */
export type ConsoleEscalation = Escalation & { readonly id: string };

/** Where a running mission stands in its plan (core/exec/mission.ts MissionProgress). */
export interface MissionTickProgress {
  stream: 'prefix' | 'suffix';
  index: number;
  length: number;
  traversals: number;
  rounds: number;
}

/** A mission event as a run emits it; the run numbers it (`seq`) as it goes out: MissionEvent. */
export type MissionEventBody =
  /**
   * A step as the robot is about to act: pose, monitor states, labels, the target waypoint; `progress` the target's
   * index in its stream (prefix or suffix) of `length`, suffix traversals done of `rounds`; `distance_m` to the target,
   * `speed_mps` over the last step (world time; null when unknown), `elapsed_s` of wall time since the run started.
   */
  | {
      topic: 'mission.tick';
      run: string;
      t: number;
      x: number;
      y: number;
      states: number[];
      labels: string[];
      target: string | null;
      progress: MissionTickProgress;
      distance_m: number | null;
      speed_mps: number | null;
      elapsed_s: number;
    }
  | { topic: 'mission.state'; run: string; state: RunState }
  | { topic: 'mission.event'; run: string; t: number; kind: string; detail: string }
  /** A replan's plan as it is drawn live; `plan_sha` names its document, as its `plan` audit event does. */
  | { topic: 'mission.replan'; run: string; t: number; plan: PlanView; plan_sha: string; scene: GraphScene }
  | { topic: 'mission.escalation'; run: string; escalation: ConsoleEscalation }
  /**
   * `trajectory`: the whole driven path in task space, [x0, y0, x1, y1, …] (mm precision); the ticks are only a sample
   * of it.
   */
  /**
   * `outcome`: 'stopped' when the operator stopped it (stop, E-STOP), which is not a failure; 'safety' when the robot
   * entered a forbidden region and the mission stopped it.
   */
  | {
      topic: 'mission.end';
      run: string;
      success: boolean;
      outcome: 'success' | 'stopped' | 'safety' | 'failed';
      failureMode: string | null;
      message: string;
      steps: number;
      auditRun: string | null;
      trajectory: number[];
    };

/**
 * A mission event as every window receives it: `seq` numbers a run's events from 1, in the order the
 * run emitted them, so a window that joins a run from its snapshot (missionLive) applies only the
 * events that came after it.
 */
export type MissionEvent = MissionEventBody & { seq: number };

/** One mission.tick as a snapshot keeps it (the run and seq are the snapshot's). */
export type MissionLiveTick = Omit<Extract<MissionEventBody, { topic: 'mission.tick' }>, 'topic' | 'run'>;

/**
 * The console's current mission run (running, paused, waiting for a decision) or the last one, as a
 * window that opens now needs it to join: what it runs, where it stands, and what happened so far.
 */
export interface MissionLive {
  run: string;
  /** Its run in the audit log (null until it is recorded). */
  auditRun: string | null;
  state: RunState;
  /** The last of the run's events (MissionEvent.seq) this snapshot includes. */
  seq: number;
  /** The planned mission it executes (missionSession; a robot's plan is spent once it runs). */
  session: string;
  /** The plan in force and its scene: the plan shown when it started, or the latest replan's. */
  scene: GraphScene;
  plan: PlanView;
  /** The sha256 of the plan document served, which the run executes first (its first `plan` audit event's). */
  shown_sha: string;
  /** The sha256 of the plan in force: the served one, or the latest replan's. */
  plan_sha: string;
  automaton: AutomatonView;
  /** The step of the latest replan (null: none yet). */
  replannedAt: number | null;
  /**
   * The ticks so far, oldest first: the trail and the plots. Bounded (app/live-mission.ts MAX_LIVE_TICKS): when
   * full, the older half keeps every other tick (the recent past keeps full resolution).
   */
  ticks: MissionLiveTick[];
  /** Ticks the run emitted (more than `ticks` once thinned). */
  tickCount: number;
  /** The event list's lines so far, oldest first (the last MAX_LIVE_EVENTS of app/live-mission.ts). */
  events: { t: number; kind: string; detail: string }[];
  /** The escalation waiting for a decision, if any. */
  escalation: ConsoleEscalation | null;
  /** How it ended, once it has. */
  end: Omit<Extract<MissionEventBody, { topic: 'mission.end' }>, 'topic' | 'run'> | null;
}

/** The emergency stop's latch: while latched, nothing starts, resumes or is retried. */
export type EstopState =
  | { latched: false }
  | {
      latched: true;
      /** When it fired (ms since the epoch) and who fired it (the account running the workbench). */
      since: number;
      by: string;
      reason: string;
      /** The audit runs it stopped (missions and tool loops, as the audit log names them). */
      stopped: string[];
      /** The audit run that records this latch (null until it is written). */
      auditRun: string | null;
      /** Why the E-STOP could not be recorded, if it could not (it latched all the same). */
      recordError: string | null;
      /** Restored when the workbench started: it had stopped (crashed, restarted) while latched. */
      restored?: true;
    };

export type EstopEvent = { topic: 'estop'; state: EstopState };

const EmergencyStopRequest = Type.Object(
  {
    note: Type.Optional(
      Type.String({
        maxLength: 10_000,
        description: "what the operator was typing when it fired (an escalation's reason): kept in the record",
      }),
    ),
  },
  strict,
);
const EstopResetRequest = Type.Object(
  {
    acknowledged: Type.Literal(true, {
      description: 'the operator confirms that the robot and its surroundings are safe to move again',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description:
        'what was checked, in at least a few visible characters (contract/reason.ts): recorded in the audit log with who reset it',
    }),
  },
  strict,
);

const MissionSessionRequest = Type.Object({ session: ID }, strict);

const MissionControlRequest = Type.Object({ run: ID, action: StringEnum(MISSION_ACTIONS) }, strict);
const EscalationDecideRequest = Type.Object(
  {
    run: ID,
    escalation: ID,
    decision: StringEnum(DECISIONS, {
      description: "one of the escalation's options (a mission's: abort, retry; the tool loop's: abort, retry, skip)",
    }),
    reason: Type.String({ minLength: 1, maxLength: 10_000 }),
  },
  strict,
);

export interface MissionApi {
  listWorlds(params?: NoParams): Promise<WorldInfo[]>;
  /**
   * Builds (or reuses) the world's backbone, augments it for the task and plans: a long job with progress, cancellable.
   */
  missionPlan(params: MissionPlanRequest): Promise<MissionPlanResult>;
  /** A plan the workbench still holds (the console shows it again after a reload). */
  missionSession(params: Static<typeof MissionSessionRequest>): Promise<MissionPlanResult>;
  /** Starts executing a planned mission; progress arrives as mission.* events. */
  missionRun(params: MissionRunRequest): Promise<{ run: string; auditRun: string | null }>;
  missionControl(params: Static<typeof MissionControlRequest>): Promise<{ state: RunState }>;
  /**
   * The console's current mission run, or the last one (null: none ran yet): what a window that opens
   * mid-run shows to join it; the run's later events carry a higher `seq`.
   */
  missionLive(params?: NoParams): Promise<{ mission: MissionLive | null }>;
  /**
   * Trains a model bundle (ψ and π_low) for a world from a fresh navigate dataset into the
   * workspace's models/<name>: a long job with progress, cancellable; resolves to its models id.
   */
  trainModels(params: TrainModelsRequest): Promise<{ models: string; dir: string }>;
  /**
   * The emergency stop: stops every running mission and tool loop at once and latches; resolves to
   * the audit runs it stopped and the latch.
   */
  emergencyStop(params?: Static<typeof EmergencyStopRequest>): Promise<{ stopped: string[]; state: EstopState }>;
  /** Whether the emergency stop is latched (every window shows it). */
  estopState(params?: NoParams): Promise<EstopState>;
  /** Resets a latched emergency stop: acknowledged, with a reason; who and why go to the audit log first. */
  estopReset(params: Static<typeof EstopResetRequest>): Promise<EstopState>;
  /** The operator's answer to an escalation; recorded in the audit log with the reason. */
  escalationDecide(params: Static<typeof EscalationDecideRequest>): Promise<{ accepted: boolean }>;
}

export const MISSION_PARAMS = {
  listWorlds: NoParams,
  missionPlan: MissionPlanRequest,
  missionSession: MissionSessionRequest,
  missionRun: MissionRunRequest,
  emergencyStop: EmergencyStopRequest,
  estopState: NoParams,
  estopReset: EstopResetRequest,
  trainModels: TrainModelsRequest,
  missionControl: MissionControlRequest,
  missionLive: NoParams,
  escalationDecide: EscalationDecideRequest,
} as const satisfies Record<keyof MissionApi, object>;
