/**
 * The plan executor of SAGAS (§3.5, Appendix B.8, Algorithm B.3) as a pure state machine: fed the
 * embedded state h_t = ψ(s_t) and the observed labels L(s_t) at each step, it keeps a monotone
 * progress index over the waypoint stream (the prefix once, then the suffix cyclically), skips
 * ahead to the furthest waypoint within H_TD without bypassing a pending semantic checkpoint,
 * accepts an anchor checkpoint only within ε_anc and with its positive literals observed, watches
 * the negative literals of the transition being realised, enforces the tracking budget H_low, and
 * returns the guard-aware steering direction (B.17–B.20) for the low-level policy.
 */
import type { Plan } from '../plan/plan.js';
import { type RecoveryParams, StallRecovery } from './recovery.js';
import type { SemanticGraph } from '../plan/semantic.js';

interface SteeringParams {
  /** Repulsion radius ρ_rep, gain β, power p, maximum norm r_max (Table J.1, AntMaze: 64, 0.1, 1, 0.2). */
  readonly rho: number;
  readonly beta: number;
  readonly p: number;
  readonly rMax: number;
}

export interface ExecParams {
  readonly H_TD: number;
  /** Latent proximity for an anchor checkpoint. */
  readonly epsAnchor: number;
  /** Latent proximity at which an ordinary waypoint counts as reached. */
  readonly epsWaypoint: number;
  /** Steps allowed between two accepted progress events. */
  readonly H_low: number;
  /**
   * Task-space tolerances for ordinary (stitching) waypoints, in metres: reached within `reach_m`
   * of the node's position, and skip-ahead also to waypoints within `lookahead_m`. Our ψ encodes
   * velocity, and a cluster node is the mean of states moving every way, so a robot standing at a
   * node's position can be far from it in latent space; ordinary waypoints "do not need to be
   * reached exactly" (§3.5). Anchor checkpoints keep the latent rule and the label check.
   */
  readonly reach_m: number;
  readonly lookahead_m: number;
  /** Suffix traversals of the finite evaluation criterion (Appendix E: M = 2). */
  readonly M: number;
  /**
   * What an ordinary waypoint steers toward: 'rest', ψ of the node's position at rest (the waypoint's
   * `rest`, when the caller supplies it); 'node', the node's own latent, the mean of its member states
   * (the paper's literal reading, kept as an ablation). A cluster mean of states moving every way is
   * no state the robot can be in: toward it from nearby, π_low is steered mostly along velocity
   * directions and comes to a halt short of the node (docs/BENCHMARKS.md compares the two). Anchor
   * checkpoints steer to their rest latent either way.
   */
  readonly targets: 'rest' | 'node';
  /** null turns steering off (ablation). */
  readonly steering: SteeringParams | null;
  /**
   * An anchor checkpoint also counts as reached within `reach_m` of its position, its positive
   * literals observed as always. A trotting body overshoots a point: the Ant crosses an anchor's region
   * without coming within ε_anc of the anchor (docs/BENCHMARKS.md, "The Ant's executor").
   */
  readonly anchorReach: boolean;
  /**
   * Skip ahead only to waypoints the body can walk to in a straight line keeping this clearance
   * from obstacles (metres, about its half-width; never less than it has now), where the world's
   * map measures clearance. 0: off. A look-ahead across a doorway's corner walks a legged body into it.
   */
  readonly clearance_m: number;
  /**
   * Stall recovery (core/exec/recovery.ts: backing off along the body's own path when it stalls; each recovery also
   * gives `grant` steps back to H_low); null: off.
   */
  readonly recovery: RecoveryParams | null;
}

export type { RecoveryParams };

/**
 * Table J.1 where it gives a value (AntMaze); ε_anc = ε_wp = H_TD/2, the graph's cluster radius, and
 * H_low = 100 steps (the paper gives neither).
 */
export const DEFAULT_EXEC: ExecParams = {
  H_TD: 8,
  epsAnchor: 4,
  epsWaypoint: 4,
  H_low: 100,
  M: 2,
  reach_m: 1,
  lookahead_m: 3,
  targets: 'rest',
  steering: { rho: 64, beta: 0.1, p: 1, rMax: 0.2 },
  anchorReach: false,
  clearance_m: 0,
  recovery: null,
};

