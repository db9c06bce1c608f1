/** Evaluating registered CEL conditions on an observed world state (sensor evidence, never a return code). */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { fieldsRead } from './vocabulary.js';

/** The observed state: nested plain values, read as CEL bindings (top-level names are variables). */
export type WorldState = Readonly<Record<string, unknown>>;

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

/** true / false, or an error message when the state lacks what the condition reads. */
export function holds(expr: string, state: WorldState): boolean | string {
  const r = compiled(expr)(state as Record<string, CelInput>);
  if (isCelError(r)) return `cannot evaluate "${expr}": ${(r as { message?: string }).message ?? String(r)}`;
  if (typeof r !== 'boolean') return `"${expr}" is not a boolean on this state`;
  return r;
}

/** The values of the fields a condition reads, as observed (the evidence of a failure record). */
export function observed(expr: string, state: WorldState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of fieldsRead(expr)) {
    let v: unknown = state;
    for (const p of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
    out[path] = v;
  }
  return out;
}
