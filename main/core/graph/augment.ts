/**
 * Task-time semantic augmentation of the latent graph (SAGAS §3.3, Appendix B.2–B.3, Algorithm
 * B.1): soft labels P̂(ℓ | v) on cluster nodes from their raw supports, anchors for every
 * proposition from label-satisfying dataset states connected within H_TD, unavailable propositions,
 * and the temporary start node. Pure: the caller embeds the retrieved candidates and the start
 * state (ψ lives in ONNX, outside the core) between `anchorCandidates` and `augmentGraph`.
 */
import type { LatentGraph } from './build.js';
import type { Rng } from '../random/rng.js';
import { type Region, inRegion, labelAt, pairwiseDisjoint } from '../world/regions.js';
import { type SemanticGraph, type NodeKind, buildRows } from '../plan/semantic.js';
import { AUGMENT_DEFAULTS } from '../../contract/defaults.js';

export interface AugmentParams {
  /** Anchors per proposition N_s (Table J.1: 3). */
  readonly anchors: number;
  /** Candidate states retrieved per proposition (Table J.1: 50). */
  readonly attempts: number;
  readonly H_TD: number;
  /** Support-state weights of Eq. B.8: constant (the paper's default) or Gaussian in latent distance. */
  readonly kernel: { readonly kind: 'constant' } | { readonly kind: 'gaussian'; readonly sigma: number };
}

export const DEFAULT_AUGMENT: Omit<AugmentParams, 'H_TD'> = {
  anchors: AUGMENT_DEFAULTS.anchors,
  attempts: AUGMENT_DEFAULTS.attempts,
  kernel: { kind: 'constant' },
};

/** Dataset states in task space: Π(s) = (x, y) at observation columns 0 and 1. */
export interface TaskStates {
  readonly observations: Float32Array;
  readonly obsDim: number;
  readonly count: number;
}

export interface Candidates {
  /** Per region, the dataset states retrieved as anchor candidates (in retrieval order). */
  readonly byRegion: ReadonlyMap<string, readonly number[]>;
  /** Per region, how many dataset states satisfy its label. */
  readonly pool: ReadonlyMap<string, number>;
}

/** Regions per task: their memberships are bits of one 32-bit mask per dataset state. */
const MAX_TASK_REGIONS = 32;

/** L_φ(s) of every dataset state as a bit mask over `regions` (bit k: regions[k]); one pass over the data. */
export function stateLabels(states: TaskStates, regions: readonly Region[]): Uint32Array {
  if (regions.length > MAX_TASK_REGIONS)
    throw new RangeError(`a task may have at most ${MAX_TASK_REGIONS} regions, got ${regions.length}`);
  const masks = new Uint32Array(states.count);
  const { observations: obs, obsDim } = states;
  regions.forEach((r, k) => {
    const bit = (1 << k) >>> 0;
    // Bounding box first: most states are far from any one region.
    const [x0, y0, x1, y1] =
      r.kind === 'disk'
        ? [r.center[0] - r.radius, r.center[1] - r.radius, r.center[0] + r.radius, r.center[1] + r.radius]
        : [r.min[0], r.min[1], r.max[0], r.max[1]];
    for (let i = 0; i < states.count; i++) {
      const x = obs[i * obsDim]!,
        y = obs[i * obsDim + 1]!;
      if (x < x0 || x > x1 || y < y0 || y > y1) continue;
      if (inRegion(r, x, y)) masks[i] = (masks[i]! | bit) >>> 0;
    }
  });
  return masks;
}

/** S_ℓ^cand (B.3): the label-satisfying dataset states, and up to `attempts` of them in random order. */
export function anchorCandidates(
  masks: Uint32Array,
  regions: readonly Region[],
  attempts: number,
  rng: Rng,
): Candidates {
  const byRegion = new Map<string, number[]>();
  const pool = new Map<string, number>();
  regions.forEach((r, k) => {
    const bit = (1 << k) >>> 0;
    const all: number[] = [];
    for (let i = 0; i < masks.length; i++) if ((masks[i]! & bit) !== 0) all.push(i);
    pool.set(r.name, all.length);
    byRegion.set(r.name, rng.sample(all, Math.min(attempts, all.length)));
  });
  return { byRegion, pool };
}

