/**
 * Checks a tool-definition file for the editor: JSON syntax, the tool JSON Schema (every violation,
 * not just the first) and the registration checks against a world's vocabulary — the skill exists,
 * the argument schema compiles, every CEL condition type-checks over the world's fields — each at
 * the exact range of the offending text, down to the misspelled name inside a condition.
 *
 * It mirrors registerTools (main/core/loop/tools.ts) rather than calling it: registration stops at
 * the first problem and keeps every argument schema it compiled, while the editor checks on every
 * pause in typing and wants all problems. test/api/editor-tools.test.ts holds the two to the same
 * verdicts and messages.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  type JSONPath,
  type Node,
  type ParseError,
  findNodeAtLocation,
  getNodeValue,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import type { Diagnostic } from '../../contract/api.js';
import { jsonPath } from '../../core/input/json.js';
import { TOOL_SCHEMA } from '../../core/loop/tools.js';
import { type Vocabulary, VocabularyError, checkCondition, closest } from '../../core/loop/vocabulary.js';
import { argumentTypes } from '../../core/loop/tools.js';
import { LineIndex } from './text-range.js';

const schemaAjv = new Ajv2020({ allErrors: true, strict: true });
let validateTool: ValidateFunction | undefined;

/** "/preconditions/0/expr" → ['preconditions', 0, 'expr']. */
function pointerPath(pointer: string): JSONPath {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => {
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(seg) ? Number(seg) : seg;
    });
}

/** Offsets in the document of each character of a JSON string's value (and one past the end). */
export function valueOffsets(text: string, node: Node): number[] {
  const out: number[] = [];
  const end = node.offset + node.length - 1;
  let i = node.offset + 1;
  while (i < end) {
    out.push(i);
    if (text[i] !== '\\') i += 1;
    else i += text[i + 1] === 'u' ? 6 : 2;
  }
  out.push(end);
  return out;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A JSON text's tree, each syntax error a diagnostic in `out` (strict JSON: no comments, no trailing commas). */
export function parseJsonTree(text: string, lines: LineIndex, out: Diagnostic[]): Node | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  for (const e of errors) {
    const what = printParseErrorCode(e.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    out.push(
      lines.diagnostic(e.offset, e.offset + Math.max(1, e.length), 'error', `not valid JSON: ${what}`, 'syntax'),
    );
  }
  return errors.length > 0 ? undefined : root;
}

export function checkToolText(text: string, vocabulary: Vocabulary, world: string): Diagnostic[] {
  const lines = new LineIndex(text);
  const out: Diagnostic[] = [];
  const at = (node: Node, severity: Diagnostic['severity'], message: string, source: Diagnostic['source']): void => {
    out.push(lines.diagnostic(node.offset, node.offset + node.length, severity, message, source));
  };

  const root = parseJsonTree(text, lines, out);
  if (root === undefined) return out;
  const value: unknown = getNodeValue(root);

  // The JSON Schema, every violation at its node.
  validateTool ??= schemaAjv.compile(TOOL_SCHEMA);
  if (!validateTool(value)) {
    for (const e of validateTool.errors ?? []) schemaDiagnostic(e, root, lines, out);
  }
  if (root.type !== 'object') return out;

  // Registration against the world, on whatever parts are well-formed.
  const doc = value as Record<string, unknown>;
  const skill = findNodeAtLocation(root, ['skill']);
  if (skill?.type === 'string' && typeof doc['skill'] === 'string' && !vocabulary.skills.includes(doc['skill'])) {
    const hint = closest(doc['skill'], vocabulary.skills);
    const has =
      vocabulary.skills.length > 0
        ? `it has ${vocabulary.skills.join(', ')}`
        : 'it has no skills (tools run in tool-loop worlds such as tabletop)';
    at(
      skill,
      'error',
      `$.skill: ${world} has no skill "${doc['skill']}"${hint ? ` (did you mean ${hint}?)` : ''}; ${has}`,
      'vocabulary',
    );
  }
  const args = findNodeAtLocation(root, ['arguments']);
  if (args?.type === 'object') argumentSchemaDiagnostics(args, lines, out);
  // Conditions are checked in their scope, as registration does: `args` typed from the argument
  // schema, `pre` (the state before the call) only in postconditions and failure rules.
  const argTypes = args?.type === 'object' ? argumentTypes(getNodeValue(args) as Record<string, unknown>) : {};
  const toolName = typeof doc['name'] === 'string' ? doc['name'] : '(unnamed)';
  const scopes = { preconditions: 'precondition', postconditions: 'postcondition', failures: 'failure rule' } as const;
  for (const [list, key] of [
    ['preconditions', 'expr'],
    ['postconditions', 'expr'],
    ['failures', 'when'],
  ] as const) {
    const items = findNodeAtLocation(root, [list]);
    if (items?.type !== 'array') continue;
    (items.children ?? []).forEach((_, i) => {
      const node = findNodeAtLocation(root, [list, i, key]);
      if (node?.type !== 'string') return;
      try {
        checkCondition(node.value as string, vocabulary, { where: scopes[list], tool: toolName, args: argTypes });
      } catch (e) {
        if (!(e instanceof VocabularyError)) throw e;
        const [start, end] = conditionRange(text, node, e.message);
        out.push(
          lines.diagnostic(start, end, 'error', `${jsonPath(`/${list}/${i}/${key}`)}: ${e.message}`, 'vocabulary'),
        );
      }
    });
  }
  out.sort((a, b) => a.startLine - b.startLine || a.startColumn - b.startColumn);
  return out;
}

/** Keywords an argument schema may use (for "did you mean" when one is misspelled). */
const SCHEMA_KEYWORDS = [
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'description',
  'title',
  'default',
  'examples',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
];

/** The key node named `name` anywhere under `node` (an unknown keyword's place), or null. */
function keyNamed(node: Node, name: string): Node | null {
  for (const c of node.children ?? []) {
    if (c.type === 'property' && c.children?.[0]?.value === name) return c.children[0];
    const deeper = keyNamed(c, name);
    if (deeper !== null) return deeper;
  }
  return null;
}

/** A meta-schema violation in words a tool author reads: what is wrong with the value at that place. */
function schemaProblem(e: ErrorObject, value: unknown): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'enum') {
    const allowed = (p['allowedValues'] as unknown[]).map(String);
    const hint = typeof value === 'string' ? closest(value, allowed) : null;
    return `${JSON.stringify(value)} is not one of ${allowed.join(', ')}${hint ? ` (did you mean ${hint}?)` : ''}`;
  }
  if (e.keyword === 'type') {
    const t = String(p['type']);
    return `must be ${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}, not ${JSON.stringify(value)}`;
  }
  return e.message ?? e.keyword;
}

