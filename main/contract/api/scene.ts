// Contract, graph view: the semantic graph in task-space coordinates, a plan over it, and the
// Büchi automaton — the data the Cytoscape views draw.
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../schema.js';

export interface SceneNode {
  id: string;
  /** Task-space position in metres. */
  x: number;
  y: number;
  kind: 'labelled' | 'cluster' | 'anchor' | 'start';
  /** Propositions that hold at the node (hard labels). */
  labels: string[];
  /** Soft label per proposition in [0, 1] (absent = 0). */
  soft: Record<string, number>;
  /** Dataset states the node stands for (its support set size). */
  support: number;
  /** An anchor's proposition. */
  anchorOf?: string;
}

export interface GraphScene {
  world: string;
  /**
   * World y grows downwards on screen (the mazes: rows top to bottom, as in `witness run --picture`);
   * otherwise y is up.
   */
  yDown?: boolean;
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
  /**
   * A picture of the world (SVG markup, walls and regions) in the same coordinates, or null: the
   * SVG's viewBox is in metres and an SVG point (x, y) is the world point (x, y) (the view flips it
   * with the nodes, y up). Without a viewBox it is stretched over `bounds`. Shown as an image, so
   * scripts and external references in it never run (pictureInWorld wraps a pixel-space SVG).
   */
  picture: string | null;
  propositions: string[];
  nodes: SceneNode[];
  /** [source index, target index, weight] into `nodes`. */
  edges: [number, number, number][];
  /** The id of the node plans start from (drawn distinct even when its kind is not 'start'). */
  start?: string;
  /** The colour of each region's proposition, as the picture draws it (contract/colours.ts): every view uses these. */
  colours?: Record<string, string>;
}

export interface AutomatonView {
  formula: string;
  states: { id: number; initial: boolean; accepting: boolean }[];
  edges: { from: number; to: number; guard: string }[];
}

/**
 * Why a specification cannot be met on the graph (core/plan/explain.ts; docs/FORMATS.md, "Plans"): a minimal
 * set of its conjuncts that conflict, the smallest failing part, and the regions it cannot have.
 */
export interface PlanExplanation {
  conjuncts: readonly string[];
  conflict: readonly number[];
  minimal: boolean;
  /** The conflict holds on no graph: its conjuncts contradict each other. */
  contradiction: boolean;
  core: string | null;
  regions: readonly {
    region: string;
    why: 'labelled-nowhere' | 'unreachable' | 'forbidden';
    node?: string;
    at?: readonly [number, number] | null;
    cut?: readonly string[];
  }[];
  checks: number;
  bound?: string;
  message: string;
}

/** A plan on a scene: node ids of the prefix and the suffix cycle, and the product states visited. */
export interface PlanView {
  status: 'ok' | 'infeasible';
  prefix: string[];
  suffix: string[];
  /** Automaton state at each prefix, then suffix, step. */
  prefixStates: number[];
  suffixStates: number[];
  cost?: { prefix: number; suffix: number; objective: number };
  reason?: { kind: string; message: string };
  /** Infeasible plans: why the specification cannot be met (absent where it was not explained). */
  explanation?: PlanExplanation;
  certificate?: unknown;
}

const SceneFromGraphRequest = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 500, description: 'a labelled graph file of the workspace' }),
    spec: Type.Optional(Type.String({ maxLength: 100_000 })),
  },
  { additionalProperties: false },
);
const MISSION_GRAPH_VIEWS = ['latent', 'product'] as const;
export type MissionGraphView = (typeof MISSION_GRAPH_VIEWS)[number];
const MissionGraphRequest = Type.Object(
  {
    session: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'a planned mission (MissionPlanResult.session)',
    }),
    view: StringEnum(MISSION_GRAPH_VIEWS, {
      description:
        "'latent': the backbone's cluster nodes alone; 'product': graph × automaton, one copy of the task space per state",
    }),
  },
  { additionalProperties: false },
);

const AutomatonViewRequest = Type.Object(
  { spec: Type.String({ maxLength: 100_000 }) },
  { additionalProperties: false },
);

export interface SceneApi {
  /**
   * A labelled graph file of the workspace (graph JSON, with optional node positions) as a scene, planned for `spec`
   * when given.
   */
  sceneFromGraph(
    params: Static<typeof SceneFromGraphRequest>,
  ): Promise<{ scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null }>;
  /**
   * Another picture of a planned mission: its latent graph or its product graph, with the plan
   * drawn on it; `note` says what the picture leaves out or how it is laid out.
   */
  missionGraph(params: Static<typeof MissionGraphRequest>): Promise<{
    view: MissionGraphView;
    scene: GraphScene;
    plan: PlanView | null;
    automaton: AutomatonView;
    note: string;
  }>;
  /** The Büchi automaton of a specification, for its own small graph view. */
  automatonView(params: Static<typeof AutomatonViewRequest>): Promise<AutomatonView>;
}

export const SCENE_PARAMS = {
  sceneFromGraph: SceneFromGraphRequest,
  automatonView: AutomatonViewRequest,
  missionGraph: MissionGraphRequest,
} as const satisfies Record<keyof SceneApi, object>;
