/**
 * The mission console's model: what the panel knows (the plan on the screen and the inputs it was made from, the run
 * it shows, the E-STOP latch), how events change it, and what the view draws from it (button states, labels, summary
 * lines, log lines). Pure: no DOM, no network; the view (panel.ts) renders it and wires the events.
 */
import type {
  MissionLive,
  MissionLiveTick,
  MissionPlanRequest,
  MissionPlanResult,
  PlanExplanation,
  RunState,
} from '../../../main/contract/api.js';
import type { PlanMethod } from '../../../main/contract/defaults.js';
import { planSteps } from '../../../main/contract/plan-steps.js';
import type { WhyDrawing } from '../graph/why-model.js';

/** The inputs a plan is made from, by the name the stale notice gives them. */
export const PLAN_INPUTS = [
  'world',
  'models',
  'map graph',
  'spec',
  'regions',
  'start',
  'dataset steps',
  'seed',
  'method',
] as const;
export type PlanInput = (typeof PLAN_INPUTS)[number];
export type PlanInputs = Readonly<Record<PlanInput, string>>;

/** How a mission ended (MissionLive['end']). */
export type MissionEnd = NonNullable<MissionLive['end']>;

export interface ConsoleModel {
  /** The plan on the screen that Run executes (null: none, or one that can no longer run). */
  readonly planned: MissionPlanResult | null;
  /** The inputs `planned` was made from (null: no plan of this window's on the screen). */
  readonly planInputs: PlanInputs | null;
  /** Counts plan requests: an answer to an older one is dropped. */
  readonly planSeq: number;
  /** The mission run this window shows (joined from its snapshot, whichever window started it). */
  readonly run: string | null;
  /** The last of its events applied (MissionEvent.seq). */
  readonly runSeq: number;
  readonly runState: RunState | null;
  /** How the run shown ended (null: it has not). */
  readonly end: MissionEnd | null;
  readonly latched: boolean;
  /** The planned session whose plan the graph view draws (this window's, or a run's it joined). */
  readonly drawnSession: string | null;
  /** The planned session of the run shown, and its automaton (a replan keeps them). */
  readonly runSession: string | null;
  readonly runAutomaton: MissionPlanResult['automaton'] | null;
}

export const initialModel: ConsoleModel = {
  planned: null,
  planInputs: null,
  planSeq: 0,
  run: null,
  runSeq: 0,
  runState: null,
  end: null,
  latched: false,
  drawnSession: null,
  runSession: null,
  runAutomaton: null,
};

/** Whether a run in this state is still going (running, paused, or waiting for a decision). */
export const isActive = (st: RunState | null): boolean => st === 'running' || st === 'paused' || st === 'escalated';

/** The inputs changed since the plan on the screen was made, in the order of PLAN_INPUTS. */
export function changedSincePlan(m: ConsoleModel, now: PlanInputs): PlanInput[] {
  const was = m.planInputs;
  if (was === null) return [];
  return PLAN_INPUTS.filter((k) => now[k] !== was[k]);
}

/** The stale notice, or '' when the plan still matches its inputs. */
export const staleText = (changed: readonly string[]): string =>
  changed.length === 0 ? '' : `Plan is stale: ${changed.join(', ')} changed since it was made. Plan again to run.`;

// ---- transitions -------------------------------------------------------------------------------------------------

/** A new plan is asked for: the plan on the screen goes (nothing runs, nothing old stays drawn, until it is drawn). */
export const planStarted = (m: ConsoleModel): ConsoleModel => ({
  ...m,
  planSeq: m.planSeq + 1,
  planned: null,
  planInputs: null,
  drawnSession: null,
});

/** A plan was drawn: it is the one Run executes, bound to the inputs it was made from. */
export const planShown = (m: ConsoleModel, r: MissionPlanResult, asked: PlanInputs): ConsoleModel => ({
  ...m,
  planned: r,
  planInputs: asked,
  drawnSession: r.session,
  // A run another window started meanwhile goes on: its state stays.
  runState: isActive(m.runState) ? m.runState : null,
  end: isActive(m.runState) ? m.end : null,
});

/** A plan could not be drawn or made: there is none. */
export const planFailed = (m: ConsoleModel): ConsoleModel => ({ ...m, planned: null });

/** The plan on the screen can no longer run (a robot's plan that ran, or whose robot moved); it stays drawn. */
export const planSpent = (m: ConsoleModel): ConsoleModel => ({ ...m, planned: null });

/** A run's state event. */
export const stateChanged = (m: ConsoleModel, s: RunState | null): ConsoleModel => ({
  ...m,
  runState: s,
  end: isActive(s) ? null : m.end,
});

