/**
 * The tool loop tab: run the careful control loop (`witness act`) from the console on the tabletop
 * or a ROS 2 robot — a tool folder, a scripted plan, a goal verifier — and watch it in the step view;
 * escalations open the shared dialog, Stop and the E-STOP cancel the running skill, and the audit
 * link opens the run in the audit browser. The form's fields survive a reload (this browser's storage).
 * model.ts holds what the tab derives; this file builds the elements and wires them.
 */
import './act.css';
import type { ActEvent, ActOptions, ActRule, ActTool, ApiEvent, RunState } from '../../../main/contract/api.js';
import { type App, type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { stepTree, type StepTree } from './steps.js';
import { foxgloveSwitch } from '../console/foxglove.js';
import {
  ACT_FIELDS,
  actControls,
  endSummary,
  readSavedFields,
  restoredFields,
  runRequest,
  type ActEnd,
  type ActField,
  type ActFields,
} from './model.js';

const STORE = 'witness.act';

const field = (label: string, input: HTMLElement): HTMLElement =>
  el('label', { class: 'field' }, el('span', {}, label), input);

interface ActDom {
  readonly inputs: Readonly<Record<ActField, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>>;
  readonly world: HTMLSelectElement;
  readonly tools: HTMLSelectElement;
  readonly plan: HTMLSelectElement;
  readonly rules: HTMLSelectElement;
  readonly runBtn: HTMLButtonElement;
  readonly stopBtn: HTMLButtonElement;
  readonly state: HTMLElement;
  readonly errors: HTMLElement;
  readonly summary: HTMLElement;
  readonly auditLink: HTMLButtonElement;
  readonly toolList: HTMLElement;
  readonly ruleList: HTMLElement;
  readonly tree: StepTree;
}

function actDom(): ActDom {
  const world = el('select', { id: 'act-world' });
  const tools = el('select', { id: 'act-tools' });
  const plan = el('select', { id: 'act-plan' });
  const rules = el('select', { id: 'act-rules' });
  const planner = el(
    'select',
    { id: 'act-planner' },
    el('option', { value: 'recovery' }, 'recovery (the plan, and ways past known failures)'),
    el('option', { value: 'scripted' }, 'scripted (the plan as written)'),
  );
  const goal = el('textarea', {
    id: 'act-goal',
    rows: '2',
    spellcheck: 'false',
    placeholder: 'the goal verifier: a CEL condition on the observed state',
  });
  const task = el('input', { id: 'act-task', placeholder: 'the task in words (recorded)' });
  const replans = el('input', { id: 'act-replans', type: 'number', min: '0', max: '100', value: '2' });
  const seed = el('input', { id: 'act-seed', type: 'number', min: '0', value: '0' });
  return {
    inputs: { world, tools, plan, rules, planner, goal, task, replans, seed },
    world,
    tools,
    plan,
    rules,
    runBtn: el('button', { id: 'act-run', class: 'primary' }, 'Run'),
    stopBtn: el('button', { id: 'act-stop', disabled: '' }, 'Stop'),
    state: el('div', { id: 'act-state', class: 'run-state' }, 'idle'),
    errors: el('div', { id: 'act-error', class: 'error', role: 'alert' }),
    summary: el('div', { id: 'act-summary', class: 'summary' }),
    auditLink: el('button', { id: 'act-audit', hidden: '' }, 'Open the run in the audit browser'),
    toolList: el('ul', { id: 'act-tool-list', class: 'act-tool-list' }),
    ruleList: el('ul', { id: 'act-rule-list', class: 'act-tool-list' }),
    tree: stepTree(),
  };
}

function actLayout(d: ActDom, a: App): HTMLElement {
  const i = d.inputs;
  return el(
    'div',
    { class: 'act' },
    el(
      'aside',
      { class: 'controls' },
      field('World', i.world),
      field('Tools (folder of tool files)', i.tools),
      field('Scripted plan', i.plan),
      field('Rules (checked before each call)', i.rules),
      field('Planner', i.planner),
      field('Goal verifier (CEL)', i.goal),
      field('Task', i.task),
      el('div', { class: 'row' }, field('Replans R', i.replans), field('Seed', i.seed)),
      el('div', { class: 'buttons' }, d.runBtn, d.stopBtn),
      d.errors,
      d.summary,
      d.auditLink,
      foxgloveSwitch(a, 'act-').element,
      el('h4', {}, 'Registered tools'),
      d.toolList,
      el('h4', {}, 'Rules in force'),
      d.ruleList,
    ),
    el(
      'section',
      { class: 'act-view' },
      el(
        'div',
        { class: 'view-bar' },
        d.state,
        el(
          'span',
          { class: 'muted' },
          'Each call: arguments → preconditions → execution → postconditions on sensor evidence → failure record → replan. Click a call to open it.',
        ),
      ),
      d.tree.element,
    ),
  );
}

/** The tab's state beside its elements. */
interface ActView {
  readonly a: App;
  readonly d: ActDom;
  options: ActOptions | null;
  run: string | null;
  auditRun: string | null;
  latched: boolean;
  runState: RunState | null;
  end: ActEnd['outcome'] | null;
  /** Run was pressed: focus goes to Stop once the loop is going. */
  focusAfterRun: boolean;
  /** Events of runs not yet known (they can arrive before actRun's answer), replayed once it comes. */
  readonly early: ActEvent[];
}

const values = (d: ActDom): ActFields =>
  Object.fromEntries(ACT_FIELDS.map((k) => [k, d.inputs[k].value])) as Record<ActField, string>;

function setState(v: ActView, s: RunState | null): void {
  v.runState = s;
  if (s !== 'finished') v.end = null;
  const c = actControls(s, v.latched, v.end);
  const stopFocused = document.activeElement === v.d.stopBtn;
  v.d.state.textContent = c.state.label;
  v.d.state.dataset.state = c.state.key;
  v.d.runBtn.disabled = c.run.disabled;
  v.d.runBtn.title = c.run.title;
  v.d.stopBtn.disabled = c.stop.disabled;
  // After Run, the keyboard operator's next control is Stop, not the page.
  if (v.focusAfterRun && !c.stop.disabled) {
    v.focusAfterRun = false;
    v.d.stopBtn.focus();
  } else if (stopFocused && c.stop.disabled && !c.run.disabled) v.d.runBtn.focus(); // the loop ended: Run again
}

function remember(v: ActView): void {
  try {
    localStorage.setItem(STORE, JSON.stringify(values(v.d)));
  } catch {
    /* storage unavailable: nothing survives a reload */
  }
}

function fill(select: HTMLSelectElement, items: readonly { id: string; title: string }[]): void {
  const keep = select.value;
  select.replaceChildren(...items.map((i) => el('option', { value: i.id }, i.title)));
  if (keep !== '' && items.some((i) => i.id === keep)) select.value = keep;
}

/** Loads the worlds, tool folders and plans; the first time, the fields saved before a reload (or the example). */
function reloadOptions(v: ActView): void {
  const { d } = v;
  v.a.api.actOptions().then(
    (o) => {
      const first = v.options === null;
      v.options = o;
      fill(d.world, o.worlds);
      fill(d.tools, o.tools);
      fill(d.plan, o.plans);
      fill(d.rules, [{ id: '', title: '(none)' }, ...o.rules]);
      if (!first) return;
      let saved: Record<string, unknown> | null = null;
      try {
        saved = readSavedFields(localStorage.getItem(STORE));
      } catch {
        /* storage unavailable: the example */
      }
      const f = restoredFields(o, saved);
      for (const k of ACT_FIELDS) d.inputs[k].value = f[k];
    },
    (e: unknown) => {
      d.errors.textContent = errorText(e);
    },
  );
}

const ruleLine = (r: ActRule): HTMLElement =>
  el(
    'li',
    { title: r.description ?? '' },
    el('strong', {}, r.name),
    ': ',
    el('code', {}, r.ltl),
    r.description !== undefined ? el('span', { class: 'muted' }, ` — ${r.description}`) : '',
  );

const toolLine = (t: ActTool): HTMLElement =>
  el(
    'li',
    {},
    el('strong', {}, t.name),
    ` → ${t.skill}; pre: ${t.preconditions.join(', ') || '–'}; post: ${t.postconditions.join(', ') || '–'}`,
  );

function startRun(v: ActView): void {
  const { a, d } = v;
  d.errors.textContent = '';
  const f = values(d);
  const w = v.options?.worlds.find((x) => x.id === f.world);
  if (w?.problem !== undefined) {
    d.errors.textContent = w.problem;
    return;
  }
  d.runBtn.disabled = true;
  v.focusAfterRun = true;
  d.tree.reset(f.goal.trim(), f.task.trim() || f.goal.trim());
  d.summary.textContent = '';
  d.auditLink.hidden = true;
  remember(v);
  a.api.actRun(runRequest(f)).then(
    (r) => {
      v.run = r.run;
      v.auditRun = r.auditRun;
      // The events that came before this answer, in order.
      const mine = v.early.filter((m) => m.run === r.run);
      v.early.length = 0;
      for (const m of mine) handle(v, m);
      d.toolList.replaceChildren(...r.tools.map(toolLine));
      d.ruleList.replaceChildren(
        ...(r.rules.length > 0 ? r.rules.map(ruleLine) : [el('li', { class: 'muted' }, 'none')]),
      );
      const s = v.runState;
      if (s === null || s === 'finished' || s === 'stopped' || s === 'estopped') setState(v, 'running');
    },
    (e: unknown) => {
      v.focusAfterRun = false;
      d.errors.textContent = errorText(e);
      setState(v, v.runState);
    },
  );
}

function handle(v: ActView, m: ActEvent): void {
  const { a, d } = v;
  d.tree.add(m);
  if (m.topic !== 'act.end') return;
  const lines = endSummary(m, d.tree.counts());
  d.summary.replaceChildren(
    el('div', { class: `act-outcome-line ${m.outcome}`, id: 'act-outcome' }, lines.outcome),
    el('div', { class: 'muted' }, lines.counts),
  );
  d.auditLink.hidden = m.auditRun === null;
  v.end = m.outcome;
  if (v.runState === 'running' || v.runState === 'escalated') setState(v, 'finished');
  else setState(v, v.runState);
  a.notify(`Tool loop: ${m.outcome}`, m.outcome === 'success' || m.outcome === 'stopped' ? 'info' : 'error');
}

function onEvent(v: ActView, e: ApiEvent): void {
  if (e.topic === 'estop') {
    v.latched = e.state.latched;
    setState(v, v.runState);
    return;
  }
  if (e.topic === 'mission.state' && e.run === v.run) {
    setState(v, e.state);
    return;
  }
  if (!e.topic.startsWith('act.')) return;
  const m = e as ActEvent;
  if (v.run === null || m.run !== v.run) {
    v.early.push(m);
    if (v.early.length > 1000) v.early.shift();
    return;
  }
  handle(v, m);
}

export function actPanel(): Panel {
  let reload: () => void = () => {};
  return {
    id: 'act',
    title: 'Tool loop',
    shown() {
      reload();
    },
    mount(root, a) {
      const d = actDom();
      root.append(actLayout(d, a));
      const v: ActView = {
        a,
        d,
        options: null,
        run: null,
        auditRun: null,
        latched: false,
        runState: null,
        end: null,
        focusAfterRun: false,
        early: [],
      };
      reload = () => reloadOptions(v);
      reload();
      for (const k of ACT_FIELDS)
        for (const ev of ['input', 'change']) d.inputs[k].addEventListener(ev, () => remember(v));
      a.api.estopState().then(
        (st) => {
          v.latched = st.latched;
          setState(v, v.runState);
        },
        () => {
          /* the header reports it */
        },
      );
      d.runBtn.addEventListener('click', () => startRun(v));
      d.stopBtn.addEventListener('click', () => {
        if (v.run === null) return;
        void a.api.actStop({ run: v.run }).catch((e: unknown) => {
          d.errors.textContent = errorText(e);
        });
      });
      d.auditLink.addEventListener('click', () => {
        if (v.auditRun === null) return;
        a.post({ kind: 'audit-run', run: v.auditRun });
        a.post({ kind: 'show-tab', tab: 'audit' });
      });
      a.onEvent((e) => onEvent(v, e));
    },
  };
}
