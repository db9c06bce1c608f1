/**
 * The audit browser's fleet store mode: the store's sources (one lab PC's log each) in a table with filters (robot,
 * world, host, a time range), and a source opened as its verified local replica, which main keeps (fleetMirror) and
 * the browser then reads as any audit database (panel.ts: runs, facets, table, detail, replay, verify, export). While
 * a source is open it is pulled again every PULL_MS (only what is new comes), so the browser's tail shows the events
 * the lab PC pushes. Progress and failures (a server that cannot be reached, a source that does not verify) have a
 * line of their own; the sources listed stay. The store's URL is shown as main gives it: its password masked.
 */
import type { ApiEvent, FleetMirrorResult, FleetSource, WitnessApi } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { ApiCallError, errorText } from '../api.js';
import { time } from './model.js';
import {
  type SourceFields,
  mirroredText,
  mirroringText,
  shortId,
  sourceFilter,
  sourceLabel,
  sourcesText,
  worldsText,
} from './fleet-model.js';

const PULL_MS = 2000;

/** What the fleet pane asks of the audit browser. */
export interface FleetHooks {
  /** Opens the replica `file` in the browser, which calls it `name`. */
  open(file: string, name: string): Promise<void>;
  /** The browser shows no database (a source could not be opened): `why` says so. */
  clear(why: string): void;
  /** The open replica grew: the browser's tail looks now. */
  grew(): void;
  /** Whether the browser is on screen (a hidden one does not pull). */
  active(): boolean;
}

function select(id: string, label: string): HTMLSelectElement {
  return el('select', { id, 'aria-label': label }, el('option', { value: '' }, `any ${label}`));
}

function whenInput(id: string, placeholder: string): HTMLInputElement {
  return el('input', {
    id,
    type: 'text',
    placeholder,
    size: '14',
    spellcheck: 'false',
    title: 'A date (2026-12-05), a date-time in UTC (2026-12-05 07:30) or a span ago (30m, 12h, 7d)',
  });
}

/** The fleet pane's elements. */
export function fleetDom() {
  const store = el('span', { id: 'fleet-store', class: 'fleet-store' });
  const robot = select('fleet-f-robot', 'robot');
  const world = select('fleet-f-world', 'world');
  const host = select('fleet-f-host', 'host');
  const since = whenInput('fleet-f-since', 'since');
  const until = whenInput('fleet-f-until', 'until');
  const apply = el('button', { id: 'fleet-f-apply', title: 'List the sources again with this filter' }, 'Apply');
  const clear = el('button', { id: 'fleet-f-clear' }, 'Clear');
  const filterError = el('span', { id: 'fleet-f-error', class: 'error' });
  const listStatus = el('div', { id: 'fleet-list-status', class: 'muted', role: 'status' });
  const mirrorStatus = el('div', { id: 'fleet-mirror-status', class: 'fleet-mirror muted', role: 'status' });
  const stop = el(
    'button',
    {
      id: 'fleet-stop',
      hidden: '',
      title: 'Stop pulling this source (what has landed is kept; opening it again continues)',
    },
    'Stop',
  );
  const head = el(
    'tr',
    {},
    ...['Host', 'Robot', 'Log id', 'Worlds', 'Events', 'Runs', 'Last event'].map((h) => el('th', {}, h)),
  );
  const body = el('tbody', {});
  const table = el(
    'table',
    { id: 'fleet-sources', class: 'fleet-sources', 'aria-label': 'sources' },
    el('thead', {}, head),
    body,
  );
  const root = el(
    'div',
    { id: 'audit-fleet', class: 'audit-fleet', hidden: '' },
    el(
      'div',
      { class: 'fleet-filters' },
      el('span', { class: 'muted' }, 'Fleet store'),
      store,
      robot,
      world,
      host,
      el('label', { for: 'fleet-f-since' }, 'time'),
      since,
      until,
      apply,
      clear,
      filterError,
    ),
    listStatus,
    el('div', { class: 'fleet-table' }, table),
    el('div', { class: 'fleet-mirror-row' }, mirrorStatus, stop),
  );
  return {
    root,
    store,
    robot,
    world,
    host,
    since,
    until,
    apply,
    clear,
    filterError,
    listStatus,
    mirrorStatus,
    stop,
    body,
  };
}

type FleetDom = ReturnType<typeof fleetDom>;

interface Open {
  readonly source: FleetSource;
  readonly label: string;
  /** The replica, once its first pull has landed. */
  file: string | null;
}

