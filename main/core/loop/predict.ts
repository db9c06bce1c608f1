/**
 * The state a tool's declared postconditions lead one to expect after a call: the state observed
 * before it, with what the postconditions pin down set (`gripper.holding == args.target` sets the
 * field to the argument; a bare boolean field sets it true, its negation false; conjunctions are read
 * part by part), and every field they constrain without pinning it down (`gripper.width_cm > 1.5`)
 * named as unknown. Fields no postcondition mentions are expected unchanged. Pure.
 */
import type { RegisteredTool } from './tools.js';
import type { WorldState } from './conditions.js';
import { type Expr, type Ref, parseExpr, rootName, toRef } from './cel-ast.js';

export interface Prediction {
  readonly state: WorldState;
  /** Path patterns (`*` for an index by a name not known in advance) the postconditions leave open. */
  readonly unknown: readonly string[];
}

type Ctx = Readonly<Record<string, unknown>>;

const has = (o: unknown, k: string): boolean => o !== null && typeof o === 'object' && Object.hasOwn(o, k);

/** The concrete segments a reference names on this context (index keys read), or null when one cannot be read. */
function segments(r: Ref, ctx: Ctx): string[] | null {
  if (r.kind === 'name') return [r.name];
  const base = segments(r.of, ctx);
  if (base === null) return null;
  if (r.kind === 'field') return [...base, r.field];
  if (r.key.kind === 'const') return [...base, r.key.value];
  const k = valueOf(r.key, ctx);
  return typeof k.value === 'string' ? [...base, k.value] : null;
}

function valueOf(r: Ref, ctx: Ctx): { ok: boolean; value?: unknown } {
  const segs = segments(r, ctx);
  if (segs === null) return { ok: false };
  let v: unknown = ctx;
  for (const s of segs) {
    if (!has(v, s)) return { ok: false };
    v = (v as Record<string, unknown>)[s];
  }
  return { ok: true, value: v };
}

function constant(e: Expr): { ok: boolean; value?: unknown } {
  const k = e.exprKind;
  if (k.case !== 'constExpr') return { ok: false };
  const c = (k.value as { constantKind: { case: string; value: unknown } }).constantKind;
  if (c.case === 'stringValue' || c.case === 'boolValue' || c.case === 'doubleValue')
    return { ok: true, value: c.value };
  if (c.case === 'int64Value' || c.case === 'uint64Value') return { ok: true, value: Number(c.value) };
  return { ok: false };
}

const isWorld = (r: Ref): boolean => !['args', 'pre', 'error'].includes(rootName(r));

function setPath(state: Record<string, unknown>, segs: readonly string[], value: unknown): void {
  let o = state;
  for (const s of segs.slice(0, -1)) {
    const next = o[s];
    const copy = next !== null && typeof next === 'object' ? { ...(next as Record<string, unknown>) } : {};
    o[s] = copy;
    o = copy;
  }
  o[segs[segs.length - 1]!] = value;
}

function patternOf(r: Ref): string {
  if (r.kind === 'name') return r.name;
  if (r.kind === 'field') return `${patternOf(r.of)}.${r.field}`;
  return `${patternOf(r.of)}.${r.key.kind === 'const' ? r.key.value : '*'}`;
}

interface Effects {
  readonly sets: { segs: string[]; value: unknown }[];
  readonly unknown: string[];
}

/** What one (sub)condition says of the state after the call; whatever world field it reads and does not pin is open. */
function effects(e: Expr, ctx: Ctx, out: Effects): void {
  const k = e.exprKind;
  const ref = toRef(e);
  const open = (): void => collectRefs(e, out.unknown);
  if (ref !== null && isWorld(ref)) {
    const segs = segments(ref, ctx);
    if (segs === null) return open();
    out.sets.push({ segs, value: true });
    return;
  }
  if (k.case !== 'callExpr') return open();
  const call = k.value as { function: string; args: Expr[] };
  if (call.function === '_&&_') {
    call.args.forEach((a) => effects(a, ctx, out));
    return;
  }
  if (call.function === '!_') {
    const r = toRef(call.args[0]!);
    const segs = r !== null && isWorld(r) ? segments(r, ctx) : null;
    if (segs === null) return open();
    out.sets.push({ segs, value: false });
    return;
  }
  if (call.function === '_==_') {
    const [a, b] = call.args as [Expr, Expr];
    for (const [l, rhs] of [
      [a, b],
      [b, a],
    ] as const) {
      const lr = toRef(l);
      if (lr === null || !isWorld(lr)) continue;
      const segs = segments(lr, ctx);
      const rr = toRef(rhs);
      const v = rr !== null && !isWorld(rr) ? valueOf(rr, ctx) : constant(rhs);
      if (segs !== null && v.ok) {
        out.sets.push({ segs, value: v.value });
        return;
      }
    }
  }
  open();
}

function collectRefs(e: Expr, out: string[]): void {
  const r = toRef(e);
  if (r !== null) {
    if (isWorld(r)) out.push(patternOf(r));
    return;
  }
  const k = e.exprKind;
  if (k.case === 'callExpr') {
    const v = k.value as { target?: Expr; args: Expr[] };
    if (v.target) collectRefs(v.target, out);
    v.args.forEach((x) => collectRefs(x, out));
  }
  if (k.case === 'selectExpr') collectRefs((k.value as { operand: Expr }).operand, out);
}

/** Parsed postconditions, by text: the same few are read at every call. */
const parsed = new Map<string, Expr>();
function parsedExpr(expr: string): Expr {
  let e = parsed.get(expr);
  if (e === undefined) {
    e = parseExpr(expr);
    if (parsed.size >= 1024) parsed.clear();
    parsed.set(expr, e);
  }
  return e;
}

/** The state expected after calling `tool` with `args` on `state`, by its declared postconditions. */
export function predictState(tool: RegisteredTool, args: unknown, state: WorldState): Prediction {
  const ctx: Ctx = { ...state, args, pre: state };
  const out: Effects = { sets: [], unknown: [] };
  for (const c of tool.postconditions) effects(parsedExpr(c.expr), ctx, out);
  const next = { ...state } as Record<string, unknown>;
  for (const s of out.sets) setPath(next, s.segs, s.value);
  return { state: next, unknown: [...new Set(out.unknown)] };
}
