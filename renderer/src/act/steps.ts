/**
 * The tool loop's step view, in the manner of Groot2's live tree: the goal at the root, a node per
 * subtask, under it each attempt (a call) with its status colour — running, passed, failed — and,
 * expandable, what the careful loop checked: the arguments (validated against the schema), the
 * preconditions on the state just observed, the execution (response, time, timeout), the
 * postconditions on sensor evidence, the failure record; then the replans, escalations and the
 * operator's decisions where they happened. With a rules file, each call carries the rules' verdict (ok, pending
 * obligations, refused or violated, with the rule and proposition), and a call the rules refused is drawn where it
 * would have happened, though it never ran. Pure DOM, fed by the act.* events; the words come from model.ts.
 */
import type { ActEvent } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { type RuleVerdict, refusedCall, ruleBadge, verdictPlace } from './model.js';

type Status = 'running' | 'ok' | 'failed' | 'info' | 'stopped' | 'refused';

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const args = (a: unknown): string =>
  a !== null && typeof a === 'object'
    ? Object.entries(a as Record<string, unknown>)
        .map(([k, v]) => `${k}=${text(v)}`)
        .join(', ')
    : text(a);

export interface StepTree {
  readonly element: HTMLElement;
  reset(goal: string, task: string): void;
  add(e: ActEvent): void;
  /** Counts for tests and the summary: calls by status. */
  counts(): Record<Status, number>;
}

const section = (title: string, ...body: (Node | string)[]): HTMLElement =>
  el('div', { class: 'act-sec' }, el('h5', {}, title), ...body);

const check = (name: string, expr: string, pass: boolean, observed: unknown, error?: string): HTMLElement =>
  el(
    'li',
    { class: pass ? 'pass' : 'fail' },
    `${pass ? '✓' : '✗'} ${name}: `,
    el('code', {}, expr),
    ` — observed ${text(observed)}${error !== undefined ? ` (error: ${error})` : ''}`,
  );

const setStatus = (node: HTMLElement, s: Status): void => {
  node.dataset.status = s;
};

type CallEvent = Extract<ActEvent, { topic: 'act.call' }>;
type EndEvent = Extract<ActEvent, { topic: 'act.end' }>;
type BodyEvent = Exclude<ActEvent, CallEvent | EndEvent>;

/** A call's node: its head (tool, arguments, timeout; a click opens it) and its details (arguments, preconditions). */
function callNode(e: CallEvent): { node: HTMLElement; details: HTMLElement } {
  const details = el(
    'div',
    { class: 'act-details' },
    section('Arguments (schema-checked)', el('pre', {}, JSON.stringify(e.args, null, 2))),
    section(
      'Preconditions',
      e.preconditions.length === 0
        ? el('p', { class: 'muted' }, 'none')
        : el('ul', {}, ...e.preconditions.map((p) => check(p.name, p.expr, p.pass, p.observed, p.error))),
    ),
  );
  return expandable(
    e.tool,
    'running',
    [el('strong', {}, e.tool), `(${args(e.args)})`, el('span', { class: 'muted' }, ` timeout ${e.timeout_s} s`)],
    details,
  );
}

/** A call the rules refused: drawn as a call that never ran, its details the proposal and why it was refused. */
function refusedNode(v: RuleVerdict): { node: HTMLElement; details: HTMLElement } {
  const r = refusedCall(v);
  const details = el(
    'div',
    { class: 'act-details' },
    section('Arguments (schema-checked)', el('pre', {}, JSON.stringify(r.args, null, 2))),
    el('p', { class: 'act-failure' }, r.why),
  );
  return expandable(
    r.tool,
    'refused',
    [el('strong', {}, r.tool), `(${args(r.args)})`, el('span', { class: 'muted' }, ' not run')],
    details,
  );
}

/** A node of the call list: its head (a click opens it) over its details. */
function expandable(
  tool: string,
  status: Status,
  head: (Node | string)[],
  details: HTMLElement,
): { node: HTMLElement; details: HTMLElement } {
  const node = el(
    'li',
    {
      class: `act-node act-call${status === 'refused' ? ' act-refused' : ''}`,
      'data-tool': tool,
      'data-status': status,
      role: 'treeitem',
      'aria-expanded': 'false',
    },
    el('div', { class: 'act-node-head' }, el('span', { class: 'act-badge' }), ...head),
    details,
  );
  node
    .querySelector('.act-node-head')!
    .addEventListener('click', () =>
      node.setAttribute('aria-expanded', String(node.getAttribute('aria-expanded') !== 'true')),
    );
  return { node, details };
}