/**
 * An argument schema's problems, each at its own node: every violation of the JSON Schema meta-schema (one per place,
 * the most telling), else what strict compilation refuses (an unknown keyword at its key).
 */
function argumentSchemaDiagnostics(args: Node, lines: LineIndex, out: Diagnostic[]): void {
  // Checked against the meta-schema by the shared instance (compiled once: a fresh one compiles it again, tens of
  // milliseconds on the loop that answers the E-STOP), then compiled by a fresh one (no schema kept between checks).
  const ajv = schemaAjv;
  const schema = getNodeValue(args) as object;
  const put = (node: Node, message: string): void => {
    const end = node.type === 'object' || node.type === 'array' ? node.offset + 1 : node.offset + node.length;
    out.push(lines.diagnostic(node.offset, end, 'error', message, 'vocabulary'));
  };
  if (ajv.validateSchema(schema) !== true) {
    const seen = new Set<string>();
    for (const e of ajv.errors ?? []) {
      if (seen.has(e.instancePath) || e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
      seen.add(e.instancePath);
      const node = findNodeAtLocation(args, pointerPath(e.instancePath)) ?? args;
      put(node, `${jsonPath(`/arguments${e.instancePath}`)}: ${schemaProblem(e, getNodeValue(node))}`);
    }
    return;
  }
  try {
    new Ajv2020({ allErrors: true, strict: true, validateSchema: false }).compile(schema);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const unknown = /unknown keyword: "([^"]+)"/.exec(message);
    const key = unknown !== null ? keyNamed(args, unknown[1]!) : null;
    if (unknown !== null && key !== null) {
      const hint = closest(unknown[1]!, SCHEMA_KEYWORDS);
      put(key, `$.arguments: "${unknown[1]}" is not a JSON Schema keyword${hint ? ` (did you mean ${hint}?)` : ''}`);
    } else put(args.parent?.children?.[0] ?? args, `$.arguments: not a valid JSON Schema: ${message}`);
  }
}

function schemaDiagnostic(e: ErrorObject, root: Node, lines: LineIndex, out: Diagnostic[]): void {
  const where = jsonPath(e.instancePath);
  const node = findNodeAtLocation(root, pointerPath(e.instancePath)) ?? root;
  const p = e.params as Record<string, unknown>;
  const start = node.offset;
  let end = node.offset + node.length,
    detail: string;
  switch (e.keyword) {
    case 'required':
      detail = `missing required field "${String(p['missingProperty'])}"`;
      break;
    case 'additionalProperties': {
      const name = String(p['additionalProperty']);
      detail = `unknown field "${name}"`;
      const key = node.children?.find((c) => c.children?.[0]?.value === name)?.children?.[0];
      if (key !== undefined) {
        out.push(lines.diagnostic(key.offset, key.offset + key.length, 'error', `${where}: ${detail}`, 'schema'));
        return;
      }
      break;
    }
    case 'type':
      detail = `must be ${String(p['type'])}`;
      break;
    default:
      detail = e.message ?? e.keyword;
  }
  // An object or array is marked at its opening bracket, not over all its lines.
  if (node.type === 'object' || node.type === 'array') end = Math.min(end, start + 1);
  out.push(lines.diagnostic(start, end, 'error', `${where}: ${detail}`, 'schema'));
}

/**
 * The range inside a condition's string literal that a CEL problem is about: the misspelled name
 * the message quotes, or the position a CEL parse error gives, else the whole literal.
 */
export function conditionRange(text: string, node: Node, message: string): [number, number] {
  const offsets = valueOffsets(text, node);
  const expr = node.value as string;
  const parseAt = /^not a CEL expression: <input>:1:(\d+):/.exec(message);
  if (parseAt !== null) {
    const k = Math.min(Number(parseAt[1]) - 1, expr.length - 1);
    if (k >= 0) return [offsets[k]!, offsets[k + 1]!];
  }
  const named =
    /(?:unknown field|unknown object|objects have no field|is compared with) "([^"]+)"/.exec(message) ??
    /^"([^"]+)":/.exec(message);
  if (named !== null) {
    const m = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(named[1]!)}(?![A-Za-z0-9_])`).exec(expr);
    if (m !== null) return [offsets[m.index]!, offsets[m.index + named[1]!.length]!];
  }
  return [node.offset, node.offset + node.length];
}
