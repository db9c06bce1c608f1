/**
 * A plan on a map graph as a robot drives it: each step a leg (the waypoint and the guard of the
 * transition it realises), the legs of a stream cut into goals for the robot's navigation (one
 * pose, or runs of them), and the failure records of legs that failed. Pure.
 */
import type { Plan } from '../plan/plan.js';
import type { SemanticGraph } from '../plan/semantic.js';
import type { Stream } from './executor.js';
import type { Pose } from '../world/world.js';
import type { MissionFailureKind, MissionFailureRecord } from '../../contract/failure.js';
import { EDGE_PENALTY } from './replan.js';
import type { Region } from '../world/regions.js';
import { arrivalPoint } from './arrival.js';

/** One waypoint of a stream: the plan step it realises. */
export interface Leg {
  readonly stream: Stream;
  readonly index: number;
  readonly node: number;
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly pos: readonly string[];
  readonly neg: readonly string[];
  readonly term: string;
  readonly from: number;
  readonly state: number;
}

/** The legs of a plan's prefix (after its start) and suffix. */
export function legsOf(p: Plan, g: SemanticGraph): { prefix: Leg[]; suffix: Leg[] } {
  const leg = (i: number, stream: Stream, index: number): Leg => {
    const s = p.steps[i]!,
      c = p.certificate.steps[i]!;
    return {
      stream,
      index,
      node: s.node,
      id: g.ids[s.node]!,
      x: g.positions[2 * s.node]!,
      y: g.positions[2 * s.node + 1]!,
      pos: c.term.pos,
      neg: c.term.neg,
      term: c.term.text,
      from: s.from,
      state: s.state,
    };
  };
  const prefix = p.steps.slice(1, p.prefixLength).map((_, k) => leg(k + 1, 'prefix', k));
  const suffix = p.steps.slice(p.prefixLength).map((_, k) => leg(p.prefixLength + k, 'suffix', k));
  return { prefix, suffix };
}

/**
 * Goals of a stream from node `at`: consecutive stays dropped, runs of at most maxPoses waypoints,
 * each run ending at a waypoint whose transition needs a label (a checkpoint, verified where it ends).
 */