/** What a body changes in the executor: a point mass nothing; a legged body (the Ant) the rest. */
export type Body = 'point' | 'legged';

/**
 * The legged body's tracking (docs/BENCHMARKS.md, "The Ant's executor", says how it was chosen): a
 * 1.5 m look-ahead instead of 3 m, anchors reached
 * within reach_m, straight segments 1 m clear of walls, and two recoveries per target.
 */
export const LEGGED_EXEC: Pick<ExecParams, 'lookahead_m' | 'anchorReach' | 'clearance_m' | 'recovery'> = {
  lookahead_m: 1.5,
  anchorReach: true,
  clearance_m: 1,
  recovery: { window: 40, moved_m: 0.5, back_m: 1, steps: 30, arrive_m: 0.3, perTarget: 2, grant: 60 },
};

/**
 * The executor's parameters for a backbone whose graph radius is H_TD (the anchor and waypoint radii
 * are H_TD / 2) and a body.
 */
export function execParams(H_TD: number, body: Body = 'point'): ExecParams {
  return {
    ...DEFAULT_EXEC,
    H_TD,
    epsAnchor: H_TD / 2,
    epsWaypoint: H_TD / 2,
    ...(body === 'legged' ? LEGGED_EXEC : {}),
  };
}

/** Metres from (x, y) to the nearest obstacle (WorldMap.clearance). */
export type Clearance = (x: number, y: number) => number;

export interface Waypoint {
  readonly node: number;
  readonly id: string;
  readonly latent: Float32Array;
  /** Task-space position (x, y) of the node. */
  readonly position: readonly [number, number];
  /**
   * ψ of the node's position at rest (x, y, 0, 0 for a point mass), when the caller supplies it. A
   * node's own latent carries its member states' velocities (an anchor's, its witness state's; a
   * cluster's, their mean), which a robot passing or arriving need not match: the executor steers
   * to the rest latent (ExecParams.targets), and accepts an anchor near either.
   */
  readonly rest?: Float32Array;
  /** The guard term of the planned transition into this waypoint. */
  readonly pos: readonly string[];
  readonly neg: readonly string[];
  readonly term: string;
  readonly checkpoint: boolean;
  /** Planned automaton state after this waypoint (original numbering), and the state before. */
  readonly state: number;
  readonly from: number;
  /** Index of this transition in the plan's product sequence. */
  readonly transition: number;
}

export interface ExecPlan {
  readonly prefix: readonly Waypoint[];
  readonly suffix: readonly Waypoint[];
  readonly dwell: boolean;
  /** Anchor latents per proposition, for steering away from forbidden labels. */
  readonly anchors: ReadonlyMap<string, readonly Float32Array[]>;
  readonly dim: number;
}

/**
 * The waypoint streams of a plan on a latent semantic graph (the start node is already realised).
 * `rest` gives ψ at rest of a waypoint's position (keyed by restKey(x, y)).
 */
export function execPlan(plan: Plan, g: SemanticGraph, rest?: ReadonlyMap<string, Float32Array>): ExecPlan {
  const dim = g.latentDim;
  if (g.latents === undefined || dim === undefined)
    throw new RangeError('execution needs a latent graph (node latents)');
  const latent = (v: number): Float32Array => g.latents!.subarray(v * dim, (v + 1) * dim);
  const aps = plan.certificate.steps;
  const wp = (i: number): Waypoint => {
    const s = plan.steps[i]!;
    const c = aps[i]!;
    const r = rest?.get(restKey(g.positions[2 * s.node]!, g.positions[2 * s.node + 1]!));
    return {
      node: s.node,
      id: g.ids[s.node]!,
      latent: latent(s.node),
      position: [g.positions[2 * s.node]!, g.positions[2 * s.node + 1]!],
      pos: c.term.pos,
      neg: c.term.neg,
      term: c.term.text,
      checkpoint: c.term.pos.length > 0,
      state: s.state,
      from: s.from,
      transition: i,
      ...(r !== undefined ? { rest: r } : {}),
    };
  };
  const prefix = plan.steps.slice(1, plan.prefixLength).map((_, k) => wp(k + 1));
  const suffix = plan.steps.slice(plan.prefixLength).map((_, k) => wp(plan.prefixLength + k));
  const anchors = new Map<string, Float32Array[]>();
  g.kinds.forEach((k, v) => {
    if (k !== 'anchor') return;
    for (const l of g.labels[v]!) {
      const list = anchors.get(l) ?? [];
      list.push(latent(v));
      anchors.set(l, list);
    }
  });
  return { prefix, suffix, dwell: plan.dwell, anchors, dim };
}

