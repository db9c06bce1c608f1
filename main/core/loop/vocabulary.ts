/**
 * The world's vocabulary and the registration-time check of CEL conditions against it (the seed's
 * "open problem": planner, verifier and world silently disagreeing on names). Every field, object
 * and proposition a tool or a specification mentions must exist, and every condition must
 * type-check as a boolean over the world's typed fields — before anything runs.
 */
import { parse } from '@bufbuild/cel';

export type FieldType = 'number' | 'string' | 'bool';

export interface Vocabulary {
  /** Typed state and sensor fields by dotted path, e.g. "gripper.width_cm": "number". */
  readonly fields: Readonly<Record<string, FieldType>>;
  /** Object names; `objects.<name>.<field>` reads `objectFields[field]`. */
  readonly objects: readonly string[];
  readonly objectFields: Readonly<Record<string, FieldType>>;
  /** Propositions specifications may use. */
  readonly propositions: readonly string[];
  /** Skills the world can execute. */
  readonly skills: readonly string[];
}

export class VocabularyError extends Error {
  override readonly name = 'VocabularyError';
}

type CelType = FieldType | 'any';

/** The closest name by edit distance, for "did you mean". */
export function closest(name: string, options: readonly string[]): string | null {
  let best: string | null = null, bd = Infinity;
  for (const o of options) {
    const d = editDistance(name, o);
    if (d < bd) {
      bd = d;
      best = o;
    }
  }
  return best !== null && bd <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

interface Expr {
  exprKind: { case: string; value: unknown };
}

const COMPARE = new Set(['_<_', '_<=_', '_>_', '_>=_']);
const ARITH = new Set(['_+_', '_-_', '_*_', '_/_']);

/** Dotted path of a select chain (a.b.c), or null when it is not a plain path. */
function pathOf(e: Expr): string | null {
  const k = e.exprKind;
  if (k.case === 'identExpr') return (k.value as { name: string }).name;
  if (k.case === 'selectExpr') {
    const v = k.value as { operand: Expr; field: string };
    const base = pathOf(v.operand);
    return base === null ? null : `${base}.${v.field}`;
  }
  return null;
}

/** The fields a condition reads (the evidence to record when it fails). */
export function fieldsRead(expr: string): string[] {
  const out = new Set<string>();
  const walk = (e: Expr): void => {
    const p = pathOf(e);
    if (p !== null) {
      out.add(p);
      return;
    }
    const k = e.exprKind;
    if (k.case === 'callExpr') {
      const v = k.value as { target?: Expr; args: Expr[] };
      if (v.target) walk(v.target);
      v.args.forEach(walk);
    }
  };
  walk(parse(expr).expr as unknown as Expr);
  return [...out];
}

/** Type-checks a condition against the vocabulary; it must be boolean. Throws VocabularyError naming the problem. */
export function checkCondition(expr: string, v: Vocabulary): void {
  let ast: Expr;
  try {
    ast = parse(expr).expr as unknown as Expr;
  } catch (e) {
    throw new VocabularyError(`not a CEL expression: ${e instanceof Error ? e.message : String(e)}`);
  }
  const t = typeOf(ast, v);
  if (t !== 'bool' && t !== 'any') throw new VocabularyError(`the condition is a ${t}, not a boolean`);
}

function typeOfPath(path: string, v: Vocabulary): CelType {
  const parts = path.split('.');
  if (parts[0] === 'objects') {
    if (parts.length !== 3) throw new VocabularyError(`"${path}": object fields are read as objects.<object>.<field>`);
    const obj = parts[1]!, field = parts[2]!;
    if (!v.objects.includes(obj)) {
      const hint = closest(obj, v.objects);
      throw new VocabularyError(`unknown object "${obj}" in ${path}${hint ? ` (did you mean ${hint}?)` : ''}; the world has ${v.objects.join(', ')}`);
    }
    const ft = v.objectFields[field];
    if (ft === undefined) {
      const hint = closest(field, Object.keys(v.objectFields));
      throw new VocabularyError(`objects have no field "${field}" (${path})${hint ? `; did you mean ${hint}?` : ''}; they have ${Object.keys(v.objectFields).join(', ')}`);
    }
    return ft;
  }
  const ft = v.fields[path];
  if (ft === undefined) {
    const hint = closest(path, Object.keys(v.fields));
    throw new VocabularyError(`unknown field "${path}"${hint ? ` (did you mean ${hint}?)` : ''}`);
  }
  return ft;
}

function typeOf(e: Expr, v: Vocabulary): CelType {
  const path = pathOf(e);
  if (path !== null) return typeOfPath(path, v);
  const k = e.exprKind;
  if (k.case === 'constExpr') {
    const c = (k.value as { constantKind: { case: string } }).constantKind.case;
    if (c === 'doubleValue' || c === 'int64Value' || c === 'uint64Value') return 'number';
    if (c === 'stringValue') return 'string';
    if (c === 'boolValue') return 'bool';
    throw new VocabularyError(`constants of kind ${c} are not supported in conditions`);
  }
  if (k.case !== 'callExpr') throw new VocabularyError(`${k.case.replace(/Expr$/, '')} expressions are not supported in conditions`);
  const call = k.value as { function: string; target?: Expr; args: Expr[] };
  const args = call.args.map((a) => typeOf(a, v));
  const f = call.function;
  const want = (ts: CelType[], ok: FieldType, what: string): void => {
    for (const t of ts) if (t !== ok && t !== 'any') throw new VocabularyError(`${what} needs ${ok} operands, got ${ts.join(' and ')}`);
  };
  if (f === '_&&_' || f === '_||_') {
    want(args, 'bool', f === '_&&_' ? '&&' : '||');
    return 'bool';
  }
  if (f === '!_') {
    want(args, 'bool', '!');
    return 'bool';
  }
  if (f === '_==_' || f === '_!=_') {
    const [a, b] = args;
    if (a !== b && a !== 'any' && b !== 'any') throw new VocabularyError(`${f.replace(/_/g, '')} compares a ${a} with a ${b}`);
    return 'bool';
  }
  if (COMPARE.has(f)) {
    const [a, b] = args;
    if (!(a === b && (a === 'number' || a === 'string'))) throw new VocabularyError(`${f.replace(/_/g, '')} needs two numbers or two strings, got ${a} and ${b}`);
    return 'bool';
  }
  if (ARITH.has(f)) {
    want(args, 'number', f.replace(/_/g, ''));
    return 'number';
  }
  if (f === '-_') {
    want(args, 'number', 'negation');
    return 'number';
  }
  if (f === '_?_:_') {
    want([args[0]!], 'bool', 'a condition');
    if (args[1] !== args[2]) throw new VocabularyError(`the branches of ?: are a ${args[1]} and a ${args[2]}`);
    return args[1]!;
  }
  throw new VocabularyError(`function ${f} is not supported in tool conditions`);
}
