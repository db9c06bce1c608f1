// Contract, operator console: worlds, planning a mission (a long job with progress), running it
// with pause, stop and emergency stop, live progress, and the operator's decision on escalation.
import type { AutomatonView, GraphScene, PlanView } from './scene.js';

export interface WorldInfo {
  id: string;
  title: string;
  kind: 'maze' | 'tabletop';
  /** The regions file shipped for the world (relative to the app's assets), if any, and its text. */
  regions: string | null;
  regionsText: string | null;
  /** An example specification over those regions. */
  exampleSpec: string | null;
  /** The model bundles for the world: shipped ones by name, ones trained in the workspace as `workspace/<name>`. */
  models: string[];
}

export interface MissionPlanRequest {
  /** A client-chosen id: progress events carry it and cancelJob takes it. */
  job: string;
  world: string;
  /** The model bundle (ψ and π_low) to plan and execute with: one of WorldInfo.models (default: the first). */
  models?: string;
  spec: string;
  /** The regions file's text (JSON, docs/FORMATS.md). */
  regions: string;
  /** Start position in metres; default: the world's first free cell. */
  start?: [number, number];
  method?: 'sagas' | 'lf-gas' | 'ga-gas';
  lambda?: number;
  k?: number;
  /** Transitions of the navigate dataset the backbone is built from. */
  datasetSteps?: number;
  seed?: number;
}

export interface TrainModelsRequest {
  job: string;
  world: string;
  /** Folder name under the workspace's models/ (letters, digits, '.', '_', '-'). */
  name: string;
  datasetSteps?: number;
  embedSteps?: number;
  policySteps?: number;
  seed?: number;
}

export interface MissionPlanResult {
  /** Handle for missionRun. */
  session: string;
  scene: GraphScene;
  plan: PlanView;
  automaton: AutomatonView;
  planning_ms: number;
  /** The augmentation report: anchors, unavailable propositions, … */
  report: { anchors: number; unavailable: string[]; nodes: number };
}

export interface MissionRunRequest {
  session: string;
  /** Replanning budget R; past it the run escalates to the operator. */
  replans?: number;
  maxSteps?: number;
  /** Simulated steps per second (the operator watches); 0 = as fast as possible. */
  speed?: number;
}

export type MissionAction = 'pause' | 'resume' | 'stop' | 'estop';

export type RunState = 'running' | 'paused' | 'escalated' | 'stopped' | 'estopped' | 'finished';

export interface Escalation {
  id: string;
  message: string;
  /** The failure records that led here, oldest first. */
  failures: unknown[];
  /** What the operator may decide. */
  options: ('abort' | 'retry')[];
}

export type MissionEvent =
  | { topic: 'mission.tick'; run: string; t: number; x: number; y: number; states: number[]; labels: string[]; target: string | null }
  | { topic: 'mission.state'; run: string; state: RunState }
  | { topic: 'mission.event'; run: string; t: number; kind: string; detail: string }
  | { topic: 'mission.replan'; run: string; t: number; plan: PlanView; scene: GraphScene }
  | { topic: 'mission.escalation'; run: string; escalation: Escalation }
  | { topic: 'mission.end'; run: string; success: boolean; failureMode: string | null; message: string; steps: number; auditRun: string | null };

export interface MissionApi {
  listWorlds(params?: Record<string, never>): Promise<WorldInfo[]>;
  /** Builds (or reuses) the world's backbone, augments it for the task and plans: a long job with progress, cancellable. */
  missionPlan(params: MissionPlanRequest): Promise<MissionPlanResult>;
  /** Starts executing a planned mission; progress arrives as mission.* events. */
  missionRun(params: MissionRunRequest): Promise<{ run: string; auditRun: string | null }>;
  missionControl(params: { run: string; action: MissionAction }): Promise<{ state: RunState }>;
  /**
   * Trains a model bundle (ψ and π_low) for a world from a fresh navigate dataset into the
   * workspace's models/<name>: a long job with progress, cancellable; resolves to its models id.
   */
  trainModels(params: TrainModelsRequest): Promise<{ models: string; dir: string }>;
  /** Stops every running mission at once (the emergency stop); resolves to the runs it stopped. */
  emergencyStop(params?: Record<string, never>): Promise<{ stopped: string[] }>;
  /** The operator's answer to an escalation; recorded in the audit log with the reason. */
  escalationDecide(params: { run: string; escalation: string; decision: 'abort' | 'retry'; reason: string }): Promise<{ accepted: boolean }>;
}

const ID = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const MISSION_PARAMS = {
  listWorlds: { type: 'object', additionalProperties: false },
  missionPlan: {
    type: 'object', required: ['job', 'world', 'spec', 'regions'], additionalProperties: false,
    properties: {
      job: ID, world: ID, models: ID,
      spec: { type: 'string', minLength: 1, maxLength: 100_000 },
      regions: { type: 'string', minLength: 1, maxLength: 1_000_000 },
      start: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
      method: { enum: ['sagas', 'lf-gas', 'ga-gas'] },
      lambda: { type: 'number', minimum: 0, maximum: 1 },
      k: { type: 'integer', minimum: 1, maximum: 1000 },
      datasetSteps: { type: 'integer', minimum: 1000, maximum: 2_000_000 },
      seed: { type: 'integer', minimum: 0 },
    },
  },
  missionRun: {
    type: 'object', required: ['session'], additionalProperties: false,
    properties: {
      session: ID,
      replans: { type: 'integer', minimum: 0, maximum: 100 },
      maxSteps: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      speed: { type: 'number', minimum: 0, maximum: 1_000_000 },
    },
  },
  emergencyStop: { type: 'object', additionalProperties: false },
  trainModels: {
    type: 'object', required: ['job', 'world', 'name'], additionalProperties: false,
    properties: {
      job: ID, world: ID,
      name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      datasetSteps: { type: 'integer', minimum: 1000, maximum: 5_000_000 },
      embedSteps: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      policySteps: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      seed: { type: 'integer', minimum: 0 },
    },
  },
  missionControl: { type: 'object', required: ['run', 'action'], additionalProperties: false, properties: { run: ID, action: { enum: ['pause', 'resume', 'stop', 'estop'] } } },
  escalationDecide: {
    type: 'object', required: ['run', 'escalation', 'decision', 'reason'], additionalProperties: false,
    properties: { run: ID, escalation: ID, decision: { enum: ['abort', 'retry'] }, reason: { type: 'string', minLength: 1, maxLength: 10_000 } },
  },
} as const satisfies Record<keyof MissionApi, object>;