/** The positions (x, y) of a plan's waypoints, whose rest latents execPlan looks up by restKey. */
export function waypointPositions(plan: Plan, g: SemanticGraph): [number, number][] {
  return plan.steps.slice(1).map((s) => [g.positions[2 * s.node]!, g.positions[2 * s.node + 1]!]);
}

/** The key of a position in a map of rest latents (positions are read from one graph, so exact). */
export const restKey = (x: number, y: number): string => `${x},${y}`;

export type Stream = 'prefix' | 'suffix';

export type ExecEvent =
  | {
      readonly kind: 'waypoint';
      readonly t: number;
      readonly stream: Stream;
      readonly index: number;
      readonly node: string;
      readonly skipped: number;
    }
  | {
      readonly kind: 'checkpoint';
      readonly t: number;
      readonly stream: Stream;
      readonly index: number;
      readonly node: string;
      readonly labels: readonly string[];
    }
  | { readonly kind: 'prefix-done'; readonly t: number }
  | { readonly kind: 'suffix-traversal'; readonly t: number; readonly count: number }
  | {
      readonly kind: 'violation';
      readonly t: number;
      readonly stream: Stream;
      readonly index: number;
      readonly node: string;
      readonly literal: string;
      readonly term: string;
      readonly labels: readonly string[];
    }
  | {
      readonly kind: 'recovery';
      readonly t: number;
      readonly stream: Stream;
      readonly index: number;
      readonly node: string;
      /** How far the body moved over the recovery window, and where it walks back to. */
      readonly moved_m: number;
      readonly to: readonly [number, number];
    }
  | {
      readonly kind: 'timeout';
      readonly t: number;
      readonly stream: Stream;
      readonly index: number;
      readonly node: string;
      readonly checkpoint: boolean;
      readonly distance: number;
      readonly term: string;
      readonly labels: readonly string[];
    };

export interface ExecStep {
  /** Unit direction for π_low (null when the run is over). */
  readonly direction: Float32Array | null;
  readonly events: readonly ExecEvent[];
  readonly status: 'running' | 'failed' | 'complete';
  /** Forbidden labels being watched this step (for diagnostics). */
  readonly active: readonly string[];
}

/** v scaled to unit length in place (left as it is when it is zero, within 1e-9): the direction π_low is given. */
export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let q = 0; q < v.length; q++) n += v[q]! ** 2;
  n = Math.sqrt(n);
  if (n > 1e-9) for (let q = 0; q < v.length; q++) v[q]! /= n;
  return v;
}

function dist(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let q = 0; q < a.length; q++) s += (a[q]! - b[q]!) ** 2;
  return Math.sqrt(s);
}

export class Executor {
  private stream: Stream;
  private k = 0;
  private c = 0;
  private traversals = 0;
  private last: 'running' | 'failed' | 'complete' = 'running';
  /** Time of the prefix's completion and of each suffix traversal. */
  readonly marks: { prefixDone: number | null; traversals: number[] } = { prefixDone: null, traversals: [] };
  /** The previous waypoint reached (the start node at first): the edge being realised ends at the current target. */
  private prevNode: string;
  /**
   * Steps whose direction the guard-aware steering term bent (a forbidden label's anchor within ρ_rep); 0 with steering
   * off.
   */
  private steered = 0;
  /** Stall recovery (null: off), keyed by the target being tracked. */
  private readonly recovery: StallRecovery | null;