interface AnchorReport {
  readonly proposition: string;
  /** Dataset states satisfying the label, candidates tried, anchors accepted. */
  readonly pool: number;
  readonly tried: number;
  readonly accepted: number;
  /** Set when no anchor could be made: why the proposition is unavailable. */
  readonly unavailable?: 'no-dataset-state' | 'not-connectable';
}

export interface AugmentReport {
  readonly kernel: AugmentParams['kernel'];
  readonly anchors: readonly AnchorReport[];
  readonly unavailable: readonly string[];
  readonly start: {
    readonly label: readonly string[];
    readonly neighbours: number;
    readonly fallback: { readonly node: string; readonly distance: number } | null;
  };
  readonly disjoint: boolean;
  readonly nodes: { readonly clusters: number; readonly anchors: number };
}

export interface AugmentInput {
  readonly graph: LatentGraph;
  /** Task-space position of each cluster node (for pictures). */
  readonly nodePositions: Float32Array;
  readonly states: TaskStates;
  /** stateLabels(states, regions). */
  readonly masks: Uint32Array;
  /** Latents of all dataset states, needed only for the Gaussian kernel. */
  readonly stateLatents?: Float32Array;
  readonly regions: readonly Region[];
  readonly candidates: Candidates;
  /** ψ of each candidate, per region, in the order of `candidates.byRegion`. */
  readonly candidateLatents: ReadonlyMap<string, Float32Array>;
  readonly start: { readonly latent: Float32Array; readonly position: readonly [number, number] };
  readonly params: AugmentParams;
}

function dist(a: Float32Array, i: number, b: Float32Array, j: number, dim: number): number {
  let s = 0;
  for (let q = 0; q < dim; q++) {
    const d = a[i * dim + q]! - b[j * dim + q]!;
    s += d * d;
  }
  return Math.sqrt(s);
}

/** Eq. B.8 for every cluster node and region. */
export function softLabels(
  input: Pick<AugmentInput, 'graph' | 'states' | 'masks' | 'regions' | 'stateLatents' | 'params'>,
): Map<string, Float64Array> {
  const { graph: g, states, regions, params, masks } = input;
  const m = g.nodeCount;
  const gaussian = params.kernel.kind === 'gaussian';
  if (gaussian && (input.stateLatents === undefined || input.stateLatents.length !== states.count * g.dim)) {
    throw new RangeError('the Gaussian kernel needs the latent of every dataset state');
  }
  const twoSigma2 = params.kernel.kind === 'gaussian' ? 2 * params.kernel.sigma * params.kernel.sigma : 1;
  const total = new Float64Array(m);
  const hit = regions.map(() => new Float64Array(m));
  for (let i = 0; i < states.count; i++) {
    const v = g.support[i]!;
    const w = gaussian ? Math.exp(-(dist(input.stateLatents!, i, g.nodes, v, g.dim) ** 2) / twoSigma2) : 1;
    total[v]! += w;
    const mask = masks[i]!;
    if (mask === 0) continue;
    for (let k = 0; k < regions.length; k++) if ((mask & (1 << k)) !== 0) hit[k]![v]! += w;
  }
  const out = new Map<string, Float64Array>();
  regions.forEach((r, k) => {
    // A node whose support carries no weight gets P̂ = 1: nothing says it is safe (conservative).
    out.set(
      r.name,
      Float64Array.from({ length: m }, (_, v) => (total[v]! > 0 ? hit[k]![v]! / total[v]! : 1)),
    );
  });
  return out;
}

/** Cluster nodes within H_TD of a latent point (the local insertion rule), with distances. */
function neighbours(g: LatentGraph, p: Float32Array, pi: number, H: number): { v: number; d: number }[] {
  const out: { v: number; d: number }[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    const d = dist(p, pi, g.nodes, v, g.dim);
    if (d <= H) out.push({ v, d });
  }
  return out;
}

