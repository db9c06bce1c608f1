/**
 * The tool loop's step view, in the manner of Groot2's live tree: the goal at the root, a node per
 * subtask, under it each attempt (a call) with its status colour — running, passed, failed — and,
 * expandable, what the careful loop checked: the arguments (validated against the schema), the
 * preconditions on the state just observed, the execution (response, time, timeout), the
 * postconditions on sensor evidence, the failure record; then the replans, escalations and the
 * operator's decisions where they happened. Pure DOM, fed by the act.* events.
 */
import type { ActEvent } from '../../../main/contract/api.js';
import { el } from '../app.js';

type Status = 'running' | 'ok' | 'failed' | 'info' | 'stopped';

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

export function stepTree(): StepTree {
  const root = el('ol', { class: 'act-tree', id: 'act-tree', role: 'tree' });
  const rootHead = el('div', { class: 'act-node-head' });
  const rootNode = el('li', { class: 'act-node act-goal', 'data-status': 'running', role: 'treeitem' }, rootHead);
  const subtasks = el('ol', { class: 'act-children', role: 'group' });
  rootNode.append(subtasks);
  root.append(rootNode);
  const bySubtask = new Map<number, { node: HTMLElement; children: HTMLElement }>();
  let current: { node: HTMLElement; details: HTMLElement; calls: number } | null = null;
  let lastSubtask = 0;
  let calls = 0;

  const setStatus = (node: HTMLElement, s: Status): void => {
    node.dataset.status = s;
  };
  const subtask = (k: number): { node: HTMLElement; children: HTMLElement } => {
    let s = bySubtask.get(k);
    if (s === undefined) {
      const children = el('ol', { class: 'act-children', role: 'group' });
      const node = el(
        'li',
        { class: 'act-node act-subtask', 'data-subtask': String(k), 'data-status': 'running', role: 'treeitem' },
        el('div', { class: 'act-node-head' }, el('span', { class: 'act-badge' }), `Subtask ${k + 1}`),
        children,
      );
      subtasks.append(node);
      s = { node, children };
      bySubtask.set(k, s);
    }
    lastSubtask = k;
    return s;
  };
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
  const note = (cls: string, status: Status, line: string): void => {
    const parent = subtask(lastSubtask).children;
    parent.append(
      el(
        'li',
        { class: `act-node ${cls}`, 'data-status': status, role: 'treeitem' },
        el('div', { class: 'act-node-head' }, el('span', { class: 'act-badge' }), line),
      ),
    );
  };

  return {
    element: root,
    reset(goal, task) {
      subtasks.replaceChildren();
      bySubtask.clear();
      current = null;
      calls = 0;
      lastSubtask = 0;
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
        const s = subtask(e.subtask);
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
        const node = el(
          'li',
          {
            class: 'act-node act-call',
            'data-tool': e.tool,
            'data-status': 'running',
            role: 'treeitem',
            'aria-expanded': 'false',
          },
          el(
            'div',
            { class: 'act-node-head' },
            el('span', { class: 'act-badge' }),
            el('strong', {}, e.tool),
            `(${args(e.args)})`,
            el('span', { class: 'muted' }, ` timeout ${e.timeout_s} s`),
          ),
          details,
        );
        node
          .querySelector('.act-node-head')!
          .addEventListener('click', () =>
            node.setAttribute('aria-expanded', String(node.getAttribute('aria-expanded') !== 'true')),
          );
        s.children.append(node);
        calls++;
        current = { node, details, calls };
        return;
      }
      if (e.topic === 'act.end') {
        setStatus(rootNode, e.outcome === 'success' ? 'ok' : e.outcome === 'stopped' ? 'stopped' : 'failed');
        if (current !== null && current.node.dataset.status === 'running')
          setStatus(current.node, e.outcome === 'stopped' ? 'stopped' : 'failed');
        for (const s of bySubtask.values())
          if (s.node.dataset.status === 'running') setStatus(s.node, e.outcome === 'stopped' ? 'stopped' : 'failed');
        rootHead.append(el('span', { class: 'act-outcome' }, ` → ${e.outcome}: ${e.reason}`));
        return;
      }
      const b = e.body as Record<string, unknown>;
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
        case 'verifier_result': {
          let list = current?.details.querySelector<HTMLElement>('.act-post');
          if (current !== null && (list === null || list === undefined)) {
            list = el('ul', { class: 'act-post' });
            current.details.append(section('Postconditions (sensor evidence)', list));
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
          break;
        }
        case 'failure_record':
          if (current !== null) {
            setStatus(current.node, 'failed');
            current.node.setAttribute('aria-expanded', 'true');
            current.details.append(
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
              ),
            );
          }
          break;
        case 'evidence':
          if (b['verifier'] === 'schema') {
            note('act-invalid', 'failed', `✗ invalid proposal: ${text(b['errors'])}`);
          } else if (b['failure_label'] === null && current !== null) {
            setStatus(current.node, 'ok');
            setStatus(subtask(lastSubtask).node, 'ok');
          }
          break;
        case 'replan':
          note(
            'act-replan',
            'info',
            `↻ replan ${text(b['replan'])} of ${text(b['budget'])} after ${text(b['trigger'])}${b['granted_by'] === 'operator' ? ' (granted by the operator)' : ''}`,
          );
          break;
        case 'escalation':
          note('act-escalation', 'failed', `⚠ escalation #${text(b['n'])} (${text(b['cause'])}): ${text(b['reason'])}`);
          break;
        case 'operator_decision':
          note(
            'act-decision',
            'info',
            `operator ${text(b['operator'])}: ${text(b['decision'])} — ${text(b['reason'])}`,
          );
          break;
      }
    },
    counts() {
      const c: Record<Status, number> = { running: 0, ok: 0, failed: 0, info: 0, stopped: 0 };
      for (const n of root.querySelectorAll<HTMLElement>('.act-call')) c[(n.dataset.status ?? 'running') as Status]++;
      return c;
    },
  };
}
