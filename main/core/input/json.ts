/**
 * Reading JSON documents that cross a file boundary: parse errors with line and column, JSON Schema
 * (2020-12, ajv) violations with the JSON path of the offending value, and one error type that
 * names the file, the path and the problem.
 */
import { WitnessError } from '../../contract/errors.js';
import { nestingBeyond } from './nesting.js';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { type ParseError, parse as locate, printParseErrorCode } from 'jsonc-parser';

export class InputError extends WitnessError {
  override readonly name = 'InputError';
  constructor(
    readonly file: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super('invalid-input', `${file}: ${path}: ${detail}`, { file, path });
  }
}

/**
 * The deepest nesting of arrays and objects a document may have. Every format Witness reads is a
 * few levels deep; a deeper document is hostile, and would overflow the stack of the recursive code
 * that reads it (the locating parser, schema validation, canonical JSON).
 */
export const MAX_JSON_DEPTH = 256;

const lineColumn = (text: string, offset: number): string => {
  const before = text.slice(0, offset);
  return `${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
};

/** What nesting deeper than MAX_JSON_DEPTH is called in every message. */
export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;

/**
 * Where JSON text first nests deeper than MAX_JSON_DEPTH, as "line:column", or null. Every JSON text
 * from outside (files, an LLM's replies and tool arguments, audit event bodies, API frames) passes
 * this before it is parsed, so that no recursive walk over the parsed value (schema validation,
 * canonical JSON, JSON.stringify) can overflow the stack. One pass, no allocation.
 */
export function jsonTooDeep(text: string): string | null {
  // Nesting past the limit takes more characters than the limit: a shorter text is not scanned.
  if (text.length <= MAX_JSON_DEPTH) return null;
  const deep = nestingBeyond(text, MAX_JSON_DEPTH, { open: '[{', close: ']}', quotes: '"' });
  return deep < 0 ? null : lineColumn(text, deep);
}

/**
 * Whether a value already parsed (an object a library handed over) nests arrays and objects deeper
 * than `max` (default MAX_JSON_DEPTH). Iterative, so a hostile value cannot overflow the stack here.
 */
export function valueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>))
      if (x !== null && typeof x === 'object') stack.push({ v: x, depth: depth + 1 });
  }
  return false;
}

/**
 * JSON.parse behind the nesting check, for readers that name their own errors (a binary file's
 * header, a model bundle's record): nesting deeper than MAX_JSON_DEPTH is a SyntaxError that says so
 * and where, as a syntax error is; the caller wraps either in its error for the file.
 */
export function parseJsonText(text: string): unknown {
  const deep = jsonTooDeep(text);
  if (deep !== null) throw new SyntaxError(`${TOO_DEEP} (at ${deep})`);
  return JSON.parse(text) as unknown;
}

/**
 * Parses JSON text (strict JSON: no comments, no trailing commas); a syntax error names the line and
 * column, and so does nesting deeper than MAX_JSON_DEPTH.
 */
export function parseJson(text: string, file: string): unknown {
  const deep = jsonTooDeep(text);
  if (deep !== null) throw new InputError(file, deep, TOO_DEEP);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    // JSON.parse does not say where; a scanning parser does.
    const errors: ParseError[] = [];
    locate(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (first === undefined)
      throw new InputError(file, '$', `not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = first.offset - before.lastIndexOf('\n');
    const what = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw new InputError(file, `${line}:${column}`, `not valid JSON: ${what}`);
  }
}

/** "/nodes/3/labels/0" → "$.nodes[3].labels[0]". */
export function jsonPath(pointer: string): string {
  if (pointer === '') return '$';
  return (
    '$' +
    pointer
      .split('/')
      .slice(1)
      .map((raw) => {
        const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        return /^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_$][\w$]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
      })
      .join('')
  );
}

const ajv = new Ajv2020({ allErrors: false, strict: true });
const compiled = new Map<object, ValidateFunction>();

function describe(e: ErrorObject): { path: string; detail: string } {
  const path = jsonPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path, detail: `missing required field "${String(p['missingProperty'])}"` };
    case 'additionalProperties':
      return { path, detail: `unknown field "${String(p['additionalProperty'])}"` };
    case 'type':
      return { path, detail: `must be ${String(p['type'])}` };
    default:
      return { path, detail: e.message ?? e.keyword };
  }
}

/** Validates against a JSON Schema; the first violation becomes an InputError. */
export function checkSchema<T>(schema: object, value: unknown, file: string): T {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const errors = validate.errors ?? [];
    const e = errors[0];
    if (e === undefined) throw new InputError(file, '$', 'does not match its schema');
    // A value that fits no branch of an anyOf: the branch of its own type says what is wrong; when
    // no branch has its type, every type it may have.
    const branches = errors.some((x) => x.keyword === 'anyOf') ? errors.filter((x) => x.keyword !== 'anyOf') : [];
    const own = branches.find((x) => x.keyword !== 'type');
    if (own === undefined && branches.length > 1) {
      throw new InputError(
        file,
        jsonPath(e.instancePath),
        `must be ${branches.map((x) => String((x.params as Record<string, unknown>)['type'])).join(' or ')}`,
      );
    }
    const d = describe(own ?? e);
    throw new InputError(file, d.path, d.detail);
  }
  return value as T;
}
