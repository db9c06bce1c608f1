/**
 * What the dataset generators need to know of a body: its observation and action sizes, OGBench's
 * regime settings for it, its scripted expert and explorer, and (for a body that can fall) when
 * an episode is over because it fell. The generators (generators.ts) are the same for every body;
 * a simulator names its agent, so a dataset is always driven by the body it records.
 */
import type { DatasetKind } from '../../contract/defaults.js';
import type { Cell, MazeLayout } from '../world/maze.js';
import type { Rng } from '../random/rng.js';

export interface GeneratorConfig {
  readonly kind: DatasetKind;
  /** Transitions to record. */
  readonly steps: number;
  readonly seed: number;
  /** Steps per episode (the last one is terminal). */
  readonly episodeLength: number;
  /** Standard deviation of the expert's own action noise (navigate, stitch) or of explore's actions. */
  readonly noise: number;
  /** Most cells between start and goal (stitch). */
  readonly maxCells: number;
  /** The body and its expert's version, for bodies other than the point mass (whose configurations predate them). */
  readonly agent?: string;
  readonly agentVersion?: number;
}

/** Something worth counting in a dataset's report, at the row where it happened. */
export type DataEvent = 'flip' | 'stall';

export interface PolicyContext {
  readonly layout: MazeLayout;
  readonly cells: readonly Cell[];
  readonly rng: Rng;
  readonly gauss: () => number;
  readonly config: GeneratorConfig;
  /** Records an event at the current row (stalls: the expert made no progress for a while). */
  readonly note: (event: DataEvent) => void;
}

/** A scripted controller for one episode at a time. */
export interface Policy {
  start(state: Float64Array): void;
  /** Writes the action (actDim values in [-1, 1], noise included) into `out`. */
  act(state: Float64Array, out: Float64Array): void;
}

export interface DataAgent {
  /** Recorded in the generator configuration (absent for the point mass, whose datasets predate agents). */
  readonly name: string;
  readonly obsDim: number;
  readonly actDim: number;
  /** OGBench's settings for a regime in this layout (episode length, noise, stitch distance). */
  defaults(
    kind: DatasetKind,
    layout?: MazeLayout,
  ): Pick<GeneratorConfig, 'episodeLength' | 'noise' | 'maxCells' | 'agent' | 'agentVersion'>;
  expert(ctx: PolicyContext): Policy;
  explorer(ctx: PolicyContext): Policy;
  /** Why the body can no longer go on from this observation (it flipped over), or null. */
  fallen?(state: Float64Array): string | null;
}

/** Clips to the action range [-1, 1]. */
export function clip1(x: number): number {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}
