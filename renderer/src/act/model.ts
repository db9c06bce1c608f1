/**
 * The tool loop tab's model: the form's fields (and what of them survives a reload), the buttons each run state
 * allows, and how a run's end is said. Pure: no DOM, no network; the view (panel.ts) renders it.
 */
import type { ActEvent, ActOptions, ActRunRequest, RunState } from '../../../main/contract/api.js';

/** The form's fields, by their element ids' suffix. */
export const ACT_FIELDS = ['world', 'tools', 'plan', 'planner', 'goal', 'task', 'replans', 'seed'] as const;
export type ActField = (typeof ACT_FIELDS)[number];
export type ActFields = Readonly<Record<ActField, string>>;

/** The fields a tab opens with: the warehouse example. */
export const exampleFields = (o: ActOptions): ActFields => ({
  world: o.example.world,
  tools: o.example.tools,
  plan: o.example.plan,
  planner: 'recovery',
  goal: o.example.goal,
  task: o.example.task,
  replans: '2',
  seed: '0',
});

/**
 * The fields after a reload: what was saved, where the options still offer it (a world, tool folder or plan that is
 * gone falls back to the example's); text fields as saved.
 */
export function restoredFields(o: ActOptions, saved: Readonly<Record<string, unknown>> | null): ActFields {
  const base = exampleFields(o);
  if (saved === null) return base;
  const text = (k: ActField): string => (typeof saved[k] === 'string' ? saved[k] : base[k]);
  const offered = (k: 'world' | 'tools' | 'plan', list: readonly { id: string }[]): string => {
    const v = text(k);
    return list.some((c) => c.id === v) || (k === 'plan' && v === '') ? v : base[k];
  };
  const planner = text('planner');
  return {
    world: offered('world', o.worlds),
    tools: offered('tools', o.tools),
    plan: offered('plan', o.plans),
    planner: planner === 'scripted' || planner === 'recovery' ? planner : base.planner,
    goal: text('goal'),
    task: text('task'),
    replans: /^\d+$/.test(text('replans')) ? text('replans') : base.replans,
    seed: /^\d+$/.test(text('seed')) ? text('seed') : base.seed,
  };
}

/** What storage holds under the tab's key, read leniently (null: nothing usable). */
export function readSavedFields(text: string | null): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text ?? 'null');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The run request for the fields. */
export const runRequest = (f: ActFields): ActRunRequest => ({
  world: f.world,
  tools: f.tools,
  ...(f.plan !== '' ? { plan: f.plan } : {}),
  planner: f.planner as 'recovery' | 'scripted',
  goal: f.goal,
  task: f.task,
  replans: Number(f.replans),
  seed: Number(f.seed),
});

export type ActEnd = Extract<ActEvent, { topic: 'act.end' }>;

/** Whether a run in this state is still going. */
const actActive = (s: RunState | null): boolean => s === 'running' || s === 'paused' || s === 'escalated';

/** How a loop that finished ended, in a word or two (the state line). */
function actOutcomeLabel(outcome: ActEnd['outcome']): string {
  switch (outcome) {
    case 'success':
      return 'succeeded';
    case 'stopped':
      return 'stopped';
    case 'goal-not-met':
      return 'failed (goal not met)';
    default:
      return `failed (${outcome})`;
  }
}

export interface ActControls {
  readonly run: { readonly disabled: boolean; readonly title: string };
  readonly stop: { readonly disabled: boolean };
  readonly state: { readonly key: string; readonly label: string };
}

/** The buttons and the state line for a run state (and how the last run ended, once it has). */
export function actControls(s: RunState | null, latched: boolean, end: ActEnd['outcome'] | null): ActControls {
  const going = actActive(s);
  return {
    run: {
      disabled: going || latched,
      title: latched ? 'The E-STOP is latched: reset it (header) before anything runs' : '',
    },
    stop: { disabled: !going },
    state: {
      key: s ?? 'idle',
      label: s === null ? 'idle' : s === 'finished' && end !== null ? actOutcomeLabel(end) : s,
    },
  };
}

/** The outcome line and the counts line of a run's end. */
export function endSummary(m: ActEnd, c: { ok: number; failed: number }): { outcome: string; counts: string } {
  return {
    outcome: `${m.outcome === 'success' ? 'SUCCESS' : m.outcome.toUpperCase()}: ${m.reason}`,
    counts: `${m.toolCalls} tool call(s) (${c.ok} passed, ${c.failed} failed), ${m.replans} replan(s)`,
  };
}
