/** Evaluating registered CEL conditions on an observed world state (sensor evidence, never a return code). */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { type Ref, references, refText } from './cel-ast.js';

/** The observed state: nested plain values, read as CEL bindings (top-level names are variables). */
export type WorldState = Readonly<Record<string, unknown>>;

/**
 * What a tool condition reads besides the state: the call's validated arguments (`args`) and, after
 * the call, the state observed just before it (`pre`). These names shadow world fields of the same
 * name, so a world must not report top-level `args` or `pre`.
 */
export interface Bound {
  readonly args?: unknown;
  readonly pre?: WorldState;
  /**
   * In failure rules: the world error of a failed execution (`error.kind`, `error.message`; empty strings when there
   * was none).
   */
  readonly error?: { readonly kind: string; readonly message: string };
}

const env = celEnv();
const planned = new Map<string, (ctx?: Record<string, CelInput>) => unknown>();

function compiled(expr: string): (ctx?: Record<string, CelInput>) => unknown {
  let f = planned.get(expr);
  if (f === undefined) {
    f = plan(env, parse(expr));
    planned.set(expr, f);
  }
  return f;
}

function context(state: WorldState, b: Bound): Record<string, unknown> {
  if (b.args === undefined && b.pre === undefined && b.error === undefined) return state;
  return {
    ...state,
    ...(b.args !== undefined ? { args: b.args } : {}),
    ...(b.pre !== undefined ? { pre: b.pre } : {}),
    ...(b.error !== undefined ? { error: b.error } : {}),
  };
}

interface Resolved {
  /** The concrete path read: objects.tray.on for objects[args.target].on when args.target is "tray". */
  readonly path: string;
  readonly value: unknown;
  readonly error?: string;
  /** The error is a name looked up in a map of the state that has no entry by it (an object that is not there). */
  readonly missing?: Missing;
}

/** An entry a condition looked up by name that the observed state does not have: `key` in the map at `in` (objects). */
export interface Missing {
  readonly in: string;
  readonly key: string;
}

const has = (o: unknown, k: string): boolean => o !== null && typeof o === 'object' && Object.hasOwn(o, k);

/** Reads a reference the way CEL would, but says precisely what is missing when it cannot. */
function resolve(r: Ref, ctx: Record<string, unknown>): Resolved {
  if (r.kind === 'name')
    return has(ctx, r.name)
      ? { path: r.name, value: ctx[r.name] }
      : { path: r.name, value: undefined, error: `nothing is bound to "${r.name}"` };
  const base = resolve(r.of, ctx);
  if (r.kind === 'field') {
    const path = `${base.path}.${r.field}`;
    if (base.error !== undefined) return { ...base, path, value: undefined };
    if (has(base.value, r.field)) return { path, value: (base.value as Record<string, unknown>)[r.field] };
    const arg = r.of.kind === 'name' && r.of.name === 'args';
    return {
      path,
      value: undefined,
      error: arg
        ? `the call has no argument "${r.field}" (it is optional; test it with has(args.${r.field}))`
        : `the observed state has no ${path}`,
    };
  }
  const keyText = r.key.kind === 'const' ? JSON.stringify(r.key.value) : refText(r.key);
  if (base.error !== undefined) return { path: `${base.path}[${keyText}]`, value: undefined, error: base.error };
  let key: unknown = r.key.kind === 'const' ? r.key.value : undefined;
  if (r.key.kind !== 'const') {
    const k = resolve(r.key, ctx);
    if (k.error !== undefined) return { path: `${base.path}[${keyText}]`, value: undefined, error: k.error };
    key = k.value;
  }
  if (typeof key !== 'string')
    return {
      path: `${base.path}[${keyText}]`,
      value: undefined,
      error: `${keyText} is ${JSON.stringify(key)}, not a name to look up in ${base.path}`,
    };
  const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${base.path}.${key}` : `${base.path}[${JSON.stringify(key)}]`;
  if (has(base.value, key)) return { path, value: (base.value as Record<string, unknown>)[key] };
  const how = r.key.kind === 'const' ? '' : ` (${refText(r)} with ${keyText} = ${JSON.stringify(key)})`;
  return {
    path,
    value: undefined,
    error: `${base.path} has no key ${JSON.stringify(key)}${how}`,
    missing: { in: base.path, key },
  };
}

/**
 * The entry of the observed state a condition looked up by name and did not find (`objects` has no
 * "blue_tray": the object is not there), when that is why it cannot be evaluated; null otherwise.
 */
export function missingEntry(expr: string, state: WorldState, b: Bound = {}): Missing | null {
  const ctx = context(state, b);
  for (const ref of references(expr)) {
    const x = resolve(ref, ctx);
    if (x.error !== undefined) return x.missing ?? null;
  }
  return null;
}

/**
 * true / false, or an error message when the condition cannot be evaluated on this state (a key
 * missing from a map, an optional argument not given, a field the world did not report).
 */
export function holds(expr: string, state: WorldState, b: Bound = {}): boolean | string {
  const ctx = context(state, b);
  const r = compiled(expr)(ctx as Record<string, CelInput>);
  if (isCelError(r)) {
    const why = references(expr)
      .map((ref) => resolve(ref, ctx).error)
      .find((e) => e !== undefined);
    return `cannot evaluate "${expr}": ${why ?? (r as { message?: string }).message ?? String(r)}`;
  }
  if (typeof r !== 'boolean') return `"${expr}" is not a boolean on this state`;
  return r;
}

/**
 * The values a condition read, by concrete path, bound values included (args.target, pre.gripper.holding,
 * objects.tray.on): the evidence of a verifier result or a failure record. What could not be read is null.
 */
export function observed(expr: string, state: WorldState, b: Bound = {}): Record<string, unknown> {
  const ctx = context(state, b);
  const out: Record<string, unknown> = {};
  for (const ref of references(expr)) {
    const x = resolve(ref, ctx);
    out[x.path] = x.value === undefined ? null : x.value;
  }
  return out;
}
