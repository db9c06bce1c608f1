/**
 * The editors' workflow: LTL, tool-file and rules-file checking with exact ranges, what a world lets them name
 * (completion and hover), the tool schema, and the workspace folder they open and save in.
 */
import { readFileSync } from 'node:fs';
import { WitnessError } from '../contract/errors.js';
import type { Diagnostic, LtlCheckResult, LtlPatternTemplate, Vocabulary as VocabularyView } from '../contract/api.js';
import type { Vocabulary } from '../core/loop/vocabulary.js';
import { InputError, parseJson } from '../core/input/json.js';
import { type Region, parseRegions } from '../core/world/regions.js';
import { TOOL_SCHEMA } from '../core/loop/tools.js';
import { EMBEDDED_WORLDS, worldEntry } from '../backends/catalogue.js';
import { PATTERNS, type Pattern, instantiatePattern } from '../core/ltl/patterns.js';
import { checkLtl } from '../services/editor/ltl-check.js';
import { checkToolText } from '../services/editor/tool-check.js';
import { checkRulesText } from '../services/editor/rules-check.js';
import { registerToolFolder } from './act.js';
import { Workspace } from '../services/editor/workspace.js';

interface WorldVocabulary {
  /** What the editors show (completion, hover). */
  readonly view: VocabularyView;
  /** What registration checks run against. */
  readonly core: Vocabulary;
}

/** Every world the editors know, maze worlds first. */

const num = (x: number): string => String(Math.round(x * 1000) / 1000);

function describeRegion(r: Region): string {
  return r.kind === 'disk'
    ? `disk at (${num(r.center[0])}, ${num(r.center[1])}), radius ${num(r.radius)} m`
    : `box from (${num(r.min[0])}, ${num(r.min[1])}) to (${num(r.max[0])}, ${num(r.max[1])})`;
}

/**
 * The vocabulary of `world`, or null for a world the app does not have. Maze worlds name their
 * propositions in the regions file shipped with the app; tool worlds name propositions, typed
 * fields, objects and skills. A shipped regions file that does not parse throws its InputError.
 */
function worldVocabulary(world: string): WorldVocabulary | null {
  if (!EMBEDDED_WORLDS.includes(world)) return null;
  const e = worldEntry(world);
  const v = e.vocabulary;
  if (v !== undefined) {
    const fields = [
      ...Object.entries(v.fields).map(([name, type]) => ({ name, type })),
      ...v.objects.flatMap((o) =>
        Object.entries(v.objectFields).map(([f, type]) => ({ name: `objects.${o}.${f}`, type })),
      ),
    ];
    return {
      view: {
        world,
        source: null,
        fields,
        objects: [...v.objects],
        skills: [...v.skills],
        propositions: v.propositions.map((name) => ({ name, detail: `a ${world} proposition` })),
      },
      core: v,
    };
  }
  const rel = `regions/${world}.json`;
  const text = e.regionsFile === null ? null : readFileSync(e.regionsFile, 'utf8');
  const regions = text === null ? [] : parseRegions(parseJson(text, rel), rel).regions;
  return {
    view: {
      world,
      source: text === null ? null : rel,
      fields: [],
      objects: [],
      skills: [],
      propositions: regions.map((r) => ({ name: r.name, detail: describeRegion(r) })),
    },
    core: { fields: {}, objects: [], objectFields: {}, propositions: regions.map((r) => r.name), skills: [] },
  };
}

/** The vocabulary, or the error the editors show: an unknown world, or a shipped regions file that does not parse. */
function vocabularyOf(world: string): WorldVocabulary {
  let v: WorldVocabulary | null;
  try {
    v = worldVocabulary(world);
  } catch (e) {
    if (e instanceof InputError) throw new WitnessError('invalid-input', `the world's ${e.message}`, { path: e.path });
    throw e;
  }
  if (v === null)
    throw new WitnessError('not-found', `no world "${world}"; the editors know ${EMBEDDED_WORLDS.join(', ')}`, {
      path: '$.world',
    });
  return v;
}

