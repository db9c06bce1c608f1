/**
 * The audit browser's fleet store mode, its pure part: the sources filter the controls describe (robot, world, host
 * exactly; a time range as dates, date-times in UTC or "that long ago"), and the texts the pane shows of the sources
 * and of a source's mirroring. No DOM and no network here (fleet.ts draws it and asks main).
 */
import type { FleetMirrorResult, FleetSource, FleetSourceFilter } from '../../../main/contract/api.js';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What the sources filter controls hold ('' for any). */
export interface SourceFields {
  robot: string;
  world: string;
  host: string;
  since: string;
  until: string;
}

export type SourceFilterResult =
  { ok: true; filter: FleetSourceFilter } | { ok: false; error: string; invalid: readonly ('since' | 'until')[] };

const AGO = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1e3, m: 60e3, h: 3600e3, d: 86_400e3, w: 7 * 86_400e3 };

/**
 * A time the operator typed, as ms since 1970: an ISO 8601 date (`2026-12-05`, midnight UTC) or date-time
 * (`2026-12-05 07:30`, `2026-12-05T07:30:00Z`; without a zone it is UTC, as the browser shows times), or a span
 * before `now` (`30m`, `12h`, `7d`, `2w`). Undefined for an empty field, null for one that is none of these.
 */
export function parseWhen(text: string, now: number): number | undefined | null {
  const t = text.trim();
  if (t === '') return undefined;
  const ago = AGO.exec(t);
  if (ago !== null) return now - Number(ago[1]) * UNIT_MS[ago[2]!]!;
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?$/i.exec(t);
  if (iso === null) return null;
  const zoned = iso[4] !== undefined || iso[1] === undefined ? t : `${t}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}

/** The filter the controls describe, or why they describe none (and which fields are wrong). */
export function sourceFilter(f: SourceFields, now: number): SourceFilterResult {
  const filter: FleetSourceFilter = {};
  if (f.robot !== '') filter.robot = f.robot;
  if (f.world !== '') filter.world = f.world;
  if (f.host !== '') filter.host = f.host;
  const invalid: ('since' | 'until')[] = [];
  let error = '';
  for (const name of ['since', 'until'] as const) {
    const v = parseWhen(f[name], now);
    if (v === null) {
      error ||= `${name}: "${f[name].trim()}" is not a date (2026-12-05), a UTC date-time (2026-12-05 07:30) or a span ago (30m, 12h, 7d)`;
      invalid.push(name);
    } else if (v !== undefined) filter[name === 'since' ? 'sinceMs' : 'untilMs'] = v;
  }
  if (invalid.length > 0) return { ok: false, error, invalid };
  if (filter.sinceMs !== undefined && filter.untilMs !== undefined && filter.sinceMs >= filter.untilMs)
    return { ok: false, error: 'time range: "until" must come after "since"', invalid: ['until'] };
  return { ok: true, filter };
}

/** A log id as the table shows it. */
export const shortId = (logId: string): string => logId.slice(0, 12);

/** A source in words: host/robot/short log id. */
export const sourceLabel = (s: { host: string; robot: string | null; logId: string }): string =>
  `${s.host}/${s.robot ?? '–'}/${shortId(s.logId)}`;

/** The line above the sources table. */
export function sourcesText(store: string, shown: number, filtered: boolean): string {
  if (shown === 0) return filtered ? `${store}: no source matches the filter` : `${store}: no source pushed yet`;
  return `${store}: ${plural(shown, 'source')}${filtered ? ` ${shown === 1 ? 'matches' : 'match'} the filter` : ''}`;
}

/**
 * While a source is pulled into its replica: the events pulled so far, and of how many when it is the first pull
 * (`total`: the source's events as listed; null when unknown).
 */
export function mirroringText(label: string, pulled: number, first: boolean, total: number | null = null): string {
  const what = first ? 'mirroring' : 'pulling new events of';
  if (pulled === 0) return `${what} ${label} from the store…`;
  const of =
    first && total !== null && total >= pulled ? `${pulled} of ${plural(total, 'event')}` : plural(pulled, 'event');
  return `${what} ${label} from the store: ${of} so far`;
}

/** A pull that landed: the replica, verified, and what it brought. */
export function mirroredText(label: string, r: FleetMirrorResult): string {
  return `${label}: verified replica of ${plural(r.events, 'event')}${r.pulled > 0 ? `, ${r.pulled} new` : ''} (following the store)`;
}

/** The worlds of a source as a table cell. */
export const worldsText = (s: FleetSource): string => (s.worlds.length === 0 ? '–' : s.worlds.join(', '));
