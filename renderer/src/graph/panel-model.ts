/**
 * The Graph panel's pure part: what is shown (a scene, its plan and automaton, and where they came
 * from), the texts of its status line and errors, which automaton states are highlighted, whether a
 * scene must be drawn again, and where a node link lands. No DOM, no Cytoscape and no network, so
 * it is tested on its own; panel.ts draws it. Following the mission console is follow.ts.
 */
import type { AutomatonView, GraphScene, MissionGraphView, PlanView } from '../../../main/contract/api.js';
import { planSteps } from '../../../main/contract/plan-steps.js';

/**
 * Where a shown scene came from: 'file' (opened here), 'console' (the mission console's scene:
 * robot and trail apply), 'latent' (the mission's latent graph: same frame, robot and trail apply),
 * 'product' (graph × automaton), 'other' (a scene a node link brought, e.g. an audit run's).
 */
export type ShownSource = 'file' | 'console' | MissionGraphView | 'other';

export interface Shown {
  scene: GraphScene;
  plan: PlanView | null;
  automaton: AutomatonView | null;
  source: ShownSource;
}

/** A plan in a few words: its steps and costs, or why there is none. */
export function describePlan(p: PlanView | null): string {
  if (p === null) return '';
  if (p.status !== 'ok')
    return `infeasible: ${p.reason?.message ?? p.reason?.kind ?? 'no plan'}${p.explanation ? `. Why: ${p.explanation.message}` : ''}`;
  const c = p.cost;
  const n = planSteps(p);
  const steps = (k: number): string => `${k} step${k === 1 ? '' : 's'}`;
  return `plan: prefix ${steps(n.prefix)}${c ? ` (cost ${c.prefix.toFixed(2)})` : ''}, suffix ${steps(n.suffix)}${c ? ` (cost ${c.suffix.toFixed(2)})` : ''}`;
}

/** The status line of a shown scene; `note` (where it came from) goes first. */
export function statusLine(s: Shown, note?: string): string {
  return [note, `${s.scene.world}: ${s.scene.nodes.length} nodes, ${s.scene.edges.length} edges`, describePlan(s.plan)]
    .filter(Boolean)
    .join(' · ');
}

/** The mission-view picker's value for a source (a file or a link's scene shows as the live mission's slot). */
export function missionViewOf(source: ShownSource | null): 'console' | MissionGraphView {
  return source === 'latent' || source === 'product' ? source : 'console';
}

/** The robot and its trail apply to a scene that shares the task space's frame. */
export const liveFrame = (source: ShownSource | null | undefined): boolean =>
  source === 'console' || source === 'latent';

/** The automaton's initial states (highlighted when nothing else is). */
export const initialStates = (a: AutomatonView | null): number[] =>
  a?.states.filter((q) => q.initial).map((q) => q.id) ?? [];

/** Why Find found nothing. */
export function findError(query: string, scene: GraphScene | null): string {
  const q = query.trim();
  if (scene === null) return `Find: no graph is shown to look for "${q}" in.`;
  const examples = scene.nodes
    .slice(0, 3)
    .map((n) => n.id)
    .join(', ');
  return `Find: no node "${q}" in this graph (${scene.nodes.length} nodes${examples === '' ? '' : `; ids such as ${examples}`}).`;
}

/** The error of a failed Open: a spec error names its line and column. */
export function openError(
  text: string,
  e: { path?: string; line?: number; column?: number } | null,
): { text: string; badSpec: boolean } {
  const badSpec = e?.path === '$.spec';
  const where = e?.line !== undefined ? ` (line ${e.line}, column ${e.column ?? '?'})` : '';
  return { text: `${text}${badSpec ? where : ''}`, badSpec };
}

/**
 * Where a node link from an audited run lands: on the live mission's graph when the mission is that
 * run and places the node ('mission'); else on the run's own scene ('own', drawn again unless it is
 * already shown), with an error when that scene does not place the node.
 */
export function ownSceneLanding(a: {
  id: string;
  own: { scene: GraphScene };
  auditRun: string | undefined;
  mission: { auditRun: string | null; scene: GraphScene | null };
  shown: { source: ShownSource | null; auditRun: string | null; scene: GraphScene | null };
}): { to: 'mission' } | { to: 'own'; redraw: boolean; note: string; error: string | null } {
  const { id, own, auditRun, mission, shown } = a;
  const run = auditRun !== undefined ? `audit run ${auditRun.slice(0, 8)}` : 'the audited run';
  if (auditRun !== undefined && auditRun === mission.auditRun && mission.scene?.nodes.some((n) => n.id === id))
    return { to: 'mission' };
  const redraw = shown.source !== 'other' || shown.auditRun !== (auditRun ?? null) || shown.scene !== own.scene;
  const error = own.scene.nodes.some((n) => n.id === id)
    ? null
    : `${id} cannot be shown in ${run}'s scene: the audit log does not record where graph nodes are, the replay places only the nodes of the run's plans, and ${id} is on none of them.`;
  return { to: 'own', redraw, note: `${run} (from the audit log)`, error };
}

/**
 * Requests one at a time: a newer one (or Cancel) makes the answers of older ones ignored.
 */
export class Requests {
  private generation = 0;
  /** Starts a request; its number. */
  begin(): number {
    return ++this.generation;
  }
  /** Cancels the request in flight. */
  cancel(): void {
    this.generation++;
  }
  /** Whether an answer to request `n` still applies. */
  current(n: number): boolean {
    return n === this.generation;
  }
}

/** The scene drawn now, as JSON: the same graph planned again keeps its drawing and viewport. */
export class DrawnScene {
  private drawn: { json: string; scene: GraphScene } | null = null;
  /** Whether `scene` must be drawn (it differs from the one drawn, or the view holds another). */
  needsDraw(scene: GraphScene, viewScene: GraphScene | null): boolean {
    const json = JSON.stringify(scene);
    if (this.drawn !== null && json === this.drawn.json && viewScene === this.drawn.scene) return false;
    this.drawn = { json, scene };
    return true;
  }
}