/** The failure record's section of a call. */
const failureSection = (b: Record<string, unknown>): HTMLElement =>
  section(
    'Failure record',
    el(
      'p',
      { class: 'act-failure' },
      `${text(b['stage'])} "${text(b['violated'])}" failed → `,
      el('strong', {}, text(b['label'])),
      ` (${text(b['class'])})`,
      b['reason'] !== undefined ? ` — ${text(b['reason'])}` : '',
    ),
    el(
      'pre',
      {},
      JSON.stringify(
        {
          expr: b['expr'],
          observed: b['observed'],
          ...(b['world_error'] !== undefined ? { world_error: b['world_error'] } : {}),
        },
        null,
        2,
      ),
    ),
  );

/** The tree's state: the goal node, the subtask nodes, the call shown last. */
interface Tree {
  readonly root: HTMLElement;
  readonly rootNode: HTMLElement;
  readonly rootHead: HTMLElement;
  readonly subtasks: HTMLElement;
  readonly bySubtask: Map<number, { node: HTMLElement; children: HTMLElement }>;
  current: { node: HTMLElement; details: HTMLElement } | null;
  lastSubtask: number;
  /** The rules' prediction that allowed the call about to be drawn. */
  allowed: RuleVerdict | null;
}

/** The rules' verdict beside a call: a badge in its head, the monitor's state in its details (the latest wins). */
function showVerdict(c: { node: HTMLElement; details: HTMLElement }, v: RuleVerdict): void {
  const b = ruleBadge(v);
  const head = c.node.querySelector<HTMLElement>(':scope > .act-node-head')!;
  const badge = head.querySelector<HTMLElement>('.act-rule') ?? head.appendChild(el('span', { class: 'act-rule' }));
  badge.textContent = b.text;
  badge.dataset.rule = b.status;
  badge.title = b.lines.join('\n');
  c.node.dataset.rules = b.status;
  const sec = section(`Rules (${v.phase})`, el('ul', {}, ...b.lines.map((l) => el('li', {}, l))));
  sec.classList.add('act-rules');
  c.details.querySelector(':scope > .act-rules')?.remove();
  c.details.append(sec);
}

/** A rule verdict where it belongs: a refused call of its own, the call about to come, or the call that just ran. */
function placeVerdict(t: Tree, v: RuleVerdict): void {
  const place = verdictPlace(v);
  if (place === 'next-call') {
    t.allowed = v;
    return;
  }
  if (place === 'current-call') {
    if (t.current !== null) showVerdict(t.current, v);
    return;
  }
  const c = refusedNode(v);
  subtask(t, t.lastSubtask).children.append(c.node);
  t.current = c;
  showVerdict(c, v);
}

function subtask(t: Tree, k: number): { node: HTMLElement; children: HTMLElement } {
  let s = t.bySubtask.get(k);
  if (s === undefined) {
    const children = el('ol', { class: 'act-children', role: 'group' });
    const node = el(
      'li',
      { class: 'act-node act-subtask', 'data-subtask': String(k), 'data-status': 'running', role: 'treeitem' },
      el('div', { class: 'act-node-head' }, el('span', { class: 'act-badge' }), `Subtask ${k + 1}`),
      children,
    );
    t.subtasks.append(node);
    s = { node, children };
    t.bySubtask.set(k, s);
  }
  t.lastSubtask = k;
  return s;
}

/** A line under the current subtask (a replan, an escalation, a decision, an invalid proposal). */
function note(t: Tree, cls: string, status: Status, line: string): void {
  subtask(t, t.lastSubtask).children.append(
    el(
      'li',
      { class: `act-node ${cls}`, 'data-status': status, role: 'treeitem' },
      el('div', { class: 'act-node-head' }, el('span', { class: 'act-badge' }), line),
    ),
  );
}

function showEnd(t: Tree, e: EndEvent): void {
  const left: Status = e.outcome === 'stopped' ? 'stopped' : 'failed';
  setStatus(t.rootNode, e.outcome === 'success' ? 'ok' : left);
  if (t.current !== null && t.current.node.dataset.status === 'running') setStatus(t.current.node, left);
  for (const s of t.bySubtask.values()) if (s.node.dataset.status === 'running') setStatus(s.node, left);
  t.rootHead.append(el('span', { class: 'act-outcome' }, ` → ${e.outcome}: ${e.reason}`));
}