  /**
   * `clearance` (the world map's, where it has one) lets skip-ahead keep `params.clearance_m` from
   * obstacles; without it, or with clearance_m 0, skip-ahead looks at distances only.
   */
  constructor(
    private readonly plan: ExecPlan,
    private readonly params: ExecParams,
    startId: string,
    private readonly clearance?: Clearance,
  ) {
    this.stream = plan.prefix.length > 0 ? 'prefix' : 'suffix';
    this.prevNode = startId;
    this.recovery = params.recovery === null ? null : new StallRecovery(params.recovery);
  }

  get status(): 'running' | 'failed' | 'complete' {
    return this.last;
  }

  /** How many steps so far the steering term was active (bent the direction away from a forbidden label). */
  get steeredSteps(): number {
    return this.steered;
  }

  /** Where the run stands: stream, index and the edge (previous node → target) being realised. */
  position(): { stream: Stream; index: number; from: string; target: Waypoint } {
    return { stream: this.stream, index: this.k, from: this.prevNode, target: this.list()[this.k]! };
  }

  /**
   * The run's progress for the operator: the target's index in its stream, the stream's length, suffix traversals done
   * of M.
   */
  progress(): { stream: Stream; index: number; length: number; traversals: number; rounds: number } {
    return {
      stream: this.stream,
      index: this.k,
      length: this.list().length,
      traversals: this.traversals,
      rounds: this.params.M,
    };
  }

  private list(): readonly Waypoint[] {
    return this.stream === 'prefix' ? this.plan.prefix : this.plan.suffix;
  }

  step(t: number, h: Float32Array, labels: ReadonlySet<string>, x: number, y: number): ExecStep {
    const taskDist = (w: Waypoint): number => Math.hypot(w.position[0] - x, w.position[1] - y);
    const events: ExecEvent[] = [];
    if (this.last !== 'running') return { direction: null, events, status: this.last, active: [] };
    if (this.stream === 'suffix' && this.marks.prefixDone === null) {
      this.marks.prefixDone = t;
      events.push({ kind: 'prefix-done', t });
    }
    let list = this.list();
    let w = list[this.k]!;
    // Negative literals of the transition being realised must stay false (B.21).
    const active = w.neg;
    for (const l of active) {
      if (labels.has(l)) {
        events.push({
          kind: 'violation',
          t,
          stream: this.stream,
          index: this.k,
          node: w.id,
          literal: l,
          term: w.term,
          labels: [...labels],
        });
        this.last = 'failed';
        return { direction: null, events, status: 'failed', active };
      }
    }
    // Has the target been realised?
    const d = dist(h, w.latent);
    const posOk = w.pos.every((l) => labels.has(l));
    const near = w.checkpoint
      ? d < this.params.epsAnchor ||
        (w.rest !== undefined && dist(h, w.rest) < this.params.epsAnchor) ||
        (this.params.anchorReach && taskDist(w) < this.params.reach_m)
      : d < this.params.epsWaypoint || taskDist(w) < this.params.reach_m;
    if (posOk && near) {
      events.push(
        w.checkpoint
          ? { kind: 'checkpoint', t, stream: this.stream, index: this.k, node: w.id, labels: [...labels] }
          : { kind: 'waypoint', t, stream: this.stream, index: this.k, node: w.id, skipped: 0 },
      );
      this.advance(t, events);
      if (this.last !== 'running') return { direction: null, events, status: this.last, active };
      list = this.list();
      w = list[this.k]!;
    }
    // Skip ahead to the furthest waypoint within H_TD, never past a pending checkpoint or the stream's end.
    let barrier = this.k;
    while (barrier < list.length - 1 && !list[barrier]!.checkpoint) barrier++;
    let target = this.k;
    for (let j = barrier; j > this.k; j--) {
      const c = list[j]!;
      if (
        (dist(h, c.latent) <= this.params.H_TD || taskDist(c) <= this.params.lookahead_m) &&
        this.clearPath(x, y, c.position[0], c.position[1])
      ) {
        target = j;
        break;
      }
    }
    if (target > this.k) {
      events.push({
        kind: 'waypoint',
        t,
        stream: this.stream,
        index: target - 1,
        node: list[target - 1]!.id,
        skipped: target - this.k,
      });
      this.prevNode = list[target - 1]!.id;
      this.k = target;
      this.c = 0;
      w = list[this.k]!;
    }
    const direction = this.recover(t, h, x, y, events) ?? this.steer(h, w);
    this.c++;
    if (this.c > this.params.H_low) {
      events.push({
        kind: 'timeout',
        t,
        stream: this.stream,
        index: this.k,
        node: w.id,
        checkpoint: w.checkpoint,
        distance: dist(h, w.latent),
        term: w.term,
        labels: [...labels],
      });
      this.last = 'failed';
      return { direction: null, events, status: 'failed', active };
    }
    return { direction, events, status: 'running', active: w.neg };
  }

