/**
 * A virtualised event table: a spacer as tall as every matching row, and only the rows in view (plus
 * a few either side) as DOM, recycled as the user scrolls — so a run of 100k events scrolls as
 * smoothly as one of ten. Rows not fetched yet show as placeholders until their page arrives.
 */
import type { AuditEventRow } from '../../../main/contract/api.js';
import { el } from '../app.js';
import type { EventPages } from './pages.js';

const ROW_PX = 22;
const OVERSCAN = 8;

export interface EventTable {
  /**
   * Shows `pages`. `keep` (the same run, grown): the selection and the scroll stay, and a view that
   * was at the end follows the new end, as `tail -f` does.
   */
  setSource(pages: EventPages | null, runStart_ms: number, keep?: boolean): void;
  /** Marks rows by event id (the first row a failed chain check names). */
  mark(ids: ReadonlySet<number>): void;
  /** The rows in view (with the overscan) at the last draw. */
  visible(): [number, number];
  /** Redraw (new rows arrived). */
  refresh(): void;
  /** Selects row `index` (scrolls it into view) without calling back. */
  select(index: number, id: number): void;
  readonly selectedId: number | null;
}

const COLUMNS = ['seq', '+s', 'step', 'kind', 'tool', 'failure', 'summary'] as const;

/** Draws event `r` (undefined: not fetched yet) as row `i` into a pooled row element. */
function fillRow(
  row: HTMLElement,
  r: AuditEventRow | undefined,
  i: number,
  at: { start: number; selectedId: number | null; marked: ReadonlySet<number> },
): void {
  row.dataset.index = String(i);
  row.style.transform = `translateY(${i * ROW_PX}px)`;
  const cells = row.children;
  if (r === undefined) {
    row.dataset.id = '';
    row.classList.add('pending');
    row.classList.remove('selected', 'failure', 'chain-bad');
    for (let k = 0; k < cells.length; k++) cells[k]!.textContent = k === COLUMNS.length - 1 ? 'loading…' : '';
    return;
  }
  row.dataset.id = String(r.id);
  row.dataset.kind = r.kind;
  row.classList.remove('pending');
  row.classList.toggle('selected', r.id === at.selectedId);
  row.setAttribute('aria-selected', String(r.id === at.selectedId));
  row.classList.toggle(
    'failure',
    r.failed || r.failureLabel !== null || r.kind === 'failure_record' || r.kind === 'escalation',
  );
  row.classList.toggle('chain-bad', at.marked.has(r.id));
  const vals = [
    String(r.id),
    ((r.t_ms - at.start) / 1000).toFixed(3),
    r.step === null ? '' : String(r.step),
    r.kind,
    r.tool ?? '',
    r.failureLabel ?? '',
    r.summary,
  ];
  for (let k = 0; k < cells.length; k++) {
    if (cells[k]!.textContent !== vals[k]) cells[k]!.textContent = vals[k]!;
  }
  row.title = r.summary;
}

/** The header, and the scrolling viewport with its spacer and its layer of pooled rows. */
function tableDom(root: HTMLElement): { spacer: HTMLElement; layer: HTMLElement; viewport: HTMLElement } {
  const header = el(
    'div',
    { class: 'ev-head', role: 'row' },
    ...COLUMNS.map((c) => el('span', { class: `c-${c.replace('+', 't')}`, role: 'columnheader' }, c)),
  );
  const spacer = el('div', { class: 'ev-spacer' });
  const layer = el('div', { class: 'ev-layer', role: 'rowgroup' });
  const viewport = el(
    'div',
    { class: 'ev-viewport', id: 'audit-table', tabindex: '0', role: 'grid', 'aria-label': 'audit events' },
    spacer,
    layer,
  );
  root.append(header, viewport);
  return { spacer, layer, viewport };
}

export function createEventTable(root: HTMLElement, onSelect: (row: AuditEventRow, index: number) => void): EventTable {
  const { spacer, layer, viewport } = tableDom(root);
  let pages: EventPages | null = null;
  let start = 0;
  let selectedId: number | null = null;
  let selectedIndex = -1;
  let frame = 0;
  let marked: ReadonlySet<number> = new Set();
  let shown: [number, number] = [0, 0];
  const pool: HTMLElement[] = [];

  const render = (): void => {
    frame = 0;
    const n = pages?.count ?? 0;
    spacer.style.height = `${n * ROW_PX}px`;
    const h = viewport.clientHeight || 400;
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW_PX) - OVERSCAN);
    const last = Math.min(n - 1, Math.ceil((viewport.scrollTop + h) / ROW_PX) + OVERSCAN);
    const need = Math.max(0, last - first + 1);
    while (pool.length < need) {
      const row = el(
        'div',
        { class: 'ev-row', role: 'row' },
        ...COLUMNS.map((c) => el('span', { class: `c-${c.replace('+', 't')}`, role: 'gridcell' })),
      );
      pool.push(row);
      layer.append(row);
    }
    for (let k = 0; k < pool.length; k++) {
      const row = pool[k]!;
      if (k < need) {
        row.hidden = false;
        fillRow(row, pages?.get(first + k), first + k, { start, selectedId, marked });
      } else row.hidden = true;
    }
    shown = [first, Math.max(first, last)];
    viewport.dataset.rows = String(n);
    viewport.dataset.rendered = String(need);
    viewport.dataset.first = String(first);
    if (pages !== null && n > 0) pages.ensure(first, last);
    else if (pages !== null) pages.ensure(0, 0);
  };
  const schedule = (): void => {
    if (frame === 0) frame = requestAnimationFrame(render);
  };
  viewport.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(schedule).observe(viewport);

  const choose = (index: number): void => {
    const r = pages?.get(index);
    if (r === undefined) return;
    selectedId = r.id;
    selectedIndex = index;
    scrollInto(index);
    render();
    onSelect(r, index);
  };
  const scrollInto = (index: number): void => {
    const top = index * ROW_PX,
      h = viewport.clientHeight || 400;
    if (top < viewport.scrollTop) viewport.scrollTop = top;
    else if (top + ROW_PX > viewport.scrollTop + h) viewport.scrollTop = Math.max(0, top - h / 2);
  };
  layer.addEventListener('click', (e) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('.ev-row');
    if (row !== null && row.dataset.index !== undefined) choose(Number(row.dataset.index));
  });
  viewport.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    choose(Math.max(0, Math.min((pages?.count ?? 1) - 1, selectedIndex + (e.key === 'ArrowDown' ? 1 : -1))));
  });

  return {
    setSource(p, runStart, keep = false) {
      const atEnd =
        keep &&
        pages !== null &&
        pages.count > 0 &&
        viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - ROW_PX;
      pages = p;
      start = runStart;
      if (!keep) {
        selectedId = null;
        selectedIndex = -1;
        viewport.scrollTop = 0;
      }
      render();
      if (atEnd) {
        viewport.scrollTop = viewport.scrollHeight;
        render();
      }
    },
    mark(ids) {
      marked = ids;
      render();
    },
    visible: () => shown,
    refresh: schedule,
    select(index, id) {
      selectedId = id;
      selectedIndex = index;
      scrollInto(index);
      render();
    },
    get selectedId() {
      return selectedId;
    },
  };
}