export function goalsOf(legs: readonly Leg[], at: number, maxPoses: number): Leg[][] {
  const out: Leg[][] = [];
  let run: Leg[] = [];
  let last = at;
  for (const l of legs) {
    if (l.node === last && l.pos.length === 0) continue;
    last = l.node;
    run.push(l);
    if (run.length >= maxPoses || l.pos.length > 0) {
      out.push(run);
      run = [];
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

/**
 * A goal's poses, each headed along the next leg (the last along its own, from `from` for a single
 * pose). With `arrival`, a checkpoint's pose (the last, when it needs labels) moves where a robot
 * that stops within the navigator's goal tolerance still reads them (arrival.ts).
 */
export function goalPoses(
  goal: readonly Leg[],
  from: { readonly x: number; readonly y: number },
  arrival?: { readonly regions: readonly Region[]; readonly tolerance_m: number },
): Pose[] {
  const at = goal.map((l, i) =>
    i === goal.length - 1 && l.pos.length > 0 && arrival !== undefined
      ? arrivalPoint(arrival.regions, l.pos, l.neg, l.x, l.y, arrival.tolerance_m)
      : { x: l.x, y: l.y },
  );
  return at.map((l, i) => {
    const next = at[i + 1];
    const yaw =
      next !== undefined
        ? Math.atan2(next.y - l.y, next.x - l.x)
        : Math.atan2(l.y - (at[i - 1]?.y ?? from.y), l.x - (at[i - 1]?.x ?? from.x));
    return { x: l.x, y: l.y, yaw };
  });
}

/** The literal a failure names: the forbidden one, else the whole letter observed. */
export const letterText = (label: readonly string[]): string => label.join(',') || '{}';

/**
 * A leg that failed: what, and from which node (the goal's start, or the waypoint before the leg
 * when a later piece of a run failed its path check); `at` where a path entered a forbidden region.
 */
export interface FailedLeg {
  readonly failure: MissionFailureKind;
  readonly leg: Leg;
  readonly detail: string;
  readonly literal?: string;
  readonly viable: boolean;
  readonly from?: number;
  readonly at?: readonly [number, number];
}

/**
 * The failure record of a failed leg and the graph edit it asks for: a committed violation is never
 * replanned; a path the robot's planner would drive through a forbidden region removes the edge at
 * once (the planner would take it again); other failures penalise the edge, and remove it the
 * second time on the same waypoint.
 */
export function legFailureRecord(
  f: FailedLeg,
  c: {
    readonly from: string;
    readonly t: number;
    readonly labels: readonly string[];
    readonly earlier: readonly MissionFailureRecord[];
  },
): MissionFailureRecord {
  const base = {
    source: 'mission' as const,
    t: c.t,
    stream: f.leg.stream,
    index: f.leg.index,
    from: c.from,
    to: f.leg.id,
    term: f.leg.term,
    labels: [...c.labels],
    latent: [],
  };
  if (!f.viable) {
    return {
      ...base,
      kind: f.failure,
      label: f.failure,
      violated: f.literal ?? f.leg.id,
      class: 'permanent',
      action: 'none',
      unrecoverable: true,
      rule: 'the runtime monitor has no accepting continuation after the observed labels: the specification is already violated, so no replan can repair it',
    };
  }
  if (f.failure === 'safety') {
    return {
      ...base,
      kind: 'safety',
      label: 'safety',
      violated: f.literal ?? f.leg.id,
      class: 'permanent',
      action: 'remove-edge',
      unrecoverable: false,
      ...(f.at !== undefined ? { at: [f.at[0], f.at[1]] } : {}),
      rule: `${f.detail}: remove the edge ${c.from} → ${f.leg.id} for this task and replan from where the robot is`,
    };
  }
  const again = c.earlier.some((r) => r.kind === f.failure && r.to === f.leg.id);
  const what =
    f.failure === 'forbidden-label'
      ? `forbidden label ${f.literal} entered on the way to ${f.leg.id}`
      : f.failure === 'tracking-timeout'
        ? `the goal to ${f.leg.id} timed out`
        : f.failure === 'goal-aborted'
          ? `the robot's navigation gave up the goal to ${f.leg.id}`
          : `${f.leg.id} was reached without its labels`;
  return {
    ...base,
    kind: f.failure,
    label: f.failure,
    violated: f.literal ?? f.leg.id,
    unrecoverable: false,
    class: again ? 'permanent' : 'transient',
    action: again ? 'remove-edge' : 'penalize-edge',
    rule: again
      ? `${what} a second time: remove the edge into it for this task`
      : `${what} (${f.detail}): multiply the edge's weight by ${EDGE_PENALTY} and replan from where the robot is`,
  };
}

/**
 * The robot read a letter that leaves the specification no accepting continuation (entered a
 * forbidden region) on a leg: the failure record of the safety stop, and its rule in words.
 */
export function safetyStopRecord(
  leg: Leg,
  c: {
    readonly from: string;
    readonly t: number;
    readonly label: readonly string[];
    readonly before: readonly string[];
    readonly at: { readonly x: number; readonly y: number };
    readonly how: string;
  },
): MissionFailureRecord {
  const entered = c.label.filter((l) => !c.before.includes(l)),
    left = c.before.filter((l) => !c.label.includes(l));
  const what =
    entered.length > 0
      ? `entered ${entered.join(', ')}`
      : left.length > 0
        ? `left ${left.join(', ')}`
        : `read ${letterText(c.label)}`;
  const rule = `the robot ${what} at (${c.at.x.toFixed(2)}, ${c.at.y.toFixed(2)}) on the way to ${leg.id}, which the specification forbids (the runtime monitor has no accepting continuation): the goal was cancelled to stop the robot (${c.how}); no replan can repair a violated specification`;
  return {
    source: 'mission',
    kind: 'safety',
    label: 'safety',
    t: c.t,
    stream: leg.stream,
    index: leg.index,
    from: c.from,
    to: leg.id,
    term: leg.term,
    labels: [...c.label],
    latent: [],
    violated: entered.join(',') || letterText(c.label),
    class: 'permanent',
    action: 'none',
    unrecoverable: true,
    at: [c.at.x, c.at.y],
    rule,
  };
}
