/**
 * The audit browser: open an audit database (read-only), pick a run, filter its events in a
 * virtualised table, read one event in detail, scrub the run on a timeline that replays the robot
 * and the plan on the graph view, verify the hash chain and export. Main does every read; the
 * model (model.ts) holds the run list, the filter and the texts; this file wires the pieces: the
 * elements (dom.ts), the page loader (pages.ts), the table (table.ts), the detail pane (detail.ts)
 * and the timeline (timeline.ts). The open database is tailed (tail.ts): runs and events that a
 * mission or another process appends appear without reopening it, and a verify result made before
 * they landed says it is stale. Verifier failures stand out: runs with failure records or failed
 * postconditions, those rows in the table, and the row a failed chain check names. In fleet store
 * mode (fleet.ts) the database is a source's verified local replica, which main keeps pulling.
 */
import './audit.css';
import type {
  AuditEventRow,
  AuditExportFormat,
  AuditFilter,
  AuditReplay,
  AuditRunSummary,
  AuditVerifyResult,
  WitnessApi,
} from '../../../main/contract/api.js';
import { type App, type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { EventPages } from './pages.js';
import { type EventTable, createEventTable } from './table.js';
import { renderDetail } from './detail.js';
import { type Timeline, createTimeline } from './timeline.js';
import { type Head, type Tail, createTail } from './tail.js';
import { linkNodes, replayScene } from '../graph/node-links.js';
import { type AuditDom, auditDom, noEvent } from './dom.js';
import { FleetPane } from './fleet.js';
import {
  type Facets,
  type FilterFields,
  type RunList,
  type RunsPage,
  bytes,
  carryFields,
  countText,
  exportingText,
  failuresText,
  mergeNewest,
  mergeOlder,
  nodeBlocked,
  parseFilter,
  runClass,
  runsText,
  sameRun,
  staleText,
  time,
  timelineAt,
  verifyView,
} from './model.js';

export function auditPanel(): Panel {
  let shownOnce: (() => void) | null = null;
  return {
    id: 'audit',
    title: 'Audit',
    mount(root, app) {
      const view = new AuditView(root, app);
      shownOnce = () => view.shown();
    },
    shown() {
      shownOnce?.();
    },
  };
}

class AuditView {
  private readonly api: WitnessApi;
  private readonly d: AuditDom;
  private readonly table: EventTable;
  private readonly timeline: Timeline;
  private readonly tail: Tail;
  private readonly fleet: FleetPane;
  // ---- state
  private mode: 'file' | 'fleet' = 'file';
  /** What the open database is called on screen (a fleet source's name; null: its path). */
  private shownName: string | null = null;
  /** Counts opens and drops: an open's answers apply only while it is the latest. */
  private openGen = 0;
  /** The file field's text before the fleet store mode showed replicas in it. */
  private fileBeforeFleet = '';
  private file: string | undefined;
  private list: RunList = { runs: [], next: null };
  private run: AuditRunSummary | null = null;
  private replay: AuditReplay | null = null;
  private filter: AuditFilter = {};
  private pages: EventPages | null = null;
  /** The selected run's pages again, after it grew, until the rows in view are loaded. */
  private grown: EventPages | null = null;
  private detailGen = 0;
  /** The first row a failed chain check named, and its run. */
  private chainBad: ReadonlySet<number> = new Set();
  private chainBadRun: string | null = null;
  /** The last event's sequence number when the verify result shown was asked for (null: none shown). */
  private verifiedAt: number | null = null;
  /** Counts selections: a selection's answers apply only while it is the latest (a run may be selected twice). */
  private selection = 0;
  private locating = false;
  private pendingAt: number | null = null;
  private opened = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly app: App,
  ) {
    this.api = app.api;
    this.d = auditDom(root, app.info.auditFile);
    this.table = createEventTable(this.d.tableRoot, (row) => {
      void this.showDetail(row);
      if (this.replay !== null) this.timeline.show(timelineAt(this.replay, row, this.timeline.value));
    });
    this.timeline = createTimeline(this.d.track, this.d.replaySide, (at) => void this.locate(at));
    this.tail = createTail(
      this.api,
      () => root.getClientRects().length > 0,
      (head) => this.headMoved(head),
      (e) => this.say(`following the database: ${errorText(e)}`, 'error'),
    );
    this.fleet = new FleetPane(this.d.fleet, this.api, (l) => app.onEvent(l), {
      open: async (file, name) => {
        this.d.fileInput.value = file;
        await this.openDb(false, name);
      },
      clear: (why) => this.dropDb(why, 'info'),
      grew: () => this.tail.poke(),
      active: () => root.getClientRects().length > 0,
    });
    this.wire();
  }

  shown(): void {
    this.timeline.shown();
    this.table.refresh();
    this.tail.poke();
    if (!this.opened && this.mode === 'file') {
      this.opened = true;
      void this.openDb();
    }
  }

  /** A file of this machine, or the fleet store's sources (the browser shows nothing until one is opened). */
  private setMode(mode: 'file' | 'fleet', open = true): void {
    if (mode === this.mode) return;
    this.mode = mode;
    const d = this.d;
    d.modeFile.checked = mode === 'file';
    d.modeFleet.checked = mode === 'fleet';
    for (const e of [d.fileLabel, d.fileInput, d.openBtn]) e.hidden = mode === 'fleet';
    if (mode === 'fleet') {
      this.fileBeforeFleet = d.fileInput.value;
      this.dropDb('Open a source of the fleet store (click its row) to browse it.', 'info');
      void this.fleet.enter();
    } else {
      this.fleet.leave();
      d.fileInput.value = this.fileBeforeFleet;
      this.opened = true;
      if (open) void this.openDb();
    }
  }

  private fileArg(): { file?: string } {
    return this.file !== undefined ? { file: this.file } : {};
  }

  private say(text: string, kind: 'info' | 'error' = 'info'): void {
    this.d.message.textContent = text;
    this.d.message.className = kind === 'error' ? 'error' : 'muted';
  }

  /** The nearest event to the timeline cursor: one request at a time, the latest position wins. */
  private async locate(at: number): Promise<void> {
    if (this.run === null || this.replay === null) return;
    if (this.locating) {
      this.pendingAt = at;
      return;
    }
    this.locating = true;
    const r = this.run,
      axis = this.replay.axis;
    try {
      const res = await this.api.auditLocate({
        ...this.fileArg(),
        filter: { ...this.filter, run: r.id },
        ...(axis === 'step' ? { step: at } : { tMs: r.started_ms + at }),
      });
      if (this.run === r && res.row !== null && this.pendingAt === null) {
        this.table.select(res.index, res.row.id);
        void this.showDetail(res.row);
      }
    } catch (e) {
      this.say(`timeline: ${errorText(e)}`, 'error');
    } finally {
      this.locating = false;
      const next = this.pendingAt;
      this.pendingAt = null;
      if (next !== null) void this.locate(next);
    }
  }

  /** A node link of the selected run: its own scene (the replay's), or why it cannot be shown. */
  private openNode(id: string): void {
    const r = this.run;
    if (r === null) return;
    const blocked = nodeBlocked(id, r, this.replay);
    if (blocked !== null || this.replay === null) return this.say(blocked ?? '', 'error');
    this.app.post({ kind: 'focus-node', id, scene: replayScene(this.replay, this.timeline.value), auditRun: r.id });
  }

  private async showDetail(row: AuditEventRow): Promise<void> {
    const gen = ++this.detailGen;
    const detail = this.d.detail;
    detail.dataset.id = String(row.id);
    try {
      const d = await this.api.auditEvent({ ...this.fileArg(), id: row.id });
      if (gen !== this.detailGen) return;
      renderDetail(detail, d, this.run?.started_ms ?? d.row.t_ms);
      linkNodes(detail, (id) => this.openNode(id));
      detail.dataset.kind = d.row.kind;
    } catch (e) {
      if (gen === this.detailGen)
        detail.replaceChildren(el('p', { class: 'error' }, `event ${row.id}: ${errorText(e)}`));
    }
  }

  private updateCount(): void {
    const count = this.d.count,
      pages = this.pages;
    count.textContent = countText(pages);
    if (pages === null) return;
    if (pages.error !== null) this.say(`events: ${pages.error}`, 'error');
    count.dataset.count = String(pages.count);
    count.dataset.done = String(pages.done);
  }

  private kindBoxes(): HTMLInputElement[] {
    return [...this.d.kindsBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  }

  /** What the filter controls hold. */
  private fields(): FilterFields {
    const d = this.d;
    return {
      kinds: this.kindBoxes().map((b) => ({ value: b.value, checked: b.checked })),
      tool: d.toolSel.value,
      failure: d.failSel.value,
      from: d.fromIn.value,
      to: d.toIn.value,
      text: d.textIn.value,
    };
  }

  /** Reads the filter controls; null (with the reason shown) when a field is not valid. */
  private readFilter(): AuditFilter | null {
    const d = this.d;
    d.filterError.textContent = '';
    d.fromIn.removeAttribute('aria-invalid');
    d.toIn.removeAttribute('aria-invalid');
    if (this.run === null) return null;
    const res = parseFilter(this.run, this.fields());
    if (res.ok) return res.filter;
    d.filterError.textContent = res.error;
    for (const f of res.invalid) (f === 'from' ? d.fromIn : d.toIn).setAttribute('aria-invalid', 'true');
    return null;
  }

  private dropPages(): void {
    this.pages?.close();
    this.pages = null;
    this.grown?.close();
    this.grown = null;
  }

  private applyFilter(): void {
    const f = this.readFilter();
    const run = this.run;
    if (f === null || run === null) return;
    this.filter = f;
    this.dropPages();
    this.pages = new EventPages(this.api, this.file, f, () => {
      this.table.refresh();
      this.updateCount();
    });
    this.table.setSource(this.pages, run.started_ms);
    this.updateCount();
  }

  /**
   * The selected run grew: the same filter again, swapped in once the rows in view are loaded so
   * the table neither flickers nor loses its place (at the end, it follows the end).
   */
  private growTable(r: AuditRunSummary): void {
    if (this.run !== r) return;
    this.grown?.close();
    const [from, to] = this.table.visible();
    const next = new EventPages(this.api, this.file, this.filter, () => {
      if (this.pages === next) {
        this.table.refresh();
        this.updateCount();
        return;
      }
      let ready = next.error !== null || next.done;
      for (let i = from; ready && i <= Math.min(to, next.count - 1); i++) ready = next.get(i) !== undefined;
      if (!ready || this.run !== r) return;
      this.pages?.close();
      this.pages = next;
      this.grown = null;
      this.table.setSource(next, r.started_ms, true);
      this.updateCount();
    });
    this.grown = next;
    next.ensure(from, to);
  }

  /** Draws the filter controls for a run's facets, holding `f`'s choices. */
  private fillFilters(facets: Facets, f: FilterFields): void {
    const d = this.d;
    d.kindsBox.replaceChildren(
      ...facets.kinds.map((k) => {
        const on = f.kinds.find((x) => x.value === k.kind)?.checked ?? true;
        const box = el('input', { type: 'checkbox', value: k.kind, ...(on ? { checked: '' } : {}) });
        return el('label', { class: 'af-kind' }, box, ` ${k.kind} (${k.n})`);
      }),
    );
    d.toolSel.replaceChildren(
      el('option', { value: '' }, 'any tool'),
      ...facets.tools.map((t) => el('option', { value: t }, t)),
    );
    d.failSel.replaceChildren(
      el('option', { value: '' }, 'any failure'),
      ...facets.failureLabels.map((t) => el('option', { value: t }, t)),
    );
    d.toolSel.value = f.tool;
    d.failSel.value = f.failure;
    d.fromIn.value = f.from;
    d.toIn.value = f.to;
    d.textIn.value = f.text;
    d.fromIn.removeAttribute('aria-invalid');
    d.toIn.removeAttribute('aria-invalid');
    d.filterError.textContent = '';
  }

  private async selectRun(r: AuditRunSummary): Promise<void> {
    // The run on the screen, loaded and unchanged: selecting it again keeps where the operator is.
    if (sameRun(this.run, this.replay, r)) return;
    const mine = ++this.selection;
    this.run = r;
    for (const li of this.d.runsList.querySelectorAll<HTMLElement>('li')) {
      li.classList.toggle('selected', li.dataset.run === r.id);
      li.setAttribute('aria-selected', String(li.dataset.run === r.id));
    }
    this.d.detail.replaceChildren(noEvent());
    this.d.exportOut.textContent = '';
    // The previous run's rows and count go at once: while this run loads they are not its own.
    this.dropPages();
    this.table.setSource(null, 0);
    this.d.count.textContent = 'loading…';
    this.d.count.dataset.done = 'false';
    try {
      const [f, rp] = await Promise.all([
        this.api.auditFacets({ ...this.fileArg(), run: r.id }),
        this.api.auditReplay({ ...this.fileArg(), run: r.id }),
      ]);
      if (this.run !== r || mine !== this.selection) return;
      this.fillFilters(f, { kinds: [], tool: '', failure: '', from: '', to: '', text: '' });
      this.replay = rp;
      this.timeline.load(rp);
      this.applyFilter();
      this.table.mark(this.chainBad);
    } catch (e) {
      if (mine === this.selection) this.d.count.textContent = '';
      this.say(`run ${r.id.slice(0, 8)}: ${errorText(e)}`, 'error');
    }
  }

  private runItem(r: AuditRunSummary): HTMLElement {
    const failures = r.failures.records + r.failures.postconditions;
    const li = el(
      'li',
      {
        'data-run': r.id,
        'data-events': String(r.events),
        'data-failures': String(failures),
        tabindex: '0',
        role: 'option',
        class: runClass(r, this.run?.id ?? null, this.chainBadRun),
        'aria-selected': String(this.run?.id === r.id),
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
      ...(failures > 0 ? [el('div', { class: 'r-failures' }, `⚠ ${failuresText(r)}`)] : []),
      ...(this.chainBadRun === r.id ? [el('div', { class: 'r-chain-bad' }, '✗ hash chain broken in this run')] : []),
      el('div', { class: 'r-spec' }, r.spec ?? ''),
      el('div', { class: 'r-id muted' }, r.id),
    );
    li.addEventListener('click', () => void this.selectRun(r));
    li.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void this.selectRun(r);
    });
    return li;
  }

  private renderRuns(): void {
    this.d.moreRuns.hidden = this.list.next === null;
    this.d.runsList.replaceChildren(...this.list.runs.map((r) => this.runItem(r)));
  }

  /** Forgets the open database's runs and everything shown of them. */
  private clearRuns(): void {
    this.list = { runs: [], next: null };
    this.renderRuns();
    this.clearRun();
  }

  private clearRun(): void {
    const d = this.d;
    this.run = null;
    this.replay = null;
    this.dropPages();
    this.table.setSource(null, 0);
    this.timeline.load(null);
    d.kindsBox.replaceChildren();
    d.toolSel.replaceChildren(el('option', { value: '' }, 'any tool'));
    d.failSel.replaceChildren(el('option', { value: '' }, 'any failure'));
    d.detail.replaceChildren(noEvent());
    this.updateCount();
  }

  private clearVerify(): void {
    const out = this.d.verifyOut;
    this.chainBad = new Set();
    this.chainBadRun = null;
    this.verifiedAt = null;
    this.table.mark(this.chainBad);
    out.className = 'audit-result';
    out.textContent = '';
    out.removeAttribute('role');
    delete out.dataset.ok;
    delete out.dataset.firstBad;
    delete out.dataset.stale;
  }

  /** Marks the verify result shown stale when events landed after its check started. */
  private markStale(head: Head): void {
    if (this.verifiedAt === null) return;
    const text = staleText(this.verifiedAt, head.lastSeq);
    const out = this.d.verifyOut;
    out.querySelector('.audit-stale')?.remove();
    out.classList.toggle('stale', text !== null);
    if (text === null) delete out.dataset.stale;
    else {
      out.dataset.stale = 'true';
      out.append(el('p', { class: 'audit-stale' }, text));
    }
  }

  private showLive(head: Head | null): void {
    const live = this.d.live;
    live.textContent = head === null ? '' : '● live';
    live.dataset.lastSeq = head === null ? '' : String(head.lastSeq);
    live.dataset.runs = head === null ? '' : String(head.runs);
    live.classList.toggle('on', head !== null);
  }

  /** The next page of older runs, below those listed. */
  private async olderRuns(): Promise<void> {
    const cursor = this.list.next,
      f = this.file;
    if (cursor === null) return;
    this.d.moreRuns.disabled = true;
    try {
      const res = await this.api.auditRuns({ ...this.fileArg(), cursor });
      if (this.list.next !== cursor || this.file !== f) return;
      this.list = mergeOlder(this.list, res);
      this.renderRuns();
      const head = this.tail.head;
      if (head !== null) this.runsSay(res.file, head);
    } catch (e) {
      this.say(`older runs: ${errorText(e)}`, 'error');
    } finally {
      this.d.moreRuns.disabled = false;
    }
  }

  private async openDb(keep = false, name: string | null = keep ? this.shownName : null): Promise<void> {
    const typed = this.d.fileInput.value.trim();
    const next = typed === '' || typed === this.app.info.auditFile ? undefined : typed;
    const arg = next !== undefined ? { file: next } : {};
    const gen = ++this.openGen;
    this.say('opening…');
    try {
      // The head first: what is written meanwhile shows at the next poll.
      const head = await this.api.auditHead(arg);
      const res = await this.api.auditRuns(arg);
      // Another open (or the switch to the fleet store) came after this one: it has the screen.
      if (gen !== this.openGen) return;
      this.shownName = name;
      if (this.file !== next || !keep) this.clearVerify();
      this.file = next;
      this.offerWholeLog(true);
      this.d.fileInput.value = res.file;
      this.list = { runs: res.runs, next: res.next };
      this.renderRuns();
      if (res.message !== undefined) this.say(res.message);
      else this.runsSay(res.file, head);
      this.tail.follow({ file: next, head });
      this.showLive(head);
      this.markStale(head);
      const run = this.run;
      const again = keep && run !== null ? this.list.runs.find((r) => r.id === run.id) : undefined;
      // A selected run older than the newest page stays on screen as it is.
      if (again === undefined && keep && run !== null && this.list.next !== null) return;
      if (again === undefined) {
        this.clearRun();
        if (this.list.runs[0] !== undefined) await this.selectRun(this.list.runs[0]);
      } else if (again.events !== run!.events) await this.refreshRun(again);
    } catch (e) {
      if (gen === this.openGen) this.dropDb(errorText(e), 'error');
    }
  }

  /** Verify and the exports, offered or not. */
  private offerWholeLog(on: boolean): void {
    for (const b of [this.d.verifyBtn, ...this.d.exportBtns]) b.disabled = !on;
  }

  /** The open database as the status line names it: a fleet source by its name, a file by its path. */
  private runsSay(file: string, head: Head | { runs: number }): void {
    this.d.message.title = file;
    this.say(runsText(this.shownName ?? file, this.list, head.runs));
  }

  /** Nothing of the database open before stays on screen (as if it were the next one's); `why` says so. */
  private dropDb(why: string, kind: 'info' | 'error'): void {
    // In the fleet store's mode nothing is open until a source is: nothing to verify or export.
    this.offerWholeLog(this.mode === 'file');
    this.openGen++;
    this.shownName = null;
    this.tail.follow(null);
    this.showLive(null);
    this.clearVerify();
    this.clearRuns();
    this.d.exportOut.textContent = '';
    this.say(why, kind);
  }

  /** The selected run has more events: its filters' counts, its replay and its table follow. */
  private async refreshRun(r: AuditRunSummary): Promise<void> {
    const mine = this.selection;
    this.run = r;
    const [f, rp] = await Promise.all([
      this.api.auditFacets({ ...this.fileArg(), run: r.id }),
      this.api.auditReplay({ ...this.fileArg(), run: r.id }),
    ]);
    if (this.run !== r || mine !== this.selection) return;
    this.fillFilters(f, carryFields(this.fields(), f));
    const at = this.timeline.value;
    this.replay = rp;
    this.timeline.load(rp);
    this.timeline.show(at);
    this.growTable(r);
  }

  /** The database moved: new runs join the list (the selection stays), a grown selected run follows. */
  private async headMoved(head: Head): Promise<void> {
    const res: RunsPage & { file: string; message?: string } = await this.api.auditRuns(this.fileArg());
    this.list = mergeNewest(this.list, res);
    this.renderRuns();
    if (res.message !== undefined) this.say(res.message);
    else this.runsSay(res.file, head);
    this.markStale(head);
    const run = this.run;
    const current = run === null ? undefined : this.list.runs.find((r) => r.id === run.id);
    if (run === null && this.list.runs[0] !== undefined) await this.selectRun(this.list.runs[0]);
    else if (current !== undefined && current.events !== run!.events) await this.refreshRun(current);
    this.showLive(head);
  }

  private clearFilter(): void {
    for (const b of this.kindBoxes()) b.checked = true;
    const d = this.d;
    d.toolSel.value = d.failSel.value = '';
    d.fromIn.value = d.toIn.value = d.textIn.value = '';
    this.applyFilter();
  }

  private verify(): void {
    this.clearVerify();
    const out = this.d.verifyOut;
    out.textContent = 'verifying…';
    const at = this.tail.head?.lastSeq ?? null;
    this.api.auditVerify(this.fileArg()).then(
      (v) => this.verified(v, at ?? v.events),
      (e: unknown) => {
        out.classList.add('bad');
        out.textContent = `verify: ${errorText(e)}`;
      },
    );
  }

  private verified(v: AuditVerifyResult, at: number): void {
    const out = this.d.verifyOut;
    const shown = verifyView(v);
    this.verifiedAt = at;
    out.dataset.ok = String(v.ok);
    out.classList.add(v.ok ? 'ok' : 'bad');
    out.textContent = shown.text;
    if (shown.firstBad !== null) out.dataset.firstBad = shown.firstBad;
    else delete out.dataset.firstBad;
    const head = this.tail.head;
    if (head !== null) this.markStale(head);
    if (v.ok) return;
    out.setAttribute('role', 'alert');
    // The row that breaks the chain is marked in the table, and its run in the list.
    const seq = shown.badSeq;
    if (seq === null) return;
    this.chainBad = new Set([seq]);
    this.table.mark(this.chainBad);
    this.api.auditEvent({ ...this.fileArg(), id: seq }).then(
      (d) => {
        this.chainBadRun = d.row.run;
        this.renderRuns();
      },
      () => {
        /* the row itself is unreadable: the message names it */
      },
    );
  }

  private exportAs(format: AuditExportFormat): void {
    const out = this.d.exportOut,
      run = this.run;
    out.className = 'audit-result';
    out.textContent = exportingText(run, format);
    this.api.auditExport({ ...this.fileArg(), ...(run !== null ? { run: run.id } : {}), format }).then(
      (r) => {
        out.classList.add('ok');
        out.dataset.path = r.path;
        out.dataset.format = r.format;
        out.textContent = `Wrote ${r.path} (${bytes(r.bytes)}): ${r.summary}`;
      },
      (e: unknown) => {
        out.classList.add('bad');
        out.textContent = `export: ${errorText(e)}`;
      },
    );
  }

  /** Another tab's audit link (the tool loop's): the session's database, at that run. */
  private async openLinkedRun(id: string): Promise<void> {
    this.setMode('file', false);
    this.d.fileInput.value = this.app.info.auditFile;
    this.opened = true;
    await this.openDb();
    // A run older than the pages listed: its summary comes with its replay.
    const r =
      this.list.runs.find((x) => x.id === id) ??
      (await this.api.auditReplay({ run: id, maxPositions: 2 }).then(
        (rp) => rp.run,
        () => undefined,
      ));
    if (r !== undefined) await this.selectRun(r);
    else this.say(`run ${id} is not in ${this.app.info.auditFile}`, 'error');
  }

  private wire(): void {
    const d = this.d;
    const apply = (): void => this.applyFilter();
    d.openBtn.addEventListener('click', () => void this.openDb());
    d.modeFile.addEventListener('change', () => this.setMode('file'));
    d.modeFleet.addEventListener('change', () => this.setMode('fleet'));
    d.moreRuns.addEventListener('click', () => void this.olderRuns());
    d.fileInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void this.openDb();
    });
    d.kindsBox.addEventListener('change', apply);
    d.toolSel.addEventListener('change', apply);
    d.failSel.addEventListener('change', apply);
    d.applyBtn.addEventListener('click', apply);
    for (const input of [d.fromIn, d.toIn, d.textIn]) {
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') apply();
      });
    }
    d.clearBtn.addEventListener('click', () => this.clearFilter());
    d.verifyBtn.addEventListener('click', () => this.verify());
    for (const b of d.exportBtns)
      b.addEventListener('click', () => this.exportAs(b.dataset.format as AuditExportFormat));
    // A mission that ends adds a run to the session's database.
    this.app.onEvent((e) => {
      if ((e.topic === 'mission.end' || e.topic === 'act.end') && this.file === undefined && this.mode === 'file')
        void this.openDb(true);
    });
    this.app.onMessage((m) => {
      if (m.kind === 'audit-run') void this.openLinkedRun(m.run);
    });
  }
}
