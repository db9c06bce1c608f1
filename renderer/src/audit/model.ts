/**
 * The audit browser's pure part: the open database's run list and how its pages merge, the filter
 * the controls describe, the texts the panel shows (counts, runs, failures, verify and export
 * results) and whether a verify result still describes the database. No DOM and no network here,
 * so it is tested on its own and the panel (panel.ts) only draws it and asks main.
 */
import type {
  AuditFilter,
  AuditReplay,
  AuditRunSummary,
  AuditVerifyResult,
  RuleVerdictView,
} from '../../../main/contract/api.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A time in UTC to the second, '–' for none. */
export const time = (ms: number | null): string =>
  ms === null
    ? '–'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');

export const bytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;

/** A run's failure records and failed postconditions, in words ('' for none). */
export function failuresText(r: AuditRunSummary): string {
  const { records, postconditions } = r.failures;
  const parts = [
    records > 0 ? plural(records, 'failure record') : '',
    postconditions > 0 ? plural(postconditions, 'failed postcondition') : '',
  ];
  return parts.filter((p) => p !== '').join(' · ');
}

/** The classes of a run's list item. */
export function runClass(r: AuditRunSummary, selected: string | null, chainBadRun: string | null): string {
  const failing = r.failures.records + r.failures.postconditions > 0;
  return [failing ? 'has-failures' : '', selected === r.id ? 'selected' : '', chainBadRun === r.id ? 'chain-bad' : '']
    .filter((c) => c !== '')
    .join(' ');
}

/** A page of runs as main answers it. */
export interface RunsPage {
  runs: AuditRunSummary[];
  next: string | null;
}

/** The runs listed: newest first, `next` where the next page of older runs starts (null: all are listed). */
export interface RunList {
  readonly runs: readonly AuditRunSummary[];
  readonly next: string | null;
}

/**
 * The newest page again (the database grew): its runs replace or join those at the top. Older
 * pages already loaded stay when the new page reaches them; otherwise the list starts over from
 * the new page, so no run is left out between the two.
 */
export function mergeNewest(list: RunList, page: RunsPage): RunList {
  const ids = new Set(page.runs.map((r) => r.id));
  const top = list.runs[0];
  if (page.next !== null && top !== undefined && ids.has(top.id))
    return { runs: [...page.runs, ...list.runs.filter((r) => !ids.has(r.id))], next: list.next };
  return { runs: page.runs, next: page.next };
}

/** The next page of older runs, below those listed (a run already listed is not listed twice). */
export function mergeOlder(list: RunList, page: RunsPage): RunList {
  const have = new Set(list.runs.map((r) => r.id));
  return { runs: [...list.runs, ...page.runs.filter((r) => !have.has(r.id))], next: page.next };
}

/** The status line of an open database. */
export function runsText(file: string, list: RunList, headRuns: number): string {
  return list.next === null
    ? `${file}: ${plural(list.runs.length, 'run')} (read-only)`
    : `${file}: the newest ${list.runs.length} of ${headRuns} runs (read-only)`;
}

/** What the filter controls hold. */
export interface FilterFields {
  kinds: readonly { value: string; checked: boolean }[];
  tool: string;
  failure: string;
  from: string;
  to: string;
  text: string;
}

export type FilterResult =
  { ok: true; filter: AuditFilter } | { ok: false; error: string; invalid: readonly ('from' | 'to')[] };

/** The filter the controls describe for a run, or why they describe none (and which fields are wrong). */
export function parseFilter(run: AuditRunSummary, f: FilterFields): FilterResult {
  const filter: AuditFilter = { run: run.id };
  const kinds = f.kinds.filter((k) => k.checked).map((k) => k.value);
  if (kinds.length > 0 && kinds.length < f.kinds.length) filter.kinds = kinds;
  if (f.tool !== '') filter.tool = f.tool;
  if (f.failure !== '') filter.failureLabel = f.failure;
  const invalid: ('from' | 'to')[] = [];
  let error = '';
  const secs = (s: string, name: 'from' | 'to'): number | undefined => {
    const t = s.trim();
    if (t === '') return undefined;
    const v = Number(t);
    if (Number.isFinite(v)) return run.started_ms + v * 1000;
    error ||= `${name}: "${t}" is not a number of seconds since the run started`;
    invalid.push(name);
    return undefined;
  };
  const from = secs(f.from, 'from');
  const to = secs(f.to, 'to');
  if (invalid.length > 0) return { ok: false, error, invalid };
  if (from !== undefined && to !== undefined && from > to)
    return { ok: false, error: 'window: "to" is before "from"', invalid: [] };
  if (from !== undefined) filter.fromMs = from;
  if (to !== undefined) filter.toMs = to;
  if (f.text.trim() !== '') filter.text = f.text.trim();
  return { ok: true, filter };
}

/** The facets of a run the filter offers. */
export interface Facets {
  kinds: readonly { kind: string; n: number }[];
  tools: readonly string[];
  failureLabels: readonly string[];
}

/**
 * The filter controls after a run's facets changed (it grew): the operator's choices stay — kinds
 * left unticked stay unticked (new kinds come ticked), a tool or failure still offered stays chosen,
 * the window and text stay as typed.
 */
export function carryFields(before: FilterFields, facets: Facets): FilterFields {
  const unticked = new Set(before.kinds.filter((k) => !k.checked).map((k) => k.value));
  return {
    kinds: facets.kinds.map((k) => ({ value: k.kind, checked: !unticked.has(k.kind) })),
    tool: facets.tools.includes(before.tool) ? before.tool : '',
    failure: facets.failureLabels.includes(before.failure) ? before.failure : '',
    from: before.from,
    to: before.to,
    text: before.text,
  };
}