  private advance(t: number, events: ExecEvent[]): void {
    const list = this.list();
    this.prevNode = list[this.k]!.id;
    this.k++;
    this.c = 0;
    if (this.k < list.length) return;
    this.k = 0;
    if (this.stream === 'prefix') {
      this.stream = 'suffix';
      this.marks.prefixDone = t;
      events.push({ kind: 'prefix-done', t });
      return;
    }
    this.traversals++;
    this.marks.traversals.push(t);
    events.push({ kind: 'suffix-traversal', t, count: this.traversals });
    if (this.traversals >= this.params.M) this.last = 'complete';
  }

  /**
   * Whether the straight segment from (x0, y0) to (x1, y1) keeps clearance_m from obstacles, or at
   * least (less 5 cm) what the body has now: sampled every 10 cm. True without a clearance map.
   */
  private clearPath(x0: number, y0: number, x1: number, y1: number): boolean {
    const c = this.clearance,
      r = this.params.clearance_m;
    if (c === undefined || r <= 0) return true;
    const floor = Math.min(r, c(x0, y0) - 0.05);
    const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 0.1));
    for (let k = 1; k <= n; k++) {
      const f = k / n;
      if (c(x0 + f * (x1 - x0), y0 + f * (y1 - y0)) < floor) return false;
    }
    return true;
  }

  /**
   * Stall recovery (RecoveryParams): the direction back along the body's own path while a
   * recovery is under way, or null to track the target. Starts one when the body has stalled.
   */
  private recover(t: number, h: Float32Array, x: number, y: number, events: ExecEvent[]): Float32Array | null {
    if (this.recovery === null) return null;
    const { offset, started } = this.recovery.step(`${this.stream}:${this.k}`, h, x, y);
    if (started !== null) {
      this.c = Math.max(0, this.c - this.params.recovery!.grant);
      events.push({
        kind: 'recovery',
        t,
        stream: this.stream,
        index: this.k,
        node: this.list()[this.k]!.id,
        moved_m: started.moved_m,
        to: [started.to[0], started.to[1]],
      });
    }
    return offset === null ? null : normalize(offset);
  }

  /** B.17–B.20: the displacement towards the target, bent away from anchors of forbidden labels. */
  private steer(h: Float32Array, w: Waypoint): Float32Array {
    const dim = h.length;
    const out = new Float32Array(dim);
    const goal = w.rest !== undefined && (w.checkpoint || this.params.targets === 'rest') ? w.rest : w.latent;
    for (let q = 0; q < dim; q++) out[q] = goal[q]! - h[q]!;
    const s = this.params.steering;
    if (s !== null && w.neg.length > 0) {
      const r = new Float64Array(dim);
      for (const l of w.neg) {
        const anchors = this.plan.anchors.get(l);
        if (anchors === undefined || anchors.length === 0) continue;
        let near = anchors[0]!,
          nd = dist(h, near);
        for (const a of anchors) {
          const d = dist(h, a);
          if (d < nd) {
            nd = d;
            near = a;
          }
        }
        const mag = s.beta * Math.max(0, 1 - nd / s.rho) ** s.p;
        if (mag === 0) continue;
        for (let q = 0; q < dim; q++) r[q]! += (mag * (h[q]! - near[q]!)) / (nd + 1e-6);
      }
      let rn = 0;
      for (let q = 0; q < dim; q++) rn += r[q]! ** 2;
      rn = Math.sqrt(rn);
      const scale = rn > s.rMax ? s.rMax / rn : 1;
      for (let q = 0; q < dim; q++) out[q]! += r[q]! * scale;
      if (rn > 0) this.steered++;
    }
    return normalize(out);
  }
}
