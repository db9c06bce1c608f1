/** Reading fields of stored event bodies (JSON of any shape, written by any version): never throws. */

/** An object field, or {} for anything else. */
export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** A finite number, or null. */
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** A body field as text (strings as they are, anything else as JSON, nothing as ''). */
export const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
