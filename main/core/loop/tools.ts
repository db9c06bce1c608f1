/**
 * Typed tool definitions (JSON files, schema in docs/schemas/tool.schema.json): arguments as JSON
 * Schema 2020-12, preconditions and postconditions as named CEL conditions over the world's
 * fields, a timeout, failure-class rules and the world skill the tool binds to. Registration checks
 * everything against the world's vocabulary before anything runs.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { InputError, checkSchema } from '../input/json.js';
import { ToolDocument, jsonSchema } from '../../contract/formats.js';
import {
  type ArgType,
  type ConditionScope,
  type Vocabulary,
  VocabularyError,
  checkCondition,
  closest,
} from './vocabulary.js';

/** The published schema of tool files (docs/schemas/tool.schema.json). */
export const TOOL_SCHEMA = jsonSchema(ToolDocument);

/** A parsed tool file: the document with its optional lists filled in. */
export type ToolDef = Omit<ToolDocument, '$schema'> & Required<Pick<ToolDocument, 'preconditions' | 'failures'>>;

export interface RegisteredTool extends ToolDef {
  /** The compiled argument validator. */
  readonly validate: ValidateFunction;
}

const argsAjv = new Ajv2020({ allErrors: true, strict: true });

/** Parses and validates one tool definition document. */
export function parseTool(value: unknown, file: string): ToolDef {
  const { $schema: _schema, ...raw } = checkSchema<ToolDocument>(ToolDocument, value, file);
  return { preconditions: [], failures: [], ...raw };
}

/**
 * Registers tools against a world's vocabulary: each skill exists, each argument schema compiles,
 * each condition parses and type-checks as a boolean over the world's fields. The first problem
 * blocks registration with the file and the JSON path.
 */
export function registerTools(
  tools: readonly { def: ToolDef; file: string }[],
  v: Vocabulary,
): Map<string, RegisteredTool> {
  const out = new Map<string, RegisteredTool>();
  for (const t of tools) registerTool(out, t, v);
  return out;
}

/**
 * One tool file registered into `out` (what registerTools does for each, in order): a caller on the loop that answers
 * the E-STOP registers a large folder one tool at a time, with turns of the event loop between.
 */
export function registerTool(
  out: Map<string, RegisteredTool>,
  { def, file }: { def: ToolDef; file: string },
  v: Vocabulary,
): void {
  if (out.has(def.name)) throw new InputError(file, '$.name', `a tool named "${def.name}" is already registered`);
  if (!v.skills.includes(def.skill)) {
    const hint = closest(def.skill, v.skills);
    throw new InputError(
      file,
      '$.skill',
      `the world has no skill "${def.skill}"${hint ? ` (did you mean ${hint}?)` : ''}; it has ${v.skills.join(', ')}`,
    );
  }
  let validate: ValidateFunction;
  try {
    validate = argsAjv.compile(def.arguments);
  } catch (e) {
    throw new InputError(file, '$.arguments', `not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`);
  }
  const args = argumentTypes(def.arguments);
  const check = (list: readonly { expr?: string; when?: string }[], at: string, key: 'expr' | 'when'): void => {
    const where: ConditionScope['where'] =
      at === 'preconditions' ? 'precondition' : at === 'postconditions' ? 'postcondition' : 'failure rule';
    list.forEach((c, i) => {
      try {
        checkCondition(c[key]!, v, { where, tool: def.name, args });
      } catch (e) {
        if (e instanceof VocabularyError) throw new InputError(file, `$.${at}[${i}].${key}`, e.message);
        throw e;
      }
    });
  };
  check(def.preconditions, 'preconditions', 'expr');
  check(def.postconditions, 'postconditions', 'expr');
  check(def.failures, 'failures', 'when');
  out.set(def.name, { ...def, validate });
}

/**
 * The types conditions see for `args.<name>`, from the argument schema's top-level properties: a
 * string, number, integer or boolean property is readable; anything else is named so that reading
 * it is a precise registration error.
 */
export function argumentTypes(schema: Record<string, unknown>): Record<string, ArgType> {
  const props = schema['properties'];
  const out: Record<string, ArgType> = {};
  if (props === null || typeof props !== 'object') return out;
  for (const [name, p] of Object.entries(props as Record<string, unknown>)) {
    const t = p !== null && typeof p === 'object' ? (p as { type?: unknown; enum?: unknown }) : {};
    const enumOfStrings = Array.isArray(t.enum) && t.enum.length > 0 && t.enum.every((x) => typeof x === 'string');
    if (t.type === 'string' || (t.type === undefined && enumOfStrings)) out[name] = 'string';
    else if (t.type === 'number' || t.type === 'integer') out[name] = 'number';
    else if (t.type === 'boolean') out[name] = 'bool';
    else out[name] = { unsupported: t.type === undefined ? 'of no single type' : `of type ${JSON.stringify(t.type)}` };
  }
  return out;
}

/** A specification's propositions must be the world's. */
export function checkPropositions(aps: readonly string[], v: Vocabulary, where: string): void {
  for (const ap of aps) {
    if (!v.propositions.includes(ap)) {
      const hint = closest(ap, v.propositions);
      throw new InputError(
        where,
        ap,
        `unknown proposition "${ap}"${hint ? ` (did you mean ${hint}?)` : ''}; the world has ${v.propositions.join(', ')}`,
      );
    }
  }
}