/** The latch was set or reset. */
export const latchChanged = (m: ConsoleModel, latched: boolean): ConsoleModel => ({ ...m, latched });

/** An event of the run shown; false when it is another run's or already applied. */
export const isNewEvent = (m: ConsoleModel, e: { run: string; seq: number }): boolean =>
  e.run === m.run && e.seq > m.runSeq;
export const eventApplied = (m: ConsoleModel, seq: number): ConsoleModel => ({ ...m, runSeq: seq });

/**
 * The run shown ended: a run still going is finished (its label says how: ended(), stateLabel()). A run already
 * stopped or E-stopped keeps that state.
 */
export const ended = (m: ConsoleModel, end: MissionEnd): ConsoleModel => ({
  ...m,
  end,
  runState: isActive(m.runState) ? 'finished' : m.runState,
});

/**
 * This window shows a run from its snapshot. `own`: it executes the plan this window drew; otherwise the plan on the
 * screen is the run's, not one this window made, and Run waits for a plan of its own.
 */
export function adopted(m: ConsoleModel, l: MissionLive): { model: ConsoleModel; own: boolean } {
  const own = m.drawnSession === l.session;
  return {
    own,
    model: {
      ...m,
      run: l.run,
      runSeq: l.seq,
      runSession: l.session,
      runAutomaton: l.automaton,
      drawnSession: l.session,
      runState: l.state,
      end: null,
      ...(own ? {} : { planned: null, planInputs: null }),
    },
  };
}

/** After a reload: the plan restored is the run's own (the run this window joined executes it). */
export const restoredRunning = (m: ConsoleModel, r: MissionPlanResult, inputs: PlanInputs): ConsoleModel => ({
  ...m,
  planned: r,
  planInputs: inputs,
});

// ---- what the view draws ------------------------------------------------------------------------------------------

export interface Controls {
  readonly run: { readonly disabled: boolean; readonly title: string };
  readonly plan: { readonly disabled: boolean };
  readonly pause: { readonly disabled: boolean; readonly label: 'Pause' | 'Resume' };
  readonly stop: { readonly disabled: boolean };
  /** The run state's key (data-state) and the words shown for it. */
  readonly state: { readonly key: string; readonly label: string };
}

/** How a run that finished ended, in a word or two (the state line and the plots). */
export function outcomeLabel(end: MissionEnd): string {
  switch (end.outcome) {
    case 'success':
      return 'succeeded';
    case 'stopped':
      return 'stopped';
    case 'safety':
      return 'safety stop';
    default:
      return end.failureMode !== null && end.failureMode !== '' ? `failed (${end.failureMode})` : 'failed';
  }
}

/** The run state's words: a finished run by how it ended, not as "finished". */
const stateLabel = (s: RunState | null, end: MissionEnd | null): string =>
  s === null ? 'idle' : s === 'finished' && end !== null ? outcomeLabel(end) : s;

export function controls(m: ConsoleModel, stale: boolean): Controls {
  const s = m.runState;
  const going = isActive(s);
  return {
    run: {
      disabled: going || m.planned === null || m.planned.plan.status !== 'ok' || stale || m.latched,
      title: m.latched
        ? 'The E-STOP is latched: reset it (header) before anything runs'
        : stale
          ? 'The plan is stale: plan again'
          : '',
    },
    plan: { disabled: going },
    pause: { disabled: !(s === 'running' || s === 'paused'), label: s === 'paused' ? 'Resume' : 'Pause' },
    stop: { disabled: !going },
    state: { key: s ?? 'idle', label: stateLabel(s, m.end) },
  };
}

/** A start position typed as "x,y": undefined when empty (the seed chooses), null when it does not parse. */
export function parseStart(text: string): [number, number] | undefined | null {
  const t = text.trim();
  if (t === '') return undefined;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(t);
  return m === null ? null : [Number(m[1]), Number(m[2])];
}

/** The plan request for the inputs: a robot plans on a map graph from where it is (no models, start or dataset). */
export function planRequest(
  job: string,
  f: PlanInputs,
  robot: boolean,
  start: [number, number] | undefined,
): MissionPlanRequest {
  const method = f.method as PlanMethod;
  if (robot)
    return {
      job,
      world: f.world,
      ...(f['map graph'] !== '' ? { graph: f['map graph'] } : {}),
      spec: f.spec,
      regions: f.regions,
      method,
    };
  return {
    job,
    world: f.world,
    ...(f.models !== '' ? { models: f.models } : {}),
    spec: f.spec,
    regions: f.regions,
    ...(start !== undefined ? { start } : {}),
    method,
    datasetSteps: Number(f['dataset steps']),
    seed: Number(f.seed),
  };
}

