/** Schema helpers shared by the contract's TypeBox definitions. */
import { type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/**
 * One of a fixed set of strings, as the JSON Schema `enum` (which editors offer as completions and
 * validators report as "one of the allowed values"), typed as the union of the strings.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The keys a reader looks for first, in this order; the others follow as they came. */
const FIRST = [
  '$schema',
  '$id',
  'title',
  'description',
  'type',
  'enum',
  'const',
  'required',
  'additionalProperties',
  'properties',
  'items',
];

/** Schema keywords in a reader's order; a map of names to schemas (properties, $defs) keeps its own order. */
function ordered(v: unknown, names = false): unknown {
  if (Array.isArray(v)) return v.map((x) => ordered(x));
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = names
    ? Object.keys(o)
    : [...FIRST.filter((k) => k in o), ...Object.keys(o).filter((k) => !FIRST.includes(k))];
  return Object.fromEntries(
    keys.map((k) => [k, ordered(o[k], !names && (k === 'properties' || k === 'patternProperties' || k === '$defs'))]),
  );
}

/**
 * A schema as plain JSON data, keys in a reader's order (TypeBox's own bookkeeping is not part of
 * it): what docs/schemas/ publishes and what the MCAP export attaches to its channels.
 */
export function jsonSchema(s: TSchema): Record<string, unknown> {
  return ordered(JSON.parse(JSON.stringify(s))) as Record<string, unknown>;
}
