/**
 * The audit browser's elements: the toolbar (a file or the fleet store, verify, export), the fleet
 * store's sources (fleet.ts), the run list, the filter row, the table, the detail pane, the timeline and
 * the replay beside it. Built once; panel.ts
 * wires them to the model.
 */
import { AUDIT_EXPORT_FORMATS } from '../../../main/contract/defaults.js';
import { el } from '../app.js';
import { fleetDom } from './fleet.js';

const NO_EVENT = 'Select an event to see it in full.';
/** The detail pane's text when no event is selected. */
export const noEvent = (): HTMLElement => el('p', { class: 'muted' }, NO_EVENT);

function toolbarElements(auditFile: string) {
  const fileInput = el('input', {
    id: 'audit-file',
    type: 'text',
    spellcheck: 'false',
    value: auditFile,
    'aria-label': 'audit database file',
    title: 'An audit database (absolute path, ~/…, or relative to the workspace); opened read-only',
  });
  const openBtn = el('button', { id: 'audit-open' }, 'Open');
  const verifyBtn = el('button', { id: 'audit-verify', title: 'Walk the hash chain and the blobs' }, 'Verify');
  const exportBtns = AUDIT_EXPORT_FORMATS.map((f) =>
    el(
      'button',
      {
        id: `audit-export-${f}`,
        'data-format': f,
        title: `Export the selected run as ${f.toUpperCase()} into the workspace's exports folder`,
      },
      f.toUpperCase(),
    ),
  );
  const message = el('span', { id: 'audit-message', class: 'muted', role: 'status' });
  const live = el(
    'span',
    {
      id: 'audit-live',
      class: 'audit-live',
      title: 'Following the database: runs and events written by missions or other processes appear here',
    },
    '',
  );
  const modeFile = el('input', {
    type: 'radio',
    name: 'audit-mode',
    id: 'audit-mode-file',
    value: 'file',
    checked: '',
  });
  const modeFleet = el('input', { type: 'radio', name: 'audit-mode', id: 'audit-mode-fleet', value: 'fleet' });
  const fileLabel = el('label', { for: 'audit-file' }, 'Database');
  const toolbar = el(
    'div',
    { class: 'audit-toolbar' },
    el(
      'span',
      { class: 'audit-mode', role: 'radiogroup', 'aria-label': 'what the browser opens' },
      el('label', { title: 'An audit database file of this machine' }, modeFile, ' File'),
      el(
        'label',
        { title: "The fleet store's sources: every lab PC's log, pushed to PostgreSQL" },
        modeFleet,
        ' Fleet store',
      ),
    ),
    fileLabel,
    fileInput,
    openBtn,
    verifyBtn,
    el('span', { class: 'muted' }, 'Export'),
    ...exportBtns,
    live,
    message,
  );
  return { modeFile, modeFleet, fileLabel, fileInput, openBtn, verifyBtn, exportBtns, message, live, toolbar };
}

function secondsInput(id: string, placeholder: string): HTMLInputElement {
  return el('input', {
    id,
    type: 'text',
    inputmode: 'decimal',
    placeholder,
    size: '7',
    title: 'seconds since the run started',
  });
}

function filterElements() {
  const kindsBox = el('div', { class: 'af-kinds', id: 'audit-f-kinds', role: 'group', 'aria-label': 'kinds' });
  const toolSel = el('select', { id: 'audit-f-tool', 'aria-label': 'tool' });
  const failSel = el('select', { id: 'audit-f-failure', 'aria-label': 'failure label' });
  const fromIn = secondsInput('audit-f-from', 'from s');
  const toIn = secondsInput('audit-f-to', 'to s');
  const textIn = el('input', { id: 'audit-f-text', type: 'search', placeholder: 'text in the body', size: '18' });
  const applyBtn = el('button', { id: 'audit-f-apply' }, 'Apply');
  const clearBtn = el('button', { id: 'audit-f-clear' }, 'Clear');
  const count = el('span', { id: 'audit-count', class: 'muted' });
  const filterError = el('span', { id: 'audit-f-error', class: 'error' });
  const filters = el(
    'div',
    { class: 'audit-filters', id: 'audit-filters' },
    kindsBox,
    el(
      'div',
      { class: 'af-row' },
      el('label', {}, 'tool'),
      toolSel,
      el('label', {}, 'failure'),
      failSel,
      el('label', {}, 'window'),
      fromIn,
      toIn,
      textIn,
      applyBtn,
      clearBtn,
      count,
      filterError,
    ),
  );
  return { kindsBox, toolSel, failSel, fromIn, toIn, textIn, applyBtn, clearBtn, count, filterError, filters };
}

/** Every element of the audit browser, appended to `root`. */
export function auditDom(root: HTMLElement, auditFile: string) {
  const tb = toolbarElements(auditFile);
  const fl = filterElements();
  const fleet = fleetDom();
  const verifyOut = el('div', { id: 'audit-verify-result', class: 'audit-result' });
  const exportOut = el('div', { id: 'audit-export-result', class: 'audit-result' });
  const runsList = el('ul', { id: 'audit-runs', class: 'audit-runs', role: 'listbox', 'aria-label': 'runs' });
  const moreRuns = el(
    'button',
    {
      id: 'audit-runs-more',
      class: 'audit-runs-more',
      hidden: '',
      title: 'The list shows the newest runs first, a page at a time',
    },
    'Older runs…',
  );
  const tableRoot = el('div', { class: 'audit-table' });
  const detail = el('div', { class: 'audit-detail', id: 'audit-detail' }, noEvent());
  const track = el('div', { class: 'audit-timeline', id: 'audit-timeline' });
  const replaySide = el('div', { class: 'audit-replay', id: 'audit-replay' });
  root.append(
    el(
      'div',
      { class: 'audit' },
      tb.toolbar,
      fleet.root,
      el('div', { class: 'audit-left' }, el('h4', { class: 'audit-h' }, 'Runs'), runsList, moreRuns),
      el('div', { class: 'audit-main' }, fl.filters, tableRoot, track),
      el(
        'div',
        { class: 'audit-side' },
        detail,
        el('div', { class: 'audit-results' }, verifyOut, exportOut),
        replaySide,
      ),
    ),
  );
  return { ...tb, ...fl, fleet, verifyOut, exportOut, runsList, moreRuns, tableRoot, detail, track, replaySide };
}

export type AuditDom = ReturnType<typeof auditDom>;
