/**
 * The audit browser: open an audit database (read-only), pick a run, filter its events in a
 * virtualised table, read one event in detail, scrub the run on a timeline that replays the robot
 * and the plan on the graph view, verify the hash chain and export. Main does every read; this file
 * wires the pieces: the page loader (pages.ts), the table (table.ts), the detail pane (detail.ts)
 * and the timeline (timeline.ts). The open database is tailed (tail.ts): runs and events that
 * a mission or another process appends appear without reopening it. Verifier failures stand out:
 * runs with failure records or failed postconditions, those rows in the table, and the row a failed
 * chain check names.
 */
import './audit.css';
import type {
  AuditEventRow,
  AuditExportFormat,
  AuditFilter,
  AuditReplay,
  AuditRunSummary,
} from '../../../main/contract/api.js';
import { AUDIT_EXPORT_FORMATS } from '../../../main/contract/defaults.js';
import { type App, type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { EventPages } from './pages.js';
import { createEventTable } from './table.js';
import { renderDetail } from './detail.js';
import { createTimeline } from './timeline.js';
import { type Head, createTail } from './tail.js';
import { linkNodes, replayScene } from '../graph/node-links.js';

const time = (ms: number | null): string =>
  ms === null
    ? '–'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
const bytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;

export function auditPanel(): Panel {
  let shownOnce: (() => void) | null = null;
  return {
    id: 'audit',
    title: 'Audit',
    mount(root, app) {
      shownOnce = mountAudit(root, app);
    },
    shown() {
      shownOnce?.();
    },
  };
}

function mountAudit(root: HTMLElement, app: App): () => void {
  const api = app.api;
  // ---- the DOM
  const fileInput = el('input', {
    id: 'audit-file',
    type: 'text',
    spellcheck: 'false',
    value: app.info.auditFile,
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
  const verifyOut = el('div', { id: 'audit-verify-result', class: 'audit-result' });
  const exportOut = el('div', { id: 'audit-export-result', class: 'audit-result' });
  const toolbar = el(
    'div',
    { class: 'audit-toolbar' },
    el('label', { for: 'audit-file' }, 'Database'),
    fileInput,
    openBtn,
    verifyBtn,
    el('span', { class: 'muted' }, 'Export'),
    ...exportBtns,
    live,
    message,
  );
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
  const kindsBox = el('div', { class: 'af-kinds', id: 'audit-f-kinds', role: 'group', 'aria-label': 'kinds' });
  const toolSel = el('select', { id: 'audit-f-tool', 'aria-label': 'tool' });
  const failSel = el('select', { id: 'audit-f-failure', 'aria-label': 'failure label' });
  const fromIn = el('input', {
    id: 'audit-f-from',
    type: 'text',
    inputmode: 'decimal',
    placeholder: 'from s',
    size: '7',
    title: 'seconds since the run started',
  });
  const toIn = el('input', {
    id: 'audit-f-to',
    type: 'text',
    inputmode: 'decimal',
    placeholder: 'to s',
    size: '7',
    title: 'seconds since the run started',
  });
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
  const tableRoot = el('div', { class: 'audit-table' });
  const detail = el(
    'div',
    { class: 'audit-detail', id: 'audit-detail' },
    el('p', { class: 'muted' }, 'Select an event to see it in full.'),
  );
  const track = el('div', { class: 'audit-timeline', id: 'audit-timeline' });
  const replaySide = el('div', { class: 'audit-replay', id: 'audit-replay' });
  root.append(
    el(
      'div',
      { class: 'audit' },
      toolbar,
      el('div', { class: 'audit-left' }, el('h4', { class: 'audit-h' }, 'Runs'), runsList, moreRuns),
      el('div', { class: 'audit-main' }, filters, tableRoot, track),
      el(
        'div',
        { class: 'audit-side' },
        detail,
        el('div', { class: 'audit-results' }, verifyOut, exportOut),
        replaySide,
      ),
    ),
  );

  // ---- state
  let file: string | undefined;
  let runs: AuditRunSummary[] = [];
  /** Where the next page of older runs starts (null: every run is listed). */
  let runsNext: string | null = null;
  let run: AuditRunSummary | null = null;
  let replay: AuditReplay | null = null;
  let filter: AuditFilter = {};
  let pages: EventPages | null = null;
  let detailGen = 0;
  /** The first row a failed chain check named, and its run. */
  let chainBad: ReadonlySet<number> = new Set();
  let chainBadRun: string | null = null;
  const fileArg = (): { file?: string } => (file !== undefined ? { file } : {});
  const say = (text: string, kind: 'info' | 'error' = 'info'): void => {
    message.textContent = text;
    message.className = kind === 'error' ? 'error' : 'muted';
  };

  const table = createEventTable(tableRoot, (row) => {
    void showDetail(row);
    if (replay !== null)
      timeline.show(replay.axis === 'step' ? (row.step ?? timeline.value) : row.t_ms - replay.run.started_ms);
  });

  // The nearest event to the timeline cursor: one request at a time, the latest position wins.
  let locating = false;
  let pendingAt: number | null = null;
  const locate = async (at: number): Promise<void> => {
    if (run === null || replay === null) return;
    if (locating) {
      pendingAt = at;
      return;
    }
    locating = true;
    const r = run,
      axis = replay.axis;
    try {
      const res = await api.auditLocate({
        ...fileArg(),
        filter: { ...filter, run: r.id },
        ...(axis === 'step' ? { step: at } : { tMs: r.started_ms + at }),
      });
      if (run === r && res.row !== null && pendingAt === null) {
        table.select(res.index, res.row.id);
        void showDetail(res.row);
      }
    } catch (e) {
      say(`timeline: ${errorText(e)}`, 'error');
    } finally {
      locating = false;
      const next = pendingAt;
      pendingAt = null;
      if (next !== null) void locate(next);
    }
  };
  const timeline = createTimeline(track, replaySide, (at) => void locate(at));

  /** A node link of the selected run: its own scene (the replay's), or why it cannot be shown. */
  const openNode = (id: string): void => {
    const r = run;
    if (r === null) return;
    if (replay === null || replay.run.id !== r.id) {
      say(
        `${id}: run ${r.id.slice(0, 8)}'s scene is not loaded (its replay could not be read), so its nodes cannot be shown`,
        'error',
      );
      return;
    }
    app.post({ kind: 'focus-node', id, scene: replayScene(replay, timeline.value), auditRun: r.id });
  };

  async function showDetail(row: AuditEventRow): Promise<void> {
    const gen = ++detailGen;
    detail.dataset.id = String(row.id);
    try {
      const d = await api.auditEvent({ ...fileArg(), id: row.id });
      if (gen !== detailGen) return;
      renderDetail(detail, d, run?.started_ms ?? d.row.t_ms);
      linkNodes(detail, (id) => openNode(id));
      detail.dataset.kind = d.row.kind;
    } catch (e) {
      if (gen === detailGen) detail.replaceChildren(el('p', { class: 'error' }, `event ${row.id}: ${errorText(e)}`));
    }
  }

  const updateCount = (): void => {
    if (pages === null) {
      count.textContent = '';
      return;
    }
    if (pages.error !== null) say(`events: ${pages.error}`, 'error');
    count.textContent = pages.textMode
      ? `${pages.count} found${pages.done ? '' : ', searching…'}`
      : pages.total === null
        ? 'loading…'
        : `${pages.total} event${pages.total === 1 ? '' : 's'}`;
    count.dataset.count = String(pages.count);
    count.dataset.done = String(pages.done);
  };

  /** Reads the filter controls; null (with the reason shown) when a field is not valid. */
  const readFilter = (): AuditFilter | null => {
    filterError.textContent = '';
    if (run === null) return null;
    const f: AuditFilter = { run: run.id };
    const boxes = [...kindsBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
    const kinds = boxes.filter((b) => b.checked).map((b) => b.value);
    if (kinds.length > 0 && kinds.length < boxes.length) f.kinds = kinds;
    if (toolSel.value !== '') f.tool = toolSel.value;
    if (failSel.value !== '') f.failureLabel = failSel.value;
    const secs = (input: HTMLInputElement, name: string): number | null | undefined => {
      input.removeAttribute('aria-invalid');
      const s = input.value.trim();
      if (s === '') return undefined;
      const v = Number(s);
      if (!Number.isFinite(v)) {
        filterError.textContent = `${name}: "${s}" is not a number of seconds since the run started`;
        input.setAttribute('aria-invalid', 'true');
        return null;
      }
      return run!.started_ms + v * 1000;
    };
    const from = secs(fromIn, 'from');
    const to = secs(toIn, 'to');
    if (from === null || to === null) return null;
    if (from !== undefined && to !== undefined && from > to) {
      filterError.textContent = 'window: "to" is before "from"';
      return null;
    }
    if (from !== undefined) f.fromMs = from;
    if (to !== undefined) f.toMs = to;
    if (textIn.value.trim() !== '') f.text = textIn.value.trim();
    return f;
  };

  const applyFilter = (): void => {
    const f = readFilter();
    if (f === null || run === null) return;
    filter = f;
    pages?.close();
    grown?.close();
    grown = null;
    pages = new EventPages(api, file, f, () => {
      table.refresh();
      updateCount();
    });
    table.setSource(pages, run.started_ms);
    updateCount();
  };

  /**
   * The selected run grew: the same filter again, swapped in once the rows in view are loaded so
   * the table neither flickers nor loses its place (at the end, it follows the end).
   */
  let grown: EventPages | null = null;
  const growTable = (r: AuditRunSummary): void => {
    if (run !== r) return;
    grown?.close();
    const [from, to] = table.visible();
    const next = new EventPages(api, file, filter, () => {
      if (pages === next) {
        table.refresh();
        updateCount();
        return;
      }
      let ready = next.error !== null || next.done;
      for (let i = from; ready && i <= Math.min(to, next.count - 1); i++) ready = next.get(i) !== undefined;
      if (!ready || run !== r) return;
      pages?.close();
      pages = next;
      grown = null;
      table.setSource(next, r.started_ms, true);
      updateCount();
    });
    grown = next;
    next.ensure(from, to);
  };

  const fillFilters = (f: Awaited<ReturnType<typeof api.auditFacets>>): void => {
    kindsBox.replaceChildren(
      ...f.kinds.map((k) =>
        el(
          'label',
          { class: 'af-kind' },
          el('input', { type: 'checkbox', value: k.kind, checked: '' }),
          ` ${k.kind} (${k.n})`,
        ),
      ),
    );
    toolSel.replaceChildren(
      el('option', { value: '' }, 'any tool'),
      ...f.tools.map((t) => el('option', { value: t }, t)),
    );
    failSel.replaceChildren(
      el('option', { value: '' }, 'any failure'),
      ...f.failureLabels.map((t) => el('option', { value: t }, t)),
    );
    fromIn.value = toIn.value = textIn.value = '';
    fromIn.removeAttribute('aria-invalid');
    toIn.removeAttribute('aria-invalid');
    filterError.textContent = '';
  };

  /**
   * Counts selections: a selection's answers apply only while it is the latest (the same run may be selected twice).
   */
  let selection = 0;
  async function selectRun(r: AuditRunSummary): Promise<void> {
    // The run on the screen, loaded and unchanged: selecting it again keeps where the operator is.
    if (run?.id === r.id && run.events === r.events && replay?.run.id === r.id) return;
    const mine = ++selection;
    run = r;
    for (const li of runsList.querySelectorAll<HTMLElement>('li')) {
      li.classList.toggle('selected', li.dataset.run === r.id);
      li.setAttribute('aria-selected', String(li.dataset.run === r.id));
    }
    detail.replaceChildren(el('p', { class: 'muted' }, 'Select an event to see it in full.'));
    exportOut.textContent = '';
    // The previous run's rows and count go at once: while this run loads they are not its own.
    pages?.close();
    pages = null;
    grown?.close();
    grown = null;
    table.setSource(null, 0);
    count.textContent = 'loading…';
    count.dataset.done = 'false';
    try {
      const [f, rp] = await Promise.all([
        api.auditFacets({ ...fileArg(), run: r.id }),
        api.auditReplay({ ...fileArg(), run: r.id }),
      ]);
      if (run !== r || mine !== selection) return;
      fillFilters(f);
      replay = rp;
      timeline.load(rp);
      applyFilter();
      table.mark(chainBad);
    } catch (e) {
      if (mine === selection) count.textContent = '';
      say(`run ${r.id.slice(0, 8)}: ${errorText(e)}`, 'error');
    }
  }

  const failuresText = (r: AuditRunSummary): string => {
    const { records, postconditions } = r.failures;
    const parts = [
      records > 0 ? `${records} failure record${records === 1 ? '' : 's'}` : '',
      postconditions > 0 ? `${postconditions} failed postcondition${postconditions === 1 ? '' : 's'}` : '',
    ];
    return parts.filter((p) => p !== '').join(' · ');
  };
  const renderRuns = (): void => {
    moreRuns.hidden = runsNext === null;
    runsList.replaceChildren(
      ...runs.map((r) => {
        const failing = r.failures.records + r.failures.postconditions > 0;
        const li = el(
          'li',
          {
            'data-run': r.id,
            'data-events': String(r.events),
            'data-failures': String(r.failures.records + r.failures.postconditions),
            tabindex: '0',
            role: 'option',
            class:
              `${failing ? 'has-failures' : ''}${run?.id === r.id ? ' selected' : ''}${chainBadRun === r.id ? ' chain-bad' : ''}`.trim(),
            'aria-selected': String(run?.id === r.id),
            title: `run ${r.id}\n${r.software}, ${r.backend}\n${r.spec ?? ''}`,
          },
          el(
            'div',
            { class: 'r-line' },
            el('span', { class: 'r-start' }, time(r.started_ms)),
            el(
              'span',
              { class: `r-outcome ${r.outcome === 'success' ? 'ok' : r.outcome === null ? 'muted' : 'bad'}` },
              r.outcome ?? '(no end)',
            ),
          ),
          el(
            'div',
            { class: 'r-line muted' },
            el('span', { class: 'r-world' }, r.world),
            el('span', { class: 'r-operator' }, r.operator),
            el('span', { class: 'r-events' }, `${r.events} events`),
          ),
          ...(failing ? [el('div', { class: 'r-failures' }, `⚠ ${failuresText(r)}`)] : []),
          ...(chainBadRun === r.id ? [el('div', { class: 'r-chain-bad' }, '✗ hash chain broken in this run')] : []),
          el('div', { class: 'r-spec' }, r.spec ?? ''),
          el('div', { class: 'r-id muted' }, r.id),
        );
        li.addEventListener('click', () => void selectRun(r));
        li.addEventListener('keydown', (e) => {
          if (e.key === 'Enter') void selectRun(r);
        });
        return li;
      }),
    );
  };

  /** Forgets the open database's runs and everything shown of them. */
  const clearRuns = (): void => {
    runs = [];
    runsNext = null;
    renderRuns();
    clearRun();
  };
  const clearRun = (): void => {
    run = null;
    replay = null;
    pages?.close();
    pages = null;
    grown?.close();
    grown = null;
    table.setSource(null, 0);
    timeline.load(null);
    kindsBox.replaceChildren();
    toolSel.replaceChildren(el('option', { value: '' }, 'any tool'));
    failSel.replaceChildren(el('option', { value: '' }, 'any failure'));
    detail.replaceChildren(el('p', { class: 'muted' }, 'Select an event to see it in full.'));
    updateCount();
  };
  const clearVerify = (): void => {
    chainBad = new Set();
    chainBadRun = null;
    table.mark(chainBad);
    verifyOut.className = 'audit-result';
    verifyOut.textContent = '';
    verifyOut.removeAttribute('role');
    delete verifyOut.dataset.ok;
    delete verifyOut.dataset.firstBad;
  };
  const showLive = (head: Head | null): void => {
    live.textContent = head === null ? '' : '● live';
    live.dataset.lastSeq = head === null ? '' : String(head.lastSeq);
    live.dataset.runs = head === null ? '' : String(head.runs);
    live.classList.toggle('on', head !== null);
  };

  const runsText = (f: string, head: Head): string =>
    runsNext === null
      ? `${f}: ${runs.length} run${runs.length === 1 ? '' : 's'} (read-only)`
      : `${f}: the newest ${runs.length} of ${head.runs} runs (read-only)`;

  /**
   * The newest page again (the database grew): its runs replace or join those at the top. Older
   * pages already loaded stay when the new page reaches them; otherwise the list starts over from
   * the new page, so no run is left out between the two.
   */
  const newestRuns = (res: { runs: AuditRunSummary[]; next: string | null }): void => {
    const ids = new Set(res.runs.map((r) => r.id));
    if (res.next !== null && runs[0] !== undefined && ids.has(runs[0].id)) {
      runs = [...res.runs, ...runs.filter((r) => !ids.has(r.id))];
    } else {
      runs = res.runs;
      runsNext = res.next;
    }
  };

  /** The next page of older runs, below those listed. */
  const olderRuns = async (): Promise<void> => {
    const cursor = runsNext,
      f = file;
    if (cursor === null) return;
    moreRuns.disabled = true;
    try {
      const res = await api.auditRuns({ ...fileArg(), cursor });
      if (runsNext !== cursor || file !== f) return;
      const have = new Set(runs.map((r) => r.id));
      runs = [...runs, ...res.runs.filter((r) => !have.has(r.id))];
      runsNext = res.next;
      renderRuns();
      const head = tail.head;
      if (head !== null) say(runsText(res.file, head));
    } catch (e) {
      say(`older runs: ${errorText(e)}`, 'error');
    } finally {
      moreRuns.disabled = false;
    }
  };

  async function openDb(keep = false): Promise<void> {
    const typed = fileInput.value.trim();
    const next = typed === '' || typed === app.info.auditFile ? undefined : typed;
    const arg = next !== undefined ? { file: next } : {};
    say('opening…');
    try {
      // The head first: what is written meanwhile shows at the next poll.
      const head = await api.auditHead(arg);
      const res = await api.auditRuns(arg);
      if (file !== next || !keep) clearVerify();
      file = next;
      fileInput.value = res.file;
      runs = res.runs;
      runsNext = res.next;
      renderRuns();
      say(res.message ?? runsText(res.file, head));
      tail.follow({ file, head });
      showLive(head);
      const again = keep && run !== null ? runs.find((r) => r.id === run!.id) : undefined;
      // A selected run older than the newest page stays on screen as it is.
      if (again === undefined && keep && run !== null && runsNext !== null) return;
      if (again === undefined) {
        clearRun();
        if (runs[0] !== undefined) await selectRun(runs[0]);
      } else if (again.events !== run!.events) await refreshRun(again);
    } catch (e) {
      // Nothing of the previous database stays on screen as if it were this one's.
      tail.follow(null);
      showLive(null);
      clearVerify();
      clearRuns();
      exportOut.textContent = '';
      say(errorText(e), 'error');
    }
  }

  /** The selected run has more events: its filters' counts, its replay and its table follow. */
  async function refreshRun(r: AuditRunSummary): Promise<void> {
    const mine = selection;
    run = r;
    const checked = new Set(
      [...kindsBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')]
        .filter((b) => !b.checked)
        .map((b) => b.value),
    );
    const tool = toolSel.value,
      failure = failSel.value;
    const [f, rp] = await Promise.all([
      api.auditFacets({ ...fileArg(), run: r.id }),
      api.auditReplay({ ...fileArg(), run: r.id }),
    ]);
    if (run !== r || mine !== selection) return;
    const from = fromIn.value,
      to = toIn.value,
      text = textIn.value;
    fillFilters(f);
    // The operator's choices stay: kinds left unticked stay unticked (new kinds come ticked).
    for (const b of kindsBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]'))
      b.checked = !checked.has(b.value);
    if ([...toolSel.options].some((o) => o.value === tool)) toolSel.value = tool;
    if ([...failSel.options].some((o) => o.value === failure)) failSel.value = failure;
    fromIn.value = from;
    toIn.value = to;
    textIn.value = text;
    const at = timeline.value;
    replay = rp;
    timeline.load(rp);
    timeline.show(at);
    growTable(r);
  }

  /** The database moved: new runs join the list (the selection stays), a grown selected run follows. */
  const tail = createTail(
    api,
    () => root.getClientRects().length > 0,
    async (head) => {
      const res = await api.auditRuns(fileArg());
      newestRuns(res);
      renderRuns();
      say(res.message ?? runsText(res.file, head));
      const current = run === null ? undefined : runs.find((r) => r.id === run!.id);
      if (run === null && runs[0] !== undefined) await selectRun(runs[0]);
      else if (current !== undefined && current.events !== run!.events) await refreshRun(current);
      showLive(head);
    },
    (e) => say(`following the database: ${errorText(e)}`, 'error'),
  );

  let opened = false;
  // ---- wiring
  openBtn.addEventListener('click', () => void openDb());
  moreRuns.addEventListener('click', () => void olderRuns());
  fileInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') void openDb();
  });
  kindsBox.addEventListener('change', applyFilter);
  toolSel.addEventListener('change', applyFilter);
  failSel.addEventListener('change', applyFilter);
  applyBtn.addEventListener('click', applyFilter);
  for (const input of [fromIn, toIn, textIn]) {
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') applyFilter();
    });
  }
  clearBtn.addEventListener('click', () => {
    for (const b of kindsBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) b.checked = true;
    toolSel.value = failSel.value = '';
    fromIn.value = toIn.value = textIn.value = '';
    applyFilter();
  });
  verifyBtn.addEventListener('click', () => {
    clearVerify();
    verifyOut.textContent = 'verifying…';
    api.auditVerify(fileArg()).then(
      (v) => {
        verifyOut.dataset.ok = String(v.ok);
        verifyOut.classList.add(v.ok ? 'ok' : 'bad');
        verifyOut.textContent = v.ok
          ? `Chain intact: ${v.events} events, ${v.blobs} blobs verified in ${v.chain_ms.toFixed(0)} ms; head ${v.head.slice(0, 16)}…`
          : `NOT intact — first bad row: ${v.firstBad!.table} ${v.firstBad!.key}: ${v.firstBad!.reason} (${v.events} events verified before it)`;
        if (v.firstBad !== undefined) verifyOut.dataset.firstBad = `${v.firstBad.table}:${v.firstBad.key}`;
        else delete verifyOut.dataset.firstBad;
        if (!v.ok) {
          verifyOut.setAttribute('role', 'alert');
          // The row that breaks the chain is marked in the table, and its run in the list.
          const seq = v.firstBad?.table === 'events' ? Number(v.firstBad.key) : NaN;
          if (Number.isInteger(seq) && seq > 0) {
            chainBad = new Set([seq]);
            table.mark(chainBad);
            api.auditEvent({ ...fileArg(), id: seq }).then(
              (d) => {
                chainBadRun = d.row.run;
                renderRuns();
              },
              () => {
                /* the row itself is unreadable: the message names it */
              },
            );
          }
        }
      },
      (e: unknown) => {
        verifyOut.classList.add('bad');
        verifyOut.textContent = `verify: ${errorText(e)}`;
      },
    );
  });
  for (const b of exportBtns) {
    b.addEventListener('click', () => {
      const format = b.dataset.format as AuditExportFormat;
      exportOut.className = 'audit-result';
      exportOut.textContent = `exporting ${run !== null ? `run ${run.id.slice(0, 8)}` : 'the whole database'} as ${format.toUpperCase()}…`;
      api.auditExport({ ...fileArg(), ...(run !== null ? { run: run.id } : {}), format }).then(
        (r) => {
          exportOut.classList.add('ok');
          exportOut.dataset.path = r.path;
          exportOut.dataset.format = r.format;
          exportOut.textContent = `Wrote ${r.path} (${bytes(r.bytes)}): ${r.summary}`;
        },
        (e: unknown) => {
          exportOut.classList.add('bad');
          exportOut.textContent = `export: ${errorText(e)}`;
        },
      );
    });
  }
  // A mission that ends adds a run to the session's database.
  app.onEvent((e) => {
    if ((e.topic === 'mission.end' || e.topic === 'act.end') && file === undefined) void openDb(true);
  });
  // Another tab's audit link (the tool loop's): the session's database, at that run.
  app.onMessage((m) => {
    if (m.kind !== 'audit-run') return;
    fileInput.value = app.info.auditFile;
    opened = true;
    void openDb().then(async () => {
      // A run older than the pages listed: its summary comes with its replay.
      const r =
        runs.find((x) => x.id === m.run) ??
        (await api.auditReplay({ run: m.run, maxPositions: 2 }).then(
          (rp) => rp.run,
          () => undefined,
        ));
      if (r !== undefined) await selectRun(r);
      else say(`run ${m.run} is not in ${app.info.auditFile}`, 'error');
    });
  });

  return () => {
    timeline.shown();
    table.refresh();
    tail.poke();
    if (!opened) {
      opened = true;
      void openDb();
    }
  };
}
