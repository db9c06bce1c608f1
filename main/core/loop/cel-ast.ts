/**
 * The parts of a CEL condition's syntax tree the loop reasons about: references (names, field
 * selections and map indexes such as `objects[args.target].on`). The type checker types them and
 * the verifier reads them back as evidence, so both work from the same notion of "what a condition
 * reads".
 */
import { parse } from '@bufbuild/cel';

/** The slice of @bufbuild/cel's Expr message we walk (its generated type is not exported in a usable form). */
export interface Expr {
  exprKind: { case: string; value: unknown };
}

/** A reference: a name, a field of a reference, or a reference indexed by a string constant or another reference. */
export type Ref =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'field'; readonly of: Ref; readonly field: string }
  | {
      readonly kind: 'index';
      readonly of: Ref;
      readonly key: Ref | { readonly kind: 'const'; readonly value: string };
    };

export function parseExpr(expr: string): Expr {
  return parse(expr).expr as unknown as Expr;
}

/** The reference an expression is, or null (a call, a constant, a `has()` test). */
export function toRef(e: Expr): Ref | null {
  const k = e.exprKind;
  if (k.case === 'identExpr') return { kind: 'name', name: (k.value as { name: string }).name };
  if (k.case === 'selectExpr') {
    const v = k.value as { operand: Expr; field: string; testOnly: boolean };
    if (v.testOnly) return null;
    const of = toRef(v.operand);
    return of === null ? null : { kind: 'field', of, field: v.field };
  }
  if (k.case === 'callExpr') {
    const v = k.value as { function: string; target?: Expr; args: Expr[] };
    if (v.function !== '_[_]' || v.args.length !== 2) return null;
    const of = toRef(v.args[0]!);
    if (of === null) return null;
    const key = v.args[1]!.exprKind;
    if (key.case === 'constExpr') {
      const c = (key.value as { constantKind: { case: string; value: unknown } }).constantKind;
      return c.case === 'stringValue' ? { kind: 'index', of, key: { kind: 'const', value: c.value as string } } : null;
    }
    const kr = toRef(v.args[1]!);
    return kr === null ? null : { kind: 'index', of, key: kr };
  }
  return null;
}

/** A dotted path when the reference has no index (gripper.width_cm), else null. */
export function plainPath(r: Ref): string | null {
  if (r.kind === 'name') return r.name;
  if (r.kind === 'index') return null;
  const base = plainPath(r.of);
  return base === null ? null : `${base}.${r.field}`;
}

/** The reference as written (objects[args.target].on). */
export function refText(r: Ref): string {
  if (r.kind === 'name') return r.name;
  if (r.kind === 'field') return `${refText(r.of)}.${r.field}`;
  return `${refText(r.of)}[${r.key.kind === 'const' ? JSON.stringify(r.key.value) : refText(r.key)}]`;
}

/** The outermost name of a reference (args, pre, gripper, objects, …). */
export function rootName(r: Ref): string {
  return r.kind === 'name' ? r.name : rootName(r.of);
}

/** Conditions whose references are kept: a loop reads the same few conditions at every call. */
const REFERENCES_KEPT = 1024;
const kept = new Map<string, readonly Ref[]>();

/**
 * Everything a condition reads: each maximal reference, and the references used as index keys
 * inside them (objects[args.target].on reads args.target too). `has(args.x)` reads args.x.
 * Parsed once per condition (up to REFERENCES_KEPT of them).
 */
export function references(expr: string): readonly Ref[] {
  let r = kept.get(expr);
  if (r === undefined) {
    r = Object.freeze(readReferences(expr));
    if (kept.size >= REFERENCES_KEPT) kept.clear();
    kept.set(expr, r);
  }
  return r;
}

function readReferences(expr: string): Ref[] {
  const out: Ref[] = [];
  const seen = new Set<string>();
  const add = (r: Ref): void => {
    const t = refText(r);
    if (!seen.has(t)) {
      seen.add(t);
      out.push(r);
    }
    for (let x: Ref = r; x.kind !== 'name'; x = x.of) if (x.kind === 'index' && x.key.kind !== 'const') add(x.key);
  };
  const walk = (e: Expr): void => {
    const r = toRef(e);
    if (r !== null) {
      add(r);
      return;
    }
    const k = e.exprKind;
    if (k.case === 'selectExpr') {
      const v = k.value as { operand: Expr; field: string };
      const of = toRef(v.operand);
      if (of !== null) add({ kind: 'field', of, field: v.field });
      else walk(v.operand);
    }
    if (k.case === 'callExpr') {
      const v = k.value as { target?: Expr; args: Expr[] };
      if (v.target) walk(v.target);
      v.args.forEach(walk);
    }
  };
  walk(parseExpr(expr));
  return out;
}