/** The input a refused plan request is about, so the view shows the error at that field; null: at the buttons. */
export function errorField(e: { code?: string | undefined; path?: string | undefined }): 'spec' | 'regions' | null {
  if (e.code === 'invalid-spec') return 'spec';
  if (e.code === 'invalid-regions') return 'regions';
  if (e.path === '$.spec') return 'spec';
  if (e.path === '$.regions' || e.path?.startsWith('$.regions.') === true) return 'regions';
  return null;
}

/** A plan's sha256 as the console shows it: short (the full value goes in the title). */
export const shortSha = (sha: string): string => `${sha.slice(0, 12)}…`;

/** The summary of a plan this window made: status line, detail line, report line. */
export function planLines(r: MissionPlanResult): { status: string; detail: string; report: string } {
  const p = r.plan;
  const d = r.report.dataset;
  return {
    status: p.status === 'ok' ? 'Plan found' : `Infeasible: ${p.reason?.kind ?? ''}`,
    detail:
      p.status === 'ok'
        ? `prefix ${planSteps(p).prefix} waypoints, suffix ${planSteps(p).suffix}; objective ${p.cost?.objective.toFixed(1) ?? '–'}; ${r.planning_ms.toFixed(1)} ms`
        : (p.reason?.message ?? ''),
    report:
      r.robot !== undefined
        ? `${r.report.nodes} nodes; from the robot at (${r.robot.x.toFixed(2)}, ${r.robot.y.toFixed(2)}): Run refuses this plan if the robot moves more than ${r.robot.tolerance_m} m before it starts`
        : `${r.report.nodes} nodes${d !== undefined ? ` over ${d.transitions.toLocaleString('en')} ${d.regime} transitions` : ''}, ${r.report.anchors} anchors${r.report.unavailable.length > 0 ? `; unavailable: ${r.report.unavailable.join(', ')}` : ''}`,
  };
}

const REGION_WHY: Record<PlanExplanation['regions'][number]['why'], string> = {
  'labelled-nowhere': 'labels no node of the graph: label one, or fix the name',
  unreachable: 'labels only places the start cannot reach: connect one, or drop the need',
  forbidden: 'lies on every path, where the specification forbids it: relax that rule, or add a way around',
};

/**
 * Why an infeasible plan cannot be met, as the Mission tab lists it: the minimal conflicting conjuncts, the smallest
 * failing part, the regions it cannot have (with where a plan would enter a forbidden one, and the cut around the
 * start); null when the plan is not explained.
 */
export function explanationLines(e: PlanExplanation | undefined): { title: string; items: string[] } | null {
  if (e === undefined) return null;
  if (e.conflict.length === 0) return { title: e.message, items: [] };
  const items = e.conflict.map((i) => `conjunct ${i + 1}: ${e.conjuncts[i]}${e.conflict.length > 1 ? '' : ' (alone)'}`);
  if (e.core !== null && e.conflict.length === 1 && e.core !== e.conjuncts[e.conflict[0]!])
    items.push(`the smallest part that fails: ${e.core}`);
  for (const r of e.regions) {
    const at = r.at ? ` (${+r.at[0].toFixed(2)}, ${+r.at[1].toFixed(2)})` : '';
    const where = r.node !== undefined ? `; a plan would enter it at ${r.node}${at}` : '';
    const cut = r.cut !== undefined && r.cut.length > 0 ? `; the cut: ${r.cut.join(', ')}` : '';
    items.push(`"${r.region}" ${REGION_WHY[r.why]}${where}${cut}`);
  }
  if (e.bound !== undefined) items.push(`partial: ${e.bound}`);
  const title = e.contradiction
    ? `Why: ${e.conflict.length === 1 ? 'this conjunct is unsatisfiable' : `these ${e.conflict.length} conjuncts contradict each other`}: no graph can meet ${e.conflict.length === 1 ? 'it' : 'them together'}`
    : e.conflict.length === 1
      ? `Why: this conjunct cannot be met on this graph${e.minimal ? '' : ' (not proven minimal)'}`
      : `Why: these ${e.conflict.length} conjuncts cannot hold together on this graph${e.minimal ? ' (dropping any one makes the mission feasible)' : ' (not proven minimal)'}`;
  return { title, items };
}

