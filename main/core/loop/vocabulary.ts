/**
 * The world's vocabulary and the registration-time check of CEL conditions against it (the seed's
 * "open problem": planner, verifier and world silently disagreeing on names). Every field, object
 * and proposition a tool or a specification mentions must exist, and every condition must
 * type-check as a boolean over the world's typed fields — before anything runs. Tool conditions
 * may also read the call's arguments (`args.<name>`, typed from the tool's argument schema) and,
 * in postconditions and failure rules, the state observed just before the call (`pre.<field>`), and
 * in failure rules the world error of a failed execution (`error.kind`, `error.message`); the
 * objects map may be indexed by a string (`objects[args.target].on`).
 */
import { WitnessError } from '../../contract/errors.js';
import { nestingBeyond } from '../input/nesting.js';
import { type Expr, type Ref, parseExpr, plainPath, refText, toRef } from './cel-ast.js';

type FieldType = 'number' | 'string' | 'bool';

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

export class VocabularyError extends WitnessError {
  override readonly name = 'VocabularyError';
  constructor(message: string) {
    super('invalid-input', message);
  }
}

type CelType = FieldType | 'any';

/** An argument's type for conditions, or why a condition cannot read it (an array, an object…). */
export type ArgType = FieldType | { readonly unsupported: string };

/** Where a condition is evaluated, which decides the names it may read beyond the world's fields. */
export interface ConditionScope {
  readonly where: 'precondition' | 'postcondition' | 'failure rule' | 'goal' | 'rule proposition';
  /** The tool (for messages) and its arguments by name; `args` is unbound without them. */
  readonly tool?: string;
  readonly args?: Readonly<Record<string, ArgType>>;
}

const GOAL_SCOPE: ConditionScope = { where: 'goal' };