/** Algorithm B.1. */
export function augmentGraph(input: AugmentInput): { graph: SemanticGraph; report: AugmentReport } {
  const { graph: g, regions, params, states } = input;
  const m = g.nodeCount;
  const ids: string[] = [];
  const kinds: NodeKind[] = [];
  const latents: number[] = Array.from(g.nodes);
  const labels: string[][] = [];
  const pos: number[] = [];
  for (let v = 0; v < m; v++) {
    ids.push(`c${v}`);
    kinds.push('cluster');
    labels.push([]);
    pos.push(input.nodePositions[2 * v]!, input.nodePositions[2 * v + 1]!);
  }
  const edges: { from: number; to: number; weight: number }[] = [];
  for (let e = 0; e < g.edgeU.length; e++) edges.push({ from: g.edgeU[e]!, to: g.edgeV[e]!, weight: g.edgeW[e]! });
  const anchors: AnchorReport[] = [];
  const unavailable: string[] = [];
  for (const r of regions) {
    const cands = input.candidates.byRegion.get(r.name) ?? [];
    const lat = input.candidateLatents.get(r.name) ?? new Float32Array(0);
    if (lat.length !== cands.length * g.dim)
      throw new RangeError(`region ${r.name}: ${cands.length} candidates but ${lat.length / g.dim} latents`);
    let accepted = 0,
      tried = 0;
    for (let j = 0; j < cands.length && accepted < params.anchors; j++) {
      tried++;
      const nb = neighbours(g, lat, j, params.H_TD);
      if (nb.length === 0) continue;
      const s = cands[j]!;
      const x = states.observations[s * states.obsDim]!,
        y = states.observations[s * states.obsDim + 1]!;
      const id = ids.length;
      ids.push(`anchor:${r.name}:${accepted}`);
      kinds.push('anchor');
      labels.push(labelAt(regions, x, y));
      pos.push(x, y);
      for (let q = 0; q < g.dim; q++) latents.push(lat[j * g.dim + q]!);
      for (const { v, d } of nb) edges.push({ from: id, to: v, weight: d });
      accepted++;
    }
    const pool = input.candidates.pool.get(r.name) ?? 0;
    const unav = accepted > 0 ? undefined : pool === 0 ? ('no-dataset-state' as const) : ('not-connectable' as const);
    if (unav !== undefined) unavailable.push(r.name);
    anchors.push({ proposition: r.name, pool, tried, accepted, ...(unav ? { unavailable: unav } : {}) });
  }
  // The temporary start node v0 = ψ(s0), connected by the same rule, else to the nearest node.
  const start = ids.length;
  ids.push('start');
  kinds.push('start');
  const startLabel = labelAt(regions, input.start.position[0], input.start.position[1]);
  labels.push(startLabel);
  pos.push(input.start.position[0], input.start.position[1]);
  for (let q = 0; q < g.dim; q++) latents.push(input.start.latent[q]!);
  const nb = neighbours(g, input.start.latent, 0, params.H_TD);
  let fallback: { node: string; distance: number } | null = null;
  if (nb.length > 0) {
    for (const { v, d } of nb) edges.push({ from: start, to: v, weight: d });
  } else {
    let best = 0,
      bd = Infinity;
    for (let v = 0; v < m; v++) {
      const d = dist(input.start.latent, 0, g.nodes, v, g.dim);
      if (d < bd) {
        bd = d;
        best = v;
      }
    }
    edges.push({ from: start, to: best, weight: bd });
    fallback = { node: ids[best]!, distance: bd };
  }
  const n = ids.length;
  const soft = softLabels(input);
  const widened = new Map<string, Float64Array>();
  for (const [k, p] of soft) {
    const full = new Float64Array(n);
    full.set(p);
    widened.set(k, full);
  }
  const disjoint = pairwiseDisjoint(regions);
  return {
    graph: {
      ids,
      kinds,
      labels,
      positions: Float64Array.from(pos),
      ...buildRows(n, edges, false),
      soft: widened,
      start,
      stay: false,
      directed: false,
      disjoint,
      latents: Float32Array.from(latents),
      latentDim: g.dim,
    },
    report: {
      kernel: params.kernel,
      anchors,
      unavailable,
      disjoint,
      start: { label: startLabel, neighbours: nb.length, fallback },
      nodes: { clusters: m, anchors: n - m - 1 },
    },
  };
}
