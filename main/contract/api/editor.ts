// Contract, editors: LTL and tool-definition checking for the Monaco editors, and the workspace
// folder they open and save in.
import { type Static, Type } from '@sinclair/typebox';
import { NoParams } from './core.js';

/** A problem at an exact range of the checked text (1-based lines and columns, end exclusive). */
export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  message: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
  /**
   * Which check found it: 'syntax' (LTL or JSON), 'budget' (the automaton is too large to build
   * here), 'vocabulary' (a name the world does not define) or 'schema' (the tool file's JSON Schema).
   * The editor shows 'schema' and JSON 'syntax' problems from its own JSON validator.
   */
  source?: 'syntax' | 'budget' | 'vocabulary' | 'schema';
}

export interface LtlCheckResult {
  diagnostics: Diagnostic[];
  /** The formula in our printed form and its automaton's size, when it parses and translates. */
  formula?: string;
  automaton?: { states: number; edges: number; accepting: number };
  /** Propositions the formula mentions, and those the chosen world does not define. */
  propositions: string[];
  unknown: string[];
  /** Whether propositions were checked (a world was given and it names its propositions). */
  checkedAgainst?: string | null;
}

export interface Vocabulary {
  world: string;
  /** Region (proposition) names with a one-line description each. */
  propositions: { name: string; detail: string }[];
  /** Where the propositions come from (a regions file of the app's assets), or null. */
  source?: string | null;
  /** World fields, objects and skills tool conditions may read (tool-loop worlds only). */
  fields: { name: string; type: string }[];
  objects: string[];
  skills: string[];
}

/**
 * A specification pattern as an editor template: `snippet` is the formula in Monaco's snippet syntax, one tab stop
 * per parameter (its default a proposition name to overwrite; a compound formula there needs parentheses), a list
 * parameter as three locations and a count as 2.
 */
export interface LtlPatternTemplate {
  name: string;
  family: 'property' | 'robotic';
  description: string;
  params: { name: string; kind: 'formula' | 'list' | 'count'; description: string }[];
  snippet: string;
}

/** One workspace file; `version` values are the SHA-256 of the content, in hex. */
export interface WorkspaceFile {
  /** Relative to the workspace folder, with '/' separators. */
  path: string;
  size: number;
  mtime_ms: number;
}

const PATH = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'relative to the workspace folder, with / separators',
});
/** The longest text the editors' checks and saves take, in characters. */
export const MAX_EDITOR_TEXT = 4_000_000;
const TEXT = Type.String({ maxLength: MAX_EDITOR_TEXT });
const WORLD = Type.String({ minLength: 1, maxLength: 100 });
const strict = { additionalProperties: false } as const;

const LtlCheckRequest = Type.Object({ text: TEXT, world: Type.Optional(WORLD) }, strict);
const ToolCheckRequest = Type.Object({ text: TEXT, world: WORLD }, strict);
const RulesCheckRequest = Type.Object(
  {
    text: TEXT,
    world: WORLD,
    tools: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'a tool folder: one of ActOptions.tools' }),
    ),
  },
  strict,
);
const WorldVocabularyRequest = Type.Object({ world: WORLD }, strict);
const WorkspaceReadRequest = Type.Object({ path: PATH }, strict);
const WorkspaceWriteRequest = Type.Object(
  {
    path: PATH,
    text: TEXT,
    baseVersion: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  strict,
);

export interface EditorApi {
  /** Parses and translates an LTL specification; diagnostics carry exact ranges. */
  ltlCheck(params: Static<typeof LtlCheckRequest>): Promise<LtlCheckResult>;
  /** Checks a tool-definition file against its JSON Schema and a world's vocabulary. */
  toolCheck(params: Static<typeof ToolCheckRequest>): Promise<{ diagnostics: Diagnostic[] }>;
  /**
   * Checks a rules file (`*.rules.json`) as `witness act --rules` registers it: against a tool world's vocabulary and
   * the tools of a folder (default: the workspace's `tools/` when the console offers it, else the shipped tools), every
   * problem at its range. `tools`: the folder checked against.
   */
  rulesCheck(params: Static<typeof RulesCheckRequest>): Promise<{ diagnostics: Diagnostic[]; tools: string }>;
  /** What a world lets specifications and tools mention (for completion and hover). */
  worldVocabulary(params: Static<typeof WorldVocabularyRequest>): Promise<Vocabulary>;
  /** The JSON Schema of tool-definition files (docs/schemas/tool.schema.json), for the editor's JSON validator. */
  toolSchema(params?: NoParams): Promise<Record<string, unknown>>;
  /** The specification pattern catalogue (`witness ltl pattern --list`) as templates for .ltl files. */
  ltlPatterns(params?: NoParams): Promise<{ patterns: LtlPatternTemplate[] }>;
  /**
   * Every file of the workspace folder (created when missing), recursively, skipping dot-folders
   * and node_modules; `truncated` when there were more than the list holds.
   */
  workspaceList(params?: NoParams): Promise<{ root: string; files: WorkspaceFile[]; truncated?: boolean }>;
  /**
   * `version` is an opaque token of the file's content on disk, handed back on save. Refuses paths
   * outside the workspace ('forbidden'), missing files ('not-found'), files that are not UTF-8 text
   * ('not-text') or larger than the editors open ('too-large').
   */
  workspaceRead(params: Static<typeof WorkspaceReadRequest>): Promise<{ text: string; version: string }>;
  /**
   * Writes atomically (a temporary file renamed over the target). With a string `baseVersion`,
   * refuses (code 'conflict') when the file changed on disk since it was read; with `null`, refuses
   * when the file exists (a new file never replaces one); without it, writes unconditionally.
   */
  workspaceWrite(params: Static<typeof WorkspaceWriteRequest>): Promise<{ version: string }>;
}

export const EDITOR_PARAMS = {
  ltlCheck: LtlCheckRequest,
  toolCheck: ToolCheckRequest,
  rulesCheck: RulesCheckRequest,
  worldVocabulary: WorldVocabularyRequest,
  toolSchema: NoParams,
  ltlPatterns: NoParams,
  workspaceList: NoParams,
  workspaceRead: WorkspaceReadRequest,
  workspaceWrite: WorkspaceWriteRequest,
} as const satisfies Record<keyof EditorApi, object>;