/** Parses and translates an LTL text; with a world, its propositions are checked against the world's. */
export function ltlCheck(text: string, world?: string): LtlCheckResult {
  const v = world === undefined ? null : vocabularyOf(world);
  return checkLtl(text, v === null ? null : { world: v.view.world, propositions: v.core.propositions });
}

/** Checks a tool file against its JSON Schema and a world's vocabulary. */
/** A rules file's text to check against the tools of a folder (`dir`, offered as `tools`) on a tool world. */
export interface RulesFileCheck {
  readonly text: string;
  readonly world: string;
  readonly dir: string;
  readonly tools: string;
}

/**
 * A rules file's text checked as a run would register it, each problem at its range; tools that do not register are
 * one diagnostic. Translating the rules' formulas can take seconds: the console runs this in the planning worker.
 */
export function rulesFileCheck(r: RulesFileCheck): { diagnostics: Diagnostic[]; tools: string } {
  const v = worldEntry(r.world).vocabulary;
  if (v === undefined)
    throw new WitnessError('invalid-input', `${r.world} has no skills: rules run in the tool loop`, {
      path: '$.world',
    });
  let registered: ReturnType<typeof registerToolFolder>;
  try {
    registered = registerToolFolder(r.dir, v);
  } catch (e) {
    const message = `the tools of ${r.tools} do not register, so the rules cannot be checked: ${e instanceof Error ? e.message : String(e)}`;
    const d: Diagnostic = { severity: 'error', message, startLine: 1, startColumn: 1, endLine: 1, endColumn: 2 };
    return { diagnostics: [d], tools: r.tools };
  }
  return { diagnostics: checkRulesText(r.text, registered, v), tools: r.tools };
}

export function toolCheck(text: string, world: string): { diagnostics: Diagnostic[] } {
  return { diagnostics: checkToolText(text, vocabularyOf(world).core, world) };
}

export function vocabularyView(world: string): VocabularyView {
  return vocabularyOf(world).view;
}

/** The JSON Schema of tool files (docs/schemas/tool.schema.json). */
export function toolSchema(): Record<string, unknown> {
  return structuredClone(TOOL_SCHEMA);
}

/** Default names of the tab stops: the tables' placeholders in lower case, locations l1 l2 l3. */
const STOP_NAME: Readonly<Record<string, string>> = { P: 'p', S: 's', T: 't', Q: 'q', R: 'r' };
const SNIPPET_LOCATIONS = 3;
const SNIPPET_COUNT = '2';

/** Monaco snippet text: `$`, `}` and `\` are escaped outside tab stops. */
const snippetEscaped = (t: string): string => t.replace(/[$}\\]/g, (c) => `\\${c}`);

/** One pattern as a snippet: instantiated with marker propositions, each marker then made a tab stop. */
function patternSnippet(p: Pattern): string {
  const stops: string[] = [];
  const args: string[] = [];
  for (const param of p.params) {
    if (param.kind === 'count') args.push(SNIPPET_COUNT);
    else
      for (let k = 0; k < (param.kind === 'list' ? SNIPPET_LOCATIONS : 1); k++) {
        stops.push(param.kind === 'list' ? `l${k + 1}` : (STOP_NAME[param.name] ?? param.name));
        args.push(`pattern_stop_${stops.length}_`);
      }
  }
  const text = snippetEscaped(instantiatePattern(p.name, args).text);
  return text.replace(/pattern_stop_([0-9]+)_/g, (_, k: string) => `\${${k}:${stops[Number(k) - 1]!}}`);
}

/** The pattern catalogue as editor templates. */
export function patternTemplates(): { patterns: LtlPatternTemplate[] } {
  return {
    patterns: PATTERNS.map((p) => ({
      name: p.name,
      family: p.family,
      description: p.description,
      params: p.params.map((x) => ({ ...x })),
      snippet: patternSnippet(p),
    })),
  };
}

/** The workspace folder: list, read and write (atomic, with conflict detection), confined to it. */
export { Workspace };
