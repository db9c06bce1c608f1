/**
 * The event table's rows, fetched page by page as the user scrolls. Without free text the first page
 * says how many events match, so the table has its full height at once and a far scroll jumps with
 * an offset; a neighbouring page continues with the cursor. A free-text search cannot be counted
 * cheaply: its rows arrive in order as the search goes on, and the table grows with them. Far pages
 * are dropped so memory stays bounded however long the run.
 */
import type { AuditEventRow, AuditFilter, AuditQueryResult, WitnessApi } from '../../../main/contract/api.js';

const PAGE = 500;
/** Pages kept in memory (indexed mode); the ones farthest from the view go first. */
const KEEP_PAGES = 80;

interface Page {
  rows: AuditEventRow[];
  next: string | null;
}

export class EventPages {
  /** Matching events (indexed mode), or null while unknown (free text, before the first page). */
  total: number | null = null;
  /** Free-text mode: the rows found so far, in order, and where the search continues. */
  private found: AuditEventRow[] = [];
  private foundNext: string | null = null;
  private readonly pages = new Map<number, Page>();
  private busy = false;
  private wanted: [number, number] = [0, 0];
  private closed = false;
  /** True once the whole result is known (free text: the search reached the end). */
  done = false;
  error: string | null = null;

  constructor(
    private readonly api: WitnessApi,
    private readonly file: string | undefined,
    readonly filter: AuditFilter,
    private readonly changed: () => void,
  ) {}

  get textMode(): boolean {
    return this.filter.text !== undefined;
  }

  /** Rows the table should have: the total, or what a free-text search found so far. */
  get count(): number {
    return this.textMode ? this.found.length : (this.total ?? 0);
  }

  get(i: number): AuditEventRow | undefined {
    if (this.textMode) return this.found[i];
    return this.pages.get(Math.floor(i / PAGE))?.rows[i % PAGE];
  }

  /** Index of a loaded row by event id (for keeping the selection across pages). */
  indexOf(id: number): number {
    if (this.textMode) return this.found.findIndex((r) => r.id === id);
    for (const [p, page] of this.pages) {
      const k = page.rows.findIndex((r) => r.id === id);
      if (k >= 0) return p * PAGE + k;
    }
    return -1;
  }

  /** Stop: a newer filter replaced this one; late answers are ignored. */
  close(): void {
    this.closed = true;
  }

  /** Loads what rows [from, to] need, one request at a time, the visible range first. */
  ensure(from: number, to: number): void {
    this.wanted = [from, to];
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy || this.closed) return;
    this.busy = true;
    try {
      for (;;) {
        if (this.closed) return;
        const r = this.textMode ? this.nextText() : this.nextPage();
        if (r === null) return;
        const res = await r;
        if (this.closed) return;
        this.changed();
        if (res === 'stop') return;
      }
    } catch (e) {
      if (!this.closed) {
        this.error = e instanceof Error ? e.message : String(e);
        this.changed();
      }
    } finally {
      this.busy = false;
    }
  }

  private query(p: { cursor?: string | null; offset?: number; limit: number }): Promise<AuditQueryResult> {
    return this.api.auditQuery({ ...(this.file !== undefined ? { file: this.file } : {}), filter: this.filter, ...p });
  }

  /** Indexed mode: the first missing page in view, fetched by cursor when its predecessor is here. */
  private nextPage(): Promise<'more' | 'stop'> | null {
    if (this.total === null) {
      return this.query({ limit: PAGE }).then((r) => {
        this.total = r.total ?? r.events.length;
        this.pages.set(0, { rows: r.events, next: r.next });
        this.done = true;
        return 'more';
      });
    }
    const [from, to] = this.wanted;
    const lastPage = Math.floor(Math.max(0, this.total - 1) / PAGE);
    for (let p = Math.max(0, Math.floor(from / PAGE)); p <= Math.min(lastPage, Math.floor(to / PAGE)); p++) {
      if (this.pages.has(p)) continue;
      const prev = this.pages.get(p - 1);
      const req =
        prev !== undefined && prev.next !== null && prev.rows.length === PAGE
          ? this.query({ cursor: prev.next, limit: PAGE })
          : this.query({ offset: p * PAGE, limit: PAGE });
      return req.then((r) => {
        this.pages.set(p, { rows: r.events, next: r.next });
        this.evict(p);
        return 'more';
      });
    }
    return null;
  }

  private evict(near: number): void {
    if (this.pages.size <= KEEP_PAGES) return;
    const far = [...this.pages.keys()].sort((a, b) => Math.abs(b - near) - Math.abs(a - near));
    for (const p of far.slice(0, this.pages.size - KEEP_PAGES)) this.pages.delete(p);
  }

  /** Free-text mode: continue the search while the view reaches its end. */
  private nextText(): Promise<'more' | 'stop'> | null {
    const started = this.found.length > 0 || this.foundNext !== null;
    if (started && this.foundNext === null) return null;
    if (started && this.wanted[1] < this.found.length - 1) return null;
    return this.query({ cursor: started ? this.foundNext : null, limit: PAGE }).then((r) => {
      this.found.push(...r.events);
      this.foundNext = r.next;
      if (r.next === null) this.done = true;
      return 'more';
    });
  }
}