/** The closest name by edit distance, for "did you mean". */
export function closest(name: string, options: readonly string[]): string | null {
  let best: string | null = null,
    bd = Infinity;
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

/** A typed reference: a value, or something that is not one yet (a map, an object, a group of fields). */
type Typed =
  | { readonly t: 'value'; readonly type: CelType }
  | { readonly t: 'objects' | 'object' | 'group'; readonly label: string; readonly fields: readonly string[] };

const COMPARE = new Set(['_<_', '_<=_', '_>_', '_>=_']);
const ARITH = new Set(['_+_', '_-_', '_*_', '_/_']);

const value = (type: CelType): Typed => ({ t: 'value', type });
const hinted = (name: string, options: readonly string[], sep = ' '): string => {
  const h = closest(name, options);
  return h ? `${sep}(did you mean ${h}?)` : '';
};

/** The longest condition accepted, in characters: real conditions are a line or two. */
const MAX_CONDITION_LENGTH = 4096;
/** The deepest nesting of brackets accepted in a condition (CEL's parser recurses on each level). */
const MAX_CONDITION_NESTING = 64;

/** Type-checks a condition against the vocabulary; it must be boolean. Throws VocabularyError naming the problem. */
export function checkCondition(expr: string, v: Vocabulary, scope: ConditionScope = GOAL_SCOPE): void {
  if (expr.length > MAX_CONDITION_LENGTH)
    throw new VocabularyError(
      `the condition is ${expr.length} characters long; a condition is at most ${MAX_CONDITION_LENGTH}`,
    );
  const deep = nestingBeyond(expr, MAX_CONDITION_NESTING, { open: '([{', close: ')]}', quotes: '"\'' });
  if (deep >= 0)
    throw new VocabularyError(
      `the condition nests brackets deeper than ${MAX_CONDITION_NESTING} levels (at character ${deep + 1})`,
    );
  let ast: Expr;
  try {
    ast = parseExpr(expr);
  } catch (e) {
    throw new VocabularyError(`not a CEL expression: ${e instanceof Error ? e.message : String(e)}`);
  }
  const t = typeOf(ast, v, scope);
  if (t !== 'bool' && t !== 'any') throw new VocabularyError(`the condition is a ${t}, not a boolean`);
}

function argsPath(parts: readonly string[], path: string, s: ConditionScope): Typed {
  if (s.args === undefined)
    throw new VocabularyError(
      `"${path}": args (the call's arguments) is bound only in a tool's conditions, not in a ${s.where}`,
    );
  const names = Object.keys(s.args);
  if (parts.length === 1) return { t: 'group', label: 'args', fields: names };
  const name = parts[1]!;
  const at = s.args[name];
  const tool = s.tool ?? 'the tool';
  if (at === undefined) {
    throw new VocabularyError(
      `unknown argument "${name}" in ${path}${hinted(name, names)}; ${tool} ${names.length > 0 ? `takes ${names.join(', ')}` : 'takes no arguments'}`,
    );
  }
  if (typeof at !== 'string')
    throw new VocabularyError(
      `${path}: argument "${name}" is ${at.unsupported}; conditions read string, number, integer and boolean arguments`,
    );
  if (parts.length > 2) throw new VocabularyError(`${path}: argument "${name}" is a ${at} and has no fields`);
  return value(at);
}

/** A world path (after `pre.` when `prefix` is "pre."). */
function worldPath(parts: readonly string[], prefix: string, v: Vocabulary): Typed {
  const path = prefix + parts.join('.');
  const objFields = Object.keys(v.objectFields);
  if (parts[0] === 'objects') {
    if (parts.length === 1) return { t: 'objects', label: path, fields: objFields };
    const obj = parts[1]!;
    if (!v.objects.includes(obj))
      throw new VocabularyError(
        `unknown object "${obj}" in ${path}${hinted(obj, v.objects)}; the world has ${v.objects.join(', ')}`,
      );
    if (parts.length === 2) return { t: 'object', label: path, fields: objFields };
    if (parts.length > 3)
      throw new VocabularyError(`"${path}": object fields are read as ${prefix}objects.<object>.<field>`);
    return objectField(parts[2]!, path, v);
  }
  const p = parts.join('.');
  const ft = v.fields[p];
  if (ft !== undefined) return value(ft);
  const below = Object.keys(v.fields).filter((f) => f.startsWith(`${p}.`));
  if (below.length > 0) return { t: 'group', label: path, fields: below.map((f) => f.slice(p.length + 1)) };
  const hint = closest(p, Object.keys(v.fields));
  throw new VocabularyError(`unknown field "${path}"${hint ? ` (did you mean ${prefix}${hint}?)` : ''}`);
}

function objectField(field: string, path: string, v: Vocabulary): Typed {
  const ft = v.objectFields[field];
  if (ft === undefined) {
    const names = Object.keys(v.objectFields);
    throw new VocabularyError(
      `objects have no field "${field}" (${path})${hinted(field, names, '; ')}; they have ${names.join(', ')}`,
    );
  }
  return value(ft);
}

/** What `error.<field>` is in a failure rule: the world error of a failed execution. */
const ERROR_FIELDS: Readonly<Record<string, FieldType>> = { kind: 'string', message: 'string' };

function errorPath(parts: readonly string[], path: string, s: ConditionScope): Typed {
  if (s.where !== 'failure rule')
    throw new VocabularyError(
      `"${path}": error (the world error of a failed execution) is bound in failure rules only, not in a ${s.where}`,
    );
  if (parts.length === 1) return { t: 'group', label: 'error', fields: Object.keys(ERROR_FIELDS) };
  const f = ERROR_FIELDS[parts[1]!];
  if (f === undefined || parts.length > 2)
    throw new VocabularyError(
      `unknown field "${path}"${hinted(parts.slice(1).join('.'), Object.keys(ERROR_FIELDS))}; error has kind and message`,
    );
  return value(f);
}

/**
 * What `call.<field>` is in a rules file's proposition: the call's tool name, and its arguments (any
 * type: they differ from tool to tool).
 */
function callPath(parts: readonly string[], path: string): Typed {
  if (parts.length === 1) return { t: 'group', label: 'call', fields: ['tool', 'args'] };
  if (parts[1] === 'tool' && parts.length === 2) return value('string');
  if (parts[1] === 'args') return parts.length === 2 ? { t: 'group', label: path, fields: [] } : value('any');
  throw new VocabularyError(
    `unknown field "${path}"${hinted(parts.slice(1).join('.'), ['tool', 'args'])}; call has tool and args.<name>`,
  );
}

function typeOfPath(path: string, v: Vocabulary, s: ConditionScope): Typed {
  const parts = path.split('.');
  if (parts[0] === 'call' && s.where === 'rule proposition') return callPath(parts, path);
  if (parts[0] === 'args') return argsPath(parts, path, s);
  // In failure rules `error` is the binding; elsewhere it is a world field if the world has one.
  if (
    parts[0] === 'error' &&
    (s.where === 'failure rule' || !Object.keys(v.fields).some((f) => f.startsWith('error.')))
  )
    return errorPath(parts, path, s);
  if (parts[0] === 'pre') {
    if (s.where !== 'postcondition' && s.where !== 'failure rule') {
      const now = parts.length > 1 ? `, as ${parts.slice(1).join('.')}` : '';
      throw new VocabularyError(
        s.where === 'precondition'
          ? `"${path}": pre (the state observed just before the call) is bound in postconditions and failure rules only; a precondition is checked on that state already, so read it directly${now}`
          : `"${path}": pre (the state observed just before the call) is bound in postconditions and failure rules only, not in a ${s.where}`,
      );
    }
    if (parts.length === 1)
      return {
        t: 'group',
        label: 'pre',
        fields: ['objects', ...new Set(Object.keys(v.fields).map((f) => f.split('.')[0]!))],
      };
    return worldPath(parts.slice(1), 'pre.', v);
  }
  return worldPath(parts, '', v);
}

function typeOfRef(r: Ref, v: Vocabulary, s: ConditionScope): Typed {
  const path = plainPath(r);
  if (path !== null) return typeOfPath(path, v, s);
  if (r.kind === 'index') {
    const base = typeOfRef(r.of, v, s);
    if (base.t !== 'objects')
      throw new VocabularyError(
        `${refText(r)}: only the objects map can be indexed; ${refText(r.of)} ${base.t === 'value' ? `is a ${base.type}` : 'is not a map'}`,
      );
    if (r.key.kind === 'const') {
      if (!v.objects.includes(r.key.value))
        throw new VocabularyError(
          `unknown object "${r.key.value}" in ${refText(r)}${hinted(r.key.value, v.objects)}; the world has ${v.objects.join(', ')}`,
        );
    } else {
      const k = asValue(typeOfRef(r.key, v, s), refText(r.key));
      if (k !== 'string' && k !== 'any')
        throw new VocabularyError(`${refText(r)}: objects are indexed by name (a string); ${refText(r.key)} is a ${k}`);
    }
    return { t: 'object', label: refText(r), fields: base.fields };
  }
  if (r.kind === 'field') {
    const base = typeOfRef(r.of, v, s);
    if (base.t === 'object') return objectField(r.field, refText(r), v);
    throw new VocabularyError(
      `${refText(r)}: ${refText(r.of)} ${base.t === 'value' ? `is a ${base.type} and has no fields` : `has no field "${r.field}"`}`,
    );
  }
  throw new VocabularyError(`unknown name "${r.name}"`);
}

/** A reference used as a value: maps, objects and groups of fields are not values. */
function asValue(t: Typed, text: string): CelType {
  if (t.t === 'value') return t.type;
  const what = t.t === 'objects' ? 'the map of objects' : t.t === 'object' ? 'an object' : 'not a value';
  throw new VocabularyError(
    `"${text}" is ${what}; read one of its fields (${t.fields.join(', ')})${t.t === 'objects' ? `, as ${text}.<object>.<field> or ${text}[<name>].<field>` : ''}`,
  );
}

function typeOf(e: Expr, v: Vocabulary, s: ConditionScope): CelType {
  const ref = toRef(e);
  if (ref !== null) return asValue(typeOfRef(ref, v, s), refText(ref));
  const k = e.exprKind;
  if (k.case === 'constExpr') {
    const c = (k.value as { constantKind: { case: string } }).constantKind.case;
    if (c === 'doubleValue' || c === 'int64Value' || c === 'uint64Value') return 'number';
    if (c === 'stringValue') return 'string';
    if (c === 'boolValue') return 'bool';
    throw new VocabularyError(`constants of kind ${c} are not supported in conditions`);
  }
  if (k.case === 'selectExpr') {
    // has(x.f): only meaningful for optional arguments (the world's fields are always observed).
    const sel = k.value as { operand: Expr; field: string; testOnly: boolean };
    const of = toRef(sel.operand);
    if (sel.testOnly && of !== null && plainPath(of) === 'args') {
      argsPath(['args', sel.field], `args.${sel.field}`, s);
      return 'bool';
    }
    if (sel.testOnly && of !== null && plainPath(of) === 'call.args' && s.where === 'rule proposition') return 'bool';
    if (sel.testOnly) throw new VocabularyError('has() tests whether an optional argument was given: has(args.<name>)');
    typeOf(sel.operand, v, s); // the precise complaint about the operand, when it has one
    throw new VocabularyError(`.${sel.field} is read from something that is not a field, an object or an argument`);
  }
  if (k.case !== 'callExpr')
    throw new VocabularyError(`${k.case.replace(/Expr$/, '')} expressions are not supported in conditions`);
  const call = k.value as { function: string; target?: Expr; args: Expr[] };
  const f = call.function;
  if (f === '_[_]')
    throw new VocabularyError(
      'an index must be an object name in quotes or a string field or argument, as objects[args.target]',
    );
  const args = call.args.map((a) => typeOf(a, v, s));
  const want = (ts: CelType[], ok: FieldType, what: string): void => {
    for (const t of ts)
      if (t !== ok && t !== 'any') throw new VocabularyError(`${what} needs ${ok} operands, got ${ts.join(' and ')}`);
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
    if (a !== b && a !== 'any' && b !== 'any')
      throw new VocabularyError(`${f.replace(/_/g, '')} compares a ${a} with a ${b}`);
    return 'bool';
  }
  if (COMPARE.has(f)) {
    const [a, b] = args;
    if (!(a === b && (a === 'number' || a === 'string')))
      throw new VocabularyError(`${f.replace(/_/g, '')} needs two numbers or two strings, got ${a} and ${b}`);
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
