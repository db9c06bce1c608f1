/**
 * The console's event log with levels: every line gets a level from what it reports (a failure
 * record or a failed end is an error; a replan, an escalation, an operator's decision or stop a
 * warning; checkpoints and the rest information), and the operator filters by the lowest level
 * shown and by text. The list keeps the last MAX_LINES lines.
 */
import { el } from '../app.js';

const LOG_LEVELS = ['info', 'warn', 'error'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

const MAX_LINES = 500;

/** The level of a line of `kind` (a mission.event kind, or the console's own: failed, ok, replan). */
function levelOf(kind: string): LogLevel {
  if (kind === 'failure_record' || kind === 'failed' || kind === 'error') return 'error';
  if (
    kind === 'replan' ||
    kind === 'escalation' ||
    kind === 'operator_decision' ||
    kind === 'stopped' ||
    kind === 'warn'
  )
    return 'warn';
  return 'info';
}

/** Whether a line passes the filter: at least `min`, and containing `text` (case-insensitive) when given. */
function passes(line: { level: LogLevel; text: string }, min: LogLevel, text: string): boolean {
  if (LOG_LEVELS.indexOf(line.level) < LOG_LEVELS.indexOf(min)) return false;
  const q = text.trim().toLowerCase();
  return q === '' || line.text.toLowerCase().includes(q);
}

export interface LogPanel {
  readonly element: HTMLElement;
  /** The list itself (#mission-log). */
  readonly list: HTMLOListElement;
  /** Appends a line; returns it (callers may decorate it: node ids as links). */
  add(t: number, text: string, kind?: string): HTMLLIElement;
  clear(): void;
}

export function createLogPanel(): LogPanel {
  const level = el(
    'select',
    { id: 'log-level', 'aria-label': 'lowest level shown', title: 'lowest level shown' },
    el('option', { value: 'info' }, 'all levels'),
    el('option', { value: 'warn' }, 'warnings and errors'),
    el('option', { value: 'error' }, 'errors only'),
  );
  const text = el('input', {
    id: 'log-filter',
    type: 'search',
    placeholder: 'filter text',
    'aria-label': 'filter the log by text',
    size: '10',
  });
  const count = el('span', { id: 'log-count', class: 'muted' }, '');
  const list = el('ol', { id: 'mission-log', class: 'log' });
  const element = el('div', { class: 'log-box' }, el('div', { class: 'log-bar' }, level, text, count), list);

  const visible = (li: HTMLElement): boolean =>
    passes({ level: li.dataset.level as LogLevel, text: li.textContent ?? '' }, level.value as LogLevel, text.value);
  const updateCount = (): void => {
    const all = list.children.length;
    const shown = [...list.children].filter((c) => !(c as HTMLElement).hidden).length;
    count.textContent = shown === all ? `${all} line${all === 1 ? '' : 's'}` : `${shown} of ${all}`;
    count.dataset.shown = String(shown);
    count.dataset.total = String(all);
  };
  const apply = (): void => {
    for (const c of list.children) {
      const li = c as HTMLElement;
      li.hidden = !visible(li);
    }
    updateCount();
  };
  level.addEventListener('change', apply);
  text.addEventListener('input', apply);
  updateCount();

  return {
    element,
    list,
    add(t, line, kind = '') {
      const lv = levelOf(kind);
      const li = el(
        'li',
        { class: kind, 'data-level': lv },
        el('span', { class: `lv lv-${lv}` }, lv === 'info' ? 'INFO' : lv === 'warn' ? 'WARN' : 'ERROR'),
        ` t=${t} ${line}`,
      );
      li.hidden = !visible(li);
      list.append(li);
      while (list.children.length > MAX_LINES) list.firstElementChild?.remove();
      if (!li.hidden) list.scrollTop = list.scrollHeight;
      updateCount();
      return li;
    },
    clear() {
      list.replaceChildren();
      updateCount();
    },
  };
}
