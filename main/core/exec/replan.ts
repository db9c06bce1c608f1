/**
 * Replanning after a monitor failure — beyond SAGAS, which stops there. A failed transition becomes
 * a failure record with a transient/permanent class and the rule that decided it; the task's graph
 * is edited accordingly (penalise or remove the edge, remove the anchor) and the run's current state
 * becomes the new start node. The records are kept, so a second failure of the same edge is
 * permanent.
 */
import { type SemanticGraph, type EdgeInput, buildRows } from '../plan/semantic.js';
import type { ExecEvent } from './executor.js';
import type { MissionFailureKind, MissionFailureRecord } from '../../contract/failure.js';

/** The contract's MissionFailureRecord, under the name tests import. */
export type FailureRecord = MissionFailureRecord;

/** Penalty factor on an edge after its first tracking failure. */
export const EDGE_PENALTY = 4;

export function classifyFailure(
  e: Extract<ExecEvent, { kind: 'violation' | 'timeout' }>,
  from: string,
  latent: Float32Array,
  H_TD: number,
  viable: boolean,
  history: readonly MissionFailureRecord[],
): MissionFailureRecord {
  const base = {
    source: 'mission' as const,
    t: e.t,
    stream: e.stream,
    index: e.index,
    from,
    to: e.node,
    term: e.term,
    labels: [...e.labels],
    latent: Array.from(latent),
  };
  const kind = (k: MissionFailureKind): { kind: MissionFailureKind; label: MissionFailureKind } => ({
    kind: k,
    label: k,
  });
  if (!viable) {
    return {
      ...base,
      ...kind(e.kind === 'violation' ? 'forbidden-label' : 'tracking-timeout'),
      violated: e.kind === 'violation' ? e.literal : e.node,
      class: 'permanent',
      action: 'none',
      unrecoverable: true,
      rule: 'the runtime monitor has no accepting continuation after the observed labels: the specification is already violated (a committed safety violation), so no replan can repair it',
    };
  }
  if (e.kind === 'violation') {
    const again = history.some((r) => r.kind === 'forbidden-label' && r.from === from && r.to === e.node);
    return {
      ...base,
      ...kind('forbidden-label'),
      violated: e.literal,
      unrecoverable: false,
      class: again ? 'permanent' : 'transient',
      action: again ? 'remove-edge' : 'penalize-edge',
      rule: again
        ? 'forbidden label entered twice on this edge: remove it for this task'
        : 'forbidden label entered, but the specification still has an accepting continuation (the planned term was stricter than the formula): penalise the edge and replan',
    };
  }
  if (e.checkpoint && e.distance <= H_TD) {
    return {
      ...base,
      ...kind('missed-anchor'),
      violated: e.node,
      class: 'permanent',
      action: 'remove-anchor',
      unrecoverable: false,
      rule: `anchor ${e.node} was approached to ${e.distance.toFixed(2)} (within H_TD) but its label was not verified within H_low: remove the anchor for this task`,
    };
  }
  const again = history.some((r) => r.from === from && r.to === e.node && r.kind === 'tracking-timeout');
  return {
    ...base,
    ...kind('tracking-timeout'),
    violated: e.node,
    unrecoverable: false,
    class: again ? 'permanent' : 'transient',
    action: again ? 'remove-edge' : 'penalize-edge',
    rule: again
      ? `tracking ${from} → ${e.node} timed out a second time: remove the edge for this task`
      : `tracking ${from} → ${e.node} timed out: multiply its weight by ${EDGE_PENALTY} and replan`,
  };
}

function edges(g: SemanticGraph): EdgeInput[] {
  const out: EdgeInput[] = [];
  for (let u = 0; u < g.ids.length; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++)
      out.push({ from: u, to: g.outTo[e]!, weight: g.outW[e]! });
  }
  return out;
}

/**
 * The task's graph after a failure, with the run's current state as the new start node (connected
 * to cluster nodes within H_TD, else to the nearest one). Edge edits apply in both directions.
 */
export function replanGraph(
  g: SemanticGraph,
  record: MissionFailureRecord | null,
  start: { latent: Float32Array; position: readonly [number, number]; label: readonly string[] },
  H_TD: number,
): SemanticGraph {
  if (g.latents === undefined || g.latentDim === undefined) throw new RangeError('replanning needs a latent graph');
  const dim = g.latentDim;
  const index = new Map(g.ids.map((id, i) => [id, i] as const));
  const a = record ? index.get(record.from) : undefined,
    b = record ? index.get(record.to) : undefined;
  const hits = (e: EdgeInput): boolean =>
    a !== undefined && b !== undefined && ((e.from === a && e.to === b) || (e.from === b && e.to === a));
  const removed = record?.action === 'remove-anchor' && b !== undefined ? b : -1;
  const oldStart = g.start;
  let list = edges(g).filter((e) => e.from !== oldStart && e.to !== oldStart && e.from !== removed && e.to !== removed);
  if (record?.action === 'remove-edge') list = list.filter((e) => !hits(e));
  if (record?.action === 'penalize-edge')
    list = list.map((e) => (hits(e) ? { ...e, weight: e.weight * EDGE_PENALTY } : e));
  // The old start node stays as an isolated node (ids are stable); the new start reuses its slot.
  const lat = Float32Array.from(g.latents);
  lat.set(start.latent.subarray(0, dim), oldStart * dim);
  const near: { v: number; d: number }[] = [];
  let best = -1,
    bd = Infinity;
  g.kinds.forEach((k, v) => {
    if (k !== 'cluster') return;
    let s = 0;
    for (let q = 0; q < dim; q++) s += (lat[v * dim + q]! - start.latent[q]!) ** 2;
    const d = Math.sqrt(s);
    if (d <= H_TD) near.push({ v, d });
    if (d < bd) {
      bd = d;
      best = v;
    }
  });
  if (near.length === 0 && best >= 0) near.push({ v: best, d: bd });
  for (const { v, d } of near) list.push({ from: oldStart, to: v, weight: d }, { from: v, to: oldStart, weight: d });
  const positions = Float64Array.from(g.positions);
  positions[2 * oldStart] = start.position[0];
  positions[2 * oldStart + 1] = start.position[1];
  const labels = g.labels.map((l, v) => (v === oldStart ? [...start.label] : l));
  const kinds = g.kinds.map((k, v) => (v === removed ? ('cluster' as const) : k));
  const soft = new Map<string, Float64Array>();
  for (const [key, p] of g.soft) {
    const copy = Float64Array.from(p);
    // A removed anchor becomes an unreachable, fully risky cluster: no edges, no evidence.
    if (removed >= 0) copy[removed] = 1;
    soft.set(key, copy);
  }
  return {
    ...g,
    ...buildRows(g.ids.length, list, true),
    latents: lat,
    positions,
    labels: labels.map((l, v) => (v === removed ? [] : l)),
    kinds,
    soft,
  };
}