/** One line of the world view's legend for an explanation: `key` names the swatch (the view's class for it). */
export interface WhyLegendLine {
  readonly key: 'unreachable' | 'forbidden' | 'labelled-nowhere' | 'cut';
  readonly text: string;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The legend of what the world view draws for an explanation: each region it names by its role (a region labelled
 * nowhere has no place to draw, so the legend says so instead), then the cut; empty when nothing is named.
 */
export function whyLegend(d: WhyDrawing | null): WhyLegendLine[] {
  if (d === null) return [];
  const out: WhyLegendLine[] = d.regions.map((r) => {
    if (r.role === 'labelled-nowhere')
      return { key: r.role, text: `"${r.region}" is labelled nowhere: no node of the graph to mark` };
    const role = r.role === 'unreachable' ? 'unreachable from the start' : 'forbidden on every path';
    return {
      key: r.role,
      text: `"${r.region}" ${role}: ${r.nodes.length === 0 ? 'no node of this map carries it' : plural(r.nodes.length, 'node')}`,
    };
  });
  if (d.cutNodes.length > 0 || d.missing.length > 0)
    out.push({
      key: 'cut',
      text: `the cut: ${plural(d.cutNodes.length, 'node')} every plan would cross, ${plural(d.cutEdges.length, 'edge')} into them${d.missing.length > 0 ? `; ${d.missing.length} not on this map` : ''}`,
    });
  return out;
}

/** The summary of a run joined from another window (or from before a reload). */
export function joinedLines(l: MissionLive): { detail: string; note: string } {
  return {
    detail:
      l.plan.status === 'ok'
        ? `prefix ${planSteps(l.plan).prefix} waypoints, suffix ${planSteps(l.plan).suffix}; objective ${l.plan.cost?.objective.toFixed(1) ?? '–'}`
        : (l.plan.reason?.message ?? ''),
    note: `${l.scene.world}: planned in another window (or before this one reloaded). This window shows it and can pause, stop and E-STOP it; plan here to run a mission of your own.`,
  };
}

/** The line under the view bar for a tick. */
export const tickLine = (m: MissionLiveTick): string =>
  `t=${m.t}  (${m.x.toFixed(2)}, ${m.y.toFixed(2)})  {${m.labels.join(', ')}}  → ${m.target ?? '–'}`;

/** The event-log line, its kind, and the status line's words for a run's end. */
export function endLines(end: MissionEnd): {
  log: string;
  kind: string;
  notify: { text: string; level: 'info' | 'error' } | null;
} {
  const head =
    end.outcome === 'success'
      ? 'SUCCESS'
      : end.outcome === 'stopped'
        ? 'STOPPED'
        : end.outcome === 'safety'
          ? 'SAFETY STOP'
          : `FAILED (${end.failureMode ?? ''})`;
  return {
    log: `${head}: ${end.message}`,
    kind: end.outcome === 'success' ? 'ok' : end.outcome === 'safety' ? 'failed' : end.outcome,
    notify:
      end.outcome === 'stopped'
        ? null
        : {
            text:
              end.outcome === 'safety'
                ? `Safety stop: ${end.message}`
                : `Mission ${end.success ? 'succeeded' : 'failed'}: ${end.message}`,
            level: end.success ? 'info' : 'error',
          },
  };
}

/** A driven trajectory (x0, y0, x1, y1, …) as points. */
export function trajectoryPoints(tr: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < tr.length; i += 2) out.push([tr[i]!, tr[i + 1]!]);
  return out;
}

// ---- what survives a reload ---------------------------------------------------------------------------------------

/** The fields and the last plan, as this browser's storage keeps them. */
export interface Saved {
  readonly fields?: Readonly<Record<string, string>>;
  readonly last?: { readonly session: string; readonly inputs: PlanInputs };
}

/** What storage holds, read leniently: anything not a saved console is nothing saved. */
export function readSaved(text: string | null): Saved {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    const o = v as Record<string, unknown>;
    const fields = isStringRecord(o['fields']) ? o['fields'] : undefined;
    const last = o['last'] as Saved['last'] | undefined;
    const lastOk =
      typeof last === 'object' && last !== null && typeof last.session === 'string' && isStringRecord(last.inputs);
    return { ...(fields !== undefined ? { fields } : {}), ...(lastOk ? { last } : {}) };
  } catch {
    return {};
  }
}

const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v as Record<string, unknown>).every((x) => typeof x === 'string');

/** The saved state with the current fields (and the last plan, when one was just made). */
export const withFields = (
  saved: Saved,
  fields: Readonly<Record<string, string>>,
  last: Saved['last'] | null,
): Saved => ({ ...saved, fields, ...(last !== null ? { last } : {}) });
