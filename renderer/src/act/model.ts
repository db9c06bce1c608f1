/**
 * The tool loop tab's model: the form's fields (and what of them survives a reload), the buttons each run state
 * allows, how a run's end is said, and the rules' verdict beside each call (where a refused call is drawn). Pure: no
 * DOM, no network; the view (panel.ts, steps.ts) renders it.
 */
import type { ActEvent, ActOptions, ActRunRequest, RunState } from '../../../main/contract/api.js';
import type { AuditEventBody } from '../../../main/contract/audit-events.js';

/** The form's fields, by their element ids' suffix. */
export const ACT_FIELDS = ['world', 'tools', 'plan', 'rules', 'planner', 'goal', 'task', 'replans', 'seed'] as const;
export type ActField = (typeof ACT_FIELDS)[number];
export type ActFields = Readonly<Record<ActField, string>>;

/** The fields a tab opens with: the warehouse example. */
export const exampleFields = (o: ActOptions): ActFields => ({
  world: o.example.world,
  tools: o.example.tools,
  plan: o.example.plan,
  rules: '',
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
  const offered = (k: 'world' | 'tools' | 'plan' | 'rules', list: readonly { id: string }[]): string => {
    const v = text(k);
    return list.some((c) => c.id === v) || ((k === 'plan' || k === 'rules') && v === '') ? v : base[k];
  };
  const planner = text('planner');
  return {
    world: offered('world', o.worlds),
    tools: offered('tools', o.tools),
    plan: offered('plan', o.plans),
    rules: offered('rules', o.rules),
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
  ...(f.rules !== '' ? { rules: f.rules } : {}),
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

/** A verdict of the rules on one call, as the loop records it (`rule_verdict`). */
export type RuleVerdict = AuditEventBody<'rule_verdict'>;

/**
 * Where a verdict belongs in the step view: a refusal is a call of its own, drawn where it would have happened (the
 * loop never ran it, so no call event comes); an allowing prediction goes with the call that follows; the verdict on
 * the evidence with the call that just ran.
 */
export const verdictPlace = (v: RuleVerdict): 'refused-call' | 'next-call' | 'current-call' =>
  v.phase === 'observed' ? 'current-call' : v.ok ? 'next-call' : 'refused-call';

export interface RuleBadge {
  /** ok; pending (ok, with obligations on the next call); refused (before the call); violated (on the evidence). */
  readonly status: 'ok' | 'pending' | 'refused' | 'violated';
  /** The badge's words: the verdict and, when one is broken, the rule and its proposition. */
  readonly text: string;
  /** The details: each rule's monitor state, the propositions that held, the pending obligations, the errors. */
  readonly lines: readonly string[];
}

const quoted = (xs: readonly string[]): string => (xs.length === 0 ? 'none' : xs.join(', '));

/** The rules' verdict on a call, in words for the step view. */
export function ruleBadge(v: RuleVerdict): RuleBadge {
  const pending = v.obligations ?? [];
  const status: RuleBadge['status'] = !v.ok
    ? v.phase === 'predicted'
      ? 'refused'
      : 'violated'
    : pending.length > 0
      ? 'pending'
      : 'ok';
  const broken = `rule "${v.rule ?? '?'}" on ${v.proposition ?? '?'}`;
  const text =
    status === 'refused'
      ? `refused: ${broken}`
      : status === 'violated'
        ? `violated: ${broken}`
        : status === 'pending'
          ? `rules ok · ${pending.length} pending`
          : v.phase === 'predicted'
            ? 'rules allow it'
            : 'rules ok';
  const lines = [
    ...(v.ltl !== undefined ? [`${v.rule ?? '?'}: ${v.ltl}`] : []),
    `${v.phase === 'predicted' ? 'predicted (declared effect)' : 'observed (sensor evidence)'}: ${quoted(v.letter)} hold`,
    ...(v.open.length > 0 ? [`left open by the declaration, tried both ways: ${v.open.join(', ')}`] : []),
    ...v.rules.map(
      (r) =>
        `${r.name}: ${v.broken.includes(r.name) ? 'broken' : r.viable ? 'can hold' : 'cannot hold'} (states {${r.states.join(', ')}})`,
    ),
    ...pending.map((o) => `pending: ${o}`),
    ...v.errors.map((e) => `${e.proposition} could not be evaluated (counted false): ${e.error}`),
  ];
  return { status, text, lines };
}

/** The head of a refused call: what was proposed, and why nothing moved. */
export function refusedCall(v: RuleVerdict): { tool: string; args: unknown; why: string } {
  return {
    tool: v.tool,
    args: v.arguments,
    why: `refused before anything moved: rule "${v.rule ?? '?'}"${v.ltl !== undefined ? ` (${v.ltl})` : ''} on ${v.proposition ?? '?'}`,
  };
}