/** What the event pages know of their count. */
export interface PagesCount {
  textMode: boolean;
  count: number;
  done: boolean;
  total: number | null;
}

/** The count beside the filter. */
export function countText(p: PagesCount | null): string {
  if (p === null) return '';
  if (p.textMode) return `${p.count} found${p.done ? '' : ', searching…'}`;
  return p.total === null ? 'loading…' : plural(p.total, 'event');
}

/** A verify result in words, and the event sequence number of the row that breaks the chain (null: none). */
export function verifyView(v: AuditVerifyResult): { text: string; firstBad: string | null; badSeq: number | null } {
  const bad = v.firstBad;
  const text =
    v.ok || bad === undefined
      ? `Chain intact: ${v.events} events, ${v.blobs} blobs verified in ${v.chain_ms.toFixed(0)} ms; head ${v.head.slice(0, 16)}…`
      : `NOT intact — first bad row: ${bad.table} ${bad.key}: ${bad.reason} (${v.events} events verified before it)`;
  const seq = bad?.table === 'events' ? Number(bad.key) : NaN;
  return {
    text,
    firstBad: bad === undefined ? null : `${bad.table}:${bad.key}`,
    badSeq: Number.isInteger(seq) && seq > 0 ? seq : null,
  };
}

/**
 * A verify result speaks for the database as it was when the check started: once events land after
 * that (the database is tailed), it says so and asks for another check. `at` is the last event's
 * sequence number when the check started; `now` the last one seen since.
 */
export function staleText(at: number, now: number): string | null {
  if (now <= at) return null;
  return `The database has grown since this check (${plural(now - at, 'new event')}): verify again to cover them.`;
}

/** Where an export goes and what it covers, in words, while it runs. */
export function exportingText(run: AuditRunSummary | null, format: string): string {
  return `exporting ${run !== null ? `run ${run.id.slice(0, 8)}` : 'the whole database'} as ${format.toUpperCase()}…`;
}

/** The timeline position of an event row: its step on a step axis, its time since the run started otherwise. */
export function timelineAt(replay: AuditReplay, row: { step: number | null; t_ms: number }, current: number): number {
  return replay.axis === 'step' ? (row.step ?? current) : row.t_ms - replay.run.started_ms;
}

/** Why a node of the selected run cannot be shown (its replay is not the run's), or null when it can. */
export function nodeBlocked(id: string, run: AuditRunSummary, replay: AuditReplay | null): string | null {
  if (replay !== null && replay.run.id === run.id) return null;
  return `${id}: run ${run.id.slice(0, 8)}'s scene is not loaded (its replay could not be read), so its nodes cannot be shown`;
}

/** Whether selecting a run again would change nothing: it is on the screen, loaded and unchanged. */
export function sameRun(shown: AuditRunSummary | null, replay: AuditReplay | null, r: AuditRunSummary): boolean {
  return shown?.id === r.id && shown.events === r.events && replay?.run.id === r.id;
}

type RuleStatus = 'none' | 'ok' | 'pending' | 'refused' | 'violated';
const SEVERITY: readonly RuleStatus[] = ['none', 'ok', 'pending', 'refused', 'violated'];

/** One verdict in words: its seq and chain hash, the call, what the rules said, each rule's monitor state. */
function verdictText(v: RuleVerdictView): { status: RuleStatus; text: string } {
  const status: RuleStatus = !v.ok
    ? v.phase === 'predicted'
      ? 'refused'
      : 'violated'
    : v.obligations.length > 0
      ? 'pending'
      : 'ok';
  const verdict =
    status === 'refused' || status === 'violated'
      ? `${status}: rule "${v.rule ?? '?'}" on ${v.proposition ?? '?'}`
      : status === 'pending'
        ? `ok · pending: ${v.obligations.join('; ')}`
        : 'ok';
  const states = v.rules.map((r) => `${r.name} {${r.states.join(', ')}}${r.viable ? '' : ' broken'}`).join(', ');
  return { status, text: `#${v.seq} (chain ${v.hash.slice(0, 12)}) ${v.phase} ${v.tool} — ${verdict} · ${states}` };
}

/**
 * The rules' verdicts the replay shows at position `at` (a tool loop run with a rules file): those of the last instant
 * at or before it (the axis is time, and one call's verdicts can share a millisecond), numbered among all, each with
 * its event's seq and chain hash; the status is the gravest of them. Null when the run has no verdicts.
 */
export function rulesAt(replay: AuditReplay, at: number): { status: RuleStatus; text: string } | null {
  const all = replay.rules;
  if (all.length === 0) return null;
  let k = -1;
  for (let i = 0; i < all.length && all[i]!.at <= at; i++) k = i;
  if (k < 0) return { status: 'none', text: `rules: ${plural(all.length, 'verdict')} in this run, none yet` };
  let j = k;
  while (j > 0 && all[j - 1]!.at === all[k]!.at) j--;
  const shown = all.slice(j, k + 1).map(verdictText);
  const status = shown.reduce<RuleStatus>(
    (s, x) => (SEVERITY.indexOf(x.status) > SEVERITY.indexOf(s) ? x.status : s),
    'none',
  );
  const which = j === k ? `verdict ${k + 1}` : `verdicts ${j + 1}–${k + 1}`;
  return { status, text: `rules, ${which} of ${all.length}: ${shown.map((x) => x.text).join(' | ')}` };
}