function showPostcondition(t: Tree, b: Record<string, unknown>): void {
  let list = t.current?.details.querySelector<HTMLElement>('.act-post');
  if (t.current !== null && (list === null || list === undefined)) {
    list = el('ul', { class: 'act-post' });
    t.current.details.append(section('Postconditions (sensor evidence)', list));
  }
  list?.append(
    check(
      String(b['postcondition']),
      String(b['expr']),
      b['pass'] === true,
      b['observed'],
      b['error'] as string | undefined,
    ),
  );
}

/** An audit record of the loop, where it happened. */
function showRecord(t: Tree, e: BodyEvent): void {
  const b = e.body as Record<string, unknown>;
  const current = t.current;
  switch (e.kind) {
    case 'tool_call':
      current?.details.append(
        section(
          'Execution',
          el(
            'p',
            {},
            `ran ${(Number(b['end_s']) - Number(b['start_s'])).toFixed(2)} s of ${text(b['timeout_s'])} s; response `,
          ),
          el('pre', {}, JSON.stringify(b['response'], null, 2)),
        ),
      );
      break;
    case 'verifier_result':
      showPostcondition(t, b);
      break;
    case 'rule_verdict':
      placeVerdict(t, e.body as RuleVerdict);
      break;
    case 'failure_record':
      if (current === null) break;
      // A refusal's record: the refused call stays refused, under the subtask the loop was at.
      if (current.node.dataset.status === 'refused') {
        if (typeof b['subtask'] === 'number') subtask(t, b['subtask']).children.append(current.node);
        current.details.append(failureSection(b));
        break;
      }
      setStatus(current.node, 'failed');
      current.node.setAttribute('aria-expanded', 'true');
      current.details.append(failureSection(b));
      break;
    case 'evidence':
      if (b['verifier'] === 'schema') note(t, 'act-invalid', 'failed', `✗ invalid proposal: ${text(b['errors'])}`);
      else if (b['failure_label'] === null && current !== null) {
        setStatus(current.node, 'ok');
        setStatus(subtask(t, t.lastSubtask).node, 'ok');
      }
      break;
    case 'replan':
      note(
        t,
        'act-replan',
        'info',
        `↻ replan ${text(b['replan'])} of ${text(b['budget'])} after ${text(b['trigger'])}${b['granted_by'] === 'operator' ? ' (granted by the operator)' : ''}`,
      );
      break;
    case 'escalation':
      note(t, 'act-escalation', 'failed', `⚠ escalation #${text(b['n'])} (${text(b['cause'])}): ${text(b['reason'])}`);
      break;
    case 'operator_decision':
      note(t, 'act-decision', 'info', `operator ${text(b['operator'])}: ${text(b['decision'])} — ${text(b['reason'])}`);
      break;
  }
}

export function stepTree(): StepTree {
  const root = el('ol', { class: 'act-tree', id: 'act-tree', role: 'tree' });
  const rootHead = el('div', { class: 'act-node-head' });
  const rootNode = el('li', { class: 'act-node act-goal', 'data-status': 'running', role: 'treeitem' }, rootHead);
  const subtasks = el('ol', { class: 'act-children', role: 'group' });
  rootNode.append(subtasks);
  root.append(rootNode);
  const t: Tree = {
    root,
    rootNode,
    rootHead,
    subtasks,
    bySubtask: new Map(),
    current: null,
    lastSubtask: 0,
    allowed: null,
  };
  return {
    element: root,
    reset(goal, task) {
      subtasks.replaceChildren();
      t.bySubtask.clear();
      t.current = null;
      t.lastSubtask = 0;
      t.allowed = null;
      setStatus(rootNode, 'running');
      rootHead.replaceChildren(
        el('span', { class: 'act-badge' }),
        `Goal: ${task}`,
        el('span', { class: 'muted' }, ` — verified by `),
        el('code', {}, goal),
      );
    },
    add(e) {
      if (e.topic === 'act.call') {
        const c = callNode(e);
        subtask(t, e.subtask).children.append(c.node);
        t.current = c;
        if (t.allowed !== null) showVerdict(c, t.allowed);
        t.allowed = null;
        return;
      }
      if (e.topic === 'act.end') showEnd(t, e);
      else showRecord(t, e);
    },
    counts() {
      const c: Record<Status, number> = { running: 0, ok: 0, failed: 0, info: 0, stopped: 0, refused: 0 };
      for (const n of root.querySelectorAll<HTMLElement>('.act-call')) c[(n.dataset.status ?? 'running') as Status]++;
      return c;
    },
  };
}
