/**
 * The time flags every audit read and report takes (`--since`, `--until`, `--from`, `--to`): a span back from now,
 * an ISO 8601 date or date-time, or milliseconds since 1970.
 */

const SPAN_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** What a time flag accepts, for messages. */
export const TIME_FLAG_SYNTAX =
  'a span back from now (7d, 12h, 30m, 45s, 2w), an ISO 8601 date or date-time (2025-01-31T12:00:00Z), or milliseconds since 1970';

/** A time flag's value in ms since 1970 (spans counted back from `now_ms`); null when it is none of the forms. */
export function parseTimeFlag(text: string, now_ms: number): number | null {
  const s = text.trim();
  const rel = /^(\d{1,9})([smhdw])$/.exec(s);
  if (rel !== null) return now_ms - Number(rel[1]) * SPAN_MS[rel[2]!]!;
  if (/^\d{1,16}$/.test(s)) return Number(s);
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}