export class FleetPane {
  /** The store's URL, password masked (null: the server has none; undefined: not asked yet). */
  private store: string | null | undefined;
  private sources: FleetSource[] = [];
  private open: Open | null = null;
  private pulling = false;
  private listing = 0;
  private on = false;

  constructor(
    private readonly d: FleetDom,
    private readonly api: WitnessApi,
    onEvent: (l: (e: ApiEvent) => void) => void,
    private readonly hooks: FleetHooks,
  ) {
    onEvent((e) => {
      const o = this.open;
      if (e.topic === 'fleet.mirror' && o !== null && e.logId === o.source.logId)
        this.mirrorSays(mirroringText(o.label, e.pulled, o.file === null, o.source.events));
    });
    d.apply.addEventListener('click', () => void this.list());
    d.stop.addEventListener('click', () => {
      const o = this.open;
      if (o !== null) void this.api.fleetStop({ logId: o.source.logId });
    });
    d.clear.addEventListener('click', () => {
      for (const s of [d.robot, d.world, d.host]) s.value = '';
      d.since.value = d.until.value = '';
      void this.list();
    });
    for (const s of [d.robot, d.world, d.host]) s.addEventListener('change', () => void this.list());
    for (const i of [d.since, d.until])
      i.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') void this.list();
      });
    setInterval(() => void this.pull(), PULL_MS);
  }

  /** The pane is shown: the store is asked for once, the sources listed. */
  async enter(): Promise<void> {
    this.on = true;
    this.d.root.hidden = false;
    if (this.store === undefined) {
      try {
        this.store = (await this.api.fleetInfo()).store;
      } catch (e) {
        return this.listSays(`fleet store: ${errorText(e)}`, 'error');
      }
    }
    this.d.store.textContent = this.store ?? '(none)';
    if (this.store === null)
      return this.listSays(
        'This workbench has no fleet store: start web mode with `witness web --fleet postgres://…` (or set $WITNESS_FLEET) to browse one.',
        'error',
      );
    await this.list();
  }

  /** The pane is hidden: the open source is closed (no more pulls). */
  leave(): void {
    this.on = false;
    this.d.root.hidden = true;
    this.close();
    this.markSelected();
    this.mirrorSays('');
  }

  /** Closes the open source; a pull of it under way stops (the next open continues after what landed). */
  private close(): void {
    const o = this.open;
    this.open = null;
    this.d.stop.hidden = true;
    if (o !== null && (o.file === null || this.pulling)) void this.api.fleetStop({ logId: o.source.logId });
  }

  private listSays(text: string, kind: 'info' | 'error' = 'info'): void {
    this.d.listStatus.textContent = text;
    this.d.listStatus.className = kind === 'error' ? 'error' : 'muted';
  }

  private mirrorSays(text: string, kind: 'info' | 'ok' | 'error' = 'info'): void {
    const m = this.d.mirrorStatus;
    m.textContent = text;
    m.className = `fleet-mirror ${kind === 'error' ? 'error' : kind === 'ok' ? 'ok' : 'muted'}`;
    if (kind === 'error') m.setAttribute('role', 'alert');
    else m.setAttribute('role', 'status');
  }

  private fields(): SourceFields {
    const d = this.d;
    return {
      robot: d.robot.value,
      world: d.world.value,
      host: d.host.value,
      since: d.since.value,
      until: d.until.value,
    };
  }

  /** Lists the sources the filter selects (`quiet`: without saying so first); a failure says why, the table stays. */
  async list(quiet = false): Promise<void> {
    const d = this.d;
    d.filterError.textContent = '';
    for (const i of [d.since, d.until]) i.removeAttribute('aria-invalid');
    if (!this.on || this.store == null) return;
    const fields = this.fields();
    const f = sourceFilter(fields, Date.now());
    if (!f.ok) {
      d.filterError.textContent = f.error;
      for (const n of f.invalid) (n === 'since' ? d.since : d.until).setAttribute('aria-invalid', 'true');
      return;
    }
    const mine = ++this.listing;
    if (!quiet) this.listSays('listing the sources…');
    try {
      const r = await this.api.fleetSources({ filter: f.filter });
      if (mine !== this.listing) return;
      this.fillChoices(r.choices, fields);
      this.sources = r.sources;
      this.renderSources();
      this.listSays(sourcesText(r.store, r.sources.length, Object.keys(f.filter).length > 0));
      d.body.dataset.rows = String(r.sources.length);
    } catch (e) {
      if (mine === this.listing) this.listSays(`listing the sources: ${errorText(e)}`, 'error');
    }
  }

  private fillChoices(c: { robots: string[]; worlds: string[]; hosts: string[] }, f: SourceFields): void {
    const fill = (s: HTMLSelectElement, values: string[], label: string, keep: string): void => {
      const all = keep !== '' && !values.includes(keep) ? [...values, keep] : values;
      s.replaceChildren(el('option', { value: '' }, `any ${label}`), ...all.map((v) => el('option', { value: v }, v)));
      s.value = keep;
    };
    fill(this.d.robot, c.robots, 'robot', f.robot);
    fill(this.d.world, c.worlds, 'world', f.world);
    fill(this.d.host, c.hosts, 'host', f.host);
  }

  private renderSources(): void {
    this.d.body.replaceChildren(
      ...this.sources.map((s) => {
        const tr = el(
          'tr',
          { 'data-log-id': s.logId, tabindex: '0', title: `log ${s.logId}` },
          el('td', { class: 's-host' }, s.host),
          el('td', { class: 's-robot' }, s.robot ?? '–'),
          el('td', { class: 's-log' }, shortId(s.logId)),
          el('td', { class: 's-worlds' }, worldsText(s)),
          el('td', { class: 's-events num' }, String(s.events)),
          el('td', { class: 's-runs num' }, String(s.runs)),
          el('td', { class: 's-last' }, time(s.lastMs)),
        );
        tr.addEventListener('click', () => void this.openSource(s));
        tr.addEventListener('keydown', (e) => {
          if (e.key === 'Enter') void this.openSource(s);
        });
        return tr;
      }),
    );
    this.markSelected();
  }

  private markSelected(): void {
    for (const tr of this.d.body.querySelectorAll<HTMLElement>('tr')) {
      const on = tr.dataset.logId === this.open?.source.logId;
      tr.classList.toggle('selected', on);
      tr.setAttribute('aria-selected', String(on));
    }
  }

  /** Mirrors the source and opens its replica in the browser; a failure says why and the browser shows nothing. */
  private async openSource(s: FleetSource): Promise<void> {
    if (this.open?.source.logId === s.logId && this.open.file !== null) return;
    if (this.open?.source.logId !== s.logId) this.close();
    const o: Open = { source: s, label: sourceLabel(s), file: null };
    this.open = o;
    this.markSelected();
    this.mirrorSays(mirroringText(o.label, 0, true));
    this.d.stop.hidden = false;
    this.hooks.clear(`opening ${o.label}…`);
    try {
      const r = await this.api.fleetMirror({ logId: s.logId });
      if (this.open !== o) return;
      this.d.stop.hidden = true;
      o.file = r.file;
      this.pulled(o, r);
      await this.hooks.open(r.file, `source ${o.label}`);
    } catch (e) {
      if (this.open !== o) return;
      this.open = null;
      this.d.stop.hidden = true;
      this.markSelected();
      const why = errorText(e);
      if (e instanceof ApiCallError && e.code === 'cancelled')
        this.mirrorSays(`${o.label}: stopped; what was pulled is kept, and opening it again continues after it`);
      else this.mirrorSays(why.includes(o.label) ? why : `${o.label}: ${why}`, 'error');
      this.hooks.clear(`${o.label} is not open (see the fleet store's message)`);
    }
  }

  /** A pull landed: the line says so. */
  private pulled(o: Open, r: FleetMirrorResult): void {
    this.mirrorSays(mirroredText(o.label, r), 'ok');
    this.d.mirrorStatus.dataset.events = String(r.events);
  }

  /** The open source again, while the browser is on screen: what the lab PC pushed since comes to the replica. */
  private async pull(): Promise<void> {
    const o = this.open;
    if (o === null || o.file === null || this.pulling || document.hidden || !this.hooks.active()) return;
    this.pulling = true;
    try {
      const r = await this.api.fleetMirror({ logId: o.source.logId });
      if (this.open !== o) return;
      this.pulled(o, r);
      if (r.pulled > 0) {
        // The browser's tail looks now, and the sources' counts follow.
        this.hooks.grew();
        void this.list(true);
      }
    } catch (e) {
      // Stopped (another window closed the source): the next pull comes at the next turn.
      if (e instanceof ApiCallError && e.code === 'cancelled') return;
      if (this.open === o)
        this.mirrorSays(
          `${o.label}: following the store failed: ${errorText(e)}. The replica's events so far stay open; trying again.`,
          'error',
        );
    } finally {
      this.pulling = false;
    }
  }
}
